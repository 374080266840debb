"""Quiver as an MCP server: each space's (and each agent's) catalog on streamable HTTP.

``endpoint`` (HTTP: keys, routing, sessions) → ``server`` (the SDK's request handlers) →
``catalog`` (what an endpoint offers) and ``notify`` (list_changed to the clients a
change affects). Mounted at ``/mcp`` by ``app.main``.
"""
