"""Catalog changes: which commits move the generation, the cache that follows it, and the
relay that carries changes between replicas (over a real Redis)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import delete, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.changes import FEED, ChangeFeed, ChangeRelay, GenerationCache, watch_catalog_commits
from app.db import Base
from app.events.bus import InProcessEventBus
from app.events.redis_bus import RedisEventBus
from app.gateway.models import ToolCall
from app.ids import new_id
from app.spaces.models import Space
from app.tools.models import ToolDefinition
from tests.databases import require_redis


class TestWhatMovesTheGeneration:
    async def test_a_committed_unit_of_work_on_a_tool_moves_it(
        self, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        before = FEED.generation
        async with session_factory() as session, session.begin():
            tool = await session.get(ToolDefinition, "bt_calculator")
            assert tool is not None
            tool.description = "Changed by a test."
            # Not before the commit: a reader then would still see the old row.
            await session.flush()
            assert FEED.generation == before
        assert FEED.generation > before

    async def test_a_rolled_back_change_does_not(self, session_factory: async_sessionmaker[AsyncSession]) -> None:
        before = FEED.generation
        async with session_factory() as session:
            tool = await session.get(ToolDefinition, "bt_calculator")
            assert tool is not None
            tool.description = "Never committed."
            await session.flush()
            await session.rollback()
        assert FEED.generation == before

    @pytest.mark.parametrize(
        "statement",
        [
            update(ToolDefinition).where(ToolDefinition.tool_id == "bt_calculator").values(status="DISABLED"),
            delete(Base.metadata.tables["tool_space_binding"]),  # a Core table, as the test cleanup does
        ],
        ids=["orm-update", "core-delete"],
    )
    async def test_bulk_statements_move_it(
        self, session_factory: async_sessionmaker[AsyncSession], statement: Any
    ) -> None:
        before = FEED.generation
        async with session_factory() as session, session.begin():
            await session.execute(statement)
        assert FEED.generation > before

    async def test_new_spaces_and_bindings_move_it(self, session_factory: async_sessionmaker[AsyncSession]) -> None:
        before = FEED.generation
        async with session_factory() as session, session.begin():
            session.add(Space(id=new_id("sp_"), name=new_id("changes"), label="Changes"))
        assert FEED.generation > before

    async def test_writes_to_other_tables_do_not(self, session_factory: async_sessionmaker[AsyncSession]) -> None:
        before = FEED.generation
        async with session_factory() as session, session.begin():
            await session.execute(delete(ToolCall))
        assert FEED.generation == before

    async def test_watching_again_still_counts_a_commit_once(
        self, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        watch_catalog_commits()  # the app's composition root did already
        before = FEED.generation
        async with session_factory() as session, session.begin():
            session.add(Space(id=new_id("sp_"), name=new_id("changes"), label="Changes"))
        assert FEED.generation == before + 1


class TestGenerationCache:
    async def test_serves_until_the_generation_moves(self) -> None:
        feed = ChangeFeed()
        cache: GenerationCache[str, int] = GenerationCache(60.0, feed=feed)
        loads = 0

        async def load() -> int:
            nonlocal loads
            loads += 1
            return loads

        assert await cache.get_or_load("k", load) == 1
        assert await cache.get_or_load("k", load) == 1
        feed.bump()
        assert await cache.get_or_load("k", load) == 2

    async def test_a_change_during_the_load_leaves_the_entry_stale(self) -> None:
        """Read at generation g, changed to g+1 before the load returned: not served again."""
        feed = ChangeFeed()
        cache: GenerationCache[str, str] = GenerationCache(60.0, feed=feed)

        async def load_while_changed() -> str:
            feed.bump()
            return "old"

        async def load_new() -> str:
            return "new"

        assert await cache.get_or_load("k", load_while_changed) == "old"
        assert await cache.get_or_load("k", load_new) == "new"

    async def test_entries_expire_after_the_ttl(self) -> None:
        cache: GenerationCache[str, float] = GenerationCache(0.05, feed=ChangeFeed())
        values = iter([1.0, 2.0])

        async def load() -> float:
            return next(values)

        assert await cache.get_or_load("k", load) == 1.0
        assert await cache.get_or_load("k", load) == 1.0
        await asyncio.sleep(0.06)
        assert await cache.get_or_load("k", load) == 2.0

    async def test_callers_that_miss_together_share_one_load(self) -> None:
        """An entry expiring under load: fifty concurrent requests, one database read."""
        cache: GenerationCache[str, int] = GenerationCache(60.0, feed=ChangeFeed())
        loads = 0
        release = asyncio.Event()

        async def load() -> int:
            nonlocal loads
            loads += 1
            await release.wait()
            return loads

        waiters = [asyncio.create_task(cache.get_or_load("k", load)) for _ in range(50)]
        await asyncio.sleep(0)
        release.set()
        assert await asyncio.gather(*waiters) == [1] * 50
        assert loads == 1

    async def test_a_caller_after_a_change_does_not_join_the_older_load(self) -> None:
        feed = ChangeFeed()
        cache: GenerationCache[str, str] = GenerationCache(60.0, feed=feed)
        release = asyncio.Event()

        async def load_old() -> str:
            await release.wait()
            return "old"

        async def load_new() -> str:
            return "new"

        first = asyncio.create_task(cache.get_or_load("k", load_old))
        await asyncio.sleep(0)
        feed.bump()  # committed while the first load is in flight
        assert await cache.get_or_load("k", load_new) == "new"
        release.set()
        assert await first == "old"
        # The older load's result is stale: the next caller gets the newer one.
        assert await cache.get_or_load("k", load_old) == "new"

    async def test_a_cancelled_caller_leaves_the_load_to_the_others(self) -> None:
        cache: GenerationCache[str, int] = GenerationCache(60.0, feed=ChangeFeed())
        release = asyncio.Event()

        async def load() -> int:
            await release.wait()
            return 7

        first = asyncio.create_task(cache.get_or_load("k", load))
        second = asyncio.create_task(cache.get_or_load("k", load))
        await asyncio.sleep(0)
        first.cancel()
        release.set()
        assert await second == 7
        with pytest.raises(asyncio.CancelledError):
            await first

    async def test_a_failed_load_fails_its_waiters_and_is_not_kept(self) -> None:
        cache: GenerationCache[str, int] = GenerationCache(60.0, feed=ChangeFeed())
        attempts = 0

        async def load() -> int:
            nonlocal attempts
            attempts += 1
            await asyncio.sleep(0)
            if attempts == 1:
                raise ConnectionError("database away")
            return 3

        results = await asyncio.gather(*(cache.get_or_load("k", load) for _ in range(3)), return_exceptions=True)
        assert all(isinstance(result, ConnectionError) for result in results)
        assert await cache.get_or_load("k", load) == 3
        assert attempts == 2

    async def test_size_is_bounded(self) -> None:
        cache: GenerationCache[int, int] = GenerationCache(60.0, max_entries=10, feed=ChangeFeed())

        async def load() -> int:
            return 0

        for key in range(25):
            await cache.get_or_load(key, load)
        assert len(cache._entries) <= 10


async def _until(condition: Any, timeout_s: float = 2.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)


class TestChangeRelay:
    async def test_replicas_on_one_redis_hear_each_others_commits(self) -> None:
        redis_url = await require_redis()
        feed_a, feed_b = ChangeFeed(), ChangeFeed()
        bus_a, bus_b = RedisEventBus(redis_url), RedisEventBus(redis_url)
        relay_a, relay_b = ChangeRelay(bus_a, feed_a), ChangeRelay(bus_b, feed_b)
        try:
            await relay_a.start()
            await relay_b.start()
            a_before, b_before = feed_a.generation, feed_b.generation
            feed_a.committed_here()
            await _until(lambda: feed_b.generation > b_before)
            # A does not count its own announcement twice.
            await asyncio.sleep(0.1)
            assert feed_a.generation == a_before + 1
            b_now = feed_b.generation
            feed_b.committed_here()
            await _until(lambda: feed_a.generation > a_before + 1)
            assert feed_b.generation == b_now + 1
        finally:
            await relay_a.close()
            await relay_b.close()
            await bus_a.close()
            await bus_b.close()

    async def test_a_relay_that_is_closed_no_longer_announces(self) -> None:
        feed = ChangeFeed()
        bus = InProcessEventBus()
        relay = ChangeRelay(bus, feed)
        await relay.start()
        await relay.close()
        async with bus.subscribe("catalog_changes") as subscription:
            feed.committed_here()
            await asyncio.sleep(0.05)
            assert subscription.queue.empty()
        await bus.close()

    async def test_an_unreachable_redis_does_not_hold_up_the_start(self) -> None:
        """A replica still serves (within the cache TTL) while its bus is down; it keeps retrying."""
        from tests.support.processes import free_port

        bus = RedisEventBus(f"redis://127.0.0.1:{free_port()}/0")
        relay = ChangeRelay(bus, ChangeFeed())
        try:
            await asyncio.wait_for(relay.start(), timeout=5)
            assert relay._listener is not None and not relay._listener.done()
        finally:
            await relay.close()
            await bus.close()
