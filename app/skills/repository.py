"""Every SQL statement about skills and their versions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Select, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import JsonArrayContains
from app.pagination import Page, PageRequest, count, fetch_page
from app.skills.models import SkillDefinition, SkillVersion


@dataclass(frozen=True)
class SkillFilter:
    category: str | None = None
    tags: Sequence[str] = ()
    search: str | None = None


def _statement(space_id: str | None, skill_filter: SkillFilter | None) -> Select[SkillDefinition]:
    """Skills reachable from ``space_id`` (global + its own; every skill when None)."""
    statement = select(SkillDefinition).where(SkillDefinition.status != "ARCHIVED")
    if space_id is not None:
        statement = statement.where(
            or_(SkillDefinition.space_id.is_(None), SkillDefinition.space_id == space_id)
        )
    if skill_filter is not None:
        if skill_filter.category is not None:
            statement = statement.where(SkillDefinition.category == skill_filter.category)
        for tag in skill_filter.tags:
            statement = statement.where(JsonArrayContains(SkillDefinition.tags, tag))
        if skill_filter.search:
            term = skill_filter.search
            statement = statement.where(
                or_(
                    SkillDefinition.name.icontains(term, autoescape=True),
                    SkillDefinition.label.icontains(term, autoescape=True),
                    SkillDefinition.description.icontains(term, autoescape=True),
                )
            )
    return statement


async def list_skills(
    session: AsyncSession, space_id: str | None, page: PageRequest, skill_filter: SkillFilter | None
) -> Page[SkillDefinition]:
    return await fetch_page(session, _statement(space_id, skill_filter), SkillDefinition.skill_id, page)


async def count_skills(
    session: AsyncSession, space_id: str | None, skill_filter: SkillFilter | None
) -> int:
    return await count(session, _statement(space_id, skill_filter))


async def get_skill(session: AsyncSession, skill_id: str) -> SkillDefinition | None:
    return await session.get(SkillDefinition, skill_id)


async def skills_by_ids(session: AsyncSession, skill_ids: Sequence[str]) -> list[SkillDefinition]:
    if not skill_ids:
        return []
    statement = select(SkillDefinition).where(SkillDefinition.skill_id.in_(skill_ids))
    return list((await session.scalars(statement)).all())


async def name_taken(
    session: AsyncSession, name: str, space_id: str | None, exclude_skill_id: str | None = None
) -> bool:
    """A non-archived skill named ``name`` is already visible where the new one would be."""
    statement = select(SkillDefinition.skill_id).where(
        SkillDefinition.name == name, SkillDefinition.status != "ARCHIVED"
    )
    if space_id is not None:
        statement = statement.where(
            or_(SkillDefinition.space_id.is_(None), SkillDefinition.space_id == space_id)
        )
    if exclude_skill_id is not None:
        statement = statement.where(SkillDefinition.skill_id != exclude_skill_id)
    return (await session.scalar(statement.limit(1))) is not None


async def versions_by_skill_ids(
    session: AsyncSession, skill_ids: Sequence[str]
) -> dict[str, list[SkillVersion]]:
    result: dict[str, list[SkillVersion]] = defaultdict(list)
    if not skill_ids:
        return result
    statement = (
        select(SkillVersion)
        .where(SkillVersion.skill_id.in_(skill_ids))
        .order_by(SkillVersion.skill_id, SkillVersion.created_at)
    )
    for version in (await session.scalars(statement)).all():
        result[version.skill_id].append(version)
    return result


async def get_version(session: AsyncSession, skill_id: str, version: str) -> SkillVersion | None:
    return await session.get(SkillVersion, (skill_id, version))


async def retire_channel(session: AsyncSession, skill_id: str, channel: str) -> None:
    await session.execute(
        update(SkillVersion)
        .where(SkillVersion.skill_id == skill_id, SkillVersion.channel == channel)
        .values(channel="RETIRED")
    )
