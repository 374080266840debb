"""Subscription fan-out: delivery latency of ``toolCalls`` to many live subscribers,
in-process event bus vs Redis event bus.

Starts two real servers (``quiver serve`` subprocesses, uvicorn, each on its own SQLite
file): one with the in-process bus, one with ``QUIVER_REDIS_URL`` (the Redis pub/sub
bus). Opens N subscribers to each over real WebSockets (graphql-transport-ws, the
``websockets`` library), then makes the same number of ``invokeTool(bt_current_time)``
calls on each, interleaved, one at a time: a call is made, every subscriber of that
server must receive it, then the next call. Delivery latency is measured from the
call's finish as the server recorded it (``startedAt + latencyMs``) to the moment each
subscriber's ``recv()`` returned, on the host's wall clock. Run from the repository root::

    .venv/bin/python -m bench.subscription_fanout           # 10, 100, 200, 1,000 subscribers per bus
    .venv/bin/python -m bench.subscription_fanout --quick   # 10 then 50 subscribers, 20 calls

See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import gc
import json
import os
import platform
import random
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import redis.asyncio as redis
import websockets
from cryptography.fernet import Fernet
from websockets.asyncio.client import ClientConnection, connect

from bench.common import (
    free_port,
    load_average,
    percentile,
    version,
)

ROOT = Path(__file__).resolve().parent.parent

DEFAULT_REDIS_URL = os.environ.get("QUIVER_BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")
BENCH_RATE_LIMIT = "1000000/minute"
READY_TIMEOUT_S = 60.0
DELIVERY_TIMEOUT_S = 10.0
CONNECT_BATCH = 25
IN_PROCESS, REDIS = "in-process", "redis"
MAX_SUBSCRIBERS = 5000
#: Issue #16: p99 delivery latency per number of subscribers, on either bus.
GOALS_P99_MS = {200: 50.0, 1000: 200.0}

SUBSCRIPTION = (
    "subscription Fanout($spaceId: ID!) "
    "{ toolCalls(filter: {spaceId: $spaceId}) { id toolId status startedAt latencyMs } }"
)
INVOKE_TOOL = (
    "mutation Call($input: InvokeToolInput!) "
    "{ invokeTool(input: $input) { status traceId latencyMs call { id startedAt latencyMs } } }"
)
CREATE_SPACE = (
    "mutation($input: CreateSpaceInput!) "
    "{ createSpace(input: $input) { space { id } userErrors { field code message } } }"
)


# ------------------------------------------------------------------ the servers


@dataclass
class Server:
    bus: str
    port: int
    admin_key: str
    process: subprocess.Popen[bytes]
    log_path: Path
    space_id: str = ""

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/graphql"


def _quiver_command() -> list[str]:
    script = Path(sys.executable).with_name("quiver")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from app.cli import main; sys.exit(main())"]


def start_server(bus: str, directory: Path, redis_url: str | None, settings: dict[str, str] | None = None) -> Server:
    """``quiver serve`` on a free port with its own SQLite file; QUIVER_* from this env dropped
    (``settings``: QUIVER_* variables of its own)."""
    port = free_port()
    admin_key = f"qk_bench_{secrets.token_hex(16)}"
    environment = {key: value for key, value in os.environ.items() if not key.startswith("QUIVER_")}
    environment.update(
        PYTHONPATH=str(ROOT),
        QUIVER_DATABASE_URL=f"sqlite+aiosqlite:///{directory}/fanout-{bus}.db",
        QUIVER_ADMIN_TOKEN=admin_key,
        QUIVER_SECRET_KEY=Fernet.generate_key().decode(),
        QUIVER_TOOL_RATE_LIMIT=BENCH_RATE_LIMIT,
        QUIVER_LOG_LEVEL="INFO",
        # Every subscriber's socket is the admin key's, one tenant: no cap on its sockets
        # (bench/hostile_websockets.py measures the cap).
        QUIVER_MAX_WEBSOCKETS_PER_TENANT="0",
    )
    if redis_url:
        environment["QUIVER_REDIS_URL"] = redis_url
    environment.update(settings or {})
    log_path = directory / f"serve-{bus}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*_quiver_command(), "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=directory,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return Server(bus, port, admin_key, process, log_path)


def wait_until_ready(server: Server) -> None:
    """Until ``/healthz`` answers (the lifespan has migrated and loaded the catalog)."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while True:
        if server.process.poll() is not None:
            raise SystemExit(
                f"quiver serve ({server.bus}) exited with {server.process.returncode}:\n{_tail(server.log_path)}"
            )
        try:
            if httpx.get(f"{server.http_url}/healthz", timeout=1, trust_env=False).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"quiver serve ({server.bus}) did not answer /healthz:\n{_tail(server.log_path)}")
        time.sleep(0.1)


def stop_server(server: Server) -> None:
    if server.process.poll() is None:
        server.process.terminate()
        try:
            server.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(timeout=10)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


async def redis_problem(url: str) -> str | None:
    client = redis.from_url(url)
    try:
        await asyncio.wait_for(client.ping(), 3)
    except (OSError, redis.RedisError, TimeoutError) as error:
        return f"{type(error).__name__}: {error}"
    finally:
        await client.aclose()
    return None


# ------------------------------------------------------------------ subscribers


@dataclass
class Delivery:
    received_at: float  # time.time() right after recv() returned
    call_id: str
    finished_at: float  # startedAt + latencyMs, from the event


class LeanConnection(asyncio.Protocol):
    """A minimal WebSocket client (RFC 6455) on a bare asyncio protocol: the handshake, masked
    text frames out, unfragmented or fragmented text frames in, pings answered. Each message
    is handed to ``on_text`` from ``data_received`` with the time the bytes arrived: no task,
    queue or future per message, so a thousand of them in one process cost the measurement
    little (the ``websockets`` client costs several times as much per message)."""

    def __init__(self, on_text: Callable[[bytes, float], None]) -> None:
        self.on_text = on_text
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.fragments = bytearray()
        self.upgraded: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.key = base64.b64encode(os.urandom(16)).decode()

    @classmethod
    async def open(cls, host: str, port: int, path: str, on_text: Callable[[bytes, float], None]) -> LeanConnection:
        loop = asyncio.get_running_loop()
        _, connection = await loop.create_connection(lambda: cls(on_text), host, port)
        assert connection.transport is not None
        connection.transport.write(
            (
                f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {connection.key}\r\nSec-WebSocket-Version: 13\r\n"
                "Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n"
            ).encode()
        )
        await asyncio.wait_for(connection.upgraded, 30)
        return connection

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.upgraded.done():
            self.upgraded.set_exception(ConnectionError(f"closed before the upgrade: {exc}"))
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        received_at = time.time()
        self.buffer += data
        if not self.upgraded.done():
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end]).decode("latin-1").lower()
            del self.buffer[: end + 4]
            if not head.startswith("http/1.1 101") or "sec-websocket-protocol: graphql-transport-ws" not in head:
                self.upgraded.set_exception(ConnectionError(f"no upgrade: {head[:200]}"))
                return
            self.upgraded.set_result(None)
        buffer = self.buffer
        while len(buffer) >= 2:
            first, second = buffer[0], buffer[1]
            length, offset = second & 0x7F, 2
            if length == 126:
                if len(buffer) < 4:
                    return
                length, offset = int.from_bytes(buffer[2:4], "big"), 4
            elif length == 127:
                if len(buffer) < 10:
                    return
                length, offset = int.from_bytes(buffer[2:10], "big"), 10
            if len(buffer) < offset + length:
                return
            payload = bytes(buffer[offset : offset + length])
            del buffer[: offset + length]
            opcode, final = first & 0x0F, bool(first & 0x80)
            if opcode in (0x1, 0x0):
                self.fragments += payload
                if final:
                    message, self.fragments = bytes(self.fragments), bytearray()
                    self.on_text(message, received_at)
            elif opcode == 0x9:
                self._send_frame(0xA, payload)
            elif opcode == 0x8 and self.transport is not None:
                self.transport.close()

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        length = len(payload)
        if length < 126:
            header = bytes([0x80 | opcode, 0x80 | length])
        elif length < 1 << 16:
            header = bytes([0x80 | opcode, 0x80 | 126]) + length.to_bytes(2, "big")
        else:
            header = bytes([0x80 | opcode, 0x80 | 127]) + length.to_bytes(8, "big")
        masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(header + mask + masked)

    def send_text(self, text: str) -> None:
        self._send_frame(0x1, text.encode())

    async def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self._send_frame(0x8, (1000).to_bytes(2, "big"))
            try:
                await asyncio.wait_for(asyncio.shield(self.closed), 5)
            except TimeoutError:
                self.transport.close()


@dataclass
class Subscriber:
    index: int
    connection: ClientConnection | LeanConnection
    deliveries: list[Delivery] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class Fanout:
    """The subscribers of one server, and per call id how many have received it."""

    def __init__(self, server: Server, client: str = "lean") -> None:
        self.server = server
        self.client = client
        self.subscribers: list[Subscriber] = []
        self.counts: dict[str, int] = {}
        self.waiters: dict[str, asyncio.Event] = {}
        self.readers: list[asyncio.Task[None]] = []

    def expect(self, call_id: str) -> asyncio.Event:
        event = self.waiters.setdefault(call_id, asyncio.Event())
        if self.counts.get(call_id, 0) >= len(self.subscribers):
            event.set()
        return event

    def _received(self, call_id: str) -> None:
        count = self.counts.get(call_id, 0) + 1
        self.counts[call_id] = count
        if count >= len(self.subscribers):
            event = self.waiters.get(call_id)
            if event is not None:
                event.set()

    def _message(self, subscriber: Subscriber, raw: str | bytes, received_at: float) -> str | None:
        """Record one message; the reply to send (a pong), if any."""
        message = json.loads(raw)
        kind = message.get("type")
        if kind == "next":
            payload = message["payload"]
            if payload.get("errors"):
                subscriber.errors.append(json.dumps(payload["errors"])[:300])
                return None
            call = payload["data"]["toolCalls"]
            finished_at = datetime.fromisoformat(call["startedAt"]).timestamp() + call["latencyMs"] / 1000
            subscriber.deliveries.append(Delivery(received_at, call["id"], finished_at))
            self._received(call["id"])
        elif kind == "ping":
            return json.dumps({"type": "pong"})
        elif kind in ("error", "complete"):
            subscriber.errors.append(json.dumps(message)[:300])
        return None

    async def _read(self, subscriber: Subscriber) -> None:
        connection = subscriber.connection
        assert isinstance(connection, ClientConnection)
        try:
            async for raw in connection:
                reply = self._message(subscriber, raw, time.time())
                if reply is not None:
                    await connection.send(reply)
        except websockets.ConnectionClosed as closed:
            subscriber.errors.append(f"closed: {closed}")

    async def _open_lean(self, index: int) -> Subscriber:
        acknowledged: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        holder: list[Subscriber] = []

        def on_text(raw: bytes, received_at: float) -> None:
            if not acknowledged.done():
                acknowledged.set_result(json.loads(raw))
                return
            reply = self._message(holder[0], raw, received_at)
            if reply is not None:
                connection.send_text(reply)

        connection = await LeanConnection.open("127.0.0.1", self.server.port, "/graphql", on_text)
        holder.append(Subscriber(index, connection))
        connection.send_text(
            json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {self.server.admin_key}"}})
        )
        ack = await asyncio.wait_for(acknowledged, 30)
        if ack.get("type") != "connection_ack":
            raise SystemExit(f"{self.server.bus}: subscriber {index} got {ack}")
        connection.send_text(self._subscribe_message(index))
        return holder[0]

    def _subscribe_message(self, index: int) -> str:
        return json.dumps(
            {
                "id": f"s{index}",
                "type": "subscribe",
                "payload": {"query": SUBSCRIPTION, "variables": {"spaceId": self.server.space_id}},
            }
        )

    async def _open_websockets(self, index: int, compression: str | None) -> Subscriber:
        connection = await connect(
            self.server.ws_url,
            subprotocols=[websockets.Subprotocol("graphql-transport-ws")],
            compression=compression,
            proxy=None,
            open_timeout=30,
            max_queue=None,
        )
        await connection.send(
            json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {self.server.admin_key}"}})
        )
        ack = json.loads(await asyncio.wait_for(connection.recv(), 30))
        if ack.get("type") != "connection_ack":
            raise SystemExit(f"{self.server.bus}: subscriber {index} got {ack}")
        await connection.send(self._subscribe_message(index))
        subscriber = Subscriber(index, connection)
        self.readers.append(asyncio.create_task(self._read(subscriber)))
        return subscriber

    async def open(self, count: int, compression: str | None) -> None:
        """Subscribers until there are ``count`` (a level adds to the previous one's)."""

        async def one(index: int) -> Subscriber:
            if self.client == "lean":
                return await self._open_lean(index)
            return await self._open_websockets(index, compression)

        for start in range(len(self.subscribers), count, CONNECT_BATCH):
            batch = await asyncio.gather(*(one(index) for index in range(start, min(start + CONNECT_BATCH, count))))
            self.subscribers.extend(batch)

    async def close(self) -> None:
        for subscriber in self.subscribers:
            await subscriber.connection.close()
        await asyncio.gather(*self.readers, return_exceptions=True)


# ------------------------------------------------------------------ measuring


@dataclass
class Call:
    call_id: str
    round_trip_ms: float
    response_at: float  # time.time() when the invokeTool response was read
    complete: bool


@dataclass
class BusResult:
    bus: str
    subscribers: int
    calls: list[Call] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    last_ms: list[float] = field(default_factory=list)  # per call: the slowest subscriber
    first_ms: list[float] = field(default_factory=list)  # per call: the fastest subscriber
    before_response: int = 0
    missing: int = 0
    duplicates: int = 0
    foreign: int = 0
    errors: list[str] = field(default_factory=list)
    startup_s: float = 0.0
    connect_s: float = 0.0
    server_cpu_ms: float = 0.0  # the server process's CPU time over the measured calls


@dataclass
class Level:
    subscribers: int
    results: list[BusResult]
    load: tuple[float, float]


async def invoke(client: httpx.AsyncClient, server: Server) -> tuple[str, float, float]:
    variables = {"input": {"spaceId": server.space_id, "toolId": "bt_current_time", "arguments": {}}}
    started = time.perf_counter()
    response = await client.post(
        f"{server.http_url}/graphql",
        json={"query": INVOKE_TOOL, "variables": variables},
        headers={"Authorization": f"Bearer {server.admin_key}"},
    )
    round_trip_ms = (time.perf_counter() - started) * 1000
    response_at = time.time()
    body = response.json()
    envelope = (body.get("data") or {}).get("invokeTool")
    if response.status_code != 200 or not envelope or envelope["status"] != "SUCCESS":
        raise SystemExit(f"{server.bus}: invokeTool failed: {response.status_code} {response.text[:400]}")
    return envelope["call"]["id"], round_trip_ms, response_at


async def create_space(client: httpx.AsyncClient, server: Server) -> str:
    response = await client.post(
        f"{server.http_url}/graphql",
        json={
            "query": CREATE_SPACE,
            "variables": {"input": {"name": f"fanout-{secrets.token_hex(4)}", "label": "Fan-out"}},
        },
        headers={"Authorization": f"Bearer {server.admin_key}"},
    )
    payload = response.json()["data"]["createSpace"]
    if payload["userErrors"]:
        raise SystemExit(f"{server.bus}: createSpace: {payload['userErrors']}")
    space_id: str = payload["space"]["id"]
    return space_id


async def warm_up(client: httpx.AsyncClient, fanout: Fanout) -> None:
    """Calls until every subscriber has received one: only then are all subscriptions live
    on the server's bus (graphql-transport-ws does not acknowledge a subscribe)."""
    deadline = time.monotonic() + 60
    while True:
        call_id, _, _ = await invoke(client, fanout.server)
        try:
            await asyncio.wait_for(fanout.expect(call_id).wait(), 0.5)
        except TimeoutError:
            if time.monotonic() > deadline:
                got = fanout.counts.get(call_id, 0)
                raise SystemExit(
                    f"{fanout.server.bus}: only {got} of {len(fanout.subscribers)} subscribers "
                    "received the warm-up calls"
                ) from None
            continue
        # Two more, so connections and code paths are warm before measuring.
        for _ in range(2):
            call_id, _, _ = await invoke(client, fanout.server)
            await asyncio.wait_for(fanout.expect(call_id).wait(), DELIVERY_TIMEOUT_S)
        return


def _summarise(fanout: Fanout, result: BusResult) -> None:
    measured = {call.call_id: call for call in result.calls}
    per_call: dict[str, list[float]] = {call_id: [] for call_id in measured}
    for subscriber in fanout.subscribers:
        seen: set[str] = set()
        for delivery in subscriber.deliveries:
            if delivery.call_id not in measured:
                continue
            if delivery.call_id in seen:
                result.duplicates += 1
                continue
            seen.add(delivery.call_id)
            latency_ms = (delivery.received_at - delivery.finished_at) * 1000
            result.latencies_ms.append(latency_ms)
            per_call[delivery.call_id].append(latency_ms)
            if delivery.received_at < measured[delivery.call_id].response_at:
                result.before_response += 1
        result.missing += len(measured) - len(seen)
        result.errors.extend(subscriber.errors)
    for latencies in per_call.values():
        if latencies:
            result.last_ms.append(max(latencies))
            result.first_ms.append(min(latencies))


async def run(args: argparse.Namespace, servers: list[Server]) -> list[Level]:
    """Every level in turn, on the same servers: subscribers are added up to each level's count."""
    levels: list[Level] = []
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(httpx.AsyncClient(trust_env=False, timeout=30))
        fanouts: dict[str, Fanout] = {}
        for server in servers:
            server.space_id = await create_space(client, server)
            fanout = Fanout(server, args.client)
            stack.push_async_callback(fanout.close)
            fanouts[server.bus] = fanout
        shuffler = random.Random(args.seed)
        for count in args.levels:
            results = {server.bus: BusResult(server.bus, count) for server in servers}
            for server in servers:
                started = time.perf_counter()
                await fanouts[server.bus].open(count, None if args.compression == "none" else args.compression)
                results[server.bus].connect_s = time.perf_counter() - started
            for fanout in fanouts.values():
                await warm_up(client, fanout)
            # This process is the instrument: the connections and deliveries it keeps would make
            # its own full collections longer with every level; keep them out of the collector.
            gc.collect()
            gc.freeze()
            load_before = load_average()
            cpu_before = {server.bus: cpu_seconds(server.process.pid) for server in servers}
            order = [server.bus for server in servers]
            for _ in range(args.calls):
                shuffler.shuffle(order)
                for bus in order:
                    fanout = fanouts[bus]
                    call_id, round_trip_ms, response_at = await invoke(client, fanout.server)
                    try:
                        await asyncio.wait_for(fanout.expect(call_id).wait(), DELIVERY_TIMEOUT_S)
                        complete = True
                    except TimeoutError:
                        complete = False
                    results[bus].calls.append(Call(call_id, round_trip_ms, response_at, complete))
            # Stragglers of the level's last calls (a call not delivered to all in time).
            await asyncio.sleep(0.2)
            load_after = load_average()
            for server in servers:
                results[server.bus].server_cpu_ms = (cpu_seconds(server.process.pid) - cpu_before[server.bus]) * 1000
            for bus, fanout in fanouts.items():
                _summarise(fanout, results[bus])
            level = Level(count, [results[server.bus] for server in servers], (load_before, load_after))
            levels.append(level)
            print_level(level)
    return levels


# ------------------------------------------------------------------ report


def print_method(args: argparse.Namespace) -> None:
    print("Quiver subscription_fanout benchmark")
    print(f"  machine:     {platform.system()} {platform.machine()}, os.cpu_count()={os.cpu_count()}")
    print(
        f"  software:    Python {platform.python_version()}, strawberry-graphql {version('strawberry-graphql')}, "
        f"uvicorn {version('uvicorn')}, websockets {version('websockets')}, redis-py {version('redis')}"
    )
    print(
        "  servers:     `quiver serve` subprocesses (uvicorn as the CLI runs it, JSON logs at INFO to a "
        "file), each on its own SQLite file: in-process bus, and QUIVER_REDIS_URL="
        f"{args.redis_url} (Redis pub/sub bus; the rate limiter then also uses Redis); "
        f"tool_rate_limit={BENCH_RATE_LIMIT}"
    )
    print(
        f"  subscribers: {', '.join(str(level) for level in args.levels)} per server (levels measured in turn, "
        "each adding to the previous one's), all in this process ("
        + (
            "LeanConnection: RFC 6455 on a bare asyncio protocol, no compression"
            if args.client == "lean"
            else f"websockets {version('websockets')}, compression={args.compression}"
        )
        + "), graphql-transport-ws, an ADMIN "
        "key in connection_init, each subscribed to: " + SUBSCRIPTION
    )
    print(
        f"  calls:       {args.calls} per server and level, invokeTool(bt_current_time) over HTTP, one at a time: "
        "the next call starts when every subscriber of that server has the previous one "
        f"(or after {DELIVERY_TIMEOUT_S:g} s); servers interleaved in a shuffled order per round "
        f"(seed {args.seed}); warm-up first at each level: calls until every subscriber has received one, then 2 more"
    )
    print(
        "  latency:     receipt - finish. finish = the call's startedAt + latencyMs, as the server "
        "recorded them (the executor is done; the gateway then writes the tool_call row, logs, "
        "publishes). receipt = time.time() when the message's bytes arrived (lean client) or its recv() "
        "returned (websockets). Both on this "
        "host's wall clock. Includes: the row write, the bus, the subscription's filter and "
        "GraphQL execution and serialisation (once per shared stream), the WebSocket send, and this process's handling "
        "of the sockets before it (one client process reads all of them)"
    )
    print(
        "  figures:     p50/p99/max over every (call, subscriber) delivery; per call the fastest "
        "and the slowest subscriber (fan-out complete); the invokeTool round trip for context"
    )
    print(
        "  client:      before each level's calls this process's objects are frozen out of its garbage "
        "collector (gc.freeze), so its own collections do not grow with the subscribers it holds"
    )
    print("  caution:     only comparable between runs on a quiet machine; load average printed")
    print()


def print_level(level: Level) -> None:
    print()
    print(
        f"== {level.subscribers} subscribers per server; 1-minute load average before / after measuring: "
        f"{level.load[0]:.2f} / {level.load[1]:.2f}"
    )
    header = (
        f"  {'bus':<11} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}   {'first p50':>9} {'last p50':>9} "
        f"{'last p99':>9}   {'invokeTool p50':>14}   {'server CPU/call':>15}   delivered"
    )
    print(header)
    print("  " + "-" * (len(header) - 2))
    for result in level.results:
        if not result.latencies_ms:
            print(f"  {result.bus:<11} no deliveries")
            continue
        expected = len(result.calls) * result.subscribers
        print(
            f"  {result.bus:<11} {percentile(result.latencies_ms, 0.5):>8.2f} "
            f"{percentile(result.latencies_ms, 0.99):>8.2f} {max(result.latencies_ms):>8.2f}   "
            f"{percentile(result.first_ms, 0.5):>9.2f} {percentile(result.last_ms, 0.5):>9.2f} "
            f"{percentile(result.last_ms, 0.99):>9.2f}   "
            f"{percentile([call.round_trip_ms for call in result.calls], 0.5):>14.2f}   "
            f"{result.server_cpu_ms / len(result.calls):>12.2f} ms   "
            f"{len(result.latencies_ms)}/{expected}"
        )
    by_bus = {result.bus: result for result in level.results}
    if IN_PROCESS in by_bus and REDIS in by_bus and by_bus[IN_PROCESS].latencies_ms and by_bus[REDIS].latencies_ms:
        local, remote = by_bus[IN_PROCESS], by_bus[REDIS]
        print(
            "  redis / in-process:  p50 "
            f"{percentile(remote.latencies_ms, 0.5) / percentile(local.latencies_ms, 0.5):.2f}x, p99 "
            f"{percentile(remote.latencies_ms, 0.99) / percentile(local.latencies_ms, 0.99):.2f}x, "
            "slowest subscriber p50 "
            f"{percentile(remote.last_ms, 0.5) / percentile(local.last_ms, 0.5):.2f}x; "
            "redis - in-process p50 "
            f"{percentile(remote.latencies_ms, 0.5) - percentile(local.latencies_ms, 0.5):+.2f} ms"
        )
    for result in level.results:
        notes = [
            f"connect {result.connect_s:.1f} s",
            f"{result.before_response} deliveries before the invoker had its HTTP response",
            f"{result.missing} missing, {result.duplicates} duplicates",
            f"{sum(not call.complete for call in result.calls)} calls not delivered to all in {DELIVERY_TIMEOUT_S:g} s",
        ]
        if result.errors:
            notes.append(f"{len(result.errors)} subscriber errors, first: {result.errors[0]}")
        print(f"  {result.bus}: " + "; ".join(notes))
    goal = GOALS_P99_MS.get(level.subscribers)
    if goal is not None:
        verdicts = [
            f"{result.bus} p99 {percentile(result.latencies_ms, 0.99):.1f} ms "
            f"{'<' if percentile(result.latencies_ms, 0.99) < goal else '>='} {goal:g} ms"
            for result in level.results
            if result.latencies_ms
        ]
        print("  goal (issue #16): " + "; ".join(verdicts))


def print_growth(levels: list[Level]) -> None:
    """How each figure moves with the number of subscribers, against linear growth."""
    if len(levels) < 2:
        return
    print()
    print(
        "== cost as subscribers grow (ratios to the smallest level; linear growth = the subscriber ratio). "
        "The cost is the server's CPU time per call (the call itself and its fan-out): latencies on a "
        "shared machine also hold the waits for a core"
    )
    base = levels[0]
    header = (
        f"  {'bus':<11} {'subscribers':>11} {'x subs':>7}   {'CPU/call x':>10} {'CPU/subscriber':>14}   "
        f"{'p50 x':>7} {'p99 x':>7} {'last p50 x':>10}"
    )
    print(header)
    print("  " + "-" * (len(header) - 2))
    for bus in [result.bus for result in base.results]:
        first = next(result for result in base.results if result.bus == bus)
        if not first.latencies_ms:
            continue
        first_cpu = first.server_cpu_ms / len(first.calls)
        for level in levels:
            result = next(result for result in level.results if result.bus == bus)
            if not result.latencies_ms:
                continue
            cpu = result.server_cpu_ms / len(result.calls)
            print(
                f"  {bus:<11} {level.subscribers:>11} {level.subscribers / base.subscribers:>7.1f}   "
                f"{cpu / max(first_cpu, 1e-9):>10.2f} {cpu * 1000 / level.subscribers:>11.1f} us   "
                f"{percentile(result.latencies_ms, 0.5) / percentile(first.latencies_ms, 0.5):>7.2f} "
                f"{percentile(result.latencies_ms, 0.99) / percentile(first.latencies_ms, 0.99):>7.2f} "
                f"{percentile(result.last_ms, 0.5) / percentile(first.last_ms, 0.5):>10.2f}"
            )
        top = next(result for result in levels[-1].results if result.bus == bus)
        if top.latencies_ms:
            scale = levels[-1].subscribers / base.subscribers
            cpu_growth = (top.server_cpu_ms / len(top.calls)) / max(first_cpu, 1e-9)
            p99_growth = percentile(top.latencies_ms, 0.99) / percentile(first.latencies_ms, 0.99)
            print(
                f"  {bus}: {scale:.0f}x the subscribers: server CPU per call {cpu_growth:.1f}x "
                f"({'no faster than linear' if cpu_growth <= scale else 'FASTER than linear'}), "
                f"p99 {p99_growth:.1f}x ({'no faster than linear' if p99_growth <= scale else 'FASTER than linear'})"
            )


# ------------------------------------------------------------------ entry point


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--subscribers",
        default=None,
        help="comma-separated subscriber levels per server, measured in turn (default 10,100,200,1000; quick 10,50)",
    )
    parser.add_argument(
        "--calls", type=int, default=None, help="measured calls per server and level (default 50, quick 20)"
    )
    parser.add_argument("--quick", action="store_true", help="10 then 50 subscribers, 20 calls")
    parser.add_argument("--buses", default="in-process,redis", help="comma-separated: in-process, redis")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL, help="Redis for the redis bus (default: %(default)s)")
    parser.add_argument(
        "--compression",
        default="deflate",
        choices=("deflate", "none"),
        help="permessage-deflate offered by the subscribers, as browsers do (default: deflate)",
    )
    parser.add_argument(
        "--client",
        default="lean",
        choices=("lean", "websockets"),
        help="subscriber client: a minimal RFC 6455 protocol (default) or the websockets library",
    )
    parser.add_argument("--seed", type=int, default=20240601, help="seed of the per-round server order")
    args = parser.parse_args(argv)
    if args.subscribers is None:
        args.subscribers = "10,50" if args.quick else "10,100,200,1000"
    if args.calls is None:
        args.calls = 20 if args.quick else 50
    try:
        args.levels = sorted({int(part) for part in str(args.subscribers).split(",") if part.strip()})
    except ValueError:
        parser.error("--subscribers takes comma-separated whole numbers")
    if not args.levels or args.levels[0] < 1 or args.levels[-1] > MAX_SUBSCRIBERS or args.calls < 1:
        parser.error(f"--subscribers between 1 and {MAX_SUBSCRIBERS}, --calls at least 1")
    buses = [name.strip() for name in args.buses.split(",") if name.strip()]
    unknown = set(buses) - {IN_PROCESS, REDIS}
    if unknown or not buses:
        parser.error(f"unknown buses: {', '.join(sorted(unknown)) or '(none)'}")
    args.bus_list = buses
    return args


@contextmanager
def running_servers(buses: list[str], directory: Path, redis_url: str) -> Iterator[list[Server]]:
    servers: list[Server] = []
    try:
        started = time.perf_counter()
        for bus in buses:
            servers.append(start_server(bus, directory, redis_url if bus == REDIS else None))
        for server in servers:
            wait_until_ready(server)
        ports = ", ".join(f"{server.bus} on port {server.port}" for server in servers)
        print(f"  started quiver serve: {ports} (ready after {time.perf_counter() - started:.1f} s)")
        yield servers
    finally:
        for server in servers:
            stop_server(server)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print_method(args)
    started = time.perf_counter()
    buses = list(args.bus_list)
    if REDIS in buses:
        problem = asyncio.run(redis_problem(args.redis_url))
        if problem is not None:
            print(f"redis: skipped, {args.redis_url} is unreachable ({problem})")
            buses.remove(REDIS)
    if not buses:
        print("nothing to measure")
        return 0
    with (
        tempfile.TemporaryDirectory(prefix="quiver-bench-") as name,
        running_servers(buses, Path(name), args.redis_url) as servers,
    ):
        levels = asyncio.run(run(args, servers))
        print_growth(levels)
    print(f"total run time: {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
