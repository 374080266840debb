"""The HTTP under an MCP session: on the egress-checked transport, keeping connections alive.

The SDK answers each request on its own POST and closes the response before its end; reading
the few bytes that end it lets the next request reuse the connection (``SessionTransport``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable

import anyio
import httpx2

from app.egress import EgressDeniedError

#: Connections of one session's HTTP client (the SDK runs each request on its own POST).
HTTP_LIMITS = httpx2.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)
#: How long, and how far, a closed response's unread rest is read so that its connection
#: can be reused (see SessionTransport).
DRAIN_TIMEOUT_S = 0.05
DRAIN_MAX_BYTES = 64 * 1024


class DrainingStream(httpx2.AsyncByteStream):
    """A response body that, when closed before its end, first reads the rest if it comes
    at once (within DRAIN_TIMEOUT_S and DRAIN_MAX_BYTES), so that its connection goes
    back to the pool instead of being closed."""

    def __init__(self, inner: httpx2.AsyncByteStream) -> None:
        self._inner = inner
        self._ended = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for part in self._inner:
            yield part
        self._ended = True

    async def aclose(self) -> None:
        try:
            if not self._ended:
                with anyio.move_on_after(DRAIN_TIMEOUT_S):
                    drained = 0
                    # Picks up where the reader stopped.
                    async for part in self._inner:
                        drained += len(part)
                        if drained > DRAIN_MAX_BYTES:
                            break
        except Exception:  # a broken body: closing it is all that is left
            pass
        finally:
            await self._inner.aclose()


class SessionTransport(httpx2.AsyncBaseTransport):
    """The transport under a session's HTTP client, on the egress-checked one.

    It keeps connections alive between requests. The SDK answers each request on its
    own POST, as an SSE stream, and closes the response as soon as the answer event is
    in: before the stream's end, which makes httpcore close the connection. Every call
    then paid a new TCP (and TLS) connection. Reading the few bytes that end the stream
    first lets the next request reuse it.

    It also reports connections not made, with what was not sent (``of_request``: whether
    the POST carried a JSON-RPC request), because the SDK reports them only as a closed
    connection, or not at all (SSE's writer logs them): egress refusals to ``on_denied``,
    hosts not reached (a name resolving to nothing, nothing listening) to ``on_not_reached``.
    """

    def __init__(
        self,
        inner: httpx2.AsyncBaseTransport,
        on_denied: Callable[[EgressDeniedError, bool], None] | None = None,
        on_not_reached: Callable[[httpx2.ConnectError, bool], None] | None = None,
    ) -> None:
        self._inner = inner
        self._on_denied = on_denied
        self._on_not_reached = on_not_reached

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            response = await self._inner.handle_async_request(request)
        except EgressDeniedError as denial:
            if self._on_denied is not None:
                self._on_denied(denial, _carries_a_request(request))
            raise
        except httpx2.ConnectError as failure:
            if self._on_not_reached is not None:
                self._on_not_reached(failure, _carries_a_request(request))
            raise
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=DrainingStream(response.stream),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def _carries_a_request(request: httpx2.Request) -> bool:
    """A POST of a JSON-RPC request (it has an id), not of a notification or a response."""
    if request.method != "POST":
        return False
    try:
        message = json.loads(request.content)
    except (httpx2.RequestNotRead, ValueError):
        return False
    return isinstance(message, dict) and "id" in message and "method" in message
