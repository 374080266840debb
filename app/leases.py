"""Leases on work a replica executes (agent runs, pipeline runs): the statements shared by
every table that holds one.

Such a table has ``id``, ``status`` (RUNNING while under way), ``owner_id`` (the replica
executing it), ``lease_expires_at`` (renewed by the owner's heartbeat) and ``takeovers``. A
RUNNING row whose lease ran out (or that never had one) lost its replica: another one takes
it over.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

RUNNING = "RUNNING"


def rowcount(result: Any) -> int:
    return int(result.rowcount or 0)


def _orphaned(model: Any, now: datetime) -> Any:
    return or_(model.lease_expires_at.is_(None), model.lease_expires_at < now)


async def renew_leases(session: AsyncSession, model: Any, ids: Sequence[str], owner_id: str, until: datetime) -> int:
    """Extend this replica's leases on the rows it executes; returns how many it still holds."""
    if not ids:
        return 0
    result = await session.execute(
        update(model)
        .where(model.id.in_(ids), model.owner_id == owner_id, model.status == RUNNING)
        .values(lease_expires_at=until)
    )
    return rowcount(result)


async def orphaned_ids(session: AsyncSession, model: Any, now: datetime, limit: int) -> list[str]:
    """RUNNING rows whose lease ran out (or that never had one), the longest orphaned first."""
    statement = (
        select(model.id)
        .where(model.status == RUNNING, _orphaned(model, now))
        .order_by(model.lease_expires_at)
        .limit(limit)
    )
    return list((await session.scalars(statement)).all())


async def take_over(
    session: AsyncSession, model: Any, row_id: str, owner_id: str, now: datetime, until: datetime
) -> bool:
    """Become the owner of an orphaned row; False when someone else was quicker or it recovered."""
    result = await session.execute(
        update(model)
        .where(model.id == row_id, model.status == RUNNING, _orphaned(model, now))
        .values(owner_id=owner_id, lease_expires_at=until, takeovers=model.takeovers + 1)
    )
    return rowcount(result) == 1
