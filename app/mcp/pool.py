"""The MCP session pool: one live ``ClientSession`` per server, reused by every request.

No process or connection per call. anyio requires a context manager to be entered and exited by the same task,
so each connection lives in a dedicated holder task: it opens the transport (a STDIO
subprocess, or streamable HTTP / SSE with the server's auth headers), runs
``initialize``, primes the SDK's tool cache with a full ``tools/list``, signals
readiness and then waits; callers only send requests on the session.

A connection is retired (a new one is made on the next call) when its read stream
ends (process died, transport collapsed), when a call on it times out or loses the
connection, when the answer breaks the protocol, or when the server's row changes.
A retired connection closes once its in-flight calls have finished, so a slow call
does not take its neighbours down with it. A JSON-RPC error answer or an ``isError``
result leaves the connection alone: the server is talking, it just said no.

Calls are never retried, with one exception that is not a retry of the tool: an HTTP
server that answers 404 to a known session (it restarted, or expired the session)
has refused the request without running it, and the MCP spec asks the client to open
a new session; the request is sent once more on the new session.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import re
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, TypeVar

import anyio
import httpx2
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, INVALID_REQUEST, METHOD_NOT_FOUND, REQUEST_TIMEOUT
from pydantic import ValidationError

from app.crypto import SecretBox
from app.egress import EgressDeniedError, EgressPolicy, egress_checked_transport2
from app.gateway.redaction import NO_SECRETS, SecretScrubber, scrubber_for
from app.mcp.config import (
    BAD_RESULT,
    CONNECTION_LOST,
    EGRESS,
    MAX_ANSWER_BYTES,
    REJECTED,
    TIMED_OUT,
    TOO_LARGE,
    UNREACHABLE,
    McpCallError,
    McpServerConfig,
    describe_error,
)
from app.mcp.session import Connection, VettedClientSession, WatchedReadStream, list_all_tools, raise_if_not_made
from app.mcp.transport import HTTP_LIMITS, SessionTransport
from app.validation import is_header_value

logger = logging.getLogger("quiver.mcp")

T = TypeVar("T")

CLIENT_INFO = types.Implementation(name="quiver", version="0.1.0")
#: Transport setup + ``initialize`` + the priming ``tools/list``. A STDIO server is a process
#: starting (an ``npx``/``uvx`` one may fetch itself first; 10 s was too short for a Python
#: server on a busy machine), so this is generous; a call's own deadline still bounds it.
CONNECT_TIMEOUT_S = 30.0
#: How long an idle server-to-client SSE stream may stay silent.
SSE_READ_TIMEOUT_S = 300.0
#: A hard bound around a request, beyond the SDK's own read timeout.
SAFETY_MARGIN_S = 0.5
#: How the SDK reports an answer's SSE event larger than ``max_sse_event_size`` (httpx2's SSEError,
#: as the request's CONNECTION_CLOSED error).
_ANSWER_TOO_LARGE = re.compile(r"SSE stream failed: Server-sent event exceeded the \d+ byte limit")
#: How long ``close()`` waits for holders to wind down before cancelling them.
CLOSE_TIMEOUT_S = 10.0


class McpSessionPool:
    """One live MCP session per server id, made on first use and reused afterwards.

    Concurrent first uses of a server share one connection attempt (a lock per server).
    Egress is checked at call time: when a session starts (a refusal is an EGRESS error
    before anything runs) and, by the session's HTTP client, on every connection the
    session makes later (a name rebound to a forbidden address is refused).
    """

    def __init__(
        self,
        secret_box: SecretBox,
        egress: EgressPolicy,
        *,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
        http_limits: httpx2.Limits = HTTP_LIMITS,
    ) -> None:
        self.secret_box = secret_box
        self.egress = egress
        self.connect_timeout_s = connect_timeout_s
        self.http_limits = http_limits
        self._connections: dict[str, Connection] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._holders: set[asyncio.Task[None]] = set()
        self._connects: Counter[str] = Counter()
        self._sync_locks: dict[str, asyncio.Lock] = {}
        # Every connection whose holder still runs, retired ones included.
        self._live: set[Connection] = set()

    # ------------------------------------------------------------ introspection

    def live_session(self, server_id: str) -> ClientSession | None:
        """The session calls to ``server_id`` would use now, if there is a usable one."""
        connection = self._connections.get(server_id)
        return connection.session if connection is not None and connection.is_usable else None

    def connect_count(self, server_id: str) -> int:
        """How many sessions have been established to ``server_id`` by this pool."""
        return self._connects[server_id]

    def sync_lock(self, server_id: str) -> asyncio.Lock:
        """Serialises discovery runs of one server within this process."""
        return self._sync_locks.setdefault(server_id, asyncio.Lock())

    # ------------------------------------------------------------ requests

    async def call_tool(
        self, config: McpServerConfig, name: str, arguments: dict[str, Any], *, timeout_s: float
    ) -> types.CallToolResult:
        """``tools/call`` within ``timeout_s`` (connection included). Raises McpCallError."""

        async def call(session: ClientSession, remaining: float) -> types.CallToolResult:
            return await session.call_tool(name, arguments, read_timeout_seconds=remaining)

        return await self._request(config, call, timeout_s)

    async def list_tools(
        self,
        config: McpServerConfig,
        *,
        timeout_s: float,
        on_page: Callable[[int, int], None] | None = None,
    ) -> list[types.Tool]:
        """Every page of ``tools/list`` within ``timeout_s``. Raises McpCallError."""

        async def list_pages(session: ClientSession, _remaining: float) -> list[types.Tool]:
            return await list_all_tools(session, on_page=on_page)

        return await self._request(config, list_pages, timeout_s)

    async def _request(
        self,
        config: McpServerConfig,
        operation: Callable[[ClientSession, float], Awaitable[T]],
        timeout_s: float,
    ) -> T:
        deadline = asyncio.get_running_loop().time() + timeout_s
        connection = await self._acquire_before(config, deadline)
        try:
            return await self._run(connection, operation, deadline)
        except _SessionExpiredError:
            # The server forgot the session (HTTP 404: restarted, or idle expiry) and
            # refused the request without running it; the spec asks for a new session.
            connection = await self._acquire_before(config, deadline)
            try:
                return await self._run(connection, operation, deadline)
            except _SessionExpiredError as error:
                raise McpCallError(CONNECTION_LOST, str(error)) from None

    async def _acquire_before(self, config: McpServerConfig, deadline: float) -> Connection:
        try:
            async with asyncio.timeout_at(deadline):
                return await self._acquire(config)
        except TimeoutError:
            raise McpCallError(TIMED_OUT, "no MCP session could be established in time") from None

    async def _run(
        self,
        connection: Connection,
        operation: Callable[[ClientSession, float], Awaitable[T]],
        deadline: float,
    ) -> T:
        session = connection.session
        assert session is not None
        loop = asyncio.get_running_loop()
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise McpCallError(TIMED_OUT, "no time left after connecting")
        connection.in_flight += 1
        try:
            async with asyncio.timeout(remaining + SAFETY_MARGIN_S):
                return await operation(session, remaining)
        except TimeoutError:
            self._retire(connection)
            raise_if_not_made(connection)
            raise McpCallError(TIMED_OUT, f"no answer within {remaining:.1f}s") from None
        except MCPError as error:
            if error.code == REQUEST_TIMEOUT:
                self._retire(connection)
                raise McpCallError(TIMED_OUT, f"no answer within {remaining:.1f}s") from None
            if error.code == CONNECTION_CLOSED and _ANSWER_TOO_LARGE.search(error.message):
                # The SDK stopped reading the answer's SSE event at MAX_ANSWER_BYTES and gave up
                # on the request; the session itself is fine.
                raise McpCallError(TOO_LARGE, error.message) from None
            if error.code == CONNECTION_CLOSED:
                self._retire(connection)
                raise_if_not_made(connection)
                raise McpCallError(CONNECTION_LOST, f"connection closed: {error.message}") from None
            if _is_session_expired(connection.config, error):
                self._retire(connection)
                raise _SessionExpiredError(error.message) from None
            raise McpCallError(
                REJECTED, f"JSON-RPC error {error.code}: {error.message}", server_message=error.message
            ) from None
        except McpCallError:
            raise
        except ValidationError as error:
            # The answer does not parse as MCP: the peer is not speaking the protocol.
            self._retire(connection)
            raise McpCallError(BAD_RESULT, describe_error(error)) from None
        except RuntimeError as error:
            # Raised by the SDK for results it refuses: structured content that does not
            # match the tool's output schema, an input-required answer.
            raise McpCallError(BAD_RESULT, describe_error(error)) from None
        except Exception as error:
            self._retire(connection)
            raise_if_not_made(connection)
            raise McpCallError(CONNECTION_LOST, describe_error(error)) from None
        finally:
            connection.call_finished()

    # ------------------------------------------------------------ connections

    async def _acquire(self, config: McpServerConfig) -> Connection:
        connection = self._connections.get(config.server_id)
        if connection is not None and connection.is_usable and connection.config.endpoint == config.endpoint:
            return connection
        lock = self._locks.setdefault(config.server_id, asyncio.Lock())
        async with lock:
            connection = self._connections.get(config.server_id)
            if connection is not None and (
                connection.is_broken or connection.is_retired or connection.config.endpoint != config.endpoint
            ):
                self._retire(connection)
                connection = None
            if connection is None:
                connection = await self._start(config)
            await connection.ready.wait()
            if not connection.is_usable:
                self._retire(connection)
                raise_if_not_made(connection)
                cause = describe_error(connection.error) if connection.error else "the connection closed"
                raise McpCallError(UNREACHABLE, cause)
            return connection

    async def _start(self, config: McpServerConfig) -> Connection:
        if config.transport == "STDIO":
            if not config.command:
                raise McpCallError(UNREACHABLE, "the STDIO server has no command")
        else:
            if not config.url:
                raise McpCallError(UNREACHABLE, f"the {config.transport} server has no url")
            try:
                await self.egress.check_url(config.url)
            except EgressDeniedError as error:
                raise McpCallError(EGRESS, str(error)) from None
            except OSError as error:  # the lookup failed (the name resolves to nothing now): not reached
                raise McpCallError(UNREACHABLE, str(error)) from None
        connection = Connection(config, self._auth_headers(config))
        self._connections[config.server_id] = connection
        self._live.add(connection)
        # A fresh context: the holder outlives the call that happened to start it.
        task = asyncio.create_task(
            self._hold(connection), name=f"mcp-session-{config.server_id}", context=contextvars.Context()
        )
        connection.task = task
        self._holders.add(task)
        task.add_done_callback(self._holders.discard)
        return connection

    def _auth_headers(self, config: McpServerConfig) -> dict[str, str]:
        if config.transport == "STDIO" or config.auth_type == "NONE" or not config.auth_config:
            return {}
        if config.auth_type not in ("API_KEY", "HEADER", "BEARER"):
            raise McpCallError(UNREACHABLE, f"{config.auth_type} is not supported for MCP servers")
        try:
            secrets = self.secret_box.decrypt(config.auth_config)
            if config.auth_type == "BEARER":
                headers = {"Authorization": f"Bearer {secrets['secret']}"}
            else:
                headers = {str(secrets["header_name"]): str(secrets["secret"])}
        except (RuntimeError, KeyError, TypeError):
            raise McpCallError(UNREACHABLE, "the server's stored credentials cannot be read") from None
        if not all(is_header_value(value) for value in headers.values()):
            # Stored before secrets were checked: never sent (the error would echo it).
            raise McpCallError(UNREACHABLE, "the server's stored credential cannot be sent in an HTTP header")
        return headers

    def scrubber_for(self, config: McpServerConfig) -> SecretScrubber:
        """Cuts the server's secret out of what its calls return."""
        if config.transport == "STDIO" or config.auth_type == "NONE" or not config.auth_config:
            return NO_SECRETS
        try:
            secret = self.secret_box.decrypt(config.auth_config).get("secret")
        except RuntimeError:
            return NO_SECRETS
        return scrubber_for((str(secret),)) if secret else NO_SECRETS

    @asynccontextmanager
    async def _transport(self, connection: Connection) -> AsyncIterator[tuple[Any, Any]]:
        config = connection.config
        if config.transport == "STDIO":
            parameters = StdioServerParameters(command=config.command[0], args=list(config.command[1:]))
            async with stdio_client(parameters) as streams:
                yield streams
        elif config.transport == "SSE":
            assert config.url is not None
            async with sse_client(
                config.url,
                headers=connection.headers,
                timeout=self.connect_timeout_s,
                sse_read_timeout=SSE_READ_TIMEOUT_S,
                httpx_client_factory=functools.partial(self._http_client, connection=connection),
            ) as streams:
                yield streams
        else:
            assert config.url is not None
            http_client = self._http_client(headers=connection.headers, connection=connection)
            async with (
                http_client,
                streamable_http_client(
                    config.url, http_client=http_client, max_sse_event_size=MAX_ANSWER_BYTES
                ) as streams,
            ):
                yield streams

    def _http_client(
        self,
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
        *,
        connection: Connection,
    ) -> httpx2.AsyncClient:
        """A session's HTTP client (the SDK's client factory): every connection it makes, the
        session's first and any later one, goes only to an address the egress policy allows
        (``connection`` hears of a refusal), and is reused by later requests. It follows no
        redirects; the SDK follows same-origin ones itself."""
        checked = egress_checked_transport2(self.egress, self.http_limits)
        return httpx2.AsyncClient(
            transport=SessionTransport(checked, connection.deny_egress, connection.not_reached),
            headers=headers,
            timeout=timeout if timeout is not None else httpx2.Timeout(self.connect_timeout_s, read=SSE_READ_TIMEOUT_S),
            auth=auth,
            follow_redirects=False,
            trust_env=False,
        )

    async def _hold(self, connection: Connection) -> None:
        """Own the transport and the session, from connect to close, in this one task."""
        server_id = connection.config.server_id
        try:
            async with AsyncExitStack() as stack:
                read_stream, write_stream = await stack.enter_async_context(self._transport(connection))
                session = await stack.enter_async_context(
                    VettedClientSession(
                        WatchedReadStream(read_stream, connection.mark_broken),
                        write_stream,
                        client_info=CLIENT_INFO,
                    )
                )
                with anyio.fail_after(self.connect_timeout_s):
                    await session.initialize()
                    await self._prime(session)
                connection.session = session
                self._connects[server_id] += 1
                connection.ready.set()
                logger.info("MCP session to %s established", server_id)
                await connection.wait_for_end()
        except Exception as error:
            connection.error = error
            logger.warning("MCP session to %s ended: %s", server_id, describe_error(error))
        finally:
            connection.is_broken = True
            connection.session = None
            connection.ready.set()
            self._live.discard(connection)
            if self._connections.get(server_id) is connection:
                del self._connections[server_id]

    @staticmethod
    async def _prime(session: ClientSession) -> None:
        """A full listing up front, so calls need no extra ``tools/list`` for output schemas."""
        try:
            await list_all_tools(session)
        except MCPError as error:
            if error.code != METHOD_NOT_FOUND:
                raise

    def _retire(self, connection: Connection) -> None:
        if self._connections.get(connection.config.server_id) is connection:
            del self._connections[connection.config.server_id]
        if connection.ready.is_set():
            connection.retire()
        elif connection.task is not None:
            # Still connecting: nothing can be in flight on it.
            connection.task.cancel()

    async def invalidate(self, server_id: str) -> None:
        """Drop the server's connection; the next call makes a new one.

        Calls already running on it finish first (each is bounded by its own timeout).
        """
        connection = self._connections.get(server_id)
        if connection is not None:
            self._retire(connection)

    async def close(self) -> None:
        """Close every connection (at application shutdown)."""
        for connection in list(self._live):
            self._retire(connection)
            connection.stop_now()
        holders = list(self._holders)
        if not holders:
            return
        _, pending = await asyncio.wait(holders, timeout=CLOSE_TIMEOUT_S)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=CLOSE_TIMEOUT_S)


class _SessionExpiredError(Exception):
    pass


def _is_session_expired(config: McpServerConfig, error: MCPError) -> bool:
    """HTTP 404 on an established session, as the SDK reports it (server or client side)."""
    return (
        config.transport != "STDIO"
        and error.code == INVALID_REQUEST
        and error.message.lower() in ("session not found", "session terminated")
    )
