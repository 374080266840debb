"""Quiver as an MCP server over streamable HTTP: ``/mcp/spaces/{spaceId}`` and ``/mcp/agents/{agentId}``.

The HTTP layer in front of the SDK's ``StreamableHTTPSessionManager`` (both protocol
eras: handshake sessions and 2026-07-28 single requests):

- ``Authorization: Bearer <Quiver API key>`` on every request, checked like ``/graphql``'s
  (the same key cache): missing or invalid → 401. A space or agent the key may not read
  → 404, exactly as one that does not exist.
- The principal and the endpoint go into the request's scope for the handlers, and the
  SDK's session-owner check is given both: a session opened on one endpoint with one key
  answers 404 to any other key or endpoint.
- A POST goes through the tenant admission every ``POST /graphql`` goes through
  (``QUIVER_TENANT_CONCURRENCY``, ``schema.fairness.TenantAdmission``): while another tenant is
  served, a tenant's many calls execute a few at a time, the rest wait in its queue (then 429,
  ``BUSY``); a call waiting on an upstream gives its place up (``app.scheduling.waiting_outside``;
  the SDK runs a handshake-era session's handlers in the context of the POST that carried the
  message, so the POST's ticket is what they pause). Not admitted: GET streams and
  ``subscriptions/listen`` (open for as long as the client listens, mostly idle: they would keep
  the tenant counted as served, and hold everyone else to their share).
- Sessions are bounded per key (``MAX_SESSIONS_PER_KEY``, then 429) and per replica
  (``MAX_SESSIONS``, the SDK answers 503); request bodies to ``MAX_REQUEST_BYTES`` (413),
  arrived in full within ``QUIVER_REQUEST_BODY_TIMEOUT_S`` (408, ``REQUEST_TIMEOUT`` in
  ``error.data.code``: a client stalled half-way held its connection for ever).
- Open streams (GET streams and ``subscriptions/listen``, each open while its client listens)
  are bounded per tenant, whichever of its keys opened them (``QUIVER_MAX_MCP_STREAMS_PER_TENANT``):
  past it a GET is answered 429 and a listen request a JSON-RPC error, both with
  ``TOO_MANY_STREAMS`` in ``error.data.code``.
- It reports each handshake-era session's life to the change notifier (opened: the
  answer carried ``Mcp-Session-Id``; each request; DELETE or a 404 for it: closed).

Handshake-era sessions live on the replica that opened them: behind a load balancer they
need session affinity (on ``Mcp-Session-Id``). 2026-07-28 clients need none.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.types import Message, Receive, Scope, Send

from app.db import DatabaseUnavailableError
from app.http_limits import receive_body, replayed
from app.mcp_server.catalog import Catalog, Target, TargetKind
from app.mcp_server.notify import ChangeNotifier
from app.mcp_server.server import SCOPE_PRINCIPAL, SCOPE_TARGET, QuiverMcpServer, too_many_streams
from app.principal import Principal
from app.scheduling import LOOP_SHARE, TENANT, Admission, TenantBusyError, TenantCap

logger = logging.getLogger(__name__)

PATH = re.compile(r"^/mcp/(spaces|agents)/([A-Za-z0-9_-]{1,64})/?$")
KINDS: dict[str, TargetKind] = {"spaces": "space", "agents": "agent"}
#: A handshake-era session with no request for this long is closed (by the SDK).
SESSION_IDLE_S = 30 * 60.0
MAX_SESSIONS = 10_000
MAX_SESSIONS_PER_KEY = 100
MAX_REQUEST_BYTES = 1024 * 1024
PROTOCOL_VERSION_HEADER = "mcp-protocol-version"
MCP_METHOD_HEADER = "mcp-method"
#: The code in a refusal's ``error.data`` when the tenant's admission queue cannot take the call.
BUSY = "BUSY"

Authenticate = Callable[[str], Awaitable[Principal | None]]


def _error(
    status: int, message: str, headers: dict[str, str] | None = None, data: dict[str, Any] | None = None
) -> Callable[[Send], Awaitable[None]]:
    """A JSON-RPC error body without a request id, as the SDK answers HTTP-level refusals."""
    error: dict[str, Any] = {"code": -32600, "message": message}
    if data is not None:
        error["data"] = data
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()

    async def respond(send: Send) -> None:
        raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        raw += [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()]
        await send({"type": "http.response.start", "status": status, "headers": raw})
        await send({"type": "http.response.body", "body": body})

    return respond


def _bearer(headers: Headers) -> str | None:
    scheme, _, token = (headers.get("authorization") or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class McpEndpoint:
    """The ASGI app mounted at ``/mcp``."""

    session_idle_s = SESSION_IDLE_S

    def __init__(
        self,
        server: QuiverMcpServer,
        catalog: Catalog,
        notifier: ChangeNotifier,
        authenticate: Authenticate,
        admission: Admission | None = None,
        stream_cap: TenantCap | None = None,
        body_timeout_s: float = 0.0,
    ) -> None:
        #: How long a POST's body may take to arrive (0: no limit); see the module.
        self.body_timeout_s = body_timeout_s
        #: The tenants' admission shared with ``POST /graphql`` (None: no cap); see the module.
        self.admission = admission
        #: The tenants' open streams, shared with the server's listen handler (None: no cap).
        self.stream_cap = stream_cap
        self.catalog = catalog
        self.notifier = notifier
        self.authenticate = authenticate
        self.manager = StreamableHTTPSessionManager(
            app=server,
            session_idle_timeout=self.session_idle_s,
            max_request_body_size=MAX_REQUEST_BYTES,
            max_sessions=MAX_SESSIONS,
            # Every request needs a Quiver key, which a browser never sends on its own: the
            # DNS-rebinding checks (Host / Origin allow-lists) would only refuse real proxies.
            security_settings=None,
        )
        self._running = False

    @asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """For the app's lifespan: the SDK's session task group and the change notifier."""
        await self.notifier.start()
        try:
            async with self.manager.run():
                self._running = True
                try:
                    yield
                finally:
                    self._running = False
        finally:
            await self.notifier.close()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        match = PATH.match(scope["path"])
        if match is None:
            await _error(404, "Not found: MCP endpoints are /mcp/spaces/{spaceId} and /mcp/agents/{agentId}.")(send)
            return
        headers = Headers(scope=scope)
        token = _bearer(headers)
        if token is None:
            await _unauthenticated("Missing API key: send `Authorization: Bearer <key>`.")(send)
            return
        try:
            principal = await self.authenticate(token)
            target = Target(KINDS[match.group(1)], match.group(2))
            is_reachable = principal is not None and await self.catalog.reachable(principal, target)
        except DatabaseUnavailableError as error:
            logger.warning("MCP request answered DATABASE_UNAVAILABLE: %s", error)
            message = "The database is not answering; try again shortly."
            await _error(503, message, {"Retry-After": "1"}, data={"code": "DATABASE_UNAVAILABLE"})(send)
            return
        if principal is None:
            await _unauthenticated("Invalid or revoked API key.")(send)
            return
        if not is_reachable:
            await _error(404, f"No {target.kind} {target.id!r} here.")(send)
            return
        if not self._running:
            await _error(503, "The MCP endpoints are starting or stopping; try again.")(send)
            return
        if scope["method"] == "POST" and self.body_timeout_s > 0:
            try:
                async with asyncio.timeout(self.body_timeout_s):
                    body = await receive_body(receive, MAX_REQUEST_BYTES)
            except TimeoutError:
                message = f"The request body did not arrive within {self.body_timeout_s:g} s."
                await _error(408, message, data={"code": "REQUEST_TIMEOUT"})(send)
                return
            if body is None:
                await _error(413, "Request body too large")(send)
                return
            receive = replayed({"type": "http.request", "body": body, "more_body": False}, receive)
        scope = {
            **scope,
            SCOPE_PRINCIPAL: principal,
            SCOPE_TARGET: target,
            # The SDK binds a session to the identity that opened it: the key and the endpoint.
            "user": AuthenticatedUser(
                AccessToken(token=principal.key_id, client_id=principal.key_id, scopes=[], subject=target.key)
            ),
        }
        tenant = principal.tenant
        TENANT.set(tenant)
        if scope["method"] == "GET" and self.stream_cap is not None:
            await self._stream(tenant, self.stream_cap, principal, target, headers, scope, receive, send)
            return
        if self.admission is None or not _admitted(scope, headers):
            await self._route(principal, target, headers, scope, receive, send)
            return
        try:
            ticket = await self.admission.enter(tenant)
        except TenantBusyError as busy:
            await _error(429, busy.message, {"Retry-After": "1"}, {"code": BUSY})(send)
            return
        # While the call waits on an upstream it gives its place up (app.scheduling.waiting_outside).
        share = LOOP_SHARE.set(ticket)
        try:
            await self._route(principal, target, headers, scope, receive, send)
        finally:
            LOOP_SHARE.reset(share)
            ticket.release()

    async def _stream(
        self,
        tenant: str,
        cap: TenantCap,
        principal: Principal,
        target: Target,
        headers: Headers,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        """A GET (a handshake-era session's stream, open while the client listens), counted
        against the tenant's streams while it is open."""
        if not cap.take(tenant):
            message, data = too_many_streams(cap.per_tenant)
            await _error(429, message, {"Retry-After": "1"}, data)(send)
            return
        try:
            await self._route(principal, target, headers, scope, receive, send)
        finally:
            cap.give_back(tenant)

    async def _route(
        self, principal: Principal, target: Target, headers: Headers, scope: Scope, receive: Receive, send: Send
    ) -> None:
        session_id = headers.get(MCP_SESSION_ID_HEADER)
        if session_id is not None:
            await self._in_session(session_id, scope, receive, send)
            return
        # Only a handshake-era POST without a session id may open a session (2026-07-28 requests never do).
        version = headers.get(PROTOCOL_VERSION_HEADER, HANDSHAKE_PROTOCOL_VERSIONS[-1])
        opens_session = scope["method"] == "POST" and version in HANDSHAKE_PROTOCOL_VERSIONS
        if opens_session and self.notifier.sessions_of(principal.key_id) >= MAX_SESSIONS_PER_KEY:
            await _error(429, f"At most {MAX_SESSIONS_PER_KEY} open MCP sessions per key; end one (DELETE).")(send)
            return

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                opened = Headers(raw=message.get("headers", [])).get(MCP_SESSION_ID_HEADER)
                if opened is not None and not self.notifier.is_tracked(opened):
                    self.notifier.session_opened(opened, target, principal.key_id)
            await send(message)

        await self.manager.handle_request(scope, receive, watch)

    async def _in_session(self, session_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        status: dict[str, Any] = {}

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        with self.notifier.session_request(session_id):
            await self.manager.handle_request(scope, receive, watch)
        if scope["method"] == "DELETE" or status.get("code") == 404:
            self.notifier.session_closed(session_id)


def _admitted(scope: Scope, headers: Headers) -> bool:
    """A POST other than ``subscriptions/listen`` (the SDK refuses a 2026-07-28 body whose method
    is not its ``Mcp-Method`` header's: HEADER_MISMATCH)."""
    return bool(scope["method"] == "POST" and headers.get(MCP_METHOD_HEADER) != "subscriptions/listen")


def _unauthenticated(message: str) -> Callable[[Send], Awaitable[None]]:
    return _error(401, message, {"WWW-Authenticate": 'Bearer realm="quiver"'})
