"""``quiver report``: the health report on the command line (table, JSON or CSV)."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

import typer

from app.config import Settings
from app.reports.service import HealthReport, ToolUse

DURATION = re.compile(r"^(\d{1,4})([hdw])$")
UNITS = {"h": "hours", "d": "days", "w": "weeks"}


class ReportFormat(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"


def parse_since(text: str, now: datetime) -> datetime:
    """``--since``: a duration back from now (12h, 30d, 8w) or an ISO 8601 date or moment (UTC unless given)."""
    duration = DURATION.match(text.strip())
    if duration:
        return now - timedelta(**{UNITS[duration.group(2)]: int(duration.group(1))})
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise typer.BadParameter(f"{text!r} is neither a duration (12h, 30d, 8w) nor an ISO 8601 date") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def report(
    space: str | None = typer.Option(None, "--space", help="The space (sp_…); omitted: every space."),
    since: str = typer.Option("30d", "--since", help="Start: 12h, 30d, 8w back from now, or an ISO 8601 date (UTC)."),
    until: str | None = typer.Option(None, "--until", help="End (exclusive): an ISO 8601 date or moment; default now."),
    output_format: ReportFormat = typer.Option(ReportFormat.table, "--format", help="table, json or csv."),
) -> None:
    """The health report: top and unused skills and tools, failures per tool and week with their codes,
    PARAM_INVALID rates, p95 latency per week, skill versions served and their runs' outcomes."""
    now = datetime.now(UTC)
    end = parse_since(until, now) if until is not None else now
    start = parse_since(since, end) if DURATION.match(since.strip()) else parse_since(since, now)
    asyncio.run(_report(space, start, end, output_format))


async def _report(space_id: str | None, since: datetime, until: datetime, output_format: ReportFormat) -> None:
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from app.db import create_engine, create_session_factory
    from app.errors import DomainError
    from app.migrate import upgrade_async
    from app.principal import SYSTEM_PRINCIPAL
    from app.reports import rollup, service

    settings = Settings()
    await upgrade_async(settings.database_url)
    engine = create_engine(settings.database_url)
    errors = Console(stderr=True)
    try:
        start, end = service.window(since, until, datetime.now(UTC))
        # On stderr, and only while it runs: stdout stays the report alone (for json and csv).
        with Progress(
            SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=errors, transient=True
        ) as progress:
            task = progress.add_task("rolling up closed hours", total=None)
            # The rollups the server keeps (app.reports.rollup), brought up to date: also without a server.
            await rollup.catch_up(create_session_factory(engine), datetime.now(UTC))
            progress.update(task, description="starting")
            async with create_session_factory(engine)() as session:
                found = await service.health_report(
                    session,
                    SYSTEM_PRINCIPAL,
                    space_id,
                    start,
                    end,
                    progress=lambda phase: progress.update(task, description=phase),
                )
    except DomainError as error:
        errors.print(f"error: {error.message}", highlight=False, markup=False)
        raise typer.Exit(code=2) from None
    finally:
        await engine.dispose()
    if output_format is ReportFormat.json:
        typer.echo(json.dumps(as_json(found), indent=2))
    elif output_format is ReportFormat.csv:
        typer.echo(as_csv(found), nl=False)
    else:
        print_tables(found)


def as_json(report: HealthReport) -> dict[str, Any]:
    return {
        "spaceId": report.space_id,
        "since": report.since.isoformat(),
        "until": report.until.isoformat(),
        "calls": report.calls,
        "runs": report.runs,
        "topTools": [_tool(use) for use in report.top_tools],
        "paramInvalid": [_tool(use) for use in report.tools if use.param_invalid],
        "unusedTools": report.unused_tool_ids,
        "topSkills": [{"skillId": use.skill_id, "runs": use.runs} for use in report.top_skills],
        "unusedSkills": report.unused_skill_ids,
        "toolWeeks": [
            {
                "toolId": week.tool_id,
                "weekStart": week.week.isoformat(),
                "calls": week.calls,
                "failures": week.failures,
                "failureRate": round(week.failure_rate, 4),
                "errorCodes": dict(week.codes.most_common()),
            }
            for week in report.tool_weeks
        ],
        "latencyWeeks": [
            {"weekStart": week.week.isoformat(), "calls": week.calls, "p95LatencyMs": round(week.p95_latency_ms, 3)}
            for week in report.latency_weeks
        ],
        "skillVersions": [
            {
                "skillId": outcome.skill_id,
                "version": outcome.version,
                "channel": outcome.channel,
                "runs": outcome.runs,
                "succeeded": outcome.succeeded,
                "failed": outcome.failed,
            }
            for outcome in report.skill_versions
        ],
    }


def _tool(use: ToolUse) -> dict[str, Any]:
    return {
        "toolId": use.tool_id,
        "calls": use.calls,
        "failures": use.failures,
        "failureRate": round(use.failure_rate, 4),
        "paramInvalid": use.param_invalid,
        "paramInvalidRate": round(use.param_invalid_rate, 4),
    }


def as_csv(report: HealthReport) -> str:
    """One long table: ``section,subject,week,detail,metric,value`` (subject: a tool or skill id;
    detail: an error code, or a skill's version and channel)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["section", "subject", "week", "detail", "metric", "value"])
    writer.writerow(
        [
            "window",
            report.space_id or "*",
            "",
            f"{report.since.isoformat()}/{report.until.isoformat()}",
            "calls",
            report.calls,
        ]
    )
    writer.writerow(["window", report.space_id or "*", "", "", "runs", report.runs])
    for use in report.top_tools:
        writer.writerow(["top_tools", use.tool_id, "", "", "calls", use.calls])
    for use in report.tools:
        if use.param_invalid:
            writer.writerow(["param_invalid", use.tool_id, "", "", "rate", round(use.param_invalid_rate, 4)])
    for tool_id in report.unused_tool_ids:
        writer.writerow(["unused_tools", tool_id, "", "", "calls", 0])
    for skill in report.top_skills:
        writer.writerow(["top_skills", skill.skill_id, "", "", "runs", skill.runs])
    for skill_id in report.unused_skill_ids:
        writer.writerow(["unused_skills", skill_id, "", "", "runs", 0])
    for week in report.tool_weeks:
        monday = week.week.isoformat()
        writer.writerow(["tool_weeks", week.tool_id, monday, "", "calls", week.calls])
        writer.writerow(["tool_weeks", week.tool_id, monday, "", "failure_rate", round(week.failure_rate, 4)])
        for code, count in week.codes.most_common():
            writer.writerow(["tool_weeks", week.tool_id, monday, code, "failures", count])
    for latency in report.latency_weeks:
        writer.writerow(["latency", "*", latency.week.isoformat(), "", "p95_ms", round(latency.p95_latency_ms, 3)])
    for outcome in report.skill_versions:
        detail = f"{outcome.version} {outcome.channel or ''}".strip()
        for metric, value in (("runs", outcome.runs), ("succeeded", outcome.succeeded), ("failed", outcome.failed)):
            writer.writerow(["skill_versions", outcome.skill_id, "", detail, metric, value])
    return buffer.getvalue()


def print_tables(report: HealthReport) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=160)

    def show(title: str, table: Table) -> None:
        console.print(title, style="bold", highlight=False)
        console.print(table, markup=False, highlight=False)

    window = f"from {report.since:%Y-%m-%d %H:%M} to {report.until:%Y-%m-%d %H:%M} UTC"
    console.print(
        f"health of {report.space_id or 'every space'} {window}: {report.calls} tool call(s), {report.runs} run(s)",
        highlight=False,
        markup=False,
    )
    tools = Table("tool", "calls", "failed", "failure rate", "PARAM_INVALID", "rate", box=None)
    for use in report.top_tools:
        tools.add_row(
            use.tool_id,
            str(use.calls),
            str(use.failures),
            f"{use.failure_rate:.1%}",
            str(use.param_invalid),
            f"{use.param_invalid_rate:.1%}",
        )
    show("top tools", tools)
    invalid = Table("tool", "PARAM_INVALID", "of calls", "rate", box=None)
    for use in sorted(report.tools, key=lambda use: -use.param_invalid_rate):
        if use.param_invalid:
            invalid.add_row(use.tool_id, str(use.param_invalid), str(use.calls), f"{use.param_invalid_rate:.1%}")
    show("PARAM_INVALID per tool", invalid)
    weeks = Table("tool", "week of", "calls", "failed", "failure rate", "codes", box=None)
    for week in report.tool_weeks:
        codes = ", ".join(f"{code} {count}" for code, count in week.codes.most_common())
        weeks.add_row(
            week.tool_id, week.week.isoformat(), str(week.calls), str(week.failures), f"{week.failure_rate:.1%}", codes
        )
    show("failures per tool and week", weeks)
    latency = Table("week of", "calls", "p95 ms", box=None)
    for item in report.latency_weeks:
        latency.add_row(item.week.isoformat(), str(item.calls), f"{item.p95_latency_ms:.1f}")
    show("p95 latency per week", latency)
    skills = Table("skill", "runs", box=None)
    for skill in report.top_skills:
        skills.add_row(skill.skill_id, str(skill.runs))
    show("top skills", skills)
    versions = Table("skill", "version", "channel", "runs", "succeeded", "failed", box=None)
    for outcome in report.skill_versions:
        versions.add_row(
            outcome.skill_id,
            outcome.version,
            outcome.channel or "",
            str(outcome.runs),
            str(outcome.succeeded),
            str(outcome.failed),
        )
    show("skill versions served", versions)
    console.print(
        f"unused tools ({len(report.unused_tool_ids)}): {', '.join(report.unused_tool_ids) or '-'}",
        highlight=False,
        markup=False,
    )
    console.print(
        f"unused skills ({len(report.unused_skill_ids)}): {', '.join(report.unused_skill_ids) or '-'}",
        highlight=False,
        markup=False,
    )
