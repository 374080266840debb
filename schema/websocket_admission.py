"""Bounds on GraphQL WebSockets (graphql-transport-ws, the one protocol ``/graphql`` speaks).

A socket costs the process memory and a task for as long as it is open, idle or not; these
keep one caller from opening thousands:

- **Per tenant.** At most ``QUIVER_MAX_WEBSOCKETS_PER_TENANT`` sockets of a tenant (a space;
  an ADMIN key is a tenant of its own) are acknowledged at once in a process
  (:class:`schema.fairness.TenantCap`). The tenant is known once ``connection_init`` carries
  the key: past the cap the socket is closed then, instead of acknowledged, with
  :data:`TOO_MANY_WEBSOCKETS_CLOSE` and a reason beginning ``TOO_MANY_WEBSOCKETS``. A closed
  socket gives its place back.
- **Before connection_init.** A socket not yet authenticated is closed after
  ``QUIVER_WEBSOCKET_INIT_TIMEOUT_S`` (Strawberry's 4408 ``Connection initialisation
  timeout``), and at most ``QUIVER_MAX_PENDING_WEBSOCKETS`` wait at once in a process: one
  more closes the one waiting longest (4408, a reason beginning
  ``TOO_MANY_PENDING_WEBSOCKETS``) rather than refusing the newcomer, so that sockets opened
  and left waiting cannot keep out clients that send ``connection_init`` at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from typing import Any

from strawberry.subscriptions.protocols.graphql_transport_ws.types import ConnectionInitMessage

from app.db import DatabaseUnavailableError
from schema.context import Context
from schema.fairness import TenantCap
from schema.shared_streams import SharingTransportWSHandler

logger = logging.getLogger(__name__)

TOO_MANY_WEBSOCKETS = "TOO_MANY_WEBSOCKETS"
TOO_MANY_PENDING_WEBSOCKETS = "TOO_MANY_PENDING_WEBSOCKETS"
#: 4000 + 13, after WebSocket's 1013 "Try Again Later": a place may free up (graphql-ws clients retry it).
TOO_MANY_WEBSOCKETS_CLOSE = 4013
#: WebSocket's "Try Again Later": the database did not answer while the key was looked up
#: (graphql-ws clients retry it; 4403 would tell them the key is bad).
TRY_AGAIN_LATER_CLOSE = 1013
DATABASE_UNAVAILABLE_REASON = "DATABASE_UNAVAILABLE: the database is not answering; try again shortly"
#: graphql-transport-ws's "Connection initialisation timeout".
INIT_TIMEOUT_CLOSE = 4408


class TooManyWebSocketsError(Exception):
    """Raised by the router's ``on_ws_connect`` when the tenant is at its cap."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit

    @property
    def reason(self) -> str:
        # A close reason is at most 123 bytes.
        return f"{TOO_MANY_WEBSOCKETS}: this tenant has {self.limit} open (QUIVER_MAX_WEBSOCKETS_PER_TENANT); close one"


def take_socket(cap: TenantCap | None, context: Context, tenant: str) -> None:
    """A place for ``context``'s socket in ``tenant``'s share (given back by the handler when the
    socket ends); raises :class:`TooManyWebSocketsError` at the cap."""
    if cap is None:
        return
    if not cap.take(tenant):
        raise TooManyWebSocketsError(cap.per_tenant)
    context.socket_tenant = tenant


class PendingSockets:
    """The sockets waiting for ``connection_init``, oldest first; past ``limit``, the oldest is evicted."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self._waiting: OrderedDict[object, Callable[[], Coroutine[Any, Any, None]]] = OrderedDict()
        self._evicting: set[asyncio.Task[None]] = set()

    def add(self, socket: object, evict: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self._waiting[socket] = evict
        while len(self._waiting) > self.limit:
            _, oldest = self._waiting.popitem(last=False)
            task = asyncio.create_task(oldest())
            self._evicting.add(task)
            task.add_done_callback(self._evicting.discard)

    def discard(self, socket: object) -> None:
        self._waiting.pop(socket, None)

    def __len__(self) -> int:
        return len(self._waiting)


class AdmittingTransportWSHandler(SharingTransportWSHandler):
    """graphql-transport-ws with alike subscriptions shared, and the bounds of the module."""

    async def handle(self) -> None:
        pending: PendingSockets | None = getattr(self.view, "pending_sockets", None)
        if pending is not None:
            pending.add(self, self._evict)
        try:
            await super().handle()
        finally:
            if pending is not None:
                pending.discard(self)
            self._give_socket_back()

    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        pending: PendingSockets | None = getattr(self.view, "pending_sockets", None)
        if pending is not None:
            pending.discard(self)
        try:
            await super().handle_connection_init(message)
        except TooManyWebSocketsError as refused:
            logger.info("websocket refused: the tenant is at its cap", extra={"limit": refused.limit})
            await self.websocket.close(code=TOO_MANY_WEBSOCKETS_CLOSE, reason=refused.reason)
        except DatabaseUnavailableError as error:
            logger.warning("websocket refused: the database did not answer for its key: %s", error)
            await self.websocket.close(code=TRY_AGAIN_LATER_CLOSE, reason=DATABASE_UNAVAILABLE_REASON)

    def _give_socket_back(self) -> None:
        tenant = self.context.socket_tenant
        cap: TenantCap | None = getattr(self.view, "socket_cap", None)
        if tenant is not None and cap is not None:
            self.context.socket_tenant = None
            cap.give_back(tenant)

    async def _evict(self) -> None:
        """Closed to make room for a newer socket while still waiting for ``connection_init``."""
        if self.connection_init_received or self.connection_timed_out:
            return
        # As Strawberry's own timeout does: a connection_init arriving now is ignored.
        self.connection_timed_out = True
        if self.connection_init_timeout_task is not None:
            self.connection_init_timeout_task.cancel()
        limit = getattr(getattr(self.view, "pending_sockets", None), "limit", 0)
        reason = f"{TOO_MANY_PENDING_WEBSOCKETS}: {limit} sockets wait for connection_init; send it at once"
        with contextlib.suppress(Exception):  # the socket may be gone already
            await self.websocket.close(code=INIT_TIMEOUT_CLOSE, reason=reason)
