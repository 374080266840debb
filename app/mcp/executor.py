"""MCP tools: ``tools/call`` through the session pool (cap 15 s, never retried).

The pool's one exception, which is not a retry of the tool: an HTTP server that answers 404
to a known session has refused the request without running it, and it is sent once more on
a new session (``app.mcp.pool``).
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.changes import DEFAULT_TTL_S, GenerationCache
from app.gateway.envelope import (
    EGRESS_DENIED,
    EXTERNAL_API_TIMEOUT,
    MCP_ERROR,
    RESPONSE_TOO_LARGE,
    TOOL_NOT_AVAILABLE,
    ToolFailure,
)
from app.gateway.executors.base import CappedExecutor, Invocation
from app.gateway.redaction import NO_SECRETS, SecretScrubber
from app.mcp.config import (
    BAD_RESULT,
    CONNECTION_LOST,
    EGRESS,
    MAX_DETAIL_CHARS,
    REJECTED,
    RESULT_TOO_COSTLY,
    TIMED_OUT,
    TOO_LARGE,
    UNREACHABLE,
    McpCallError,
    McpServerConfig,
    server_tool_name,
)
from app.mcp.pool import McpSessionPool
from app.tools import repository
from app.tools.models import ToolDefinition

MAX_MESSAGE_CHARS = 2000


def result_data(result: types.CallToolResult) -> Any:
    """``structuredContent`` when present; else the text blocks joined, or every block as JSON."""
    if result.structured_content is not None:
        return result.structured_content
    if not result.content:
        return None
    if all(isinstance(block, types.TextContent) for block in result.content):
        return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))
    return [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content]


def _error_failure(result: types.CallToolResult) -> ToolFailure:
    text = "\n".join(block.text for block in result.content if isinstance(block, types.TextContent)).strip()
    payload = {
        "content": [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content],
        "structuredContent": result.structured_content,
    }
    return ToolFailure(
        MCP_ERROR,
        text[:MAX_MESSAGE_CHARS] if text else "The MCP tool reported an error.",
        json.dumps(payload, default=str)[:MAX_DETAIL_CHARS],
    )


_FAILURES: dict[str, tuple[str, str]] = {
    EGRESS: (EGRESS_DENIED, "The MCP server is not reachable from this platform."),
    UNREACHABLE: (MCP_ERROR, "The MCP server failed: it could not be reached."),
    CONNECTION_LOST: (MCP_ERROR, "The MCP server failed before answering; the tool may or may not have run."),
    TIMED_OUT: (EXTERNAL_API_TIMEOUT, "The MCP server did not answer in time."),
    BAD_RESULT: (MCP_ERROR, "The MCP server failed: its answer could not be used."),
    RESULT_TOO_COSTLY: (
        MCP_ERROR,
        "The MCP server failed: its result takes too much work to check against the tool's output schema.",
    ),
    TOO_LARGE: (RESPONSE_TOO_LARGE, "The MCP server's answer is larger than the platform accepts."),
}


def call_failure(error: McpCallError) -> ToolFailure:
    """The envelope error of a failed request (never retryable: MCP calls are not retried)."""
    if error.kind == REJECTED:
        message = f"The MCP server refused the call: {error.server_message or 'no reason given'}"
        return ToolFailure(MCP_ERROR, message[:MAX_MESSAGE_CHARS], error.detail)
    code, message = _FAILURES[error.kind]
    return ToolFailure(code, message, error.detail)


class McpExecutor(CappedExecutor):
    cap_seconds = 15.0
    timeout_code = EXTERNAL_API_TIMEOUT
    waits_outside = True

    def __init__(
        self,
        pool: McpSessionPool,
        session_factory: async_sessionmaker[AsyncSession],
        *,
        config_ttl_s: float = DEFAULT_TTL_S,
    ) -> None:
        self.pool = pool
        self.session_factory = session_factory
        # Dropped on any catalog commit (a changed url or secret is used by the next call).
        self._configs: GenerationCache[str, McpServerConfig | None] = GenerationCache(config_ttl_s)

    async def _config(self, server_id: str) -> McpServerConfig | None:
        return await self._configs.get_or_load(server_id, lambda: self._load_config(server_id))

    async def _load_config(self, server_id: str) -> McpServerConfig | None:
        async with self.session_factory() as session:
            server = await repository.get_server(session, server_id)
        return McpServerConfig.from_row(server) if server is not None else None

    async def scrubber_for(self, tool: ToolDefinition) -> SecretScrubber:
        config = await self._config(tool.mcp_server_id) if tool.mcp_server_id else None
        return self.pool.scrubber_for(config) if config is not None else NO_SECRETS

    async def execute(self, invocation: Invocation) -> Any:
        tool = invocation.tool
        config = await self._config(tool.mcp_server_id) if tool.mcp_server_id else None
        if config is None or config.status != "ACTIVE":
            raise ToolFailure(
                TOOL_NOT_AVAILABLE,
                "The tool's MCP server is not available.",
                f"server {tool.mcp_server_id!r} is {'missing' if config is None else config.status}",
            )
        try:
            result = await self.pool.call_tool(
                config, server_tool_name(tool), invocation.arguments, timeout_s=invocation.timeout_s
            )
        except McpCallError as error:
            raise call_failure(error) from None
        if result.is_error:
            raise _error_failure(result)
        return result_data(result)
