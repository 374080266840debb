"""Tool gateway overhead: a CUSTOM, an MCP and a BUILTIN tool through the gateway vs direct.

Per backend (SQLite file, PostgreSQL database), against real loopback servers started
by the script (a tiny uvicorn JSON endpoint and ``tests/support/mcp_http_server.py``,
each in its own process), it measures, interleaved round-robin:

* CUSTOM ``echo``  direct httpx POST | HttpExecutor | ToolGateway.execute | invokeTool;
* MCP ``echo``     direct warm ClientSession.call_tool | the same on kept-alive connections
                   | McpExecutor | ToolGateway.execute | invokeTool;
* ``bt_current_time``  the builtin function | ToolGateway.execute | invokeTool.

The gateway and executor variants run in this process; invokeTool goes over HTTP to
``quiver serve`` on the same database, in its own process, as a client would call it.

It prints p50/p95 per variant, the overhead over the direct call in ms and as a ratio,
and whether the goals of issue #3 are met (HTTP overhead under 2 ms p50 including the
call-log write; MCP within 1.2x of a direct call with a warm session). Run from the
repository root::

    .venv/bin/python -m bench.gateway_overhead            # SQLite and PostgreSQL
    .venv/bin/python -m bench.gateway_overhead --quick    # small smoke run

See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import platform
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import (
    DEFAULT_POSTGRES_URL,
    GraphQL,
    free_port,
    graphql_data,
    load_average,
    percentile,
    postgres_problem,
    throwaway_database,
    version,
)

ROOT = Path(__file__).resolve().parent.parent

#: High enough that the measured calls never meet the default quota (600/minute per
#: space and tool); the limiter still runs on every call.
BENCH_RATE_LIMIT = "1000000/minute"
READY_TIMEOUT_S = 20.0

# ------------------------------------------------------------------ the CUSTOM endpoint
# A raw ASGI app (no framework): echoes the JSON body back. Run in its own process with
# ``gateway_overhead.py --serve-tool PORT`` so its CPU time is not the client's.


async def _tool_endpoint(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    payload = json.dumps({"ok": True, "echo": json.loads(body) if body else None}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def serve_tool(port: int) -> None:
    import uvicorn

    uvicorn.run(
        _tool_endpoint,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="off",
    )


if len(sys.argv) == 3 and sys.argv[1] == "--serve-tool":
    serve_tool(int(sys.argv[2]))
    sys.exit(0)

import httpx  # noqa: E402
import httpx2  # noqa: E402
import mcp_types  # noqa: E402
import sqlalchemy  # noqa: E402
from cryptography.fernet import Fernet  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from app.catalog.loader import load_builtin_catalog  # noqa: E402
from app.config import Settings  # noqa: E402
from app.gateway.executors.base import Invocation  # noqa: E402
from app.gateway.models import ToolCall  # noqa: E402
from app.logging import JsonFormatter  # noqa: E402
from app.main import create_app  # noqa: E402
from app.mcp.sync import sync_server  # noqa: E402
from app.mcp.transport import SessionTransport  # noqa: E402
from app.migrate import upgrade  # noqa: E402
from app.principal import Principal, Role  # noqa: E402
from app.spaces import service as spaces_service  # noqa: E402
from app.tools import repository as tools_repository  # noqa: E402

CUSTOM, MCP, BUILTIN = "CUSTOM", "MCP", "BUILTIN"
DIRECT, EXECUTOR, GATEWAY, INVOKE_TOOL = "direct", "executor", "gateway", "invokeTool"
KEPT_ALIVE = "direct-ka"  # the direct MCP call on an HTTP client that keeps connections alive
SERVED = "served"  # invokeTool over HTTP to `quiver serve`
PLATFORM_LAYERS = (GATEWAY, INVOKE_TOOL, SERVED)
KINDS = (CUSTOM, MCP, BUILTIN)
LAYERS = {
    CUSTOM: (DIRECT, EXECUTOR, GATEWAY, INVOKE_TOOL, SERVED),
    MCP: (DIRECT, KEPT_ALIVE, EXECUTOR, GATEWAY, INVOKE_TOOL, SERVED),
    BUILTIN: (DIRECT, GATEWAY, INVOKE_TOOL, SERVED),
}
VARIANTS = tuple((kind, layer) for kind in KINDS for layer in LAYERS[kind])
LAYER_NOTES = {
    (CUSTOM, DIRECT): "httpx.AsyncClient.post to the endpoint, JSON decoded (own keep-alive client)",
    (CUSTOM, EXECUTOR): "HttpExecutor.execute: egress check, headers, streamed POST, size cap, decode",
    (CUSTOM, GATEWAY): "ToolGateway.execute: resolve, schema, quota, executor, row + metrics + log + publish",
    (CUSTOM, INVOKE_TOOL): "invokeTool request into the ASGI app in process (auth, FastAPI, Strawberry, the gateway)",
    (CUSTOM, SERVED): "invokeTool over HTTP to `quiver serve` in its own process (keep-alive client): one more hop",
    (MCP, DIRECT): "mcp ClientSession.call_tool on its own warm streamable-HTTP session (the SDK's "
    "own HTTP client: it closes each answer stream early, so every call makes a new connection)",
    (MCP, KEPT_ALIVE): "the same on a session whose httpx2 client keeps connections alive "
    "(Quiver's SessionTransport, as McpSessionPool's clients do): like for like with the gateway",
    (MCP, EXECUTOR): "McpExecutor.execute: cached server row, McpSessionPool.call_tool (warm)",
    (MCP, GATEWAY): "ToolGateway.execute of the synced tool {serverId}__echo",
    (MCP, INVOKE_TOOL): "invokeTool request into the ASGI app in process",
    (MCP, SERVED): "invokeTool over HTTP to `quiver serve`",
    (BUILTIN, DIRECT): "BuiltinExecutor.execute(bt_current_time), in process",
    (BUILTIN, GATEWAY): "ToolGateway.execute(bt_current_time)",
    (BUILTIN, INVOKE_TOOL): "invokeTool request into the ASGI app in process",
    (BUILTIN, SERVED): "invokeTool over HTTP to `quiver serve`",
}
HTTP_GOAL_MS = 2.0
MCP_GOAL_RATIO = 1.2
#: Most event-loop turns a call's leftover work may take to settle (see settle()).
SETTLE_MAX_TURNS = 100

INVOKE_TOOL_OPERATION = """
mutation Bench($input: InvokeToolInput!) {
  invokeTool(input: $input) { status data error { code message detail } traceId latencyMs }
}
"""

ECHO_SCHEMA = {
    "type": "object",
    "properties": {"message": {"type": "string"}},
    "required": ["message"],
    "additionalProperties": False,
}
ARGUMENTS = {"message": "hello from the gateway benchmark"}


# ------------------------------------------------------------------ helper processes


def wait_for_port(port: int, process: subprocess.Popen[bytes], name: str) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{name} exited with {process.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{name}: nothing listened on {port} within {READY_TIMEOUT_S}s")


@dataclass
class Servers:
    tool_url: str
    mcp_url: str


@contextmanager
def loopback_servers(directory: Path) -> Iterator[Servers]:
    """The CUSTOM endpoint and the MCP server, each a subprocess on a free loopback port."""
    tool_port, mcp_port = free_port(), free_port()
    state = directory / "mcp-state.json"
    state.write_text("{}")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    processes: list[subprocess.Popen[bytes]] = []
    try:
        tool = subprocess.Popen(
            [sys.executable, "-m", "bench.gateway_overhead", "--serve-tool", str(tool_port)],
            cwd=ROOT,
            env=environment,
        )
        processes.append(tool)
        mcp = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.support.mcp_http_server",
                "--port",
                str(mcp_port),
                "--state",
                str(state),
            ],
            cwd=ROOT,
            env=environment,
        )
        processes.append(mcp)
        wait_for_port(tool_port, tool, "the CUSTOM endpoint")
        wait_for_port(mcp_port, mcp, "the MCP server")
        yield Servers(f"http://127.0.0.1:{tool_port}/echo", f"http://127.0.0.1:{mcp_port}/mcp")
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)


@dataclass
class QuiverServer:
    url: str
    admin_token: str
    log_path: Path


@contextmanager
def quiver_server(database_url: str, secret_key: str, log_path: Path) -> Iterator[QuiverServer]:
    """`quiver serve` on the benchmark's database, in its own process, as it is deployed."""
    port = free_port()
    token = "bench-" + secrets.token_hex(16)
    environment = {
        **{name: value for name, value in os.environ.items() if not name.startswith("QUIVER_")},
        "QUIVER_DATABASE_URL": database_url,
        "QUIVER_SECRET_KEY": secret_key,
        "QUIVER_ADMIN_TOKEN": token,
        "QUIVER_EGRESS_ALLOWLIST": "127.0.0.1",
        "QUIVER_TOOL_RATE_LIMIT": BENCH_RATE_LIMIT,
        "QUIVER_LOG_LEVEL": "INFO",
    }
    quiver = Path(sys.executable).parent / "quiver"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [str(quiver), "serve", "--port", str(port)], cwd=ROOT, env=environment, stdout=log, stderr=log
        )
        try:
            wait_for_port(port, process, "quiver serve")
            yield QuiverServer(f"http://127.0.0.1:{port}", token, log_path)
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)


# ------------------------------------------------------------------ measuring


@dataclass
class BackendResult:
    backend: str
    migrate_s: float
    load_average: tuple[float, float]
    samples: dict[tuple[str, str], list[float]]
    settled: dict[tuple[str, str], list[float]]
    rows_expected: int
    rows_written: int
    log_lines: int
    mcp_connects: int


def _settings(database_url: str, secret_key: str) -> Settings:
    return Settings(
        database_url=database_url,
        secret_key=secret_key,
        admin_token=None,
        egress_allowlist="127.0.0.1",
        tool_rate_limit=BENCH_RATE_LIMIT,
        log_level="INFO",
    )


def configure_json_log(path: Path) -> logging.Handler:
    """What ``quiver serve`` does (JSON lines at INFO), to a file instead of stderr."""
    handler = logging.FileHandler(path)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    return handler


class AsgiGraphQL:
    """POSTs GraphQL straight into the ASGI app, as a server hands it a parsed request: the
    app's own cost (auth middleware, FastAPI, Strawberry, the resolvers), without any HTTP
    client's (httpx's ASGITransport alone adds about 0.7 ms per request here)."""

    def __init__(self, app: Any, key: str) -> None:
        self.app = app
        self.headers = [
            (b"host", b"bench"),
            (b"authorization", f"Bearer {key}".encode()),
            (b"content-type", b"application/json"),
        ]

    async def execute(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        body = json.dumps({"query": query, "variables": variables}).encode()
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/graphql",
            "raw_path": b"/graphql",
            "query_string": b"",
            "root_path": "",
            "headers": [*self.headers, (b"content-length", str(len(body)).encode())],
            "server": ("bench", 80),
            "client": ("127.0.0.1", 50000),
        }
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # a client that stays connected
            return {"type": "http.disconnect"}

        status = 0
        chunks: list[bytes] = []

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        return graphql_data(status, b"".join(chunks))


CREATE_SPACE = """
mutation($input: CreateSpaceInput!) {
  createSpace(input: $input) { space { id } userErrors { field code message } }
}
"""
CREATE_TOOL = """
mutation($input: CreateToolInput!) {
  createTool(input: $input) { tool { id } userErrors { field code message } }
}
"""
REGISTER_MCP_SERVER = """
mutation($input: RegisterMcpServerInput!) {
  registerMcpServer(input: $input) { mcpServer { id } userErrors { field code message } }
}
"""


async def settle() -> None:
    """Let the work a call left behind run before the next call starts: until asyncio's ready
    queue is empty (no public API tells; ``loop._ready`` is what the loop runs next).

    An SDK may finish a request after handing back its result (the MCP client closes the
    response stream, for one). Without this, that work lands on whichever call runs next.
    """
    loop = asyncio.get_running_loop()
    for _ in range(SETTLE_MAX_TURNS):
        await asyncio.sleep(0)
        if not loop._ready:  # type: ignore[attr-defined]
            return


def _check_envelope(name: str, envelope: Any) -> None:
    status = getattr(envelope, "status", None) or envelope.get("status")
    if status != "SUCCESS":
        raise SystemExit(f"{name} did not succeed: {envelope}")


async def measure(
    backend: str,
    database_url: str,
    servers: Servers,
    iterations: int,
    warmup: int,
    migrate_s: float,
    log_path: Path,
    seed: int,
    quiver: QuiverServer,
    secret_key: str,
) -> BackendResult:
    handler = configure_json_log(log_path)
    app = create_app(_settings(database_url, secret_key))
    services = app.state.services
    async with services.session_factory() as session, session.begin():
        await load_builtin_catalog(session)
        _, admin_key = await spaces_service.create_api_key(
            session, role=Role.ADMIN, space_id=None, label="gateway_overhead bench"
        )
    async with services.session_factory() as session:
        principal: Principal | None = await spaces_service.authenticate(session, admin_key)
    assert principal is not None

    # The app's own MCP executor and session pool, as `quiver serve` wires them.
    pool = services.mcp_pool
    mcp_executor = services.gateway.executors["MCP"]

    samples: dict[tuple[str, str], list[float]] = {variant: [] for variant in VARIANTS}
    settled: dict[tuple[str, str], list[float]] = {variant: [] for variant in VARIANTS}
    load_before = load_average()
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench")
        )
        gql = GraphQL(client, admin_key)  # setting up, in process
        in_process = AsgiGraphQL(app, admin_key)
        # invokeTool as a client sees it: HTTP to `quiver serve`, on a keep-alive connection.
        served = GraphQL(
            await stack.enter_async_context(httpx.AsyncClient(base_url=quiver.url, trust_env=False, timeout=30)),
            quiver.admin_token,
        )
        space_id = (
            await gql.mutate(
                CREATE_SPACE, {"input": {"name": f"bench-{secrets.token_hex(3)}", "label": "Bench"}}, "createSpace"
            )
        )["space"]["id"]
        custom_id = (
            await gql.mutate(
                CREATE_TOOL,
                {
                    "input": {
                        "name": "bench_echo",
                        "label": "Bench echo",
                        "description": "Echoes its arguments back.",
                        "inputSchema": ECHO_SCHEMA,
                        "endpoint": servers.tool_url,
                        "spaceIds": [space_id],
                    }
                },
                "createTool",
            )
        )["tool"]["id"]
        server_id = (
            await gql.mutate(
                REGISTER_MCP_SERVER,
                {
                    "input": {
                        "name": f"bench_mcp_{secrets.token_hex(3)}",
                        "transport": "STREAMABLE_HTTP",
                        "url": servers.mcp_url,
                        "spaceIds": [space_id],
                    }
                },
                "registerMcpServer",
            )
        )["mcpServer"]["id"]
        # Discovery through the same pool the executor uses: it also makes its session warm.
        report = await sync_server(services.session_factory, pool, server_id)
        mcp_tool_id = f"{server_id}__echo"
        if mcp_tool_id not in report.added:
            raise SystemExit(f"{backend}: the sync did not add {mcp_tool_id}: {report.summary()}")

        async with services.session_factory() as session:
            custom_tool = await tools_repository.get_tool(session, custom_id)
            mcp_tool = await tools_repository.get_tool(session, mcp_tool_id)
            builtin_tool = await tools_repository.get_tool(session, "bt_current_time")
        assert custom_tool and mcp_tool and builtin_tool

        def invocation(tool: Any, arguments: dict[str, Any], timeout_s: float) -> Invocation:
            return Invocation(
                tool=tool,
                arguments=arguments,
                principal=principal,
                space_id=space_id,
                trace_id=secrets.token_hex(16),
                timeout_s=timeout_s,
            )

        # The direct variants' own clients: a keep-alive httpx client, a warm MCP session.
        direct_http = await stack.enter_async_context(httpx.AsyncClient(trust_env=False))
        read_stream, write_stream = await stack.enter_async_context(streamable_http_client(servers.mcp_url))
        direct_mcp = await stack.enter_async_context(ClientSession(read_stream, write_stream))
        await direct_mcp.initialize()
        await direct_mcp.list_tools()  # as the pool primes its session
        kept_alive_client = await stack.enter_async_context(
            httpx2.AsyncClient(
                transport=SessionTransport(httpx2.AsyncHTTPTransport(trust_env=False)),
                timeout=httpx2.Timeout(30.0, read=300.0),
                trust_env=False,
            )
        )
        ka_read, ka_write = await stack.enter_async_context(
            streamable_http_client(servers.mcp_url, http_client=kept_alive_client)
        )
        kept_alive_mcp = await stack.enter_async_context(ClientSession(ka_read, ka_write))
        await kept_alive_mcp.initialize()
        await kept_alive_mcp.list_tools()

        gateway = services.gateway
        http_executor = services.gateway.executors["CUSTOM"]
        builtins = services.builtins

        async def custom_direct() -> Any:
            response = await direct_http.post(servers.tool_url, json=ARGUMENTS, timeout=10.0)
            response.raise_for_status()
            return response.json()

        async def custom_executor() -> Any:
            return await http_executor.execute(invocation(custom_tool, ARGUMENTS, 10.0))

        async def mcp_direct() -> Any:
            result = await direct_mcp.call_tool("echo", ARGUMENTS, read_timeout_seconds=15.0)
            assert isinstance(result, mcp_types.CallToolResult) and not result.is_error, result
            return result

        async def mcp_kept_alive() -> Any:
            result = await kept_alive_mcp.call_tool("echo", ARGUMENTS, read_timeout_seconds=15.0)
            assert isinstance(result, mcp_types.CallToolResult) and not result.is_error, result
            return result

        async def mcp_exec() -> Any:
            return await mcp_executor.execute(invocation(mcp_tool, ARGUMENTS, 15.0))

        async def builtin_direct() -> Any:
            return await builtins.execute(invocation(builtin_tool, {}, 5.0))

        def through_gateway(tool_id: str, arguments: dict[str, Any]) -> Callable[[], Awaitable[Any]]:
            async def run() -> Any:
                result = await gateway.execute(principal, space_id, tool_id, arguments)
                _check_envelope(f"gateway {tool_id}", result)
                return result

            return run

        def through_graphql(
            tool_id: str, arguments: dict[str, Any], client: GraphQL | AsgiGraphQL
        ) -> Callable[[], Awaitable[Any]]:
            variables = {"input": {"spaceId": space_id, "toolId": tool_id, "arguments": arguments}}

            async def run() -> Any:
                data = await client.execute(INVOKE_TOOL_OPERATION, variables)
                _check_envelope(f"invokeTool {tool_id}", data["invokeTool"])
                return data

            return run

        runners: dict[tuple[str, str], Callable[[], Awaitable[Any]]] = {
            (CUSTOM, DIRECT): custom_direct,
            (CUSTOM, EXECUTOR): custom_executor,
            (CUSTOM, GATEWAY): through_gateway(custom_id, ARGUMENTS),
            (CUSTOM, INVOKE_TOOL): through_graphql(custom_id, ARGUMENTS, in_process),
            (CUSTOM, SERVED): through_graphql(custom_id, ARGUMENTS, served),
            (MCP, DIRECT): mcp_direct,
            (MCP, KEPT_ALIVE): mcp_kept_alive,
            (MCP, EXECUTOR): mcp_exec,
            (MCP, GATEWAY): through_gateway(mcp_tool_id, ARGUMENTS),
            (MCP, INVOKE_TOOL): through_graphql(mcp_tool_id, ARGUMENTS, in_process),
            (MCP, SERVED): through_graphql(mcp_tool_id, ARGUMENTS, served),
            (BUILTIN, DIRECT): builtin_direct,
            (BUILTIN, GATEWAY): through_gateway("bt_current_time", {}),
            (BUILTIN, INVOKE_TOOL): through_graphql("bt_current_time", {}, in_process),
            (BUILTIN, SERVED): through_graphql("bt_current_time", {}, served),
        }

        # Same answer from the direct call and through the platform (a sanity check).
        custom_data = await custom_direct()
        for layer in (INVOKE_TOOL, SERVED):
            envelope = (await runners[(CUSTOM, layer)]())["invokeTool"]
            if envelope["data"] != custom_data:
                raise SystemExit(f"{backend}: {layer} answered {envelope['data']!r}, direct {custom_data!r}")
            envelope = (await runners[(MCP, layer)]())["invokeTool"]
            if envelope["data"] != ARGUMENTS["message"]:
                raise SystemExit(f"{backend}: the MCP tool answered {envelope['data']!r} ({layer})")
        async with services.session_factory() as session:
            rows_before = await session.scalar(select(func.count()).select_from(ToolCall))

        for _ in range(warmup):
            for variant in VARIANTS:
                await runners[variant]()
        order = list(VARIANTS)
        shuffler = random.Random(seed)
        for _ in range(iterations):
            # Every variant once per round, in a new order each round: no variant always
            # runs first, or always right after the same neighbour (whose tail work, such
            # as an SDK task finishing a response, would land on it).
            shuffler.shuffle(order)
            for variant in order:
                started = time.perf_counter()
                await runners[variant]()
                returned = time.perf_counter()
                await settle()
                samples[variant].append((returned - started) * 1000)
                settled[variant].append((time.perf_counter() - started) * 1000)

        async with services.session_factory() as session:
            rows_after = await session.scalar(select(func.count()).select_from(ToolCall))
        mcp_connects = pool.connect_count(server_id)
    load_after = load_average()
    await services.close()
    handler.flush()
    logging.getLogger().handlers[:] = []
    handler.close()
    platform_variants = sum(1 for _, layer in VARIANTS if layer in PLATFORM_LAYERS)
    log_text = await asyncio.to_thread(log_path.read_text)
    log_text += await asyncio.to_thread(quiver.log_path.read_text)
    log_lines = sum(1 for line in log_text.splitlines() if '"message": "tool call SUCCESS"' in line)
    return BackendResult(
        backend=backend,
        migrate_s=migrate_s,
        load_average=(load_before, load_after),
        samples=samples,
        settled=settled,
        rows_expected=platform_variants * (warmup + iterations),
        rows_written=int(rows_after or 0) - int(rows_before or 0),
        log_lines=log_lines,
        mcp_connects=mcp_connects,
    )


# ------------------------------------------------------------------ databases


# ------------------------------------------------------------------ report


def print_method(args: argparse.Namespace) -> None:
    print("Quiver gateway_overhead benchmark")
    print(f"  machine:    {platform.system()} {platform.machine()}, os.cpu_count()={os.cpu_count()}")
    print(
        f"  software:   Python {platform.python_version()}, SQLAlchemy {sqlalchemy.__version__}, "
        f"strawberry-graphql {version('strawberry-graphql')}, httpx {httpx.__version__}, "
        f"mcp {version('mcp')}, uvicorn {version('uvicorn')}"
    )
    print(
        "  servers:    CUSTOM endpoint = raw ASGI JSON echo under uvicorn, its own process; "
        "MCP = tests/support/mcp_http_server.py (SDK low-level Server, streamable HTTP), "
        "its own process; both on 127.0.0.1 (QUIVER_EGRESS_ALLOWLIST=127.0.0.1)"
    )
    print(
        "  app:        create_app(Settings(...)) in this process (asyncio loop), with its own "
        "executors and MCP session pool, for the executor and gateway variants; `quiver serve` "
        "(uvicorn, its own process, same database and settings) for invokeTool; "
        f"tool_rate_limit={BENCH_RATE_LIMIT} so the quota never refuses (the limiter still runs); "
        "JSON logs at INFO to files, as `quiver serve` writes them"
    )
    print(
        f"  measured:   {args.warmup} warm-up rounds, then {args.iterations} rounds; each round "
        f"runs the {len(VARIANTS)} variants once, in a freshly shuffled order (seed {args.seed})"
    )
    print("  variants:")
    for kind, layer in VARIANTS:
        print(f"    {kind:<8} {layer:<11} {LAYER_NOTES[(kind, layer)]}")
    print("  arguments:  " + json.dumps(ARGUMENTS) + " (bt_current_time: {})")
    print("  invokeTool: " + " ".join(INVOKE_TOOL_OPERATION.split()))
    print(
        "  latency:    wall time per call with time.perf_counter, until the call returns; overhead = "
        "p50(variant) - p50(direct), ratio = p50(variant) / p50(direct). After each call the loop "
        "settles (runs until nothing is ready) before the next starts; 'settled p50' is the time "
        "until then, which also counts work an SDK does after returning"
    )
    print(
        f"  goals:      CUSTOM: overhead under {HTTP_GOAL_MS:g} ms p50 including the call-log write; "
        f"MCP: within {MCP_GOAL_RATIO:g}x of the direct warm-session call (p50). Judged for the "
        "gateway (ToolGateway.execute), for invokeTool (in process) and for served (over HTTP)"
    )
    print("  caution:    only comparable between runs on a quiet machine; load average printed")
    print()


def print_result(result: BackendResult) -> None:
    print(f"== {result.backend}")
    print(f"  migrate: {result.migrate_s:.2f} s")
    print(
        f"  1-minute load average before / after measuring: {result.load_average[0]:.2f} / {result.load_average[1]:.2f}"
    )
    print(
        f"  call log: {result.rows_written} tool_call rows written during the measured rounds "
        f"(expected {result.rows_expected}: one per gateway/invokeTool call); "
        f"{result.log_lines} 'tool call SUCCESS' JSON log lines in all; "
        f"MCP sessions made by the pool: {result.mcp_connects}"
    )
    header = (
        f"  {'tool':<8} {'variant':<11} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8}"
        f"   {'overhead p50':>12}   {'ratio p50':>9}   {'settled p50':>11}"
    )
    print(header)
    print("  " + "-" * (len(header) - 2))
    p50: dict[tuple[str, str], float] = {}
    for kind in KINDS:
        base = percentile(result.samples[(kind, DIRECT)], 0.5)
        for layer in LAYERS[kind]:
            values = result.samples[(kind, layer)]
            p50[(kind, layer)] = value = percentile(values, 0.5)
            overhead_cell = "" if layer == DIRECT else f"{value - base:+.2f} ms"
            ratio_cell = "" if layer == DIRECT else f"{value / base:.2f}x"
            print(
                f"  {kind:<8} {layer:<11} {value:>8.2f} {percentile(values, 0.95):>8.2f} "
                f"{statistics.fmean(values):>8.2f}   {overhead_cell:>12}   {ratio_cell:>9}"
                f"   {percentile(result.settled[(kind, layer)], 0.5):>11.2f}"
            )
    print("  goals:")
    for layer in PLATFORM_LAYERS:
        overhead = p50[(CUSTOM, layer)] - p50[(CUSTOM, DIRECT)]
        verdict = "met" if overhead < HTTP_GOAL_MS else "MISSED"
        print(f"    CUSTOM {layer:<11} overhead {overhead:5.2f} ms p50 (goal < {HTTP_GOAL_MS:g} ms): {verdict}")
    for layer in PLATFORM_LAYERS:
        ratio = p50[(MCP, layer)] / p50[(MCP, DIRECT)]
        verdict = "met" if ratio <= MCP_GOAL_RATIO else "MISSED"
        print(f"    MCP    {layer:<11} ratio {ratio:5.2f}x p50 (goal <= {MCP_GOAL_RATIO:g}x): {verdict}")
    settled_direct = percentile(result.settled[(MCP, DIRECT)], 0.5)
    print(
        "  for reference, until settled (p50 / p50 of direct, not the goal's measure): MCP gateway "
        f"{percentile(result.settled[(MCP, GATEWAY)], 0.5) / settled_direct:.2f}x, invokeTool "
        f"{percentile(result.settled[(MCP, INVOKE_TOOL)], 0.5) / settled_direct:.2f}x, served "
        f"{percentile(result.settled[(MCP, SERVED)], 0.5) / settled_direct:.2f}x"
    )
    kept_alive = p50[(MCP, KEPT_ALIVE)]
    print(
        "  like for like (not the goal's measure): MCP gateway / direct-ka p50 "
        f"{p50[(MCP, GATEWAY)] / kept_alive:.2f}x ({p50[(MCP, GATEWAY)] - kept_alive:+.2f} ms): the gateway's "
        "own cost against a direct call that also keeps its connection alive"
    )
    print(
        "  note: 'served' pays one more HTTP round trip (client to Quiver) than 'direct' does, on top "
        "of what invokeTool costs in process"
    )
    print(
        "  where it goes (p50 differences): "
        f"CUSTOM executor - direct {p50[(CUSTOM, EXECUTOR)] - p50[(CUSTOM, DIRECT)]:+.2f} ms, "
        f"gateway - executor {p50[(CUSTOM, GATEWAY)] - p50[(CUSTOM, EXECUTOR)]:+.2f} ms, "
        f"invokeTool - gateway {p50[(CUSTOM, INVOKE_TOOL)] - p50[(CUSTOM, GATEWAY)]:+.2f} ms, "
        f"served - invokeTool {p50[(CUSTOM, SERVED)] - p50[(CUSTOM, INVOKE_TOOL)]:+.2f} ms; "
        f"MCP direct-ka - direct {kept_alive - p50[(MCP, DIRECT)]:+.2f} ms, "
        f"executor - direct-ka {p50[(MCP, EXECUTOR)] - kept_alive:+.2f} ms, "
        f"gateway - executor {p50[(MCP, GATEWAY)] - p50[(MCP, EXECUTOR)]:+.2f} ms; "
        f"BUILTIN gateway - function {p50[(BUILTIN, GATEWAY)] - p50[(BUILTIN, DIRECT)]:+.2f} ms"
    )
    print()


# ------------------------------------------------------------------ entry point


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--backends", default="sqlite,postgresql", help="comma-separated: sqlite, postgresql (default: both)"
    )
    parser.add_argument("--iterations", type=int, default=None, help="measured rounds (default 200, quick 30)")
    parser.add_argument("--warmup", type=int, default=None, help="warm-up rounds (default 15, quick 5)")
    parser.add_argument("--quick", action="store_true", help="few rounds (smoke run)")
    parser.add_argument("--seed", type=int, default=20240601, help="seed of the per-round variant order")
    parser.add_argument(
        "--postgres-url",
        default=DEFAULT_POSTGRES_URL,
        help="server and admin database for the throwaway PostgreSQL database "
        "(default: $QUIVER_BENCH_POSTGRES_URL or %(default)s)",
    )
    args = parser.parse_args(argv)
    if args.iterations is None:
        args.iterations = 30 if args.quick else 200
    if args.warmup is None:
        args.warmup = 5 if args.quick else 15
    if args.iterations < 1 or args.warmup < 1:
        parser.error("--iterations and --warmup must be at least 1")
    backends = [name.strip() for name in args.backends.split(",") if name.strip()]
    unknown = set(backends) - {"sqlite", "postgresql"}
    if unknown or not backends:
        parser.error(f"unknown backends: {', '.join(sorted(unknown)) or '(none)'}")
    args.backend_list = backends
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print_method(args)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="quiver-bench-") as name:
        directory = Path(name)
        with loopback_servers(directory) as servers:
            for backend in args.backend_list:
                if backend == "postgresql":
                    problem = asyncio.run(postgres_problem(args.postgres_url))
                    if problem is not None:
                        print(f"== postgresql: skipped, {args.postgres_url} is unreachable ({problem})\n")
                        continue
                with throwaway_database(backend, args.postgres_url, "gateway_overhead", directory) as url:
                    migrate_started = time.perf_counter()
                    upgrade(url)
                    migrate_s = time.perf_counter() - migrate_started
                    secret_key = Fernet.generate_key().decode()
                    with quiver_server(url, secret_key, directory / f"{backend}-serve.log") as quiver:
                        result = asyncio.run(
                            measure(
                                backend,
                                url,
                                servers,
                                args.iterations,
                                args.warmup,
                                migrate_s,
                                directory / f"{backend}-log.jsonl",
                                args.seed,
                                quiver,
                                secret_key,
                            )
                        )
                print_result(result)
    print(f"total run time: {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
