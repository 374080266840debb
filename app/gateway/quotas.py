"""Quotas per (space, tool): a rate limit (``limits``; memory, or Redis when configured)
and a concurrency cap. Both fail fast with RATE_LIMITED rather than queueing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from limits import parse
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from app.gateway.envelope import RATE_LIMITED, ToolFailure
from app.tools.models import ToolDefinition


class QuotaGuard:
    def __init__(self, *, default_rate_limit: str, default_max_concurrency: int, redis_url: str | None) -> None:
        storage_uri = f"async+{redis_url}" if redis_url else "async+memory://"
        # limits talks to Redis through redis-py (already a dependency) rather than coredis.
        options = {"implementation": "redispy"} if redis_url else {}
        self.limiter = MovingWindowRateLimiter(storage_from_string(storage_uri, **options))
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
