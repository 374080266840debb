"""GraphQL types of the agent runtime: runs and their traces, prompt previews and run events."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.runtime.models import AgentRun as AgentRunRow
from app.runtime.models import ToolCallApproval as ToolCallApprovalRow
from schema import visibility
from schema.context import Info
from schema.enums import ApprovalDecision, RunStageKind, RunStatus
from schema.node import Node
from schema.refs import AgentRef, ToolCallRef, ToolErrorRef


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
    run: AgentRun = strawberry.field(description="The run, as of this event.")
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


@strawberry.type(
    description="One stage of a run's trace, in order: what the run did, when, for how long, and the details that explain the outcome. No secret ever enters a trace; traces are kept QUIVER_TRACE_RETENTION_DAYS."
)
class RunStage:
    kind: RunStageKind = strawberry.field(description="What the stage was.")
    step: int | None = strawberry.field(
        description="The step (model call number) it belongs to; null for PROMPT, SKILL_ROUTING and KNOWLEDGE."
    )
    started_at: datetime = strawberry.field(description="When it started (APPROVAL: when the approval was requested).")
    finished_at: datetime = strawberry.field(description="When it ended (APPROVAL: when it was decided).")
    duration_ms: float = strawberry.field(description="How long it took (finishedAt - startedAt), in milliseconds.")
    detail: JSON = strawberry.field(
        description="What explains it, by kind. PROMPT: budgetChars, chars, tokenEstimate, sections [{kind, source, chars, truncated, reason}], warnings (what was cut and why), functions. SKILL_ROUTING: limit, routed, candidates [{skillId, version, channel, versionReason, canaryBucket, score, chosen, reason}], chosen, notes. KNOWLEDGE: queries, knowledgeBaseIds, hits [{knowledgeBaseId, documentId, title, source, chunkIndex, score, citation}], citations, partialSources. MODEL_CALL: model, messages (as sent, each cut at 4,000 characters, the oldest left out past 48,000: omittedMessages), reply, toolCalls, promptTokens, completionTokens, latencyMs, error. TOOL_CALL: toolCallId, modelCallId, toolId, function, arguments, envelope. APPROVAL: toolCallId, toolId, decision, decidedBy, decidedAt, comment, argumentsEdited, expiresAt."
    )


@strawberry.type(description="A skill version a run injected into its prompt: which version answered.")
class InjectedSkill:
    skill_id: str = strawberry.field(description="The skill's id.")
    version: str = strawberry.field(description="The version injected.")
    channel: str = strawberry.field(
        description="Why this version: PRODUCTION, CANDIDATE (canary), or PINNED by the agent."
    )


@strawberry.type(description="One invocation of an agent: input, output, steps and the tool calls it made.")
class AgentRun(Node):
    id: strawberry.ID = strawberry.field(description="Run id, run_….")
    status: RunStatus = strawberry.field(description="Where the run stands.")
    input: str = strawberry.field(description="The user message that started the run.")
    output: str | None = strawberry.field(description="The final answer; null until there is one.")
    error: ToolErrorRef | None = strawberry.field(description="Structured error when FAILED.")
    steps: int = strawberry.field(description="Model calls made so far.")
    prompt_tokens: int | None = strawberry.field(description="Prompt tokens reported by the model, summed over steps.")
    completion_tokens: int | None = strawberry.field(
        description="Completion tokens reported by the model, summed over steps."
    )
    model: str = strawberry.field(description="The model the run used.")
    session_id: str | None = strawberry.field(description="The conversation the run belongs to, if any.")
    skill_versions: list[InjectedSkill] = strawberry.field(description="The skill versions injected into the prompt.")
    prompt_warnings: list[str] = strawberry.field(description="What the prompt builder cut or flagged for this run.")
    delegation_depth: int = strawberry.field(
        description="0 for a run started by a caller; n for a run delegated n levels deep."
    )
    started_at: datetime = strawberry.field(description="When the run started.")
    finished_at: datetime | None = strawberry.field(description="When the run finished; null while running.")
    row: strawberry.Private[AgentRunRow]

    @classmethod
    def from_row(cls, row: AgentRunRow) -> AgentRun:
        from schema.gateway.types import ToolError

        return cls(
            id=strawberry.ID(row.id),
            status=RunStatus(row.status),
            input=row.input,
            output=row.output,
            error=ToolError(code=row.error_code, message=row.error_message or "", detail=row.error_detail)
            if row.error_code
            else None,
            steps=row.steps,
            prompt_tokens=row.prompt_tokens,
            completion_tokens=row.completion_tokens,
            model=row.model,
            session_id=row.session_id,
            skill_versions=[
                InjectedSkill(skill_id=item["skillId"], version=item["version"], channel=item["channel"])
                for item in row.skill_versions or []
            ],
            prompt_warnings=list(row.prompt_warnings or []),
            delegation_depth=row.delegation_depth,
            started_at=row.started_at,
            finished_at=row.finished_at,
            row=row,
        )

    @strawberry.field(description="The agent that ran.")
    async def agent(self, info: Info) -> AgentRef:
        from schema.agents.types import Agent

        row = await info.context.loaders.agent_by_id.load(self.row.agent_id)
        assert row is not None  # runs are only created for existing agents
        if not visibility.in_readable_space(info, row):
            raise visibility.refuse("agent")
        return Agent.from_row(row)

    @strawberry.field(
        description="The run's trace: one entry per stage (PROMPT, SKILL_ROUTING, KNOWLEDGE, MODEL_CALL, TOOL_CALL, APPROVAL), in order, each with its timing. Empty once pruned."
    )
    async def trace(self, info: Info) -> list[RunStage]:
        rows = await info.context.loaders.stages_by_run_id.load(self.row.id)
        return [
            RunStage(
                kind=RunStageKind(row.kind),
                step=row.step,
                started_at=row.started_at,
                finished_at=row.finished_at,
                duration_ms=row.duration_ms,
                detail=JSON(row.detail),
            )
            for row in rows
        ]

    @strawberry.field(description="Tool calls made by this run, in order.")
    async def tool_calls(self, info: Info) -> list[ToolCallRef]:
        from schema.gateway.types import ToolCall

        rows = await info.context.loaders.tool_calls_by_run_id.load(self.row.id)
        return [ToolCall.from_row(row) for row in rows if visibility.in_readable_space(info, row)]
