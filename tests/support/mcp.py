"""Helpers for MCP tests: server rows, in-memory tool rows, invocations, pools."""

from __future__ import annotations

import sys
from typing import Any

from cryptography.fernet import Fernet
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.crypto import SecretBox
from app.egress import EgressPolicy
from app.gateway.executors.base import Invocation
from app.ids import mcp_tool_id, new_id
from app.mcp.pool import McpSessionPool
from app.principal import SYSTEM_PRINCIPAL
from app.spaces.models import SYSTEM_SPACE_ID
from app.tools import repository
from app.tools.models import McpServer, ToolDefinition

LOOPBACK = {"127.0.0.1", "localhost"}
#: An output schema applying itself twice at each level of the value (``allOf`` of two
#: references to a level that descends): cheap to store, 2^depth work for a value ``depth``
#: objects deep (``nested``); every level must be an object.
DOUBLING: dict[str, Any] = {
    "type": "object",
    "$defs": {
        "twice": {"allOf": [{"$ref": "#/$defs/level"}, {"$ref": "#/$defs/level"}]},
        "level": {"type": "object", "properties": {"a": {"$ref": "#/$defs/twice"}}},
    },
    "$ref": "#/$defs/twice",
}


def nested(depth: int, bottom: Any = None) -> dict[str, Any]:
    """``{"a": {"a": … {}}}``, ``depth`` levels of ``a`` (the last one ``bottom`` when given)."""
    value: Any = {} if bottom is None else bottom
    for _ in range(depth):
        value = {"a": value}
    result: dict[str, Any] = value
    return result


#: ``mcp-server-time`` from PyPI, run with this interpreter; UTC keeps its answers stable.
TIME_SERVER_COMMAND = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]


def new_pool(box: SecretBox | None = None, *, allow: set[str] | None = None) -> McpSessionPool:
    return McpSessionPool(box or SecretBox(Fernet.generate_key()), EgressPolicy(LOOPBACK if allow is None else allow))


async def add_server(
    session_factory: async_sessionmaker[AsyncSession],
    *,
    url: str | None = None,
    command: list[str] | None = None,
    status: str = "ACTIVE",
    transport: str | None = None,
) -> str:
    """An ``mcp_server`` row (STDIO when given a command, else STREAMABLE_HTTP); its id."""
    server_id = new_id("mcp_")
    async with session_factory() as session, session.begin():
        session.add(
            McpServer(
                id=server_id,
                name=f"server-{server_id[-8:]}",
                transport=transport or ("STDIO" if command else "STREAMABLE_HTTP"),
                url=url,
                command=command,
                auth_type="NONE",
                status=status,
            )
        )
    return server_id


def mcp_tool(server_id: str, mcp_name: str) -> ToolDefinition:
    """An unsaved tool row, as the gateway hands it to the executor."""
    return ToolDefinition(
        tool_id=mcp_tool_id(server_id, mcp_name),
        name=mcp_name,
        type="MCP",
        mcp_server_id=server_id,
        status="ACTIVE",
        timeout_ms=15_000,
    )


def invocation(tool: ToolDefinition, arguments: dict[str, Any] | None = None, *, timeout_s: float = 15.0) -> Invocation:
    return Invocation(
        tool=tool,
        arguments=arguments or {},
        principal=SYSTEM_PRINCIPAL,
        space_id=SYSTEM_SPACE_ID,
        trace_id="trace-test",
        timeout_s=timeout_s,
    )


async def load_tool(session_factory: async_sessionmaker[AsyncSession], tool_id: str) -> ToolDefinition:
    async with session_factory() as session:
        tool = await repository.get_tool(session, tool_id)
    assert tool is not None, f"{tool_id} is not stored"
    return tool


async def load_server(session_factory: async_sessionmaker[AsyncSession], server_id: str) -> McpServer:
    async with session_factory() as session:
        server = await repository.get_server(session, server_id)
    assert server is not None
    return server
