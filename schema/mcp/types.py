"""GraphQL types of MCP servers: the server, its registration input, the sync report and the payload."""

from __future__ import annotations

from datetime import datetime

import strawberry

from app.tools import repository
from app.tools.models import McpServer as McpServerRow
from schema.context import Info
from schema.enums import AuthType, McpTransport, Status
from schema.errors import UserError
from schema.node import Node
from schema.pagination import AfterArgument, Connection, FirstArgument
from schema.refs import AuthConfigInputRef, SpaceRef, ToolRef


@strawberry.type(description="A registered MCP server whose tools are discovered and called through the gateway.")
class McpServer(Node):
    id: strawberry.ID = strawberry.field(description="Server id, mcp_….")
    name: str = strawberry.field(description="Unique name of the server.")
    url: str | None = strawberry.field(description="URL for STREAMABLE_HTTP and SSE servers; null for STDIO.")
    command: list[str] | None = strawberry.field(description="Command and arguments for STDIO servers; null otherwise.")
    transport: McpTransport = strawberry.field(description="How the platform talks to the server.")
    status: Status = strawberry.field(
        description="Lifecycle status; the tools of a non-ACTIVE server are not callable."
    )
    auth_type: AuthType = strawberry.field(description="How the platform authenticates to the server.")
    last_synced_at: datetime | None = strawberry.field(description="When discovery last succeeded; null if never.")
    last_error: str | None = strawberry.field(description="Last discovery error, if the last sync failed.")
    created_at: datetime = strawberry.field(description="When the server was registered.")
    row: strawberry.Private[McpServerRow]

    @classmethod
    def from_row(cls, row: McpServerRow) -> McpServer:
        return cls(
            id=strawberry.ID(row.id),
            name=row.name,
            url=row.url,
            command=list(row.command) if row.command else None,
            transport=McpTransport(row.transport),
            status=Status(row.status),
            auth_type=AuthType(row.auth_type),
            last_synced_at=row.last_synced_at,
            last_error=row.last_error,
            created_at=row.created_at,
            row=row,
        )

    @strawberry.field(description="Spaces the server is bound to; its tools inherit them. Empty means global.")
    async def bound_spaces(self, info: Info) -> list[SpaceRef]:
        from schema.spaces.types import spaces_for

        space_ids = await info.context.loaders.space_ids_by_mcp_server_id.load(self.row.id)
        return await spaces_for(info, space_ids)

    @strawberry.field(description="True when no binding row restricts the server.")
    async def is_global(self, info: Info) -> bool:
        return not await info.context.loaders.space_ids_by_mcp_server_id.load(self.row.id)

    @strawberry.field(description="Tools discovered from this server, any status.")
    async def tools(
        self,
        info: Info,
        first: FirstArgument = 50,
        after: AfterArgument = None,
    ) -> Connection[ToolRef]:
        from schema.tools.types import tool_connection

        return await tool_connection(
            info,
            info.context.principal.reach,
            first,
            after,
            repository.ToolFilter(mcp_server_id=self.row.id),
            include_inactive=True,
        )


@strawberry.input(description="A new MCP server record; syncMcpServer discovers its tools.")
class RegisterMcpServerInput:
    name: str = strawberry.field(description="Unique name: ^[a-zA-Z0-9_-]{1,64}$.")
    transport: McpTransport = strawberry.field(description="How to reach the server.")
    url: str | None = strawberry.field(default=None, description="URL for STREAMABLE_HTTP and SSE servers.")
    command: list[str] | None = strawberry.field(
        default=None, description="For STDIO servers: the command and its arguments."
    )
    auth: AuthConfigInputRef | None = strawberry.field(default=None, description="Credentials for the server.")
    space_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Spaces to bind; omit for a global server."
    )


@strawberry.type(
    description="What one discovery did. Every listed tool is in exactly one of added / updated / unchanged / skipped; disabled, drifted and reactivated cut across them."
)
class McpSyncReport:
    pages: int = strawberry.field(description="Pages of tools/list read.")
    added: list[str] = strawberry.field(description="Ids of tools seen for the first time.")
    updated: list[str] = strawberry.field(
        description="Ids of stored tools whose definition or status this sync changed."
    )
    unchanged: list[str] = strawberry.field(description="Ids of tools listed exactly as stored.")
    vanished: list[str] = strawberry.field(
        description="Ids of stored tools the server no longer lists (disabled when they were active)."
    )
    disabled: list[str] = strawberry.field(
        description="Ids of tools this sync disabled (vanished, or drifted under the disable policy)."
    )
    drifted: list[str] = strawberry.field(
        description="Ids of tools whose description or schema changed since the last sync."
    )
    reactivated: list[str] = strawberry.field(
        description="Ids of vanished tools that came back and were enabled again."
    )
    skipped: list[str] = strawberry.field(description="'name: reason' for listed tools that could not be stored.")


@strawberry.type(description="Result of a mutation on an MCP server.")
class McpServerPayload:
    mcp_server: McpServer | None = strawberry.field(description="The server; null when the mutation failed.")
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")
    sync_report: McpSyncReport | None = strawberry.field(
        default=None,
        description="What syncMcpServer found, tool ids by outcome; null for other mutations and failures.",
    )
