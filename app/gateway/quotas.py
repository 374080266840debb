"""Quotas per (space, tool): a rate limit (``limits``; memory, or Redis when configured)
and a concurrency cap. Both fail fast with RATE_LIMITED rather than queueing.

Redis is not on the path of a result: while it is unreachable (see
:class:`~app.events.redis_link.RedisLink`) each replica counts on its own, in memory,
with the same limit, and the shared count resumes when Redis answers again.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage, RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter
from prometheus_client import Counter

from app.events.redis_link import REDIS_ERRORS, RedisLink
from app.gateway.envelope import RATE_LIMITED, ToolFailure
from app.prometheus import REGISTRY
from app.tools.models import ToolDefinition

#: Longest a call waits on the shared limiter before counting on this replica (a healthy Redis answers in ms).
SHARED_LIMIT_TIMEOUT_S = 1.0
#: How often the in-process limiter drops expired entries.
SWEEP_INTERVAL_S = 1.0

LOCAL_FALLBACKS = Counter(
    "quiver_rate_limit_local_fallbacks_total",
    "Rate-limit checks counted per replica because the shared (Redis) limiter was unreachable.",
    registry=REGISTRY,
)


class SweepingMemoryStorage(MemoryStorage):
    """limits' in-process storage, sweeping expired entries at most once a second.

    The library starts a sweep after every hit, and a sweep makes one thread hop per
    (space, tool) key for moving windows: background work on every call that grows with
    the number of keys and competes with the call itself. Every read checks timestamps
    itself, so sweeping less often changes no decision, only when memory is given back.
    """

    _last_sweep = 0.0

    async def _MemoryStorage__schedule_expiry(self) -> None:  # noqa: N802 - the base class's private hook
        now = time.monotonic()
        if now - self._last_sweep < SWEEP_INTERVAL_S:
            return
        self._last_sweep = now
        sweep = getattr(super(), "_MemoryStorage__schedule_expiry")  # noqa: B009 - name-mangled
        await sweep()


@functools.lru_cache(maxsize=1024)
def _parsed_limit(text: str) -> RateLimitItem:
    """``limits.parse``, once per distinct limit (it runs a regular expression per call otherwise)."""
    return parse(text)


class QuotaGuard:
    def __init__(
        self, *, default_rate_limit: str, default_max_concurrency: int, redis: RedisLink | None = None
    ) -> None:
        self.local_limiter = MovingWindowRateLimiter(SweepingMemoryStorage())
        self.shared_limiter: MovingWindowRateLimiter | None = None
        self.redis = redis
        if redis is not None:
            # limits talks to Redis through the link's redis-py pool: its fail-fast time-outs and retries.
            options: dict[str, Any] = {"connection_pool": redis.client.connection_pool}
            storage = RedisStorage(f"async+{redis.url}", implementation="redispy", **options)
            self.shared_limiter = MovingWindowRateLimiter(storage)
        self.default_rate_limit = default_rate_limit
        self.default_max_concurrency = default_max_concurrency
        self._in_flight: dict[tuple[str, str], int] = {}
        self._lock = asyncio.Lock()

    async def _hit(self, limit: RateLimitItem, space_id: str, tool_id: str) -> bool:
        if self.shared_limiter is not None and self.redis is not None and self.redis.is_up:
            try:
                async with asyncio.timeout(SHARED_LIMIT_TIMEOUT_S):
                    return await self.shared_limiter.hit(limit, "tool", space_id, tool_id)
            except REDIS_ERRORS as error:
                self.redis.failed("rate limiter", error)
        if self.shared_limiter is not None:
            LOCAL_FALLBACKS.inc()
        return await self.local_limiter.hit(limit, "tool", space_id, tool_id)

    @asynccontextmanager
    async def admit(self, space_id: str, tool: ToolDefinition) -> AsyncIterator[None]:
        limit = _parsed_limit(tool.rate_limit or self.default_rate_limit)
        if not await self._hit(limit, space_id, tool.tool_id):
            raise ToolFailure(
                RATE_LIMITED,
                "This tool is being called too often; try again shortly.",
                f"rate limit {limit} per space and tool",
                retryable=False,
            )
        cap = tool.max_concurrency or self.default_max_concurrency
        key = (space_id, tool.tool_id)
        async with self._lock:
            if self._in_flight.get(key, 0) >= cap:
                raise ToolFailure(
                    RATE_LIMITED,
                    "Too many calls of this tool are running; try again shortly.",
                    f"concurrency cap {cap} per space and tool (per replica)",
                )
            self._in_flight[key] = self._in_flight.get(key, 0) + 1
        try:
            yield
        finally:
            async with self._lock:
                self._in_flight[key] -= 1
