"""The GraphQL API of MCP servers (app.mcp)."""
