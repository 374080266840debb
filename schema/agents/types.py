"""GraphQL types of the agents domain: Agent and AgentRun."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import strawberry
from strawberry.scalars import JSON

from app.agents import repository
from app.agents.models import Agent as AgentRow
from app.agents.runs import AgentRun as AgentRunRow
from app.agents.service import manifest, split_skill_reference
from app.runtime import repository as runs_repository
from schema import visibility
from schema.context import Info
from schema.enums import ApprovalPolicy, RunStageKind, RunStatus, Status
from schema.node import Node
from schema.pagination import AfterArgument, Connection, FirstArgument, paginate

if TYPE_CHECKING:
    from schema.gateway.types import ToolCall, ToolError
    from schema.knowledge.types import KnowledgeBase
    from schema.skills.types import Skill
    from schema.spaces.types import Space
    from schema.tools.types import Tool

SpaceRef = Annotated["Space", strawberry.lazy("schema.spaces.types")]
ToolRef = Annotated["Tool", strawberry.lazy("schema.tools.types")]
SkillRef = Annotated["Skill", strawberry.lazy("schema.skills.types")]
KnowledgeBaseRef = Annotated["KnowledgeBase", strawberry.lazy("schema.knowledge.types")]
ToolCallRef = Annotated["ToolCall", strawberry.lazy("schema.gateway.types")]
ToolErrorRef = Annotated["ToolError", strawberry.lazy("schema.gateway.types")]


@strawberry.type(
    description="An agent: a manifest of model, system prompt, mounted knowledge bases, activated tools, bound skills and max steps."
)
class Agent(Node):
    id: strawberry.ID = strawberry.field(description="Agent id, ag_….")
    name: str = strawberry.field(description="Display name.")
    model: str = strawberry.field(description="Model name passed to the OpenAI-compatible endpoint.")
    system_prompt: str = strawberry.field(description="The agent's role: the first section of its system prompt.")
    max_steps: int = strawberry.field(description="Most model calls one run may make.")
    output_format: str | None = strawberry.field(
        description="How answers must be shaped (the OUTPUT_FORMAT prompt section)."
    )
    status: Status = strawberry.field(description="Lifecycle status; only ACTIVE agents can be invoked.")
    bound_skill_references: list[str] = strawberry.field(
        description="Bound skills as stored, with version pins, e.g. sk_email_draft@1.2.0."
    )
    manifest: JSON = strawberry.field(
        description="The assembly manifest as JSON: model, systemPrompt, mountedKbs, activatedTools, boundSkills, maxSteps."
    )
    created_at: datetime = strawberry.field(description="When the agent was created.")
    updated_at: datetime = strawberry.field(description="When the agent was last changed.")
    row: strawberry.Private[AgentRow]

    @classmethod
    def from_row(cls, row: AgentRow) -> Agent:
        return cls(
            id=strawberry.ID(row.id),
            name=row.name,
            model=row.model,
            system_prompt=row.system_prompt,
            max_steps=row.max_steps,
            output_format=row.output_format,
            status=Status(row.status),
            bound_skill_references=list(row.bound_skill_ids or []),
            manifest=JSON(manifest(row)),
            created_at=row.created_at,
            updated_at=row.updated_at,
            row=row,
        )

    @strawberry.field(description="The space the agent belongs to.")
    async def space(self, info: Info) -> SpaceRef:
        from schema.spaces.types import Space

        if not visibility.space_visible(info, self.row.space_id):
            raise visibility.refuse("space")
        row = await info.context.loaders.space_by_id.load(self.row.space_id)
        assert row is not None  # space_id is a foreign key
        return Space.from_row(row)

    @strawberry.field(description="Knowledge bases the agent consults.")
    async def mounted_knowledge_bases(self, info: Info) -> list[KnowledgeBaseRef]:
        from schema.knowledge.types import KnowledgeBase

        rows = await info.context.loaders.knowledge_base_by_id.load_many(list(self.row.mounted_kb_ids))
        return [KnowledgeBase.from_row(row) for row in rows if row and visibility.in_readable_space(info, row)]

    @strawberry.field(
        description="Tools the agent may call that are still visible in its space, any status: a DISABLED or ARCHIVED tool stays listed and is skipped at run time."
    )
    async def activated_tools(self, info: Info) -> list[ToolRef]:
        from schema.tools.types import Tool

        tool_ids = list(self.row.activated_tool_ids)
        # A tool an admin has since bound elsewhere is out of the space's reach: it looks absent.
        visible = await info.context.loaders.tool_visible_in_space.load_many(
            [(self.row.space_id, tool_id) for tool_id in tool_ids]
        )
        rows = await info.context.loaders.tool_by_id.load_many(
            [tool_id for tool_id, is_visible in zip(tool_ids, visible, strict=True) if is_visible]
        )
        return [Tool.from_row(row) for row in await visibility.visible_tools(info, rows)]

    @strawberry.field(
        description="Approval policies this agent sets for some of its activated tools, overriding the tools' own."
    )
    def tool_approvals(self) -> list[AgentToolApproval]:
        return [
            AgentToolApproval(tool_id=tool_id, approval=ApprovalPolicy(policy))
            for tool_id, policy in sorted((self.row.tool_approvals or {}).items())
        ]

    @strawberry.field(
        description="Skills bound to the agent, any status: a DISABLED skill stays listed and is skipped at run time."
    )
    async def bound_skills(self, info: Info) -> list[SkillRef]:
        from schema.skills.types import Skill

        skill_ids = [split_skill_reference(reference)[0] for reference in self.row.bound_skill_ids]
        rows = await info.context.loaders.skill_by_id.load_many(skill_ids)
        return [Skill.from_row(row) for row in rows if row and visibility.skill_visible(info, row)]

    @strawberry.field(description="Runs of this agent, oldest first.")
    async def runs(self, info: Info, first: FirstArgument = 20, after: AfterArgument = None) -> Connection[AgentRun]:
        agent_id = self.row.id
        return await paginate(
            info,
            first,
            after,
            lambda session, request: runs_repository.list_runs(session, agent_id, request),
            lambda session: runs_repository.count_runs(session, agent_id),
            AgentRun.from_row,
            lambda row: row.id,
        )


@strawberry.type(description="An agent's approval policy for one of its tools, overriding the tool's own.")
class AgentToolApproval:
    tool_id: str = strawberry.field(description="The tool.")
    approval: ApprovalPolicy = strawberry.field(description="When this agent's calls of it wait for approval.")


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
    async def agent(self, info: Info) -> Agent:
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


async def agent_connection(info: Info, space_id: str | None, first: int | None, after: str | None) -> Connection[Agent]:
    return await paginate(
        info,
        first,
        after,
        lambda session, request: repository.list_agents(session, space_id, request),
        lambda session: repository.count_agents(session, space_id),
        Agent.from_row,
        lambda row: row.id,
    )
