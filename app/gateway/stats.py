"""Call statistics of tools, computed from the call log."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from app.gateway import repository


@dataclass
class CallStats:
    calls: int = 0
    failures: int = 0
    failures_by_code: dict[str, int] = field(default_factory=dict)
    p50_latency_ms: float | None = None
    p95_latency_ms: float | None = None
    last_called_at: datetime | None = None


def percentile(sorted_values: Sequence[float], fraction: float) -> float | None:
    """Nearest-rank percentile of already sorted values."""
    if not sorted_values:
        return None
    rank = max(1, round(fraction * len(sorted_values) + 0.5 - 1e-9))
    return sorted_values[min(rank, len(sorted_values)) - 1]


async def stats_for_tools(
    session: AsyncSession, tool_ids: Sequence[str], since: datetime | None, space_ids: Sequence[str] | None
) -> dict[str, CallStats]:
    latencies: dict[str, list[float]] = defaultdict(list)
    failures: dict[str, Counter[str]] = defaultdict(Counter)
    last: dict[str, datetime] = {}
    for tool_id, status, error_code, latency_ms, started_at in await repository.stats_rows(
        session, tool_ids, since, space_ids
    ):
        latencies[tool_id].append(latency_ms)
        if status == "FAILED":
            failures[tool_id][error_code or "UNKNOWN"] += 1
        if tool_id not in last or started_at > last[tool_id]:
            last[tool_id] = started_at
    result: dict[str, CallStats] = {}
    for tool_id in tool_ids:
        values = sorted(latencies.get(tool_id, []))
        by_code = dict(failures.get(tool_id, Counter()))
        result[tool_id] = CallStats(
            calls=len(values),
            failures=sum(by_code.values()),
            failures_by_code=by_code,
            p50_latency_ms=percentile(values, 0.50),
            p95_latency_ms=percentile(values, 0.95),
            last_called_at=last.get(tool_id),
        )
    return result
