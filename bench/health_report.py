"""The health report over a call log of 1,000,000 rows, on SQLite and PostgreSQL: from the
rollups (``app.reports.rollup``) against the raw query path they replace.

Seeds a throwaway database (migrated with the real migrations) with ``--rows`` call-log
rows over 100 tools, 5 % failures with three codes, and 20,000 runs serving skill
versions. Layouts (``--layouts``): ``spread`` (default) puts the rows in 20 spaces over 180
days, and the report is one space's last 30 days (about 1/120 of the log); ``single`` puts
every row in the one space's 30-day window: the worst case, where the report covers them all.
The window ends at 13:37:12 UTC, not on an hour: its edges are partial hours and days.

Then the rollups are caught up as the server does it, at the window's end (so its last
two to three hours are not rolled up yet and are read raw, as in a live "last 30 days"
report), timed; and, interleaved round by round:

- ``raw report`` (the baseline): ``app.reports.service.health_report(rollups=False)``, the
  raw query path: every call and run of the window aggregated from the call log and runs;
- ``report``: the same with the rollups, as ``healthReport`` and ``quiver report --space`` run it;
- ``raw every space`` / ``every space``: the same without a space (ADMIN, ``quiver report``).

The raw variants run in the first ``--baseline-rounds`` rounds only (they take seconds).
Prints the method, the load average before and after, each variant's median and p90, the
rollup variants' ratio to their raw baseline, whether both reports agree (every figure equal,
the p95 within the histogram's bound) and whether the medians are under 500 ms.

    .venv/bin/python -m bench.health_report [--rows 1000000] [--rounds 7] [--layouts spread,single]
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
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.db import create_engine, create_session_factory  # noqa: E402
from app.migrate import upgrade  # noqa: E402
from app.principal import SYSTEM_PRINCIPAL  # noqa: E402
from app.reports import rollup, service  # noqa: E402
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
UNTIL = datetime(2026, 11, 30, 13, 37, 12, tzinfo=UTC)
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


def call_rows(count: int, seed: int, layout: str, order: str = "time") -> list[tuple[Any, ...]]:
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
    if order == "time":
        # As the gateway appends them: the table then lies in the order of started_at.
        rows.sort(key=lambda row: row[11])
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


async def catch_up(url: str) -> float:
    """The rollups brought up to the window's end, as the server's catch-up would be then."""
    engine = create_engine(url)
    try:
        started = time.perf_counter()
        await rollup.catch_up(create_session_factory(engine), UNTIL)
        return time.perf_counter() - started
    finally:
        await engine.dispose()


def agree(raw: service.HealthReport, rolled: service.HealthReport) -> bool:
    """Every figure equal, each week's p95 within the histogram's bound."""
    bound = rollup.RELATIVE_ERROR
    close = [
        (a.week, a.calls) == (b.week, b.calls) and abs(a.p95_latency_ms - b.p95_latency_ms) <= bound * a.p95_latency_ms
        for a, b in zip(raw.latency_weeks, rolled.latency_weeks, strict=False)
    ]
    same = replace(raw, latency_weeks=[]) == replace(rolled, latency_weeks=[])
    return same and len(raw.latency_weeks) == len(rolled.latency_weeks) and all(close)


VARIANTS = (
    ("raw report", SPACE, False),
    ("report", SPACE, True),
    ("raw every space", None, False),
    ("every space", None, True),
)


async def measure(url: str, rounds: int, warmup: int, baseline_rounds: int) -> tuple[dict[str, list[float]], bool]:
    engine = create_engine(url)
    sessions = create_session_factory(engine)
    timings: dict[str, list[float]] = {name: [] for name, _, _ in VARIANTS}
    results: dict[str, service.HealthReport] = {}
    try:
        for round_index in range(warmup + rounds):
            for name, space, rollups in VARIANTS:
                if not rollups and round_index >= warmup + baseline_rounds:
                    continue
                started = time.perf_counter()
                async with sessions() as session:
                    result = await service.health_report(
                        session, SYSTEM_PRINCIPAL, space, SINCE, UNTIL, rollups=rollups
                    )
                elapsed = (time.perf_counter() - started) * 1000
                if round_index >= warmup:
                    timings[name].append(elapsed)
                results.setdefault(name, result)
                if name == "report" and round_index == 0:
                    print(
                        f"    check: {result.calls:,} calls, {len(result.tools)} tools, "
                        f"{len(result.latency_weeks)} weeks, {result.runs:,} runs, "
                        f"{len(result.skill_versions)} skill versions"
                    )
    finally:
        await engine.dispose()
    same = agree(results["raw report"], results["report"]) and agree(results["raw every space"], results["every space"])
    return timings, same


def run_backend(
    backend: str,
    postgres_url: str,
    layout: str,
    rows: int,
    rounds: int,
    warmup: int,
    baseline_rounds: int,
    seed: int,
    order: str,
) -> None:
    print(f"\n== {backend}, {layout}" + (", rows in random order" if order == "random" else ""))
    with (
        tempfile.TemporaryDirectory(prefix="quiver-bench-") as directory,
        throwaway_database(backend, postgres_url, "health", Path(directory)) as url,
    ):
        upgrade(url)
        started = time.perf_counter()
        calls, runs = call_rows(rows, seed, layout, order), run_rows(seed)
        if backend == "sqlite":
            seed_sqlite(url, calls, runs)
        else:
            asyncio.run(seed_postgresql(url, calls, runs))
        del calls
        print(f"    seeded {rows:,} calls and {RUNS:,} runs in {time.perf_counter() - started:.0f} s")
        print(f"    rollup catch-up (the backfill after an upgrade) in {asyncio.run(catch_up(url)):.1f} s")
        before = load_average()
        timings, same = asyncio.run(measure(url, rounds, warmup, baseline_rounds))
        after = load_average()
    print(f"    load average (1 min): {before:.2f} before, {after:.2f} after")
    for name, _, rollups in VARIANTS:
        values = timings[name]
        median, p90 = percentile(values, 0.5), percentile(values, 0.9)
        ratio = ""
        if rollups:
            base = percentile(timings[f"raw {name}"], 0.5)
            ratio = f"   x{median / base:6.3f} of its raw baseline"
        print(f"    {name:16s} median {median:9.1f} ms   p90 {p90:9.1f} ms   ({len(values)} rounds){ratio}")
    print(f"    rollup answers = raw answers (p95 within {rollup.RELATIVE_ERROR:.2%}): {'yes' if same else 'NO'}")
    for name in ("report", "every space"):
        verdict = "yes" if percentile(timings[name], 0.5) < GOAL_MS else "NO"
        print(f"    {name} under {GOAL_MS:.0f} ms (median): {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--baseline-rounds", type=int, default=2, help="measured rounds of the raw variants")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument(
        "--layouts",
        default="spread",
        help="spread: the log over 20 spaces and 180 days, the report of one space's 30 days; "
        "single: every row in the one space's window (the worst case). Comma-separated.",
    )
    parser.add_argument(
        "--order",
        choices=("time", "random"),
        default="time",
        help="time: rows inserted in the order of started_at, as the gateway appends them; random: in random order "
        "(the raw path then reads scattered pages).",
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
        f"{arguments.rounds} rounds after {arguments.warmup} warm-up, variants interleaved "
        f"(the raw ones in {arguments.baseline_rounds} of them)"
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
                arguments.baseline_rounds,
                arguments.seed,
                arguments.order,
            )


if __name__ == "__main__":
    main()
