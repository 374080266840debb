"""What one process knows of its Redis: up or down, since when and why.

Redis carries events between replicas and the shared rate limits, never a result: the
event bus and the rate limiter report every Redis failure here and, while the link is
down, stop asking Redis (events are buffered then dropped, rate limits fall back to
per-replica ones) so a call never waits on a dead Redis. A monitor probes it while it
is down (backing off to every ``PROBE_MAX_S``) and flips the link back up when it
answers; ``/healthz`` reads the state (and probes too). Every client made from the link
fails fast: a short connect and command time-out, and one retry only (redis-py's
default is ten, with back-off: seconds per command against a dead server).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

import redis.asyncio as redis
from prometheus_client import Counter, Gauge
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from sqlalchemy.engine import make_url

from app.prometheus import REGISTRY

logger = logging.getLogger("quiver.redis")

CONNECT_TIMEOUT_S = 1.0
COMMAND_TIMEOUT_S = 2.0
PROBE_MIN_S, PROBE_MAX_S = 0.2, 2.0
#: What a Redis client raises when the server is gone, refuses, or does not answer in time; and
#: RuntimeError: on uvloop, a command written to a connection the peer reset (a cut link, a Redis
#: restarted) raises "unable to perform operation on <TCPTransport closed=True>" (/healthz
#: answered 500 with it).
REDIS_ERRORS: tuple[type[BaseException], ...] = (redis.RedisError, OSError, TimeoutError, RuntimeError)

UP = Gauge("quiver_redis_up", "1 while Redis answers, 0 while it is unreachable (calls go on).", registry=REGISTRY)
FAILURES = Counter(
    "quiver_redis_failures_total",
    "Redis operations that failed, by the component that tried (the call went on without Redis).",
    ["component"],
    registry=REGISTRY,
)
OUTAGES = Counter("quiver_redis_outages_total", "Times Redis became unreachable.", registry=REGISTRY)


def describe(error: BaseException) -> str:
    """A short, secret-free reason: redis-py's messages name the host and port, never the password."""
    text = str(error).strip() or "no answer in time"
    return f"{type(error).__name__}: {text}"[:300]


def redacted(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "redis"


class RedisLink:
    """The shared view of one Redis URL. Create one per process and URL and pass it around."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client: redis.Redis = redis.from_url(url, **client_options())
        self.is_up = True
        self.reason: str | None = None
        self.down_since: float | None = None
        #: Goes up at every outage: a connection made before it may be half-dead.
        self.generation = 0
        self._up = asyncio.Event()
        self._up.set()
        self._down = asyncio.Event()
        self._monitor: asyncio.Task[None] | None = None
        self._recovery_listeners: list[Callable[[], None]] = []
        UP.set(1)

    def failed(self, component: str, error: BaseException) -> None:
        """Called by whoever found Redis failing; the first report of an outage logs it."""
        FAILURES.labels(component).inc()
        if not self.is_up:
            self.reason = describe(error)
            return
        self.is_up = False
        self.reason = describe(error)
        self.down_since = time.monotonic()
        self.generation += 1
        self._up.clear()
        self._down.set()
        UP.set(0)
        OUTAGES.inc()
        logger.warning(
            "Redis at %s is unreachable (%s, seen by the %s): calls go on; events are buffered, then dropped, "
            "and rate limits are per replica until it answers again",
            redacted(self.url),
            self.reason,
            component,
        )
        self._start_monitor()

    def on_recovery(self, listener: Callable[[], None]) -> None:
        """Called (on the loop) each time Redis answers again after an outage."""
        self._recovery_listeners.append(listener)

    async def wait_up(self) -> None:
        await self._up.wait()

    async def wait_down(self) -> None:
        await self._down.wait()

    async def probe(self) -> bool:
        """Ping Redis now; the state follows the answer."""
        try:
            async with asyncio.timeout(COMMAND_TIMEOUT_S):
                await self.client.ping()
        except REDIS_ERRORS as error:
            self.failed("probe", error)
            return False
        self._recovered()
        return True

    def status(self) -> dict[str, Any]:
        if self.is_up:
            return {"status": "ok"}
        down_for = time.monotonic() - (self.down_since or time.monotonic())
        return {"status": "unreachable", "reason": self.reason, "downForSeconds": round(down_for, 1)}

    def _recovered(self) -> None:
        if self.is_up:
            return
        down_for = time.monotonic() - (self.down_since or time.monotonic())
        self.is_up = True
        self.reason = None
        self.down_since = None
        self._up.set()
        self._down.clear()
        UP.set(1)
        logger.warning(
            "Redis at %s answers again after %.1f s: shared events and rate limits resume", redacted(self.url), down_for
        )
        for listener in list(self._recovery_listeners):
            try:
                listener()
            except Exception:
                logger.exception("a Redis recovery listener failed")

    def _start_monitor(self) -> None:
        if self._monitor is not None and not self._monitor.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._monitor = loop.create_task(self._watch(), name="redis-link-monitor")

    async def _watch(self) -> None:
        delay = PROBE_MIN_S
        while not self.is_up:
            await asyncio.sleep(delay)
            delay = min(delay * 2, PROBE_MAX_S)
            await self.probe()

    async def close(self) -> None:
        if self._monitor is not None:
            self._monitor.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._monitor
        with contextlib.suppress(Exception):
            await self.client.aclose()


def client_options() -> dict[str, Any]:
    """Fail fast: a dead Redis costs a caller at most about one connect time-out."""
    return {
        "socket_connect_timeout": CONNECT_TIMEOUT_S,
        "socket_timeout": COMMAND_TIMEOUT_S,
        # One retry reconnects a pooled connection Redis closed (a restart) without the caller noticing.
        "retry": Retry(NoBackoff(), 1),
    }
