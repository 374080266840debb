"""The health report's rollups: how they are built (``catch_up``) and which rows of a window
they answer for (``plan``).

**Built by an idempotent catch-up, not on write.** The call log is written by group commit
straight on the driver (``app.gateway.call_log``), and runs finish in the runtime, below this
package; neither touches the rollups. ``catch_up`` aggregates *closed* hours from the raw
rows instead: an hour is closed once it ended ``GRACE`` ago (a call's row is written when it
finishes, with ``started_at`` its start: at most 600 s times 6 attempts later) and every run
started in it has finished (an unfinished run still changes its status). Each closed hour is
aggregated once, in one transaction with the move of the frontier, so the rows of an hour
are immutable once written; an hour that is not closed because of an unfinished run is kept
as *open* and tried again by every catch-up. The server runs a catch-up every
``QUIVER_REPORT_ROLLUP_INTERVAL_S`` (60 s), ``quiver report`` runs one before it reports, and
after an upgrade the first one backfills the existing rows (a day per transaction).

**A report is always exact about what it counts**, whatever the state of the rollups: the
hours the rollups hold are read from them (whole UTC days from the day rows, other whole
hours from the hour rows), everything else — the partial hours at the window's edges, the
hours since the frontier, the open hours — from the raw rows. Calls waiting for approval are
not counted either way (their row is rewritten with a new ``started_at`` when decided).

**p95 latency** comes from a histogram of fixed, logarithmic buckets whenever a rollup is
read: a bucket spans a factor ``GAMMA`` = 1.02 and stands for the value ``2 u / (1 + GAMMA)``
(``u`` its upper bound), within ``RELATIVE_ERROR`` (0.99 %) of every latency in it; the
interpolated p95 is thus within 0.99 % of the exact one (values up to ``MIN_MS`` = 0.01 ms
within 0.005 ms). A window read entirely from raw rows keeps the exact figure.

The call log is never pruned; if rows were deleted, the hours they were in would have to be
rolled up again (``rebuild``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Integer, case, cast, delete, func, insert, literal, literal_column, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import utcnow
from app.gateway.models import ToolCall
from app.gateway.repository import PENDING_APPROVAL
from app.reports.models import ALL_SPACES, DAY, HOUR, CallRollup, LatencyRollup, OpenHour, RollupState, RunRollup
from app.runtime.models import AgentRun
from app.runtime.repository import RUNNING, WAITING_APPROVAL

logger = logging.getLogger(__name__)

#: An hour is rolled up once it ended this long ago: longer than any call takes to be logged.
GRACE = timedelta(hours=2)
#: Hours rolled up per transaction (short: on SQLite the call log waits for its write lock meanwhile).
CHUNK = timedelta(days=1)
#: Run statuses that may still change.
UNFINISHED = ("QUEUED", RUNNING, WAITING_APPROVAL)
#: The latency histogram: bucket 0 holds latencies <= 0, bucket 1 those up to MIN_MS, bucket
#: i >= 2 those in (MIN_MS GAMMA^(i-2), MIN_MS GAMMA^(i-1)].
GAMMA = 1.02
MIN_MS = 0.01
RELATIVE_ERROR = (GAMMA - 1) / (GAMMA + 1)
HOUR_SPAN = timedelta(hours=1)
DAY_SPAN = timedelta(days=1)
STATE_ID = 1


def hour_floor(moment: datetime) -> datetime:
    moment = moment.astimezone(UTC)
    return moment.replace(minute=0, second=0, microsecond=0)


def hour_ceil(moment: datetime) -> datetime:
    floor = hour_floor(moment)
    return floor if floor == moment else floor + HOUR_SPAN


def day_floor(moment: datetime) -> datetime:
    return hour_floor(moment).replace(hour=0)


# ---------------------------------------------------------------- the latency histogram


def bucket_of(latency_ms: float) -> int:
    """The bucket of one latency, as ``bucket_sql`` computes it in the database."""
    if latency_ms <= 0:
        return 0
    if latency_ms <= MIN_MS:
        return 1
    return math.ceil(math.log(latency_ms / MIN_MS) / math.log(GAMMA)) + 1


def bucket_value(bucket: int) -> float:
    """The latency a bucket stands for: within RELATIVE_ERROR of any latency in it."""
    if bucket <= 0:
        return 0.0
    if bucket == 1:
        return MIN_MS / 2
    upper = MIN_MS * GAMMA ** (bucket - 1)
    return 2 * upper / (1 + GAMMA)


def bucket_sql(latency: Any) -> ColumnElement[int]:
    """``bucket_of`` in SQL (``ln`` and ``ceil``: PostgreSQL, SQLite's math functions). The
    constants are inlined: the expression is grouped by, and PostgreSQL matches it by its text."""
    minimum: ColumnElement[float] = literal_column(repr(MIN_MS))
    scaled = func.ceil(func.ln(latency / minimum) / literal_column(repr(math.log(GAMMA))))
    zero: ColumnElement[int] = literal_column("0")
    one: ColumnElement[int] = literal_column("1")
    return case((latency <= zero, zero), (latency <= minimum, one), else_=cast(scaled, Integer) + one)


def percentile_of(histogram: dict[int, int], fraction: float) -> float:
    """``percentile_cont(fraction)`` of the latencies a histogram holds, each taken as its bucket's value."""
    count = sum(histogram.values())
    position = fraction * (count - 1)
    low_rank = int(position)
    values: list[float] = []
    seen = 0
    for bucket in sorted(histogram):
        seen += histogram[bucket]
        while len(values) < 2 and seen > low_rank + len(values):
            values.append(bucket_value(bucket))
        if len(values) == 2:
            break
    if len(values) == 1:
        return values[0]
    return values[0] + (values[1] - values[0]) * (position - low_rank)


# ---------------------------------------------------------------- which rows answer for a window


@dataclass
class Plan:
    """A window split by source: whole days from day rows, whole hours from hour rows, the rest raw."""

    days: list[tuple[datetime, datetime]] = field(default_factory=list)
    hours: list[tuple[datetime, datetime]] = field(default_factory=list)
    raw: list[tuple[datetime, datetime]] = field(default_factory=list)

    @property
    def uses_rollups(self) -> bool:
        return bool(self.days or self.hours)


def _append(ranges: list[tuple[datetime, datetime]], start: datetime, end: datetime) -> None:
    if start >= end:
        return
    if ranges and ranges[-1][1] == start:
        ranges[-1] = (ranges[-1][0], end)
    else:
        ranges.append((start, end))


def plan(since: datetime, until: datetime, frontier: datetime | None, open_hours: Iterable[datetime]) -> Plan:
    """Which source answers for each part of [since, until), given the rollups' state."""
    result = Plan()
    first, last = hour_ceil(since), hour_floor(until)
    if frontier is not None:
        last = min(last, frontier)
    if frontier is None or first >= last:
        _append(result.raw, since, until)
        return result
    opened = {hour_floor(hour) for hour in open_hours}
    open_days = {day_floor(hour) for hour in opened}
    _append(result.raw, since, first)
    hour = first
    while hour < last:
        day = day_floor(hour)
        if day == hour and day + DAY_SPAN <= last and day not in open_days:
            _append(result.days, day, day + DAY_SPAN)
            hour = day + DAY_SPAN
            continue
        _append(result.raw if hour in opened else result.hours, hour, hour + HOUR_SPAN)
        hour += HOUR_SPAN
    _append(result.raw, last, until)
    return result


async def state(session: AsyncSession) -> tuple[datetime | None, list[datetime]]:
    """The frontier and the open hours (None: nothing rolled up yet)."""
    frontier = await session.scalar(select(RollupState.frontier).where(RollupState.id == STATE_ID))
    if frontier is None:
        return None, []
    return frontier, list((await session.scalars(select(OpenHour.hour_start))).all())


# ---------------------------------------------------------------- building the rollups


def _dialect(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


def _truncated(dialect: str, column: str, unit: str) -> ColumnElement[Any]:
    """``column`` cut to its UTC hour or day, as the column stores it."""
    if dialect == "sqlite":
        if unit == "hour":
            return literal_column(f"substr({column}, 1, 13) || ':00:00.000000'")
        return literal_column(f"substr({column}, 1, 10) || ' 00:00:00.000000'")
    return literal_column(f"date_trunc('{unit}', {column} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'")


def _bound(value: datetime) -> Any:
    return literal(value, CallRollup.period_start.type)


async def _roll_hours(session: AsyncSession, start: datetime, end: datetime) -> None:
    """Hour rows of [start, end) (whole hours), per space and for every space."""
    dialect = _dialect(session)
    hour = _truncated(dialect, "tool_call.started_at", "hour")
    window = (
        ToolCall.started_at >= _bound(start),
        ToolCall.started_at < _bound(end),
        ToolCall.status != PENDING_APPROVAL,
    )
    code = func.coalesce(ToolCall.error_code, "")
    bucket = bucket_sql(ToolCall.latency_ms)
    # Each space's rows, then the every-space rows (grouped without the space).
    scopes: list[tuple[Any, list[Any]]] = [
        (ToolCall.space_id, [ToolCall.space_id]),
        (literal(ALL_SPACES), []),
    ]
    for space, by_space in scopes:
        grouped: list[Any] = [hour, ToolCall.tool_id, ToolCall.status, code]
        calls = select(space, literal(HOUR), *grouped, func.count()).where(*window).group_by(*by_space, *grouped)
        await session.execute(
            insert(CallRollup).from_select(
                ["space_id", "grain", "period_start", "tool_id", "status", "error_code", "calls"], calls
            )
        )
        latency = select(space, literal(HOUR), hour, bucket, func.count()).where(*window)
        await session.execute(
            insert(LatencyRollup).from_select(
                ["space_id", "grain", "period_start", "bucket", "calls"], latency.group_by(*by_space, hour, bucket)
            )
        )
    # Runs: their few distinct skill sets per hour and status, unpacked here.
    run_hour = _truncated(dialect, "agent_run.started_at", "hour")
    statement = (
        select(AgentRun.space_id, run_hour, AgentRun.skill_versions, AgentRun.status, func.count())
        .where(AgentRun.started_at >= _bound(start), AgentRun.started_at < _bound(end))
        .group_by(AgentRun.space_id, run_hour, AgentRun.skill_versions, AgentRun.status)
    )
    runs: dict[tuple[str, Any, str, str, str, str], int] = defaultdict(int)
    for space_id, period, served, status, count in (await session.execute(statement)).all():
        keys = [("", "", "")] + [
            (str(item.get("skillId"))[:200], str(item.get("version"))[:200], str(item.get("channel") or "")[:32])
            for item in served or []
        ]
        for skill_id, version, channel in keys:
            for scope in (space_id, ALL_SPACES):
                runs[(scope, period, skill_id, version, channel, str(status)[:16])] += int(count)
    if runs:
        await session.execute(
            insert(RunRollup),
            [
                {
                    "space_id": scope,
                    "grain": HOUR,
                    "period_start": _as_datetime(period),
                    "skill_id": skill_id,
                    "version": version,
                    "channel": channel,
                    "status": status,
                    "runs": count,
                }
                for (scope, period, skill_id, version, channel, status), count in runs.items()
            ],
        )


def _as_datetime(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return datetime.fromisoformat(str(value)).replace(tzinfo=UTC)


async def _roll_day(session: AsyncSession, day: datetime) -> None:
    """A day's rows: the sums of its hour rows."""
    dialect = _dialect(session)
    for table, keys, total in (
        (CallRollup, ("tool_id", "status", "error_code"), "calls"),
        (LatencyRollup, ("bucket",), "calls"),
        (RunRollup, ("skill_id", "version", "channel", "status"), "runs"),
    ):
        columns = table.__table__.c
        period = _truncated(dialect, f"{table.__tablename__}.period_start", "day")
        grouped = [columns.space_id, *(columns[key] for key in keys)]
        statement = (
            select(columns.space_id, literal(DAY), period, *(columns[key] for key in keys), func.sum(columns[total]))
            .where(
                columns.grain == HOUR,
                columns.period_start >= _bound(day),
                columns.period_start < _bound(day + DAY_SPAN),
            )
            .group_by(*grouped, period)
        )
        await session.execute(insert(table).from_select(["space_id", "grain", "period_start", *keys, total], statement))


def _hours(start: datetime, end: datetime) -> list[datetime]:
    hours, hour = [], start
    while hour < end:
        hours.append(hour)
        hour += HOUR_SPAN
    return hours


async def _first_hour(session: AsyncSession) -> datetime | None:
    firsts = [
        await session.scalar(select(func.min(ToolCall.started_at))),
        await session.scalar(select(func.min(AgentRun.started_at))),
    ]
    known = [_as_datetime(first) for first in firsts if first is not None]
    return hour_floor(min(known)) if known else None


async def _locked_frontier(session: AsyncSession, now: datetime) -> datetime | None:
    """Takes the state row (created if missing) for this transaction: one catch-up at a time."""
    dialect = _dialect(session)
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as upsert
    else:
        from sqlalchemy.dialects.sqlite import insert as upsert  # type: ignore[assignment]
    await session.execute(
        upsert(RollupState).values(id=STATE_ID, frontier=None, updated_at=now).on_conflict_do_nothing()
    )
    # The write lock (a row lock on PostgreSQL, the database's on SQLite) before the frontier is read.
    await session.execute(update(RollupState).where(RollupState.id == STATE_ID).values(updated_at=now))
    frontier = await session.scalar(select(RollupState.frontier).where(RollupState.id == STATE_ID))
    return frontier


async def _catch_up_once(session: AsyncSession, now: datetime) -> bool:
    """One chunk; True when there is more to do."""
    target = hour_floor(now - GRACE)
    frontier = await _locked_frontier(session, now)
    if frontier is None:
        frontier = await _first_hour(session)
        if frontier is None:
            # Nothing logged yet: every hour before the target is (trivially) rolled up.
            await session.execute(update(RollupState).where(RollupState.id == STATE_ID).values(frontier=target))
            return False
    frontier = _as_datetime(frontier)
    end = max(frontier, min(target, frontier + CHUNK))
    previously_open = {_as_datetime(hour) for hour in (await session.scalars(select(OpenHour.hour_start))).all()}
    if end == frontier and not previously_open:
        return False
    unfinished_starts = (
        await session.scalars(
            select(AgentRun.started_at).where(AgentRun.status.in_(UNFINISHED), AgentRun.started_at < _bound(end))
        )
    ).all()
    unfinished = {hour_floor(_as_datetime(started)) for started in unfinished_starts}
    new_hours = _hours(frontier, end)
    to_roll = [hour for hour in sorted(previously_open) if hour not in unfinished]
    to_roll += [hour for hour in new_hours if hour not in unfinished]
    still_open = (previously_open & unfinished) | {hour for hour in new_hours if hour in unfinished}
    ranges: list[tuple[datetime, datetime]] = []
    for hour in sorted(to_roll):
        _append(ranges, hour, hour + HOUR_SPAN)
    for start, stop in ranges:
        await _roll_hours(session, start, stop)
    resolved = previously_open - still_open
    if resolved:
        await session.execute(delete(OpenHour).where(OpenHour.hour_start.in_([_bound(h) for h in resolved])))
    added = still_open - previously_open
    if added:
        await session.execute(insert(OpenHour), [{"hour_start": hour} for hour in sorted(added)])
    # Days complete now: those the frontier passed the end of, and those of hours no longer open.
    days = {day_floor(hour) for hour in new_hours if day_floor(hour) + DAY_SPAN <= end}
    days |= {day_floor(hour) for hour in resolved if day_floor(hour) + DAY_SPAN <= end}
    days -= {day_floor(hour) for hour in still_open}
    for day in sorted(days):
        await _roll_day(session, day)
    await session.execute(update(RollupState).where(RollupState.id == STATE_ID).values(frontier=end))
    return end < target


async def catch_up(
    session_factory: async_sessionmaker[AsyncSession],
    now: datetime,
    max_chunks: int = 10_000,
    stop: asyncio.Event | None = None,
) -> int:
    """Roll up every closed hour not rolled up yet, a day per transaction. Idempotent; safe
    to run on several replicas at once (they take turns). Returns the chunks it ran. Once
    ``stop`` is set it returns after the transaction under way, which it never interrupts."""
    chunks = 0
    while chunks < max_chunks and not (stop is not None and stop.is_set()):
        async with session_factory() as session, session.begin():
            more = await _catch_up_once(session, now)
        chunks += 1
        if not more:
            break
    return chunks


async def rebuild(session_factory: async_sessionmaker[AsyncSession], now: datetime) -> int:
    """Drop every rollup and build them again from the raw rows (after rows were deleted)."""
    async with session_factory() as session, session.begin():
        for table in (CallRollup, LatencyRollup, RunRollup, OpenHour, RollupState):
            await session.execute(delete(table))
    return await catch_up(session_factory, now)


class CatchUpLoop:
    """The server's catch-up: one now, then every ``interval_s`` (0: never)."""

    def __init__(self, session_factory: async_sessionmaker[AsyncSession], interval_s: float) -> None:
        self.session_factory = session_factory
        self.interval_s = interval_s
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    def start(self) -> None:
        if self.interval_s > 0 and self._task is None:
            self._stop.clear()
            self._task = asyncio.create_task(self._loop(), name="report-rollups")

    async def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                await catch_up(self.session_factory, utcnow(), stop=self._stop)
            except Exception:
                # Another replica's catch-up holding the lock too long, a lost connection: the next one resumes.
                logger.warning("health report rollup catch-up failed; retrying later", exc_info=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self.interval_s)

    async def close(self) -> None:
        """Stop after the day under way is committed: a transaction cancelled half-way could
        leave SQLite's write lock held by a connection nobody is using any more."""
        if self._task is not None:
            self._stop.set()
            await self._task
            self._task = None
