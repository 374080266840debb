"""The event bus: in-process fan-out, bounded queues, and Redis across instances."""

from __future__ import annotations

import asyncio
import secrets

import pytest

from app.events.bus import InProcessEventBus, SubscriberOverflowError
from app.events.redis_bus import RedisEventBus
from tests.databases import require_redis


async def _take(subscription: object, count: int) -> list[dict[str, object]]:
    received: list[dict[str, object]] = []
    async for event in subscription:  # type: ignore[attr-defined]
        received.append(event)
        if len(received) == count:
            break
    return received


class TestInProcessEventBus:
    async def test_every_subscriber_of_a_topic_receives_every_event_in_order(self) -> None:
        bus = InProcessEventBus()
        async with bus.subscribe("calls") as first, bus.subscribe("calls") as second, bus.subscribe("other") as other:
            for number in range(3):
                await bus.publish("calls", {"n": number})
            assert await _take(first, 3) == [{"n": 0}, {"n": 1}, {"n": 2}]
            assert await _take(second, 3) == [{"n": 0}, {"n": 1}, {"n": 2}]
            assert other.queue.empty()
        assert bus.subscriber_count("calls") == 0

    async def test_a_slow_subscriber_is_disconnected_when_its_queue_overflows(self) -> None:
        bus = InProcessEventBus()
        async with bus.subscribe("calls", queue_size=2) as slow, bus.subscribe("calls", queue_size=100) as fast:
            for number in range(5):
                await bus.publish("calls", {"n": number})
            # The fast subscriber is unaffected; the slow one drains what it had, then is told it fell behind.
            assert await _take(fast, 5) == [{"n": n} for n in range(5)]
            with pytest.raises(SubscriberOverflowError):
                await _take(slow, 5)
            assert bus.subscriber_count("calls") == 1


class TestRedisEventBus:
    async def test_a_subscriber_on_one_instance_receives_events_published_on_another(self) -> None:
        url = await require_redis()
        topic = f"test-{secrets.token_hex(4)}"
        publisher, listener = RedisEventBus(url), RedisEventBus(url)
        try:
            async with listener.subscribe(topic) as subscription:
                await asyncio.sleep(0.1)  # let SUBSCRIBE reach the server
                await publisher.publish(topic, {"id": "tc_1", "status": "SUCCESS"})
                await publisher.publish(topic, {"id": "tc_2", "status": "FAILED"})
                received = await asyncio.wait_for(_take(subscription, 2), timeout=5)
            assert received == [{"id": "tc_1", "status": "SUCCESS"}, {"id": "tc_2", "status": "FAILED"}]
        finally:
            await publisher.close()
            await listener.close()

    async def test_unsubscribed_topics_are_not_delivered(self) -> None:
        url = await require_redis()
        topic = f"test-{secrets.token_hex(4)}"
        publisher, listener = RedisEventBus(url), RedisEventBus(url)
        try:
            async with listener.subscribe(topic) as subscription:
                await asyncio.sleep(0.1)
                await publisher.publish(f"{topic}-other", {"n": 1})
                await publisher.publish(topic, {"n": 2})
                assert await asyncio.wait_for(_take(subscription, 1), timeout=5) == [{"n": 2}]
        finally:
            await publisher.close()
            await listener.close()
