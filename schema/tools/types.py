"""GraphQL types of the tools domain: Tool, filters and stats."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from datetime import datetime
from enum import Enum
from typing import Annotated, TypeVar, cast

import strawberry
from strawberry.scalars import JSON

from app.jsoncodec import Raw
from app.pagination import PageRequest
from app.tools import repository
from app.tools.service import may_manage_tool
from schema import visibility
from schema.context import Context, Info
from schema.enums import ApprovalPolicy, AuthType, Role, SideEffect, Status, ToolType
from schema.execution import precompute, selected_fields, selected_node_fields
from schema.limits import filter_tags
from schema.mcp.types import McpServer
from schema.node import Node
from schema.pagination import Connection, encode_cursor, make_connection, page_request
from schema.refs import SpaceRef
from schema.tools import rendering

E = TypeVar("E", bound=Enum)
_new_object = object.__new__


@strawberry.input(description="Narrows a list of tools. All given conditions must hold.")
class ToolFilter:
    type: ToolType | None = strawberry.field(default=None, description="Only tools of this kind.")
    tags: list[str] | None = strawberry.field(default=None, description="Only tools carrying every one of these tags.")
    group: str | None = strawberry.field(default=None, description="Only tools in this UI group.")
    search: str | None = strawberry.field(
        default=None, description="Case-insensitive match on name, label and description."
    )
    status: Status | None = strawberry.field(default=None, description="Only tools with this lifecycle status.")
    is_global: bool | None = strawberry.field(
        default=None,
        description="True: only global tools (no binding row; MCP tools: none on their server). False: only bound ones.",
    )

    def to_app(self) -> repository.ToolFilter:
        return repository.ToolFilter(
            type=self.type.name if self.type else None,
            tags=filter_tags(self.tags),
            group=self.group,
            search=self.search,
            status=self.status.name if self.status else None,
            is_global=self.is_global,
        )


@strawberry.type(description="Call statistics of a tool, computed from the call log.")
class CallStats:
    calls: int = strawberry.field(description="Number of calls in the window.")
    failures: int = strawberry.field(description="Number of failed calls in the window.")
    failures_by_code: JSON = strawberry.field(description='Failures by error code, e.g. {"TIMEOUT": 2}.')
    p50_latency_ms: float | None = strawberry.field(description="Median latency in milliseconds; null without calls.")
    p95_latency_ms: float | None = strawberry.field(
        description="95th percentile latency in milliseconds; null without calls."
    )
    last_called_at: datetime | None = strawberry.field(description="When the tool was last called; null if never.")


def _members(enum: type[E]) -> dict[object, E]:
    return {member.value: member for member in enum}


_TOOL_TYPES = _members(ToolType)
_STATUSES = _members(Status)
_AUTH_TYPES = _members(AuthType)
_SIDE_EFFECTS = _members(SideEffect)
_ROLES = _members(Role)
_APPROVALS = _members(ApprovalPolicy)
#: The columns ``Tool.from_row`` reads, in the order it unpacks them.
_tool_columns = operator.attrgetter(
    "tool_id",
    "name",
    "label",
    "description",
    "input_schema",
    "output_schema",
    "type",
    "status",
    "endpoint",
    "auth_type",
    "side_effect",
    "timeout_ms",
    "max_retries",
    "tags",
    "group",
    "allowed_roles",
    "version",
    "owner",
    "created_at",
    "updated_at",
    "drifted_at",
    "request_mapping",
    "approval",
)


@strawberry.type(description="A capability an agent can call: builtin, a custom HTTP endpoint, or an MCP tool.")
class Tool(Node):
    id: strawberry.ID = strawberry.field(description="Tool id: bt_… builtin, ct_… custom, {serverId}__{name} for MCP.")
    name: str = strawberry.field(description="Program identifier sent to the model, e.g. search_knowledge.")
    label: str = strawberry.field(description="Display name for people.")
    description: str = strawberry.field(description="Written for the model: what it does, when to use it, when not to.")
    input_schema: JSON = strawberry.field(description="JSON Schema (draft 2020-12) of the arguments.")
    output_schema: JSON | None = strawberry.field(description="JSON Schema of the result, when declared.")
    type: ToolType = strawberry.field(description="Where the tool runs.")
    status: Status = strawberry.field(description="Lifecycle status; only ACTIVE tools are callable.")
    endpoint: str | None = strawberry.field(description="HTTP URL for CUSTOM tools; null otherwise.")
    auth_type: AuthType = strawberry.field(
        description="How the platform authenticates to the endpoint. Secrets are write-only and never returned."
    )
    side_effect: SideEffect = strawberry.field(description="READ or WRITE; decides retries and idempotency.")
    timeout_ms: int = strawberry.field(description="Time limit of one attempt, in milliseconds (capped per kind).")
    max_retries: int = strawberry.field(
        description="Extra attempts after the first, used only for READ tools or with an idempotency key."
    )
    tags: list[str] = strawberry.field(description="Free-form labels for search and filtering.")
    group: str | None = strawberry.field(description="UI grouping; orthogonal to space bindings.")
    allowed_roles: list[Role] = strawberry.field(description="Roles allowed to call it; empty means every role.")
    version: str = strawberry.field(description="Semantic version of the tool's definition.")
    owner: str | None = strawberry.field(description="Who maintains the tool (free text: team or person).")
    created_at: datetime = strawberry.field(description="When the tool was created.")
    updated_at: datetime = strawberry.field(description="When the tool was last changed.")
    drifted_at: datetime | None = strawberry.field(
        description="For MCP tools: when discovery last saw the description or schema change; null if never."
    )
    request_mapping: JSON | None = strawberry.field(
        description="For CUSTOM tools imported with importOpenApi: the HTTP method, the path template and where each argument goes (path, query, header or body). Null: the arguments are POSTed as JSON."
    )
    approval: ApprovalPolicy = strawberry.field(
        description="When an agent's call of this tool waits for a person's approval (an agent may override it per tool). Direct invokeTool calls are never held."
    )
    row: strawberry.Private[repository.ToolRow]

    @classmethod
    def from_row(cls, row: repository.ToolRow) -> Tool:
        # Every column in one C call (a listing makes a thousand of these), enum members by a dict
        # look-up (the enum's own call only for a value it does not have, which raises as before).
        (
            tool_id,
            name,
            label,
            description,
            input_schema,
            output_schema,
            tool_type,
            status,
            endpoint,
            auth_type,
            side_effect,
            timeout_ms,
            max_retries,
            tags,
            group,
            allowed_roles,
            version,
            owner,
            created_at,
            updated_at,
            drifted_at,
            request_mapping,
            approval,
        ) = _tool_columns(row)
        # The dataclass's fields set as its generated __init__ sets them (it does nothing else: no
        # __post_init__, tests/schema/tools/test_tool_from_row.py), without a call of 24 keywords.
        tool = _new_object(cls)
        tool.__dict__ = {
            "id": strawberry.ID(tool_id),
            "name": name,
            "label": label,
            "description": description,
            "input_schema": JSON(input_schema),
            "output_schema": JSON(output_schema) if output_schema is not None else None,
            "type": _TOOL_TYPES.get(tool_type) or ToolType(tool_type),
            "status": _STATUSES.get(status) or Status(status),
            "endpoint": endpoint,
            "auth_type": _AUTH_TYPES.get(auth_type) or AuthType(auth_type),
            "side_effect": _SIDE_EFFECTS.get(side_effect) or SideEffect(side_effect),
            "timeout_ms": timeout_ms,
            "max_retries": max_retries,
            "tags": list(tags or []),
            "group": group,
            "allowed_roles": [_ROLES.get(role) or Role(role) for role in allowed_roles or []],
            "version": version,
            "owner": owner,
            "created_at": created_at,
            "updated_at": updated_at,
            "drifted_at": drifted_at,
            "request_mapping": JSON(request_mapping) if request_mapping is not None else None,
            "approval": _APPROVALS.get(approval) or ApprovalPolicy(approval or ApprovalPolicy.NEVER.value),
            "row": row,
        }
        return tool

    @strawberry.field(description="The MCP server the tool was discovered from; null for other kinds.")
    async def mcp_server(self, info: Info) -> McpServer | None:
        if self.row.mcp_server_id is None:
            return None
        server = await info.context.loaders.mcp_server_by_id.load(self.row.mcp_server_id)
        return McpServer.from_row(server) if server and await visibility.server_visible(info, server) else None

    @strawberry.field(
        description="Spaces the tool is explicitly bound to. Empty means global (for MCP tools: inherited from the server)."
    )
    async def bound_spaces(self, info: Info) -> list[SpaceRef]:
        from schema.spaces.types import spaces_for

        space_ids = await info.context.loaders.space_ids_by_tool_id.load(self.row.tool_id)
        return await spaces_for(info, space_ids)

    @strawberry.field(
        description="True when the caller's key may change this tool: its definition, policies and status (bindings need ADMIN)."
    )
    def viewer_can_manage(self, info: Info) -> bool:
        return may_manage_tool(info.context.principal, self.row)

    @strawberry.field(description="True when no binding row restricts it (for MCP tools, when its server has none).")
    async def is_global(self, info: Info) -> bool:
        if await info.context.loaders.space_ids_by_tool_id.load(self.row.tool_id):
            return False
        if self.row.mcp_server_id is None:
            return True
        return not await info.context.loaders.space_ids_by_mcp_server_id.load(self.row.mcp_server_id)

    @strawberry.field(
        description="Call statistics from the call log, optionally since a moment (space keys: the calls of their space only)."
    )
    async def stats(
        self,
        info: Info,
        since: Annotated[
            datetime | None,
            strawberry.argument(description="Only count calls started at or after this moment."),
        ] = None,
    ) -> CallStats:
        from schema.loaders import StatsKey

        principal = info.context.principal
        space_ids = None if principal.is_admin else (principal.space_id or "",)
        stats = await info.context.loaders.call_stats_by_tool.load(StatsKey(self.row.tool_id, since, space_ids))
        return CallStats(
            calls=stats.calls,
            failures=stats.failures,
            failures_by_code=JSON(stats.failures_by_code),
            p50_latency_ms=stats.p50_latency_ms,
            p95_latency_ms=stats.p95_latency_ms,
            last_called_at=stats.last_called_at,
        )


def page_link_flags(info: Info) -> tuple[set[str], dict[str, bool]]:
    """The node fields a page's selection names, and what :func:`repository.list_tool_page` must
    read for those of them computed ahead (``isGlobal``, ``boundSpaces``, ``mcpServer``)."""
    wanted = selected_node_fields(info)
    is_admin = info.context.principal.is_admin
    return wanted, {
        "with_bindings": bool(wanted & {"isGlobal", "boundSpaces"}),
        "with_spaces": "boundSpaces" in wanted,
        "with_server_bindings": "isGlobal" in wanted or ("mcpServer" in wanted and not is_admin),
        "with_servers": "mcpServer" in wanted,
    }


def precompute_page_fields(info: Info, tools: Sequence[Tool], links: repository.PageLinks, wanted: set[str]) -> None:
    """A page's ``isGlobal``, ``boundSpaces``, ``mcpServer`` and ``viewerCanManage``, when selected,
    from what the page's statement read (``links``): no resolver call per tool
    (schema/execution.py)."""
    if not tools or not wanted & PAGE_FIELDS:
        return
    principal = info.context.principal
    if "boundSpaces" in wanted:
        from schema.spaces.types import Space

        # The spaces the caller may read, each made once for the page.
        shown_spaces = {
            space_id: Space.from_row(row)
            for space_id, row in links.spaces.items()
            if principal.can_read_space(space_id)
        }
        tool_spaces = links.tool_spaces
        for tool in tools:
            bound = tool_spaces.get(tool.row.tool_id, ())
            # precompute(), written in place: a call per tool and field is a tenth of this loop.
            tool.__dict__["bound_spaces"] = [shown_spaces[space_id] for space_id in bound if space_id in shown_spaces]
    if "isGlobal" in wanted:
        tool_spaces, server_spaces = links.tool_spaces, links.server_spaces
        for tool in tools:
            row = tool.row
            server_id = row.mcp_server_id
            tool.__dict__["is_global"] = not tool_spaces.get(row.tool_id) and (
                server_id is None or not server_spaces.get(server_id)
            )
    if "mcpServer" in wanted:
        shown: dict[str, McpServer] = {}
        for server in links.servers.values():
            bound = links.server_spaces.get(server.id, [])
            if principal.is_admin or not bound or principal.space_id in bound:
                shown[server.id] = McpServer.from_row(server)
        for tool in tools:
            server_id = tool.row.mcp_server_id
            tool.__dict__["mcp_server"] = shown.get(server_id) if server_id is not None else None
    if "viewerCanManage" in wanted:
        for tool in tools:
            precompute(tool, "viewer_can_manage", may_manage_tool(principal, tool.row))


PAGE_FIELDS = frozenset({"isGlobal", "boundSpaces", "mcpServer", "viewerCanManage"})


async def rendered_page(
    context: Context,
    space_id: str | None,
    request: PageRequest,
    plan: rendering.ListingPlan,
    *,
    include_inactive: bool,
    with_total: bool,
) -> repository.RenderedPage | None:
    """A page of tools whose nodes SQLite wrote (``schema.tools.rendering``), or None: then the
    page is read the ordinary way."""
    async with context.session() as session:
        return await repository.list_rendered_tool_page(
            session,
            space_id,
            request,
            rendering.rendered_nodes(plan.nodes, context.principal),
            include_inactive=include_inactive,
            with_total=with_total,
        )


def rendered_connection(connection: rendering.Plan, page: repository.RenderedPage) -> str:
    """The whole connection of a rendered page as JSON text."""
    cursors = [encode_cursor(key) for key in page.rows.items]
    return rendering.connection_json(connection, page.total, page.rows, cursors, page.nodes)


async def tool_connection(
    info: Info,
    space_id: str | None,
    first: int | None,
    after: str | None,
    tool_filter: repository.ToolFilter | None,
    *,
    include_inactive: bool,
) -> Connection[Tool]:
    """One page of the tools visible in ``space_id`` (every tool when None).

    The page, its total (when ``totalCount`` is selected) and what its nodes link to are read in
    one session: one connection checkout for the whole page instead of one per kind."""
    request = page_request(first, after)
    wants_total = "totalCount" in selected_fields(info)
    # A listing without a filter (a whole catalog, page after page) may be written by SQLite.
    plan = rendering.listing_plan(info) if tool_filter is None and info.context.settings.is_sqlite else None
    if plan is not None:
        rendered = await rendered_page(
            info.context, space_id, request, plan, include_inactive=include_inactive, with_total=wants_total
        )
        if rendered is not None:
            if plan.connection is not None:
                # The whole connection, written around the nodes (passed through by schema.execution).
                return cast(Connection[Tool], Raw(rendered_connection(plan.connection, rendered)))
            rendered_total = rendered.total

            async def rendered_count() -> int:
                assert rendered_total is not None  # totalCount is selected whenever it is asked for
                return rendered_total

            # Each node is the JSON the statement wrote, passed through as it is (schema.execution).
            nodes = cast(list[Tool], [Raw(node) for node in rendered.nodes])
            return make_connection(rendered.rows, nodes, rendered.rows.items, rendered_count)
    wanted, flags = page_link_flags(info)
    async with info.context.session() as session:
        tool_page = await repository.list_tool_page(
            session, space_id, request, tool_filter, include_inactive=include_inactive, with_total=wants_total, **flags
        )
    page, total = tool_page.rows, tool_page.total
    tools = [Tool.from_row(row) for row in page.items]
    precompute_page_fields(info, tools, tool_page.links, wanted)

    async def count() -> int:
        if total is not None:
            return total
        async with info.context.session() as session:
            return await repository.count_tools(session, space_id, tool_filter, include_inactive=include_inactive)

    return make_connection(page, tools, [row.tool_id for row in page.items], count)
