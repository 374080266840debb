"""Throughput: many concurrent clients calling a CUSTOM tool through ``invokeTool`` over HTTP,
side by side with the same clients calling the tool's endpoint directly.

Per backend (SQLite file, PostgreSQL database) and worker count (``quiver serve --workers N``)
one ``quiver serve`` runs in its own processes, with one CUSTOM tool pointing at a loopback
echo endpoint (a raw ASGI app under uvicorn, its own process). In every round each variant
gets one burst of ``--clients`` concurrent clients, each on its own keep-alive connection,
calling back to back for ``--burst-s`` seconds; the order of the variants is shuffled afresh
each round and the loop settles between bursts. Printed: calls/s, p50/p95/p99 latency, the
ratios against the direct call, the load average, and the check that every answered call
has exactly one ``tool_call`` row (by trace id). Run from the repository root::

    .venv/bin/python -m bench.throughput                       # SQLite and PostgreSQL, 1 and 2 workers
    .venv/bin/python -m bench.throughput --quick               # smoke run
    .venv/bin/python -m bench.throughput --backends sqlite --workers 1,2,3

See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import (
    DEFAULT_POSTGRES_URL,
    free_port,
    load_average,
    percentile,
    postgres_problem,
    throwaway_database,
    version,
)
from bench.gateway_overhead import BENCH_RATE_LIMIT, ECHO_SCHEMA, SETTLE_MAX_TURNS, settle, wait_for_port

ROOT = Path(__file__).resolve().parent.parent
DIRECT = "direct"
QUIVER_READY_TIMEOUT_S = 240.0
CALL_TIMEOUT_S = 30.0
#: Why calls failed (the exception, its message cut), over the whole run: printed after the figures.
FAILURE_REASONS: dict[str, int] = {}
#: Pause after each burst so the servers finish what it left (group commits, log lines).
SETTLE_PAUSE_S = 0.3
GOAL_CALLS_PER_S = 1000.0
GOAL_P99_MS = 100.0

INVOKE_TOOL_OPERATION = (
    "mutation Bench($input: InvokeToolInput!) { invokeTool(input: $input) { status data error { code } traceId } }"
)
ARGUMENTS = {"message": "hello from the throughput benchmark"}


# ------------------------------------------------------------------ a lean HTTP/1.1 client


class Connection:
    """One keep-alive HTTP/1.1 connection, POSTing JSON. Leaner than httpx (the load generator
    shares the machine with the servers), and the same for every variant."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes, headers: bytes = b"") -> tuple[int, bytes]:
        if self.reader is not None and self.reader.at_eof():
            self.close()  # the server closed it while idle (uvicorn's keep-alive time-out between bursts)
        if self.writer is None or self.writer.is_closing():
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        self.writer.write(
            b"POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s"
            % (path.encode(), self.host.encode(), self.port, len(body), headers, body)
        )
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("the server closed the connection")
        status = int(status_line.split(b" ", 2)[1])
        length: int | None = None
        chunked = close = False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
            elif name == b"connection" and b"close" in value.lower():
                close = True
        if chunked:
            parts = []
            while True:
                size = int((await self.reader.readline()).split(b";")[0], 16)
                parts.append(await self.reader.readexactly(size + 2))
                if size == 0:
                    break
            payload = b"".join(part[:-2] for part in parts)
        else:
            payload = await self.reader.readexactly(length or 0)
        if close:
            self.close()
        return status, payload

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
            self.reader = None


def tree_cpu_s(root: int) -> float:
    """CPU time (user + system, seconds) of a process and all its descendants, from /proc."""
    processes: dict[int, tuple[int, int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                text = handle.read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        processes[int(entry)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in processes.items():
        children.setdefault(parent, []).append(pid)
    ticks, pending = 0, [root]
    while pending:
        pid = pending.pop()
        ticks += processes.get(pid, (0, 0))[1]
        pending.extend(children.get(pid, ()))
    return ticks / os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------ servers


@dataclass
class Endpoint:
    port: int
    pid: int


@contextmanager
def echo_endpoint() -> Iterator[Endpoint]:
    """The CUSTOM tool's endpoint (bench.gateway_overhead's raw ASGI echo), its own process."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.gateway_overhead", "--serve-tool", str(port)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        wait_for_port(port, process, "the echo endpoint")
        yield Endpoint(port, process.pid)
    finally:
        process.kill()
        process.wait(timeout=10)


@dataclass
class Quiver:
    name: str
    backend: str
    workers: int
    port: int
    token: str
    database_url: str
    log_path: Path
    process: subprocess.Popen[bytes]
    space_id: str = ""
    tool_id: str = ""
    headers: bytes = b""


def _healthy_workers(port: int) -> int | None:
    """The worker that answered /healthz, or None."""
    connection = None
    try:
        import http.client

        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        if response.status != 200:
            return None
        worker: int = json.loads(response.read())["worker"]
        return worker
    except (OSError, ValueError, KeyError):
        return None
    finally:
        if connection is not None:
            connection.close()


def start_quiver(
    backend: str, workers: int, database_url: str, secret_key: str, log_path: Path, tree: Path | None = None
) -> Quiver:
    """`quiver serve --workers N`; with ``tree``, the code of that source tree (``--also-tree``)."""
    port = free_port()
    token = "bench-" + secrets.token_hex(16)
    environment = {
        **{name: value for name, value in os.environ.items() if not name.startswith("QUIVER_")},
        "QUIVER_DATABASE_URL": database_url,
        "QUIVER_SECRET_KEY": secret_key,
        "QUIVER_ADMIN_TOKEN": token,
        "QUIVER_EGRESS_ALLOWLIST": "127.0.0.1",
        "QUIVER_TOOL_RATE_LIMIT": BENCH_RATE_LIMIT,
        # Enough concurrent calls per space and tool for every client (the default cap is 32 per process).
        "QUIVER_TOOL_MAX_CONCURRENCY": "1000",
        "QUIVER_LOG_LEVEL": "INFO",
    }
    if tree is not None:
        # Ahead of the editable install: `app` and `schema` are imported from that tree.
        environment["PYTHONPATH"] = str(tree)
    quiver = Path(sys.executable).parent / "quiver"
    log = log_path.open("wb")
    process = subprocess.Popen(
        [str(quiver), "serve", "--port", str(port), "--workers", str(workers)],
        cwd=ROOT,
        env=environment,
        stdout=log,
        stderr=log,
    )
    name = f"{backend} w{workers}" + (f" {tree.name}" if tree is not None else "")
    return Quiver(name, backend, workers, port, token, database_url, log_path, process)


def wait_ready(server: Quiver) -> None:
    """Until every worker has answered /healthz."""
    deadline = time.monotonic() + QUIVER_READY_TIMEOUT_S
    seen: set[int] = set()
    while len(seen) < server.workers:
        if server.process.poll() is not None:
            raise SystemExit(f"{server.name} exited:\n{server.log_path.read_text(errors='replace')[-3000:]}")
        if time.monotonic() > deadline:
            raise SystemExit(f"{server.name}: not {server.workers} workers within {QUIVER_READY_TIMEOUT_S}s")
        worker = _healthy_workers(server.port)
        if worker is None:
            time.sleep(0.2)
        else:
            seen.add(worker)


def stop_quiver(server: Quiver) -> None:
    if server.process.poll() is None:
        server.process.terminate()
        try:
            server.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(timeout=10)


async def graphql(server: Quiver, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    connection = Connection("127.0.0.1", server.port)
    try:
        status, body = await connection.post(
            "/graphql",
            json.dumps({"query": query, "variables": variables}).encode(),
            b"Authorization: Bearer %s\r\n" % server.token.encode(),
        )
    finally:
        connection.close()
    answer = json.loads(body)
    if status != 200 or answer.get("errors"):
        raise SystemExit(f"{server.name}: GraphQL failed: {status} {body[:400]!r}")
    data: dict[str, Any] = answer["data"]
    return data


async def set_up(server: Quiver, echo_port: int) -> None:
    space = await graphql(
        server,
        "mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } userErrors { code } } }",
        {"input": {"name": f"bench-{secrets.token_hex(3)}", "label": "Bench"}},
    )
    server.space_id = space["createSpace"]["space"]["id"]
    tool = await graphql(
        server,
        "mutation($input: CreateToolInput!) { createTool(input: $input) { tool { id } userErrors { code message } } }",
        {
            "input": {
                "name": "bench_echo",
                "label": "Bench echo",
                "description": "Echoes its arguments back.",
                "inputSchema": ECHO_SCHEMA,
                "endpoint": f"http://127.0.0.1:{echo_port}/echo",
                "spaceIds": [server.space_id],
            }
        },
    )
    if tool["createTool"]["userErrors"]:
        raise SystemExit(f"{server.name}: createTool: {tool['createTool']['userErrors']}")
    server.tool_id = tool["createTool"]["tool"]["id"]
    server.headers = b"Authorization: Bearer %s\r\n" % server.token.encode()


# ------------------------------------------------------------------ measuring


@dataclass
class Burst:
    calls: int
    seconds: float
    latencies_ms: list[float]
    failures: int
    server_cpu_s: float = 0.0


@dataclass
class Totals:
    bursts: list[Burst] = field(default_factory=list)
    trace_ids: list[str] = field(default_factory=list)

    @property
    def latencies(self) -> list[float]:
        return [latency for burst in self.bursts for latency in burst.latencies_ms]

    @property
    def calls_per_s(self) -> list[float]:
        return [burst.calls / burst.seconds for burst in self.bursts]


async def burst(
    clients: int, seconds: float, call: Any, connections: list[Connection], trace_ids: list[str] | None
) -> Burst:
    latencies: list[float] = []
    failures = 0
    deadline = time.perf_counter() + seconds

    async def client(connection: Connection) -> None:
        nonlocal failures
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            try:
                trace_id = await asyncio.wait_for(call(connection), CALL_TIMEOUT_S)
            except Exception as error:
                failures += 1
                reason = f"{type(error).__name__}: {str(error)[:200]}"
                FAILURE_REASONS[reason] = FAILURE_REASONS.get(reason, 0) + 1
                connection.close()
                continue
            latencies.append((time.perf_counter() - started) * 1000)
            if trace_ids is not None:
                trace_ids.append(trace_id)

    started = time.perf_counter()
    await asyncio.gather(*(client(connections[index]) for index in range(clients)))
    elapsed = time.perf_counter() - started
    return Burst(len(latencies), elapsed, latencies, failures)


def direct_call(echo_port: Endpoint) -> Any:
    body = json.dumps(ARGUMENTS).encode()

    async def call(connection: Connection) -> str:
        status, payload = await connection.post("/echo", body)
        answer = json.loads(payload)
        if status != 200 or answer.get("echo") != ARGUMENTS:
            raise RuntimeError(f"direct: {status} {payload[:200]!r}")
        return ""

    return call


def invoke_call(server: Quiver) -> Any:
    body = json.dumps(
        {
            "query": INVOKE_TOOL_OPERATION,
            "variables": {"input": {"spaceId": server.space_id, "toolId": server.tool_id, "arguments": ARGUMENTS}},
        }
    ).encode()

    async def call(connection: Connection) -> str:
        status, payload = await connection.post("/graphql", body, server.headers)
        answer = json.loads(payload)
        envelope = (answer.get("data") or {}).get("invokeTool") or {}
        if status != 200 or envelope.get("status") != "SUCCESS" or envelope["data"].get("echo") != ARGUMENTS:
            raise RuntimeError(f"{server.name}: {status} {payload[:300]!r}")
        trace_id: str = envelope["traceId"]
        return trace_id

    return call


async def logged_trace_ids(server: Quiver) -> list[str]:
    """Every tool_call row's trace id for the benchmark tool, read straight from the database."""
    from sqlalchemy import select

    from app.db import create_engine
    from app.gateway.models import ToolCall

    engine = create_engine(server.database_url)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(select(ToolCall.trace_id).where(ToolCall.tool_id == server.tool_id))
            return [row[0] for row in rows]
    finally:
        await engine.dispose()


async def settled() -> None:
    """bench.gateway_overhead's settle on asyncio's loop; uvloop keeps its ready queue out of
    sight, so there the loop is given a fixed number of turns."""
    if hasattr(asyncio.get_running_loop(), "_ready"):
        await settle()
        return
    for _ in range(SETTLE_MAX_TURNS):
        await asyncio.sleep(0)


async def measure(args: argparse.Namespace, echo_port: Endpoint, servers: list[Quiver]) -> dict[str, Totals]:
    variants: dict[str, Any] = {DIRECT: direct_call(echo_port)}
    ports = {DIRECT: echo_port.port}
    roots = {DIRECT: echo_port.pid}
    for server in servers:
        await set_up(server, echo_port.port)
        variants[server.name] = invoke_call(server)
        ports[server.name] = server.port
        roots[server.name] = server.process.pid
    # Each variant's own connections, opened once and kept alive (as each client would).
    pools = {name: [Connection("127.0.0.1", ports[name]) for _ in range(args.clients)] for name in variants}
    totals = {name: Totals() for name in variants}
    randomness = random.Random(args.seed)
    names = list(variants)
    for round_index in range(args.warmup + args.rounds):
        measured = round_index >= args.warmup
        randomness.shuffle(names)
        for name in names:
            collected: list[str] = []
            cpu_before = tree_cpu_s(roots[name])
            result = await burst(args.clients, args.burst_s, variants[name], pools[name], collected)
            # The server's CPU per call, less sensitive to a busy machine than calls/s.
            result.server_cpu_s = tree_cpu_s(roots[name]) - cpu_before
            if measured:
                totals[name].bursts.append(result)
            totals[name].trace_ids.extend(collected)  # warm-up calls are logged too
            await settled()
            await asyncio.sleep(SETTLE_PAUSE_S)
        label = "warm-up" if not measured else "round"
        print(f"  {label} {round_index + 1}/{args.warmup + args.rounds} done, load {load_average():.2f}", flush=True)
    for pool in pools.values():
        for connection in pool:
            connection.close()
    return totals


def report(args: argparse.Namespace, totals: dict[str, Totals], servers: list[Quiver], checks: dict[str, str]) -> None:
    direct = totals[DIRECT]
    direct_rate = sum(burst.calls for burst in direct.bursts) / sum(burst.seconds for burst in direct.bursts)
    direct_p50 = percentile(direct.latencies, 0.5)
    header = (
        f"  {'variant':<18}{'calls/s':>9}{'(bursts min-max)':>18}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}"
        f"{'rate ratio':>11}{'p50 ratio':>10}{'cpu ms/call':>12}{'failed':>8}  logged exactly once"
    )
    print(header)
    print("  " + "-" * (len(header) - 2))
    for name, total in totals.items():
        calls = sum(burst.calls for burst in total.bursts)
        seconds = sum(burst.seconds for burst in total.bursts)
        rate = calls / seconds
        rates = total.calls_per_s
        latencies = total.latencies
        p50 = percentile(latencies, 0.5)
        print(
            f"  {name:<18}{rate:>9.0f}{f'{min(rates):.0f}-{max(rates):.0f}':>18}{p50:>9.2f}"
            f"{percentile(latencies, 0.95):>9.2f}{percentile(latencies, 0.99):>9.2f}"
            f"{rate / direct_rate:>11.3f}{p50 / direct_p50:>10.2f}"
            f"{1000 * sum(burst.server_cpu_s for burst in total.bursts) / max(calls, 1):>12.2f}"
            f"{sum(burst.failures for burst in total.bursts):>8}  {checks.get(name, '-')}"
        )
    print("  cpu ms/call: CPU time of the server's processes (the echo endpoint's for direct) per answered call")
    for reason, count in sorted(FAILURE_REASONS.items(), key=lambda item: -item[1])[:10]:
        print(f"  failed x{count}: {reason}")
    print()
    print(f"  goals (issue #16): >= {GOAL_CALLS_PER_S:.0f} calls/s and p99 < {GOAL_P99_MS:.0f} ms")
    for server in servers:
        total = totals[server.name]
        rate = sum(burst.calls for burst in total.bursts) / sum(burst.seconds for burst in total.bursts)
        p99 = percentile(total.latencies, 0.99)
        verdict = "met" if rate >= GOAL_CALLS_PER_S and p99 < GOAL_P99_MS else "NOT met"
        print(f"    {server.name:<16} {rate:7.0f} calls/s, p99 {p99:7.1f} ms: {verdict}")


def print_method(args: argparse.Namespace) -> None:
    import sqlalchemy
    import uvicorn

    print("Quiver throughput benchmark")
    print(f"  machine:    {platform.system()} {platform.machine()}, os.cpu_count()={os.cpu_count()}")
    print(
        f"  software:   Python {platform.python_version()}, uvicorn {uvicorn.__version__}, "
        f"SQLAlchemy {sqlalchemy.__version__}, strawberry {version('strawberry-graphql')}"
    )
    print(
        f"  load:       {args.clients} concurrent clients, each on its own keep-alive connection (a lean "
        f"HTTP/1.1 client in this process, uvloop), calling back to back for {args.burst_s:g} s per burst"
    )
    print(
        f"  rounds:     {args.warmup} warm-up + {args.rounds} measured; each round one burst per variant, "
        f"order shuffled per round (seed {args.seed}), settled and {SETTLE_PAUSE_S:g} s pause after each burst"
    )
    print(f"  variants:   {DIRECT}: POST to the echo endpoint (raw ASGI under uvicorn, one process)")
    print(
        "              <backend> w<N>: invokeTool over HTTP to `quiver serve --workers N` on that backend, "
        "CUSTOM tool -> the same endpoint"
    )
    for tree in args.also_tree:
        print(f"              <backend> w<N> {tree.name}: the same, `quiver serve` running the code of {tree}")
    print(f"  invokeTool: {INVOKE_TOOL_OPERATION}")
    print(
        f"  servers:    QUIVER_LOG_LEVEL=INFO (one JSON line per call, to a file), "
        f"QUIVER_TOOL_RATE_LIMIT={BENCH_RATE_LIMIT}, QUIVER_TOOL_MAX_CONCURRENCY=1000"
    )
    print("  check:      every answered call's trace id has exactly one tool_call row")
    print(f"  load avg:   {load_average():.2f} (1 min) at start; the machine is shared: figures are only comparable")
    print("              within one run (ratios against the direct call)")
    print()


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--backends", default="sqlite,postgresql", help="comma-separated: sqlite, postgresql")
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts of `quiver serve`")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (default 50)")
    parser.add_argument("--rounds", type=int, default=None, help="measured rounds (default 6, quick 2)")
    parser.add_argument("--warmup", type=int, default=None, help="warm-up rounds (default 1)")
    parser.add_argument("--burst-s", type=float, default=None, help="seconds per burst (default 2, quick 1)")
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL)
    parser.add_argument(
        "--also-tree",
        action="append",
        type=Path,
        default=[],
        help="another source tree (e.g. a `git worktree` of main): its `quiver serve` runs beside, "
        "as more variants named after the directory (repeatable)",
    )
    args = parser.parse_args(argv)
    for tree in args.also_tree:
        if not (tree / "app" / "main.py").is_file():
            parser.error(f"--also-tree {tree}: no app/main.py there")
    args.rounds = args.rounds if args.rounds is not None else (2 if args.quick else 6)
    args.warmup = args.warmup if args.warmup is not None else 1
    args.burst_s = args.burst_s if args.burst_s is not None else (1.0 if args.quick else 2.0)
    args.backend_list = [name.strip() for name in args.backends.split(",") if name.strip()]
    args.worker_list = [int(count) for count in args.workers.split(",") if count.strip()]
    if not 1 <= args.clients <= 1000 or any(not 1 <= count <= 64 for count in args.worker_list):
        parser.error("--clients is 1..1000 and each --workers count 1..64")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    from cryptography.fernet import Fernet

    args = parse_args(argv)
    backends = list(args.backend_list)
    if "postgresql" in backends:
        problem = asyncio.run(postgres_problem(args.postgres_url))
        if problem is not None:
            print(f"note: PostgreSQL unreachable ({problem}); running SQLite only\n")
            backends.remove("postgresql")
    print_method(args)
    secret_key = Fernet.generate_key().decode()
    with tempfile.TemporaryDirectory(prefix="quiver-throughput-") as directory, ExitStack() as stack:
        echo_port = stack.enter_context(echo_endpoint())
        servers: list[Quiver] = []
        trees: list[Path | None] = [None, *args.also_tree]
        for backend in backends:
            for workers in args.worker_list:
                for index, tree in enumerate(trees):
                    # A database per server: on SQLite two servers would otherwise share one write lock.
                    url = stack.enter_context(
                        throwaway_database(backend, args.postgres_url, f"w{workers}", directory=Path(directory))
                    )
                    log_path = Path(directory) / f"{backend}-w{workers}-{index}.log"
                    server = start_quiver(backend, workers, url, secret_key, log_path, tree)
                    stack.callback(stop_quiver, server)
                    servers.append(server)
        for server in servers:
            wait_ready(server)
        load_before = load_average()
        import uvloop

        totals = uvloop.run(measure(args, echo_port, servers))
        load_after = load_average()
        checks: dict[str, str] = {}
        for server in servers:
            logged = asyncio.run(logged_trace_ids(server))
            answered = totals[server.name].trace_ids
            counts: dict[str, int] = {}
            for trace_id in logged:
                counts[trace_id] = counts.get(trace_id, 0) + 1
            missing = sum(1 for trace_id in answered if trace_id not in counts)
            doubled = sum(1 for count in counts.values() if count > 1)
            extra = len(set(counts) - set(answered))
            ok = missing == doubled == extra == 0 and len(answered) == len(logged)
            checks[server.name] = (
                f"{'yes' if ok else 'NO'} ({len(answered)} answered, {len(logged)} rows"
                + ("" if ok else f", {missing} missing, {doubled} doubled, {extra} unanswered")
                + ")"
            )
        print()
        print(f"== results (load average {load_before:.2f} before, {load_after:.2f} after measuring)")
        report(args, totals, servers, checks)


if __name__ == "__main__":
    main()
