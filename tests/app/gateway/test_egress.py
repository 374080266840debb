"""The egress policy where connections are made: one resolution per connection, every
address checked, the connection made to a checked address (no DNS rebinding between the
check and the connection), and no lookup at all on a kept-alive connection. Against a
real loopback server; names are resolved by a resolver the test controls."""

from __future__ import annotations

import asyncio
import http.server
import ipaddress
import secrets
import ssl
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from cryptography import x509
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.crypto import SecretBox
from app.egress import (
    EgressDeniedError,
    EgressPolicy,
    UnresolvableHostError,
    egress_checked_transport,
    egress_checked_transport2,
)
from app.gateway.envelope import ToolFailure
from app.gateway.executors.base import Invocation
from app.gateway.executors.http import HttpExecutor
from app.mcp.executor import McpExecutor
from app.mcp.pool import McpSessionPool
from app.principal import SYSTEM_PRINCIPAL
from app.tools.models import ToolDefinition
from tests.conftest import TEST_SECRET_KEY
from tests.support.http_tool_server import ToolServer, running_tool_server
from tests.support.mcp import add_server, invocation, mcp_tool
from tests.support.processes import HttpMcpServer, running_http_mcp_server

LIMITS = httpx.Limits(max_connections=10, max_keepalive_connections=5)


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


class ScriptedResolver:
    """Answers for made-up names, one answer per lookup, and counts the lookups."""

    def __init__(self, *answers: list[str]) -> None:
        self.answers = list(answers)
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


class FailingResolver:
    """A name that resolves to nothing: an empty answer, or a lookup that fails (``answer`` raised).
    The test may change ``answer`` (a name that resolved until then)."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    async def __call__(self, host: str, port: int) -> list[str]:
        if isinstance(self.answer, BaseException):
            raise self.answer
        return list(self.answer)


class SwitchableResolver:
    """One answer for every lookup until the test changes it (a name being rebound)."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        return [self.answer]


def client_for(policy: EgressPolicy) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=egress_checked_transport(policy, LIMITS), trust_env=False)


def name_url(server: ToolServer, path: str) -> str:
    return f"http://tool.example:{server.port}{path}"


class TestConnections:
    async def test_a_name_resolving_to_a_forbidden_address_is_refused_before_connecting(
        self, tool_server: ToolServer
    ) -> None:
        resolver = ScriptedResolver(["127.0.0.1"])
        key = secrets.token_hex(4)
        async with client_for(EgressPolicy([], resolver=resolver)) as client:
            with pytest.raises(EgressDeniedError, match=r"127\.0\.0\.1"):
                await client.post(name_url(tool_server, f"/ok/{key}"), json={})
        assert f"ok/{key}" not in (await tool_server.state())["requests"]

    async def test_the_connection_goes_to_the_address_that_was_checked(self, tool_server: ToolServer) -> None:
        """Allowed through its address (an allow-listed 127.0.0.1); the request carries the name."""
        resolver = ScriptedResolver(["127.0.0.1"])
        async with client_for(EgressPolicy(["127.0.0.1"], resolver=resolver)) as client:
            response = await client.post(name_url(tool_server, f"/ok/{secrets.token_hex(4)}"), json={"n": 1})
        assert response.status_code == 200 and response.json()["received"] == {"n": 1}
        assert resolver.lookups == ["tool.example"]

    @pytest.mark.parametrize(
        "answer", [[], OSError(-2, "Name or service not known")], ids=["no-address", "lookup-fails"]
    )
    async def test_a_name_that_does_not_resolve_fails_to_connect_as_any_unreachable_host(
        self, tool_server: ToolServer, answer: Any
    ) -> None:
        """Each client library's ConnectError, the error a host that refuses the connection gives
        (and the pool's own backend gives for a failed lookup): not the policy's refusal."""
        policy = EgressPolicy(["127.0.0.1"], resolver=FailingResolver(answer))
        async with client_for(policy) as client:
            with pytest.raises(httpx.ConnectError, match="resolve"):
                await client.post(name_url(tool_server, "/ok/unresolved"), json={})
        transport = egress_checked_transport2(policy, httpx2.Limits(max_connections=1))
        async with httpx2.AsyncClient(transport=transport, trust_env=False) as client2:
            with pytest.raises(httpx2.ConnectError, match="resolve"):
                await client2.post(name_url(tool_server, "/ok/unresolved"), json={})

    async def test_a_kept_alive_connection_costs_no_more_lookups(self, tool_server: ToolServer) -> None:
        resolver = ScriptedResolver(["127.0.0.1"])
        async with client_for(EgressPolicy(["127.0.0.1"], resolver=resolver)) as client:
            for n in range(5):
                response = await client.post(name_url(tool_server, f"/ok/{secrets.token_hex(4)}"), json={"n": n})
                assert response.status_code == 200
        assert resolver.lookups == ["tool.example"]

    async def test_a_rebound_name_is_refused_on_its_next_connection(self, tool_server: ToolServer) -> None:
        """The first connection is checked and used; once the name points at a forbidden
        address, a new connection is refused — never made to the new address unchecked."""
        resolver = ScriptedResolver(["127.0.0.1"], ["10.0.0.7"])
        async with client_for(EgressPolicy(["127.0.0.1"], resolver=resolver)) as client:
            assert (await client.post(name_url(tool_server, "/ok/rebind"), json={})).status_code == 200
        async with client_for(EgressPolicy(["127.0.0.1"], resolver=resolver)) as client:
            with pytest.raises(EgressDeniedError, match=r"10\.0\.0\.7"):
                await client.post(name_url(tool_server, "/ok/rebind"), json={})

    async def test_an_allow_listed_name_is_connected_by_name(self, tool_server: ToolServer) -> None:
        resolver = ScriptedResolver(["10.0.0.7"])  # never asked
        async with client_for(EgressPolicy(["localhost"], resolver=resolver)) as client:
            url = f"http://localhost:{tool_server.port}/ok/{secrets.token_hex(4)}"
            assert (await client.post(url, json={})).status_code == 200
        assert resolver.lookups == []


class TestKeptAliveConnections:
    """The transport's own asyncio streams (app.egress.AsyncioStream) tell a connection the
    server closed while it sat idle from a live one, so the next request opens a new one."""

    async def test_a_connection_the_server_closed_while_idle_is_not_reused(self) -> None:
        connections = 0

        async def answer_once_then_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal connections
            connections += 1
            await reader.readuntil(b"\r\n\r\n")
            body = b'{"n": %d}' % connections
            # Kept alive as far as the client knows (HTTP/1.1, no Connection: close), then closed.
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(answer_once_then_close, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            async with client_for(EgressPolicy(["127.0.0.1"])) as client:
                first = await client.get(f"http://127.0.0.1:{port}/")
                await asyncio.sleep(0.2)  # the server's FIN reaches the idle connection
                second = await client.get(f"http://127.0.0.1:{port}/")
        finally:
            server.close()
            await server.wait_closed()
        assert (first.json(), second.json()) == ({"n": 1}, {"n": 2})

    async def test_a_read_past_its_timeout_is_a_read_timeout(self) -> None:
        async def never_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.read(100_000)
            await asyncio.sleep(5)
            writer.close()

        server = await asyncio.start_server(never_answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            async with client_for(EgressPolicy(["127.0.0.1"])) as client:
                with pytest.raises(httpx.ReadTimeout):
                    await client.get(f"http://127.0.0.1:{port}/", timeout=httpx.Timeout(5.0, read=0.2))
        finally:
            server.close()


class TestThroughTheHttpExecutor:
    def _invocation(self, endpoint: str) -> Invocation:
        tool = ToolDefinition(
            tool_id="ct_egress",
            type="CUSTOM",
            endpoint=endpoint,
            auth_type="NONE",
            auth_config=None,
            static_arguments={},
        )
        return Invocation(
            tool=tool,
            arguments={"n": 1},
            principal=SYSTEM_PRINCIPAL,
            space_id="sp_system",
            trace_id="t" * 32,
            timeout_s=5.0,
        )

    async def _execute(
        self, policy: EgressPolicy, endpoint: str, *, plain_http: bool = True, invocation: Invocation | None = None
    ) -> Any:
        async with client_for(policy) as client:
            executor = HttpExecutor(client, SecretBox(TEST_SECRET_KEY.encode()), policy, plain_http=plain_http)
            return await executor.execute(invocation or self._invocation(endpoint))

    async def test_a_refused_connection_is_the_egress_envelope_error(self, tool_server: ToolServer) -> None:
        policy = EgressPolicy([], resolver=ScriptedResolver(["169.254.169.254"]))
        with pytest.raises(ToolFailure) as raised:
            await self._execute(policy, name_url(tool_server, "/ok/exec"))
        assert raised.value.error.code == "EGRESS_DENIED"
        assert "169.254.169.254" in (raised.value.error.detail or "")

    async def test_a_forbidden_literal_is_refused_without_any_lookup(self, tool_server: ToolServer) -> None:
        resolver = ScriptedResolver(["127.0.0.1"])
        with pytest.raises(ToolFailure) as raised:
            await self._execute(EgressPolicy([], resolver=resolver), f"http://127.0.0.2:{tool_server.port}/ok/x")
        assert raised.value.error.code == "EGRESS_DENIED"
        assert resolver.lookups == []

    @pytest.mark.parametrize(
        "answer", [[], OSError(-2, "Name or service not known")], ids=["no-address", "lookup-fails"]
    )
    async def test_a_name_that_does_not_resolve_is_unreachable_not_refused(
        self, tool_server: ToolServer, answer: Any
    ) -> None:
        """A host that does not resolve (a typo, DNS down, an offline machine) is a service that
        could not be reached, to try again: it was reported EGRESS_DENIED, as if the policy forbade it."""
        policy = EgressPolicy([], resolver=FailingResolver(answer))
        with pytest.raises(ToolFailure) as raised:
            await self._execute(policy, name_url(tool_server, "/ok/exec"))
        assert raised.value.error.code == "EXTERNAL_API_ERROR"
        assert raised.value.error.message == "The tool's service could not be reached."
        assert "resolve" in (raised.value.error.detail or "")
        assert raised.value.retryable

    async def test_a_name_that_does_not_resolve_is_unreachable_on_httpx_way_too(self, tool_server: ToolServer) -> None:
        """Without the plain-http client the lookup fails under httpx's pool: the same answer."""
        policy = EgressPolicy([], resolver=FailingResolver([]))
        with pytest.raises(ToolFailure) as raised:
            await self._execute(policy, name_url(tool_server, "/ok/exec"), plain_http=False)
        assert raised.value.error.code == "EXTERNAL_API_ERROR"
        assert raised.value.error.message == "The tool's service could not be reached."
        assert "resolves to no address" in (raised.value.error.detail or "")
        assert raised.value.retryable

    async def test_a_token_endpoint_that_does_not_resolve_is_unreachable_not_refused(
        self, tool_server: ToolServer
    ) -> None:
        secret = f"s3cret-{secrets.token_hex(8)}"
        config = {"token_url": "http://tokens.example/token", "client_id": "quiver", "secret": secret}
        invocation = self._invocation(f"http://127.0.0.1:{tool_server.port}/ok/exec")
        invocation.tool.auth_type = "OAUTH_CLIENT_CREDENTIALS"
        invocation.tool.auth_config = SecretBox(TEST_SECRET_KEY.encode()).encrypt(config)
        policy = EgressPolicy(["127.0.0.1"], resolver=FailingResolver(OSError(-2, "Name or service not known")))
        with pytest.raises(ToolFailure) as raised:
            await self._execute(policy, invocation.tool.endpoint or "", invocation=invocation)
        assert raised.value.error.code == "EXTERNAL_API_ERROR"
        assert raised.value.error.message == "The token endpoint could not be reached."
        assert "cannot resolve 'tokens.example'" in (raised.value.error.detail or "")
        assert raised.value.retryable
        assert secret not in f"{raised.value.error.message} {raised.value.error.detail}"

    async def test_an_allowed_name_is_called(self, tool_server: ToolServer) -> None:
        policy = EgressPolicy(["127.0.0.1"], resolver=ScriptedResolver(["127.0.0.1"]))
        data = await self._execute(policy, name_url(tool_server, f"/ok/{secrets.token_hex(4)}"))
        assert data["received"] == {"n": 1}


class TestPolicyChecks:
    async def test_creation_time_accepts_a_name_that_does_not_resolve_yet(self) -> None:
        async def unresolvable(host: str, port: int) -> list[str]:
            raise OSError("Name or service not known")

        policy = EgressPolicy([], resolver=unresolvable)
        await policy.check_url("https://not-yet.example/hook", resolve_failure_ok=True)
        # Otherwise it is a failed lookup (an OSError, as getaddrinfo's own), not the policy's refusal.
        with pytest.raises(OSError, match="cannot resolve") as raised:
            await policy.check_url("https://not-yet.example/hook")
        assert isinstance(raised.value, UnresolvableHostError)
        assert not isinstance(raised.value, EgressDeniedError)

    async def test_creation_time_refuses_a_name_resolving_to_a_private_address(self) -> None:
        policy = EgressPolicy([], resolver=ScriptedResolver(["192.168.1.10"]))
        with pytest.raises(EgressDeniedError, match=r"192\.168\.1\.10"):
            await policy.check_url("https://intranet.example/hook", resolve_failure_ok=True)


@pytest.fixture(scope="module")
def sse_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpMcpServer]:
    with running_http_mcp_server(tmp_path_factory.mktemp("mcp-sse-egress"), is_sse=True) as server:
        yield server


class TestMcpSessions:
    """Every connection an MCP session makes is checked, not only its first: the SDK's HTTP
    client runs on the checked backend. The name is ``localhost`` (the SDK-built server
    refuses other Host headers), resolved by the test; only the address 127.0.0.1 is
    allow-listed, so the name is allowed exactly while it resolves there."""

    def _pool(self, resolver: SwitchableResolver) -> McpSessionPool:
        """Idle connections close after 50 ms, so a later request needs a new connection."""
        return McpSessionPool(
            SecretBox(Fernet.generate_key()),
            EgressPolicy(["127.0.0.1"], resolver=resolver),
            http_limits=httpx2.Limits(max_connections=10, max_keepalive_connections=5, keepalive_expiry=0.05),
        )

    async def _call(self, executor: McpExecutor, server_id: str, message: str) -> Any:
        return await executor.execute(invocation(mcp_tool(server_id, "echo"), {"message": message}, timeout_s=5.0))

    @pytest.mark.parametrize("transport", ["STREAMABLE_HTTP", "SSE"])
    async def test_a_name_rebound_during_a_session_is_refused_on_the_sessions_next_connection(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        server: HttpMcpServer,
        sse_server: HttpMcpServer,
        transport: str,
    ) -> None:
        peer = sse_server if transport == "SSE" else server
        resolver = SwitchableResolver("127.0.0.1")
        pool = self._pool(resolver)
        executor = McpExecutor(pool, session_factory)
        path = "sse" if transport == "SSE" else "mcp"
        server_id = await add_server(session_factory, url=f"http://localhost:{peer.port}/{path}", transport=transport)
        try:
            before = await self._call(executor, server_id, "before")
            resolver.answer = "10.0.0.7"
            await asyncio.sleep(0.2)
            with pytest.raises(ToolFailure) as refused:
                await self._call(executor, server_id, "rebound")
            resolver.answer = "127.0.0.1"
            after = await self._call(executor, server_id, "after")
        finally:
            await pool.close()

        assert before == "before"
        assert refused.value.error.code == "EGRESS_DENIED"
        assert "10.0.0.7" in (refused.value.error.detail or "")
        # The refused request was the session's, not a new session's: the session is
        # replaced afterwards, and a new one works once the name points back.
        assert after == "after"
        assert pool.connect_count(server_id) == 2

    @pytest.mark.parametrize("transport", ["STREAMABLE_HTTP", "SSE"])
    @pytest.mark.parametrize(
        "answer",
        [[], OSError(-2, "Name or service not known"), ["127.0.0.2"]],
        ids=["no-address", "lookup-fails", "nothing-listens"],
    )
    async def test_a_host_no_longer_reached_during_a_session_is_unreachable_on_its_next_connection(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        server: HttpMcpServer,
        sse_server: HttpMcpServer,
        transport: str,
        answer: Any,
    ) -> None:
        """The session's next connection is not made (its name resolves to nothing now, or to an
        address where nothing listens): nothing was sent, the server could not be reached, as
        when the session starts. The SDK would report it as a closed connection, or (SSE) not
        at all, leaving the call to time out."""
        peer = sse_server if transport == "SSE" else server
        resolver = FailingResolver(["127.0.0.1"])
        pool = McpSessionPool(
            SecretBox(Fernet.generate_key()),
            EgressPolicy(["127.0.0.1", "127.0.0.2"], resolver=resolver),
            http_limits=httpx2.Limits(max_connections=10, max_keepalive_connections=5, keepalive_expiry=0.05),
        )
        executor = McpExecutor(pool, session_factory)
        path = "sse" if transport == "SSE" else "mcp"
        server_id = await add_server(session_factory, url=f"http://localhost:{peer.port}/{path}", transport=transport)
        try:
            before = await self._call(executor, server_id, "before")
            resolver.answer = answer
            await asyncio.sleep(0.2)  # the kept-alive connection expires
            with pytest.raises(ToolFailure) as raised:
                await self._call(executor, server_id, "unreached")
            resolver.answer = ["127.0.0.1"]
            after = await self._call(executor, server_id, "after")
        finally:
            await pool.close()

        assert before == "before"
        assert raised.value.error.code == "MCP_ERROR"
        assert raised.value.error.message == "The MCP server failed: it could not be reached."
        if answer != ["127.0.0.2"]:
            assert "resolve" in (raised.value.error.detail or "")
        assert after == "after"
        assert pool.connect_count(server_id) == 2

    async def test_a_server_whose_name_does_not_resolve_is_unreachable_not_refused(
        self, session_factory: async_sessionmaker[AsyncSession], server: HttpMcpServer
    ) -> None:
        pool = McpSessionPool(
            SecretBox(Fernet.generate_key()), EgressPolicy(["127.0.0.1"], resolver=FailingResolver([]))
        )
        executor = McpExecutor(pool, session_factory)
        server_id = await add_server(session_factory, url=f"http://localhost:{server.port}/mcp")
        try:
            with pytest.raises(ToolFailure) as raised:
                await self._call(executor, server_id, "hello")
        finally:
            await pool.close()
        assert raised.value.error.code == "MCP_ERROR"
        assert raised.value.error.message == "The MCP server failed: it could not be reached."
        assert "resolve" in (raised.value.error.detail or "")

    async def test_a_call_already_sent_when_the_session_is_refused_may_have_run(
        self, session_factory: async_sessionmaker[AsyncSession], server: HttpMcpServer
    ) -> None:
        """With two calls in flight, the refusal cannot be pinned on one of them: both are
        reported as a lost connection (the tool may or may not have run), with the refusal
        as the cause; neither is reported as never sent."""
        resolver = SwitchableResolver("127.0.0.1")
        pool = self._pool(resolver)
        executor = McpExecutor(pool, session_factory)
        server_id = await add_server(session_factory, url=f"http://localhost:{server.port}/mcp")
        try:
            await self._call(executor, server_id, "warm")
            slow = asyncio.create_task(
                executor.execute(invocation(mcp_tool(server_id, "slow"), {"seconds": 1.0}, timeout_s=5.0))
            )
            await asyncio.sleep(0.3)  # the slow call is on the server now
            resolver.answer = "10.0.0.7"
            with pytest.raises(ToolFailure) as refused:
                await self._call(executor, server_id, "rebound")
            with pytest.raises(ToolFailure) as lost:
                await slow
        finally:
            await pool.close()

        for failure in (refused.value, lost.value):
            assert failure.error.code == "MCP_ERROR"
            assert "may or may not have run" in failure.error.message
            assert "10.0.0.7" in (failure.error.detail or "")


def _certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A CA (its certificate: the bundle a client is given) and a 127.0.0.1 server
    certificate it signed, with the server's key."""
    now = datetime.now(UTC)

    def build(
        subject: str, key: ec.EllipticCurvePrivateKey, issuer: str, signer: ec.EllipticCurvePrivateKey, *, is_ca: bool
    ) -> x509.Certificate:
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(minutes=5))
            .not_valid_after(now + timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True)
        )
        if not is_ca:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False
            )
        return builder.sign(signer, hashes.SHA256())

    ca_key, server_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = build("Quiver test CA", ca_key, "Quiver test CA", ca_key, is_ca=True)
    server = build("127.0.0.1", server_key, "Quiver test CA", ca_key, is_ca=False)
    paths = directory / "ca.pem", directory / "server.pem", directory / "server.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(server.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        server_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return paths


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"tls": true}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """An HTTPS server on 127.0.0.1 whose certificate only a private CA vouches for: its URL
    and that CA's bundle."""
    ca, certificate, key = _certificates(tmp_path_factory.mktemp("tls"))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/hello", ca
    finally:
        server.shutdown()
        server.server_close()


class TestCertificateBundles:
    """Both checked transports (CUSTOM tools on httpx, MCP sessions on httpx2) trust a CA
    bundle named by SSL_CERT_FILE, as httpx clients do by default; without it the private
    CA's server is refused."""

    async def test_the_httpx_transport_honours_ssl_cert_file(
        self, tls_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        url, ca = tls_server
        policy = EgressPolicy(["127.0.0.1"])
        async with client_for(policy) as client:
            with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await client.get(url)
        monkeypatch.setenv("SSL_CERT_FILE", str(ca))
        async with client_for(policy) as client:
            response = await client.get(url)
        assert response.json() == {"tls": True}

    async def test_the_httpx2_transport_honours_ssl_cert_file(
        self, tls_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        url, ca = tls_server
        policy = EgressPolicy(["127.0.0.1"])
        limits = httpx2.Limits(max_connections=5, max_keepalive_connections=5)
        async with httpx2.AsyncClient(transport=egress_checked_transport2(policy, limits), trust_env=False) as client:
            with pytest.raises(httpx2.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await client.get(url)
        monkeypatch.setenv("SSL_CERT_FILE", str(ca))
        async with httpx2.AsyncClient(transport=egress_checked_transport2(policy, limits), trust_env=False) as client:
            response = await client.get(url)
        assert response.json() == {"tls": True}


class TestAllowListPorts:
    """An allow-list entry naming a port opens that port only (issue #11, item 12)."""

    async def test_an_address_with_a_port_opens_only_that_port(self, tool_server: ToolServer) -> None:
        resolver = ScriptedResolver(["127.0.0.1"])
        policy = EgressPolicy([f"127.0.0.1:{tool_server.port}"], resolver=resolver)
        async with client_for(policy) as client:
            response = await client.post(name_url(tool_server, f"/ok/{secrets.token_hex(4)}"), json={})
            assert response.status_code == 200
            with pytest.raises(EgressDeniedError, match=rf"127\.0\.0\.1.*port {tool_server.port + 1}"):
                await client.post(f"http://tool.example:{tool_server.port + 1}/ok/x", json={})

    async def test_a_name_with_a_port_opens_only_that_port(self, tool_server: ToolServer) -> None:
        policy = EgressPolicy([f"localhost:{tool_server.port}"], resolver=ScriptedResolver(["127.0.0.1"]))
        async with client_for(policy) as client:
            assert (await client.post(f"http://localhost:{tool_server.port}/ok/p", json={})).status_code == 200
            with pytest.raises(EgressDeniedError):
                await client.post("http://localhost:22/", json={})

    @pytest.mark.parametrize(
        ("entries", "host", "port", "allowed"),
        [
            (["[::1]:8443"], "::1", 8443, True),
            (["[::1]:8443"], "::1", 8444, False),
            (["[::1]"], "::1", 1, True),
            (["::1"], "::1", 2, True),
            (["host.example:80", "host.example:81"], "host.example", 81, True),
            (["host.example:80", "host.example"], "host.example", 9, True),
        ],
    )
    async def test_entries(self, entries: list[str], host: str, port: int, allowed: bool) -> None:
        policy = EgressPolicy(entries, resolver=ScriptedResolver(["10.0.0.1"]))
        if allowed:
            await policy.addresses_for(host, port)
        else:
            with pytest.raises(EgressDeniedError):
                await policy.addresses_for(host, port)

    async def test_an_invalid_port_is_a_configuration_error(self) -> None:
        with pytest.raises(ValueError, match="invalid port"):
            EgressPolicy(["127.0.0.1:http"])


class TestAddressesBetweenPrivateAndPublic:
    """Not private to ``ipaddress`` and not public either: each was resolved and connected to."""

    @pytest.mark.parametrize(
        "address",
        ["100.64.0.1", "100.127.255.254", "2002:7f00:1::", "2002:a9fe:a9fe::", "2002:a00:1::", "fec0::1"],
        ids=["shared-cgnat", "shared-last", "6to4-of-loopback", "6to4-of-metadata", "6to4-of-10/8", "site-local"],
    )
    async def test_a_name_resolving_to_it_is_refused(self, address: str) -> None:
        policy = EgressPolicy([], resolver=ScriptedResolver([address]))

        with pytest.raises(EgressDeniedError, match="QUIVER_EGRESS_ALLOWLIST"):
            await policy.addresses_for("internal.example", 443)
        with pytest.raises(EgressDeniedError):
            await policy.check_url(f"https://[{address}]/" if ":" in address else f"https://{address}/")

    @pytest.mark.parametrize("address", ["8.8.8.8", "2606:4700:4700::1111", "2002:808:808::"])
    async def test_public_addresses_stay_reachable(self, address: str) -> None:
        policy = EgressPolicy([], resolver=ScriptedResolver([address]))

        assert await policy.addresses_for("public.example", 443) == [address]

    async def test_an_allow_listed_shared_address_is_reachable(self) -> None:
        policy = EgressPolicy(["100.64.0.1"], resolver=ScriptedResolver(["100.64.0.1"]))

        assert await policy.addresses_for("tailnet.example", 443) == ["100.64.0.1"]
