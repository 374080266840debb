"""Operations of the tool gateway: invokeTool, the call log and MCP discovery."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from schema.context import Info
from schema.enums import CallStatus
from schema.errors import ClientError, UserError
from schema.gateway.types import ToolCall, ToolResult
from schema.pagination import AfterArgument, Connection, FirstArgument, empty_connection, page_request
from schema.tools.schema import McpServerPayload

GATEWAY_PENDING = "Tool execution and MCP discovery arrive with the tool gateway (issue #3)."


@strawberry.input(description="Narrows the call log. All given conditions must hold.")
class ToolCallFilter:
    space_id: strawberry.ID | None = strawberry.field(default=None, description="Only calls made in this space.")
    agent_id: strawberry.ID | None = strawberry.field(default=None, description="Only calls made by this agent.")
    run_id: strawberry.ID | None = strawberry.field(default=None, description="Only calls made by this run.")
    tool_id: str | None = strawberry.field(default=None, description="Only calls of this tool.")
    status: CallStatus | None = strawberry.field(default=None, description="Only calls with this outcome.")
    since: datetime | None = strawberry.field(default=None, description="Only calls started at or after this moment.")


@strawberry.input(description="One direct tool call, made as an agent of the space would.")
class InvokeToolInput:
    space_id: strawberry.ID = strawberry.field(description="The space the call is made in (visibility is checked there).")
    tool_id: strawberry.ID = strawberry.field(description="The tool to call.")
    arguments: JSON = strawberry.field(description="Arguments, validated against the tool's input schema.")
    idempotency_key: str | None = strawberry.field(
        default=None, description="Same key and arguments within 24 h return the first result without calling again."
    )


@strawberry.type
class GatewayQuery:
    @strawberry.field(description="The call log, newest last; only calls of spaces the caller can read.")
    async def tool_calls(
        self,
        info: Info,
        filter: Annotated[ToolCallFilter | None, strawberry.argument(description="Narrow the list.")] = None,
        first: FirstArgument = 50,
        after: AfterArgument = None,
    ) -> Connection[ToolCall]:
        page_request(first, after)
        # The call log is written by the gateway (issue #3); until then it is empty.
        return empty_connection(after)


@strawberry.type
class GatewayMutation:
    @strawberry.mutation(description="Discover the server's tools again (tools/list) and upsert them.")
    async def sync_mcp_server(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="The server to sync.")],
    ) -> McpServerPayload:
        return McpServerPayload(
            mcp_server=None,
            user_errors=[UserError(field=["id"], code="NOT_AVAILABLE", message=GATEWAY_PENDING)],
        )

    @strawberry.mutation(description="Call one tool through the gateway, as an agent of that space would.")
    async def invoke_tool(
        self,
        info: Info,
        input: Annotated[InvokeToolInput, strawberry.argument(description="The call.")],
    ) -> ToolResult:
        raise ClientError(GATEWAY_PENDING, "NOT_AVAILABLE")


@strawberry.type
class GatewaySubscription:
    @strawberry.subscription(description="Every finished tool call the caller may see, live; narrow with the filter.")
    async def tool_calls(
        self,
        info: Info,
        filter: Annotated[ToolCallFilter | None, strawberry.argument(description="Narrow the stream.")] = None,
    ) -> AsyncGenerator[ToolCall, None]:
        raise ClientError(GATEWAY_PENDING, "NOT_AVAILABLE")
        yield  # pragma: no cover - makes this an async generator
