"""Keyset pagination shared by every repository: order by primary key, fetch one extra."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

T = TypeVar("T")


@dataclass(frozen=True)
class PageRequest:
    first: int
    after: str | None = None


@dataclass
class Page(Generic[T]):
    items: list[T]
    has_next_page: bool
    has_previous_page: bool


async def fetch_page(
    session: AsyncSession,
    statement: Select[Any],
    key: InstrumentedAttribute[str],
    page: PageRequest,
) -> Page[Any]:
    """Run ``statement`` as one keyset page ordered by ``key``."""
    if page.after is not None:
        statement = statement.where(key > page.after)
    rows: Sequence[Any] = (await session.scalars(statement.order_by(key).limit(page.first + 1))).all()
    return Page(
        items=list(rows[: page.first]),
        has_next_page=len(rows) > page.first,
        has_previous_page=page.after is not None,
    )


async def count(session: AsyncSession, statement: Select[Any]) -> int:
    """Total rows the (unpaginated) statement would return."""
    subquery = statement.order_by(None).subquery()
    return int(await session.scalar(select(func.count()).select_from(subquery)) or 0)
