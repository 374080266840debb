"""Every SQL statement of the gateway: the call log and idempotency records."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.gateway.models import IdempotencyRecord, ToolCall
from app.pagination import Page, PageRequest, count, fetch_page

# A call an agent proposed that waits for a person's decision: it has not run (yet).
PENDING_APPROVAL = "PENDING_APPROVAL"


@dataclass(frozen=True)
class CallFilter:
    space_ids: Sequence[str] | None = None  # None: every space (admins)
    space_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    tool_id: str | None = None
    status: str | None = None
    since: datetime | None = None
    origin: str | None = None


def _statement(call_filter: CallFilter) -> Select[ToolCall]:
    statement = select(ToolCall)
    if call_filter.space_ids is not None:
        statement = statement.where(ToolCall.space_id.in_(call_filter.space_ids))
    if call_filter.space_id is not None:
        statement = statement.where(ToolCall.space_id == call_filter.space_id)
    if call_filter.agent_id is not None:
        statement = statement.where(ToolCall.agent_id == call_filter.agent_id)
    if call_filter.run_id is not None:
        statement = statement.where(ToolCall.run_id == call_filter.run_id)
    if call_filter.tool_id is not None:
        statement = statement.where(ToolCall.tool_id == call_filter.tool_id)
    if call_filter.status is not None:
        statement = statement.where(ToolCall.status == call_filter.status)
    if call_filter.since is not None:
        statement = statement.where(ToolCall.started_at >= call_filter.since)
    if call_filter.origin is not None:
        statement = statement.where(ToolCall.origin == call_filter.origin)
    return statement


async def list_calls(session: AsyncSession, call_filter: CallFilter, page: PageRequest) -> Page[ToolCall]:
    return await fetch_page(session, _statement(call_filter), ToolCall.id, page)


async def count_calls(session: AsyncSession, call_filter: CallFilter) -> int:
    return await count(session, _statement(call_filter))


async def calls_by_ids(session: AsyncSession, call_ids: Sequence[str]) -> list[ToolCall]:
    if not call_ids:
        return []
    return list((await session.scalars(select(ToolCall).where(ToolCall.id.in_(call_ids)))).all())


async def calls_by_run_ids(session: AsyncSession, run_ids: Sequence[str]) -> dict[str, list[ToolCall]]:
    """The calls of each run, in call order."""
    result: dict[str, list[ToolCall]] = {}
    if not run_ids:
        return result
    statement = select(ToolCall).where(ToolCall.run_id.in_(run_ids)).order_by(ToolCall.id)
    for call in (await session.scalars(statement)).all():
        result.setdefault(call.run_id or "", []).append(call)
    return result


# On the table, not the entity: a plain Core INSERT, built once (app.gateway.call_log runs it).
INSERT_CALL = insert(ToolCall.__table__)  # type: ignore[arg-type]  # __table__ is typed as FromClause


async def replace_call(session: AsyncSession, row: dict[str, Any]) -> None:
    """Write a call's outcome over its placeholder row (a call that waited for approval)."""
    values = {key: value for key, value in row.items() if key != "id"}
    await session.execute(update(ToolCall).where(ToolCall.id == row["id"]).values(**values))


async def get_call(session: AsyncSession, call_id: str) -> ToolCall | None:
    return await session.get(ToolCall, call_id)


async def stats_rows(
    session: AsyncSession, tool_ids: Sequence[str], since: datetime | None, space_ids: Sequence[str] | None
) -> list[tuple[str, str, str | None, float, datetime]]:
    """(tool_id, status, error_code, latency_ms, started_at) of the matching calls."""
    statement = select(
        ToolCall.tool_id, ToolCall.status, ToolCall.error_code, ToolCall.latency_ms, ToolCall.started_at
    ).where(ToolCall.tool_id.in_(tool_ids), ToolCall.status != PENDING_APPROVAL)
    if since is not None:
        statement = statement.where(ToolCall.started_at >= since)
    if space_ids is not None:
        statement = statement.where(ToolCall.space_id.in_(space_ids))
    return [tuple(row) for row in (await session.execute(statement)).all()]  # type: ignore[misc]


# ---------------------------------------------------------------- idempotency


async def get_idempotency_record(session: AsyncSession, space_id: str, key: str) -> IdempotencyRecord | None:
    statement = (
        select(IdempotencyRecord)
        .where(IdempotencyRecord.space_id == space_id, IdempotencyRecord.key == key)
        .execution_options(populate_existing=True)
    )
    return await session.scalar(statement)


async def complete_idempotency_key(session: AsyncSession, space_id: str, key: str, envelope: dict[str, Any]) -> None:
    await session.execute(
        update(IdempotencyRecord)
        .where(IdempotencyRecord.space_id == space_id, IdempotencyRecord.key == key)
        .values(state="DONE", envelope=envelope)
    )


async def release_idempotency_key(session: AsyncSession, space_id: str, key: str) -> None:
    await session.execute(
        delete(IdempotencyRecord).where(IdempotencyRecord.space_id == space_id, IdempotencyRecord.key == key)
    )


async def take_over_idempotency_key(
    session: AsyncSession, space_id: str, key: str, stale_before: datetime, now: datetime
) -> bool:
    """Take a PENDING key whose owner went away (created before ``stale_before``)."""
    result = await session.execute(
        update(IdempotencyRecord)
        .where(
            IdempotencyRecord.space_id == space_id,
            IdempotencyRecord.key == key,
            IdempotencyRecord.state == "PENDING",
            IdempotencyRecord.created_at < stale_before,
        )
        .values(created_at=now)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


async def purge_expired_idempotency_keys(session: AsyncSession, now: datetime) -> None:
    await session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.expires_at < now))
