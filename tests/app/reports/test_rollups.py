"""The health report's rollups against the raw SQL it replaces, on each backend.

Generated call-log rows and runs over three spaces and three weeks; each report is computed
first from the raw rows alone (nothing rolled up: the exact path), then again after the
catch-up, which reads day rows, hour rows and the raw rows of the edges and open hours.
Every figure must be equal, the p95 within ``RELATIVE_ERROR``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.errors import NotFoundError
from app.gateway.models import ToolCall
from app.principal import SYSTEM_PRINCIPAL
from app.reports import repository, rollup, service
from app.reports.models import ALL_SPACES, DAY, HOUR, CallRollup, OpenHour
from app.reports.rollup import RELATIVE_ERROR, bucket_of, bucket_value, percentile_of, plan
from app.runtime.models import AgentRun
from app.spaces.models import Space
from tests.support.health_data import call, run

START = datetime(2026, 10, 7, 5, 0, tzinfo=UTC)  # a Wednesday
END = START + timedelta(days=21)
NOW = END + timedelta(days=1)
SPACES = ("sp_rollup_a", "sp_rollup_b", "sp_rollup_c")
TOOLS = ("bt_calculator", "ct_one", "ct_two", "ct_three")
CODES = ("PARAM_INVALID", "TIMEOUT", "EXTERNAL_API_ERROR", None)
SKILLS: tuple[Any, ...] = (
    ("sk_email_draft", "1.0.0", "PRODUCTION"),
    ("sk_email_draft", "1.1.0", "CANDIDATE"),
    ("sk_x", "2.0.0", None),
)
# A run still going: its hour stays open (read raw) until it finishes.
UNFINISHED_AT = START + timedelta(days=9, hours=3, minutes=12)
WINDOWS = [
    (START - timedelta(days=2), END + timedelta(days=2)),  # all of it
    (START + timedelta(days=1, hours=7, minutes=13, seconds=5), END - timedelta(days=3, minutes=41)),  # ragged edges
    (START + timedelta(days=2), START + timedelta(days=9)),  # whole days
    (START + timedelta(hours=2, minutes=30), START + timedelta(hours=2, minutes=50)),  # inside one hour
    (UNFINISHED_AT - timedelta(hours=5, minutes=1), UNFINISHED_AT + timedelta(hours=30)),  # around the open hour
]


async def _seed(session_factory: async_sessionmaker[AsyncSession]) -> None:
    randomness = random.Random(15)
    rows: list[Any] = [Space(id=space, name=space, label=space, is_system=False, created_at=START) for space in SPACES]
    span = (END - START).total_seconds()
    for _ in range(3000):
        at = START + timedelta(seconds=randomness.random() * span)
        space = randomness.choice(SPACES[:2]) if randomness.random() < 0.9 else SPACES[2]
        code = randomness.choice(CODES) if randomness.random() < 0.2 else None
        status = "FAILED" if randomness.random() < 0.1 or code else "SUCCESS"
        if randomness.random() < 0.02:
            status, code = "PENDING_APPROVAL", None
        latency = 0.0 if randomness.random() < 0.03 else round(randomness.lognormvariate(3.5, 1.2), 3)
        rows.append(call(space, randomness.choice(TOOLS), at, latency, status, code))
    for _ in range(400):
        at = START + timedelta(seconds=randomness.random() * span)
        served = randomness.sample(SKILLS, randomness.randint(0, 2))
        status = randomness.choice(("SUCCEEDED", "SUCCEEDED", "FAILED", "MAX_STEPS"))
        rows.append(run(randomness.choice(SPACES), at, status, served))
    unfinished = run(SPACES[0], UNFINISHED_AT, "WAITING_APPROVAL", [SKILLS[0]])
    unfinished.id = "run_rollup_unfinished"
    unfinished.finished_at = None
    rows.append(unfinished)
    async with session_factory() as session, session.begin():
        session.add_all(rows)


async def _report(
    session_factory: async_sessionmaker[AsyncSession], space: str | None, window: tuple[datetime, datetime]
) -> service.HealthReport:
    async with session_factory() as session:
        return await service.health_report(session, SYSTEM_PRINCIPAL, space, *window)


async def _reports(session_factory: async_sessionmaker[AsyncSession]) -> dict[Any, service.HealthReport]:
    return {
        (space, window): await _report(session_factory, space, window)
        for space in (*SPACES, None)
        for window in WINDOWS
    }


def _assert_same(expected: service.HealthReport, actual: service.HealthReport) -> None:
    assert [(week.week, week.calls) for week in actual.latency_weeks] == [
        (week.week, week.calls) for week in expected.latency_weeks
    ]
    for want, got in zip(expected.latency_weeks, actual.latency_weeks, strict=True):
        assert got.p95_latency_ms == pytest.approx(want.p95_latency_ms, rel=RELATIVE_ERROR, abs=rollup.MIN_MS)
    assert dataclasses.replace(actual, latency_weeks=[]) == dataclasses.replace(expected, latency_weeks=[])


async def _plan(session_factory: async_sessionmaker[AsyncSession], window: tuple[datetime, datetime]) -> rollup.Plan:
    async with session_factory() as session:
        return plan(*window, *(await rollup.state(session)))


class TestAgainstRawSql:
    async def test_every_figure_matches_the_raw_report(self, session_factory: async_sessionmaker[AsyncSession]) -> None:
        await _seed(session_factory)
        raw = await _reports(session_factory)
        assert raw[(SPACES[0], WINDOWS[0])].calls > 1000
        assert raw[(SPACES[0], WINDOWS[0])].tool_weeks[0].codes

        await rollup.catch_up(session_factory, NOW)
        ragged = await _plan(session_factory, WINDOWS[1])
        assert ragged.days and ragged.hours and ragged.raw
        assert (await _plan(session_factory, WINDOWS[4])).raw != [WINDOWS[4]]
        for key, expected in raw.items():
            _assert_same(expected, await _report(session_factory, *key))

    async def test_the_open_hour_is_read_raw_until_its_run_finishes(
        self, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        await _seed(session_factory)
        await rollup.catch_up(session_factory, NOW)
        hour = rollup.hour_floor(UNFINISHED_AT)
        async with session_factory() as session:
            assert list((await session.scalars(select(OpenHour.hour_start))).all()) == [hour]
        window = WINDOWS[4]
        assert (hour, hour + timedelta(hours=1)) in (await _plan(session_factory, window)).raw

        # The run ends; its hour's report changes at once (read raw), and after the next catch-up
        # it is rolled up with its final status.
        async with session_factory() as session, session.begin():
            await session.execute(
                update(AgentRun).where(AgentRun.id == "run_rollup_unfinished").values(status="SUCCEEDED")
            )
        before = await _report(session_factory, SPACES[0], window)
        versions = {(v.skill_id, v.version): (v.runs, v.succeeded) for v in before.skill_versions}
        await rollup.catch_up(session_factory, NOW)
        async with session_factory() as session:
            assert list((await session.scalars(select(OpenHour.hour_start))).all()) == []
        parts = await _plan(session_factory, window)
        assert all(end - start < timedelta(hours=1) for start, end in parts.raw)
        after = await _report(session_factory, SPACES[0], window)
        assert {(v.skill_id, v.version): (v.runs, v.succeeded) for v in after.skill_versions} == versions
        _assert_same(before, after)

    async def test_rows_after_the_frontier_count_at_once(
        self, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        await _seed(session_factory)
        await rollup.catch_up(session_factory, NOW)
        recent = NOW - timedelta(minutes=30)  # after the frontier: not rolled up yet
        window = (START, NOW)
        before = await _report(session_factory, SPACES[1], window)
        async with session_factory() as session, session.begin():
            session.add(call(SPACES[1], "ct_new", recent, 5.0, "FAILED", "TIMEOUT"))
        after = await _report(session_factory, SPACES[1], window)
        assert after.calls == before.calls + 1
        assert [use.tool_id for use in after.tools if use.tool_id == "ct_new"] == ["ct_new"]

    async def test_rollups_never_carry_another_space(self, session_factory: async_sessionmaker[AsyncSession]) -> None:
        await _seed(session_factory)
        await rollup.catch_up(session_factory, NOW)
        async with session_factory() as session, session.begin():
            session.add(Space(id="sp_rollup_empty", name="empty", label="empty", is_system=False, created_at=START))
        empty = await _report(session_factory, "sp_rollup_empty", WINDOWS[0])
        assert (empty.calls, empty.runs, empty.tools, empty.skill_versions) == (0, 0, [], [])
        # The every-space rows' own name is no space's: never read as one.
        with pytest.raises(NotFoundError):
            await _report(session_factory, ALL_SPACES, WINDOWS[0])
        everything = await _report(session_factory, None, WINDOWS[0])
        each = [(await _report(session_factory, space, WINDOWS[0])).calls for space in SPACES]
        assert everything.calls == sum(each)

    async def test_catching_up_twice_changes_nothing(self, session_factory: async_sessionmaker[AsyncSession]) -> None:
        await _seed(session_factory)
        await rollup.catch_up(session_factory, NOW)

        async def totals() -> list[Any]:
            async with session_factory() as session:
                statement = select(CallRollup.grain, func.count(), func.sum(CallRollup.calls)).group_by(
                    CallRollup.grain
                )
                return sorted(tuple(row) for row in (await session.execute(statement)).all())

        first = await totals()
        await rollup.catch_up(session_factory, NOW)
        assert await totals() == first
        grains = {grain: calls for grain, _, calls in first}
        async with session_factory() as session:
            hour = rollup.hour_floor(UNFINISHED_AT)
            open_hour = ToolCall.started_at.between(hour, hour + timedelta(microseconds=3_599_999_999))
            logged = await session.scalar(select(func.count()).where(ToolCall.status != "PENDING_APPROVAL", ~open_hour))
        # Hour rows hold every call twice (its space's row and the every-space row), but
        # those of the open hour, which is not rolled up while its run goes on.
        assert logged is not None
        assert grains[HOUR] == 2 * logged
        assert grains[DAY] < grains[HOUR]

    async def test_the_histogram_buckets_agree_with_the_database(
        self, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        await _seed(session_factory)
        async with session_factory() as session:
            rows = await repository.raw_latency(session, SPACES[0], START, END)
            latencies = (
                await session.scalars(
                    select(ToolCall.latency_ms).where(
                        ToolCall.space_id == SPACES[0], ToolCall.status != "PENDING_APPROVAL"
                    )
                )
            ).all()
        counted: dict[int, int] = {}
        for _, bucket, calls in rows:
            counted[bucket] = counted.get(bucket, 0) + calls
        expected: dict[int, int] = {}
        for latency in latencies:
            expected[bucket_of(latency)] = expected.get(bucket_of(latency), 0) + 1
        assert counted == expected


class TestHistogram:
    def test_a_bucket_stands_for_its_values_within_the_bound(self) -> None:
        for latency in (0.004, 0.02, 1.0, 12.345, 999.9, 60_000.0, 3_600_000.0):
            value = bucket_value(bucket_of(latency))
            assert abs(value - latency) <= max(RELATIVE_ERROR * latency, rollup.MIN_MS / 2) + 1e-12
        assert bucket_value(bucket_of(0.0)) == 0.0

    def test_the_percentile_interpolates_between_ranks(self) -> None:
        randomness = random.Random(3)
        latencies = sorted(randomness.lognormvariate(3, 1) for _ in range(997))
        position = 0.95 * (len(latencies) - 1)
        low = int(position)
        exact = latencies[low] + (latencies[low + 1] - latencies[low]) * (position - low)
        histogram: dict[int, int] = {}
        for latency in latencies:
            histogram[bucket_of(latency)] = histogram.get(bucket_of(latency), 0) + 1
        assert percentile_of(histogram, 0.95) == pytest.approx(exact, rel=RELATIVE_ERROR)
        assert percentile_of({bucket_of(7.0): 1}, 0.95) == pytest.approx(7.0, rel=RELATIVE_ERROR)


class TestPlan:
    FRONTIER = datetime(2026, 11, 20, 6, tzinfo=UTC)

    def test_nothing_rolled_up_reads_raw(self) -> None:
        window = (datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 3, tzinfo=UTC))
        assert plan(*window, None, []) == rollup.Plan(raw=[window])

    def test_days_then_hours_then_raw_edges(self) -> None:
        since, until = datetime(2026, 11, 1, 22, 30, tzinfo=UTC), datetime(2026, 11, 21, 8, 5, tzinfo=UTC)
        opened = datetime(2026, 11, 10, 4, tzinfo=UTC)
        parts = plan(since, until, self.FRONTIER, [opened])
        day = timedelta(days=1)
        november = datetime(2026, 11, 1, tzinfo=UTC)
        assert parts.raw == [
            (since, datetime(2026, 11, 1, 23, tzinfo=UTC)),
            (opened, opened + timedelta(hours=1)),
            (self.FRONTIER, until),
        ]
        assert parts.days == [(november + day, november + 9 * day), (november + 10 * day, november + 19 * day)]
        assert parts.hours == [
            (datetime(2026, 11, 1, 23, tzinfo=UTC), november + day),
            (november + 9 * day, opened),
            (opened + timedelta(hours=1), november + 10 * day),
            (november + 19 * day, self.FRONTIER),
        ]


class TestServerLoop:
    async def test_the_loop_catches_up_at_start_and_stops_on_close(
        self, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        await _seed(session_factory)
        loop = rollup.CatchUpLoop(session_factory, interval_s=3600)
        loop.start()
        try:
            for _ in range(1200):  # up to a minute on a loaded machine
                async with session_factory() as session:
                    frontier, _ = await rollup.state(session)
                if frontier is not None and frontier >= END:
                    break
                await asyncio.sleep(0.05)
        finally:
            await loop.close()
        assert frontier is not None and frontier >= END
        # Every generated hour is closed by now (they are weeks old): the report reads rollups.
        assert (await _plan(session_factory, WINDOWS[0])).days

    async def test_closing_lets_the_day_under_way_commit_and_the_reports_stay_right(
        self, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        await _seed(session_factory)
        raw = await _reports(session_factory)
        loop = rollup.CatchUpLoop(session_factory, interval_s=3600)
        loop.start()
        for _ in range(1200):
            async with session_factory() as session:
                frontier, _ = await rollup.state(session)
            if frontier is not None:
                break
            await asyncio.sleep(0.01)
        await loop.close()
        # Nothing is left holding the write lock, and whatever was rolled up by then is consistent.
        async with session_factory() as session, session.begin():
            await session.execute(update(Space).where(Space.id == SPACES[0]).values(label="after close"))
        for key, expected in raw.items():
            _assert_same(expected, await _report(session_factory, *key))

    async def test_a_stopped_catch_up_starts_nothing(self, session_factory: async_sessionmaker[AsyncSession]) -> None:
        await _seed(session_factory)
        stop = asyncio.Event()
        stop.set()
        assert await rollup.catch_up(session_factory, NOW, stop=stop) == 0
        async with session_factory() as session:
            assert (await rollup.state(session))[0] is None
