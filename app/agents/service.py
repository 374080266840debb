"""Rules for agent manifests: every reference checked against the agent's space."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.agents import repository
from app.agents.models import Agent
from app.errors import DomainError, ForbiddenError, NotFoundError
from app.ids import new_id
from app.knowledge import repository as knowledge_repository
from app.principal import Principal
from app.skills import repository as skills_repository
from app.skills import service as skills_service
from app.skills.versions import split_reference
from app.spaces import repository as spaces_repository
from app.tools import repository as tools_repository
from app.tools.service import APPROVAL_POLICIES
from app.validation import SEMVER, check_not_blank, check_range

MAX_STEPS_LIMIT = 50


@dataclass
class AgentInput:
    """Fields of createAgent / updateAgent; None means "not given"."""

    space_id: str | None = None
    name: str | None = None
    model: str | None = None
    system_prompt: str | None = None
    max_steps: int | None = None
    mounted_kb_ids: list[str] | None = None
    activated_tool_ids: list[str] | None = None
    bound_skill_ids: list[str] | None = None
    output_format: str | None = None
    #: (tool id, NEVER|ALWAYS|WRITE_ONLY) overriding the tools' approval policies.
    tool_approvals: list[tuple[str, str]] | None = None


def manifest(agent: Agent) -> dict[str, Any]:
    return {
        "model": agent.model,
        "systemPrompt": agent.system_prompt,
        "mountedKbs": list(agent.mounted_kb_ids),
        "activatedTools": list(agent.activated_tool_ids),
        "boundSkills": list(agent.bound_skill_ids),
        "maxSteps": agent.max_steps,
    }


async def get_agent_for(session: AsyncSession, principal: Principal, agent_id: str) -> Agent | None:
    agent = await repository.get_agent(session, agent_id)
    if agent is None or not principal.can_read_space(agent.space_id):
        return None
    return agent


def _first_positions(values: list[str]) -> list[tuple[int, str]]:
    """Each distinct value with the index of its first occurrence in the input (for field paths)."""
    seen: dict[str, int] = {}
    for index, value in enumerate(values):
        seen.setdefault(value, index)
    return [(index, value) for value, index in seen.items()]


async def _check_tools(session: AsyncSession, space_id: str, tool_ids: list[str], already: list[str]) -> list[str]:
    positions = _first_positions(tool_ids)
    unique = [tool_id for _, tool_id in positions]
    # New references must be ACTIVE and visible; references the agent already holds
    # stay valid when the tool is later disabled, but not once it leaves the space.
    active = await tools_repository.visible_tool_ids(session, space_id, unique)
    reachable = await tools_repository.visible_tool_ids(
        session, space_id, [tool_id for tool_id in unique if tool_id in already], include_inactive=True
    )
    for index, tool_id in positions:
        if tool_id not in active and tool_id not in reachable:
            raise DomainError(
                "NOT_VISIBLE",
                f"Tool {tool_id!r} is not an active tool visible in space {space_id!r}.",
                ["input", "activatedToolIds", str(index)],
            )
    return unique


async def _check_skills(session: AsyncSession, space_id: str, references: list[str], already: list[str]) -> list[str]:
    positions = _first_positions(references)
    skills = {
        skill.skill_id: skill
        for skill in await skills_repository.skills_by_ids(
            session, [split_reference(reference)[0] for _, reference in positions]
        )
    }
    for index, reference in positions:
        field = ["input", "boundSkillIds", str(index)]
        skill_id, version = split_reference(reference)
        skill = skills.get(skill_id)
        if skill is None or (skill.space_id is not None and skill.space_id != space_id):
            raise DomainError(
                "NOT_VISIBLE", f"Skill {skill_id!r} is not a skill of space {space_id!r} or global.", field
            )
        if reference in already:
            continue
        if skill.status != "ACTIVE":
            raise DomainError(skill.status, f"Skill {skill_id!r} is {skill.status.lower()}.", field)
        if version is not None and (
            not SEMVER.match(version) or await skills_repository.get_version(session, skill_id, version) is None
        ):
            raise DomainError("NOT_FOUND", f"Skill {skill_id!r} has no version {version!r}.", field)
    return [reference for _, reference in positions]


async def _check_knowledge_bases(session: AsyncSession, space_id: str, kb_ids: list[str]) -> list[str]:
    positions = _first_positions(kb_ids)
    found = {
        kb.id: kb
        for kb in await knowledge_repository.knowledge_bases_by_ids(session, [kb_id for _, kb_id in positions])
    }
    for index, kb_id in positions:
        kb = found.get(kb_id)
        if kb is None or kb.space_id != space_id:
            raise DomainError(
                "NOT_VISIBLE",
                f"Knowledge base {kb_id!r} is not a knowledge base of space {space_id!r}.",
                ["input", "mountedKnowledgeBaseIds", str(index)],
            )
    return [kb_id for _, kb_id in positions]


async def _apply(session: AsyncSession, agent: Agent, data: AgentInput) -> None:
    if data.name is not None:
        agent.name = check_not_blank(data.name, ["input", "name"])
    if data.model is not None:
        agent.model = check_not_blank(data.model, ["input", "model"])
    if data.system_prompt is not None:
        agent.system_prompt = data.system_prompt
    if data.output_format is not None:
        agent.output_format = data.output_format.strip() or None
    if data.max_steps is not None:
        agent.max_steps = check_range(data.max_steps, 1, MAX_STEPS_LIMIT, ["input", "maxSteps"])
    if data.activated_tool_ids is not None:
        agent.activated_tool_ids = await _check_tools(
            session, agent.space_id, data.activated_tool_ids, list(agent.activated_tool_ids or [])
        )
    if data.bound_skill_ids is not None:
        previous_skills = list(agent.bound_skill_ids or [])
        agent.bound_skill_ids = await _check_skills(session, agent.space_id, data.bound_skill_ids, previous_skills)
        # Newly bound skills bring the tools they declare, where the space can see them.
        agent.activated_tool_ids = await skills_service.activate_declared_tools(
            session, agent.space_id, agent.bound_skill_ids, previous_skills, list(agent.activated_tool_ids or [])
        )
    if data.mounted_kb_ids is not None:
        agent.mounted_kb_ids = await _check_knowledge_bases(session, agent.space_id, data.mounted_kb_ids)
    activated = set(agent.activated_tool_ids or [])
    if data.tool_approvals is not None:
        overrides: dict[str, str] = {}
        for index, (tool_id, policy) in enumerate(data.tool_approvals):
            if tool_id not in activated:
                raise DomainError(
                    "NOT_ACTIVATED",
                    f"Tool {tool_id!r} is not an activated tool of this agent.",
                    ["input", "toolApprovals", str(index), "toolId"],
                )
            if policy not in APPROVAL_POLICIES:
                raise DomainError(
                    "INVALID", "approval is NEVER, ALWAYS or WRITE_ONLY.", ["input", "toolApprovals", str(index)]
                )
            overrides[tool_id] = policy
        agent.tool_approvals = overrides
    elif agent.tool_approvals:
        # A tool no longer activated takes its override with it.
        agent.tool_approvals = {key: value for key, value in agent.tool_approvals.items() if key in activated}


async def create_agent(session: AsyncSession, principal: Principal, data: AgentInput) -> Agent:
    space_id = data.space_id or ""
    if not principal.can_read_space(space_id) or await spaces_repository.get_space(session, space_id) is None:
        raise NotFoundError("Space", space_id, ["input", "spaceId"])
    if not principal.can_manage_space(space_id):
        raise ForbiddenError("This key may not create agents in that space.", ["input", "spaceId"])
    for required in ("name", "model", "system_prompt"):
        if getattr(data, required) is None:
            raise DomainError("REQUIRED", f"{required} is required.", ["input", required])
    agent = Agent(
        id=new_id("ag_"),
        space_id=space_id,
        name="",
        model="",
        system_prompt="",
        max_steps=5,
        status="ACTIVE",
        mounted_kb_ids=[],
        activated_tool_ids=[],
        bound_skill_ids=[],
        tool_approvals={},
    )
    await _apply(session, agent, data)
    session.add(agent)
    await session.flush()
    return agent


async def _require_manageable(session: AsyncSession, principal: Principal, agent_id: str) -> Agent:
    agent = await get_agent_for(session, principal, agent_id)
    if agent is None:
        raise NotFoundError("Agent", agent_id, ["input", "id"])
    if not principal.can_manage_space(agent.space_id):
        raise ForbiddenError("This key may read this agent but not change it.", ["input", "id"])
    return agent


async def update_agent(session: AsyncSession, principal: Principal, agent_id: str, data: AgentInput) -> Agent:
    agent = await _require_manageable(session, principal, agent_id)
    await _apply(session, agent, data)
    await session.flush()
    return agent


async def set_agent_status(session: AsyncSession, principal: Principal, agent_id: str, status: str) -> Agent:
    agent = await _require_manageable(session, principal, agent_id)
    agent.status = status
    await session.flush()
    return agent


async def with_declared_tool_notices(session: AsyncSession, pending: Awaitable[Agent]) -> tuple[Agent, list[str]]:
    """Await an agent mutation, then say which tools its bound skills declare that it lacks."""
    agent = await pending
    notices = await skills_service.declared_tool_notices(
        session, agent.space_id, list(agent.bound_skill_ids or []), list(agent.activated_tool_ids or [])
    )
    return agent, notices
