"""EventBus: ``publish(topic, event)`` / ``subscribe(topic)``.

In-process fan-out by default. Each subscriber has a bounded queue; a subscriber
that falls behind is dropped (its iterator ends with :class:`SubscriberOverflowError`)
rather than slowing the publisher or growing memory without bound. Subscribers
reconcile from the database, which holds the record.

A *strict* subscriber (``subscribe(topic, strict=True)``: one a person watches, the GraphQL
subscriptions) is never left silently incomplete: a bus that may have missed events of
other processes meanwhile (its Redis connection was lost, a sender's events went missing)
ends it with :class:`EventsMissedError`, and one that cannot hear the other processes
refuses it (:class:`EventBusUnavailableError`). The others (the change relay, a pipeline
following its step's run) reconcile on their own and keep what this process publishes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol

logger = logging.getLogger(__name__)

Event = dict[str, Any]
DEFAULT_QUEUE_SIZE = 1000
_CLOSED: Event = {"__closed__": True}
_WAKE: Event = {"__wake__": True}


class SubscriberOverflowError(Exception):
    """The subscriber fell more than its queue size behind and was disconnected."""


class EventsMissedError(Exception):
    """Events of other processes may have been missed (the bus lost its connection to them, or
    found a gap in what one of them sent): the strict subscriber is ended and reconciles."""


class EventBusUnavailableError(Exception):
    """The bus cannot hear the other processes now: a strict subscription is refused."""


class Subscription:
    def __init__(self, queue_size: int, *, strict: bool = False) -> None:
        self.queue: asyncio.Queue[Event] = asyncio.Queue(maxsize=queue_size)
        self.overflowed = False
        self.strict = strict
        self.missed: str | None = None

    def miss(self, reason: str) -> None:
        """End the subscription with :class:`EventsMissedError` once what it has queued is read."""
        if self.missed is not None:
            return
        self.missed = reason
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(_WAKE)  # full: the reader is not waiting, and sees it after the queue

    def offer(self, event: Event) -> bool:
        """Queue the event; False (and the subscription closed) when the queue is full."""
        if self.overflowed or self.missed is not None:
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
            if self.missed is not None and self.queue.empty():
                raise EventsMissedError(self.missed)
            event = await self.queue.get()
            if event is _CLOSED:
                return
            if event is _WAKE:
                continue
            yield event


class EventBus(Protocol):
    async def publish(self, topic: str, event: Event) -> None:
        """Deliver to the topic's subscribers; never raises and never waits on another process."""

    def subscribe(self, topic: str, *, queue_size: int = DEFAULT_QUEUE_SIZE, strict: bool = False) -> Any:
        """An async context manager giving a :class:`Subscription`; ``strict`` (see the module)
        may raise :class:`EventBusUnavailableError` on entering."""

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

    def miss(self, reason: str, topic: str | None = None) -> int:
        """End the strict subscribers of ``topic`` (of every topic: None) with :class:`EventsMissedError`;
        how many were ended."""
        ended = 0
        for name in [topic] if topic is not None else list(self._subscribers):
            subscriptions = self._subscribers.get(name, set())
            for subscription in [each for each in subscriptions if each.strict]:
                subscription.miss(reason)
                subscriptions.discard(subscription)
                ended += 1
        return ended

    @asynccontextmanager
    async def subscribe(
        self, topic: str, *, queue_size: int = DEFAULT_QUEUE_SIZE, strict: bool = False
    ) -> AsyncIterator[Subscription]:
        subscription = Subscription(queue_size, strict=strict)
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
