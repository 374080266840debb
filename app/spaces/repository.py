"""Every SQL statement about spaces and API keys."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.pagination import Page, PageRequest, count, fetch_page
from app.spaces.models import ApiKey, Space


async def get_space(session: AsyncSession, space_id: str) -> Space | None:
    return await session.get(Space, space_id)


async def get_space_by_name(session: AsyncSession, name: str) -> Space | None:
    return await session.scalar(select(Space).where(Space.name == name))


async def spaces_by_ids(session: AsyncSession, space_ids: Sequence[str]) -> list[Space]:
    if not space_ids:
        return []
    return list((await session.scalars(select(Space).where(Space.id.in_(space_ids)))).all())


async def existing_space_ids(session: AsyncSession, space_ids: Sequence[str]) -> set[str]:
    if not space_ids:
        return set()
    rows = await session.scalars(select(Space.id).where(Space.id.in_(space_ids)))
    return set(rows.all())


def _spaces_statement(reach: str | None) -> Select[Space]:
    statement = select(Space)
    if reach is not None:
        statement = statement.where(Space.id == reach)
    return statement


async def list_spaces(session: AsyncSession, reach: str | None, page: PageRequest) -> Page[Space]:
    return await fetch_page(session, _spaces_statement(reach), Space.id, page)


async def count_spaces(session: AsyncSession, reach: str | None) -> int:
    return await count(session, _spaces_statement(reach))


async def get_api_key_by_hash(session: AsyncSession, key_hash: str) -> ApiKey | None:
    return await session.scalar(select(ApiKey).where(ApiKey.key_hash == key_hash, ApiKey.revoked_at.is_(None)))


async def get_api_key(session: AsyncSession, key_id: str) -> ApiKey | None:
    return await session.get(ApiKey, key_id)


async def any_api_key(session: AsyncSession) -> bool:
    return (await session.scalar(select(ApiKey.id).limit(1))) is not None
