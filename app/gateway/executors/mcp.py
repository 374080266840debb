"""MCP tools: ``tools/call`` through the official ``mcp`` SDK (cap 15 s, never retried).

One live ``ClientSession`` per server, reused by every call (no process or connection
per call). anyio requires a context manager to be entered and exited by the same task,
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
import json
import logging
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

import anyio
import httpx2
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import CONNECTION_CLOSED, INVALID_REQUEST, METHOD_NOT_FOUND, REQUEST_TIMEOUT
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.changes import DEFAULT_TTL_S, GenerationCache
from app.crypto import SecretBox
from app.egress import EgressDeniedError, EgressPolicy, egress_checked_transport2
from app.gateway.envelope import (
    EGRESS_DENIED,
    EXTERNAL_API_TIMEOUT,
    MCP_ERROR,
    TOOL_NOT_AVAILABLE,
    ToolFailure,
)
from app.gateway.executors.base import CappedExecutor, Invocation
from app.jsonschemas import UnsafeSchemaError, validator_for
from app.tools import repository
from app.tools.models import McpServer, ToolDefinition

logger = logging.getLogger(__name__)

T = TypeVar("T")

CLIENT_INFO = types.Implementation(name="quiver", version="0.1.0")
#: Transport setup + ``initialize`` + the priming ``tools/list``.
CONNECT_TIMEOUT_S = 10.0
#: Connections of one session's HTTP client (the SDK runs each request on its own POST).
HTTP_LIMITS = httpx2.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)
#: How long, and how far, a closed response's unread rest is read so that its connection
#: can be reused (see SessionTransport).
DRAIN_TIMEOUT_S = 0.05
DRAIN_MAX_BYTES = 64 * 1024
#: How long an idle server-to-client SSE stream may stay silent.
SSE_READ_TIMEOUT_S = 300.0
#: A hard bound around a request, beyond the SDK's own read timeout.
SAFETY_MARGIN_S = 0.5
#: ``tools/list`` pages followed before giving up on a server that never ends.
MAX_TOOL_PAGES = 500
#: How long ``close()`` waits for holders to wind down before cancelling them.
CLOSE_TIMEOUT_S = 10.0
MAX_MESSAGE_CHARS = 2000
MAX_DETAIL_CHARS = 4000

# McpCallError kinds.
EGRESS = "EGRESS"
UNREACHABLE = "UNREACHABLE"
CONNECTION_LOST = "CONNECTION_LOST"
TIMED_OUT = "TIMED_OUT"
REJECTED = "REJECTED"
BAD_RESULT = "BAD_RESULT"


class McpCallError(Exception):
    """A request to an MCP server did not produce a result.

    ``kind`` is one of EGRESS, UNREACHABLE (no session could be made), CONNECTION_LOST
    (the connection broke or the server died mid-request), TIMED_OUT, REJECTED (a
    JSON-RPC error answer; the server message is in ``server_message``) or BAD_RESULT
    (an answer the protocol or the tool's output schema does not allow).
    ``detail`` is for developers and never holds credentials.
    """

    def __init__(self, kind: str, detail: str, *, server_message: str | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.server_message = server_message


@dataclass(frozen=True)
class McpServerConfig:
    """What a connection is made from: a snapshot of an ``mcp_server`` row.

    ``auth_config`` stays encrypted here; it is decrypted only to build headers.
    """

    server_id: str
    transport: str
    url: str | None
    command: tuple[str, ...]
    auth_type: str
    auth_config: str | None
    status: str

    @classmethod
    def from_row(cls, server: McpServer) -> McpServerConfig:
        return cls(
            server_id=server.id,
            transport=server.transport,
            url=server.url,
            command=tuple(server.command or ()),
            auth_type=server.auth_type,
            auth_config=server.auth_config,
            status=server.status,
        )

    @property
    def endpoint(self) -> tuple[str, str | None, tuple[str, ...], str, str | None]:
        """The fields that make a connection; a change means a new connection."""
        return (self.transport, self.url, self.command, self.auth_type, self.auth_config)


def server_tool_name(tool: ToolDefinition) -> str:
    """The name the MCP server knows the tool by: the part of the tool id after ``{serverId}__``.

    The tool id keeps the exact MCP name even when ``tool.name`` had to be made safe for models.
    """
    prefix = f"{tool.mcp_server_id}__"
    if tool.tool_id.startswith(prefix):
        return tool.tool_id[len(prefix) :]
    return tool.name


def describe_error(error: BaseException) -> str:
    """A one-line developer description; exception groups are unwrapped to their first leaf."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).strip()
    return f"{type(error).__name__}: {text}"[:MAX_DETAIL_CHARS] if text else type(error).__name__


class _WatchedReadStream:
    """The transport's read stream, reporting its end (EOF or closure) to ``on_end``.

    The SDK keeps a dead session around silently; this is how the pool learns that a
    STDIO process exited or a transport collapsed, without touching SDK internals.
    """

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    @property
    def last_context(self) -> contextvars.Context | None:
        # The dispatcher duck-types this to run handlers in the sender's context.
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        try:
            item: SessionMessage | Exception = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise
        return item

    async def aclose(self) -> None:
        self._on_end()
        await self._inner.aclose()

    def __aiter__(self) -> _WatchedReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _WatchedReadStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


class VettedClientSession(ClientSession):
    """The SDK checks a structured result against the outputSchema the server lists, with a
    validator of its own whose ``pattern`` runs on Python's backtracking ``re``; a hostile
    server could freeze the loop with it. Here that validator is the platform's: vetted,
    no retrieval, patterns on RE2, compiled once per schema (see app.jsonschemas)."""

    def _output_schema_validator(self, name: str, output_schema: dict[str, Any]) -> Any:
        try:
            return validator_for(output_schema)
        except UnsafeSchemaError as problem:
            # The SDK turns this into the call's failure, as it does for a schema it cannot compile.
            raise RuntimeError(f"Invalid schema for tool {name}: {problem}") from None


class _Connection:
    """One server's session and the holder task that owns its context managers."""

    def __init__(self, config: McpServerConfig, headers: dict[str, str]) -> None:
        self.config = config
        self.headers = headers
        self.session: ClientSession | None = None
        self.error: BaseException | None = None
        # Set when the egress policy refused a connection the session needed: the refusal,
        # the calls in flight then, and whether what was refused was a JSON-RPC request.
        self.egress_denial: EgressDeniedError | None = None
        self.in_flight_at_denial = 0
        self.denied_a_request = False
        self.ready = asyncio.Event()
        self._wake = asyncio.Event()
        self.is_broken = False
        self.is_retired = False
        self.in_flight = 0
        self.task: asyncio.Task[None] | None = None

    @property
    def is_usable(self) -> bool:
        return self.ready.is_set() and self.session is not None and not (self.is_broken or self.is_retired)

    def deny_egress(self, denial: EgressDeniedError, of_request: bool) -> None:
        """A connection the session needed was refused (its name was rebound to a forbidden
        address): the session ends. Its transport may not notice by itself (SSE's writer
        only logs the error), and nothing more may be sent to that name."""
        if self.egress_denial is None:
            self.egress_denial = denial
            self.in_flight_at_denial = self.in_flight
            self.denied_a_request = of_request
        self.mark_broken()

    def mark_broken(self) -> None:
        self.is_broken = True
        self._wake.set()

    def retire(self) -> None:
        """No new calls; close once the calls in flight are done."""
        self.is_retired = True
        if self.in_flight == 0:
            self._wake.set()

    def stop_now(self) -> None:
        self.is_retired = True
        self._wake.set()

    def call_finished(self) -> None:
        self.in_flight -= 1
        if self.is_retired and self.in_flight == 0:
            self._wake.set()

    async def wait_for_end(self) -> None:
        await self._wake.wait()


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

    It also reports egress refusals with what was refused (``on_denied(denial,
    of_request)``: whether the refused POST carried a JSON-RPC request), because the SDK
    reports them only as a closed connection.
    """

    def __init__(
        self,
        inner: httpx2.AsyncBaseTransport,
        on_denied: Callable[[EgressDeniedError, bool], None] | None = None,
    ) -> None:
        self._inner = inner
        self._on_denied = on_denied

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            response = await self._inner.handle_async_request(request)
        except EgressDeniedError as denial:
            if self._on_denied is not None:
                self._on_denied(denial, _carries_a_request(request))
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


def _raise_if_denied(connection: _Connection) -> None:
    """A request that failed because the egress policy refused a connection of its session.

    EGRESS (nothing was sent) only when that is certain: no call was in flight (the session
    was starting), or the refused POST was a request and this was the only call in flight,
    so the request was its own. Otherwise the call may have been sent before the session
    ended: a lost connection (the tool may or may not have run), with the refusal as cause.
    """
    denial = connection.egress_denial
    if denial is None:
        return
    in_flight = connection.in_flight_at_denial
    if in_flight == 0 or (in_flight == 1 and connection.denied_a_request):
        raise McpCallError(EGRESS, str(denial)) from None
    raise McpCallError(CONNECTION_LOST, f"the session ended: {denial}") from None


async def list_all_tools(
    session: ClientSession, *, on_page: Callable[[int, int], None] | None = None
) -> list[types.Tool]:
    """Every tool the server offers, following ``nextCursor`` over all pages.

    ``on_page(pages read, tools so far)`` is called after each page.
    """
    tools: list[types.Tool] = []
    cursor: str | None = None
    seen_cursors: set[str] = set()
    for page in range(1, MAX_TOOL_PAGES + 1):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        # Through list_tools() so the session caches every page's output schemas.
        result = await session.list_tools(params=params)
        tools.extend(result.tools)
        if on_page is not None:
            on_page(page, len(tools))
        cursor = result.next_cursor
        if not cursor:
            return tools
        if cursor in seen_cursors:
            raise McpCallError(BAD_RESULT, f"tools/list repeated the cursor {cursor!r}")
        seen_cursors.add(cursor)
    raise McpCallError(BAD_RESULT, f"tools/list did not end within {MAX_TOOL_PAGES} pages")


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
        self._connections: dict[str, _Connection] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._holders: set[asyncio.Task[None]] = set()
        self._connects: Counter[str] = Counter()
        self._sync_locks: dict[str, asyncio.Lock] = {}
        # Every connection whose holder still runs, retired ones included.
        self._live: set[_Connection] = set()

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

    async def _acquire_before(self, config: McpServerConfig, deadline: float) -> _Connection:
        try:
            async with asyncio.timeout_at(deadline):
                return await self._acquire(config)
        except TimeoutError:
            raise McpCallError(TIMED_OUT, "no MCP session could be established in time") from None

    async def _run(
        self,
        connection: _Connection,
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
            _raise_if_denied(connection)
            raise McpCallError(TIMED_OUT, f"no answer within {remaining:.1f}s") from None
        except MCPError as error:
            if error.code == REQUEST_TIMEOUT:
                self._retire(connection)
                raise McpCallError(TIMED_OUT, f"no answer within {remaining:.1f}s") from None
            if error.code == CONNECTION_CLOSED:
                self._retire(connection)
                _raise_if_denied(connection)
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
            _raise_if_denied(connection)
            raise McpCallError(CONNECTION_LOST, describe_error(error)) from None
        finally:
            connection.call_finished()

    # ------------------------------------------------------------ connections

    async def _acquire(self, config: McpServerConfig) -> _Connection:
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
                _raise_if_denied(connection)
                cause = describe_error(connection.error) if connection.error else "the connection closed"
                raise McpCallError(UNREACHABLE, cause)
            return connection

    async def _start(self, config: McpServerConfig) -> _Connection:
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
        connection = _Connection(config, self._auth_headers(config))
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
                return {"Authorization": f"Bearer {secrets['secret']}"}
            return {str(secrets["header_name"]): str(secrets["secret"])}
        except (RuntimeError, KeyError, TypeError):
            raise McpCallError(UNREACHABLE, "the server's stored credentials cannot be read") from None

    @asynccontextmanager
    async def _transport(self, connection: _Connection) -> AsyncIterator[tuple[Any, Any]]:
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
            async with http_client, streamable_http_client(config.url, http_client=http_client) as streams:
                yield streams

    def _http_client(
        self,
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
        *,
        connection: _Connection,
    ) -> httpx2.AsyncClient:
        """A session's HTTP client (the SDK's client factory): every connection it makes, the
        session's first and any later one, goes only to an address the egress policy allows
        (``connection`` hears of a refusal), and is reused by later requests. It follows no
        redirects; the SDK follows same-origin ones itself."""
        checked = egress_checked_transport2(self.egress, self.http_limits)
        return httpx2.AsyncClient(
            transport=SessionTransport(checked, connection.deny_egress),
            headers=headers,
            timeout=timeout if timeout is not None else httpx2.Timeout(self.connect_timeout_s, read=SSE_READ_TIMEOUT_S),
            auth=auth,
            follow_redirects=False,
            trust_env=False,
        )

    async def _hold(self, connection: _Connection) -> None:
        """Own the transport and the session, from connect to close, in this one task."""
        server_id = connection.config.server_id
        try:
            async with AsyncExitStack() as stack:
                read_stream, write_stream = await stack.enter_async_context(self._transport(connection))
                session = await stack.enter_async_context(
                    VettedClientSession(
                        _WatchedReadStream(read_stream, connection.mark_broken),
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

    def _retire(self, connection: _Connection) -> None:
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


def result_data(result: types.CallToolResult) -> Any:
    """``structuredContent`` when present; else the text blocks joined, or every block as JSON."""
    if result.structured_content is not None:
        return result.structured_content
    if not result.content:
        return None
    if all(isinstance(block, types.TextContent) for block in result.content):
        return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))
    return [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content]


def _error_failure(result: types.CallToolResult) -> ToolFailure:
    text = "\n".join(block.text for block in result.content if isinstance(block, types.TextContent)).strip()
    payload = {
        "content": [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content],
        "structuredContent": result.structured_content,
    }
    return ToolFailure(
        MCP_ERROR,
        text[:MAX_MESSAGE_CHARS] if text else "The MCP tool reported an error.",
        json.dumps(payload, default=str)[:MAX_DETAIL_CHARS],
    )


_FAILURES: dict[str, tuple[str, str]] = {
    EGRESS: (EGRESS_DENIED, "The MCP server is not reachable from this platform."),
    UNREACHABLE: (MCP_ERROR, "The MCP server failed: it could not be reached."),
    CONNECTION_LOST: (MCP_ERROR, "The MCP server failed before answering; the tool may or may not have run."),
    TIMED_OUT: (EXTERNAL_API_TIMEOUT, "The MCP server did not answer in time."),
    BAD_RESULT: (MCP_ERROR, "The MCP server failed: its answer could not be used."),
}


def call_failure(error: McpCallError) -> ToolFailure:
    """The envelope error of a failed request (never retryable: MCP calls are not retried)."""
    if error.kind == REJECTED:
        message = f"The MCP server refused the call: {error.server_message or 'no reason given'}"
        return ToolFailure(MCP_ERROR, message[:MAX_MESSAGE_CHARS], error.detail)
    code, message = _FAILURES[error.kind]
    return ToolFailure(code, message, error.detail)


class McpExecutor(CappedExecutor):
    cap_seconds = 15.0
    timeout_code = EXTERNAL_API_TIMEOUT

    def __init__(
        self,
        pool: McpSessionPool,
        session_factory: async_sessionmaker[AsyncSession],
        *,
        config_ttl_s: float = DEFAULT_TTL_S,
    ) -> None:
        self.pool = pool
        self.session_factory = session_factory
        # Dropped on any catalog commit (a changed url or secret is used by the next call).
        self._configs: GenerationCache[str, McpServerConfig | None] = GenerationCache(config_ttl_s)

    async def _config(self, server_id: str) -> McpServerConfig | None:
        return await self._configs.get_or_load(server_id, lambda: self._load_config(server_id))

    async def _load_config(self, server_id: str) -> McpServerConfig | None:
        async with self.session_factory() as session:
            server = await repository.get_server(session, server_id)
        return McpServerConfig.from_row(server) if server is not None else None

    async def execute(self, invocation: Invocation) -> Any:
        tool = invocation.tool
        config = await self._config(tool.mcp_server_id) if tool.mcp_server_id else None
        if config is None or config.status != "ACTIVE":
            raise ToolFailure(
                TOOL_NOT_AVAILABLE,
                "The tool's MCP server is not available.",
                f"server {tool.mcp_server_id!r} is {'missing' if config is None else config.status}",
            )
        try:
            result = await self.pool.call_tool(
                config, server_tool_name(tool), invocation.arguments, timeout_s=invocation.timeout_s
            )
        except McpCallError as error:
            raise call_failure(error) from None
        if result.is_error:
            raise _error_failure(result)
        return result_data(result)
