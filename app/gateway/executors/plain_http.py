"""Keep-alive HTTP/1.1 connections for the commonest CUSTOM call: a POST to a plain
``http://`` endpoint without query parameters (every tool made with ``createTool``).

httpx's way through a call (its request and response models, the connection pool that
scans every connection to assign a request and again to release it, h11 writing the head
and the body as two packets) was about a third of a served call's CPU under 50 concurrent
clients (bench/throughput.py). Here a request is one write of bytes built in one go, the
answer is parsed by httptools (C), and an idle connection is one ``list.pop``.

What stays the same as on httpx's way: every connection goes through the egress policy
to the address it was checked at (:func:`app.egress.connect_checked`); redirects are
answers, not followed; the answer is capped at ``max_bytes`` as it arrives (the declared
length first); a gzip or deflate body is decoded, within the same cap. Anything else —
``https``, another method, query parameters, a header that is not a plain header value or
that this client writes itself — is not taken here and goes the httpx way.

An idle connection the server has closed is seen before it is used (the loop has read its
end already) and replaced. A request is never sent twice: one that meets a connection
closing at that very moment fails as on httpx's way (retryable; the gateway retries READ tools).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
import zlib
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

import httptools

from app.egress import EgressPolicy, connect_checked

#: Idle connections kept per origin, and connections open at once in all (as httpx's limits were).
MAX_IDLE_PER_ORIGIN = 50
MAX_CONNECTIONS = 200
READ_CHUNK = 64 * 1024
#: Bytes read before an answer's head is whole (httpx's h11 refuses a head past 16 KiB): a server
#: sending header lines without end is refused, not read into memory until the deadline.
MAX_HEAD_BYTES = 64 * 1024
USER_AGENT = b"quiver"
# A header name is a token; a value is visible characters with inner spaces or tabs (as h11 checks).
_TOKEN = re.compile(rb"[-!#$%&'*+.^_`|~0-9a-zA-Z]+\Z")
_VALUE = re.compile(rb"(?:[\x21-\x7e\x80-\xff](?:[\x20\x09\x21-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?\Z")


class NotPlainError(Exception):
    """This request is not one for this client (take httpx's way instead)."""


class ResponseTooLargeError(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(f"response of at least {size} bytes")
        self.size = size


class ProtocolError(Exception):
    """The server's answer was not HTTP/1.1 we can read, or the connection ended mid-answer."""


@dataclass(frozen=True)
class Origin:
    host: str
    port: int
    target: bytes  # path and query, as sent
    host_header: bytes


@lru_cache(maxsize=1024)
def plain_origin(url: str) -> Origin | None:
    """Where a plain-http URL points; None for anything this client does not take."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if parts.scheme != "http" or not host or parts.username is not None or parts.password is not None:
        return None
    if not url.isascii() or any(character in url for character in " \t\r\n\0#"):
        return None
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    netloc = parts.netloc
    return Origin(host, port or 80, target.encode(), netloc.encode())


def encode_headers(headers: dict[str, str]) -> bytes:
    """``Name: value\\r\\n`` lines; NotPlainError for a name or value HTTP cannot carry."""
    lines = []
    for name, value in headers.items():
        raw_name = name.encode("ascii", "strict") if name.isascii() else b""
        raw_value = value.encode("ascii") if value.isascii() else value.encode("utf-8")
        if not _TOKEN.match(raw_name) or not _VALUE.match(raw_value):
            raise NotPlainError(name)
        lines.append(b"%s: %s\r\n" % (raw_name, raw_value))
    return b"".join(lines)


class _Answer:
    """httptools' callbacks: the final (non-1xx) response's status, headers and body."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.parser = httptools.HttpResponseParser(self)
        self.status = 0
        self.content_type = b""
        self.content_length: int | None = None
        self.chunked = False
        self.encoding = b""
        self.close = False
        self.headers_done = False
        self.complete = False
        self.body: list[bytes] = []
        self.size = 0

    def on_header(self, name: bytes, value: bytes) -> None:
        name = name.lower()
        if name == b"content-type":
            self.content_type = value
        elif name == b"content-length":
            self.content_length = int(value) if value.strip().isdigit() else None
        elif name == b"transfer-encoding":
            self.chunked = b"chunked" in value.lower()
        elif name == b"content-encoding":
            self.encoding = value.strip().lower()
        elif name == b"connection":
            self.close = b"close" in value.lower()

    def on_headers_complete(self) -> None:
        status = self.parser.get_status_code()
        if status < 200:  # 1xx: an interim answer, the final one follows
            self.content_type, self.content_length, self.chunked, self.encoding = b"", None, False, b""
            return
        self.status = status
        self.headers_done = True
        if self.content_length is not None and self.content_length > self.max_bytes:
            raise ResponseTooLargeError(self.content_length)

    def on_body(self, body: bytes) -> None:
        if not body:
            return
        self.size += len(body)
        if self.size > self.max_bytes:
            raise ResponseTooLargeError(self.size)
        self.body.append(body)

    def on_message_complete(self) -> None:
        if self.headers_done:
            self.complete = True
            # HTTP/1.0 closes after each answer unless it says keep-alive (httptools reads both ways).
            self.close = self.close or not self.parser.should_keep_alive()

    @property
    def until_close(self) -> bool:
        """Framed by the end of the connection (no length, not chunked)."""
        return self.content_length is None and not self.chunked and self.status not in (204, 304)


class _Connection:
    __slots__ = ("reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    def usable(self) -> bool:
        # The server closing it, or sending anything unasked, has already reached the reader.
        return not (self.writer.is_closing() or self.reader.at_eof() or bool(getattr(self.reader, "_buffer", None)))

    def close(self) -> None:
        self.writer.close()


class PlainHttpPool:
    """See the module docstring. One per process shared by every CUSTOM call; the runtime's
    model client has its own (app.runtime.model)."""

    def __init__(
        self,
        egress: EgressPolicy | None,
        *,
        max_connections: int = MAX_CONNECTIONS,
        max_idle: int = MAX_IDLE_PER_ORIGIN,
        user_agent: bytes = USER_AGENT,
    ) -> None:
        #: None: no egress check (an endpoint the operator configured, such as the model's).
        self.egress = egress
        self.user_agent = user_agent
        self.max_idle = max_idle
        self.max_connections = max_connections
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    async def post(self, origin: Origin, head_lines: bytes, body: bytes, *, max_bytes: int) -> tuple[int, bytes, str]:
        """POST ``body``; returns (status, body, content type). Raises EgressDeniedError,
        ResponseTooLargeError, ProtocolError or OSError. The caller bounds the time."""
        request = b"POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\n%sContent-Length: %d\r\n\r\n%s" % (
            origin.target,
            origin.host_header,
            self.user_agent,
            head_lines,
            len(body),
            body,
        )
        loop = asyncio.get_running_loop()
        if self._slots is None or loop is not self._loop:
            # Connections belong to the loop that made them (a test may run several loops in turn).
            self._drop_idle()
            self._slots, self._loop = asyncio.Semaphore(self.max_connections), loop
        async with self._slots:
            key = (origin.host, origin.port)
            connection = await self._connection(key, origin)
            try:
                answer = await self._exchange(connection, request, max_bytes)
            except BaseException:
                connection.close()
                raise
            if answer.close or answer.until_close or self._closed:
                connection.close()
            else:
                self._release(key, connection)
        payload = b"".join(answer.body)
        if answer.encoding and answer.encoding != b"identity":
            payload = _decoded(payload, answer.encoding, max_bytes)
        return answer.status, payload, answer.content_type.decode("latin-1")

    async def _connection(self, key: tuple[str, int], origin: Origin) -> _Connection:
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            if connection.usable():
                return connection
            connection.close()
        return await self._connect(origin)

    async def _connect(self, origin: Origin) -> _Connection:
        async def connect(address: str) -> _Connection:
            reader, writer = await asyncio.open_connection(address, origin.port, limit=READ_CHUNK)
            return _Connection(reader, writer)

        if self.egress is None:
            return await connect(origin.host)
        return await connect_checked(self.egress, origin.host, origin.port, connect, (OSError,))

    def _release(self, key: tuple[str, int], connection: _Connection) -> None:
        idle = self._idle.setdefault(key, [])
        if len(idle) >= self.max_idle:
            connection.close()
            return
        idle.append(connection)

    async def _exchange(self, connection: _Connection, request: bytes, max_bytes: int) -> _Answer:
        answer = _Answer(max_bytes)
        writer, reader = connection.writer, connection.reader
        writer.write(request)
        await writer.drain()
        received = 0
        while not answer.complete:
            data = await reader.read(READ_CHUNK)
            if not data:
                if answer.headers_done and answer.until_close:
                    return answer
                raise ProtocolError(
                    "the server closed the connection " + ("mid-answer" if received else "without answering")
                )
            received += len(data)
            try:
                answer.parser.feed_data(data)
            except httptools.HttpParserCallbackError as error:
                cause = error.__context__
                if isinstance(cause, ResponseTooLargeError):
                    raise cause from None
                raise ProtocolError(str(error)) from None
            except httptools.HttpParserError as error:
                raise ProtocolError(f"unreadable answer: {error}") from None
            if not answer.headers_done and received > MAX_HEAD_BYTES:
                raise ProtocolError(f"the answer's head is over {MAX_HEAD_BYTES} bytes")
        return answer

    async def aclose(self) -> None:
        self._closed = True
        self._drop_idle()

    def _drop_idle(self) -> None:
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                with contextlib.suppress(RuntimeError):  # its loop may be closed already
                    connection.close()


def _decoded(payload: bytes, encoding: bytes, max_bytes: int) -> bytes:
    """gzip / deflate bodies decoded (innermost coding last), never past ``max_bytes``;
    other codings are passed on as they came (as httpx does without their decoder)."""
    for coding in reversed([part.strip() for part in encoding.split(b",")]):
        if coding in (b"gzip", b"x-gzip"):
            decoder = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif coding == b"deflate":
            decoder = zlib.decompressobj()
        else:
            return payload
        # One byte past the cap tells a body over it; never past what a C size holds (the
        # model client reads whatever the size: sys.maxsize, where + 1 overflowed).
        limit = min(max_bytes, sys.maxsize - 1) + 1
        try:
            decoded = decoder.decompress(payload, limit)
        except zlib.error as error:
            if coding != b"deflate":
                raise ProtocolError(f"undecodable {coding.decode()} body: {error}") from None
            try:  # raw deflate, without the zlib header (as httpx reads it too)
                decoded = zlib.decompressobj(-zlib.MAX_WBITS).decompress(payload, limit)
            except zlib.error as raw_error:
                raise ProtocolError(f"undecodable deflate body: {raw_error}") from None
        if len(decoded) > max_bytes:
            raise ResponseTooLargeError(len(decoded))
        payload = decoded
    return payload
