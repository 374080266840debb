"""``McpExecutor`` against an MCP server built with the SDK, over streamable HTTP, in a subprocess."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx2
import pytest
from cryptography.fernet import Fernet
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import jsonschemas
from app.crypto import SecretBox
from app.egress import EgressDeniedError, EgressPolicy
from app.gateway.envelope import (
    EGRESS_DENIED,
    EXTERNAL_API_TIMEOUT,
    MCP_ERROR,
    RESPONSE_TOO_LARGE,
    TOOL_NOT_AVAILABLE,
    ToolFailure,
)
from app.mcp.config import MAX_ANSWER_BYTES
from app.mcp.executor import McpExecutor
from app.mcp.pool import McpSessionPool
from app.mcp.service import McpServerInput, register_mcp_server
from app.mcp.transport import DrainingStream, SessionTransport
from app.principal import SYSTEM_PRINCIPAL
from app.tools.service import AuthConfig
from tests.support.mcp import DOUBLING, add_server, invocation, mcp_tool, nested, new_pool
from tests.support.processes import HttpMcpServer

SessionFactory = async_sessionmaker[AsyncSession]


@pytest.fixture
async def server_id(session_factory: SessionFactory, server: HttpMcpServer) -> str:
    return await add_server(session_factory, url=server.url)


@pytest.fixture
def executor(pool: McpSessionPool, session_factory: SessionFactory) -> McpExecutor:
    return McpExecutor(pool, session_factory)


async def failure_of(
    executor: McpExecutor,
    server_id: str,
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    timeout_s: float = 15.0,
) -> ToolFailure:
    with pytest.raises(ToolFailure) as raised:
        await executor.execute(invocation(mcp_tool(server_id, name), arguments, timeout_s=timeout_s))
    return raised.value


class TestResults:
    async def test_text_content_comes_back_as_text(self, executor: McpExecutor, server_id: str) -> None:
        data = await executor.execute(invocation(mcp_tool(server_id, "echo"), {"message": "hello"}))
        assert data == "hello"

    async def test_several_text_blocks_are_joined(self, executor: McpExecutor, server_id: str) -> None:
        data = await executor.execute(invocation(mcp_tool(server_id, "write_note"), {"text": "milk"}))
        assert data == "saved\nmilk"

    async def test_structured_content_is_preferred_to_text(self, executor: McpExecutor, server_id: str) -> None:
        data = await executor.execute(invocation(mcp_tool(server_id, "weather"), {"city": "Oslo"}))
        assert data == {"city": "Oslo", "celsius": 21.5}

    async def test_is_error_is_mcp_error_with_the_servers_text(
        self, executor: McpExecutor, pool: McpSessionPool, server_id: str
    ) -> None:
        failure = await failure_of(executor, server_id, "fail")

        assert failure.error.code == MCP_ERROR
        assert failure.error.message == "the widget is broken"
        assert failure.error.detail is not None and "the widget is broken" in failure.error.detail
        assert failure.retryable is False
        assert pool.connect_count(server_id) == 1
        assert pool.live_session(server_id) is not None

    async def test_a_server_that_is_not_active_is_not_called(
        self, session_factory: SessionFactory, executor: McpExecutor, pool: McpSessionPool, server: HttpMcpServer
    ) -> None:
        disabled_id = await add_server(session_factory, url=server.url, status="DISABLED")

        failure = await failure_of(executor, disabled_id, "echo", {"message": "x"})

        assert failure.error.code == TOOL_NOT_AVAILABLE
        assert pool.connect_count(disabled_id) == 0


class TestSessions:
    async def test_calls_share_one_session(self, executor: McpExecutor, pool: McpSessionPool, server_id: str) -> None:
        first = await executor.execute(invocation(mcp_tool(server_id, "whoami")))
        session = pool.live_session(server_id)
        second = await executor.execute(invocation(mcp_tool(server_id, "whoami")))
        await executor.execute(invocation(mcp_tool(server_id, "echo"), {"message": "x"}))

        assert first == second
        assert pool.live_session(server_id) is session is not None
        assert pool.connect_count(server_id) == 1

    @pytest.mark.parametrize("transport", ["STREAMABLE_HTTP", "SSE"])
    async def test_calls_on_a_warm_session_reuse_its_http_connections(
        self,
        session_factory: SessionFactory,
        server: HttpMcpServer,
        tmp_path_factory: pytest.TempPathFactory,
        transport: str,
    ) -> None:
        """Over streamable HTTP the SDK closes each answer's SSE stream before its end; the
        pool's client reads the end first. Over SSE each request's 202 is read to its end
        by the SDK. Either way the next call goes out on the same connection instead of a
        new TCP (and TLS) one. Connections are counted by name lookups: the egress check
        resolves the name once per new connection."""
        lookups: list[str] = []

        async def resolver(host: str, port: int) -> list[str]:
            lookups.append(host)
            return ["127.0.0.1"]

        peer = server
        if transport == "SSE":
            peer = HttpMcpServer(tmp_path_factory.mktemp("mcp-sse-reuse") / "state.json", is_sse=True)
            peer.start()
        pool = McpSessionPool(SecretBox(Fernet.generate_key()), EgressPolicy(["127.0.0.1"], resolver=resolver))
        executor = McpExecutor(pool, session_factory)
        path = "sse" if transport == "SSE" else "mcp"
        server_id = await add_server(session_factory, url=f"http://localhost:{peer.port}/{path}", transport=transport)
        try:
            await executor.execute(invocation(mcp_tool(server_id, "echo"), {"message": "warm"}))
            await asyncio.sleep(0.1)  # the warm-up's answer stream has ended and been read
            connections_when_warm = len(lookups)
            answers = []
            for n in range(10):
                echo = invocation(mcp_tool(server_id, "echo"), {"message": f"call {n}"})
                answers.append(await executor.execute(echo))
                # The previous answer's stream is read to its end after the answer is handed
                # over; a call right behind it would find that connection still busy.
                await asyncio.sleep(0.02)
        finally:
            await pool.close()
            if peer is not server:
                peer.stop()

        assert answers == [f"call {n}" for n in range(10)]
        assert connections_when_warm >= 1
        assert len(lookups) == connections_when_warm
        assert pool.connect_count(server_id) == 1

    async def test_concurrent_first_calls_make_one_connection(
        self, executor: McpExecutor, pool: McpSessionPool, server_id: str
    ) -> None:
        results = await asyncio.gather(
            *(executor.execute(invocation(mcp_tool(server_id, "echo"), {"message": str(index)})) for index in range(8))
        )

        assert results == [str(index) for index in range(8)]
        assert pool.connect_count(server_id) == 1

    async def test_a_timeout_is_external_api_timeout_and_the_next_call_works(
        self, executor: McpExecutor, pool: McpSessionPool, server_id: str
    ) -> None:
        await executor.execute(invocation(mcp_tool(server_id, "echo"), {"message": "warm"}))
        started = time.monotonic()

        failure = await failure_of(executor, server_id, "slow", {"seconds": 10}, timeout_s=0.5)

        assert time.monotonic() - started < 2.0
        assert failure.error.code == EXTERNAL_API_TIMEOUT
        assert failure.retryable is False
        data = await executor.execute(invocation(mcp_tool(server_id, "echo"), {"message": "again"}))
        assert data == "again"
        assert pool.connect_count(server_id) == 2  # the timed-out session was replaced

    async def test_a_crash_mid_call_is_mcp_error_and_a_restarted_server_is_used_again(
        self, executor: McpExecutor, pool: McpSessionPool, server_id: str, server: HttpMcpServer
    ) -> None:
        before = await executor.execute(invocation(mcp_tool(server_id, "whoami")))

        crash = await failure_of(executor, server_id, "crash")

        assert crash.error.code == MCP_ERROR
        assert crash.error.message.startswith("The MCP server failed")
        assert crash.retryable is False
        assert server.process is not None and server.process.wait(timeout=5) == 17
        down = await failure_of(executor, server_id, "echo", {"message": "x"})
        assert down.error.code == MCP_ERROR
        server.restart()
        after = await executor.execute(invocation(mcp_tool(server_id, "whoami")))
        assert after["pid"] != before["pid"]
        assert pool.connect_count(server_id) == 2

    async def test_a_server_restarted_between_calls_is_reconnected_transparently(
        self, executor: McpExecutor, pool: McpSessionPool, server_id: str, server: HttpMcpServer
    ) -> None:
        before = await executor.execute(invocation(mcp_tool(server_id, "whoami")))
        server.restart()

        # The new process answers the old session id with 404; the pool opens a new session.
        after = await executor.execute(invocation(mcp_tool(server_id, "whoami")))

        assert after["pid"] != before["pid"]
        assert pool.connect_count(server_id) == 2


class TestAuthAndEgress:
    @pytest.mark.parametrize(
        ("auth", "header"),
        [
            (AuthConfig(type="BEARER", secret="s3cret"), ["Authorization", "Bearer s3cret"]),
            (AuthConfig(type="API_KEY", header_name="X-Api-Key", secret="k3y"), ["X-Api-Key", "k3y"]),
        ],
        ids=["bearer", "api-key"],
    )
    async def test_the_encrypted_credentials_are_sent(
        self, session_factory: SessionFactory, server: HttpMcpServer, auth: AuthConfig, header: list[str]
    ) -> None:
        box = SecretBox(Fernet.generate_key())
        server.set_state({"require_header": header})
        async with session_factory() as session, session.begin():
            good = await register_mcp_server(
                session,
                SYSTEM_PRINCIPAL,
                McpServerInput(name="with-secret", transport="STREAMABLE_HTTP", url=server.url, auth=auth),
                box,
            )
            bad = await register_mcp_server(
                session,
                SYSTEM_PRINCIPAL,
                McpServerInput(
                    name="wrong-secret",
                    transport="STREAMABLE_HTTP",
                    url=server.url,
                    auth=AuthConfig(type=auth.type, header_name=auth.header_name, secret="wrong"),
                ),
                box,
            )
        pool = new_pool(box)
        try:
            executor = McpExecutor(pool, session_factory)
            data = await executor.execute(invocation(mcp_tool(good.id, "echo"), {"message": "authorized"}))
            refused = await failure_of(executor, bad.id, "echo", {"message": "x"})
        finally:
            await pool.close()

        assert data == "authorized"
        assert refused.error.code == MCP_ERROR
        assert "wrong" not in (refused.error.detail or "")

    async def test_a_loopback_url_is_refused_unless_allow_listed(
        self, session_factory: SessionFactory, server_id: str
    ) -> None:
        pool = new_pool(allow=set())
        try:
            failure = await failure_of(McpExecutor(pool, session_factory), server_id, "echo", {"message": "x"})
        finally:
            await pool.close()

        assert failure.error.code == EGRESS_DENIED
        assert pool.connect_count(server_id) == 0


class TestClose:
    async def test_close_ends_every_session(self, executor: McpExecutor, pool: McpSessionPool, server_id: str) -> None:
        await executor.execute(invocation(mcp_tool(server_id, "echo"), {"message": "x"}))

        await pool.close()

        assert pool.live_session(server_id) is None


class TestSseTransport:
    async def test_calls_over_sse_share_one_session(
        self,
        session_factory: SessionFactory,
        tmp_path_factory: pytest.TempPathFactory,
        executor: McpExecutor,
        pool: McpSessionPool,
    ) -> None:
        sse_server = HttpMcpServer(tmp_path_factory.mktemp("mcp-sse") / "state.json", is_sse=True)
        sse_server.start()
        try:
            sse_id = await add_server(session_factory, url=sse_server.url, transport="SSE")
            first = await executor.execute(invocation(mcp_tool(sse_id, "weather"), {"city": "Lima"}))
            second = await executor.execute(invocation(mcp_tool(sse_id, "echo"), {"message": "sse"}))
            failure = await failure_of(executor, sse_id, "fail")
        finally:
            sse_server.stop()

        assert first == {"city": "Lima", "celsius": 21.5}
        assert second == "sse"
        assert failure.error.message == "the widget is broken"
        assert pool.connect_count(sse_id) == 1


class _Body(httpx2.AsyncByteStream):
    """A response body of fixed chunks, optionally never ending; counts how it is used."""

    def __init__(self, chunks: list[bytes], *, ends: bool = True) -> None:
        self.chunks = chunks
        self.ends = ends
        self.reads = 0
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        self.reads += 1
        while self.chunks:
            yield self.chunks.pop(0)
        if not self.ends:
            await asyncio.Event().wait()

    async def aclose(self) -> None:
        self.closed = True


class TestDrainingStream:
    """How the pool's client closes a response body (see test_calls_on_a_warm_session_reuse_its_http_connections)."""

    async def test_a_body_read_to_its_end_is_closed_without_reading_again(self) -> None:
        # Reading an ended body again would wait for bytes that never come.
        body = _Body([b"a", b"b"])
        stream = DrainingStream(body)
        assert [part async for part in stream] == [b"a", b"b"]
        with anyio.fail_after(5):
            await stream.aclose()
        assert body.reads == 1 and body.closed

    async def test_the_rest_of_a_body_closed_early_is_read_first(self) -> None:
        body = _Body([b"answer", b"end"])
        stream = DrainingStream(body)
        async for _ in stream:
            break
        with anyio.fail_after(5):
            await stream.aclose()
        assert body.chunks == [] and body.closed

    async def test_a_body_that_does_not_end_is_closed_after_a_short_wait(self) -> None:
        body = _Body([b"event"], ends=False)
        stream = DrainingStream(body)
        with anyio.fail_after(5):
            await stream.aclose()
        assert body.closed


class _RefusingTransport(httpx2.AsyncBaseTransport):
    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        raise EgressDeniedError("'mcp.example' resolves to 10.0.0.7")


class TestEgressRefusalReports:
    """What SessionTransport tells the session about a refused connection: whether the
    refused POST carried a JSON-RPC request (then, with one call in flight, it was that
    call's and nothing was sent) or something else (a notification, the GET stream)."""

    @pytest.mark.parametrize(
        ("method", "body", "of_request"),
        [
            ("POST", {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {}}, True),
            ("POST", {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}, False),
            ("GET", None, False),
        ],
    )
    async def test_the_refusal_is_reported_with_what_was_refused(
        self, method: str, body: dict[str, Any] | None, of_request: bool
    ) -> None:
        reports: list[tuple[str, bool]] = []
        transport = SessionTransport(
            _RefusingTransport(), lambda denial, is_request: reports.append((str(denial), is_request))
        )
        async with httpx2.AsyncClient(transport=transport) as client:
            with pytest.raises(EgressDeniedError):
                await client.request(method, "http://mcp.example/mcp", json=body)

        assert reports == [("'mcp.example' resolves to 10.0.0.7", of_request)]


class TestOutputSchemas:
    """Structured results are checked with the platform's validator (issue #11, item 5)."""

    async def test_output_patterns_follow_json_schema_on_a_linear_time_engine(
        self, executor: McpExecutor, server: HttpMcpServer, server_id: str
    ) -> None:
        server.set_state(
            {
                "output_schemas": {
                    "weather": {
                        "type": "object",
                        "properties": {"city": {"type": "string", "pattern": "^(\\d+|(a+)+)$"}},
                    }
                }
            }
        )
        try:
            assert await executor.execute(invocation(mcp_tool(server_id, "weather"), {"city": "042"})) == {
                "city": "042",
                "celsius": 21.5,
            }
            # ECMA-262's \d is [0-9] (Python's re matches other scripts' digits too); a
            # backtracking engine would take seconds on the second city.
            for city in ("٣", "a" * 28 + "!"):
                failure = await failure_of(executor, server_id, "weather", {"city": city})
                assert "does not match" in (failure.error.detail or "") + failure.error.message, failure.error
        finally:
            server.set_state({})

    async def test_an_output_schema_with_a_remote_ref_fails_the_call_without_fetching(
        self, executor: McpExecutor, server: HttpMcpServer, server_id: str
    ) -> None:
        server.set_state(
            {
                "output_schemas": {
                    "weather": {"type": "object", "properties": {"city": {"$ref": "http://127.0.0.1:9/s"}}}
                }
            }
        )
        try:
            failure = await failure_of(executor, server_id, "weather", {"city": "Oslo"})
        finally:
            server.set_state({})

        assert "does not point inside this schema" in (failure.error.detail or "") + failure.error.message

    async def test_a_violating_result_fails_as_before_and_a_valid_one_passes(
        self, executor: McpExecutor, server: HttpMcpServer, server_id: str
    ) -> None:
        """The check moved to the platform's bounded one: the same error picked, the same failure."""
        server.set_state({"output_schemas": {"weather": DOUBLING}, "weather_result": {"a": {"a": {}}}})
        weather = mcp_tool(server_id, "weather")

        assert await executor.execute(invocation(weather, {})) == {"a": {"a": {}}}
        server.set_state({"output_schemas": {"weather": DOUBLING}, "weather_result": {"a": {"a": 5}}})
        failure = await failure_of(executor, server_id, "weather")
        assert failure.error.code == MCP_ERROR
        assert failure.error.message == "The MCP server failed: its answer could not be used."
        assert (failure.error.detail or "").startswith(
            "RuntimeError: Invalid structured content returned by tool weather: 5 is not of type 'object' (at /a/a)"
        ), failure.error

    @pytest.mark.parametrize(
        ("output_schema", "result"),
        [
            # 2^17 subschemas applied to a value 17 objects deep (about 150 bytes).
            (DOUBLING, nested(17)),
            # Patterns times keys: 200 patterns searched in 1,000 keys.
            (
                {"type": "object", "patternProperties": {f"^p{index}$": {} for index in range(200)}},
                {f"k{index}": 0 for index in range(1_000)},
            ),
            # anyOf's first 2,000 branches fail on a 200 KB value, written into each error's message.
            (
                {"type": "object", "anyOf": [*({"type": "array"} for _ in range(2_000)), {"type": "object"}]},
                {f"k{index}": "x" * 40 for index in range(4_000)},
            ),
        ],
        ids=["doubling", "patterns-times-keys", "large-value-in-every-message"],
    )
    async def test_a_result_taking_too_much_work_to_check_fails_with_a_stable_code(
        self,
        executor: McpExecutor,
        server: HttpMcpServer,
        server_id: str,
        output_schema: dict[str, Any],
        result: dict[str, Any],
    ) -> None:
        server.set_state({"output_schemas": {"weather": output_schema}, "weather_result": result})

        failure = await failure_of(executor, server_id, "weather")

        assert failure.error.code == MCP_ERROR
        assert "too much work to check against the tool's output schema" in failure.error.message
        assert json.loads(failure.error.detail or "") == {"steps": jsonschemas.MAX_VALIDATION_STEPS}
        # The server is talking: its session is kept, and its next answer checked as ever.
        server.set_state({"output_schemas": {"weather": output_schema}, "weather_result": {}})
        assert await executor.execute(invocation(mcp_tool(server_id, "weather"), {})) == {}

    async def test_a_result_larger_than_the_platform_accepts_fails_as_a_custom_tool_s_would(
        self, executor: McpExecutor, server: HttpMcpServer, server_id: str
    ) -> None:
        """Read up to MAX_ANSWER_BYTES, as a CUSTOM tool's response; the session is kept."""
        server.set_state({"weather_result": {"city": "x" * MAX_ANSWER_BYTES, "celsius": 1}})

        failure = await failure_of(executor, server_id, "weather")

        assert failure.error.code == RESPONSE_TOO_LARGE, failure.error
        assert failure.error.message == "The MCP server's answer is larger than the platform accepts."
        assert f"exceeded the {MAX_ANSWER_BYTES} byte limit" in (failure.error.detail or "")
        server.set_state({"weather_result": {"city": "x" * (MAX_ANSWER_BYTES // 3), "celsius": 1}})
        assert (await executor.execute(invocation(mcp_tool(server_id, "weather"), {})))["celsius"] == 1
