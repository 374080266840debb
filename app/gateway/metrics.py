"""Prometheus metrics of the gateway (exposed at GET /metrics).

Which ``tool`` label a call gets is the gateway's choice (see :func:`opaque_tool_labels`):
an open /metrics must not name the tools of every tenant to anyone who can reach it.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Callable

from prometheus_client import Counter, Histogram

from app.prometheus import REGISTRY

CALLS = Counter("quiver_tool_calls_total", "Tool calls through the gateway.", ["kind", "tool"], registry=REGISTRY)
FAILURES = Counter(
    "quiver_tool_call_failures_total",
    "Failed tool calls by error code.",
    ["kind", "tool", "code"],
    registry=REGISTRY,
)
LATENCY = Histogram(
    "quiver_tool_call_latency_seconds",
    "Tool call latency, retries included.",
    ["kind", "tool"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30),
    registry=REGISTRY,
)


def tool_ids_as_labels(tool_id: str) -> str:
    return tool_id


def opaque_tool_labels(key: bytes) -> Callable[[str], str]:
    """Labels that tell tools apart and reveal nothing of them: ``t_`` and 16 hex digits of a
    keyed hash of the id. The same on every replica sharing the key, and across restarts."""

    # Remembered per id (bounded): an HMAC per call was about 1 % of a served call's CPU.
    @functools.lru_cache(maxsize=4096)
    def label(tool_id: str) -> str:
        return "t_" + hmac.new(key, tool_id.encode(), hashlib.sha256).hexdigest()[:16]

    return label


def observe(kind: str, tool: str, latency_s: float, error_code: str | None) -> None:
    CALLS.labels(kind, tool).inc()
    LATENCY.labels(kind, tool).observe(latency_s)
    if error_code:
        FAILURES.labels(kind, tool, error_code).inc()
