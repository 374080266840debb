"""Usage of skills: injections into runs (recorded by the runtime) and matches (by matchSkills)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from app.db import utcnow
from app.skills import repository
from app.skills.repository import UsageIncrement


class SkillAtVersion(Protocol):
    """Anything naming a skill version: ResolvedSkill, the runtime's SkillSection, …"""

    @property
    def skill_id(self) -> str: ...

    @property
    def version(self) -> str: ...


async def record_injection(
    session: AsyncSession, skills: Iterable[SkillAtVersion], *, at: datetime | None = None
) -> None:
    """Count one injection of each skill version into a run's prompt (call once per run).

    Runs in the caller's transaction; the counters are upserts, safe under concurrent runs.
    """
    await repository.add_usage(
        session, [UsageIncrement(skill.skill_id, skill.version, injected=1) for skill in skills], at or utcnow()
    )


async def record_matches(
    session: AsyncSession, skills: Iterable[SkillAtVersion], *, at: datetime | None = None
) -> None:
    """Count one match of each skill version (matchSkills returned it)."""
    await repository.add_usage(
        session, [UsageIncrement(skill.skill_id, skill.version, matched=1) for skill in skills], at or utcnow()
    )
