"""Every SQL statement of the runtime: runs, their leases, checkpoints, approvals and
traces, conversation turns and the agent inbox."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, delete, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app import leases
from app.gateway.call_log import bounded_value
from app.gateway.models import ToolCall
from app.gateway.repository import PENDING_APPROVAL
from app.pagination import Page, PageRequest, count, fetch_page
from app.runtime.models import AgentMessage, AgentRun, AgentSessionMessage, RunStage, ToolCallApproval
from app.runtime.trace import Stage

RUNNING = "RUNNING"
WAITING_APPROVAL = "WAITING_APPROVAL"


async def get_run(session: AsyncSession, run_id: str) -> AgentRun | None:
    return await session.get(AgentRun, run_id, populate_existing=True)


async def runs_by_ids(session: AsyncSession, run_ids: Sequence[str]) -> list[AgentRun]:
    if not run_ids:
        return []
    return list((await session.scalars(select(AgentRun).where(AgentRun.id.in_(run_ids)))).all())


def _runs_statement(agent_id: str) -> Select[AgentRun]:
    return select(AgentRun).where(AgentRun.agent_id == agent_id)


async def list_runs(session: AsyncSession, agent_id: str, page: PageRequest) -> Page[AgentRun]:
    return await fetch_page(session, _runs_statement(agent_id), AgentRun.id, page)


async def count_runs(session: AsyncSession, agent_id: str) -> int:
    return await count(session, _runs_statement(agent_id))


async def run_by_idempotency_key(session: AsyncSession, agent_id: str, key: str) -> AgentRun | None:
    return await session.scalar(select(AgentRun).where(AgentRun.agent_id == agent_id, AgentRun.idempotency_key == key))


async def forget_idempotency_key(session: AsyncSession, run_id: str) -> None:
    await session.execute(update(AgentRun).where(AgentRun.id == run_id).values(idempotency_key=None))


async def last_turns(
    session: AsyncSession, agent_id: str, session_id: str, limit_turns: int
) -> list[AgentSessionMessage]:
    """The last ``limit_turns`` user/assistant pairs of a conversation, oldest first."""
    statement = (
        select(AgentSessionMessage)
        .where(AgentSessionMessage.agent_id == agent_id, AgentSessionMessage.session_id == session_id)
        .order_by(AgentSessionMessage.id.desc())
        .limit(limit_turns * 2)
    )
    return list(reversed((await session.scalars(statement)).all()))


async def pending_notifications(session: AsyncSession, agent_id: str) -> list[AgentMessage]:
    statement = (
        select(AgentMessage)
        .where(AgentMessage.to_agent_id == agent_id, AgentMessage.type == "notify", AgentMessage.status == "PENDING")
        .order_by(AgentMessage.id)
    )
    return list((await session.scalars(statement)).all())


async def mark_delivered(session: AsyncSession, message_ids: Sequence[str], now: datetime) -> None:
    if message_ids:
        await session.execute(
            update(AgentMessage)
            .where(AgentMessage.id.in_(message_ids), AgentMessage.status == "PENDING")
            .values(status="DELIVERED", delivered_at=now)
        )


async def get_message(session: AsyncSession, message_id: str) -> AgentMessage | None:
    return await session.get(AgentMessage, message_id)


# ---------------------------------------------------------------- leases


_rowcount = leases.rowcount


async def renew_leases(session: AsyncSession, run_ids: Sequence[str], owner_id: str, until: datetime) -> int:
    """Extend this replica's leases on the runs it is executing; returns how many it still holds."""
    return await leases.renew_leases(session, AgentRun, run_ids, owner_id, until)


async def orphaned_run_ids(session: AsyncSession, now: datetime, limit: int) -> list[str]:
    """RUNNING runs whose lease ran out (or that never had one: started before leases existed)."""
    return await leases.orphaned_ids(session, AgentRun, now, limit)


async def take_over(session: AsyncSession, run_id: str, owner_id: str, now: datetime, until: datetime) -> bool:
    """Become the owner of an orphaned run; False when someone else was quicker or it recovered."""
    return await leases.take_over(session, AgentRun, run_id, owner_id, now, until)


async def claim_waiting(session: AsyncSession, run_id: str, owner_id: str, until: datetime) -> bool:
    """Continue a run that waited for approval: only one replica wins."""
    result = await session.execute(
        update(AgentRun)
        .where(AgentRun.id == run_id, AgentRun.status == WAITING_APPROVAL)
        .values(status=RUNNING, owner_id=owner_id, lease_expires_at=until)
    )
    return _rowcount(result) == 1


def checkpoint_values(
    checkpoint: dict[str, Any], *, steps: int, prompt_tokens: int, completion_tokens: int, status: str = RUNNING
) -> dict[str, Any]:
    """What storing a run's state writes on its row. With ``status`` WAITING_APPROVAL the run
    is released: no owner, no lease, nothing held."""
    values: dict[str, Any] = {
        "checkpoint": checkpoint,
        "steps": steps,
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "status": status,
    }
    if status == WAITING_APPROVAL:
        values.update(owner_id=None, lease_expires_at=None)
    return values


# ---------------------------------------------------------------- approvals


async def approvals_by_ids(session: AsyncSession, tool_call_ids: Sequence[str]) -> list[ToolCallApproval]:
    if not tool_call_ids:
        return []
    statement = (
        select(ToolCallApproval)
        .where(ToolCallApproval.tool_call_id.in_(tool_call_ids))
        .execution_options(populate_existing=True)
    )
    return list((await session.scalars(statement)).all())


async def open_approvals_of_run(session: AsyncSession, run_id: str) -> list[ToolCallApproval]:
    """The run's approval requests still waiting for a decision, in the order they were asked."""
    statement = (
        select(ToolCallApproval)
        .where(
            ToolCallApproval.run_id == run_id,
            ToolCallApproval.decision.is_(None),
            ToolCallApproval.settled_at.is_(None),
        )
        .order_by(ToolCallApproval.requested_at, ToolCallApproval.tool_call_id)
    )
    return list((await session.scalars(statement)).all())


async def get_approval(session: AsyncSession, tool_call_id: str) -> ToolCallApproval | None:
    return await session.get(ToolCallApproval, tool_call_id, populate_existing=True)


async def decide_approval(
    session: AsyncSession,
    tool_call_id: str,
    *,
    decision: str,
    decided_by: str | None,
    decided_at: datetime,
    comment: str | None,
    arguments: dict[str, Any] | None,
    require_open_at: datetime | None,
) -> bool:
    """Record a decision on a waiting call; False when it was decided already (or expired,
    when ``require_open_at`` is given)."""
    statement = update(ToolCallApproval).where(
        ToolCallApproval.tool_call_id == tool_call_id, ToolCallApproval.decision.is_(None)
    )
    if require_open_at is not None:
        statement = statement.where(ToolCallApproval.expires_at > require_open_at)
    result = await session.execute(
        statement.values(
            decision=decision, decided_by=decided_by, decided_at=decided_at, comment=comment, arguments=arguments
        )
    )
    return _rowcount(result) == 1


async def refuse_waiting_call(
    session: AsyncSession, tool_call_id: str, error: tuple[str, str, str | None], now: datetime
) -> bool:
    """Write a waiting call's row as FAILED (it will not run); False when it no longer waited."""
    result = await session.execute(
        update(ToolCall)
        .where(ToolCall.id == tool_call_id, ToolCall.status == PENDING_APPROVAL)
        .values(
            status="FAILED",
            result=None,
            error_code=error[0],
            error_message=error[1],
            error_detail=error[2],
            latency_ms=0.0,
            attempts=0,
            started_at=now,
            finished_at=now,
        )
    )
    return _rowcount(result) == 1


async def start_approved_execution(session: AsyncSession, tool_call_id: str, now: datetime) -> bool:
    """Mark an approved call as handed to the gateway; False when that happened before (it may have run)."""
    result = await session.execute(
        update(ToolCallApproval)
        .where(ToolCallApproval.tool_call_id == tool_call_id, ToolCallApproval.execution_started_at.is_(None))
        .values(execution_started_at=now)
    )
    return _rowcount(result) == 1


async def settle_approvals(session: AsyncSession, tool_call_ids: Sequence[str], now: datetime) -> None:
    if tool_call_ids:
        await session.execute(
            update(ToolCallApproval)
            .where(ToolCallApproval.tool_call_id.in_(tool_call_ids), ToolCallApproval.settled_at.is_(None))
            .values(settled_at=now)
        )


async def runs_ready_to_continue(session: AsyncSession, now: datetime, limit: int) -> list[str]:
    """Runs waiting for approval of which a call was decided, or ran out of time, and is not settled."""
    statement = (
        select(ToolCallApproval.run_id)
        .join(AgentRun, AgentRun.id == ToolCallApproval.run_id)
        .where(
            AgentRun.status == WAITING_APPROVAL,
            ToolCallApproval.settled_at.is_(None),
            or_(ToolCallApproval.decision.is_not(None), ToolCallApproval.expires_at < now),
        )
        .distinct()
        .limit(limit)
    )
    return list((await session.scalars(statement)).all())


async def run_has_decisions(session: AsyncSession, run_id: str, now: datetime) -> bool:
    """Whether a call of the run was decided, or ran out of time, and is not settled yet."""
    statement = (
        select(ToolCallApproval.tool_call_id)
        .where(
            ToolCallApproval.run_id == run_id,
            ToolCallApproval.settled_at.is_(None),
            or_(ToolCallApproval.decision.is_not(None), ToolCallApproval.expires_at < now),
        )
        .limit(1)
    )
    return (await session.scalar(statement)) is not None


def _pending_approvals_statement(space_id: str, now: datetime) -> Select[ToolCall]:
    waiting = select(ToolCallApproval.tool_call_id).where(
        ToolCallApproval.space_id == space_id,
        ToolCallApproval.settled_at.is_(None),
        ToolCallApproval.decision.is_(None),
        ToolCallApproval.expires_at > now,
    )
    return select(ToolCall).where(
        ToolCall.space_id == space_id, ToolCall.status == PENDING_APPROVAL, ToolCall.id.in_(waiting)
    )


async def list_pending_approvals(
    session: AsyncSession, space_id: str, now: datetime, page: PageRequest
) -> Page[ToolCall]:
    return await fetch_page(session, _pending_approvals_statement(space_id, now), ToolCall.id, page)


async def count_pending_approvals(session: AsyncSession, space_id: str, now: datetime) -> int:
    return await count(session, _pending_approvals_statement(space_id, now))


# ---------------------------------------------------------------- the run's tool-call rows


async def calls_by_ids(session: AsyncSession, call_ids: Sequence[str]) -> dict[str, ToolCall]:
    if not call_ids:
        return {}
    statement = select(ToolCall).where(ToolCall.id.in_(call_ids)).execution_options(populate_existing=True)
    return {call.id: call for call in (await session.scalars(statement)).all()}


async def write_call_row(session: AsyncSession, row: dict[str, Any], *, replace: bool) -> None:
    """A call-log row the runtime writes itself (a call waiting for approval, refused,
    or interrupted by a crash): inserted, or written over its placeholder."""
    if replace:
        values = {key: value for key, value in row.items() if key != "id"}
        await session.execute(update(ToolCall).where(ToolCall.id == row["id"]).values(**values))
    else:
        session.add(ToolCall(**row))


# ---------------------------------------------------------------- traces


def stage_rows(run_id: str, stages: Sequence[Stage], max_bytes: int) -> list[dict[str, Any]]:
    """The stages as rows, each one's details within ``max_bytes`` of JSON (else stored as the call log's marker)."""
    return [
        {
            "id": stage.id,
            "run_id": run_id,
            "kind": stage.kind,
            "step": stage.step,
            "started_at": stage.started_at,
            "finished_at": stage.finished_at,
            "duration_ms": stage.duration_ms,
            "detail": bounded_value(stage.detail, max_bytes),
        }
        for stage in stages
    ]


async def stages_by_run_ids(session: AsyncSession, run_ids: Sequence[str]) -> dict[str, list[RunStage]]:
    result: dict[str, list[RunStage]] = {}
    if not run_ids:
        return result
    statement = (
        select(RunStage).where(RunStage.run_id.in_(run_ids)).order_by(RunStage.run_id, RunStage.started_at, RunStage.id)
    )
    for stage in (await session.scalars(statement)).all():
        result.setdefault(stage.run_id, []).append(stage)
    return result


async def prune_stages(session: AsyncSession, before: datetime) -> int:
    result = await session.execute(delete(RunStage).where(RunStage.started_at < before))
    return _rowcount(result)
