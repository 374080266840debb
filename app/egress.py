"""Egress policy: no calls to loopback, private, shared (100.64.0.0/10), link-local or metadata addresses
unless the host is allow-listed (``QUIVER_EGRESS_ALLOWLIST``).

The policy is enforced where connections are made, for CUSTOM tools
(:class:`EgressCheckedBackend` under the shared httpx client) and for MCP servers over
HTTP (:class:`EgressCheckedBackend2` under each session's httpx2 client, the HTTP
library the ``mcp`` SDK uses): the host is resolved once per connection, every address
is checked, and the connection goes to a checked address. The check and the
connection therefore see the same DNS answer (no rebinding between them), a name that
is rebound during a long MCP session is refused on the session's next connection, and
a call on a kept-alive connection costs no DNS lookup at all.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import typing
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from types import ModuleType
from urllib.parse import urlsplit

import httpcore
import httpcore2
import httpx
import httpx2

# Cloud metadata endpoints not covered by the link-local range.
METADATA_ADDRESSES = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("fd00:ec2::254"),
    ipaddress.ip_address("100.100.100.200"),
}

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Stream = typing.TypeVar("Stream")
#: host, port -> the addresses it resolves to (a test may give its own).
Resolver = Callable[[str, int], Awaitable[list[str]]]


class EgressDeniedError(Exception):
    """The policy forbids the address: nothing was sent."""


class UnresolvableHostError(socket.gaierror):
    """The host name resolves to no address (now): a failed lookup, as ``getaddrinfo``'s own
    (an OSError), not a refusal. Wherever a connection that fails is a service not reached,
    so is this."""


def _forbidden(address: Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped:
            address = address.ipv4_mapped
        elif address.sixtofour and _forbidden(address.sixtofour):
            # 6to4 (2002::/16) carries an IPv4 address: 2002:7f00:1:: is 127.0.0.1's.
            return True
        elif address.is_site_local:
            # fec0::/10, deprecated but still routed inside some networks; not "private" to ipaddress.
            return True
    return (
        address in METADATA_ADDRESSES
        or address.is_loopback
        or address.is_private
        # Neither private nor global: the shared address space 100.64.0.0/10 (carrier-grade
        # NAT, and the addresses of overlay networks such as Tailscale's inside a company).
        or not address.is_global
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    )


async def system_resolve(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _literal(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _allow_entry(entry: str) -> tuple[str, int | None]:
    """``host``, ``host:port``, ``[v6]`` or ``[v6]:port`` (a bare v6 address has no port)."""
    entry = entry.strip().lower()
    if entry.startswith("["):
        address, _, rest = entry[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
        return address, _port(port, entry)
    if entry.count(":") == 1:
        host, _, port = entry.partition(":")
        return host, _port(port, entry)
    return entry, None


def _port(text: str, entry: str) -> int | None:
    if not text:
        return None
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"QUIVER_EGRESS_ALLOWLIST entry {entry!r} has an invalid port")
    return int(text)


class EgressPolicy:
    """Allow-listed entries are host names, or addresses (any host resolving to them), each
    either for every port or for the one it names (``host:8443``, ``[fd00::1]:8443``)."""

    def __init__(self, allowlist: Iterable[str], *, resolver: Resolver | None = None) -> None:
        #: host or address -> the ports allowed on it; None: every port.
        self.allowlist: dict[str, set[int] | None] = {}
        for raw in allowlist:
            if not raw.strip():
                continue
            host, port = _allow_entry(raw)
            if port is None:
                self.allowlist[host] = None
            elif host not in self.allowlist or self.allowlist[host] is not None:
                self.allowlist.setdefault(host, set()).add(port)  # type: ignore[union-attr]
        self._resolve = resolver or system_resolve

    def _allows(self, host: str, port: int) -> bool:
        if host not in self.allowlist:
            return False
        ports = self.allowlist[host]
        return ports is None or port in ports

    def is_allowed_host(self, host: str, port: int) -> bool:
        return self._allows(host.lower().strip("[]"), port)

    def _check_address(self, host: str, address: Address, port: int) -> None:
        if _forbidden(address) and not self._allows(str(address), port):
            raise EgressDeniedError(
                f"{host!r} resolves to {address}, a loopback, private, shared, link-local or metadata "
                f"address; allow it (or it with port {port}) with QUIVER_EGRESS_ALLOWLIST"
            )

    async def addresses_for(self, host: str, port: int) -> list[str] | None:
        """The checked addresses a connection to ``host`` may use, resolved once; None for an
        allow-listed host name (connect by name). Raises EgressDeniedError, or UnresolvableHostError
        (an OSError) when the name resolves to nothing."""
        host = host.lower().strip("[]")
        if not host:
            raise EgressDeniedError("no host")
        if self.is_allowed_host(host, port):
            return None
        literal = _literal(host)
        if literal is not None:
            self._check_address(host, literal, port)
            return [str(literal)]
        try:
            resolved = await self._resolve(host, port)
        except OSError as error:
            raise UnresolvableHostError(f"cannot resolve {host!r}: {error}") from None
        if not resolved:
            raise UnresolvableHostError(f"{host!r} resolves to no address")
        for address in resolved:
            self._check_address(host, ipaddress.ip_address(address), port)
        return resolved

    async def check_url(self, url: str, *, resolve_failure_ok: bool = False, resolve: bool = True) -> None:
        """Raise EgressDeniedError when the URL's host is or resolves to a forbidden address, and
        UnresolvableHostError (an OSError) when it resolves to nothing.

        ``resolve_failure_ok``: at creation time a name that does not resolve (yet) is
        accepted; it is checked again when connecting. ``resolve=False``: check only what
        needs no DNS (a missing host, a forbidden literal address); the connection checks
        the rest (see :class:`EgressCheckedBackend`).
        """
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if not host:
            raise EgressDeniedError(f"{url!r} has no host")
        if not resolve and _literal(host) is None:
            return
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise EgressDeniedError(f"{url!r} has an invalid port") from None
        try:
            await self.addresses_for(host, port)
        except UnresolvableHostError:
            if not resolve_failure_ok:
                raise


async def connect_checked(
    policy: EgressPolicy,
    host: str,
    port: int,
    connect: Callable[[str], Awaitable[Stream]],
    connect_errors: tuple[type[Exception], ...],
) -> Stream:
    """``connect(address)`` to the first checked address of ``host`` that takes the connection
    (by name for an allow-listed name). Raises EgressDeniedError (or UnresolvableHostError)
    before connecting anywhere."""
    addresses = await policy.addresses_for(host, port)
    if addresses is None:  # an allow-listed name
        return await connect(host)
    failure: Exception | None = None
    for address in addresses:
        try:
            return await connect(address)
        except connect_errors as error:
            failure = error
    assert failure is not None
    raise failure


class AsyncioStream(httpcore.AsyncNetworkStream):
    """httpcore's network stream on asyncio's own streams, without anyio in between.

    Under many concurrent calls anyio's byte streams (a cancel scope per read and write,
    typed-attribute look-ups) and the pool's liveness probe (a ``select`` on every idle
    connection each time a request is assigned) were a third of a served call's CPU time
    (bench/throughput.py). Here a read or write is one await on the loop's transport, and
    whether an idle connection was closed by the server is read from what the loop already
    received, without a system call. Errors map to httpcore's as its anyio backend maps them.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109 - the pool's interface
        try:
            if timeout is None:
                return await self._reader.read(max_bytes)
            async with asyncio.timeout(timeout):
                return await self._reader.read(max_bytes)
        except TimeoutError as error:
            raise httpcore.ReadTimeout(str(error)) from error
        except OSError as error:
            raise httpcore.ReadError(str(error)) from error

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109 - the pool's interface
        if not buffer:
            return
        try:
            if self._writer.is_closing():
                raise ConnectionResetError("the connection is closed")
            self._writer.write(buffer)
            if timeout is None:
                await self._writer.drain()
                return
            async with asyncio.timeout(timeout):
                await self._writer.drain()
        except TimeoutError as error:
            raise httpcore.WriteTimeout(str(error)) from error
        except OSError as error:
            raise httpcore.WriteError(str(error)) from error

    async def aclose(self) -> None:
        self._writer.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the pool's interface
    ) -> httpcore.AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                await self._writer.start_tls(ssl_context, server_hostname=server_hostname)
        except TimeoutError as error:
            self._writer.close()
            raise httpcore.ConnectTimeout(str(error)) from error
        except (OSError, ssl.SSLError) as error:
            self._writer.close()
            raise httpcore.ConnectError(str(error)) from error
        return self

    def get_extra_info(self, info: str) -> typing.Any:
        if info == "is_readable":
            # An idle connection is readable when the server closed it or sent something
            # unasked: both already reached the reader (the loop reads as data arrives).
            buffered = getattr(self._reader, "_buffer", None)
            return self._writer.is_closing() or self._reader.at_eof() or bool(buffered)
        if info == "ssl_object":
            return self._writer.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._writer.get_extra_info("sockname")
        if info == "server_addr":
            return self._writer.get_extra_info("peername")
        if info == "socket":
            return self._writer.get_extra_info("socket")
        return None


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """Connections as :class:`AsyncioStream` (TCP_NODELAY, as asyncio sets on TCP sockets)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - the pool's interface
        local_address: str | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, local_addr=(local_address, 0) if local_address else None
                )
        except TimeoutError as error:
            raise httpcore.ConnectTimeout(str(error)) from error
        except OSError as error:
            raise httpcore.ConnectError(str(error)) from error
        raw = writer.get_extra_info("socket")
        for option in socket_options or ():
            raw.setsockopt(*option)
        return AsyncioStream(reader, writer)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - the pool's interface
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise EgressDeniedError("Unix sockets are not reachable through the egress policy")

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class _CheckedBackendBase:
    """A connection pool's network backend, connecting only to addresses the policy allows: the
    host is resolved once, checked, and the connection made to a checked address. TLS still
    verifies the host name (the pool takes the server name from the URL, not from the address).
    The pool library (httpcore, or httpcore2 under the ``mcp`` SDK) is named by the subclass."""

    library: ModuleType

    def __init__(self, policy: EgressPolicy, inner: typing.Any = None) -> None:
        self.policy = policy
        self.inner = inner or self.library.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - the pool's interface
        local_address: str | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> typing.Any:
        async def connect(address: str) -> typing.Any:
            return await self.inner.connect_tcp(address, port, timeout, local_address, socket_options)

        errors = (self.library.ConnectError, self.library.ConnectTimeout)
        try:
            return await connect_checked(self.policy, host, port, connect, errors)
        except OSError as error:
            # The lookup failed: a ConnectError, as the pool's own backend reports a failed getaddrinfo.
            raise self.library.ConnectError(str(error)) from error

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - the pool's interface
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> typing.Any:
        raise EgressDeniedError("Unix sockets are not reachable through the egress policy")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class EgressCheckedBackend(_CheckedBackendBase, httpcore.AsyncNetworkBackend):
    """httpcore's network backend, egress-checked (under the shared httpx client)."""

    library = httpcore


class EgressCheckedBackend2(_CheckedBackendBase, httpcore2.AsyncNetworkBackend):
    """:class:`EgressCheckedBackend` for httpcore2, under the ``mcp`` SDK's httpx2 clients."""

    library = httpcore2


# The transport errors both library pairs (httpcore/httpx, httpcore2/httpx2) name alike: a
# connection pool's error comes out of the transport as the client library's error of that name.
TRANSPORT_ERRORS = (
    "TimeoutException",
    "ConnectTimeout",
    "ReadTimeout",
    "WriteTimeout",
    "PoolTimeout",
    "NetworkError",
    "ConnectError",
    "ReadError",
    "WriteError",
    "ProxyError",
    "UnsupportedProtocol",
    "ProtocolError",
    "LocalProtocolError",
    "RemoteProtocolError",
)


class ErrorMap:
    """The connection pool's errors raised again as the client library's (the most specific match)."""

    def __init__(self, pool_library: ModuleType, client_library: ModuleType) -> None:
        self.pairs: list[tuple[type[Exception], type[Exception]]] = [
            (getattr(pool_library, name), getattr(client_library, name)) for name in TRANSPORT_ERRORS
        ]

    @contextmanager
    def mapped(self) -> Iterator[None]:
        try:
            yield
        except Exception as error:
            target: type[Exception] | None = None
            for source, mapped in self.pairs:
                if isinstance(error, source) and (target is None or issubclass(mapped, target)):
                    target = mapped
            if target is None:
                raise
            raise target(str(error)) from error


HTTPX_ERRORS = ErrorMap(httpcore, httpx)
HTTPX2_ERRORS = ErrorMap(httpcore2, httpx2)


class _PoolStreamBase:
    """A pool response's body with the pool's errors raised as the client library's."""

    errors: ErrorMap

    def __init__(self, inner: typing.AsyncIterable[bytes]) -> None:
        self.inner = inner

    async def __aiter__(self) -> typing.AsyncIterator[bytes]:
        with self.errors.mapped():
            async for part in self.inner:
                yield part

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()


class _PoolStream(_PoolStreamBase, httpx.AsyncByteStream):
    errors = HTTPX_ERRORS


class _PoolStream2(_PoolStreamBase, httpx2.AsyncByteStream):
    errors = HTTPX2_ERRORS


class _PoolTransportBase:
    """A client transport over a connection pool whose network backend is egress-checked.

    Both libraries' public API only: httpx's own transport builds its pool itself and takes no
    network backend, so this one does what it does with a pool it is given. The pair of
    libraries (httpcore/httpx, or httpcore2/httpx2 under the ``mcp`` SDK) is named by the
    subclass.
    """

    pool_library: ModuleType
    client_library: ModuleType
    stream_class: type[_PoolStreamBase]

    def __init__(self, pool: typing.Any) -> None:
        self.pool = pool

    async def _forward(self, request: typing.Any) -> typing.Any:
        assert isinstance(request.stream, self.client_library.AsyncByteStream)
        pool_request = self.pool_library.Request(
            method=request.method,
            url=self.pool_library.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with self.stream_class.errors.mapped():
            response = await self.pool.handle_async_request(pool_request)
        assert isinstance(response.stream, typing.AsyncIterable)
        return self.client_library.Response(
            status_code=response.status,
            headers=response.headers,
            stream=self.stream_class(response.stream),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.pool.aclose()


class CheckedTransport(_PoolTransportBase, httpx.AsyncBaseTransport):
    """An httpx transport over an egress-checked httpcore connection pool."""

    pool_library, client_library, stream_class = httpcore, httpx, _PoolStream

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response: httpx.Response = await self._forward(request)
        return response


class CheckedTransport2(_PoolTransportBase, httpx2.AsyncBaseTransport):
    """:class:`CheckedTransport` for httpx2 over httpcore2 (the ``mcp`` SDK's HTTP library)."""

    pool_library, client_library, stream_class = httpcore2, httpx2, _PoolStream2

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response: httpx2.Response = await self._forward(request)
        return response


def egress_checked_transport(
    policy: EgressPolicy, limits: httpx.Limits, *, ssl_context: ssl.SSLContext | None = None
) -> httpx.AsyncBaseTransport:
    """An httpx transport whose every connection goes to an address the policy allows
    (:class:`EgressCheckedBackend`).

    No proxy from the environment (a proxy would be the only address checked); CA bundles
    from ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` are honoured.
    """
    return CheckedTransport(
        httpcore.AsyncConnectionPool(
            ssl_context=ssl_context or httpx.create_ssl_context(trust_env=True),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=EgressCheckedBackend(policy, AsyncioBackend()),
        )
    )


def egress_checked_transport2(
    policy: EgressPolicy, limits: httpx2.Limits, *, ssl_context: ssl.SSLContext | None = None
) -> httpx2.AsyncBaseTransport:
    """:func:`egress_checked_transport` for httpx2 (the ``mcp`` SDK's HTTP library)."""
    return CheckedTransport2(
        httpcore2.AsyncConnectionPool(
            ssl_context=ssl_context or httpx2.create_ssl_context(trust_env=True),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=EgressCheckedBackend2(policy),
        )
    )
