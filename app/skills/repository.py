"""Every SQL statement about skills and their versions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import cast

from sqlalchemy import Select, Table, and_, exists, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import JsonArrayContains, sqlite_write_lock
from app.pagination import Page, PageRequest, count, fetch_page
from app.skills.models import SkillChannelEvent, SkillDefinition, SkillUsage, SkillVersion


@dataclass(frozen=True)
class SkillFilter:
    category: str | None = None
    tags: Sequence[str] = ()
    search: str | None = None


def _statement(space_id: str | None, skill_filter: SkillFilter | None) -> Select[SkillDefinition]:
    """Skills reachable from ``space_id`` (global + its own; every skill when None)."""
    statement = select(SkillDefinition).where(SkillDefinition.status != "ARCHIVED")
    if space_id is not None:
        statement = statement.where(or_(SkillDefinition.space_id.is_(None), SkillDefinition.space_id == space_id))
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


async def count_skills(session: AsyncSession, space_id: str | None, skill_filter: SkillFilter | None) -> int:
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
        statement = statement.where(or_(SkillDefinition.space_id.is_(None), SkillDefinition.space_id == space_id))
    if exclude_skill_id is not None:
        statement = statement.where(SkillDefinition.skill_id != exclude_skill_id)
    return (await session.scalar(statement.limit(1))) is not None


async def versions_by_skill_ids(session: AsyncSession, skill_ids: Sequence[str]) -> dict[str, list[SkillVersion]]:
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


async def get_skill_for_update(session: AsyncSession, skill_id: str) -> SkillDefinition | None:
    """The skill row, locked until the transaction ends (PostgreSQL: the row; SQLite: the database's
    write lock, taken before reading: without it two updateSkill calls read the same versions and
    both inserted the next one, an IntegrityError)."""
    if session.get_bind().dialect.name == "sqlite":
        await sqlite_write_lock(session)
    statement = select(SkillDefinition).where(SkillDefinition.skill_id == skill_id).with_for_update()
    return (await session.scalars(statement)).one_or_none()


async def versions_of(session: AsyncSession, skill_id: str) -> list[SkillVersion]:
    statement = select(SkillVersion).where(SkillVersion.skill_id == skill_id).order_by(SkillVersion.created_at)
    return list((await session.scalars(statement)).all())


async def set_channel(session: AsyncSession, skill_id: str, version: str, channel: str) -> None:
    await session.execute(
        update(SkillVersion)
        .where(SkillVersion.skill_id == skill_id, SkillVersion.version == version)
        .values(channel=channel)
        .execution_options(synchronize_session="fetch")
    )


async def add_version(session: AsyncSession, version: SkillVersion) -> None:
    session.add(version)
    await session.flush()


async def add_event(session: AsyncSession, event: SkillChannelEvent) -> None:
    session.add(event)
    await session.flush()


async def events_by_skill_ids(session: AsyncSession, skill_ids: Sequence[str]) -> dict[str, list[SkillChannelEvent]]:
    """Channel moves per skill, oldest first (ids are time-ordered)."""
    result: dict[str, list[SkillChannelEvent]] = defaultdict(list)
    if not skill_ids:
        return result
    statement = (
        select(SkillChannelEvent)
        .where(SkillChannelEvent.skill_id.in_(skill_ids))
        .order_by(SkillChannelEvent.skill_id, SkillChannelEvent.id)
    )
    for event in (await session.scalars(statement)).all():
        result[event.skill_id].append(event)
    return result


async def last_production_change(session: AsyncSession, skill_id: str) -> SkillChannelEvent | None:
    statement = (
        select(SkillChannelEvent)
        .where(SkillChannelEvent.skill_id == skill_id, SkillChannelEvent.channel == "PRODUCTION")
        .order_by(SkillChannelEvent.id.desc())
        .limit(1)
    )
    return (await session.scalars(statement)).one_or_none()


async def active_skills_visible_in(session: AsyncSession, space_id: str) -> list[SkillDefinition]:
    """ACTIVE skills a space sees: the global ones and its own."""
    statement = (
        select(SkillDefinition)
        .where(
            SkillDefinition.status == "ACTIVE",
            or_(SkillDefinition.space_id.is_(None), SkillDefinition.space_id == space_id),
        )
        .order_by(SkillDefinition.skill_id)
    )
    return list((await session.scalars(statement)).all())


@dataclass(frozen=True)
class UsageIncrement:
    skill_id: str
    version: str
    injected: int = 0
    matched: int = 0


async def add_usage(session: AsyncSession, increments: Sequence[UsageIncrement], at: datetime) -> None:
    """Add to the day's counters, one upsert per (skill, version): atomic under concurrent writers."""
    merged: dict[tuple[str, str], list[int]] = {}
    for increment in increments:
        counts = merged.setdefault((increment.skill_id, increment.version), [0, 0])
        counts[0] += increment.injected
        counts[1] += increment.matched
    if not merged:
        return
    insert = postgresql_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    table = cast(Table, SkillUsage.__table__)
    day = at.date()
    for (skill_id, version), (injected, matched) in sorted(merged.items()):
        statement = insert(table).values(
            skill_id=skill_id,
            version=version,
            day=day,
            injected_count=injected,
            matched_count=matched,
            last_injected_at=at if injected else None,
            last_matched_at=at if matched else None,
        )
        excluded = statement.excluded
        await session.execute(
            statement.on_conflict_do_update(
                index_elements=["skill_id", "version", "day"],
                set_={
                    "injected_count": table.c.injected_count + excluded.injected_count,
                    "matched_count": table.c.matched_count + excluded.matched_count,
                    "last_injected_at": func.coalesce(excluded.last_injected_at, table.c.last_injected_at),
                    "last_matched_at": func.coalesce(excluded.last_matched_at, table.c.last_matched_at),
                },
            )
        )


@dataclass(frozen=True)
class VersionUsage:
    version: str
    injected_count: int
    matched_count: int
    last_injected_at: datetime | None
    last_matched_at: datetime | None


async def usage_by_skill_ids(
    session: AsyncSession, skill_ids: Sequence[str], since: date | None
) -> dict[str, list[VersionUsage]]:
    """Usage per skill and version, summed over the days from ``since`` (every day when None)."""
    result: dict[str, list[VersionUsage]] = defaultdict(list)
    if not skill_ids:
        return result
    statement = (
        select(
            SkillUsage.skill_id,
            SkillUsage.version,
            func.sum(SkillUsage.injected_count),
            func.sum(SkillUsage.matched_count),
            func.max(SkillUsage.last_injected_at),
            func.max(SkillUsage.last_matched_at),
        )
        .where(SkillUsage.skill_id.in_(skill_ids))
        .group_by(SkillUsage.skill_id, SkillUsage.version)
        .order_by(SkillUsage.skill_id, SkillUsage.version)
    )
    if since is not None:
        statement = statement.where(SkillUsage.day >= since)
    for skill_id, version, injected, matched, last_injected, last_matched in (await session.execute(statement)).all():
        result[skill_id].append(
            VersionUsage(
                version=version,
                injected_count=int(injected or 0),
                matched_count=int(matched or 0),
                last_injected_at=last_injected,
                last_matched_at=last_matched,
            )
        )
    return result


def _unused_statement(space_id: str | None, since: datetime, include_matches: bool) -> Select[SkillDefinition]:
    used = SkillUsage.last_injected_at >= since
    if include_matches:
        used = or_(used, SkillUsage.last_matched_at >= since)
    statement = select(SkillDefinition).where(
        SkillDefinition.status != "ARCHIVED",
        ~exists().where(and_(SkillUsage.skill_id == SkillDefinition.skill_id, SkillUsage.day >= since.date(), used)),
    )
    if space_id is not None:
        statement = statement.where(or_(SkillDefinition.space_id.is_(None), SkillDefinition.space_id == space_id))
    return statement


async def list_unused_skills(
    session: AsyncSession, space_id: str | None, since: datetime, include_matches: bool, page: PageRequest
) -> Page[SkillDefinition]:
    statement = _unused_statement(space_id, since, include_matches)
    return await fetch_page(session, statement, SkillDefinition.skill_id, page)


async def count_unused_skills(
    session: AsyncSession, space_id: str | None, since: datetime, include_matches: bool
) -> int:
    return await count(session, _unused_statement(space_id, since, include_matches))


async def skill_named(session: AsyncSession, name: str, space_id: str | None) -> SkillDefinition | None:
    """The non-archived skill called ``name`` in exactly that scope (a space, or global for None)."""
    scope = SkillDefinition.space_id.is_(None) if space_id is None else SkillDefinition.space_id == space_id
    statement = select(SkillDefinition).where(SkillDefinition.name == name, SkillDefinition.status != "ARCHIVED", scope)
    return (await session.scalars(statement.limit(1))).one_or_none()
