"""Redis pub/sub EventBus: a subscriber on replica A sees events published on replica B.

Redis is never on the path of a result. ``publish`` delivers to this process's
subscribers at once and leaves the event in a bounded outbox that a background task
sends to Redis (in pipelined batches); it never waits on Redis and never raises. While
Redis is unreachable the outbox holds up to ``OUTBOX_LIMIT`` events, then drops the
oldest (a WARNING and ``quiver_events_dropped_total``); what it holds is sent when Redis
answers again. Subscribers elsewhere reconcile from the database, which holds the record.

One Redis connection listens for the whole process; its messages are fanned out
in-process to bounded per-subscriber queues, exactly like the in-process bus. A message
this process published itself is skipped (it was delivered locally already), and so is one
delivered before: a send that timed out may still have reached Redis (a hung link that
heals runs what it held), and the outbox sends it again.

What was published while the listening connection was away is missed: pub/sub keeps
nothing. So when that connection is lost (Redis restarted, a proxy or the network cut it, a
command on the link failed: it may be half-dead) every strict subscriber (see
``app/events/bus.py``: the GraphQL subscriptions) is ended with ``EventsMissedError`` at
once, and a strict subscription is refused (``EventBusUnavailableError``) until the bus
listens again; the bus reconnects (the link probes Redis, backing off) and subscribes
again, and tells its ``on_reconnect`` listeners. The listening connection never reconnects
on its own (redis-py's retry would subscribe again silently, the gap unseen). A connection
that goes silent without being reset (a black hole: a NAT or firewall dropping the flow's
packets) raises nothing, so the reading task PINGs it every ``ping_interval_s`` (one PING per
process, whatever the number of subscribers; Redis answers a PING while subscribed) and takes
it as lost, exactly as a reset one, when no PONG came within ``COMMAND_TIMEOUT_S``: a
black-holed connection is noticed within ``ping_interval_s + COMMAND_TIMEOUT_S``. A gap seen in
what one process sent on a topic (each message carries the sequence number of that process's
previous message on its topic: an outbox that overflowed, a message lost on the way) ends the
topic's strict subscribers the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import secrets
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import redis.asyncio as redis
from prometheus_client import Counter, Gauge
from redis.asyncio.client import PubSub
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from app.events.bus import (
    DEFAULT_QUEUE_SIZE,
    Event,
    EventBusUnavailableError,
    InProcessEventBus,
    Subscription,
)
from app.events.redis_link import COMMAND_TIMEOUT_S, REDIS_ERRORS, RedisLink, client_options
from app.prometheus import REGISTRY

logger = logging.getLogger(__name__)

CHANNEL_PREFIX = "quiver:"
#: Events kept for Redis while it is unreachable; past it the oldest are dropped.
OUTBOX_LIMIT = 1000
#: Events sent to Redis per round trip.
BATCH_SIZE = 200
#: How long ``close`` waits for the outbox to reach a live Redis.
FLUSH_TIMEOUT_S = 5.0
#: Messages of each other process remembered (by their sequence number), so that one sent
#: twice is delivered once; and how many processes are remembered (the least recent goes).
SEEN_PER_ORIGIN = 4096
SEEN_ORIGINS = 256
#: Topics whose last sequence number this process remembers for the next message it sends
#: there (past it the least recent is forgotten: its next message cannot be checked for a gap).
PREVIOUS_TOPICS = 4096
#: How often the listening connection is PINGed (``QUIVER_EVENT_BUS_PING_S``); its PONG is due
#: within ``COMMAND_TIMEOUT_S``.
PING_INTERVAL_S = 5.0
#: The PING's argument, echoed in the PONG.
PING_MESSAGE = "quiver-event-bus"

#: Why strict subscribers were ended (the GraphQL error says "Events of other replicas were missed: <why>").
LOST_CONNECTION = "this replica lost its connection to the event bus (Redis)"
GAP = "some that another replica sent on this topic did not arrive (its outbox overflowed, or they were lost)"

MISSED = Counter(
    "quiver_events_missed_total",
    "Strict subscribers (GraphQL subscriptions) ended because events of other replicas may have been missed.",
    ["reason"],
    registry=REGISTRY,
)
DROPPED = Counter(
    "quiver_events_dropped_total",
    "Events not sent to other replicas: Redis was unreachable and the outbox full, or the process stopped.",
    registry=REGISTRY,
)
BUFFERED = Gauge("quiver_events_buffered", "Events waiting for Redis in the outbox.", registry=REGISTRY)


class RedisEventBus:
    def __init__(self, url: str, *, link: RedisLink | None = None, ping_interval_s: float = PING_INTERVAL_S) -> None:
        self.link = link or RedisLink(url)
        self.ping_interval_s = ping_interval_s
        self._owns_link = link is None
        self._client = self.link.client
        # The listening connection's own client, without redis-py's retry: it would reconnect and
        # subscribe again in silence, and what was published in between would be missed unseen.
        self._listener = redis.from_url(self.link.url, **{**client_options(), "retry": Retry(NoBackoff(), 0)})
        # Pub/sub ignores the database number: put it in the channel so deployments sharing
        # one Redis on different databases never see each other's events.
        self._prefix = f"{CHANNEL_PREFIX}{self._client.connection_pool.connection_kwargs.get('db', 0)}:"
        self.origin = secrets.token_hex(8)
        self._local = InProcessEventBus()
        self._channels: dict[str, int] = {}
        self._lock = asyncio.Lock()
        self._pubsub: PubSub | None = None
        self._pubsub_generation = 0
        self._lost_subscription = False
        # The listening connection's heartbeat (loop time): when its next PING is due, and when the
        # PONG of the one sent is (None: no PING waiting for its PONG).
        self._ping_due = 0.0
        self._pong_due: float | None = None
        self._wanted = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self._outbox: deque[tuple[int, str, str]] = deque()
        self._sequence = itertools.count()
        self._pending = asyncio.Event()
        self._drained = asyncio.Event()
        self._sender: asyncio.Task[None] | None = None
        self._dropping = False
        self._reconnect_listeners: list[Callable[[], None]] = []
        self._seen: OrderedDict[str, tuple[set[int], deque[int]]] = OrderedDict()
        #: This process's last sequence number on each topic (the ``prev`` of its next message there).
        self._previous: OrderedDict[str, int] = OrderedDict()
        #: Per topic heard, per sending process, the last sequence number received since subscribing.
        self._latest: dict[str, OrderedDict[str, int]] = {}

    # ------------------------------------------------------------ publishing

    async def publish(self, topic: str, event: Event) -> None:
        sequence = next(self._sequence)
        try:
            envelope = {"origin": self.origin, "seq": sequence, "prev": self._previous.get(topic), "event": event}
            payload = json.dumps(envelope, default=str)
        except (TypeError, ValueError):
            logger.warning("event on %s cannot be encoded; dropped", topic, exc_info=True)
            DROPPED.inc()
            return
        self._previous[topic] = sequence
        self._previous.move_to_end(topic)
        if len(self._previous) > PREVIOUS_TOPICS:
            self._previous.popitem(last=False)
        # What local subscribers get is what the other replicas decode.
        self._local.deliver(topic, json.loads(payload)["event"])
        if len(self._outbox) >= OUTBOX_LIMIT:
            self._outbox.popleft()
            DROPPED.inc()
            if not self._dropping:
                self._dropping = True
                logger.warning(
                    "event outbox full (%d events waiting for Redis): dropping the oldest; "
                    "other replicas' subscribers reconcile from the database",
                    OUTBOX_LIMIT,
                )
        self._outbox.append((sequence, self._prefix + topic, payload))
        BUFFERED.set(len(self._outbox))
        self._drained.clear()
        self._pending.set()
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send(), name="redis-event-bus-sender")

    async def _send(self) -> None:
        while True:
            await self._pending.wait()
            if not self._outbox:
                self._pending.clear()
                self._drained.set()
                continue
            if not self.link.is_up:
                await self.link.wait_up()
                continue
            batch = list(itertools.islice(self._outbox, BATCH_SIZE))
            try:
                async with asyncio.timeout(COMMAND_TIMEOUT_S):
                    async with self._client.pipeline(transaction=False) as pipe:
                        for _, channel, payload in batch:
                            pipe.publish(channel, payload)
                        await pipe.execute()
            except REDIS_ERRORS as error:
                self.link.failed("event bus", error)
                continue
            last = batch[-1][0]
            while self._outbox and self._outbox[0][0] <= last:
                self._outbox.popleft()
            BUFFERED.set(len(self._outbox))
            if self._dropping and len(self._outbox) < OUTBOX_LIMIT // 2:
                self._dropping = False

    # ------------------------------------------------------------ subscribing

    @asynccontextmanager
    async def subscribe(
        self, topic: str, *, queue_size: int = DEFAULT_QUEUE_SIZE, strict: bool = False
    ) -> AsyncIterator[Subscription]:
        await self._listen(topic)
        try:
            if strict and not self.hears_others():
                raise EventBusUnavailableError(
                    "this replica cannot hear the other replicas now (its event bus, Redis, is not answering)"
                )
            async with self._local.subscribe(topic, queue_size=queue_size, strict=strict) as subscription:
                yield subscription
        finally:
            await self._unlisten(topic)

    def hears_others(self) -> bool:
        """Whether the listening connection is up and was made since Redis last failed."""
        return self._pubsub is not None and self.link.is_up and self._pubsub_generation == self.link.generation

    def on_reconnect(self, listener: Callable[[], None]) -> None:
        """Called when the bus listens again after losing its Redis subscription."""
        self._reconnect_listeners.append(listener)

    async def _listen(self, topic: str) -> None:
        """Subscribed on Redis before it returns while Redis answers; at once (locally only) while it does not."""
        async with self._lock:
            count = self._channels.get(topic, 0)
            self._channels[topic] = count + 1
            if count == 0 and self.link.is_up:
                try:
                    async with asyncio.timeout(COMMAND_TIMEOUT_S):
                        if self._pubsub is None:
                            await self._connect()
                        else:
                            await self._pubsub.subscribe(self._prefix + topic)
                except REDIS_ERRORS as error:
                    self.link.failed("event bus subscription", error)
                    await self._drop_pubsub()
                else:
                    self._tell_reconnected()
            self._wanted.set()
            if self._reader is None or self._reader.done():
                self._reader = asyncio.get_running_loop().create_task(self._read(), name="redis-event-bus")

    async def _unlisten(self, topic: str) -> None:
        async with self._lock:
            count = self._channels.get(topic, 0) - 1
            if count > 0:
                self._channels[topic] = count
                return
            self._channels.pop(topic, None)
            self._latest.pop(topic, None)
            if self._pubsub is not None and self.link.is_up:
                try:
                    async with asyncio.timeout(COMMAND_TIMEOUT_S):
                        await self._pubsub.unsubscribe(self._prefix + topic)
                except REDIS_ERRORS as error:
                    self.link.failed("event bus subscription", error)
                    await self._drop_pubsub()

    async def _connect(self) -> None:
        """A new listening connection subscribed to every wanted topic (the lock held)."""
        pubsub = self._listener.pubsub()
        self._latest.clear()
        try:
            await pubsub.subscribe(*(self._prefix + topic for topic in self._channels))
        except BaseException:
            with contextlib.suppress(Exception):
                await pubsub.aclose()  # type: ignore[no-untyped-call]
            raise
        self._pubsub = pubsub
        self._pubsub_generation = self.link.generation
        self._ping_due = asyncio.get_running_loop().time() + self.ping_interval_s
        self._pong_due = None

    async def _drop_pubsub(self) -> None:
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is None:
            return
        self._lost_subscription = True
        self._latest.clear()
        self._missed(LOST_CONNECTION, "connection")
        with contextlib.suppress(Exception):
            await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _missed(self, reason: str, label: str, topic: str | None = None) -> None:
        ended = self._local.miss(reason, topic)
        if ended:
            MISSED.labels(label).inc(ended)
            logger.warning(
                "redis event bus: %s; %d subscriptions ended (EVENTS_MISSED: they subscribe again and reconcile)",
                reason,
                ended,
            )

    async def _read(self) -> None:
        while True:
            pubsub = self._pubsub
            if pubsub is None:
                await self._resubscribe()
                continue
            try:
                await self._heartbeat(pubsub)
                message = await pubsub.get_message(timeout=self._read_timeout())
            except REDIS_ERRORS as error:
                self.link.failed("event bus subscription", error)
                message = None
            except Exception:
                # Not Redis being away: a client bug must not end the listening task for good.
                logger.exception("redis event bus: reading failed; listening again")
                async with self._lock:
                    if self._pubsub is pubsub:
                        await self._drop_pubsub()
                await asyncio.sleep(1.0)
                continue
            if not self.link.is_up or self.link.generation != self._pubsub_generation:
                # Redis failed since this connection was made (here or elsewhere): it may be half-dead.
                async with self._lock:
                    if self._pubsub is pubsub:
                        await self._drop_pubsub()
                continue
            if message is None:
                continue
            if message.get("type") == "pong":
                self._pong_due = None
                self._ping_due = asyncio.get_running_loop().time() + self.ping_interval_s
                continue
            self._deliver(message)

    async def _heartbeat(self, pubsub: PubSub) -> None:
        """PING the listening connection when due; raises when the last PING's PONG is overdue.

        A connection black-holed on the way (packets dropped, no reset) fails no read and no
        write: only the missing answer shows it is gone.
        """
        now = asyncio.get_running_loop().time()
        if self._pong_due is not None:
            if now >= self._pong_due:
                raise redis.TimeoutError(
                    f"no answer to a PING on the listening connection within {COMMAND_TIMEOUT_S:g} s"
                )
            return
        if now >= self._ping_due:
            self._pong_due = now + COMMAND_TIMEOUT_S
            async with asyncio.timeout(COMMAND_TIMEOUT_S):
                await pubsub.ping(PING_MESSAGE)

    def _read_timeout(self) -> float:
        """How long a read may wait: until the heartbeat's next deadline, 1 s at most."""
        due = self._pong_due if self._pong_due is not None else self._ping_due
        return max(0.0, min(1.0, due - asyncio.get_running_loop().time()))

    async def _resubscribe(self) -> None:
        if not self._channels:
            self._wanted.clear()
            await self._wanted.wait()
            return
        await self.link.wait_up()
        async with self._lock:
            if self._pubsub is not None or not self._channels:
                return
            try:
                async with asyncio.timeout(COMMAND_TIMEOUT_S):
                    await self._connect()
            except REDIS_ERRORS as error:
                self.link.failed("event bus subscription", error)
                return
            self._tell_reconnected()

    def _tell_reconnected(self) -> None:
        """After a listening connection was made (the lock held): tell the listeners if one was lost before."""
        lost, self._lost_subscription = self._lost_subscription, False
        if not lost:
            return
        logger.info("redis event bus: subscribed again to %d topics", len(self._channels))
        for listener in list(self._reconnect_listeners):
            try:
                listener()
            except Exception:
                logger.exception("an event bus reconnect listener failed")

    def _deliver(self, message: dict[str, Any]) -> None:
        channel = message.get("channel")
        if channel is None:
            return  # an UNSUBSCRIBE of no channel left
        topic = (channel.decode() if isinstance(channel, bytes) else str(channel))[len(self._prefix) :]
        if message.get("type") != "message":
            # (Un)subscribed: what follows on the topic is heard from here on, nothing before counts.
            self._latest.pop(topic, None)
            return
        try:
            envelope = json.loads(message["data"])
            origin, event = envelope["origin"], envelope["event"]
        except (TypeError, ValueError, KeyError):
            logger.warning("redis event bus: undecodable message on %s", topic)
            return
        sequence = envelope.get("seq")
        if origin == self.origin or not self._first_delivery(origin, sequence):
            return
        self._check_gap(topic, origin, sequence, envelope.get("prev"))
        self._local.deliver(topic, event)

    def _check_gap(self, topic: str, origin: str, sequence: Any, previous: Any) -> None:
        """Ends the topic's strict subscribers when ``origin`` sent a message there that did not arrive."""
        if topic not in self._channels or not isinstance(sequence, int):
            return
        latest = self._latest.setdefault(topic, OrderedDict())
        last = latest.get(origin)
        latest[origin] = sequence if last is None else max(last, sequence)
        latest.move_to_end(origin)
        if len(latest) > SEEN_ORIGINS:
            latest.popitem(last=False)
        if last is not None and isinstance(previous, int) and previous > last:
            self._missed(GAP, "gap", topic)

    def _first_delivery(self, origin: str, sequence: Any) -> bool:
        """False for a message of ``origin`` already delivered (sent again from its outbox)."""
        if not isinstance(sequence, int):
            return True  # a process that numbers nothing
        seen = self._seen.get(origin)
        if seen is None:
            seen = self._seen[origin] = (set(), deque())
            if len(self._seen) > SEEN_ORIGINS:
                self._seen.popitem(last=False)
        else:
            self._seen.move_to_end(origin)
        numbers, order = seen
        if sequence in numbers:
            return False
        numbers.add(sequence)
        order.append(sequence)
        if len(order) > SEEN_PER_ORIGIN:
            numbers.discard(order.popleft())
        return True

    def subscriber_count(self, topic: str) -> int:
        return self._local.subscriber_count(topic)

    async def ping(self) -> bool:
        return await self.link.probe()

    async def close(self) -> None:
        if self._outbox and self.link.is_up:
            # Sent, or Redis found away, or out of time: whichever comes first.
            waits = {asyncio.ensure_future(self._drained.wait()), asyncio.ensure_future(self.link.wait_down())}
            await asyncio.wait(waits, timeout=FLUSH_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED)
            for wait in waits:
                wait.cancel()
        if self._outbox:
            logger.warning("redis event bus: %d events not sent to Redis before closing", len(self._outbox))
            DROPPED.inc(len(self._outbox))
            self._outbox.clear()
            BUFFERED.set(0)
        for task in (self._sender, self._reader):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        await self._local.close()
        async with self._lock:
            pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(Exception):
                await pubsub.aclose()  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            await self._listener.aclose()
        if self._owns_link:
            await self.link.close()
