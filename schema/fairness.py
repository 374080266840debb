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
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

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
