"""Quiver's MCP endpoint against its GraphQL API, side by side, on `quiver serve`.

Two measurements, each a set of variants run in every round in an order shuffled afresh
per round (seeded), against the same `quiver serve` process:

- tools/call: the same tool called through `/mcp/spaces/{id}` and through `invokeTool`
  over HTTP (BUILTIN `bt_calculator`, and a CUSTOM echo tool whose endpoint runs in its
  own process);
- tools/list: every tool visible in a space of `--tools` visible tools (default 1,000), paged
  through `/mcp/spaces/{id}` and through `space.visibleTools` (100 per page both ways).

See bench/README.md for the method; `--quick` for a smoke run.
"""

from __future__ import annotations

import json
import sys

if len(sys.argv) == 3 and sys.argv[1] == "--serve-tool":
    # The CUSTOM endpoint: a raw ASGI app echoing the JSON body, in its own process.
    import uvicorn

    async def _echo(scope: dict[str, object], receive: object, send: object) -> None:
        if scope["type"] != "http":
            return
        body = b""
        more = True
        while more:
            message = await receive()  # type: ignore[operator]
            body += message.get("body", b"")
            more = message.get("more_body", False)
        payload = json.dumps({"ok": True, "echo": json.loads(body) if body else None}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})  # type: ignore[operator]
        await send({"type": "http.response.body", "body": payload})  # type: ignore[operator]

    uvicorn.run(_echo, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning", access_log=False, lifespan="off")
    sys.exit(0)

import argparse
import asyncio
import os
import platform
import random
import secrets
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve()

import httpx  # noqa: E402
import httpx2  # noqa: E402
from cryptography.fernet import Fernet  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from sqlalchemy import func, insert, select  # noqa: E402

from app.catalog.loader import load_builtin_catalog  # noqa: E402
from app.db import create_engine, create_session_factory, utcnow  # noqa: E402
from app.gateway.models import ToolCall  # noqa: E402
from app.migrate import upgrade  # noqa: E402
from app.principal import SYSTEM_PRINCIPAL  # noqa: E402
from app.spaces import service as spaces_service  # noqa: E402
from app.tools import repository as tools_repository  # noqa: E402
from app.tools.models import ToolDefinition, ToolSpaceBinding  # noqa: E402
from bench.common import (  # noqa: E402
    DEFAULT_POSTGRES_URL,
    free_port,
    load_average,
    percentile,
    postgres_problem,
    throwaway_database,
    version,
)

ROOT = SCRIPT.parents[1]

BENCH_RATE_LIMIT = "1000000/minute"
READY_TIMEOUT_S = 60.0
PAGE_SIZE = 100
PROTOCOL = "2026-07-28"
ECHO_NAME = "bench_echo"

INVOKE = "invokeTool"
MCP_RAW = "mcp-raw"
MCP_SDK = "mcp-sdk"
MCP_SESSION = "mcp-sdk-session"
GRAPHQL_LIST = "visibleTools"
MCP_RAW_CHANGED = "mcp-raw-after-change"
CALL_VARIANTS = (INVOKE, MCP_RAW, MCP_SDK, MCP_SESSION)
LIST_VARIANTS = (GRAPHQL_LIST, MCP_RAW, MCP_SDK, MCP_RAW_CHANGED)
NOTES = {
    ("call", INVOKE): "invokeTool mutation over HTTP (keep-alive httpx client): the baseline",
    ("call", MCP_RAW): "tools/call as one 2026-07-28 JSON-RPC POST on the same keep-alive httpx client",
    ("call", MCP_SDK): "mcp.Client.call_tool, 2026-07-28 (the SDK's own client; it opens a connection per request)",
    ("call", MCP_SESSION): "mcp.Client.call_tool on a handshake-era session (initialize, Mcp-Session-Id)",
    ("list", GRAPHQL_LIST): "space.visibleTools(first: 100) pages until the end: name label description inputSchema",
    ("list", MCP_RAW): "tools/list pages (raw JSON-RPC, keep-alive httpx) until nextCursor is null",
    ("list", MCP_SDK): "mcp.Client.list_tools pages until next_cursor is None",
    ("list", MCP_RAW_CHANGED): "as mcp-raw, right after a catalog commit (untimed): the listing is rebuilt",
}
CALLS = {
    "BUILTIN": ("bt_calculator", "calculator", {"expression": "6 * 7"}),
    "CUSTOM": ("", ECHO_NAME, {"message": "hello from the MCP benchmark"}),
}
INVOKE_OPERATION = """
mutation Bench($input: InvokeToolInput!) { invokeTool(input: $input) { status data error { code message } } }
"""
LIST_OPERATION = """
query Bench($id: ID!, $after: String) {
  space(id: $id) {
    visibleTools(first: 100, after: $after) {
      pageInfo { hasNextPage endCursor }
      edges { node { id name label description inputSchema } }
    }
  }
}
"""
TOUCH_OPERATION = """
mutation Touch($input: UpdateToolInput!) { updateTool(input: $input) { userErrors { code } } }
"""


# ------------------------------------------------------------------ processes


def _wait_for_port(port: int, process: subprocess.Popen[bytes], name: str) -> None:
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


@contextmanager
def _process(arguments: list[str], environment: dict[str, str], port: int, name: str, log: Path) -> Iterator[None]:
    with log.open("wb") as output:
        process = subprocess.Popen(arguments, cwd=ROOT, env=environment, stdout=output, stderr=output)
        try:
            _wait_for_port(port, process, name)
            yield
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)


# ------------------------------------------------------------------ data


@dataclass
class Seeded:
    space_id: str
    other_tool_id: str
    echo_tool_id: str
    visible: int


async def seed(database_url: str, visible: int, echo_url: str) -> Seeded:
    """One space seeing exactly ``visible`` tools (the global builtins, the echo tool, fillers),
    and as many fillers bound to another space (the visibility rule filters them out)."""
    engine = create_engine(database_url)
    try:
        session_factory = create_session_factory(engine)
        async with session_factory() as session, session.begin():
            await load_builtin_catalog(session)
            space = await spaces_service.create_space(session, SYSTEM_PRINCIPAL, "mcpbench", "MCP bench")
            other = await spaces_service.create_space(session, SYSTEM_PRINCIPAL, "elsewhere", "Elsewhere")
        async with session_factory() as session:
            builtins = await tools_repository.count_tools(session, space.id)
        fillers = visible - builtins - 1
        if fillers < 0:
            raise SystemExit(f"--tools must be at least {builtins + 1} (the global builtins and the echo tool)")
        now = utcnow()

        def row(tool_id: str, name: str, endpoint: str) -> dict[str, Any]:
            return {
                "tool_id": tool_id,
                "name": name,
                "label": name.replace("_", " ").title(),
                "description": f"Benchmark tool {name}: looks something up by id and returns it as JSON. "
                "Use it when the user names a record; not for free-text search.",
                "input_schema": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": "The record id."},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                        "message": {"type": "string"},
                    },
                },
                "output_schema": None,
                "static_arguments": {},
                "type": "CUSTOM",
                "endpoint": endpoint,
                "auth_type": "NONE",
                "status": "ACTIVE",
                "side_effect": "READ",
                "timeout_ms": 10_000,
                "max_retries": 1,
                "tags": [],
                "allowed_roles": [],
                "version": "1.0.0",
                "created_at": now,
                "updated_at": now,
            }

        echo_id = "ct_bench_echo"
        rows = [row(echo_id, ECHO_NAME, echo_url)]
        rows += [row(f"ct_bench_{index:05d}", f"bench_tool_{index:05d}", echo_url) for index in range(fillers)]
        hidden = [row(f"ct_other_{index:05d}", f"other_tool_{index:05d}", echo_url) for index in range(fillers)]
        bindings = [{"tool_id": item["tool_id"], "space_id": space.id, "created_at": now} for item in rows]
        bindings += [{"tool_id": item["tool_id"], "space_id": other.id, "created_at": now} for item in hidden]
        async with engine.begin() as connection:
            for start in range(0, len(rows + hidden), 1000):
                await connection.execute(insert(ToolDefinition), (rows + hidden)[start : start + 1000])
            for start in range(0, len(bindings), 1000):
                await connection.execute(insert(ToolSpaceBinding), bindings[start : start + 1000])
        async with session_factory() as session:
            counted = await tools_repository.count_tools(session, space.id)
        if counted != visible:
            raise SystemExit(f"seeding went wrong: {counted} visible tools, not {visible}")
        return Seeded(space.id, hidden[0]["tool_id"] if hidden else echo_id, echo_id, visible)
    finally:
        await engine.dispose()


async def rows_by_origin(database_url: str) -> dict[str, int]:
    engine = create_engine(database_url)
    try:
        async with create_session_factory(engine)() as session:
            result = await session.execute(select(ToolCall.origin, func.count()).group_by(ToolCall.origin))
            return {origin: count for origin, count in result.all()}
    finally:
        await engine.dispose()


# ------------------------------------------------------------------ clients


@dataclass
class Clients:
    base: str
    token: str
    space_id: str
    http: httpx.AsyncClient
    modern: Client
    session: Client
    request_id: int = 0

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp/spaces/{self.space_id}"

    async def graphql(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        response = await self.http.post(f"{self.base}/graphql", json={"query": query, "variables": variables})
        body: dict[str, Any] = response.json()
        if response.status_code != 200 or body.get("errors"):
            raise SystemExit(f"GraphQL failed: {response.status_code} {response.text[:500]}")
        return body["data"]  # type: ignore[no-any-return]

    async def rpc(self, method: str, params: dict[str, Any], name: str | None = None) -> dict[str, Any]:
        self.request_id += 1
        meta = {"io.modelcontextprotocol/protocolVersion": PROTOCOL, "io.modelcontextprotocol/clientCapabilities": {}}
        headers = {
            "MCP-Protocol-Version": PROTOCOL,
            "Mcp-Method": method,
            "Accept": "application/json, text/event-stream",
        }
        if name is not None:
            headers["Mcp-Name"] = name
        body = {"jsonrpc": "2.0", "id": self.request_id, "method": method, "params": {**params, "_meta": meta}}
        response = await self.http.post(self.mcp_url, json=body, headers=headers)
        answer: dict[str, Any] = response.json()
        if response.status_code != 200 or "result" not in answer:
            raise SystemExit(f"{method} failed: {response.status_code} {response.text[:500]}")
        return answer["result"]  # type: ignore[no-any-return]


@asynccontextmanager
async def clients(base: str, token: str, space_id: str) -> AsyncIterator[Clients]:
    headers = {"Authorization": f"Bearer {token}"}
    url = f"{base}/mcp/spaces/{space_id}"
    async with AsyncExitStack() as stack:
        http = await stack.enter_async_context(httpx.AsyncClient(headers=headers, timeout=60, trust_env=False))
        modern_http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=60))
        session_http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=60))
        modern = await stack.enter_async_context(Client(streamable_http_client(url, http_client=modern_http)))
        session = await stack.enter_async_context(
            Client(streamable_http_client(url, http_client=session_http), mode="legacy")
        )
        if modern.protocol_version != PROTOCOL:
            raise SystemExit(f"the SDK client negotiated {modern.protocol_version}, not {PROTOCOL}")
        for client in (modern, session):
            # A full listing first, as clients do: the SDK checks structured results against it.
            cursor: str | None = None
            while True:
                page = await client.list_tools(cursor=cursor)
                cursor = page.next_cursor
                if cursor is None:
                    break
        yield Clients(base, token, space_id, http, modern, session)


# ------------------------------------------------------------------ variants


def call_variant(
    c: Clients, variant: str, tool_id: str, name: str, arguments: dict[str, Any]
) -> Callable[[], Awaitable[Any]]:
    async def invoke() -> Any:
        data = await c.graphql(
            INVOKE_OPERATION, {"input": {"spaceId": c.space_id, "toolId": tool_id, "arguments": arguments}}
        )
        envelope = data["invokeTool"]
        if envelope["status"] != "SUCCESS":
            raise SystemExit(f"invokeTool failed: {envelope}")
        return envelope["data"]

    async def raw() -> Any:
        result = await c.rpc("tools/call", {"name": name, "arguments": arguments}, name)
        if result.get("isError"):
            raise SystemExit(f"tools/call failed: {result}")
        return result["structuredContent"]

    def sdk(client: Client) -> Callable[[], Awaitable[Any]]:
        async def call() -> Any:
            result = await client.call_tool(name, arguments)
            if result.is_error:
                raise SystemExit(f"tools/call failed: {result}")
            return result.structured_content

        return call

    return {INVOKE: invoke, MCP_RAW: raw, MCP_SDK: sdk(c.modern), MCP_SESSION: sdk(c.session)}[variant]


def list_variant(
    c: Clients, variant: str, seeded: Seeded
) -> tuple[Callable[[], Awaitable[list[str]]], Callable[[], Awaitable[None]] | None]:
    async def graphql() -> list[str]:
        names: list[str] = []
        after: str | None = None
        while True:
            page = (await c.graphql(LIST_OPERATION, {"id": c.space_id, "after": after}))["space"]["visibleTools"]
            names += [edge["node"]["name"] for edge in page["edges"]]
            if not page["pageInfo"]["hasNextPage"]:
                return names
            after = page["pageInfo"]["endCursor"]

    async def raw() -> list[str]:
        names: list[str] = []
        cursor: str | None = None
        while True:
            result = await c.rpc("tools/list", {"cursor": cursor} if cursor else {})
            names += [tool["name"] for tool in result["tools"]]
            cursor = result.get("nextCursor")
            if cursor is None:
                return names

    async def sdk() -> list[str]:
        names: list[str] = []
        cursor: str | None = None
        while True:
            page = await c.modern.list_tools(cursor=cursor, cache_mode="refresh")
            names += [tool.name for tool in page.tools]
            cursor = page.next_cursor
            if cursor is None:
                return names

    touches = 0

    async def touch() -> None:
        # A commit to a watched table (another space's tool): this space's listing is rebuilt, not changed.
        nonlocal touches
        touches += 1
        data = await c.graphql(
            TOUCH_OPERATION, {"input": {"id": seeded.other_tool_id, "description": f"Touched {touches} times."}}
        )
        if data["updateTool"]["userErrors"]:
            raise SystemExit(f"updateTool failed: {data}")

    return {GRAPHQL_LIST: (graphql, None), MCP_RAW: (raw, None), MCP_SDK: (sdk, None), MCP_RAW_CHANGED: (raw, touch)}[
        variant
    ]


# ------------------------------------------------------------------ measuring


@dataclass
class BackendResult:
    backend: str
    load_average: tuple[float, float] = (0.0, 0.0)
    calls: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    lists: dict[str, list[float]] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    expected_rows: dict[str, int] = field(default_factory=dict)
    visible: int = 0


async def measure(c: Clients, seeded: Seeded, args: argparse.Namespace, result: BackendResult) -> None:
    rng = random.Random(args.seed)
    calls = {
        (kind, variant): call_variant(c, variant, tool_id or seeded.echo_tool_id, name, arguments)
        for kind, (tool_id, name, arguments) in CALLS.items()
        for variant in CALL_VARIANTS
    }
    # Every variant must answer the same before anything is timed.
    for kind in CALLS:
        answers = {variant: await calls[(kind, variant)]() for variant in CALL_VARIANTS}
        if len({json.dumps(answer, sort_keys=True) for answer in answers.values()}) != 1:
            raise SystemExit(f"{kind}: the variants disagree: {answers}")
    made = {INVOKE: 2, "MCP": 2 * (len(CALL_VARIANTS) - 1)}
    result.calls = {key: [] for key in calls}
    keys = list(calls)
    for round_number in range(args.warmup + args.iterations):
        rng.shuffle(keys)
        for key in keys:
            started = time.perf_counter()
            await calls[key]()
            elapsed = (time.perf_counter() - started) * 1000
            made[INVOKE if key[1] == INVOKE else "MCP"] += 1
            if round_number >= args.warmup:
                result.calls[key].append(elapsed)
    result.expected_rows = {"GRAPHQL": made[INVOKE], "MCP": made["MCP"]}

    lists = {variant: list_variant(c, variant, seeded) for variant in LIST_VARIANTS}
    expected = sorted(await lists[GRAPHQL_LIST][0]())
    for variant, (run, _) in lists.items():
        names = sorted(await run())
        if names != expected or len(names) != seeded.visible:
            raise SystemExit(f"{variant}: listed {len(names)} tools, not the {seeded.visible} visibleTools gives")
    result.lists = {variant: [] for variant in lists}
    order = list(lists)
    for round_number in range(args.list_warmup + args.list_iterations):
        rng.shuffle(order)
        for variant in order:
            run, prepare = lists[variant]
            if prepare is not None:
                await prepare()
            started = time.perf_counter()
            await run()
            elapsed = (time.perf_counter() - started) * 1000
            if round_number >= args.list_warmup:
                result.lists[variant].append(elapsed)


async def _run_backend(database_url: str, args: argparse.Namespace, directory: Path, backend: str) -> BackendResult:
    result = BackendResult(backend)
    echo_port, quiver_port = free_port(), free_port()
    echo_url = f"http://127.0.0.1:{echo_port}/echo"
    seeded = await seed(database_url, args.tools, echo_url)
    result.visible = seeded.visible
    token = "bench-" + secrets.token_hex(16)
    environment = {
        **{name: value for name, value in os.environ.items() if not name.startswith("QUIVER_")},
        "PYTHONPATH": str(ROOT),
        "QUIVER_DATABASE_URL": database_url,
        "QUIVER_SECRET_KEY": Fernet.generate_key().decode(),
        "QUIVER_ADMIN_TOKEN": token,
        "QUIVER_EGRESS_ALLOWLIST": "127.0.0.1",
        "QUIVER_TOOL_RATE_LIMIT": BENCH_RATE_LIMIT,
        "QUIVER_MCP_PAGE_SIZE": str(PAGE_SIZE),
        "QUIVER_LOG_LEVEL": "WARNING",
    }
    quiver = str(Path(sys.executable).parent / "quiver")
    with (
        _process(
            [sys.executable, str(SCRIPT), "--serve-tool", str(echo_port)],
            environment,
            echo_port,
            "the echo endpoint",
            directory / f"{backend}-echo.log",
        ),
        _process(
            [quiver, "serve", "--port", str(quiver_port)],
            environment,
            quiver_port,
            "quiver serve",
            directory / f"{backend}-quiver.log",
        ),
    ):
        before = load_average()
        async with clients(f"http://127.0.0.1:{quiver_port}", token, seeded.space_id) as c:
            await measure(c, seeded, args, result)
        result.load_average = (before, load_average())
    result.rows = await rows_by_origin(database_url)
    return result


# ------------------------------------------------------------------ output


def _ms(values: Sequence[float], fraction: float) -> float:
    return percentile(values, fraction) if values else float("nan")


def print_method(args: argparse.Namespace) -> None:
    print("# bench/mcp_endpoint.py — Quiver's MCP endpoint vs its GraphQL API, side by side")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}")
    print(
        f"python {platform.python_version()}, mcp {version('mcp')}, strawberry-graphql {version('strawberry-graphql')}"
    )
    print(
        f"data: one space seeing {args.tools} tools (global builtins, the echo tool, fillers), as many fillers bound "
        "to another space; `quiver serve` in its own process on that database, the echo endpoint in another"
    )
    print(
        f"calls: {args.iterations} rounds after {args.warmup} warm-up; lists: {args.list_iterations} rounds after "
        f"{args.list_warmup}; every variant once per round, order shuffled per round (seed {args.seed})"
    )
    print("variants:")
    for (phase, variant), note in NOTES.items():
        print(f"  {phase:<4} {variant:<22} {note}")
    print("latency: time.perf_counter around one call / one full listing (all pages), ms")


def print_result(result: BackendResult) -> None:
    print(f"\n## {result.backend}")
    print(f"load average (1 min): {result.load_average[0]:.2f} before, {result.load_average[1]:.2f} after")
    for kind in CALLS:
        base = result.calls[(kind, INVOKE)]
        print(f"\ntools/call, {kind} ({CALLS[kind][1]}):")
        print(f"  {'variant':<22} {'p50':>8} {'p95':>8} {'mean':>8}  {'p50 / invokeTool':>16} {'p95 / invokeTool':>16}")
        for variant in CALL_VARIANTS:
            samples = result.calls[(kind, variant)]
            print(
                f"  {variant:<22} {_ms(samples, 0.5):8.2f} {_ms(samples, 0.95):8.2f} {statistics.fmean(samples):8.2f}"
                f"  {_ms(samples, 0.5) / _ms(base, 0.5):16.2f} {_ms(samples, 0.95) / _ms(base, 0.95):16.2f}"
            )
    base = result.lists[GRAPHQL_LIST]
    pages = -(-result.visible // PAGE_SIZE)
    print(f"\ntools/list, {result.visible} visible tools ({pages} pages of {PAGE_SIZE}):")
    print(f"  {'variant':<22} {'p50':>8} {'p95':>8} {'mean':>8}  {'p50 / visibleTools':>18} {'p95 / visibleTools':>18}")
    for variant in LIST_VARIANTS:
        samples = result.lists[variant]
        print(
            f"  {variant:<22} {_ms(samples, 0.5):8.2f} {_ms(samples, 0.95):8.2f} {statistics.fmean(samples):8.2f}"
            f"  {_ms(samples, 0.5) / _ms(base, 0.5):18.2f} {_ms(samples, 0.95) / _ms(base, 0.95):18.2f}"
        )
    print(
        f"\ncheck: tool_call rows by origin {result.rows} — expected GRAPHQL {result.expected_rows['GRAPHQL']}, "
        f"MCP {result.expected_rows['MCP']} (one row per call, warm-up included)"
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--tools", type=int, default=1000, help="tools visible in the measured space")
    parser.add_argument("--iterations", type=int, default=None)
    parser.add_argument("--warmup", type=int, default=None)
    parser.add_argument("--list-iterations", type=int, default=None)
    parser.add_argument("--list-warmup", type=int, default=None)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL)
    args = parser.parse_args(argv)
    defaults = (20, 3, 5, 1) if args.quick else (200, 15, 40, 3)
    for name, default in zip(("iterations", "warmup", "list_iterations", "list_warmup"), defaults, strict=True):
        if getattr(args, name) is None:
            setattr(args, name, default)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    backends = [name.strip() for name in args.backends.split(",") if name.strip()]
    print_method(args)
    with tempfile.TemporaryDirectory(prefix="quiver-mcp-bench-") as temporary:
        directory = Path(temporary)
        for backend in backends:
            if backend == "postgresql":
                problem = asyncio.run(postgres_problem(args.postgres_url))
                if problem is not None:
                    print(f"\n## postgresql skipped: {problem}")
                    continue
            with throwaway_database(backend, args.postgres_url, "mcp-bench", directory) as database_url:
                upgrade(database_url)  # Alembic runs its own event loop
                result = asyncio.run(_run_backend(database_url, args, directory, backend))
            print_result(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
