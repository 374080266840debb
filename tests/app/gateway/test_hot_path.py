"""The gateway's hot path: the cached tool resolution (and what drops it), the call-log
writer's group commit, and the in-process rate limiter's sweeps."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from limits import parse
from limits.aio.strategies import MovingWindowRateLimiter
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.db import utcnow
from app.gateway.call_log import CallLog, CallLogClosedError, CallLogWriteError
from app.gateway.models import ToolCall
from app.gateway.quotas import SweepingMemoryStorage
from app.gateway.service import ToolGateway
from app.ids import new_id
from app.principal import SYSTEM_PRINCIPAL
from app.spaces.models import SYSTEM_SPACE_ID
from app.tools.models import ToolDefinition, ToolSpaceBinding
from tests.conftest import Keys

CALCULATOR = "bt_calculator"
ONE_PLUS_ONE = {"expression": "1 + 1"}


def services(app_and_services: Any) -> Any:
    return app_and_services.state.services


async def calculate(gateway: ToolGateway, space_id: str = SYSTEM_SPACE_ID) -> Any:
    return await gateway.execute(SYSTEM_PRINCIPAL, space_id, CALCULATOR, ONE_PLUS_ONE)


class TestResolutionFollowsTheCatalog:
    async def test_a_tool_disabled_through_any_session_is_refused_by_the_next_call(
        self, app_and_services: Any, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        gateway = services(app_and_services).gateway
        assert (await calculate(gateway)).ok
        assert (await calculate(gateway)).ok  # now from the cache
        async with session_factory() as session, session.begin():
            tool = await session.get(ToolDefinition, CALCULATOR)
            assert tool is not None
            tool.status = "DISABLED"
        refused = await calculate(gateway)
        assert refused.error is not None and refused.error.code == "TOOL_NOT_AVAILABLE"

    async def test_binding_a_global_tool_to_another_space_is_seen_at_once(
        self, app_and_services: Any, session_factory: async_sessionmaker[AsyncSession], keys: Keys
    ) -> None:
        gateway = services(app_and_services).gateway
        alpha = await keys.space("alpha")
        assert (await calculate(gateway, alpha.id)).ok
        async with session_factory() as session, session.begin():
            session.add(ToolSpaceBinding(tool_id=CALCULATOR, space_id=SYSTEM_SPACE_ID))
        refused = await calculate(gateway, alpha.id)
        assert refused.error is not None and refused.error.code == "TOOL_NOT_AVAILABLE"
        assert (await calculate(gateway, SYSTEM_SPACE_ID)).ok

    async def test_a_change_nobody_announced_is_seen_after_the_ttl(
        self, app_and_services: Any, engine: AsyncEngine
    ) -> None:
        """A write outside any ORM session (as another process's would be, without a shared
        bus) is not heard of: the entry is used until its TTL runs out, then read again."""
        shared = services(app_and_services).gateway
        gateway = ToolGateway(
            session_factory=shared.session_factory,
            executors=shared.executors,
            quotas=shared.quotas,
            bus=shared.bus,
            call_log=shared.call_log,
            catalog_ttl_s=0.3,
        )
        assert (await calculate(gateway)).ok
        async with engine.begin() as connection:
            await connection.execute(
                update(ToolDefinition.__table__)  # type: ignore[arg-type]
                .where(ToolDefinition.__table__.c.tool_id == CALCULATOR)
                .values(status="DISABLED")
            )
        assert (await calculate(gateway)).ok  # the cached resolution, within the TTL
        await asyncio.sleep(0.35)
        refused = await calculate(gateway)
        assert refused.error is not None and refused.error.code == "TOOL_NOT_AVAILABLE"


class TestCallLogWriter:
    async def test_rows_read_back_as_the_orm_would_have_written_them(
        self, app_and_services: Any, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        gateway = services(app_and_services).gateway
        before = utcnow()
        ok = await gateway.execute(
            SYSTEM_PRINCIPAL, SYSTEM_SPACE_ID, "bt_current_time", {"timezone": "Asia/Shanghai"}, run_id="run_x"
        )
        failed = await gateway.execute(SYSTEM_PRINCIPAL, SYSTEM_SPACE_ID, CALCULATOR, {"expression": "1 / 0"})
        async with session_factory() as session:
            rows = {row.id: row for row in (await session.scalars(select(ToolCall))).all()}
        written, refused = rows[ok.call_id], rows[failed.call_id]
        assert written.status == "SUCCESS" and written.result == ok.data
        assert written.arguments == {"timezone": "Asia/Shanghai"}
        assert written.run_id == "run_x" and written.agent_id is None and written.error_code is None
        assert written.trace_id == ok.trace_id and written.attempts == 1
        assert written.latency_ms == pytest.approx(ok.latency_ms)
        assert written.started_at.utcoffset() == timedelta(0)
        assert before <= written.started_at <= written.finished_at <= datetime.now(UTC)
        assert refused.status == "FAILED" and refused.result is None
        assert failed.error is not None
        assert (refused.error_code, refused.error_message) == (failed.error.code, failed.error.message)

    async def test_concurrent_calls_share_writes_and_each_gets_its_row(
        self, app_and_services: Any, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        gateway = services(app_and_services).gateway
        call_log: CallLog = gateway.call_log
        inserts: list[int] = []
        original = call_log._insert

        async def counting(rows: list[dict[str, Any]]) -> None:
            inserts.append(len(rows))
            await original(rows)

        call_log._insert = counting  # type: ignore[method-assign]
        try:
            results = await asyncio.gather(*(calculate(gateway) for _ in range(40)))
        finally:
            del call_log._insert
        assert all(result.ok for result in results)
        async with session_factory() as session:
            ids = set((await session.scalars(select(ToolCall.id))).all())
        assert {result.call_id for result in results} <= ids
        assert sum(inserts) == 40
        assert len(inserts) < 40, "concurrent rows should go out together"

    def _row(self, **overrides: Any) -> dict[str, Any]:
        now = utcnow()
        row = {
            "id": new_id("tc_"),
            "tool_id": CALCULATOR,
            "tool_type": "BUILTIN",
            "space_id": SYSTEM_SPACE_ID,
            "agent_id": None,
            "run_id": None,
            "principal_key_id": "system",
            "arguments": {"expression": "1 + 1"},
            "status": "SUCCESS",
            "result": {"value": 2},
            "error_code": None,
            "error_message": None,
            "error_detail": None,
            "latency_ms": 1.5,
            "attempts": 1,
            "trace_id": new_id("trace_"),
            "idempotency_key": None,
            "origin": "GRAPHQL",
            "started_at": now,
            "finished_at": now,
        }
        return {**row, **overrides}

    async def _ids(self, session_factory: async_sessionmaker[AsyncSession]) -> set[str]:
        async with session_factory() as session:
            return set((await session.scalars(select(ToolCall.id))).all())

    async def test_a_bad_row_costs_no_other_row_its_write(
        self, engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        call_log = CallLog(engine)
        try:
            existing = self._row()
            await call_log.write(existing)
            good = [self._row() for _ in range(5)]
            outcomes = await asyncio.gather(
                *(call_log.write(row) for row in [*good[:2], self._row(id=existing["id"]), *good[2:]]),
                return_exceptions=True,
            )
        finally:
            await call_log.close()
        assert isinstance(outcomes[2], CallLogWriteError)
        assert "unique" in str(outcomes[2].__cause__).lower()
        assert [outcome for index, outcome in enumerate(outcomes) if index != 2] == [None] * 5
        assert {row["id"] for row in good} <= await self._ids(session_factory)

    async def test_a_lost_connection_is_replaced(
        self, engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        call_log = CallLog(engine)
        try:
            await call_log.write(self._row())
            driver = call_log._driver
            if engine.dialect.name == "postgresql":
                async with engine.connect() as connection:
                    await connection.exec_driver_sql(f"SELECT pg_terminate_backend({driver.get_server_pid()})")
            else:
                await driver.close()
            after = self._row()
            await call_log.write(after)
            assert call_log._driver is not driver
        finally:
            await call_log.close()
        assert after["id"] in await self._ids(session_factory)

    async def test_close_writes_what_is_pending_and_then_refuses(
        self, engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        call_log = CallLog(engine)
        rows = [self._row() for _ in range(5)]
        writes = [asyncio.create_task(call_log.write(row)) for row in rows]
        await asyncio.sleep(0)  # every write is queued
        await call_log.close()
        await asyncio.gather(*writes)
        assert {row["id"] for row in rows} <= await self._ids(session_factory)
        with pytest.raises(CallLogClosedError):
            await call_log.write(self._row())


class TestInProcessRateLimiter:
    async def test_limits_hold_and_sweeps_do_not_follow_every_hit(self) -> None:
        storage = SweepingMemoryStorage()
        limiter = MovingWindowRateLimiter(storage)
        limit = parse("3/second")
        assert [await limiter.hit(limit, "tool", "sp", "t") for _ in range(4)] == [True, True, True, False]
        sweep = storage.timer
        for index in range(50):
            await limiter.hit(limit, "tool", "sp", f"other-{index}")
        assert storage.timer is sweep, "a sweep was started again within the sweep interval"
        await asyncio.sleep(1.05)
        assert await limiter.hit(limit, "tool", "sp", "t")
