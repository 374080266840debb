"""Prefixed, time-ordered identifiers: ``ct_`` + 12 hex digits of milliseconds + 8 random."""

from __future__ import annotations

import secrets
import time


def new_id(prefix: str) -> str:
    """A new id that sorts by creation time, so keyset pagination follows creation order."""
    return f"{prefix}{int(time.time() * 1000):012x}{secrets.token_hex(4)}"


def mcp_tool_id(server_id: str, tool_name: str) -> str:
    return f"{server_id}__{tool_name}"
