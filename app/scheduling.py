"""The event loop shared by tenant: one that used more than its share of the loop lately waits.

Everything a request does in Python runs on the one loop, step by step (each step runs from
one ``await`` to the next). :class:`FairLoop` is uvloop's loop with one change: every step
scheduled in a request of a known tenant (:data:`TENANT`, set once the request's key is known)
is timed, and charged to that tenant in a :class:`TenantLedger`. While another tenant is
being served, a tenant whose recent loop time is over its ``share`` has its next steps
scheduled later, until what it used has decayed back to its share: a tenant flooding the
server queues behind itself, and another tenant's steps find the loop free sooner. Alone, a
tenant is never held back.

What it cannot do: a single step is never cut (a 2 MiB body parsed by the C JSON parser runs
to its end), and work outside any request (timers, the call-log writer) is not charged.

``quiver serve`` runs on it with ``QUIVER_FAIR_LOOP=true`` (off by default: measured, it did
not help the quiet tenant consistently; see ``bench/README.md``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import Context, ContextVar
from typing import Any, Protocol

import uvloop

#: Who the current request is for (a space; an ADMIN key on its own); None outside requests.
TENANT: ContextVar[str | None] = ContextVar("quiver_tenant", default=None)


class LoopShare(Protocol):
    """A request's place in its tenant's share of executing requests (schema.fairness.AdmissionTicket)."""

    def pause(self) -> None:
        """The request waits on something outside the process: its place may go to another."""

    def resume(self) -> None:
        """The request uses the loop again."""


#: The current request's place in its tenant's share, when the admission is on; None otherwise.
LOOP_SHARE: ContextVar[LoopShare | None] = ContextVar("quiver_loop_share", default=None)


class AdmittedRequest(LoopShare, Protocol):
    def release(self) -> None:
        """The request is answered (idempotent)."""


class Admission(Protocol):
    """The tenants' admission (schema.fairness.TenantAdmission), for the ways in outside the schema."""

    async def enter(self, tenant: str) -> AdmittedRequest:
        """Admit a request of ``tenant``, at once or after its turn; :class:`TenantBusyError` when it cannot."""
        ...


class TenantBusyError(Exception):
    """A request its tenant's queue cannot take (full) or did not admit in time."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TenantCap:
    """At most ``per_tenant`` of something per tenant at once (in this process): ``take`` one,
    ``give_back`` it when it ends."""

    def __init__(self, per_tenant: int) -> None:
        if per_tenant < 1:
            raise ValueError("per_tenant must be at least 1")
        self.per_tenant = per_tenant
        self._open: dict[str, int] = {}

    def take(self, tenant: str) -> bool:
        """Count one more of ``tenant``'s; False (nothing counted) when it is at the cap."""
        count = self._open.get(tenant, 0)
        if count >= self.per_tenant:
            return False
        self._open[tenant] = count + 1
        return True

    def give_back(self, tenant: str) -> None:
        count = self._open.get(tenant, 0) - 1
        if count > 0:
            self._open[tenant] = count
        else:
            self._open.pop(tenant, None)

    def open(self, tenant: str) -> int:
        return self._open.get(tenant, 0)


@contextmanager
def waiting_outside() -> Iterator[None]:
    """Around an await on an upstream (a tool's endpoint, an MCP server, a model): while it
    waits, the request does not count against its tenant's share, so a tenant whose calls
    mostly wait on slow upstreams is not held to a few at a time while others are served."""
    share = LOOP_SHARE.get()
    if share is None:
        yield
        return
    share.pause()
    try:
        yield
    finally:
        share.resume()


#: How quickly what a tenant used is forgotten (seconds, the time constant of the decay).
WINDOW_S = 0.1
#: The part of the loop a tenant may use while another tenant is being served.
SHARE = 0.5
#: Longest a step is held back at once.
MAX_DELAY_S = 0.25


class TenantLedger:
    """Loop time per tenant, decaying with ``window_s``; how long a tenant's next step waits."""

    def __init__(self, share: float = SHARE, window_s: float = WINDOW_S, max_delay_s: float = MAX_DELAY_S) -> None:
        self.share = share
        self.window_s = window_s
        self.max_delay_s = max_delay_s
        #: tenant → (loop seconds used, decayed to ``at``; ``at``: when last charged).
        self._used: dict[str, tuple[float, float]] = {}

    def _decayed(self, tenant: str, now: float) -> float:
        used, at = self._used.get(tenant, (0.0, now))
        return used * math.exp(-(now - at) / self.window_s)

    def charge(self, tenant: str, seconds: float, now: float) -> None:
        self._used[tenant] = (self._decayed(tenant, now) + seconds, now)
        if len(self._used) > 1024:  # forget the tenants that have gone quiet
            self._used = {name: entry for name, entry in self._used.items() if now - entry[1] < 10 * self.window_s}

    def delay(self, tenant: str, now: float) -> float:
        """0 when the tenant is within its share, or no other tenant was served lately."""
        budget = self.share * self.window_s
        used = self._decayed(tenant, now)
        if used <= budget:
            return 0.0
        others = any(name != tenant and now - at < self.window_s for name, (_, at) in self._used.items())
        if not others:
            return 0.0
        return min(self.window_s * math.log(used / budget), self.max_delay_s)


class FairLoop(uvloop.Loop):
    """uvloop, with each tenant's steps timed and held back past its share (see the module doc)."""

    def __init__(self) -> None:
        super().__init__()
        self.ledger = TenantLedger()

    def call_soon(  # type: ignore[override]
        self, callback: Callable[..., Any], *args: Any, context: Context | None = None
    ) -> Any:
        tenant = context.get(TENANT) if context is not None else TENANT.get()
        if tenant is None:
            return super().call_soon(callback, *args, context=context)
        now = time.perf_counter()
        wait = self.ledger.delay(tenant, now)
        if wait > 0:
            return super().call_later(wait, self._charged, tenant, callback, args, context=context)
        return super().call_soon(self._charged, tenant, callback, args, context=context)

    def _charged(self, tenant: str, callback: Callable[..., Any], args: tuple[Any, ...]) -> None:
        started = time.perf_counter()
        try:
            callback(*args)
        finally:
            ended = time.perf_counter()
            self.ledger.charge(tenant, ended - started, ended)


def new_event_loop() -> FairLoop:
    """uvicorn's loop factory (``loop="app.scheduling:new_event_loop"``)."""
    return FairLoop()
