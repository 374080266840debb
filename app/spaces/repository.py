"""Every SQL statement about spaces and API keys."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy import Select, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.pagination import Page, PageRequest, count, fetch_page
from app.spaces.models import ApiKey, Space


class SpaceRecord(Protocol):
    """What a GraphQL ``Space`` is made from: a :class:`Space`, or a row of :data:`SPACE_COLUMNS`."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def is_system(self) -> bool: ...
    @property
    def created_at(self) -> datetime: ...


#: The columns of a :class:`SpaceRecord`, as Core columns (for statements run without the ORM).
SPACE_COLUMNS = tuple(
    Space.__table__.c[name] for name, value in vars(SpaceRecord).items() if isinstance(value, property)
)


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
    """The unrevoked key with this hash (expired or not: the caller decides)."""
    return await session.scalar(select(ApiKey).where(ApiKey.key_hash == key_hash, ApiKey.revoked_at.is_(None)))


async def get_any_api_key_by_hash(session: AsyncSession, key_hash: str) -> ApiKey | None:
    """The key with this hash, revoked or not."""
    return await session.scalar(select(ApiKey).where(ApiKey.key_hash == key_hash))


async def get_api_key(session: AsyncSession, key_id: str) -> ApiKey | None:
    return await session.get(ApiKey, key_id)


@dataclass(frozen=True)
class ApiKeyFilter:
    """``space_id``: one space's keys (None: every key, admin keys included); ``state``:
    ACTIVE, EXPIRED or REVOKED as of ``now`` (None: any)."""

    space_id: str | None = None
    state: str | None = None
    now: datetime | None = None


def _api_keys_statement(key_filter: ApiKeyFilter) -> Select[ApiKey]:
    statement = select(ApiKey)
    if key_filter.space_id is not None:
        statement = statement.where(ApiKey.space_id == key_filter.space_id)
    now = key_filter.now
    if key_filter.state == "REVOKED":
        statement = statement.where(ApiKey.revoked_at.is_not(None))
    elif key_filter.state == "EXPIRED" and now is not None:
        statement = statement.where(ApiKey.revoked_at.is_(None), ApiKey.expires_at <= now)
    elif key_filter.state == "ACTIVE" and now is not None:
        statement = statement.where(
            ApiKey.revoked_at.is_(None), or_(ApiKey.expires_at.is_(None), ApiKey.expires_at > now)
        )
    return statement


async def list_api_keys(session: AsyncSession, key_filter: ApiKeyFilter, page: PageRequest) -> Page[ApiKey]:
    return await fetch_page(session, _api_keys_statement(key_filter), ApiKey.id, page)


async def count_api_keys(session: AsyncSession, key_filter: ApiKeyFilter) -> int:
    return await count(session, _api_keys_statement(key_filter))


async def stamp_last_used(connection: AsyncConnection, key_id: str, now: datetime, stale_before: datetime) -> None:
    """Set a key's last use, unless another replica stamped it since ``stale_before``.

    On a connection, not an ORM session: the catalog change feed listens to sessions,
    and a last-use stamp is not a change that should drop every replica's caches.
    """
    await connection.execute(
        update(ApiKey)
        .where(ApiKey.id == key_id, or_(ApiKey.last_used_at.is_(None), ApiKey.last_used_at < stale_before))
        .values(last_used_at=now)
    )


async def any_api_key(session: AsyncSession) -> bool:
    return (await session.scalar(select(ApiKey.id).limit(1))) is not None
