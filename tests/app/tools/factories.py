"""Rows for tool tests, inserted straight through a session (no GraphQL, no services).

MCP tools cannot be created through the API before discovery exists, and the N+1 guard
needs hundreds of rows quickly, so both go through these helpers.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from sqlalchemy import insert, null
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


@dataclass(frozen=True)
class OddCatalog:
    """What :func:`odd_catalog` inserted: tool ids by name, the 40 spaces, the server bound to them."""

    tools: dict[str, str]
    many_spaces: list[str]
    server_id: str


async def odd_catalog(session_factory: async_sessionmaker[AsyncSession], space_id: str) -> OddCatalog:
    """Tools holding values a listing's decoding could get wrong: integers beyond 64 bits, floats at
    the edges, escapes and non-ASCII text in strings and keys, a boolean and bare numbers as the output
    schema, JSON null and SQL NULL, deep nesting; times without a fraction, given in another zone, at
    a microsecond's edge; a tool bound to 40 spaces (and to ``space_id``), an MCP tool of a server
    bound to the 40; ``odd_json`` is bound to ``space_id`` too."""
    many = [space_row(f"ünï-space-{number:02d} 🦜") for number in range(40)]
    server = mcp_server_row()
    deep: dict[str, Any] = {"type": "object"}
    for _ in range(60):
        deep = {"properties": {"a": deep}}
    odd_schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "maximum": 123456789012345678901234567890, "minimum": -9223372036854775809},
            "x": {"multipleOf": 0.1, "default": 1e308, "negativeZero": -0.0, "tiny": 5e-324, "big": 2**63 - 1},
            "": {"description": 'quotes " and \\ backslash, \u2028 line, \x01 control, 🦜, 中文, \u00e9'},
            "$ref.a/b": {"enum": [None, True, False, 0, "0", [], {}]},
        },
        "description": "mentions 1234567890123456789012 in its text",
    }
    tools = [
        custom_tool_row("odd_json", input_schema=odd_schema, tags=["ünï", "🦜", "a,b", '"q"'], allowed_roles=[]),
        custom_tool_row("boolean_output", output_schema=True, request_mapping={"method": "GET", "path": "/x"}),
        custom_tool_row("bare_number_output", output_schema=0.30000000000000004, tags=[]),
        custom_tool_row("long_number_output", output_schema=12345678901234567890123),
        custom_tool_row("json_null", output_schema=None, request_mapping=None, group=None, owner=None),
        custom_tool_row("sql_null", output_schema=null(), request_mapping=null(), endpoint=None),
        custom_tool_row("deep", input_schema=deep, allowed_roles=["MEMBER", "SPACE_ADMIN", "ADMIN"]),
        custom_tool_row(
            "times",
            created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
            updated_at=datetime(2026, 1, 2, 8, 34, 5, 250_000, tzinfo=timezone(timedelta(hours=5, minutes=30))),
            drifted_at=datetime(1999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
        ),
        custom_tool_row("many_spaces"),
        mcp_tool_row(server["id"], "server_bound_everywhere", drifted_at=datetime(2026, 5, 6, tzinfo=UTC)),
    ]
    ids = {row["name"]: row["tool_id"] for row in tools}
    await insert_rows(
        session_factory,
        spaces=many,
        servers=[server],
        tools=tools,
        tool_bindings=[
            *((ids["many_spaces"], space["id"]) for space in many),
            (ids["many_spaces"], space_id),
            (ids["odd_json"], space_id),
        ],
        server_bindings=[(server["id"], space["id"]) for space in many],
    )
    return OddCatalog(tools=ids, many_spaces=[space["id"] for space in many], server_id=server["id"])
