"""Sharing the one event loop between tenants.

Everything a request does in Python runs on the loop, and while it runs nobody else is
answered. Two measures keep one tenant's heavy queries from holding up another tenant's
cheap ones (``bench/noisy_neighbour.py`` measures them; so does the garbage collector's
freeze at start-up, ``app.main.freeze_startup_objects``):

- **Time slices.** Completing a large result (pages of 100 objects, times every alias)
  is synchronous work in graphql-core. :class:`TimeSlicedExecutor` completes every list
  of ``SLICED_LIST_MIN`` items or more through an async iterator that hands the loop
  back whenever the operation has run ``SLICE_S`` since it last did, so other requests'
  steps run in between.
- **One line per tenant.** :class:`CostlyOperationGate` lets at most ``per_tenant``
  queries costing ``COSTLY_COST`` or more (see ``schema.limits``) execute at once per
  tenant (a space; an ADMIN key on its own): a tenant sending many heavy queries waits
  behind itself, not the others behind it.
- **Fair admission.** :class:`TenantAdmission` lets at most ``per_tenant`` requests of a
  tenant execute at once *while another tenant is active*; the rest wait in the tenant's
  own queue, first in first out, bounded in length and in time (then refused with
  :class:`TenantBusyError`). Every step a request has ready is one the others' requests wait
  behind, so a tenant with many requests in flight would otherwise set everyone's latency.
  Alone, a tenant is never held: a single tenant's many concurrent calls (and what they
  share, such as the call log's group commits) keep their concurrency.
- **Open subscriptions.** :class:`OperationCap` bounds how many subscriptions (streams it
  started, operations of its own) a tenant has running at once over WebSockets; past it, a
  new one is answered with an error (``TOO_MANY_SUBSCRIPTIONS``) and the socket stays open.
  :class:`TenantCap` (its base, ``app.scheduling``) bounds a tenant's open WebSockets the same
  way (``schema.websocket_admission``), and its MCP streams (``app.mcp_server``).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from app.scheduling import TenantBusyError as TenantBusyError
from app.scheduling import TenantCap as TenantCap
from schema.execution import FastExecutionContext

#: Longest an operation completes list items before it lets others in.
SLICE_S = 0.002
#: Shorter lists are completed at once: slicing them would cost more than it gives.
SLICED_LIST_MIN = 16
#: Queries costing this much or more wait in their tenant's line (a page of 100 objects
#: with about ten fields costs about 1,000; the cheap queries of a page cost tens).
COSTLY_COST = 1_000
COSTLY_PER_TENANT = 1
#: Where app.main's line for large bodies leaves the call that lets the tenant's next one in:
#: made once the request's document is parsed, validated and costed (its execution does not
#: hold the line: a synchronous agent run may take minutes).
LINE_RELEASE_SCOPE_KEY = "quiver.release_line"


class TimeSlicedExecutor(FastExecutionContext):
    """Quiver's executor (``schema.execution``), completing long lists in slices."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.slice_started = time.perf_counter()

    def complete_list_value(
        self,
        return_type: Any,
        field_details_list: Any,
        info: Any,
        path: Any,
        result: Any,
        position_context: Any,
    ) -> Any:
        if isinstance(result, list | tuple) and len(result) >= SLICED_LIST_MIN:
            result = self._sliced(result)
        return super().complete_list_value(return_type, field_details_list, info, path, result, position_context)

    def slice_due(self) -> bool:
        # Lists of objects read in place (schema/execution.py) are sliced through these two.
        return time.perf_counter() - self.slice_started >= SLICE_S

    async def next_slice(self) -> None:
        await asyncio.sleep(0)
        self.slice_started = time.perf_counter()

    async def _sliced(self, items: Sequence[Any]) -> AsyncIterator[Any]:
        for item in items:
            if time.perf_counter() - self.slice_started >= SLICE_S:
                await asyncio.sleep(0)
                self.slice_started = time.perf_counter()
            yield item


class CostlyOperationGate:
    """At most ``per_tenant`` costly queries (or, in app.main, large request bodies) at once per
    tenant; the others wait in its line."""

    def __init__(self, per_tenant: int = COSTLY_PER_TENANT) -> None:
        self.per_tenant = per_tenant
        self._lines: dict[str, tuple[asyncio.Semaphore, int]] = {}

    @asynccontextmanager
    async def turn(self, tenant: str) -> AsyncIterator[None]:
        await self.enter(tenant)
        try:
            yield
        finally:
            self.leave(tenant)

    async def enter(self, tenant: str) -> None:
        """Wait for the tenant's turn; every ``enter`` that returned needs one ``leave``."""
        semaphore, users = self._lines.get(tenant) or (asyncio.Semaphore(self.per_tenant), 0)
        self._lines[tenant] = (semaphore, users + 1)
        try:
            await semaphore.acquire()
        except BaseException:
            self._out_of_line(tenant)
            raise

    def leave(self, tenant: str) -> None:
        self._lines[tenant][0].release()
        self._out_of_line(tenant)

    def _out_of_line(self, tenant: str) -> None:
        semaphore, users = self._lines[tenant]
        if users <= 1:
            del self._lines[tenant]
        else:
            self._lines[tenant] = (semaphore, users - 1)

    def in_line(self, tenant: str) -> int:
        """Queries of the tenant running or waiting."""
        entry = self._lines.get(tenant)
        return 0 if entry is None else entry[1]


#: A request counts against its tenant's share for at most this long: one still open after it is
#: waiting on something outside (a model, an upstream tool), not keeping the loop busy.
ADMISSION_HOLD_S = 1.0
#: A tenant stays "active" this long after its last request ended: a client sending one request
#: at a time (and a few milliseconds apart) is still being served between them.
ADMISSION_RECENT_S = 1.0
#: How often waiting requests are looked at again (a hold run out, a tenant gone quiet).
ADMISSION_RECHECK_S = 0.02


class AdmissionTicket:
    """An admitted request: ``release`` once it is answered (idempotent)."""

    __slots__ = ("_admission", "_state", "admitted_at", "held", "released")

    def __init__(self, admission: TenantAdmission, state: _TenantState, admitted_at: float) -> None:
        self._admission = admission
        self._state = state
        self.admitted_at = admitted_at
        self.held = True
        self.released = False

    def release(self) -> None:
        if not self.released:
            self.released = True
            self._admission._release(self)

    def pause(self) -> None:
        """Waiting on an upstream: stop counting against the share (the next in line may go in)."""
        if not self.released and self.held:
            self._admission._pause(self)

    def resume(self) -> None:
        """Back from the upstream: count again, without waiting (within the hold), even past the share."""
        if not self.released and not self.held:
            self._admission._resume(self)


class _TenantState:
    __slots__ = ("holding", "name", "open", "tickets", "waiting")

    def __init__(self, name: str) -> None:
        self.name = name
        #: Requests admitted or waiting, not yet answered.
        self.open = 0
        #: Admitted requests counting against the share (not released, not past the hold).
        self.holding = 0
        #: Admitted tickets, oldest first (released ones are dropped as they reach the front).
        self.tickets: deque[AdmissionTicket] = deque()
        self.waiting: deque[asyncio.Future[AdmissionTicket]] = deque()


class TenantAdmission:
    """At most ``per_tenant`` executing requests per tenant while other tenants are active.

    A tenant is active while it has a request open, and for ``recent_s`` after its last one
    ended. A request of a tenant at its share, while another tenant is active, waits in its
    tenant's queue (first in, first out); it is let in when one of the tenant's requests ends
    or has been executing for ``hold_s``, or when the others have gone quiet. Other tenants'
    requests never wait behind that queue. At most ``max_waiting`` wait per tenant and none
    longer than ``max_wait_s``: past either, :meth:`enter` raises :class:`TenantBusyError`.
    """

    def __init__(
        self,
        per_tenant: int,
        *,
        max_waiting: int = 256,
        max_wait_s: float = 10.0,
        hold_s: float = ADMISSION_HOLD_S,
        recent_s: float = ADMISSION_RECENT_S,
        recheck_s: float = ADMISSION_RECHECK_S,
    ) -> None:
        if per_tenant < 1:
            raise ValueError("per_tenant must be at least 1")
        self.per_tenant = per_tenant
        self.max_waiting = max_waiting
        self.max_wait_s = max_wait_s
        self.hold_s = hold_s
        self.recent_s = recent_s
        self.recheck_s = recheck_s
        #: Tenants with a request open.
        self._tenants: dict[str, _TenantState] = {}
        #: Tenants with none open: when their last one ended.
        self._ended: dict[str, float] = {}
        self._recheck: asyncio.TimerHandle | None = None

    async def enter(self, tenant: str) -> AdmissionTicket:
        """Admit a request of ``tenant`` (at once, or after its turn in the tenant's queue)."""
        now = time.monotonic()
        state = self._tenants.get(tenant)
        if state is None:
            state = self._tenants[tenant] = _TenantState(tenant)
            self._ended.pop(tenant, None)
        state.open += 1
        if not state.waiting and self._may_enter(state, now):
            return self._admit(state, now)
        if len(state.waiting) >= self.max_waiting:
            self._close(state, now)
            raise TenantBusyError(
                f"{self.max_waiting} requests of this tenant are already waiting for one of its "
                f"{self.per_tenant} running ones to end; retry later."
            )
        loop = asyncio.get_running_loop()
        turn: asyncio.Future[AdmissionTicket] = loop.create_future()
        state.waiting.append(turn)
        if self._recheck is None:
            self._recheck = loop.call_later(self.recheck_s, self._look_again)
        try:
            async with asyncio.timeout(self.max_wait_s):
                return await turn
        except BaseException as error:
            if turn.done() and not turn.cancelled():
                turn.result().release()  # let in just as the wait ended
            else:
                turn.cancel()
                if turn in state.waiting:
                    state.waiting.remove(turn)
                self._close(state, time.monotonic())
            if isinstance(error, TimeoutError):
                raise TenantBusyError(
                    f"Not let in within {self.max_wait_s:g} s: this tenant's {self.per_tenant} running "
                    "requests hold its share while others are served; retry later."
                ) from None
            raise

    def running(self, tenant: str) -> int:
        """Requests of ``tenant`` counting against its share now."""
        state = self._tenants.get(tenant)
        if state is None:
            return 0
        self._expire(state, time.monotonic())
        return state.holding

    def waiting(self, tenant: str) -> int:
        state = self._tenants.get(tenant)
        return 0 if state is None else sum(1 for turn in state.waiting if not turn.done())

    def _may_enter(self, state: _TenantState, now: float) -> bool:
        if state.holding < self.per_tenant:
            return True
        self._expire(state, now)
        return state.holding < self.per_tenant or not self._others_active(state.name, now)

    def _others_active(self, tenant: str, now: float) -> bool:
        for name in self._tenants:
            if name != tenant:
                return True
        gone = [name for name, ended in self._ended.items() if now - ended >= self.recent_s]
        for name in gone:
            del self._ended[name]
        return any(name != tenant for name in self._ended)

    def _admit(self, state: _TenantState, now: float) -> AdmissionTicket:
        ticket = AdmissionTicket(self, state, now)
        state.holding += 1
        state.tickets.append(ticket)
        return ticket

    def _expire(self, state: _TenantState, now: float) -> None:
        """Drop released tickets from the front; stop counting those held past ``hold_s``."""
        tickets = state.tickets
        while tickets and (tickets[0].released or now - tickets[0].admitted_at >= self.hold_s):
            ticket = tickets.popleft()
            if ticket.held:
                ticket.held = False
                state.holding -= 1

    def _release(self, ticket: AdmissionTicket) -> None:
        state = ticket._state
        if ticket.held:
            ticket.held = False
            state.holding -= 1
        now = time.monotonic()
        self._close(state, now)
        if state.waiting:
            self._let_in(state, now)

    def _pause(self, ticket: AdmissionTicket) -> None:
        state = ticket._state
        ticket.held = False
        state.holding -= 1
        if state.waiting:
            self._let_in(state, time.monotonic())

    def _resume(self, ticket: AdmissionTicket) -> None:
        # Still within its hold (its entry not yet dropped by _expire): it counts again.
        if time.monotonic() - ticket.admitted_at < self.hold_s and ticket in ticket._state.tickets:
            ticket.held = True
            ticket._state.holding += 1

    def _close(self, state: _TenantState, now: float) -> None:
        """One of the tenant's requests is answered (or gave up waiting)."""
        state.open -= 1
        if state.open == 0:
            del self._tenants[state.name]
            self._ended[state.name] = now

    def _let_in(self, state: _TenantState, now: float) -> None:
        while state.waiting and self._may_enter(state, now):
            turn = state.waiting.popleft()
            if not turn.done():
                turn.set_result(self._admit(state, now))

    def _look_again(self) -> None:
        self._recheck = None
        now = time.monotonic()
        anyone_waiting = False
        for state in list(self._tenants.values()):
            if state.waiting:
                self._let_in(state, now)
                anyone_waiting = anyone_waiting or bool(state.waiting)
        if anyone_waiting:
            self._recheck = asyncio.get_running_loop().call_later(self.recheck_s, self._look_again)


class OperationCap(TenantCap):
    """At most ``per_tenant`` subscriptions of a tenant running at once over WebSockets: shared
    streams it started (``schema.shared_streams``; joining an existing one is free) and
    operations running on their own (another subscription, a query or mutation over the socket).

    Each is a subscriber on the event bus: every event published on its topic — for
    ``toolCalls``, any tenant's tool call — is queued to it, wakes its task and is filtered
    there, on the loop every tenant's requests share. Without a bound, a tenant opening
    thousands of them (over as many sockets as it likes, each with other variables so that none
    shares a stream) would add that much work to every other tenant's every call."""
