"""Known call-log rows and runs for the health report's tests: every figure is worked out by hand.

Space A, window 2026-11-02 .. 2026-11-16 (two ISO weeks):

- week 1: bt_calculator 20 calls at 1..20 ms (2 PARAM_INVALID, 1 TIMEOUT); the custom
  tool 5 calls at 100..500 ms. p95 of the 25: rank 22.8, between 300 and 400: 380.
- week 2: bt_calculator 10 calls at 10..100 ms (1 PARAM_INVALID). p95: rank 8.55: 95.5.
- a call just before and one at the end of the window, one waiting for approval, and a
  call of space B (7777 ms, TIMEOUT): none of them in A's figures.
- runs: sk_email_draft 1.0.0 PRODUCTION succeeded and failed, 1.1.0 CANDIDATE succeeded
  (with sk_meeting_summary 1.0.0) and MAX_STEPS; a run without skills; one after the
  window; one in B (sk_data_calculation, failed).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.gateway.models import ToolCall
from app.ids import new_id
from app.runtime.models import AgentRun

MONDAY = datetime(2026, 11, 2, tzinfo=UTC)
SINCE = MONDAY
UNTIL = MONDAY + timedelta(days=14)


def call(
    space_id: str, tool_id: str, at: datetime, latency: float, status: str = "SUCCESS", code: str | None = None
) -> ToolCall:
    call_id = new_id("tc_")
    return ToolCall(
        id=call_id,
        tool_id=tool_id,
        tool_type="BUILTIN",
        space_id=space_id,
        arguments={},
        status=status,
        error_code=code,
        latency_ms=latency,
        attempts=1,
        trace_id=call_id,
        started_at=at,
        finished_at=at,
    )


def run(space_id: str, at: datetime, status: str, served: list[tuple[str, str, str]]) -> AgentRun:
    return AgentRun(
        id=new_id("run_"),
        agent_id="ag_report",
        space_id=space_id,
        status=status,
        input="x",
        model="m",
        skill_versions=[
            {"skillId": skill, "version": version, "channel": channel} for skill, version, channel in served
        ],
        started_at=at,
        finished_at=at,
    )


async def seed(session_factory: async_sessionmaker[AsyncSession], space_a: str, space_b: str, custom: str) -> None:
    rows: list[Any] = []
    week1, week2 = MONDAY, MONDAY + timedelta(days=7)
    # Week 1: the calculator 20 calls at 1..20 ms, three failures; the custom tool 5 calls at 100..500 ms.
    for index in range(20):
        status, code = ("FAILED", "PARAM_INVALID") if index in (0, 1) else ("SUCCESS", None)
        if index == 2:
            status, code = "FAILED", "TIMEOUT"
        rows.append(call(space_a, "bt_calculator", week1 + timedelta(hours=index), index + 1, status, code))
    for index in range(5):
        rows.append(call(space_a, custom, week1 + timedelta(days=6, hours=23, minutes=index), 100.0 * (index + 1)))
    # Week 2: 10 calls at 10..100 ms, one PARAM_INVALID.
    for index in range(10):
        status, code = ("FAILED", "PARAM_INVALID") if index == 9 else ("SUCCESS", None)
        rows.append(
            call(space_a, "bt_calculator", week2 + timedelta(days=1, hours=index), 10.0 * (index + 1), status, code)
        )
    # Outside the window, waiting for approval, or in another space: never counted for A.
    rows.append(call(space_a, "bt_calculator", SINCE - timedelta(microseconds=1), 9999))
    rows.append(call(space_a, "bt_calculator", UNTIL, 9999))
    rows.append(call(space_a, "bt_calculator", week1, 0.0, "PENDING_APPROVAL"))
    rows.append(call(space_b, "bt_calculator", week1 + timedelta(hours=1), 7777, "FAILED", "TIMEOUT"))
    rows += [
        run(space_a, week1, "SUCCEEDED", [("sk_email_draft", "1.0.0", "PRODUCTION")]),
        run(space_a, week1 + timedelta(days=1), "FAILED", [("sk_email_draft", "1.0.0", "PRODUCTION")]),
        run(
            space_a,
            week2,
            "SUCCEEDED",
            [("sk_email_draft", "1.1.0", "CANDIDATE"), ("sk_meeting_summary", "1.0.0", "PRODUCTION")],
        ),
        run(space_a, week2 + timedelta(days=2), "MAX_STEPS", [("sk_email_draft", "1.1.0", "CANDIDATE")]),
        run(space_a, week2 + timedelta(days=3), "SUCCEEDED", []),
        run(space_a, UNTIL, "FAILED", [("sk_knowledge_answer", "1.0.0", "PRODUCTION")]),
        run(space_b, week1, "FAILED", [("sk_data_calculation", "1.0.0", "PRODUCTION")]),
    ]
    async with session_factory() as session, session.begin():
        session.add_all(rows)
