"""Queries and mutations of MCP servers: mcpServers, registerMcpServer, syncMcpServer."""

from __future__ import annotations

from typing import Annotated

import strawberry

from app.errors import DomainError
from app.mcp import service
from app.mcp.sync import sync_server
from app.tools import repository
from schema.context import Info
from schema.errors import UserError
from schema.mcp.types import McpServer, McpServerPayload, McpSyncReport, RegisterMcpServerInput
from schema.mutations import in_transaction
from schema.pagination import AfterArgument, Connection, FirstArgument, paginate


@strawberry.type
class McpQuery:
    @strawberry.field(
        description="MCP servers the caller may see: all for admins, those visible in its space otherwise."
    )
    async def mcp_servers(
        self, info: Info, first: FirstArgument = 50, after: AfterArgument = None
    ) -> Connection[McpServer]:
        reach = info.context.principal.reach
        return await paginate(
            info,
            first,
            after,
            lambda session, request: repository.list_servers(session, reach, request),
            lambda session: repository.count_servers(session, reach),
            McpServer.from_row,
            lambda row: row.id,
        )


@strawberry.type
class McpMutation:
    @strawberry.mutation(
        description="Register an MCP server (ADMIN keys only). Run syncMcpServer to discover its tools."
    )
    async def register_mcp_server(
        self,
        info: Info,
        input: Annotated[RegisterMcpServerInput, strawberry.argument(description="The server.")],
    ) -> McpServerPayload:
        principal, box, egress = info.context.principal, info.context.secret_box, info.context.egress
        data = service.McpServerInput(
            name=input.name,
            transport=input.transport.name,
            url=input.url,
            command=input.command,
            auth=input.auth.to_app() if input.auth else None,
            space_ids=[str(space_id) for space_id in input.space_ids] if input.space_ids else None,
        )
        row, errors = await in_transaction(
            info, lambda session: service.register_mcp_server(session, principal, data, box, egress)
        )
        return McpServerPayload(mcp_server=McpServer.from_row(row) if row else None, user_errors=errors)

    @strawberry.mutation(description="Discover the server's tools again (tools/list) and upsert them.")
    async def sync_mcp_server(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="The server to sync.")],
    ) -> McpServerPayload:
        pool = info.context.mcp_pool
        principal = info.context.principal
        try:
            async with info.context.session() as session:
                server = await service.require_syncable(session, principal, str(id))
        except DomainError as refused:
            return McpServerPayload(mcp_server=None, user_errors=[UserError.from_domain(refused)])
        errors: list[UserError] = []
        report: McpSyncReport | None = None
        try:
            # Discovery runs and commits on its own: listing happens outside any transaction.
            found = await sync_server(
                info.context.session_factory, pool, server.id, drift_policy=info.context.settings.mcp_drift
            )
            report = McpSyncReport(
                pages=found.pages,
                added=found.added,
                updated=found.updated,
                unchanged=found.unchanged,
                vanished=found.vanished,
                disabled=found.disabled,
                drifted=found.drifted,
                reactivated=found.reactivated,
                skipped=found.skipped,
            )
        except DomainError as error:
            errors.append(UserError(field=["id"], code=error.code, message=error.message))
        async with info.context.session() as session:
            refreshed = await service.get_server_for(session, principal, server.id)
        return McpServerPayload(
            mcp_server=McpServer.from_row(refreshed) if refreshed else None, user_errors=errors, sync_report=report
        )
