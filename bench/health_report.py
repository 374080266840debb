"""The health report over a call log of 1,000,000 rows, on SQLite and PostgreSQL.

Seeds a throwaway database (migrated with the real migrations) with ``--rows`` call-log
rows over 100 tools, 5 % failures with three codes, and 20,000 runs serving skill
versions. Layouts (``--layouts``): ``spread`` (default) puts the rows in 20 spaces over 180
days, and the report is one space's last 30 days (about 1/120 of the log); ``single`` puts
every row in the one space's 30-day window: the worst case, where the report reads them all.
Then, interleaved round by round:

- ``baseline``: ``SELECT count(*)`` of the space's calls in the window through the same
  index, the floor of any report that reads each of its rows once;
- ``report``: ``app.reports.service.health_report`` for the space, as ``healthReport`` and
  ``quiver report --space`` run it;
- ``report, every space``: the same without a space (ADMIN, ``quiver report``).

Prints the method, the load average before and after, each variant's median and p90 over
the rounds, its ratio to the baseline, and whether the report's median is under 500 ms.

    .venv/bin/python bench/health_report.py [--rows 1000000] [--rounds 7] [--backends sqlite,postgresql]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.db import create_engine, create_session_factory  # noqa: E402
from app.migrate import upgrade  # noqa: E402
from app.principal import SYSTEM_PRINCIPAL  # noqa: E402
from app.reports import service  # noqa: E402
from app.reports.repository import window_conditions  # noqa: E402
from bench.common import (  # noqa: E402
    DEFAULT_POSTGRES_URL,
    asyncpg_dsn,
    load_average,
    percentile,
    postgres_problem,
    throwaway_database,
    version,
)

GOAL_MS = 500.0
SPACE = "sp_bench_health"
LAYOUTS = ("spread", "single")
SPREAD_SPACES = 20
SPREAD_DAYS = 180
UNTIL = datetime(2026, 12, 1, tzinfo=UTC)
SINCE = UNTIL - timedelta(days=30)
TOOLS = ["bt_calculator", *(f"ct_bench_{index:03d}" for index in range(99))]
CODES = ("PARAM_INVALID", "TIMEOUT", "EXTERNAL_API_ERROR")
SKILLS = ("sk_email_draft", "sk_meeting_summary", "sk_knowledge_answer", "sk_data_calculation")
RUNS = 20_000
BATCH = 20_000
COLUMNS = (
    "id",
    "tool_id",
    "tool_type",
    "space_id",
    "arguments",
    "status",
    "error_code",
    "latency_ms",
    "attempts",
    "trace_id",
    "origin",
    "started_at",
    "finished_at",
)
RUN_COLUMNS = (
    "id",
    "agent_id",
    "space_id",
    "status",
    "input",
    "model",
    "skill_versions",
    "prompt_warnings",
    "started_at",
    "steps",
    "delegation_depth",
)


def call_rows(count: int, seed: int, layout: str) -> list[tuple[Any, ...]]:
    """``single``: every row in SPACE and the window; ``spread``: over SPREAD_SPACES spaces
    (SPACE one of them) and SPREAD_DAYS days ending with the window."""
    randomness = random.Random(seed)
    first = SINCE if layout == "single" else UNTIL - timedelta(days=SPREAD_DAYS)
    span = (UNTIL - first).total_seconds()
    rows: list[tuple[Any, ...]] = []
    for index in range(count):
        failed = randomness.random() < 0.05
        started = first + timedelta(seconds=randomness.random() * span)
        # SPACE is one of the spread's spaces (number 0).
        spread = randomness.randrange(SPREAD_SPACES)
        space = SPACE if layout == "single" or spread == 0 else f"{SPACE}_{spread:02d}"
        rows.append(
            (
                f"tc_bench_{index:09d}",
                TOOLS[min(int(randomness.paretovariate(1.2)) - 1, len(TOOLS) - 1)],
                "CUSTOM",
                space,
                "{}",
                "FAILED" if failed else "SUCCESS",
                randomness.choice(CODES) if failed else None,
                round(randomness.lognormvariate(3.5, 0.8), 3),
                1,
                f"trace{index}",
                "AGENT",
                started,
                started,
            )
        )
    return rows


def run_rows(seed: int) -> list[tuple[Any, ...]]:
    randomness = random.Random(seed + 1)
    span = (UNTIL - SINCE).total_seconds()
    rows: list[tuple[Any, ...]] = []
    for index in range(RUNS):
        served = [
            {"skillId": skill, "version": randomness.choice(("1.0.0", "1.1.0")), "channel": "PRODUCTION"}
            for skill in randomness.sample(SKILLS, randomness.randint(0, 2))
        ]
        status = randomness.choices(("SUCCEEDED", "FAILED", "MAX_STEPS"), (90, 7, 3))[0]
        rows.append(
            (
                f"run_bench_{index:07d}",
                "ag_bench",
                SPACE,
                status,
                "x",
                "m",
                json.dumps(served),
                "[]",
                SINCE + timedelta(seconds=randomness.random() * span),
                1,
                0,
            )
        )
    return rows


def _sqlite_text(value: Any) -> Any:
    """As SQLAlchemy stores a UTC datetime in SQLite."""
    return value.strftime("%Y-%m-%d %H:%M:%S.%f") if isinstance(value, datetime) else value


def seed_sqlite(url: str, calls: list[tuple[Any, ...]], runs: list[tuple[Any, ...]]) -> None:
    connection = sqlite3.connect(make_url(url).database or "")
    try:
        connection.execute(
            "INSERT INTO space (id, name, label, is_system, created_at) VALUES (?, ?, ?, 0, ?)",
            (SPACE, "bench-health", "Bench", _sqlite_text(SINCE)),
        )
        # Indexes built once after the rows are in (a sort each) instead of maintained row by row.
        indexes = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tool_call' AND sql IS NOT NULL"
        ).fetchall()
        for name, _ in indexes:
            connection.execute(f'DROP INDEX "{name}"')
        marks = ", ".join("?" * len(COLUMNS))
        for start in range(0, len(calls), BATCH):
            connection.executemany(
                f"INSERT INTO tool_call ({', '.join(COLUMNS)}) VALUES ({marks})",
                [tuple(_sqlite_text(value) for value in row) for row in calls[start : start + BATCH]],
            )
        marks = ", ".join("?" * len(RUN_COLUMNS))
        connection.executemany(
            f"INSERT INTO agent_run ({', '.join(RUN_COLUMNS)}) VALUES ({marks})",
            [tuple(_sqlite_text(value) for value in row) for row in runs],
        )
        for _, sql in indexes:
            connection.execute(sql)
        connection.commit()
        connection.execute("ANALYZE")
        connection.commit()
    finally:
        connection.close()


async def seed_postgresql(url: str, calls: list[tuple[Any, ...]], runs: list[tuple[Any, ...]]) -> None:
    connection = await asyncpg.connect(asyncpg_dsn(url))
    try:
        await connection.execute(
            "INSERT INTO space (id, name, label, is_system, created_at) VALUES ($1, $2, $3, false, $4)",
            SPACE,
            "bench-health",
            "Bench",
            SINCE,
        )
        await connection.copy_records_to_table("tool_call", records=calls, columns=list(COLUMNS))
        await connection.copy_records_to_table("agent_run", records=runs, columns=list(RUN_COLUMNS))
        # What autovacuum would have done by then: statistics, and the visibility map index-only scans need.
        await connection.execute("VACUUM ANALYZE tool_call")
        await connection.execute("VACUUM ANALYZE agent_run")
    finally:
        await connection.close()


async def measure(url: str, rounds: int, warmup: int) -> dict[str, list[float]]:
    engine = create_engine(url)
    sessions = create_session_factory(engine)

    async def baseline() -> Any:
        async with sessions() as session:
            return await session.scalar(
                select(func.count()).where(*window_conditions(session.get_bind().dialect.name, SPACE, SINCE, UNTIL))
            )

    async def report_space() -> Any:
        async with sessions() as session:
            return await service.health_report(session, SYSTEM_PRINCIPAL, SPACE, SINCE, UNTIL)

    async def report_all() -> Any:
        async with sessions() as session:
            return await service.health_report(session, SYSTEM_PRINCIPAL, None, SINCE, UNTIL)

    variants: dict[str, Callable[[], Awaitable[Any]]] = {
        "baseline": baseline,
        "report": report_space,
        "report, every space": report_all,
    }
    timings: dict[str, list[float]] = {name: [] for name in variants}
    try:
        for round_index in range(warmup + rounds):
            for name, variant in variants.items():
                started = time.perf_counter()
                result = await variant()
                elapsed = (time.perf_counter() - started) * 1000
                if round_index >= warmup:
                    timings[name].append(elapsed)
                if name == "report" and round_index == 0:
                    print(
                        f"    check: {result.calls:,} calls, {len(result.tools)} tools, "
                        f"{len(result.latency_weeks)} weeks, {result.runs:,} runs, "
                        f"{len(result.skill_versions)} skill versions"
                    )
    finally:
        await engine.dispose()
    return timings


def run_backend(backend: str, postgres_url: str, layout: str, rows: int, rounds: int, warmup: int, seed: int) -> None:
    print(f"\n== {backend}, {layout}")
    with (
        tempfile.TemporaryDirectory(prefix="quiver-bench-") as directory,
        throwaway_database(backend, postgres_url, "health", Path(directory)) as url,
    ):
        upgrade(url)
        started = time.perf_counter()
        calls, runs = call_rows(rows, seed, layout), run_rows(seed)
        if backend == "sqlite":
            seed_sqlite(url, calls, runs)
        else:
            asyncio.run(seed_postgresql(url, calls, runs))
        del calls
        print(f"    seeded {rows:,} calls and {RUNS:,} runs in {time.perf_counter() - started:.0f} s")
        before = load_average()
        timings = asyncio.run(measure(url, rounds, warmup))
        after = load_average()
    print(f"    load average (1 min): {before:.2f} before, {after:.2f} after")
    base = percentile(timings["baseline"], 0.5)
    for name, values in timings.items():
        median, p90 = percentile(values, 0.5), percentile(values, 0.9)
        print(f"    {name:22s} median {median:8.1f} ms   p90 {p90:8.1f} ms   x{median / base:5.2f} baseline")
    verdict = "yes" if percentile(timings["report"], 0.5) < GOAL_MS else "NO"
    print(f"    report under {GOAL_MS:.0f} ms (median): {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument(
        "--layouts",
        default="spread",
        help="spread: the log over 20 spaces and 180 days, the report of one space's 30 days; "
        "single: every row in the one space's window (the worst case). Comma-separated.",
    )
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL)
    arguments = parser.parse_args()
    print("Health report benchmark")
    print(
        f"  {platform.platform()}, Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
        f"SQLAlchemy {version('sqlalchemy')}"
    )
    print(
        f"  {arguments.rows:,} call-log rows ({arguments.layouts}); {len(TOOLS)} tools; "
        f"{arguments.rounds} rounds after {arguments.warmup} warm-up, variants interleaved"
    )
    for backend in arguments.backends.split(","):
        if backend == "postgresql":
            problem = asyncio.run(postgres_problem(arguments.postgres_url))
            if problem is not None:
                print(f"\n== postgresql: skipped ({problem})")
                continue
        for layout in arguments.layouts.split(","):
            run_backend(
                backend,
                arguments.postgres_url,
                layout,
                arguments.rows,
                arguments.rounds,
                arguments.warmup,
                arguments.seed,
            )


if __name__ == "__main__":
    main()
