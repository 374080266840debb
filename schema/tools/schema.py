"""Queries and mutations of the tools domain."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from app.tools import openapi_import, service
from app.tools.models import McpServer as McpServerRow
from schema.context import Info
from schema.enums import ApprovalPolicy, AuthType, Role, SideEffect
from schema.errors import UserError
from schema.mcp.types import McpServer
from schema.mutations import in_transaction
from schema.pagination import AfterArgument, Connection, FirstArgument
from schema.tools.types import Tool, ToolFilter, tool_connection


@strawberry.type
class ToolsQuery:
    @strawberry.field(
        description="Every tool the caller may see, any status: all tools for admins, the tools visible in its space otherwise."
    )
    async def tools(
        self,
        info: Info,
        first: FirstArgument = 50,
        after: AfterArgument = None,
        filter: Annotated[ToolFilter | None, strawberry.argument(description="Narrow the list.")] = None,
    ) -> Connection[Tool]:
        return await tool_connection(
            info,
            info.context.principal.reach,
            first,
            after,
            filter.to_app() if filter else None,
            include_inactive=True,
        )

    @strawberry.field(description="One tool by id, any status; null when absent or not visible to the caller.")
    async def tool(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="The tool's id.")],
    ) -> Tool | None:
        async with info.context.session() as session:
            row = await service.get_tool_for(session, info.context.principal, str(id))
        return Tool.from_row(row) if row else None


@strawberry.input(description="How the platform authenticates to an endpoint. Secrets are write-only.")
class AuthConfigInput:
    type: AuthType = strawberry.field(description="The authentication scheme.")
    header_name: str | None = strawberry.field(default=None, description="Header name for API_KEY / HEADER.")
    secret: str | None = strawberry.field(
        default=None, description="Write-only secret (API key, bearer token or client secret)."
    )
    token_url: str | None = strawberry.field(default=None, description="Token endpoint for OAUTH_CLIENT_CREDENTIALS.")
    client_id: str | None = strawberry.field(default=None, description="Client id for OAUTH_CLIENT_CREDENTIALS.")
    scopes: list[str] | None = strawberry.field(
        default=None, description="Scopes requested with OAUTH_CLIENT_CREDENTIALS."
    )

    def to_app(self) -> service.AuthConfig:
        return service.AuthConfig(
            type=self.type.name,
            header_name=self.header_name,
            secret=self.secret,
            token_url=self.token_url,
            client_id=self.client_id,
            scopes=list(self.scopes or []),
        )


@strawberry.input(
    description="A new CUSTOM tool: an HTTP endpoint the platform calls. BUILTIN tools come from the platform itself."
)
class CreateToolInput:
    name: str = strawberry.field(
        description="Program identifier for the model: ^[a-zA-Z0-9_-]{1,64}$, unique where it is visible."
    )
    label: str = strawberry.field(description="Display name for people.")
    description: str = strawberry.field(description="Written for the model: what it does, when to use it, when not to.")
    input_schema: JSON = strawberry.field(description="JSON Schema (2020-12) of the arguments; must be `type: object`.")
    output_schema: JSON | None = strawberry.field(default=None, description="JSON Schema of the result.")
    endpoint: str = strawberry.field(description="The http(s) URL the platform POSTs the arguments to.")
    auth: AuthConfigInput | None = strawberry.field(default=None, description="Credentials for the endpoint.")
    side_effect: SideEffect | None = strawberry.field(default=SideEffect.READ, description="READ (default) or WRITE.")
    approval: ApprovalPolicy | None = strawberry.field(
        default=None, description="When an agent's call waits for a person's approval (default NEVER)."
    )
    timeout_ms: int | None = strawberry.field(
        default=None, description="Time limit of one attempt in ms (default 10000)."
    )
    max_retries: int | None = strawberry.field(
        default=None, description="Extra attempts for READ tools (default 1, at most 5)."
    )
    tags: list[str] | None = strawberry.field(default=None, description="Free-form labels.")
    group: str | None = strawberry.field(default=None, description="UI grouping.")
    allowed_roles: list[Role] | None = strawberry.field(
        default=None, description="Roles allowed to call it; omit for every role."
    )
    version: str | None = strawberry.field(default=None, description="Semantic version (default 1.0.0).")
    owner: str | None = strawberry.field(default=None, description="Who maintains the tool.")
    space_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Spaces to bind at creation; omit for the caller's own space (admins: global)."
    )

    def to_app(self) -> service.ToolInput:
        return replace(
            _tool_input(self),
            name=self.name,
            space_ids=[str(space_id) for space_id in self.space_ids] if self.space_ids is not None else None,
        )


@strawberry.input(
    description="Changes to a tool; omitted fields stay as they are. BUILTIN and MCP tools accept policy fields only."
)
class UpdateToolInput:
    id: strawberry.ID = strawberry.field(description="The tool to change.")
    label: str | None = strawberry.field(default=None, description="New display name.")
    description: str | None = strawberry.field(default=None, description="New description for the model.")
    input_schema: JSON | None = strawberry.field(
        default=None, description="New argument schema (2020-12, `type: object`)."
    )
    output_schema: JSON | None = strawberry.field(default=None, description="New result schema.")
    endpoint: str | None = strawberry.field(default=None, description="New endpoint URL.")
    auth: AuthConfigInput | None = strawberry.field(
        default=None, description="New credentials (replaces the old ones)."
    )
    side_effect: SideEffect | None = strawberry.field(default=None, description="New side effect.")
    approval: ApprovalPolicy | None = strawberry.field(
        default=None, description="New approval policy for agents' calls (any kind of tool)."
    )
    timeout_ms: int | None = strawberry.field(default=None, description="New time limit in ms.")
    max_retries: int | None = strawberry.field(default=None, description="New retry count.")
    tags: list[str] | None = strawberry.field(default=None, description="New tags (replace the old ones).")
    group: str | None = strawberry.field(default=None, description="New UI group; empty string clears it.")
    allowed_roles: list[Role] | None = strawberry.field(
        default=None, description="New allowed roles; empty list allows every role."
    )
    version: str | None = strawberry.field(default=None, description="New semantic version.")
    owner: str | None = strawberry.field(default=None, description="New owner; empty string clears it.")

    def to_app(self) -> service.ToolInput:
        return _tool_input(self)


def _tool_input(source: CreateToolInput | UpdateToolInput) -> service.ToolInput:
    """The fields both inputs have; None means "not given"."""
    return service.ToolInput(
        label=source.label,
        description=source.description,
        input_schema=source.input_schema,
        output_schema=source.output_schema,
        endpoint=source.endpoint,
        auth=source.auth.to_app() if source.auth else None,
        side_effect=source.side_effect.name if source.side_effect else None,
        approval=source.approval.name if source.approval else None,
        timeout_ms=source.timeout_ms,
        max_retries=source.max_retries,
        tags=source.tags,
        group=source.group,
        allowed_roles=[role.name for role in source.allowed_roles] if source.allowed_roles is not None else None,
        version=source.version,
        owner=source.owner,
    )


@strawberry.type(description="Result of a mutation on a tool.")
class ToolPayload:
    tool: Tool | None = strawberry.field(description="The tool; null when the mutation failed.")
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


@strawberry.input(description="New space bindings of a tool or MCP server.")
class SetBindingsInput:
    id: strawberry.ID = strawberry.field(description="A Tool id or an McpServer id.")
    space_ids: list[strawberry.ID] = strawberry.field(
        description="Replaces every binding. An empty list makes it global again."
    )


@strawberry.type(description="Result of setSpaceBindings: the tool or the server that was re-bound.")
class BindingsPayload:
    tool: Tool | None = strawberry.field(description="The tool, when a tool id was given.")
    mcp_server: McpServer | None = strawberry.field(description="The server, when a server id was given.")
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


@strawberry.input(
    description="An OpenAPI document (3.0 or 3.1) whose operations become CUSTOM tools of a space. Nothing the document references is fetched."
)
class ImportOpenApiInput:
    space_id: strawberry.ID = strawberry.field(
        description="The space the tools belong and are bound to (ADMIN keys, or that space's SPACE_ADMIN keys)."
    )
    spec: str = strawberry.field(
        description="The document's text, JSON or YAML, at most 2 MiB. Swagger 2.0 is refused: convert it first."
    )
    base_url: str | None = strawberry.field(
        default=None, description="Where the API is served; overrides the document's servers[0]."
    )
    auth: AuthConfigInput | None = strawberry.field(
        default=None,
        description="Credentials applied to every imported tool (on a re-import: replace those of the tools updated).",
    )
    include: list[str] | None = strawberry.field(
        default=None, description="Only the operations with these operationIds or tags; omit for every operation."
    )

    def to_app(self) -> openapi_import.OpenApiImport:
        return openapi_import.OpenApiImport(
            space_id=str(self.space_id),
            spec=self.spec,
            base_url=self.base_url,
            auth=self.auth.to_app() if self.auth else None,
            include=list(self.include) if self.include is not None else None,
        )


@strawberry.type(description="An operation of an imported document and the tool it is.")
class ImportedOperation:
    operation_id: str | None = strawberry.field(description="The operation's operationId; null when it has none.")
    method: str = strawberry.field(description="HTTP method, upper case.")
    path: str = strawberry.field(description="Path template, e.g. /pets/{petId}.")
    tool: Tool = strawberry.field(description="The tool.")

    @classmethod
    def from_app(cls, imported: openapi_import.Imported) -> ImportedOperation:
        operation = imported.operation
        return cls(
            operation_id=operation.operation_id,
            method=operation.method.upper(),
            path=operation.path,
            tool=Tool.from_row(imported.tool),
        )


@strawberry.type(description="An operation that did not become a tool, and why.")
class SkippedOperation:
    operation_id: str | None = strawberry.field(description="The operation's operationId; null when it has none.")
    method: str = strawberry.field(description="HTTP method, upper case.")
    path: str = strawberry.field(description="Path template.")
    reason: str = strawberry.field(description="Why, e.g. an unsupported request body type.")


@strawberry.type(description="Result of importOpenApi. On userErrors nothing was stored.")
class ImportOpenApiPayload:
    created: list[ImportedOperation] = strawberry.field(description="Operations that became new tools.")
    updated: list[ImportedOperation] = strawberry.field(
        description="Operations whose tools (from an earlier import of the same document) were updated."
    )
    disabled: list[ImportedOperation] = strawberry.field(
        description="Tools of earlier imports whose operation is no longer in the document: now DISABLED."
    )
    skipped: list[SkippedOperation] = strawberry.field(description="Operations that did not become tools.")
    user_errors: list[UserError] = strawberry.field(
        description="Why the document or the input was refused (field: the JSON path inside the document under ['input', 'spec', ...]); empty on success."
    )


@strawberry.type
class ToolsMutation:
    @strawberry.mutation(
        description="Turn an OpenAPI document's operations into CUSTOM tools of a space; importing it again updates them."
    )
    async def import_open_api(
        self,
        info: Info,
        input: Annotated[ImportOpenApiInput, strawberry.argument(description="The document and where it goes.")],
    ) -> ImportOpenApiPayload:
        principal, box, egress = info.context.principal, info.context.secret_box, info.context.egress
        data = input.to_app()
        try:
            report, errors = await in_transaction(
                info, lambda session: openapi_import.import_openapi(session, principal, data, box, egress)
            )
        except openapi_import.SpecRejectedError as rejected:
            report, errors = None, [UserError.from_domain(error) for error in rejected.errors]
        if report is None:
            return ImportOpenApiPayload(created=[], updated=[], disabled=[], skipped=[], user_errors=errors)
        return ImportOpenApiPayload(
            created=[ImportedOperation.from_app(item) for item in report.created],
            updated=[ImportedOperation.from_app(item) for item in report.updated],
            disabled=[ImportedOperation.from_app(item) for item in report.disabled],
            skipped=[
                SkippedOperation(
                    operation_id=skip.operation.operation_id,
                    method=skip.operation.method.upper(),
                    path=skip.operation.path,
                    reason=skip.reason,
                )
                for skip in report.skipped
            ],
            user_errors=[],
        )

    @strawberry.mutation(description="Create a CUSTOM tool (ADMIN and SPACE_ADMIN keys).")
    async def create_tool(
        self,
        info: Info,
        input: Annotated[CreateToolInput, strawberry.argument(description="The new tool.")],
    ) -> ToolPayload:
        principal, box, egress = info.context.principal, info.context.secret_box, info.context.egress
        row, errors = await in_transaction(
            info, lambda session: service.create_tool(session, principal, input.to_app(), box, egress)
        )
        return ToolPayload(tool=Tool.from_row(row) if row else None, user_errors=errors)

    @strawberry.mutation(description="Change a tool's definition or policies.")
    async def update_tool(
        self,
        info: Info,
        input: Annotated[UpdateToolInput, strawberry.argument(description="The changes.")],
    ) -> ToolPayload:
        principal, box, egress = info.context.principal, info.context.secret_box, info.context.egress
        row, errors = await in_transaction(
            info,
            lambda session: service.update_tool(session, principal, str(input.id), input.to_app(), box, egress),
        )
        return ToolPayload(tool=Tool.from_row(row) if row else None, user_errors=errors)

    @strawberry.mutation(description="Replace the space bindings of a Tool or an McpServer (ADMIN keys only).")
    async def set_space_bindings(
        self,
        info: Info,
        input: Annotated[SetBindingsInput, strawberry.argument(description="The target and its new spaces.")],
    ) -> BindingsPayload:
        principal = info.context.principal
        row, errors = await in_transaction(
            info,
            lambda session: service.set_space_bindings(
                session, principal, str(input.id), [str(space_id) for space_id in input.space_ids]
            ),
        )
        if row is None:
            return BindingsPayload(tool=None, mcp_server=None, user_errors=errors)
        if isinstance(row, McpServerRow):
            return BindingsPayload(tool=None, mcp_server=McpServer.from_row(row), user_errors=[])
        return BindingsPayload(tool=Tool.from_row(row), mcp_server=None, user_errors=[])
