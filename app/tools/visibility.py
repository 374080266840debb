"""The one rule for "is tool T visible in space S".

A tool with no ``tool_space_binding`` row is global; with rows, it is visible
only in those spaces. An MCP tool follows its server's
``mcp_server_space_binding`` rows the same way (and its server must be ACTIVE
unless inactive tools are asked for). Written with EXISTS / NOT EXISTS so each
test is an index probe on the bindings' primary keys.
"""

from __future__ import annotations

from sqlalchemy import Select, and_, exists, false, or_, select, true
from sqlalchemy.sql.elements import ColumnElement

from app.tools.models import McpServer, McpServerSpaceBinding, ToolDefinition, ToolSpaceBinding

ACTIVE = "ACTIVE"
SpaceId = str | ColumnElement[str]


def _bound_to(space_id: SpaceId) -> ColumnElement[bool]:
    tool_has_rows = exists().where(ToolSpaceBinding.tool_id == ToolDefinition.tool_id)
    tool_in_space = exists().where(
        ToolSpaceBinding.tool_id == ToolDefinition.tool_id,
        ToolSpaceBinding.space_id == space_id,
    )
    server_has_rows = exists().where(McpServerSpaceBinding.server_id == ToolDefinition.mcp_server_id)
    server_in_space = exists().where(
        McpServerSpaceBinding.server_id == ToolDefinition.mcp_server_id,
        McpServerSpaceBinding.space_id == space_id,
    )
    return and_(
        or_(~tool_has_rows, tool_in_space),
        or_(ToolDefinition.mcp_server_id.is_(None), ~server_has_rows, server_in_space),
    )


def _is_active() -> ColumnElement[bool]:
    server_active = exists().where(McpServer.id == ToolDefinition.mcp_server_id, McpServer.status == ACTIVE)
    return and_(
        ToolDefinition.status == ACTIVE,
        or_(ToolDefinition.mcp_server_id.is_(None), server_active),
    )


def tool_visible_in_space(space_id: SpaceId, *, include_inactive: bool = False) -> ColumnElement[bool]:
    """WHERE clause over ``tool_definition``: visible in ``space_id`` (a value or a bound parameter)."""
    clause = _bound_to(space_id)
    return clause if include_inactive else and_(clause, _is_active())


def tool_visible_somewhere(space_id: SpaceId | None, *, include_inactive: bool = False) -> ColumnElement[bool]:
    """Like :func:`tool_visible_in_space`, where ``None`` means every space (admins)."""
    if space_id is None:
        return true() if include_inactive else _is_active()
    return tool_visible_in_space(space_id, include_inactive=include_inactive)


def tool_is_global() -> ColumnElement[bool]:
    """True when no binding row restricts the tool (for MCP tools: none on the server)."""
    return and_(
        ~exists().where(ToolSpaceBinding.tool_id == ToolDefinition.tool_id),
        or_(
            ToolDefinition.mcp_server_id.is_(None),
            ~exists().where(McpServerSpaceBinding.server_id == ToolDefinition.mcp_server_id),
        ),
    )


def select_visible_tool_ids(space_id: str, tool_ids: list[str]) -> Select[str]:
    """The subset of ``tool_ids`` that are visible and ACTIVE in ``space_id``."""
    if not tool_ids:
        return select(ToolDefinition.tool_id).where(false())
    return select(ToolDefinition.tool_id).where(ToolDefinition.tool_id.in_(tool_ids), tool_visible_in_space(space_id))
