"""MCP servers as tool sources: registration, sessions, discovery and the executor.

``config`` (a server row's snapshot, request failures) → ``transport`` (the egress-checked HTTP
under a session) → ``session`` (one connection) → ``pool`` (one live session per server) →
``executor`` (``tools/call`` for the gateway) and ``sync`` (``tools/list`` into tool rows);
``service`` holds the rules of registering and changing servers. The server and binding tables
stay in ``app.tools.models``: the tool visibility rule reads them.
"""
