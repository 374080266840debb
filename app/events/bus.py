"""EventBus: ``publish(topic, event)`` / ``subscribe(topic)``.

In-process fan-out by default. Each subscriber has a bounded queue; a subscriber
that falls behind is dropped (its iterator ends with :class:`SubscriberOverflow`)
rather than slowing the publisher or growing memory without bound. Subscribers
reconcile from the database, which holds the record.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol

logger = logging.getLogger(__name__)

Event = dict[str, Any]
DEFAULT_QUEUE_SIZE = 1000
_CLOSED: Event = {"__closed__": True}


class SubscriberOverflowError(Exception):
    """The subscriber fell more than its queue size behind and was disconnected."""


class Subscription:
    def __init__(self, queue_size: int) -> None:
        self.queue: asyncio.Queue[Event] = asyncio.Queue(maxsize=queue_size)
        self.overflowed = False

    def offer(self, event: Event) -> bool:
        """Queue the event; False (and the subscription closed) when the queue is full."""
        if self.overflowed:
            return False
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            self.overflowed = True
            return False
        return True

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Event]:
        while True:
            if self.overflowed and self.queue.empty():
                raise SubscriberOverflowError("subscriber too slow; reconcile from the database")
            event = await self.queue.get()
            if event is _CLOSED:
                return
            yield event


class EventBus(Protocol):
    async def publish(self, topic: str, event: Event) -> None:
        """Deliver to the topic's subscribers; never raises and never waits on another process."""

    def subscribe(self, topic: str, *, queue_size: int = DEFAULT_QUEUE_SIZE) -> Any: ...

    def on_reconnect(self, listener: Callable[[], None]) -> None:
        """``listener`` is called when the bus hears other processes again after an outage
        (what they published meanwhile was missed)."""

    async def close(self) -> None: ...


class InProcessEventBus:
    """Fan-out inside one process."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[Subscription]] = defaultdict(set)

    async def publish(self, topic: str, event: Event) -> None:
        self.deliver(topic, event)

    def deliver(self, topic: str, event: Event) -> None:
        for subscription in list(self._subscribers.get(topic, ())):
            if not subscription.offer(event):
                logger.warning("dropping slow subscriber of %s", topic)
                self._subscribers[topic].discard(subscription)

    @asynccontextmanager
    async def subscribe(self, topic: str, *, queue_size: int = DEFAULT_QUEUE_SIZE) -> AsyncIterator[Subscription]:
        subscription = Subscription(queue_size)
        self._subscribers[topic].add(subscription)
        try:
            yield subscription
        finally:
            self._subscribers[topic].discard(subscription)

    def subscriber_count(self, topic: str) -> int:
        return len(self._subscribers.get(topic, ()))

    def on_reconnect(self, listener: Callable[[], None]) -> None:
        """One process hears everything: never disconnected."""

    async def close(self) -> None:
        for subscriptions in self._subscribers.values():
            for subscription in subscriptions:
                subscription.offer(_CLOSED)
        self._subscribers.clear()
