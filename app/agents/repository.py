"""Every SQL statement about agents."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.pagination import Page, PageRequest, count, fetch_page


def _statement(space_id: str | None) -> Select[Agent]:
    statement = select(Agent).where(Agent.status != "ARCHIVED")
    if space_id is not None:
        statement = statement.where(Agent.space_id == space_id)
    return statement


async def list_agents(session: AsyncSession, space_id: str | None, page: PageRequest) -> Page[Agent]:
    return await fetch_page(session, _statement(space_id), Agent.id, page)


async def count_agents(session: AsyncSession, space_id: str | None) -> int:
    return await count(session, _statement(space_id))


async def get_agent(session: AsyncSession, agent_id: str) -> Agent | None:
    return await session.get(Agent, agent_id)


async def mounted_knowledge(session: AsyncSession, agent_id: str) -> tuple[str, list[str]] | None:
    """The agent's space and mounted knowledge base ids (``app.knowledge.tool.MountedKnowledge``)."""
    agent = await get_agent(session, agent_id)
    return None if agent is None else (agent.space_id, list(agent.mounted_kb_ids or []))


async def agents_by_ids(session: AsyncSession, agent_ids: Sequence[str]) -> list[Agent]:
    if not agent_ids:
        return []
    return list((await session.scalars(select(Agent).where(Agent.id.in_(agent_ids)))).all())
