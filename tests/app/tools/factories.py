"""Rows for tool tests, inserted straight through a session (no GraphQL, no services).

MCP tools cannot be created through the API before discovery exists, and the N+1 guard
needs hundreds of rows quickly, so both go through these helpers.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.ids import mcp_tool_id, new_id
from app.spaces.models import Space
from app.tools.models import McpServer, McpServerSpaceBinding, ToolDefinition, ToolSpaceBinding

OBJECT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def custom_tool_row(name: str, *, status: str = "ACTIVE", **columns: Any) -> dict[str, Any]:
    """Column values of a CUSTOM tool (``ct_`` id)."""
    return {
        "tool_id": columns.pop("tool_id", new_id("ct_")),
        "name": name,
        "label": columns.pop("label", name.replace("_", " ").title()),
        "description": columns.pop("description", f"The {name} tool."),
        "input_schema": OBJECT_SCHEMA,
        "type": "CUSTOM",
        "endpoint": "https://tools.example.test/" + name,
        "status": status,
        **columns,
    }


def mcp_tool_row(server_id: str, name: str, *, status: str = "ACTIVE", **columns: Any) -> dict[str, Any]:
    """Column values of an MCP tool (``{serverId}__{name}`` id)."""
    return {
        "tool_id": mcp_tool_id(server_id, name),
        "name": name,
        "label": columns.pop("label", name),
        "description": columns.pop("description", f"The {name} tool of {server_id}."),
        "input_schema": OBJECT_SCHEMA,
        "type": "MCP",
        "mcp_server_id": server_id,
        "status": status,
        **columns,
    }


def mcp_server_row(name: str | None = None, *, status: str = "ACTIVE") -> dict[str, Any]:
    server_id = new_id("mcp_")
    return {
        "id": server_id,
        "name": name or f"server-{secrets.token_hex(4)}",
        "transport": "STREAMABLE_HTTP",
        "url": "https://mcp.example.test/mcp",
        "status": status,
    }


async def insert_rows(
    session_factory: async_sessionmaker[AsyncSession],
    *,
    spaces: Sequence[dict[str, Any]] = (),
    servers: Sequence[dict[str, Any]] = (),
    tools: Sequence[dict[str, Any]] = (),
    tool_bindings: Iterable[tuple[str, str]] = (),
    server_bindings: Iterable[tuple[str, str]] = (),
) -> None:
    """Bulk inserts in dependency order, one transaction."""
    tool_binding_rows = [{"tool_id": tool, "space_id": space} for tool, space in tool_bindings]
    server_binding_rows = [{"server_id": server, "space_id": space} for server, space in server_bindings]
    async with session_factory() as session, session.begin():
        for model, rows in (
            (Space, list(spaces)),
            (McpServer, list(servers)),
            (ToolDefinition, list(tools)),
            (ToolSpaceBinding, tool_binding_rows),
            (McpServerSpaceBinding, server_binding_rows),
        ):
            if rows:
                await session.execute(insert(model), rows)


def space_row(name: str) -> dict[str, Any]:
    return {"id": new_id("sp_"), "name": name, "label": name.title(), "is_system": False}
