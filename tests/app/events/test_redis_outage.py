"""A Redis of the test's own is killed and started again: the event bus, the rate limiter
and the change relay go on without it and pick it up again, with no restart."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis

from app.changes import ChangeFeed, ChangeRelay
from app.events import redis_bus
from app.events.redis_bus import RedisEventBus
from app.events.redis_link import RedisLink
from app.gateway.envelope import RATE_LIMITED, ToolFailure
from app.gateway.quotas import QuotaGuard
from app.prometheus import REGISTRY
from app.tools.models import ToolDefinition
from tests.support.redis_server import RedisServer, redis_server, silent_server

#: Long enough for a loaded machine; what is checked is that the state flips, not how fast.
RECOVERY_WAIT_S = 20.0


async def _until(condition: object, timeout_s: float = RECOVERY_WAIT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


async def _next(subscription: object, timeout_s: float = 10.0) -> dict[str, object]:
    async def first() -> dict[str, object]:
        async for event in subscription:  # type: ignore[attr-defined]
            return event  # type: ignore[no-any-return]
        raise AssertionError("subscription ended")

    return await asyncio.wait_for(first(), timeout=timeout_s)


def _metric(name: str) -> float:
    return REGISTRY.get_sample_value(name) or 0.0


@pytest.fixture
async def server() -> AsyncIterator[RedisServer]:
    with redis_server() as running:
        yield running


class TestEventBusWithoutRedis:
    async def test_publishing_while_redis_is_dead_delivers_locally_and_never_raises(self, server: RedisServer) -> None:
        bus = RedisEventBus(server.url)
        topic = f"t-{secrets.token_hex(3)}"
        try:
            async with bus.subscribe(topic) as subscription:
                server.kill()
                for number in range(3):
                    await bus.publish(topic, {"n": number})
                assert [await _next(subscription) for _ in range(3)] == [{"n": 0}, {"n": 1}, {"n": 2}]
                await _until(lambda: not bus.link.is_up)
                assert bus.link.reason is not None and "Connection" in bus.link.reason
        finally:
            await bus.close()

    async def test_a_subscription_opened_while_redis_is_dead_works_locally_then_across_instances(
        self, server: RedisServer
    ) -> None:
        topic = f"t-{secrets.token_hex(3)}"
        server.kill()
        publisher, listener = RedisEventBus(server.url), RedisEventBus(server.url)
        try:
            assert not await listener.link.probe()
            async with listener.subscribe(topic) as subscription:
                await listener.publish(topic, {"from": "self"})
                assert await _next(subscription) == {"from": "self"}
                server.start()
                await _until(lambda: listener.link.is_up and listener._pubsub is not None)
                # The other instance's events arrive, without a restart.
                await asyncio.sleep(0.1)  # let SUBSCRIBE reach the server
                await publisher.publish(topic, {"from": "other"})
                assert await _next(subscription) == {"from": "other"}
        finally:
            await publisher.close()
            await listener.close()

    async def test_a_redis_killed_and_restarted_under_a_subscriber_is_heard_again(self, server: RedisServer) -> None:
        topic = f"t-{secrets.token_hex(3)}"
        publisher, listener = RedisEventBus(server.url), RedisEventBus(server.url)
        reconnected: list[bool] = []
        listener.on_reconnect(lambda: reconnected.append(True))
        try:
            async with listener.subscribe(topic) as subscription:
                await asyncio.sleep(0.1)
                await publisher.publish(topic, {"n": 1})
                assert await _next(subscription) == {"n": 1}
                server.kill()
                await _until(lambda: not listener.link.is_up)
                await publisher.publish(topic, {"n": 2})  # buffered by the publisher, not lost to the caller
                server.start()
                await _until(lambda: reconnected == [True])
                await _until(lambda: publisher.link.is_up)
                await publisher.publish(topic, {"n": 3})
                received = [await _next(subscription)]
                while received[-1] != {"n": 3}:
                    received.append(await _next(subscription))
                # Whatever the publisher held while Redis was away comes first if the listener was back in time.
                assert received in ([{"n": 3}], [{"n": 2}, {"n": 3}])
        finally:
            await publisher.close()
            await listener.close()

    async def test_the_outbox_is_bounded_while_redis_is_away(self, server: RedisServer) -> None:
        server.kill()
        bus = RedisEventBus(server.url)
        dropped_before = _metric("quiver_events_dropped_total")
        try:
            assert not await bus.link.probe()
            for number in range(redis_bus.OUTBOX_LIMIT + 25):
                await bus.publish("bounded", {"n": number})
            assert len(bus._outbox) == redis_bus.OUTBOX_LIMIT
            assert _metric("quiver_events_buffered") == redis_bus.OUTBOX_LIMIT
            assert _metric("quiver_events_dropped_total") - dropped_before == 25
            # The oldest went first.
            assert '"n": 25' in bus._outbox[0][2]
        finally:
            await bus.close()

    async def test_what_was_buffered_reaches_redis_when_it_returns(self, server: RedisServer) -> None:
        server.kill()
        bus = RedisEventBus(server.url)
        try:
            assert not await bus.link.probe()
            await bus.publish("buffered", {"n": 1})
            server.start()
            raw = redis.from_url(server.url)
            try:
                async with raw.pubsub() as pubsub:
                    await pubsub.subscribe("quiver:0:buffered")
                    # Recovery is noticed by the monitor; the outbox is sent then.
                    await _until(lambda: bus.link.is_up)
                    await _until(lambda: not bus._outbox)
            finally:
                await raw.aclose()
            assert _metric("quiver_events_buffered") == 0
        finally:
            await bus.close()

    async def test_closing_while_redis_is_away_does_not_wait_for_it(self, server: RedisServer) -> None:
        bus = RedisEventBus(server.url)
        await bus.publish("closing", {"n": 1})
        server.kill()
        await bus.publish("closing", {"n": 2})
        await asyncio.wait_for(bus.close(), timeout=redis_bus.FLUSH_TIMEOUT_S + 5)


def _tool(rate_limit: str) -> ToolDefinition:
    return ToolDefinition(tool_id=f"bt_{secrets.token_hex(3)}", rate_limit=rate_limit, max_concurrency=None)


async def _admitted(guard: QuotaGuard, space_id: str, tool: ToolDefinition, attempts: int) -> int:
    admitted = 0
    for _ in range(attempts):
        try:
            async with guard.admit(space_id, tool):
                admitted += 1
        except ToolFailure as refused:
            assert refused.error.code == RATE_LIMITED
    return admitted


class TestRateLimitsWithoutRedis:
    async def test_limits_are_shared_then_per_replica_then_shared_again(self, server: RedisServer) -> None:
        link_a, link_b = RedisLink(server.url), RedisLink(server.url)
        replica_a = QuotaGuard(default_rate_limit="600/minute", default_max_concurrency=4, redis=link_a)
        replica_b = QuotaGuard(default_rate_limit="600/minute", default_max_concurrency=4, redis=link_b)
        space = f"sp_{secrets.token_hex(3)}"
        try:
            shared = _tool("3/minute")
            # Redis up: one count for both replicas.
            assert await _admitted(replica_a, space, shared, 2) == 2
            assert await _admitted(replica_b, space, shared, 3) == 1

            server.kill()
            fallbacks = _metric("quiver_rate_limit_local_fallbacks_total")
            alone = _tool("3/minute")
            # Redis dead: each replica counts on its own, with the same limit; no call fails for want of Redis.
            assert await _admitted(replica_a, space, alone, 5) == 3
            assert await _admitted(replica_b, space, alone, 5) == 3
            assert not link_a.is_up and not link_b.is_up
            assert _metric("quiver_rate_limit_local_fallbacks_total") - fallbacks == 10

            server.start()
            await _until(lambda: link_a.is_up and link_b.is_up)
            again = _tool("3/minute")
            assert await _admitted(replica_a, space, again, 2) == 2
            assert await _admitted(replica_b, space, again, 3) == 1
        finally:
            await link_a.close()
            await link_b.close()

    async def test_a_redis_that_hangs_costs_a_call_a_bounded_wait_once(self) -> None:
        with silent_server() as port:
            link = RedisLink(f"redis://127.0.0.1:{port}/0")
            guard = QuotaGuard(default_rate_limit="600/minute", default_max_concurrency=4, redis=link)
            try:
                tool = _tool("2/minute")
                assert await asyncio.wait_for(_admitted(guard, "sp_hang", tool, 3), timeout=10) == 2
                assert not link.is_up
                assert link.reason is not None
            finally:
                await link.close()


class TestChangeRelayAcrossAnOutage:
    async def test_a_relay_treats_everything_as_stale_when_its_bus_is_back(self, server: RedisServer) -> None:
        feed = ChangeFeed()
        bus = RedisEventBus(server.url)
        relay = ChangeRelay(bus, feed)
        try:
            await relay.start()
            server.kill()
            await _until(lambda: not bus.link.is_up)
            before = feed.generation
            server.start()
            await _until(lambda: feed.generation > before)
        finally:
            await relay.close()
            await bus.close()
