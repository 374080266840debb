"""Redis pub/sub EventBus: a subscriber on replica A sees events published on replica B.

One Redis connection listens for the whole process; its messages are fanned out
in-process to bounded per-subscriber queues, exactly like the in-process bus.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import redis.asyncio as redis

from app.events.bus import DEFAULT_QUEUE_SIZE, Event, InProcessEventBus, Subscription

logger = logging.getLogger(__name__)

CHANNEL_PREFIX = "quiver:"


class RedisEventBus:
    def __init__(self, url: str) -> None:
        self._client = redis.from_url(url)
        # Pub/sub ignores the database number: put it in the channel so deployments sharing
        # one Redis on different databases never see each other's events.
        self._prefix = f"{CHANNEL_PREFIX}{self._client.connection_pool.connection_kwargs.get('db', 0)}:"
        self._local = InProcessEventBus()
        self._pubsub = self._client.pubsub()
        self._channels: dict[str, int] = {}
        self._lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None

    async def publish(self, topic: str, event: Event) -> None:
        await self._client.publish(self._prefix + topic, json.dumps(event, default=str))

    @asynccontextmanager
    async def subscribe(self, topic: str, *, queue_size: int = DEFAULT_QUEUE_SIZE) -> AsyncIterator[Subscription]:
        await self._listen(topic)
        try:
            async with self._local.subscribe(topic, queue_size=queue_size) as subscription:
                yield subscription
        finally:
            await self._unlisten(topic)

    async def _listen(self, topic: str) -> None:
        async with self._lock:
            count = self._channels.get(topic, 0)
            if count == 0:
                await self._pubsub.subscribe(self._prefix + topic)
            self._channels[topic] = count + 1
            if self._reader is None or self._reader.done():
                self._reader = asyncio.create_task(self._read(), name="redis-event-bus")

    async def _unlisten(self, topic: str) -> None:
        async with self._lock:
            count = self._channels.get(topic, 0) - 1
            if count <= 0:
                self._channels.pop(topic, None)
                with contextlib.suppress(redis.RedisError):
                    await self._pubsub.unsubscribe(self._prefix + topic)
            else:
                self._channels[topic] = count

    async def _read(self) -> None:
        while True:
            try:
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except redis.RedisError:
                logger.exception("redis event bus: lost the subscription connection; retrying")
                await asyncio.sleep(0.5)
                continue
            if message is None:
                if not self._channels:
                    await asyncio.sleep(0.05)
                continue
            channel = message["channel"]
            topic = (channel.decode() if isinstance(channel, bytes) else str(channel))[len(self._prefix) :]
            try:
                event = json.loads(message["data"])
            except (TypeError, ValueError):
                logger.warning("redis event bus: undecodable message on %s", topic)
                continue
            self._local.deliver(topic, event)

    def subscriber_count(self, topic: str) -> int:
        return self._local.subscriber_count(topic)

    async def ping(self) -> bool:
        return bool(await self._client.ping())

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        await self._local.close()
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        await self._client.aclose()
