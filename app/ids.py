"""Prefixed, time-ordered identifiers: ``ct_`` + 12 hex digits of milliseconds + 8 random.

Within one process the ids are strictly increasing, whatever their prefix: an id made in the
same millisecond as the one before (or with the clock set back) keeps that id's milliseconds
and takes its random part plus one, as a monotonic ULID does. So rows listed by id (the call
log, keyset pagination) come in the order this process made them, even within a millisecond.
Across processes the ids are ordered by their milliseconds only (a forked child starts afresh)."""

from __future__ import annotations

import os
import secrets
import threading
import time

_RANDOM_LIMIT = 1 << 32  # the 8 hex digits after the milliseconds
_lock = threading.Lock()
_last_ms = -1
_last_random = 0


def _next() -> tuple[int, int]:
    """The milliseconds and random part of the next id, after the last one made here."""
    global _last_ms, _last_random
    now = int(time.time() * 1000)
    with _lock:
        if now > _last_ms:
            _last_ms, _last_random = now, secrets.randbelow(_RANDOM_LIMIT)
        elif _last_random + 1 < _RANDOM_LIMIT:
            _last_random += 1
        else:
            # The random part is used up within this millisecond: borrow the next one.
            _last_ms, _last_random = _last_ms + 1, secrets.randbelow(_RANDOM_LIMIT)
        return _last_ms, _last_random


def _forget_after_fork() -> None:
    """A forked child starts its own sequence: going on from the parent's last id, the two
    would make the same ids in the same millisecond."""
    global _lock, _last_ms
    _lock, _last_ms = threading.Lock(), -1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def new_id(prefix: str) -> str:
    """A new id that sorts by creation time, so keyset pagination follows creation order."""
    ms, random = _next()
    return f"{prefix}{ms:012x}{random:08x}"


def mcp_tool_id(server_id: str, tool_name: str) -> str:
    return f"{server_id}__{tool_name}"
