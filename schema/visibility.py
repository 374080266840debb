"""One rule per object type for "may this caller see it", applied wherever an object is linked.

The top-level queries (``tool(id:)``, ``agent(id:)``, ``node(id:)`` ...) refuse objects the
caller may not see. Every other way to reach an object — a mutation payload, a subscription
event, a nested field — goes through these checks too, with the same rule:

- a Space: ADMIN, or the key's own space;
- an Agent, AgentRun, KnowledgeBase or ToolCall: its space is readable;
- a Document: its knowledge base is;
- a Skill: global, or its space is readable;
- a Tool: ADMIN, or visible (any status) in the key's space under the binding rule;
- an McpServer: ADMIN, or global, or bound to the key's space.

A nullable link to an object the caller may not see resolves to null and lists leave it out.
A non-null link (``Agent.space``, ``AgentRun.agent`` ...) always points into a space the
parent already proves readable; should that ever not hold, :func:`refuse` raises
``NOT_VISIBLE`` and GraphQL nulls the parent instead of showing the object.

The checks use the request's loaders: a page of objects costs one query per kind of check.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from app.agents.models import Agent
from app.gateway.models import ToolCall
from app.knowledge.models import Document, KnowledgeBase
from app.runtime.models import AgentRun
from app.skills.models import SkillDefinition
from app.tools.models import McpServer, ToolDefinition
from schema.context import Info
from schema.errors import ClientError

Row = TypeVar("Row")

NOT_VISIBLE = "NOT_VISIBLE"


def refuse(kind: str) -> ClientError:
    """The error a non-null link to an object out of the caller's reach resolves to."""
    return ClientError(f"This {kind} is outside the caller's reach.", NOT_VISIBLE)


def space_visible(info: Info, space_id: str | None) -> bool:
    return info.context.principal.can_read_space(space_id)


def skill_visible(info: Info, skill: SkillDefinition) -> bool:
    return skill.space_id is None or info.context.principal.can_read_space(skill.space_id)


def in_readable_space(info: Info, row: Agent | AgentRun | KnowledgeBase | ToolCall) -> bool:
    return info.context.principal.can_read_space(row.space_id)


async def document_visible(info: Info, document: Document) -> bool:
    kb = await info.context.loaders.knowledge_base_by_id.load(document.knowledge_base_id)
    return kb is not None and info.context.principal.can_read_space(kb.space_id)


async def tools_visible(info: Info, tools: Sequence[ToolDefinition]) -> list[bool]:
    principal = info.context.principal
    if principal.is_admin:
        return [True] * len(tools)
    space_id = principal.space_id or ""
    return list(
        await info.context.loaders.tool_visible_in_space.load_many([(space_id, tool.tool_id) for tool in tools])
    )


async def tool_visible(info: Info, tool: ToolDefinition) -> bool:
    return (await tools_visible(info, [tool]))[0]


async def server_visible(info: Info, server: McpServer) -> bool:
    principal = info.context.principal
    if principal.is_admin:
        return True
    bound = await info.context.loaders.space_ids_by_mcp_server_id.load(server.id)
    return not bound or principal.space_id in bound


async def shown_tool_ids(info: Info, tool_ids: Sequence[str]) -> list[str]:
    """Declared tool ids as the caller may see them: ids of tools it may not see are left out
    (an MCP tool's id names its server and tool); ids that resolve to nothing stay."""
    if info.context.principal.is_admin:
        return list(tool_ids)
    rows = [row for row in await info.context.loaders.tool_by_id.load_many(list(tool_ids)) if row is not None]
    hidden = {row.tool_id for row, visible in zip(rows, await tools_visible(info, rows), strict=True) if not visible}
    return [tool_id for tool_id in tool_ids if tool_id not in hidden]


async def visible_tools(info: Info, tools: Sequence[ToolDefinition | None]) -> list[ToolDefinition]:
    """The tools among ``tools`` the caller may see, in order (absent ones left out)."""
    present = [tool for tool in tools if tool is not None]
    return [tool for tool, visible in zip(present, await tools_visible(info, present), strict=True) if visible]
