"""Queries and mutations of the agents domain."""

from __future__ import annotations

from typing import Annotated

import strawberry

from app.agents import service
from app.agents.service import with_declared_tool_notices
from schema.agents.types import Agent, agent_connection
from schema.context import Info
from schema.enums import ApprovalPolicy
from schema.errors import UserError
from schema.mutations import in_transaction
from schema.pagination import AfterArgument, Connection, FirstArgument, empty_connection


def _ids(values: list[strawberry.ID] | None) -> list[str] | None:
    return [str(value) for value in values] if values is not None else None


@strawberry.input(description="The agent's approval policy for one of its activated tools, overriding the tool's own.")
class ToolApprovalInput:
    tool_id: strawberry.ID = strawberry.field(description="An activated tool of the agent.")
    approval: ApprovalPolicy = strawberry.field(description="When the agent's calls of it wait for approval.")


def _approvals(values: list[ToolApprovalInput] | None) -> list[tuple[str, str]] | None:
    return [(str(value.tool_id), value.approval.name) for value in values] if values is not None else None


@strawberry.type
class AgentsQuery:
    @strawberry.field(description="Agents the caller can read, optionally of one space.")
    async def agents(
        self,
        info: Info,
        space_id: Annotated[strawberry.ID | None, strawberry.argument(description="Only this space's agents.")] = None,
        first: FirstArgument = 50,
        after: AfterArgument = None,
    ) -> Connection[Agent]:
        principal = info.context.principal
        scope = str(space_id) if space_id else principal.reach
        if scope is not None and not principal.can_read_space(scope):
            return empty_connection(after)  # outside the caller's reach looks like an absent space
        return await agent_connection(info, scope, first, after)

    @strawberry.field(description="One agent by id; null when absent or outside the caller's reach.")
    async def agent(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="The agent's id.")],
    ) -> Agent | None:
        async with info.context.session() as session:
            row = await service.get_agent_for(session, info.context.principal, str(id))
        return Agent.from_row(row) if row else None


@strawberry.input(description="A new agent manifest. Every reference must be reachable from the agent's space.")
class CreateAgentInput:
    space_id: strawberry.ID = strawberry.field(description="The agent's space.")
    name: str = strawberry.field(description="Display name.")
    model: str = strawberry.field(description="Model name for the OpenAI-compatible endpoint.")
    system_prompt: str = strawberry.field(description="The agent's role.")
    max_steps: int | None = strawberry.field(default=5, description="Most model calls per run (1-50).")
    mounted_knowledge_base_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Knowledge bases of the same space."
    )
    activated_tool_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="ACTIVE tools visible in the space."
    )
    bound_skill_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Global or same-space skills; pin a version with @, e.g. sk_email_draft@1.0.0."
    )
    output_format: str | None = strawberry.field(
        default=None, description="How answers must be shaped; the OUTPUT_FORMAT section of the prompt."
    )
    tool_approvals: list[ToolApprovalInput] | None = strawberry.field(
        default=None, description="Approval policies overriding the tools' own, per activated tool."
    )


@strawberry.input(description="Changes to an agent; omitted fields stay. Lists replace the old ones.")
class UpdateAgentInput:
    id: strawberry.ID = strawberry.field(description="The agent to change.")
    name: str | None = strawberry.field(default=None, description="New display name.")
    model: str | None = strawberry.field(default=None, description="New model name.")
    system_prompt: str | None = strawberry.field(default=None, description="New role.")
    max_steps: int | None = strawberry.field(default=None, description="New step limit (1-50).")
    mounted_knowledge_base_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="New knowledge bases."
    )
    activated_tool_ids: list[strawberry.ID] | None = strawberry.field(default=None, description="New tools.")
    bound_skill_ids: list[strawberry.ID] | None = strawberry.field(default=None, description="New skills.")
    output_format: str | None = strawberry.field(default=None, description="New output format; empty string clears it.")
    tool_approvals: list[ToolApprovalInput] | None = strawberry.field(
        default=None, description="New approval overrides (replace the old ones); an empty list removes them all."
    )


@strawberry.type(description="Result of a mutation on an agent.")
class AgentPayload:
    agent: Agent | None = strawberry.field(description="The agent; null when the mutation failed.")
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")
    notices: list[str] = strawberry.field(
        default_factory=list,
        description="Tools that bound skills declare but the agent does not get (not visible in its space, inactive, or not activated).",
    )


@strawberry.type
class AgentsMutation:
    @strawberry.mutation(description="Create an agent (SPACE_ADMIN of the space, or ADMIN).")
    async def create_agent(
        self,
        info: Info,
        input: Annotated[CreateAgentInput, strawberry.argument(description="The new agent.")],
    ) -> AgentPayload:
        principal = info.context.principal
        data = service.AgentInput(
            space_id=str(input.space_id),
            name=input.name,
            model=input.model,
            system_prompt=input.system_prompt,
            max_steps=input.max_steps if input.max_steps is not None else 5,
            mounted_kb_ids=_ids(input.mounted_knowledge_base_ids),
            activated_tool_ids=_ids(input.activated_tool_ids),
            bound_skill_ids=_ids(input.bound_skill_ids),
            output_format=input.output_format,
            tool_approvals=_approvals(input.tool_approvals),
        )
        result, errors = await in_transaction(
            info, lambda session: with_declared_tool_notices(session, service.create_agent(session, principal, data))
        )
        return AgentPayload(
            agent=Agent.from_row(result[0]) if result else None, user_errors=errors, notices=result[1] if result else []
        )

    @strawberry.mutation(description="Change an agent's manifest.")
    async def update_agent(
        self,
        info: Info,
        input: Annotated[UpdateAgentInput, strawberry.argument(description="The changes.")],
    ) -> AgentPayload:
        principal = info.context.principal
        data = service.AgentInput(
            name=input.name,
            model=input.model,
            system_prompt=input.system_prompt,
            max_steps=input.max_steps,
            mounted_kb_ids=_ids(input.mounted_knowledge_base_ids),
            activated_tool_ids=_ids(input.activated_tool_ids),
            bound_skill_ids=_ids(input.bound_skill_ids),
            output_format=input.output_format,
            tool_approvals=_approvals(input.tool_approvals),
        )
        result, errors = await in_transaction(
            info,
            lambda session: with_declared_tool_notices(
                session, service.update_agent(session, principal, str(input.id), data)
            ),
        )
        return AgentPayload(
            agent=Agent.from_row(result[0]) if result else None, user_errors=errors, notices=result[1] if result else []
        )
