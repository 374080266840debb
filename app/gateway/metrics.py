"""Prometheus metrics of the gateway (exposed at GET /metrics)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram

REGISTRY = CollectorRegistry()

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


def observe(kind: str, tool: str, latency_s: float, error_code: str | None) -> None:
    CALLS.labels(kind, tool).inc()
    LATENCY.labels(kind, tool).observe(latency_s)
    if error_code:
        FAILURES.labels(kind, tool, error_code).inc()
