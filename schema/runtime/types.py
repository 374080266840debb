"""GraphQL types of the agent runtime: prompt previews and run events."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import strawberry
from strawberry.scalars import JSON

from app.agents.runs import ToolCallApproval as ToolCallApprovalRow
from schema.enums import ApprovalDecision

if TYPE_CHECKING:
    from schema.agents.types import AgentRun
    from schema.gateway.types import ToolCall

AgentRunRef = Annotated["AgentRun", strawberry.lazy("schema.agents.types")]
ToolCallRef = Annotated["ToolCall", strawberry.lazy("schema.gateway.types")]


@strawberry.type(description="One section of an assembled system prompt.")
class PromptSection:
    kind: str = strawberry.field(description="ROLE, SKILL, OUTPUT_FORMAT, KNOWLEDGE or PROFILE.")
    source: str | None = strawberry.field(description="Where the text came from, e.g. a skill id and version.")
    text: str = strawberry.field(description="The section's text as sent.")
    truncated: bool = strawberry.field(description="True when the section was cut to fit the budget.")
    reason: str | None = strawberry.field(
        default=None, description="Why the section is there: for skills, the version's channel and the routing match."
    )


@strawberry.type(description="Exactly what a run of an agent would send to the model for a message.")
class PromptPreview:
    system_prompt: str = strawberry.field(description="The assembled system prompt, in builder order.")
    sections: list[PromptSection] = strawberry.field(
        description="Sections in order: ROLE, SKILL, OUTPUT_FORMAT, KNOWLEDGE, PROFILE."
    )
    token_estimate: int = strawberry.field(description="Estimated prompt tokens.")
    warnings: list[str] = strawberry.field(description="Problems found while assembling, e.g. a skill over its limit.")
    tools: JSON = strawberry.field(description="Function-calling definitions sent to the model.")
    budget_chars: int = strawberry.field(
        description="The system prompt's budget in characters (setting prompt_budget_chars)."
    )
    char_count: int = strawberry.field(description="Characters of the assembled system prompt.")


@strawberry.type(description="Something that happened during an agent run, streamed live.")
class AgentRunEvent:
    kind: str = strawberry.field(
        description="STARTED, MODEL_CALL, TOOL_CALL_STARTED, TOOL_CALL_FINISHED, MESSAGE_DELTA, APPROVAL_REQUESTED (a call waits for a decision: toolCall), APPROVAL_DECIDED (toolCall; sent when the run takes the decision up), RESUMED (a live replica continues the run after its own died), FINISHED."
    )
    run: AgentRunRef = strawberry.field(description="The run, as of this event.")
    tool_call: ToolCallRef | None = strawberry.field(
        description="The tool call, for TOOL_CALL_FINISHED and APPROVAL_* events."
    )
    delta: str | None = strawberry.field(description="Text for MESSAGE_DELTA.")
    at: datetime = strawberry.field(description="When it happened.")
    tool_id: str | None = strawberry.field(default=None, description="The tool, for TOOL_CALL_* events.")
    step: int | None = strawberry.field(default=None, description="The step number, for MODEL_CALL events.")


@strawberry.type(description="A person's decision on a tool call that had to wait for approval.")
class ToolCallApproval:
    decision: ApprovalDecision = strawberry.field(description="PENDING until decided.")
    decided_by: str | None = strawberry.field(
        description="Id of the API key that decided; null while pending and when it expired."
    )
    decided_at: datetime | None = strawberry.field(description="When it was decided (or expired).")
    comment: str | None = strawberry.field(description="The approver's comment, or the reason of a rejection.")
    arguments_edited: bool = strawberry.field(
        description="True when the approver replaced the proposed arguments (the call's `arguments` show what ran)."
    )
    requested_at: datetime = strawberry.field(description="When the agent proposed the call.")
    expires_at: datetime = strawberry.field(
        description="When an undecided call is refused (QUIVER_APPROVAL_TIMEOUT_S after the request)."
    )

    @classmethod
    def from_row(cls, row: ToolCallApprovalRow) -> ToolCallApproval:
        return cls(
            decision=ApprovalDecision(row.decision or ApprovalDecision.PENDING.value),
            decided_by=row.decided_by,
            decided_at=row.decided_at,
            comment=row.comment,
            arguments_edited=row.arguments is not None,
            requested_at=row.requested_at,
            expires_at=row.expires_at,
        )
