"""Cross-domain operations: `node(id:)` and `setStatus`."""

from __future__ import annotations

from typing import Annotated

import strawberry

from app.agents.service import get_agent_for
from app.catalog.status import kind_of, set_status
from app.gateway import repository as calls_repository
from app.knowledge.service import get_document_for, get_knowledge_base_for
from app.mcp.service import get_server_for
from app.runtime import repository as runs_repository
from app.skills.service import get_skill_for
from app.spaces.service import get_api_key_for, get_readable_space
from app.tools.models import McpServer as McpServerRow
from app.tools.service import get_tool_for
from schema.agents.types import Agent
from schema.context import Info
from schema.enums import Status
from schema.errors import UserError
from schema.gateway.types import ToolCall
from schema.knowledge.types import Document, KnowledgeBase
from schema.mcp.types import McpServer
from schema.mutations import in_transaction
from schema.node import Node
from schema.runtime.types import AgentRun
from schema.skills.types import Skill
from schema.spaces.api_keys import ApiKey
from schema.spaces.types import Space
from schema.tools.types import Tool


async def resolve_node(info: Info, identifier: str) -> Node | None:
    """Any catalog object by its prefixed id, if the caller may see it."""
    principal = info.context.principal
    kind = kind_of(identifier)
    async with info.context.session() as session:
        if kind == "tool":
            tool = await get_tool_for(session, principal, identifier)
            return Tool.from_row(tool) if tool else None
        if kind == "mcp_server":
            server = await get_server_for(session, principal, identifier)
            return McpServer.from_row(server) if server else None
        if kind == "skill":
            skill = await get_skill_for(session, principal, identifier)
            return Skill.from_row(skill) if skill else None
        if kind == "space":
            space = await get_readable_space(session, principal, identifier)
            return Space.from_row(space) if space else None
        if kind == "agent":
            agent = await get_agent_for(session, principal, identifier)
            return Agent.from_row(agent) if agent else None
        if kind == "knowledge_base":
            kb = await get_knowledge_base_for(session, principal, identifier)
            return KnowledgeBase.from_row(kb) if kb else None
        if kind == "document":
            document = await get_document_for(session, principal, identifier)
            return Document.from_row(document) if document else None
        if kind == "agent_run":
            run = await runs_repository.get_run(session, identifier)
            return AgentRun.from_row(run) if run and principal.can_read_space(run.space_id) else None
        if kind == "api_key":
            api_key = await get_api_key_for(session, principal, identifier)
            return ApiKey.from_row(api_key) if api_key else None
        if kind == "tool_call":
            call = await calls_repository.get_call(session, identifier)
            return ToolCall.from_row(call) if call and principal.can_read_space(call.space_id) else None
    return None


def to_node(row: object) -> Node:
    from app.agents.models import Agent as AgentRow
    from app.skills.models import SkillDefinition
    from app.tools.models import McpServer as McpServerRow
    from app.tools.models import ToolDefinition

    if isinstance(row, ToolDefinition):
        return Tool.from_row(row)
    if isinstance(row, McpServerRow):
        return McpServer.from_row(row)
    if isinstance(row, SkillDefinition):
        return Skill.from_row(row)
    if isinstance(row, AgentRow):
        return Agent.from_row(row)
    raise TypeError(f"no GraphQL type for {type(row).__name__}")


@strawberry.type
class CatalogQuery:
    @strawberry.field(description="Any object by its prefixed id; null when absent or outside the caller's reach.")
    async def node(
        self,
        info: Info,
        id: Annotated[
            strawberry.ID,
            strawberry.argument(
                description="A prefixed id (sp_, ag_, kb_, bt_, ct_, mcp_, sk_, sku_, doc_, run_, tc_, key_)."
            ),
        ],
    ) -> Node | None:
        return await resolve_node(info, str(id))


@strawberry.input(description="A new lifecycle status for a Tool, McpServer, Skill or Agent.")
class SetStatusInput:
    id: strawberry.ID = strawberry.field(description="The object's id.")
    status: Status = strawberry.field(description="The new status.")


@strawberry.type(description="Result of setStatus.")
class StatusPayload:
    node: Node | None = strawberry.field(description="The object with its new status; null when the mutation failed.")
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


@strawberry.type
class CatalogMutation:
    @strawberry.mutation(
        description="ACTIVE, DISABLED or ARCHIVED for a Tool, McpServer, Skill or Agent. Nothing is physically deleted."
    )
    async def set_status(
        self,
        info: Info,
        input: Annotated[SetStatusInput, strawberry.argument(description="The object and its new status.")],
    ) -> StatusPayload:
        principal = info.context.principal
        row, errors = await in_transaction(
            info, lambda session: set_status(session, principal, str(input.id), input.status.name)
        )
        if isinstance(row, McpServerRow):
            # A disabled server's live session goes now, not at the next call.
            await info.context.mcp_pool.invalidate(row.id)
        return StatusPayload(node=to_node(row) if row is not None else None, user_errors=errors)
