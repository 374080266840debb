"""GraphQL types of the agents domain: Agent and its tool approvals."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.agents import repository
from app.agents.models import Agent as AgentRow
from app.agents.service import manifest
from app.runtime import repository as runs_repository
from app.skills.versions import split_reference
from schema import visibility
from schema.context import Info
from schema.enums import ApprovalPolicy, Status
from schema.node import Node
from schema.pagination import AfterArgument, Connection, FirstArgument, paginate
from schema.refs import KnowledgeBaseRef, SkillRef, SpaceRef, ToolRef
from schema.runtime.types import AgentRun


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
        from schema.spaces.types import space_of

        return await space_of(info, self.row.space_id)

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

        skill_ids = [split_reference(reference)[0] for reference in self.row.bound_skill_ids]
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
