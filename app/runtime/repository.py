"""Every SQL statement of the runtime: runs, conversation turns and the agent inbox."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Select, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.runs import AgentMessage, AgentRun, AgentSessionMessage
from app.pagination import Page, PageRequest, count, fetch_page


async def get_run(session: AsyncSession, run_id: str) -> AgentRun | None:
    return await session.get(AgentRun, run_id, populate_existing=True)


async def runs_by_ids(session: AsyncSession, run_ids: Sequence[str]) -> list[AgentRun]:
    if not run_ids:
        return []
    return list((await session.scalars(select(AgentRun).where(AgentRun.id.in_(run_ids)))).all())


def _runs_statement(agent_id: str) -> Select[AgentRun]:
    return select(AgentRun).where(AgentRun.agent_id == agent_id)


async def list_runs(session: AsyncSession, agent_id: str, page: PageRequest) -> Page[AgentRun]:
    return await fetch_page(session, _runs_statement(agent_id), AgentRun.id, page)


async def count_runs(session: AsyncSession, agent_id: str) -> int:
    return await count(session, _runs_statement(agent_id))


async def run_by_idempotency_key(session: AsyncSession, agent_id: str, key: str) -> AgentRun | None:
    return await session.scalar(select(AgentRun).where(AgentRun.agent_id == agent_id, AgentRun.idempotency_key == key))


async def forget_idempotency_key(session: AsyncSession, run_id: str) -> None:
    await session.execute(update(AgentRun).where(AgentRun.id == run_id).values(idempotency_key=None))


async def last_turns(
    session: AsyncSession, agent_id: str, session_id: str, limit_turns: int
) -> list[AgentSessionMessage]:
    """The last ``limit_turns`` user/assistant pairs of a conversation, oldest first."""
    statement = (
        select(AgentSessionMessage)
        .where(AgentSessionMessage.agent_id == agent_id, AgentSessionMessage.session_id == session_id)
        .order_by(AgentSessionMessage.id.desc())
        .limit(limit_turns * 2)
    )
    return list(reversed((await session.scalars(statement)).all()))


async def pending_notifications(session: AsyncSession, agent_id: str) -> list[AgentMessage]:
    statement = (
        select(AgentMessage)
        .where(AgentMessage.to_agent_id == agent_id, AgentMessage.type == "notify", AgentMessage.status == "PENDING")
        .order_by(AgentMessage.id)
    )
    return list((await session.scalars(statement)).all())


async def mark_delivered(session: AsyncSession, message_ids: Sequence[str], now: datetime) -> None:
    if message_ids:
        await session.execute(
            update(AgentMessage)
            .where(AgentMessage.id.in_(message_ids), AgentMessage.status == "PENDING")
            .values(status="DELIVERED", delivered_at=now)
        )


async def get_message(session: AsyncSession, message_id: str) -> AgentMessage | None:
    return await session.get(AgentMessage, message_id)
