"""GraphQL types of the tool gateway: call log rows, errors and the result envelope."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON

from app.gateway.call_log import is_truncated
from app.gateway.envelope import ToolError as ToolErrorData
from app.gateway.models import ToolCall as ToolCallRow
from schema import visibility
from schema.context import Info
from schema.enums import CallStatus, ToolCallOrigin
from schema.node import Node
from schema.refs import AgentRef, AgentRunRef, SpaceRef, ToolCallApprovalRef, ToolRef


@strawberry.type(
    description="Stable error codes: PARAM_INVALID, PERMISSION_DENIED, TOOL_NOT_AVAILABLE, TIMEOUT, EXTERNAL_API_ERROR, EXTERNAL_API_TIMEOUT, MCP_ERROR, RATE_LIMITED, IDEMPOTENCY_CONFLICT, INTERNAL_ERROR (and RESPONSE_TOO_LARGE, EGRESS_DENIED; for calls of agent runs also APPROVAL_REJECTED, APPROVAL_EXPIRED, RUN_ENDED, and INTERRUPTED: a call the platform was running when its replica died, never run again when it is WRITE)."
)
class ToolError:
    code: str = strawberry.field(description="Stable machine-readable code (see the type's description).")
    message: str = strawberry.field(description="Safe to show the user and the model.")
    detail: str | None = strawberry.field(description="For developers; may be null.")

    @classmethod
    def from_data(cls, error: ToolErrorData | None) -> ToolError | None:
        return cls(code=error.code, message=error.message, detail=error.detail) if error else None


@strawberry.type(description="One call through the tool gateway: the audit log row.")
class ToolCall(Node):
    id: strawberry.ID = strawberry.field(description="Call id, tc_….")
    tool_id: str = strawberry.field(description="Id of the tool called, kept even if the tool is gone.")
    arguments: JSON = strawberry.field(
        description="Arguments as the caller gave them (static values left out, secret-looking values redacted)."
    )
    status: CallStatus = strawberry.field(description="SUCCESS, FAILED, or PENDING_APPROVAL while a person decides.")
    result: JSON | None = strawberry.field(description="The data returned on SUCCESS.")
    error: ToolError | None = strawberry.field(description="The structured error on FAILED.")
    latency_ms: float = strawberry.field(description="Wall time of the call, retries included, in milliseconds.")
    attempts: int = strawberry.field(
        description="How many times the executor ran (0 for a replay of an idempotency key)."
    )
    trace_id: str = strawberry.field(description="Finds the call in the table, the logs and the client's envelope.")
    idempotency_key: str | None = strawberry.field(description="The caller's idempotency key, if given.")
    started_at: datetime = strawberry.field(description="When the call started.")
    origin: ToolCallOrigin = strawberry.field(
        description="How the call arrived: invokeTool (GRAPHQL), an agent run (AGENT) or Quiver's MCP endpoint (MCP)."
    )
    truncated: bool = strawberry.field(
        description='True when the row holds less than the call had: arguments or result larger than QUIVER_CALL_LOG_MAX_BYTES are stored as {"$truncated": {"originalBytes": n}, "preview": "<their JSON, cut>"} and a longer error message or detail ends in " … [truncated: n bytes]"; a row the database refused in full is stored without arguments ({"$truncated": {"omitted": true, "reason": ...}}), result and detail. The caller got the whole envelope.'
    )
    space_id: strawberry.Private[str]
    agent_id: strawberry.Private[str | None]
    run_id: strawberry.Private[str | None]

    @classmethod
    def from_row(cls, row: ToolCallRow) -> ToolCall:
        return cls(
            id=strawberry.ID(row.id),
            tool_id=row.tool_id,
            arguments=JSON(row.arguments),
            status=CallStatus(row.status),
            result=row.result,
            error=ToolError(code=row.error_code, message=row.error_message or "", detail=row.error_detail)
            if row.error_code
            else None,
            latency_ms=row.latency_ms,
            attempts=row.attempts,
            trace_id=row.trace_id,
            idempotency_key=row.idempotency_key,
            started_at=row.started_at,
            origin=ToolCallOrigin(row.origin),
            truncated=is_truncated(row.arguments, row.result, row.error_message, row.error_detail),
            space_id=row.space_id,
            agent_id=row.agent_id,
            run_id=row.run_id,
        )

    @classmethod
    def from_event(cls, event: dict[str, Any]) -> ToolCall:
        return cls(
            id=strawberry.ID(event["id"]),
            tool_id=event["tool_id"],
            arguments=event["arguments"],
            status=CallStatus(event["status"]),
            result=event["result"],
            error=ToolError(
                code=event["error_code"], message=event["error_message"] or "", detail=event["error_detail"]
            )
            if event["error_code"]
            else None,
            latency_ms=event["latency_ms"],
            attempts=event["attempts"],
            trace_id=event["trace_id"],
            idempotency_key=event["idempotency_key"],
            started_at=datetime.fromisoformat(event["started_at"]),
            # A replica of an earlier version publishes events without the origin.
            origin=ToolCallOrigin(event.get("origin") or ("AGENT" if event["run_id"] else "GRAPHQL")),
            truncated=is_truncated(event["arguments"], event["result"], event["error_message"], event["error_detail"]),
            space_id=event["space_id"],
            agent_id=event["agent_id"],
            run_id=event["run_id"],
        )

    @strawberry.field(description="The space the call was made in.")
    async def space(self, info: Info) -> SpaceRef:
        from schema.spaces.types import space_of

        return await space_of(info, self.space_id)

    @strawberry.field(
        description="The tool called; null if it no longer resolves or the caller may not see it (a refused call keeps the id it was given in toolId)."
    )
    async def tool(self, info: Info) -> ToolRef | None:
        from schema.tools.types import Tool

        row = await info.context.loaders.tool_by_id.load(self.tool_id)
        return Tool.from_row(row) if row and await visibility.tool_visible(info, row) else None

    @strawberry.field(description="The agent that made the call; null for direct calls.")
    async def agent(self, info: Info) -> AgentRef | None:
        from schema.agents.types import Agent

        if self.agent_id is None:
            return None
        row = await info.context.loaders.agent_by_id.load(self.agent_id)
        return Agent.from_row(row) if row and visibility.in_readable_space(info, row) else None

    @strawberry.field(
        description="The decision a person made (or has to make) before the call could run; null when the call needed no approval."
    )
    async def approval(self, info: Info) -> ToolCallApprovalRef | None:
        from schema.runtime.types import ToolCallApproval

        row = await info.context.loaders.approval_by_tool_call_id.load(str(self.id))
        return ToolCallApproval.from_row(row) if row else None

    @strawberry.field(description="The agent run that made the call; null for direct calls.")
    async def run(self, info: Info) -> AgentRunRef | None:
        from schema.runtime.types import AgentRun

        if self.run_id is None:
            return None
        row = await info.context.loaders.run_by_id.load(self.run_id)
        return AgentRun.from_row(row) if row and visibility.in_readable_space(info, row) else None


@strawberry.type(description="The gateway's envelope: status, data or error, trace id.")
class ToolResult:
    status: CallStatus = strawberry.field(description="SUCCESS or FAILED.")
    data: JSON | None = strawberry.field(description="The tool's data on SUCCESS.")
    error: ToolError | None = strawberry.field(description="The structured error on FAILED.")
    trace_id: str = strawberry.field(description="Finds the call in the call log and the service logs.")
    latency_ms: float = strawberry.field(description="Wall time of the call in milliseconds.")
    call_id: strawberry.Private[str | None]

    @strawberry.field(
        description="The call log row; null when the call was refused before it could be logged (a space outside the caller's reach)."
    )
    async def call(self, info: Info) -> ToolCall | None:
        if self.call_id is None:
            return None
        row = await info.context.loaders.tool_call_by_id.load(self.call_id)
        return ToolCall.from_row(row) if row and visibility.in_readable_space(info, row) else None
