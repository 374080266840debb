"""The health report: which skills and tools a space uses, which it does not, how tools
fail and how fast they answer, and how each served skill version's runs ended.

Everything is aggregated in SQL (``app.reports.repository``); what comes back is one row
per day, tool, status and code (and per week for the latency), so the rest is arithmetic on
a few thousand rows at most.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import DomainError, ForbiddenError
from app.gateway.envelope import PARAM_INVALID
from app.principal import Principal, Role
from app.reports import repository
from app.reports.repository import week_start

TOP = 10
DEFAULT_WINDOW = timedelta(days=30)
# Bounds the work: at most 53 weeks of rows to aggregate and percentiles to compute.
MAX_WINDOW = timedelta(days=366)
SUCCEEDED = "SUCCEEDED"
# Runs that ended without an answer.
FAILED_STATUSES = frozenset({"FAILED", "MAX_STEPS"})


@dataclass
class ToolUse:
    tool_id: str
    calls: int = 0
    failures: int = 0
    param_invalid: int = 0

    @property
    def failure_rate(self) -> float:
        return self.failures / self.calls if self.calls else 0.0

    @property
    def param_invalid_rate(self) -> float:
        return self.param_invalid / self.calls if self.calls else 0.0


@dataclass
class ToolWeek:
    tool_id: str
    week: date
    calls: int = 0
    failures: int = 0
    codes: Counter[str] = field(default_factory=Counter)

    @property
    def failure_rate(self) -> float:
        return self.failures / self.calls if self.calls else 0.0


@dataclass(frozen=True)
class WeekLatency:
    week: date
    calls: int
    p95_latency_ms: float


@dataclass
class SkillUse:
    skill_id: str
    runs: int = 0


@dataclass
class SkillVersionOutcome:
    skill_id: str
    version: str
    channel: str | None
    runs: int = 0
    succeeded: int = 0
    failed: int = 0


@dataclass
class HealthReport:
    space_id: str | None
    since: datetime
    until: datetime
    calls: int
    runs: int
    tools: list[ToolUse]
    skills: list[SkillUse]
    unused_tool_ids: list[str]
    unused_skill_ids: list[str]
    tool_weeks: list[ToolWeek]
    latency_weeks: list[WeekLatency]
    skill_versions: list[SkillVersionOutcome]

    @property
    def top_tools(self) -> list[ToolUse]:
        return self.tools[:TOP]

    @property
    def top_skills(self) -> list[SkillUse]:
        return self.skills[:TOP]


def may_read_report(principal: Principal, space_id: str | None) -> bool:
    """ADMIN: any space, or all of them; SPACE_ADMIN and VIEWER: their own space."""
    if principal.is_admin:
        return True
    return space_id is not None and space_id == principal.space_id and principal.role in (Role.SPACE_ADMIN, Role.VIEWER)


def window(since: datetime | None, until: datetime | None, now: datetime) -> tuple[datetime, datetime]:
    """The report's window: ``until`` defaults to now, ``since`` to 30 days before it; at most 366 days."""
    end = until or now
    start = since or end - DEFAULT_WINDOW
    if start >= end:
        raise DomainError("INVALID", "since must be before until.", ["since"])
    if end - start > MAX_WINDOW:
        raise DomainError("INVALID", f"The window is at most {MAX_WINDOW.days} days.", ["since"])
    return start, end


async def health_report(
    session: AsyncSession,
    principal: Principal,
    space_id: str | None,
    since: datetime,
    until: datetime,
    progress: Callable[[str], None] | None = None,
) -> HealthReport:
    """The report of one space (every space for None) over [since, until)."""
    if not may_read_report(principal, space_id):
        raise ForbiddenError("Only ADMIN keys, and SPACE_ADMIN or VIEWER keys of the space, read its health report.")
    step = progress or (lambda _phase: None)
    step("calls per tool and day")
    groups = await repository.call_groups(session, space_id, since, until)
    tools: dict[str, ToolUse] = {}
    weeks: dict[tuple[str, date], ToolWeek] = {}
    calls_per_day: Counter[date] = Counter()
    for group in groups:
        use = tools.setdefault(group.tool_id, ToolUse(group.tool_id))
        monday = week_start(group.day)
        week = weeks.setdefault((group.tool_id, monday), ToolWeek(group.tool_id, monday))
        use.calls += group.calls
        week.calls += group.calls
        calls_per_day[group.day] += group.calls
        if group.status == "FAILED":
            use.failures += group.calls
            week.failures += group.calls
            week.codes[group.error_code or "UNKNOWN"] += group.calls
        if group.error_code == PARAM_INVALID:
            use.param_invalid += group.calls
    step("p95 latency per week")
    p95 = await repository.weekly_p95(session, space_id, since, until, dict(calls_per_day))
    calls_per_week: Counter[date] = Counter()
    for day, calls in calls_per_day.items():
        calls_per_week[week_start(day)] += calls

    step("runs per skill version")
    skills: dict[str, SkillUse] = {}
    versions: dict[tuple[str, str, str | None], SkillVersionOutcome] = {}
    runs = 0
    for served, status, count in await repository.run_groups(session, space_id, since, until):
        runs += count
        for item in served:
            skill_id, version, channel = str(item.get("skillId")), str(item.get("version")), item.get("channel")
            skills.setdefault(skill_id, SkillUse(skill_id)).runs += count
            outcome = versions.setdefault((skill_id, version, channel), SkillVersionOutcome(skill_id, version, channel))
            outcome.runs += count
            if status == SUCCEEDED:
                outcome.succeeded += count
            elif status in FAILED_STATUSES:
                outcome.failed += count

    step("unused tools and skills")
    used_tools = set(tools)
    used_skills = set(skills)
    by_use = sorted(tools.values(), key=lambda use: (-use.calls, use.tool_id))
    return HealthReport(
        space_id=space_id,
        since=since,
        until=until,
        calls=sum(use.calls for use in tools.values()),
        runs=runs,
        tools=by_use,
        skills=sorted(skills.values(), key=lambda use: (-use.runs, use.skill_id)),
        unused_tool_ids=[
            tool_id for tool_id in await repository.active_tool_ids(session, space_id) if tool_id not in used_tools
        ],
        unused_skill_ids=[
            skill_id for skill_id in await repository.active_skill_ids(session, space_id) if skill_id not in used_skills
        ],
        tool_weeks=sorted(weeks.values(), key=lambda week: (week.tool_id, week.week)),
        latency_weeks=[
            WeekLatency(monday, calls_per_week[monday], p95[monday])
            for monday in sorted(p95)
            if monday in calls_per_week
        ],
        skill_versions=sorted(
            versions.values(), key=lambda outcome: (outcome.skill_id, outcome.version, outcome.channel or "")
        ),
    )
