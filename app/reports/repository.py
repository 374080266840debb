"""Every SQL statement of the health report: aggregates over the call log and the runs.

The call log is read through one index per backend (migration 0010): on SQLite an
expression index whose order is the GROUP BY's (space, UTC day, tool, status, code), so
SQLite streams the groups instead of sorting the rows, and one on (space, UTC day,
latency) from which each day's slowest calls are read in order; on PostgreSQL a covering
index on (space, start) read by hash aggregates and ``percentile_cont``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, TextClause, and_, bindparam, func, literal_column, or_, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import UtcDateTime
from app.gateway.models import ToolCall
from app.gateway.repository import PENDING_APPROVAL
from app.reports.models import CallRollup, LatencyRollup, RunRollup
from app.reports.rollup import bucket_sql
from app.runtime.models import AgentRun
from app.skills.models import SkillDefinition
from app.tools.models import ToolDefinition
from app.tools.visibility import tool_visible_in_space

PERCENTILE = 0.95


@dataclass(frozen=True)
class CallGroup:
    day: date
    tool_id: str
    status: str
    error_code: str | None
    calls: int


def _dialect(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


def _day(dialect: str) -> ColumnElement[Any]:
    """The call's UTC day. On SQLite literally the indexed expression (it stores
    ``YYYY-MM-DD HH:MM:SS.ffffff`` in UTC), so that the index serves the query."""
    if dialect == "sqlite":
        return literal_column("substr(tool_call.started_at, 1, 10)")
    return func.date(func.timezone("UTC", ToolCall.started_at))


def _as_date(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def window_conditions(
    dialect: str, space_id: str | None, since: datetime, until: datetime
) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = [
        ToolCall.started_at >= since,
        ToolCall.started_at < until,
        ToolCall.status != PENDING_APPROVAL,
    ]
    if space_id is not None:
        conditions.append(ToolCall.space_id == space_id)
    if dialect == "sqlite":
        # The same bounds on the indexed expression: the index is entered at the first day.
        day = _day(dialect)
        conditions += [day >= since.date().isoformat(), day <= until.date().isoformat()]
    return conditions


async def call_groups(session: AsyncSession, space_id: str | None, since: datetime, until: datetime) -> list[CallGroup]:
    """Calls per UTC day, tool, status and error code (calls waiting for approval left out)."""
    dialect = _dialect(session)
    day = _day(dialect)
    keys: list[Any] = [day, ToolCall.tool_id, ToolCall.status, ToolCall.error_code]
    statement = select(*keys, func.count()).where(*window_conditions(dialect, space_id, since, until))
    # The index's order (the space fixed): SQLite aggregates as it reads, without sorting.
    rows = await session.execute(statement.group_by(*keys))
    return [CallGroup(_as_date(row[0]), row[1], row[2], row[3], int(row[4])) for row in rows.all()]


def _timed(statement: TextClause) -> TextClause:
    """``:since`` and ``:until`` bound as the columns store them (SQLite compares the text)."""
    return statement.bindparams(bindparam("since", type_=UtcDateTime()), bindparam("until", type_=UtcDateTime()))


def _midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def week_start(day: date) -> date:
    """The Monday of ``day``'s ISO week."""
    return day - timedelta(days=day.weekday())


async def weekly_p95(
    session: AsyncSession,
    space_id: str | None,
    since: datetime,
    until: datetime,
    calls_per_day: dict[date, int],
) -> dict[date, float]:
    """The 95th percentile of call latency per ISO week (Monday), interpolated like
    PostgreSQL's ``percentile_cont``: between the values at ranks floor(0.95 (n-1)) and the next."""
    dialect = _dialect(session)
    if dialect == "postgresql":
        week = func.date_trunc("week", func.timezone("UTC", ToolCall.started_at))
        statement = (
            select(week, func.percentile_cont(PERCENTILE).within_group(ToolCall.latency_ms))
            .where(*window_conditions(dialect, space_id, since, until))
            .group_by(week)
        )
        rows = await session.execute(statement)
        return {_as_date(row[0].date() if isinstance(row[0], datetime) else row[0]): float(row[1]) for row in rows}
    weeks: dict[date, list[date]] = {}
    for day in sorted(calls_per_day):
        weeks.setdefault(week_start(day), []).append(day)
    result: dict[date, float] = {}
    for monday, days in weeks.items():
        result[monday] = await _sqlite_week_p95(session, space_id, since, until, days, calls_per_day)
    return result


async def _sqlite_week_p95(
    session: AsyncSession,
    space_id: str | None,
    since: datetime,
    until: datetime,
    days: list[date],
    calls_per_day: dict[date, int],
) -> float:
    """Exact, and bounded: the rank sought lies among the week's ``above`` slowest calls, and
    those are among the ``above`` slowest of each of its days, which the (space, day,
    latency) index yields in order; only that many rows per day are read and sorted."""
    count = sum(calls_per_day[day] for day in days)
    position = PERCENTILE * (count - 1)
    low_rank = int(position)
    # Ranks low_rank and low_rank + 1 (ascending) are the first two of the slowest `above`.
    above = count - low_rank
    fraction = position - low_rank
    parameters: dict[str, Any] = {"since": since, "until": until, "above": above, "offset": max(above - 2, 0)}
    status_test = f"status != '{PENDING_APPROVAL}'"
    parts: list[str] = []
    if space_id is None:
        # No index leads with the day: one bounded sort over the week's rows.
        parts.append(
            "SELECT * FROM (SELECT latency_ms FROM tool_call WHERE started_at >= :since AND started_at < :until "
            f"AND {status_test} ORDER BY latency_ms DESC LIMIT :above)"
        )
        parameters.update(
            since=max(since, _midnight(days[0])), until=min(until, _midnight(days[-1] + timedelta(days=1)))
        )
    for index, day in enumerate(days if space_id is not None else []):
        parameters[f"day{index}"] = day.isoformat()
        parts.append(
            "SELECT * FROM (SELECT latency_ms FROM tool_call WHERE space_id = :space AND "
            f"substr(tool_call.started_at, 1, 10) = :day{index} AND started_at >= :since AND started_at < :until "
            f"AND {status_test} ORDER BY latency_ms DESC LIMIT :above)"
        )
    if space_id is not None:
        parameters["space"] = space_id
    statement = text(
        "SELECT latency_ms FROM (" + " UNION ALL ".join(parts) + ") ORDER BY latency_ms DESC LIMIT 2 OFFSET :offset"
    )
    values = [float(value) for value in (await session.execute(_timed(statement), parameters)).scalars().all()]
    # Descending: [rank low + 1, rank low], or just [rank low] when it is the slowest.
    if len(values) == 1 or above == 1:
        return values[-1]
    high, low = values[0], values[1]
    return low + (high - low) * fraction


async def run_groups(
    session: AsyncSession, space_id: str | None, since: datetime, until: datetime
) -> list[tuple[list[dict[str, Any]], str, int]]:
    """Runs started in the window per (skill versions served, status): one pass over the
    runs, whose few distinct skill sets are then unpacked by the caller."""
    statement = select(AgentRun.skill_versions, AgentRun.status, func.count()).where(
        AgentRun.started_at >= since, AgentRun.started_at < until
    )
    if space_id is not None:
        statement = statement.where(AgentRun.space_id == space_id)
    rows = await session.execute(statement.group_by(AgentRun.skill_versions, AgentRun.status))
    return [(list(served or []), str(status), int(runs)) for served, status, runs in rows.all()]


async def active_tool_ids(session: AsyncSession, space_id: str | None) -> list[str]:
    """ACTIVE tools visible in the space (every ACTIVE tool for None), by id."""
    statement = select(ToolDefinition.tool_id)
    if space_id is not None:
        statement = statement.where(tool_visible_in_space(space_id))
    else:
        statement = statement.where(ToolDefinition.status == "ACTIVE")
    return list((await session.scalars(statement.order_by(ToolDefinition.tool_id))).all())


async def active_skill_ids(session: AsyncSession, space_id: str | None) -> list[str]:
    """ACTIVE skills the space sees: global ones and its own (every ACTIVE skill for None)."""
    statement = select(SkillDefinition.skill_id).where(SkillDefinition.status == "ACTIVE")
    if space_id is not None:
        statement = statement.where(or_(SkillDefinition.space_id.is_(None), SkillDefinition.space_id == space_id))
    return list((await session.scalars(statement.order_by(SkillDefinition.skill_id))).all())


# ---------------------------------------------------------------- the rollups (app.reports.rollup)


def _week_of_period(dialect: str, table: str) -> ColumnElement[Any]:
    """The Monday (UTC) of a rollup row's period."""
    if dialect == "sqlite":
        return literal_column(f"date(substr({table}.period_start, 1, 10), '-6 days', 'weekday 1')")
    return literal_column(f"date(date_trunc('week', {table}.period_start AT TIME ZONE 'UTC'))")


def _periods(table: Any, scope: str, grain: str, ranges: list[tuple[datetime, datetime]]) -> list[ColumnElement[bool]]:
    columns = table.__table__.c
    return [
        columns.space_id == scope,
        columns.grain == grain,
        or_(*(and_(columns.period_start >= start, columns.period_start < end) for start, end in ranges)),
    ]


async def rollup_call_groups(
    session: AsyncSession, scope: str, grain: str, ranges: list[tuple[datetime, datetime]]
) -> list[tuple[date, str, str, str | None, int]]:
    """(week, tool, status, code, calls) of the rollup rows of ``scope`` (a space, or ALL_SPACES) in ``ranges``."""
    week = _week_of_period(_dialect(session), CallRollup.__tablename__)
    keys: list[Any] = [week, CallRollup.tool_id, CallRollup.status, CallRollup.error_code]
    statement = (
        select(*keys, func.sum(CallRollup.calls)).where(*_periods(CallRollup, scope, grain, ranges)).group_by(*keys)
    )
    return [
        (_as_date(row[0]), row[1], row[2], row[3] or None, int(row[4])) for row in (await session.execute(statement))
    ]


async def rollup_latency(
    session: AsyncSession, scope: str, grain: str, ranges: list[tuple[datetime, datetime]]
) -> list[tuple[date, int, int]]:
    """(week, latency bucket, calls) of the rollup rows of ``scope`` in ``ranges``."""
    week = _week_of_period(_dialect(session), LatencyRollup.__tablename__)
    statement = (
        select(week, LatencyRollup.bucket, func.sum(LatencyRollup.calls))
        .where(*_periods(LatencyRollup, scope, grain, ranges))
        .group_by(week, LatencyRollup.bucket)
    )
    return [(_as_date(row[0]), int(row[1]), int(row[2])) for row in (await session.execute(statement))]


async def rollup_runs(
    session: AsyncSession, scope: str, grain: str, ranges: list[tuple[datetime, datetime]]
) -> list[tuple[str, str, str, str, int]]:
    """(skill, version, channel, status, runs) of the rollup rows of ``scope`` in ``ranges``;
    skill '' counts every run."""
    keys: list[Any] = [RunRollup.skill_id, RunRollup.version, RunRollup.channel, RunRollup.status]
    statement = (
        select(*keys, func.sum(RunRollup.runs)).where(*_periods(RunRollup, scope, grain, ranges)).group_by(*keys)
    )
    return [(row[0], row[1], row[2], row[3], int(row[4])) for row in (await session.execute(statement))]


async def raw_latency(
    session: AsyncSession, space_id: str | None, since: datetime, until: datetime
) -> list[tuple[date, int, int]]:
    """(UTC day, latency bucket, calls) of the raw calls in [since, until)."""
    dialect = _dialect(session)
    day = _day(dialect)
    bucket = bucket_sql(ToolCall.latency_ms)
    statement = (
        select(day, bucket, func.count())
        .where(*window_conditions(dialect, space_id, since, until))
        .group_by(day, bucket)
    )
    return [(_as_date(row[0]), int(row[1]), int(row[2])) for row in (await session.execute(statement))]
