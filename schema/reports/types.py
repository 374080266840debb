"""GraphQL types of the health report."""

from __future__ import annotations

from datetime import date, datetime

import strawberry

from app.reports import service
from schema import visibility
from schema.context import Info
from schema.refs import SkillRef, ToolRef

# Unused tools and skills listed at most (their counts are complete).
UNUSED_LISTED = 100


async def _tool(info: Info, tool_id: str) -> ToolRef | None:
    from schema.tools.types import Tool

    row = await info.context.loaders.tool_by_id.load(tool_id)
    return Tool.from_row(row) if row and await visibility.tool_visible(info, row) else None


async def _skill(info: Info, skill_id: str) -> SkillRef | None:
    from schema.skills.types import Skill

    row = await info.context.loaders.skill_by_id.load(skill_id)
    return Skill.from_row(row) if row and visibility.skill_visible(info, row) else None


@strawberry.type(description="How much a tool was called in the window and how often it failed.")
class ToolUsage:
    tool_id: str = strawberry.field(description="The tool's id, as the call log keeps it.")
    calls: int = strawberry.field(description="Calls in the window (calls waiting for approval left out).")
    failures: int = strawberry.field(description="Calls that FAILED, whatever the code.")
    failure_rate: float = strawberry.field(description="Failures divided by calls.")
    param_invalid: int = strawberry.field(
        description="Calls refused with PARAM_INVALID: arguments that did not fit the tool's input schema."
    )
    param_invalid_rate: float = strawberry.field(
        description="The share of calls refused with PARAM_INVALID: a high rate points at a bad schema or description."
    )

    @strawberry.field(description="The tool; null if it no longer resolves or the caller may not see it.")
    async def tool(self, info: Info) -> ToolRef | None:
        return await _tool(info, self.tool_id)

    @classmethod
    def of(cls, use: service.ToolUse) -> ToolUsage:
        return cls(
            tool_id=use.tool_id,
            calls=use.calls,
            failures=use.failures,
            failure_rate=use.failure_rate,
            param_invalid=use.param_invalid,
            param_invalid_rate=use.param_invalid_rate,
        )


@strawberry.type(description="How many calls failed with one error code.")
class ErrorCodeCount:
    code: str = strawberry.field(description="The envelope's error code (UNKNOWN when none was kept).")
    count: int = strawberry.field(description="Failed calls with that code.")


@strawberry.type(description="One tool's calls and failures in one ISO week (Monday to Sunday, UTC).")
class ToolWeekHealth:
    tool_id: str = strawberry.field(description="The tool's id, as the call log keeps it.")
    week_start: date = strawberry.field(description="The Monday the week starts on (UTC).")
    calls: int = strawberry.field(description="Calls in that week, within the window.")
    failures: int = strawberry.field(description="Calls that FAILED.")
    failure_rate: float = strawberry.field(description="Failures divided by calls.")
    error_codes: list[ErrorCodeCount] = strawberry.field(description="The failures by error code, most frequent first.")

    @strawberry.field(description="The tool; null if it no longer resolves or the caller may not see it.")
    async def tool(self, info: Info) -> ToolRef | None:
        return await _tool(info, self.tool_id)

    @classmethod
    def of(cls, week: service.ToolWeek) -> ToolWeekHealth:
        return cls(
            tool_id=week.tool_id,
            week_start=week.week,
            calls=week.calls,
            failures=week.failures,
            failure_rate=week.failure_rate,
            error_codes=[
                ErrorCodeCount(code=code, count=count)
                for code, count in sorted(week.codes.items(), key=lambda item: (-item[1], item[0]))
            ],
        )


@strawberry.type(description="Call latency in one ISO week (Monday to Sunday, UTC), over every tool.")
class WeekLatency:
    week_start: date = strawberry.field(description="The Monday the week starts on (UTC).")
    calls: int = strawberry.field(description="Calls in that week, within the window.")
    p95_latency_ms: float = strawberry.field(
        description="95th percentile of the calls' latency in ms, interpolated between the closest ranks (PostgreSQL's percentile_cont): exact when the window is read from the raw call log alone, within 0.99 % of it when the report's hourly rollups answer for part of the window."
    )


@strawberry.type(description="How many runs of the window a skill was injected into.")
class SkillRunUsage:
    skill_id: str = strawberry.field(description="The skill's id.")
    runs: int = strawberry.field(description="Runs started in the window with one of the skill's versions injected.")

    @strawberry.field(description="The skill; null if it no longer resolves or the caller may not see it.")
    async def skill(self, info: Info) -> SkillRef | None:
        return await _skill(info, self.skill_id)


@strawberry.type(
    description="A skill version served in the window and how its runs ended: compare a CANDIDATE with PRODUCTION."
)
class SkillVersionOutcome:
    skill_id: str = strawberry.field(description="The skill's id.")
    version: str = strawberry.field(description="The version injected.")
    channel: str | None = strawberry.field(description="The channel it was served from: PRODUCTION or CANDIDATE.")
    runs: int = strawberry.field(description="Runs started in the window with this version injected.")
    succeeded: int = strawberry.field(description="Of those, runs that SUCCEEDED.")
    failed: int = strawberry.field(description="Of those, runs that ended without an answer: FAILED or MAX_STEPS.")

    @strawberry.field(description="The skill; null if it no longer resolves or the caller may not see it.")
    async def skill(self, info: Info) -> SkillRef | None:
        return await _skill(info, self.skill_id)


@strawberry.type(
    description="A space's health over a window, computed from the call log and the runs: what is used, what is not, what fails and how fast tools answer."
)
class HealthReport:
    space_id: strawberry.ID | None = strawberry.field(description="The space; null for a report over every space.")
    since: datetime = strawberry.field(description="Start of the window (inclusive).")
    until: datetime = strawberry.field(description="End of the window (exclusive).")
    calls: int = strawberry.field(description="Tool calls in the window.")
    runs: int = strawberry.field(description="Agent runs started in the window.")
    top_tools: list[ToolUsage] = strawberry.field(description="The 10 most called tools, most calls first.")
    tools: list[ToolUsage] = strawberry.field(
        description="Every tool called in the window, most calls first (its failure and PARAM_INVALID rates)."
    )
    param_invalid: list[ToolUsage] = strawberry.field(
        description="Tools with PARAM_INVALID calls, highest paramInvalidRate first."
    )
    unused_tool_count: int = strawberry.field(
        description="ACTIVE tools visible in the space never called in the window."
    )
    unused_tool_ids: list[str] = strawberry.field(
        description="Their ids, the first 100 by id (the space sees every one of them)."
    )
    top_skills: list[SkillRunUsage] = strawberry.field(
        description="The 10 skills injected into the most runs, most runs first."
    )
    unused_skill_count: int = strawberry.field(
        description="ACTIVE skills the space sees (global and its own) injected into no run of the window."
    )
    unused_skill_ids: list[str] = strawberry.field(description="Their ids, the first 100 by id.")
    tool_weeks: list[ToolWeekHealth] = strawberry.field(
        description="Calls, failures and failure codes per tool and ISO week, by tool then week."
    )
    latency_weeks: list[WeekLatency] = strawberry.field(description="The p95 latency per ISO week, oldest first.")
    skill_versions: list[SkillVersionOutcome] = strawberry.field(
        description="Skill versions served in the window, with their runs' outcomes, by skill, version and channel."
    )

    @strawberry.field(description="The unused tools the caller may see, the first 100 by id.")
    async def unused_tools(self, info: Info) -> list[ToolRef]:
        from schema.tools.types import Tool

        rows = await info.context.loaders.tool_by_id.load_many(self.unused_tool_ids)
        return [Tool.from_row(row) for row in await visibility.visible_tools(info, rows)]

    @strawberry.field(description="The unused skills the caller may see, the first 100 by id.")
    async def unused_skills(self, info: Info) -> list[SkillRef]:
        from schema.skills.types import Skill

        rows = await info.context.loaders.skill_by_id.load_many(self.unused_skill_ids)
        return [Skill.from_row(row) for row in rows if row and visibility.skill_visible(info, row)]

    @classmethod
    def of(cls, report: service.HealthReport) -> HealthReport:
        tools = [ToolUsage.of(use) for use in report.tools]
        return cls(
            space_id=strawberry.ID(report.space_id) if report.space_id else None,
            since=report.since,
            until=report.until,
            calls=report.calls,
            runs=report.runs,
            top_tools=tools[: service.TOP],
            tools=tools,
            param_invalid=sorted(
                (use for use in tools if use.param_invalid),
                key=lambda use: (-use.param_invalid_rate, -use.param_invalid, use.tool_id),
            ),
            unused_tool_count=len(report.unused_tool_ids),
            unused_tool_ids=report.unused_tool_ids[:UNUSED_LISTED],
            top_skills=[SkillRunUsage(skill_id=use.skill_id, runs=use.runs) for use in report.top_skills],
            unused_skill_count=len(report.unused_skill_ids),
            unused_skill_ids=report.unused_skill_ids[:UNUSED_LISTED],
            tool_weeks=[ToolWeekHealth.of(week) for week in report.tool_weeks],
            latency_weeks=[
                WeekLatency(week_start=week.week, calls=week.calls, p95_latency_ms=week.p95_latency_ms)
                for week in report.latency_weeks
            ],
            skill_versions=[
                SkillVersionOutcome(
                    skill_id=outcome.skill_id,
                    version=outcome.version,
                    channel=outcome.channel,
                    runs=outcome.runs,
                    succeeded=outcome.succeeded,
                    failed=outcome.failed,
                )
                for outcome in report.skill_versions
            ],
        )
