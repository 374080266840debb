"""The plain-http client of CUSTOM calls (app/gateway/executors/plain_http.py), against a
scripted HTTP/1.1 server: how answers are framed, capped and decoded, which connections are
kept, and which requests it leaves to httpx."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import sys
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import httpx
import pytest

from app.crypto import SecretBox
from app.egress import EgressPolicy
from app.gateway.executors.base import Invocation
from app.gateway.executors.http import HttpExecutor
from app.gateway.executors.plain_http import (
    NotPlainError,
    PlainHttpPool,
    ProtocolError,
    ResponseTooLargeError,
    encode_headers,
    plain_origin,
)
from app.principal import SYSTEM_PRINCIPAL
from app.tools.models import ToolDefinition
from tests.conftest import TEST_SECRET_KEY

Servers = list[asyncio.Server]
Answer = Callable[[bytes], bytes | None]  # the request's bytes -> what to send (None: close without answering)


def plain_invocation(port: int, idempotency_key: str | None = None) -> Invocation:
    """A call of a CUSTOM tool without auth at ``http://127.0.0.1:<port>/tool``."""
    tool = ToolDefinition(
        tool_id="ct_plain",
        type="CUSTOM",
        endpoint=f"http://127.0.0.1:{port}/tool",
        auth_type="NONE",
        auth_config=None,
        static_arguments={},
    )
    return Invocation(
        tool=tool,
        arguments={"n": 1},
        principal=SYSTEM_PRINCIPAL,
        space_id="sp_x",
        trace_id="t" * 32,
        timeout_s=5.0,
        attempt=1,
        idempotency_key=idempotency_key,
    )


@dataclass
class ScriptedServer:
    answer: Answer
    port: int = 0
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)
    close_after: bool = False

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                request = head + await reader.readexactly(length)
                self.requests.append(request)
                reply = self.answer(request)
                if reply is None:
                    break
                writer.write(reply)
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def scripted() -> AsyncIterator[list[asyncio.Server]]:
    """Where the tests' servers are kept, to be closed after the test."""
    listening: list[asyncio.Server] = []
    yield listening
    for server in listening:
        server.close()
        await server.wait_closed()


async def running(listening: list[asyncio.Server], answer: Answer) -> ScriptedServer:
    scripted = ScriptedServer(answer)
    server = await asyncio.start_server(scripted.handle, "127.0.0.1", 0)
    listening.append(server)
    scripted.port = server.sockets[0].getsockname()[1]
    return scripted


def response(body: bytes, *headers: bytes, status: bytes = b"200 OK") -> bytes:
    head = b"HTTP/1.1 " + status + b"\r\n" + b"".join(header + b"\r\n" for header in headers)
    return head + b"\r\n" + body


def sized(body: bytes, *headers: bytes) -> bytes:
    return response(body, b"Content-Type: application/json", b"Content-Length: %d" % len(body), *headers)


POLICY = EgressPolicy(["127.0.0.1"])


async def post(pool: PlainHttpPool, port: int, body: bytes = b"{}", max_bytes: int = 1000) -> tuple[int, bytes, str]:
    origin = plain_origin(f"http://127.0.0.1:{port}/tool")
    assert origin is not None
    return await pool.post(origin, encode_headers({"Accept": "application/json"}), body, max_bytes=max_bytes)


class TestFraming:
    async def test_a_kept_alive_connection_serves_the_next_call(self, scripted: Servers) -> None:
        server = await running(scripted, lambda _: sized(b'{"ok":true}'))
        pool = PlainHttpPool(POLICY)

        first = await post(pool, server.port)
        second = await post(pool, server.port)

        assert first == second == (200, b'{"ok":true}', "application/json")
        assert server.connections == 1
        request = server.requests[0]
        assert request.startswith(b"POST /tool HTTP/1.1\r\n")
        assert b"\r\nHost: 127.0.0.1:%d\r\n" % server.port in request
        assert request.endswith(b"Content-Length: 2\r\n\r\n{}")
        await pool.aclose()

    async def test_a_chunked_answer_is_read_whole(self, scripted: Servers) -> None:
        chunked = response(b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", b"Transfer-Encoding: chunked")
        server = await running(scripted, lambda _: chunked)
        pool = PlainHttpPool(POLICY)

        assert (await post(pool, server.port))[1] == b"hello world"
        assert (await post(pool, server.port))[1] == b"hello world"
        assert server.connections == 1

    async def test_an_answer_ended_by_closing_is_read_whole_and_not_kept(self, scripted: Servers) -> None:
        server = await running(scripted, lambda _: response(b"until the end", b"Connection: close"))
        server.close_after = True
        pool = PlainHttpPool(POLICY)

        assert (await post(pool, server.port))[1] == b"until the end"
        assert (await post(pool, server.port))[1] == b"until the end"
        assert server.connections == 2

    async def test_an_idle_connection_the_server_closed_is_replaced(self, scripted: Servers) -> None:
        server = await running(scripted, lambda _: sized(b"{}"))
        server.close_after = True  # answers with a length, then closes: the pool kept it
        pool = PlainHttpPool(POLICY)

        await post(pool, server.port)
        await asyncio.sleep(0.05)  # the close reaches the client's loop
        assert (await post(pool, server.port))[0] == 200
        assert server.connections == 2
        assert len(server.requests) == 2  # nothing sent twice

    async def test_an_http_1_0_answer_is_not_kept_unless_it_says_keep_alive(self, scripted: Servers) -> None:
        # HTTP/1.0 closes after each answer: the connection was kept, and the next call, sent
        # before the close reached the client, met it ("closed the connection without answering").
        connections: list[int] = []

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            connections.append(1)
            with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
                while True:
                    head = await reader.readuntil(b"\r\n\r\n")
                    await reader.readexactly(int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0]))
                    keep = b"keep" in head.split(b" ", 2)[1]  # the path says which way to answer
                    extra = b"Connection: keep-alive\r\n" if keep else b""
                    writer.write(b"HTTP/1.0 200 OK\r\n%sContent-Length: 2\r\n\r\n{}" % extra)
                    await writer.drain()
                    if not keep:
                        await asyncio.sleep(0.5)  # closes late: the client cannot see it coming
                        break
            writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        scripted.append(server)
        port = server.sockets[0].getsockname()[1]
        pool = PlainHttpPool(POLICY)
        for path in ("close", "keep"):
            origin = plain_origin(f"http://127.0.0.1:{port}/{path}")
            assert origin is not None
            connections.clear()
            for _ in range(2):
                assert (await pool.post(origin, b"", b"{}", max_bytes=100))[:2] == (200, b"{}")
            assert len(connections) == (2 if path == "close" else 1), path
        await pool.aclose()

    async def test_a_server_that_closes_without_answering_is_a_protocol_error(self, scripted: Servers) -> None:
        server = await running(scripted, lambda _: None)
        pool = PlainHttpPool(POLICY)

        with pytest.raises(ProtocolError, match="without answering"):
            await post(pool, server.port)
        assert len(server.requests) == 1

    async def test_an_interim_answer_is_skipped(self, scripted: Servers) -> None:
        server = await running(scripted, lambda _: response(b"", status=b"103 Early Hints") + sized(b"[1]"))
        pool = PlainHttpPool(POLICY)

        assert await post(pool, server.port) == (200, b"[1]", "application/json")

    async def test_garbage_is_a_protocol_error(self, scripted: Servers) -> None:
        server = await running(scripted, lambda _: b"SSH-2.0-OpenSSH_9.6\r\n")
        pool = PlainHttpPool(POLICY)

        with pytest.raises(ProtocolError):
            await post(pool, server.port)


class TestLimits:
    async def test_a_declared_length_over_the_cap_is_refused_before_the_body(self, scripted: Servers) -> None:
        server = await running(scripted, lambda _: response(b"", b"Content-Length: 5000"))
        pool = PlainHttpPool(POLICY)

        with pytest.raises(ResponseTooLargeError) as raised:
            await post(pool, server.port, max_bytes=1000)
        assert raised.value.size == 5000

    async def test_a_chunked_answer_is_cut_at_the_cap(self, scripted: Servers) -> None:
        chunk = b"x" * 600
        body = b"%x\r\n%s\r\n" % (len(chunk), chunk) * 2 + b"0\r\n\r\n"
        server = await running(scripted, lambda _: response(body, b"Transfer-Encoding: chunked"))
        pool = PlainHttpPool(POLICY)

        with pytest.raises(ResponseTooLargeError):
            await post(pool, server.port, max_bytes=1000)

    async def test_gzip_is_decoded_and_a_bomb_is_cut_at_the_cap(self, scripted: Servers) -> None:
        small, bomb = gzip.compress(b'{"a":1}'), gzip.compress(b"0" * 1_000_000)
        answers = iter([sized(small, b"Content-Encoding: gzip"), sized(bomb, b"Content-Encoding: gzip")])
        server = await running(scripted, lambda _: next(answers))
        pool = PlainHttpPool(POLICY)

        assert (await post(pool, server.port))[1] == b'{"a":1}'
        with pytest.raises(ResponseTooLargeError):
            await post(pool, server.port, max_bytes=1000)

    @pytest.mark.parametrize(
        "head",
        [b"X-Big: " + b"a" * 1_000_000 + b"\r\n", b"X-A: b\r\n" * 200_000, b"X-Endless: " + b"a" * 4_000_000],
        ids=["one-long-header", "many-headers", "a-header-without-end"],
    )
    async def test_a_head_over_the_cap_is_a_protocol_error(self, scripted: Servers, head: bytes) -> None:
        # As httpx refuses one (h11: "Receive buffer too long"); it was read into memory until the deadline.
        server = await running(scripted, lambda _: b"HTTP/1.1 200 OK\r\n" + head + b"Content-Length: 2\r\n\r\n{}")
        pool = PlainHttpPool(POLICY)

        with pytest.raises(ProtocolError, match="head is over"):
            await post(pool, server.port, max_bytes=sys.maxsize)
        await pool.aclose()

    async def test_a_head_under_the_cap_is_read(self, scripted: Servers) -> None:
        head = b"X-Big: " + b"a" * 10_000 + b"\r\n"
        server = await running(scripted, lambda _: b"HTTP/1.1 200 OK\r\n" + head + b"Content-Length: 2\r\n\r\n{}")
        pool = PlainHttpPool(POLICY)

        assert (await post(pool, server.port))[:2] == (200, b"{}")
        await pool.aclose()

    @pytest.mark.parametrize("coding", [b"gzip", b"deflate"])
    async def test_a_compressed_answer_without_a_cap_is_decoded(self, scripted: Servers, coding: bytes) -> None:
        # The runtime's model client reads a reply whatever its size (max_bytes=sys.maxsize);
        # one byte past that overflowed zlib's C size: OverflowError, not a ModelError.
        compressed = gzip.compress(b'{"a":1}') if coding == b"gzip" else zlib.compress(b'{"a":1}')
        server = await running(scripted, lambda _: sized(compressed, b"Content-Encoding: " + coding))
        pool = PlainHttpPool(POLICY)

        assert (await post(pool, server.port, max_bytes=sys.maxsize))[1] == b'{"a":1}'
        await pool.aclose()


class TestWhatGoesHttpxWay:
    @pytest.mark.parametrize(
        "url",
        ["https://127.0.0.1/tool", "http://user:pw@127.0.0.1/tool", "http://127.0.0.1/a b", "ftp://127.0.0.1/"],
    )
    def test_urls_it_does_not_take(self, url: str) -> None:
        assert plain_origin(url) is None

    @pytest.mark.parametrize(
        "headers", [{"X-Key": "a\r\nInjected: yes"}, {"X-Key": "nul\0"}, {"Bad Name": "v"}, {"X-Key": " padded"}]
    )
    def test_headers_http_cannot_carry(self, headers: dict[str, str]) -> None:
        with pytest.raises(NotPlainError):
            encode_headers(headers)

    async def test_an_idempotency_key_with_a_line_break_injects_no_header(self, scripted: Servers) -> None:
        server = await running(scripted, lambda _: sized(b"{}"))
        invocation = plain_invocation(server.port, idempotency_key="key\r\nInjected: yes")
        async with httpx.AsyncClient() as client:
            executor = HttpExecutor(client, SecretBox(TEST_SECRET_KEY.encode()), POLICY)
            # A key a header cannot carry goes out percent-encoded (CR LF as %0D%0A): one header line.
            assert await executor.execute(invocation) == {}
            await executor.aclose()
        (request,) = server.requests
        head = request.split(b"\r\n\r\n", 1)[0].lower().split(b"\r\n")
        assert b"idempotency-key: key%0d%0ainjected:%20yes" in head
        assert not any(line.startswith(b"injected") for line in head)


async def test_the_executor_decodes_what_the_plain_client_read(scripted: Servers) -> None:
    server = await running(scripted, lambda request: sized(json.dumps({"big": 2**70}).encode()))
    invocation = plain_invocation(server.port)
    async with httpx.AsyncClient() as client:
        executor = HttpExecutor(client, SecretBox(TEST_SECRET_KEY.encode()), POLICY)
        assert await executor.execute(invocation) == {"big": 2**70}
        await executor.aclose()
    assert server.requests[0].endswith(b'\r\n\r\n{"n": 1}')
