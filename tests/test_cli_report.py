"""``quiver report`` against a SQLite file holding the known rows of tests/support/health_data.py."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from app.db import create_engine, create_session_factory
from app.reports.rollup import RELATIVE_ERROR
from tests.support.health_data import SINCE, UNTIL, seed
from tests.test_cli import assert_succeeded, create_space, database_url, run_quiver_async

WINDOW = ("--since", SINCE.isoformat(), "--until", UNTIL.isoformat())


async def seeded(directory: Path) -> str:
    assert_succeeded(await run_quiver_async(directory, "migrate"))
    space_a, space_b = await create_space(directory, "health-a"), await create_space(directory, "health-b")
    engine = create_engine(database_url(directory))
    try:
        await seed(create_session_factory(engine), space_a, space_b, "ct_lookup")
    finally:
        await engine.dispose()
    return space_a


class TestReportCommand:
    async def test_json_holds_the_exact_figures(self, tmp_path: Path) -> None:
        space = await seeded(tmp_path)
        result = await run_quiver_async(tmp_path, "report", "--space", space, *WINDOW, "--format", "json")
        assert_succeeded(result)
        report = json.loads(result.stdout)
        assert (report["calls"], report["runs"]) == (35, 5)
        assert [(tool["toolId"], tool["calls"], tool["paramInvalid"]) for tool in report["topTools"]] == [
            ("bt_calculator", 30, 3),
            ("ct_lookup", 5, 0),
        ]
        # The command rolled the closed hours up first: the p95 comes from the histogram, within its bound.
        assert report["latencyWeeks"] == [
            {"weekStart": "2026-11-02", "calls": 25, "p95LatencyMs": pytest.approx(380.0, rel=RELATIVE_ERROR)},
            {"weekStart": "2026-11-09", "calls": 10, "p95LatencyMs": pytest.approx(95.5, rel=RELATIVE_ERROR)},
        ]
        assert report["latencyWeeks"][0]["p95LatencyMs"] != 380.0
        assert report["toolWeeks"][0]["errorCodes"] == {"PARAM_INVALID": 2, "TIMEOUT": 1}
        assert [
            (row["skillId"], row["version"], row["channel"], row["succeeded"], row["failed"])
            for row in report["skillVersions"]
        ] == [
            ("sk_email_draft", "1.0.0", "PRODUCTION", 1, 1),
            ("sk_email_draft", "1.1.0", "CANDIDATE", 1, 1),
            ("sk_meeting_summary", "1.0.0", "PRODUCTION", 1, 0),
        ]

    async def test_csv_is_one_long_table(self, tmp_path: Path) -> None:
        space = await seeded(tmp_path)
        result = await run_quiver_async(tmp_path, "report", "--space", space, *WINDOW, "--format", "csv")
        assert_succeeded(result)
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        assert {"section", "subject", "week", "detail", "metric", "value"} == set(rows[0])
        latency = [row for row in rows if row["section"] == "latency"]
        assert [(row["subject"], row["week"], row["metric"]) for row in latency] == [
            ("*", "2026-11-02", "p95_ms"),
            ("*", "2026-11-09", "p95_ms"),
        ]
        assert float(latency[0]["value"]) == pytest.approx(380.0, rel=RELATIVE_ERROR)
        assert {
            "section": "tool_weeks",
            "subject": "bt_calculator",
            "week": "2026-11-02",
            "detail": "TIMEOUT",
            "metric": "failures",
            "value": "1",
        } in rows

    async def test_table_of_every_space(self, tmp_path: Path) -> None:
        await seeded(tmp_path)
        result = await run_quiver_async(tmp_path, "report", *WINDOW)
        assert_succeeded(result)
        assert "every space" in result.stdout
        assert "36 tool call(s), 6 run(s)" in result.stdout
        assert "p95 latency per week" in result.stdout

    async def test_a_space_that_does_not_exist_is_an_error(self, tmp_path: Path) -> None:
        await seeded(tmp_path)
        result = await run_quiver_async(tmp_path, "report", "--space", "sp_nope", *WINDOW)
        assert result.returncode == 2, result.stdout
        assert "Space 'sp_nope' not found." in result.stderr
        assert "Traceback" not in result.stderr
        assert result.stdout == ""

    async def test_a_bad_window_is_an_error_not_a_trace(self, tmp_path: Path) -> None:
        await seeded(tmp_path)
        result = await run_quiver_async(tmp_path, "report", "--since", "yesterday-ish")
        assert result.returncode == 2
        assert "Traceback" not in result.stderr
        backwards = await run_quiver_async(
            tmp_path, "report", "--since", UNTIL.isoformat(), "--until", SINCE.isoformat()
        )
        assert backwards.returncode == 2
        assert "since must be before until" in backwards.stderr
