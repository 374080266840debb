"""The health report: which skills and tools a space uses, which it does not, how tools
fail and how fast they answer, and how each served skill version's runs ended.

Everything is aggregated in SQL (``app.reports.repository``); what comes back is one row
per day, tool, status and code (and per week for the latency), so the rest is arithmetic on
a few thousand rows at most.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import DomainError, ForbiddenError, NotFoundError
from app.gateway.envelope import PARAM_INVALID
from app.principal import Principal, Role
from app.reports import repository, rollup
from app.reports.models import ALL_SPACES, DAY, HOUR
from app.reports.repository import PERCENTILE, week_start
from app.spaces import repository as spaces_repository

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


async def _histogram_p95(
    session: AsyncSession,
    space_id: str | None,
    scope: str,
    parts: rollup.Plan,
    grains: list[tuple[str, list[tuple[datetime, datetime]]]],
) -> dict[date, float]:
    """The p95 per week from the latency histograms: the rollups' and the raw rows' (within
    ``rollup.RELATIVE_ERROR`` of the exact figure)."""
    histograms: dict[date, Counter[int]] = defaultdict(Counter)
    for start, end in parts.raw:
        for day, bucket, calls in await repository.raw_latency(session, space_id, start, end):
            histograms[week_start(day)][bucket] += calls
    for grain, ranges in grains:
        for monday, bucket, calls in await repository.rollup_latency(session, scope, grain, ranges):
            histograms[monday][bucket] += calls
    return {monday: rollup.percentile_of(histogram, PERCENTILE) for monday, histogram in histograms.items()}


async def health_report(
    session: AsyncSession,
    principal: Principal,
    space_id: str | None,
    since: datetime,
    until: datetime,
    progress: Callable[[str], None] | None = None,
    *,
    rollups: bool = True,
) -> HealthReport:
    """The report of one space (every space for None) over [since, until); without
    ``rollups``, from the raw rows alone (exact, and as slow as the window is full)."""
    if not may_read_report(principal, space_id):
        raise ForbiddenError("Only ADMIN keys, and SPACE_ADMIN or VIEWER keys of the space, read its health report.")
    if space_id is not None and await spaces_repository.get_space(session, space_id) is None:
        # Not an empty report (whose unused tools would be every global one): there is no such space.
        raise NotFoundError("Space", space_id, ["spaceId"])
    step = progress or (lambda _phase: None)
    step("calls per tool and week")
    # Another space's rows are never read: a space's rollup rows carry its id; ALL_SPACES rows
    # are read only for the every-space report (a space named like them is read raw).
    frontier, open_hours = (None, []) if space_id == ALL_SPACES or not rollups else await rollup.state(session)
    parts = rollup.plan(since, until, frontier, open_hours)
    scope = space_id if space_id is not None else ALL_SPACES
    grains = [(grain, ranges) for grain, ranges in ((DAY, parts.days), (HOUR, parts.hours)) if ranges]
    rows: list[tuple[date, str, str, str | None, int]] = []
    calls_per_day: Counter[date] = Counter()
    for start, end in parts.raw:
        for group in await repository.call_groups(session, space_id, start, end):
            rows.append((week_start(group.day), group.tool_id, group.status, group.error_code, group.calls))
            calls_per_day[group.day] += group.calls
    for grain, ranges in grains:
        rows += await repository.rollup_call_groups(session, scope, grain, ranges)
    tools: dict[str, ToolUse] = {}
    weeks: dict[tuple[str, date], ToolWeek] = {}
    calls_per_week: Counter[date] = Counter()
    for monday, tool_id, status, error_code, calls in rows:
        use = tools.setdefault(tool_id, ToolUse(tool_id))
        week = weeks.setdefault((tool_id, monday), ToolWeek(tool_id, monday))
        use.calls += calls
        week.calls += calls
        calls_per_week[monday] += calls
        if status == "FAILED":
            use.failures += calls
            week.failures += calls
            week.codes[error_code or "UNKNOWN"] += calls
        if error_code == PARAM_INVALID:
            use.param_invalid += calls

    step("p95 latency per week")
    if parts.uses_rollups:
        p95 = await _histogram_p95(session, space_id, scope, parts, grains)
    else:
        # Nothing rolled up in the window: the exact figure, from the raw rows.
        p95 = await repository.weekly_p95(session, space_id, since, until, dict(calls_per_day))

    step("runs per skill version")
    skills: dict[str, SkillUse] = {}
    versions: dict[tuple[str, str, str | None], SkillVersionOutcome] = {}
    runs = 0

    def count_version(skill_id: str, version: str, channel: str | None, status: str, count: int) -> None:
        skills.setdefault(skill_id, SkillUse(skill_id)).runs += count
        outcome = versions.setdefault((skill_id, version, channel), SkillVersionOutcome(skill_id, version, channel))
        outcome.runs += count
        if status == SUCCEEDED:
            outcome.succeeded += count
        elif status in FAILED_STATUSES:
            outcome.failed += count

    for start, end in parts.raw:
        for served, status, count in await repository.run_groups(session, space_id, start, end):
            runs += count
            for item in served:
                count_version(str(item.get("skillId")), str(item.get("version")), item.get("channel"), status, count)
    for grain, ranges in grains:
        for skill_id, version, channel, status, count in await repository.rollup_runs(session, scope, grain, ranges):
            if skill_id:
                count_version(skill_id, version, channel or None, status, count)
            else:
                runs += count

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
