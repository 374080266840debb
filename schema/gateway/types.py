"""GraphQL types of the tool gateway: call log rows, errors and the result envelope."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import strawberry
from strawberry.scalars import JSON

from schema.enums import CallStatus
from schema.node import Node

if TYPE_CHECKING:
    from schema.agents.types import Agent, AgentRun
    from schema.spaces.types import Space
    from schema.tools.types import Tool

AgentRef = Annotated["Agent", strawberry.lazy("schema.agents.types")]
AgentRunRef = Annotated["AgentRun", strawberry.lazy("schema.agents.types")]
SpaceRef = Annotated["Space", strawberry.lazy("schema.spaces.types")]
ToolRef = Annotated["Tool", strawberry.lazy("schema.tools.types")]


@strawberry.type(
    description="Stable error codes: PARAM_INVALID, PERMISSION_DENIED, TOOL_NOT_AVAILABLE, TIMEOUT, EXTERNAL_API_ERROR, EXTERNAL_API_TIMEOUT, MCP_ERROR, RATE_LIMITED, IDEMPOTENCY_CONFLICT, INTERNAL_ERROR."
)
class ToolError:
    code: str = strawberry.field(description="Stable machine-readable code (see the type's description).")
    message: str = strawberry.field(description="Safe to show the user and the model.")
    detail: str | None = strawberry.field(description="For developers; may be null.")


@strawberry.type(description="One call through the tool gateway: the audit log row.")
class ToolCall(Node):
    id: strawberry.ID = strawberry.field(description="Call id, tc_….")
    run: AgentRunRef | None = strawberry.field(description="The agent run that made the call; null for direct calls.")
    agent: AgentRef | None = strawberry.field(description="The agent that made the call; null for direct calls.")
    space: SpaceRef = strawberry.field(description="The space the call was made in.")
    tool: ToolRef | None = strawberry.field(description="The tool called; null if it no longer resolves.")
    tool_id: str = strawberry.field(description="Id of the tool called, kept even if the tool is gone.")
    arguments: JSON = strawberry.field(description="Arguments as the caller gave them (static and secret values left out).")
    status: CallStatus = strawberry.field(description="SUCCESS or FAILED.")
    result: JSON | None = strawberry.field(description="The data returned on SUCCESS.")
    error: ToolError | None = strawberry.field(description="The structured error on FAILED.")
    latency_ms: float = strawberry.field(description="Wall time of the call, retries included, in milliseconds.")
    attempts: int = strawberry.field(description="How many times the executor ran (1 without retries).")
    trace_id: str = strawberry.field(description="Finds the call in the table, the logs and the client's envelope.")
    idempotency_key: str | None = strawberry.field(description="The caller's idempotency key, if given.")
    started_at: datetime = strawberry.field(description="When the call started.")


@strawberry.type(description="The gateway's envelope: status, data or error, trace id.")
class ToolResult:
    status: CallStatus = strawberry.field(description="SUCCESS or FAILED.")
    data: JSON | None = strawberry.field(description="The tool's data on SUCCESS.")
    error: ToolError | None = strawberry.field(description="The structured error on FAILED.")
    trace_id: str = strawberry.field(description="Finds the call in the call log and the service logs.")
    latency_ms: float = strawberry.field(description="Wall time of the call in milliseconds.")
    call: ToolCall | None = strawberry.field(description="The call log row, when one was written.")
