"""The process's Prometheus registry, served at GET /metrics; every module's series register here."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

REGISTRY = CollectorRegistry()
