"""Operations of the tool gateway: invokeTool and the call log."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from datetime import UTC, datetime
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from app.events.bus import EventBusUnavailableError, EventsMissedError, SubscriberOverflowError
from app.gateway import repository as calls_repository
from app.gateway.service import TOOL_CALLS_TOPIC
from schema.context import Info
from schema.enums import CallStatus, ToolCallOrigin
from schema.errors import subscription_cut
from schema.gateway.types import ToolCall, ToolError, ToolResult
from schema.pagination import (
    AfterArgument,
    Connection,
    FirstArgument,
    empty_connection,
    page_request,
    paginate,
)


@strawberry.input(description="Narrows the call log. All given conditions must hold.")
class ToolCallFilter:
    space_id: strawberry.ID | None = strawberry.field(default=None, description="Only calls made in this space.")
    agent_id: strawberry.ID | None = strawberry.field(default=None, description="Only calls made by this agent.")
    run_id: strawberry.ID | None = strawberry.field(default=None, description="Only calls made by this run.")
    tool_id: str | None = strawberry.field(default=None, description="Only calls of this tool.")
    status: CallStatus | None = strawberry.field(default=None, description="Only calls with this outcome.")
    since: datetime | None = strawberry.field(default=None, description="Only calls started at or after this moment.")
    origin: ToolCallOrigin | None = strawberry.field(
        default=None, description="Only calls that arrived this way (GRAPHQL, AGENT or MCP)."
    )


@strawberry.input(description="One direct tool call, made as an agent of the space would.")
class InvokeToolInput:
    space_id: strawberry.ID = strawberry.field(
        description="The space the call is made in (visibility is checked there)."
    )
    tool_id: strawberry.ID = strawberry.field(description="The tool to call.")
    arguments: JSON = strawberry.field(description="Arguments, validated against the tool's input schema.")
    idempotency_key: str | None = strawberry.field(
        default=None, description="Same key and arguments within 24 h return the first result without calling again."
    )


def _call_filter(info: Info, call_filter: ToolCallFilter | None) -> calls_repository.CallFilter | None:
    """The caller's filter narrowed to the spaces it may read; None when nothing can match."""
    principal = info.context.principal
    requested = str(call_filter.space_id) if call_filter and call_filter.space_id else None
    if requested is not None and not principal.can_read_space(requested):
        return None
    return calls_repository.CallFilter(
        space_ids=None if principal.is_admin else [principal.space_id or ""],
        space_id=requested,
        agent_id=str(call_filter.agent_id) if call_filter and call_filter.agent_id else None,
        run_id=str(call_filter.run_id) if call_filter and call_filter.run_id else None,
        tool_id=call_filter.tool_id if call_filter else None,
        status=call_filter.status.name if call_filter and call_filter.status else None,
        since=_aware(call_filter.since) if call_filter and call_filter.since else None,
        origin=call_filter.origin.name if call_filter and call_filter.origin else None,
    )


def _aware(moment: datetime) -> datetime:
    """A moment given without an offset is UTC, as everywhere in the API."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _matches(event: dict[str, Any], call_filter: calls_repository.CallFilter) -> bool:
    if call_filter.space_ids is not None and event["space_id"] not in call_filter.space_ids:
        return False
    checks = (
        (call_filter.space_id, "space_id"),
        (call_filter.agent_id, "agent_id"),
        (call_filter.run_id, "run_id"),
        (call_filter.tool_id, "tool_id"),
        (call_filter.status, "status"),
        (call_filter.origin, "origin"),
    )
    if any(wanted is not None and event[name] != wanted for wanted, name in checks):
        return False
    return not (call_filter.since is not None and datetime.fromisoformat(event["started_at"]) < call_filter.since)


@strawberry.type
class GatewayQuery:
    @strawberry.field(description="The call log, oldest first; only calls of spaces the caller can read.")
    async def tool_calls(
        self,
        info: Info,
        filter: Annotated[ToolCallFilter | None, strawberry.argument(description="Narrow the list.")] = None,
        first: FirstArgument = 50,
        after: AfterArgument = None,
    ) -> Connection[ToolCall]:
        call_filter = _call_filter(info, filter)
        if call_filter is None:
            page_request(first, after)
            return empty_connection(after)
        return await paginate(
            info,
            first,
            after,
            lambda session, request: calls_repository.list_calls(session, call_filter, request),
            lambda session: calls_repository.count_calls(session, call_filter),
            ToolCall.from_row,
            lambda row: row.id,
        )


@strawberry.type
class GatewayMutation:
    @strawberry.mutation(
        description="Call one tool through the gateway, as an agent of that space would. Failures come back in the envelope, never as top-level errors."
    )
    async def invoke_tool(
        self,
        info: Info,
        input: Annotated[InvokeToolInput, strawberry.argument(description="The call.")],
    ) -> ToolResult:
        gateway = info.context.gateway
        result = await gateway.execute(
            info.context.principal,
            str(input.space_id),
            str(input.tool_id),
            input.arguments,
            idempotency_key=input.idempotency_key,
        )
        return ToolResult(
            status=CallStatus(result.status),
            data=result.data,
            error=ToolError.from_data(result.error),
            trace_id=result.trace_id,
            latency_ms=result.latency_ms,
            call_id=result.call_id,
        )


@strawberry.type
class GatewaySubscription:
    @strawberry.subscription(
        description="Every finished tool call the caller may see, live; narrow with the filter. A subscriber that falls too far behind is disconnected with an error (SUBSCRIBER_OVERFLOW) and can reconcile from the toolCalls query; so is one whose replica may have missed other replicas' calls (EVENTS_MISSED: its event bus, Redis, was cut off), and one opened while the replica cannot hear the others is refused (EVENT_BUS_UNAVAILABLE): subscribe again."
    )
    async def tool_calls(
        self,
        info: Info,
        filter: Annotated[ToolCallFilter | None, strawberry.argument(description="Narrow the stream.")] = None,
    ) -> AsyncGenerator[ToolCall, None]:
        call_filter = _call_filter(info, filter)
        bus = info.context.bus
        if call_filter is None:
            return
        try:
            async with bus.subscribe(TOOL_CALLS_TOPIC, strict=True) as subscription:
                async for event in subscription:
                    if _matches(event, call_filter):
                        info.context.renew_loaders()
                        yield ToolCall.from_event(event)
        except (SubscriberOverflowError, EventsMissedError, EventBusUnavailableError) as error:
            raise subscription_cut(error, "the toolCalls query") from None
