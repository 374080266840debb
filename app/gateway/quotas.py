"""Quotas per (space, tool): a rate limit (``limits``; memory, or Redis when configured)
and a concurrency cap. Both fail fast with RATE_LIMITED rather than queueing."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from limits import parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from app.gateway.envelope import RATE_LIMITED, ToolFailure
from app.tools.models import ToolDefinition

#: How often the in-process limiter drops expired entries.
SWEEP_INTERVAL_S = 1.0


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


class QuotaGuard:
    def __init__(self, *, default_rate_limit: str, default_max_concurrency: int, redis_url: str | None) -> None:
        # limits talks to Redis through redis-py (already a dependency) rather than coredis.
        storage = (
            storage_from_string(f"async+{redis_url}", implementation="redispy")
            if redis_url
            else SweepingMemoryStorage()
        )
        self.limiter = MovingWindowRateLimiter(storage)
        self.default_rate_limit = default_rate_limit
        self.default_max_concurrency = default_max_concurrency
        self._in_flight: dict[tuple[str, str], int] = {}
        self._lock = asyncio.Lock()

    @asynccontextmanager
    async def admit(self, space_id: str, tool: ToolDefinition) -> AsyncIterator[None]:
        limit = parse(tool.rate_limit or self.default_rate_limit)
        if not await self.limiter.hit(limit, "tool", space_id, tool.tool_id):
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
