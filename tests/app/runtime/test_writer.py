"""The run writer: a run's guarded UPDATE with its stages and turns in one transaction, on both
backends (SQLite straight on the driver, PostgreSQL as one statement on a pooled connection's
driver); what it writes reads back through the ORM as if the ORM had written it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.ids import new_id
from app.runtime import repository
from app.runtime.models import AgentMessage, AgentRun, AgentSessionMessage, RunStage
from app.runtime.trace import Stage
from app.runtime.writer import Notification, RunWriter

OWNER = "rep_writer_test"
STARTED = datetime(2026, 12, 1, 23, 59, 58, 123456, tzinfo=UTC)


async def new_run(session_factory: async_sessionmaker[AsyncSession], *, owner: str = OWNER) -> str:
    run_id = new_id("run_")
    async with session_factory() as session, session.begin():
        session.add(
            AgentRun(
                id=run_id,
                agent_id="agt_writer",
                space_id="sp_writer",
                status="RUNNING",
                input="查一下",
                steps=0,
                prompt_tokens=0,
                completion_tokens=0,
                model="m",
                skill_versions=[],
                prompt_warnings=[],
                started_at=STARTED,
                owner_id=owner,
                lease_expires_at=STARTED + timedelta(seconds=30),
                takeovers=0,
                checkpoint={"version": 1},
            )
        )
    return run_id


def run_row(*, owner: str = OWNER, agent_id: str = "agt_writer") -> dict[str, Any]:
    """Every column of a new RUNNING run, as the runtime inserts it."""
    return {
        "id": new_id("run_"),
        "agent_id": agent_id,
        "space_id": "sp_writer",
        "session_id": None,
        "parent_run_id": None,
        "delegation_depth": 0,
        "principal_key_id": "key_writer",
        "status": "RUNNING",
        "input": "查一下 ✓",
        "output": None,
        "error_code": None,
        "error_message": None,
        "error_detail": None,
        "steps": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "model": "m",
        "skill_versions": [],
        "prompt_warnings": [],
        "idempotency_key": None,
        "request_hash": None,
        "started_at": STARTED,
        "finished_at": None,
        "owner_id": owner,
        "lease_expires_at": STARTED + timedelta(seconds=30),
        "takeovers": 0,
        "checkpoint": {"version": 1, "principal": {"keyId": "key_writer"}},
    }


@contextmanager
def statements_sent(engine: AsyncEngine) -> Iterator[list[str]]:
    """The statements sent meanwhile through asyncpg's connection methods (execute, fetch…), on
    any pooled connection: SQLAlchemy's BEGIN and COMMIT are among them (its prepared statements
    are not: they run through asyncpg's PreparedStatement); PostgreSQL only. asyncpg calls its
    query loggers soon after the statement (``loop.call_soon``): yield to the loop once before
    reading the list."""
    sent: list[str] = []
    watched: set[int] = set()

    def log(query: Any) -> None:
        sent.append(query.query)

    def on_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        driver = dbapi_connection.driver_connection
        if id(driver) not in watched:
            watched.add(id(driver))
            driver.add_query_logger(log)

    event.listen(engine.sync_engine.pool, "checkout", on_checkout)
    try:
        yield sent
    finally:
        event.remove(engine.sync_engine.pool, "checkout", on_checkout)


def stage(step: int, detail: dict[str, object]) -> Stage:
    finished = STARTED + timedelta(milliseconds=12.5)
    return Stage("MODEL_CALL", STARTED, finished, detail, step=step)


async def stored(session_factory: async_sessionmaker[AsyncSession], run_id: str) -> tuple[AgentRun, list[RunStage]]:
    async with session_factory() as session:
        run = await repository.get_run(session, run_id)
        stages = (await repository.stages_by_run_ids(session, [run_id])).get(run_id, [])
    assert run is not None
    return run, stages


async def test_writes_the_row_and_its_stages_and_they_read_back_as_written(
    engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    writer = RunWriter(engine)
    run_id = await new_run(session_factory)
    detail = {"reply": "答案是 4", "big": 123456789012345678901234567890, "nested": {"a": [1, 2.5, None]}}
    checkpoint = {"version": 1, "messages": [{"role": "user", "content": "查一下 ✓"}], "pending": []}
    values = repository.checkpoint_values(checkpoint, steps=2, prompt_tokens=40, completion_tokens=9)
    rows = repository.stage_rows(run_id, [stage(2, detail)], 64 * 1024)

    assert await writer.write(run_id, OWNER, values, stages=rows)

    run, stages = await stored(session_factory, run_id)
    assert (run.steps, run.prompt_tokens, run.completion_tokens, run.status) == (2, 40, 9, "RUNNING")
    assert run.checkpoint == checkpoint
    assert run.owner_id == OWNER
    [read] = stages
    assert (read.id, read.kind, read.step, read.duration_ms) == (rows[0]["id"], "MODEL_CALL", 2, 12.5)
    assert read.detail == detail
    assert read.started_at == STARTED and read.started_at.tzinfo is not None
    await writer.close()


async def test_finishing_writes_nulls_the_error_and_the_turns(
    engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    writer = RunWriter(engine)
    run_id = await new_run(session_factory)
    finished = STARTED + timedelta(seconds=3)
    values = {
        "status": "FAILED",
        "output": None,
        "finished_at": finished,
        "checkpoint": None,
        "owner_id": None,
        "lease_expires_at": None,
        "error_code": "MODEL_ERROR",
        "error_message": "The model endpoint answered with an error (HTTP 503).",
        "error_detail": 'HTTP 503: {"message": "down"}',
    }
    turns = [
        {
            "id": f"msg_writer{suffix}",
            "agent_id": "agt_writer",
            "session_id": "conversation-1",
            "run_id": run_id,
            "role": role,
            "content": content,
            "created_at": finished,
        }
        for suffix, role, content in (("a", "user", "问题"), ("b", "assistant", "回答"))
    ]

    assert await writer.write(run_id, OWNER, values, turns=turns)

    run, _ = await stored(session_factory, run_id)
    assert (run.status, run.finished_at, run.checkpoint, run.owner_id, run.lease_expires_at) == (
        "FAILED",
        finished,
        None,
        None,
        None,
    )
    assert (run.error_code, run.error_detail) == ("MODEL_ERROR", 'HTTP 503: {"message": "down"}')
    async with session_factory() as session:
        read = (
            await session.scalars(
                select(AgentSessionMessage).where(AgentSessionMessage.run_id == run_id).order_by(AgentSessionMessage.id)
            )
        ).all()
    assert [(turn.role, turn.content, turn.created_at) for turn in read] == [
        ("user", "问题", finished),
        ("assistant", "回答", finished),
    ]
    # Finished: no longer RUNNING, so a late write of the old owner changes nothing.
    late = repository.checkpoint_values({"version": 1}, steps=9, prompt_tokens=0, completion_tokens=0)
    assert not await writer.write(run_id, OWNER, late, stages=repository.stage_rows(run_id, [stage(9, {})], 1024))
    run, stages = await stored(session_factory, run_id)
    assert (run.status, run.steps, stages) == ("FAILED", 0, [])
    await writer.close()


async def test_another_owner_writes_nothing_not_even_its_stages(
    engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    writer = RunWriter(engine)
    run_id = await new_run(session_factory, owner="rep_the_new_owner")
    values = repository.checkpoint_values({"version": 1, "stolen": True}, steps=5, prompt_tokens=1, completion_tokens=1)

    written = await writer.write(run_id, OWNER, values, stages=repository.stage_rows(run_id, [stage(5, {})], 1024))

    assert written is False
    run, stages = await stored(session_factory, run_id)
    assert (run.checkpoint, run.steps, stages) == ({"version": 1}, 0, [])
    await writer.close()


async def test_a_failing_write_leaves_nothing_behind_and_the_next_one_works(
    engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    writer = RunWriter(engine)
    run_id = await new_run(session_factory)
    first = repository.stage_rows(run_id, [stage(1, {"n": 1})], 1024)
    assert await writer.write(
        run_id, OWNER, repository.checkpoint_values({}, steps=1, prompt_tokens=0, completion_tokens=0), stages=first
    )

    # The same stage id again: the INSERT fails, so the UPDATE before it must not stay.
    with pytest.raises(Exception):  # noqa: B017 - the driver's integrity error, whichever driver
        await writer.write(
            run_id, OWNER, repository.checkpoint_values({}, steps=2, prompt_tokens=0, completion_tokens=0), stages=first
        )
    run, stages = await stored(session_factory, run_id)
    assert (run.steps, len(stages)) == (1, 1)

    again = repository.stage_rows(run_id, [stage(3, {"n": 3})], 1024)
    assert await writer.write(
        run_id, OWNER, repository.checkpoint_values({}, steps=3, prompt_tokens=0, completion_tokens=0), stages=again
    )
    run, stages = await stored(session_factory, run_id)
    assert (run.steps, len(stages)) == (3, 2)
    await writer.close()


async def test_many_runs_writing_at_once_all_land(
    engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    writer = RunWriter(engine)
    run_ids = [await new_run(session_factory) for _ in range(12)]

    async def steps(run_id: str) -> None:
        for step in range(1, 4):
            values = repository.checkpoint_values({"step": step}, steps=step, prompt_tokens=step, completion_tokens=0)
            rows = repository.stage_rows(run_id, [stage(step, {"step": step})], 1024)
            assert await writer.write(run_id, OWNER, values, stages=rows)

    await asyncio.gather(*(steps(run_id) for run_id in run_ids))

    for run_id in run_ids:
        run, stages = await stored(session_factory, run_id)
        assert (run.steps, run.checkpoint) == (3, {"step": 3})
        assert sorted(item.step for item in stages if item.step is not None) == [1, 2, 3]
    await writer.close()


async def test_after_close_writes_still_land(
    engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    writer = RunWriter(engine)
    run_id = await new_run(session_factory)
    await writer.close()

    assert await writer.write(
        run_id, OWNER, repository.checkpoint_values({}, steps=4, prompt_tokens=0, completion_tokens=0)
    )
    run, _ = await stored(session_factory, run_id)
    assert run.steps == 4


async def test_creating_inserts_the_run_and_reads_its_agents_pending_notifications(
    engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    agent_id = new_id("agt_")
    async with session_factory() as session, session.begin():
        for index, (kind, status, to) in enumerate(
            [
                ("notify", "PENDING", agent_id),
                ("notify", "DELIVERED", agent_id),
                ("request", "PENDING", agent_id),
                ("notify", "PENDING", "agt_someone_else"),
                ("notify", "PENDING", agent_id),
            ]
        ):
            session.add(
                AgentMessage(
                    id=f"msg_writer_{agent_id}_{index}",
                    space_id="sp_writer",
                    from_agent_id=None if index == 4 else "agt_sender",
                    to_agent_id=to,
                    type=kind,
                    content=f"message {index} ✓",
                    status=status,
                    created_at=STARTED,
                )
            )
    writer = RunWriter(engine)
    row = run_row(agent_id=agent_id)

    notifications = await writer.create(row)

    assert notifications == [
        Notification(f"msg_writer_{agent_id}_0", "agt_sender", "message 0 ✓"),
        Notification(f"msg_writer_{agent_id}_4", None, "message 4 ✓"),
    ]
    run, stages = await stored(session_factory, row["id"])
    assert {column: getattr(run, column) for column in row} == row
    assert stages == []
    # The same id again: the insert fails and says so.
    with pytest.raises(Exception):  # noqa: B017 - the driver's integrity error, whichever driver
        await writer.create(row)
    await writer.close()


@pytest.mark.backends("postgresql")  # the statements on the wire are PostgreSQL's (SQLite's: the tests above)
async def test_on_postgresql_a_write_and_a_creation_are_one_statement_each(engine: AsyncEngine) -> None:
    assert engine.dialect.name == "postgresql"
    writer = RunWriter(engine)
    row = run_row()
    with statements_sent(engine) as sent:
        await writer.create(row)
        await asyncio.sleep(0)
    assert len(sent) == 1 and "INSERT INTO agent_run" in sent[0], sent

    values = repository.checkpoint_values({"version": 1}, steps=1, prompt_tokens=3, completion_tokens=1)
    stages = repository.stage_rows(row["id"], [stage(1, {"n": 1}), stage(1, {"n": 2}), stage(1, {"n": 3})], 1024)
    turns = [
        {
            "id": f"msg_one_statement{suffix}",
            "agent_id": row["agent_id"],
            "session_id": "conversation-2",
            "run_id": row["id"],
            "role": role,
            "content": role,
            "created_at": STARTED,
        }
        for suffix, role in (("a", "user"), ("b", "assistant"))
    ]
    with statements_sent(engine) as sent:
        assert await writer.write(row["id"], OWNER, values, stages=stages, turns=turns)
        await asyncio.sleep(0)
    # No BEGIN or COMMIT around it: the statement is its own transaction.
    assert len(sent) == 1 and sent[0].startswith("WITH run AS (UPDATE agent_run"), sent
    await writer.close()
