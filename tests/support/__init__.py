"""Real servers the tests start as subprocesses (MCP over streamable HTTP, …)."""
