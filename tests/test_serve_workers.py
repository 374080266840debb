"""`quiver serve --workers 2` as real processes sharing one port, on SQLite: without Redis
(the supervisor's event broker) and with it. The start-up work happens once; a subscriber
on one worker receives the calls made through the other; a key revoked through one worker
is refused by both; SIGTERM stops the supervisor and every worker cleanly.

Which worker answers a request is the kernel's choice; ``/healthz`` names the process that
answered, so the test keeps one keep-alive connection on each worker and checks, around
every step, that it is still there."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.databases import require_redis
from tests.support.processes import REPOSITORY_ROOT, free_port, stop

QUIVER = Path(sys.executable).parent / "quiver"
WORKERS = 2
START_TIMEOUT_S = 180.0
# Far beyond the relay's delivery time: within it, only an event heard from the other worker explains a change.
CACHE_TTL_S = 120
CHANGE_DEADLINE_S = 20.0
FIRST_KEY_NOTICE = "No API key existed, so an ADMIN key was created"


@dataclass
class Served:
    process: subprocess.Popen[bytes]
    port: int
    log: Path
    tmp: Path
    admin_key: str
    events: str

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _admin_key(log: Path) -> str | None:
    lines = log.read_text(errors="replace").splitlines()
    for index, line in enumerate(lines[:-1]):
        if line.startswith(FIRST_KEY_NOTICE):
            return lines[index + 1].strip()
    return None


def _workers_ready(served_port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    """Until both workers answer /healthz (each worker starts on its own)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    seen: set[int] = set()
    while len(seen) < WORKERS:
        if process.poll() is not None:
            raise AssertionError(f"quiver serve exited:\n{log.read_text()[-4000:]}")
        assert time.monotonic() < deadline, f"not {WORKERS} workers in {START_TIMEOUT_S}s:\n{log.read_text()[-4000:]}"
        try:
            with httpx.Client(trust_env=False, timeout=5) as client:
                response = client.get(f"http://127.0.0.1:{served_port}/healthz")
            if response.status_code == 200:
                seen.add(response.json()["worker"])
        except httpx.TransportError:
            time.sleep(0.2)


@pytest.fixture(scope="module", params=["broker", "redis"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp(f"workers-{request.param}")
    env = {
        **os.environ,
        "PYTHONPATH": str(REPOSITORY_ROOT),
        "QUIVER_DATABASE_URL": f"sqlite+aiosqlite:///{tmp / 'quiver.db'}",
        "QUIVER_CATALOG_CACHE_TTL_S": str(CACHE_TTL_S),
        # The supervisor's broker socket goes into a directory of its own under TMPDIR.
        "TMPDIR": str(tmp),
    }
    env.pop("QUIVER_ADMIN_TOKEN", None)
    env.pop("QUIVER_REDIS_URL", None)
    if request.param == "redis":
        env["QUIVER_REDIS_URL"] = asyncio.run(require_redis())
    port = free_port()
    log = tmp / "serve.log"
    process = subprocess.Popen(
        [str(QUIVER), "serve", "--port", str(port), "--workers", str(WORKERS)],
        cwd=tmp,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        _workers_ready(port, process, log)
        key = _admin_key(log)
        assert key is not None, log.read_text()[-4000:]
        yield Served(process, port, log, tmp, key, request.param)
    finally:
        stop(process)


@asynccontextmanager
async def _one_client_per_worker(served: Served) -> AsyncIterator[dict[int, httpx.AsyncClient]]:
    """A keep-alive client (one connection) on each worker, keyed by the worker's process id."""
    pinned: dict[int, httpx.AsyncClient] = {}
    spare: list[httpx.AsyncClient] = []
    try:
        for _ in range(200):
            client = httpx.AsyncClient(
                base_url=served.base,
                trust_env=False,
                timeout=30,
                limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
                headers={"Authorization": f"Bearer {served.admin_key}"},
            )
            worker = await _worker_of(client)
            if worker in pinned:
                spare.append(client)
            else:
                pinned[worker] = client
            if len(pinned) == WORKERS:
                break
        assert len(pinned) == WORKERS, f"200 connections all reached the same worker: {list(pinned)}"
        yield pinned
    finally:
        for client in [*pinned.values(), *spare]:
            await client.aclose()


async def _worker_of(client: httpx.AsyncClient) -> int:
    response = await client.get("/healthz")
    assert response.status_code == 200, response.text
    worker: int = response.json()["worker"]
    return worker


async def _graphql(client: httpx.AsyncClient, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    response = await client.post("/graphql", json={"query": query, "variables": variables or {}})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


INVOKE = """mutation Invoke($input: InvokeToolInput!) {
  invokeTool(input: $input) { status call { id } error { code } } }"""


class TestWorkers:
    def test_start_up_work_happens_once(self, served: Served) -> None:
        text = served.log.read_text(errors="replace")
        assert text.count(FIRST_KEY_NOTICE) == 1
        assert text.count("Running upgrade  -> 0001") == 1
        assert f"{WORKERS} workers, events over" in text
        assert text.count("Application startup complete.") == WORKERS

        async def keys() -> list[dict[str, Any]]:
            async with httpx.AsyncClient(
                base_url=served.base, trust_env=False, headers={"Authorization": f"Bearer {served.admin_key}"}
            ) as client:
                data = await _graphql(client, "{ apiKeys(first: 10) { edges { node { id role } } } }")
            return [edge["node"] for edge in data["apiKeys"]["edges"]]

        assert [key["role"] for key in asyncio.run(keys())] == ["ADMIN"]

    def test_a_subscriber_on_one_worker_receives_the_calls_made_through_the_other(self, served: Served) -> None:
        asyncio.run(self._fan_out(served))

    async def _fan_out(self, served: Served) -> None:
        sockets = []
        try:
            # Several connections: whichever worker each lands on, calls made through both workers
            # must reach it, so every subscriber hears at least one call made on the other worker.
            for index in range(4):
                socket = await websockets.connect(
                    f"ws://127.0.0.1:{served.port}/graphql",
                    subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
                )
                sockets.append(socket)
                init = {"type": "connection_init", "payload": {"Authorization": f"Bearer {served.admin_key}"}}
                await socket.send(json.dumps(init))
                assert json.loads(await asyncio.wait_for(socket.recv(), 30))["type"] == "connection_ack"
                subscribe = {
                    "id": f"calls-{index}",
                    "type": "subscribe",
                    "payload": {"query": 'subscription { toolCalls(filter: {spaceId: "sp_system"}) { id toolId } }'},
                }
                await socket.send(json.dumps(subscribe))
            await asyncio.sleep(1.0)  # the subscriptions reach the broker before the calls
            made: dict[int, str] = {}
            async with _one_client_per_worker(served) as pinned:
                for worker, client in pinned.items():
                    arguments = {"spaceId": "sp_system", "toolId": "bt_calculator", "arguments": {"expression": "6*7"}}
                    result = (await _graphql(client, INVOKE, {"input": arguments}))["invokeTool"]
                    assert result["status"] == "SUCCESS", result
                    made[worker] = result["call"]["id"]
                    assert await _worker_of(client) == worker
            for socket in sockets:
                heard: set[str] = set()
                while heard != set(made.values()):
                    message = json.loads(await asyncio.wait_for(socket.recv(), CHANGE_DEADLINE_S))
                    assert message["type"] == "next", message
                    heard.add(message["payload"]["data"]["toolCalls"]["id"])
        finally:
            for socket in sockets:
                await socket.close()

    def test_a_key_revoked_through_one_worker_is_refused_by_every_worker(self, served: Served) -> None:
        asyncio.run(self._revocation(served))

    async def _revocation(self, served: Served) -> None:
        async with _one_client_per_worker(served) as pinned:
            workers = list(pinned)
            created = await _graphql(
                pinned[workers[0]],
                """mutation Key($input: CreateApiKeyInput!) {
                     createApiKey(input: $input) { secret apiKey { id } userErrors { code } } }""",
                {"input": {"role": "VIEWER", "spaceId": "sp_system", "label": "workers test"}},
            )
            secret, key_id = created["createApiKey"]["secret"], created["createApiKey"]["apiKey"]["id"]

            async def status(worker: int) -> int:
                client = pinned[worker]
                response = await client.post(
                    "/graphql",
                    json={"query": "{ viewer { roles } }"},
                    headers={"Authorization": f"Bearer {secret}"},
                )
                return response.status_code

            # Every worker authenticates the key and keeps it in its cache (for CACHE_TTL_S without a change).
            for worker in workers:
                assert await status(worker) == 200
            revoked = await _graphql(
                pinned[workers[0]],
                "mutation Revoke($input: RevokeApiKeyInput!) { revokeApiKey(input: $input) { userErrors { code } } }",
                {"input": {"id": key_id}},
            )
            assert revoked["revokeApiKey"]["userErrors"] == []
            for worker in workers:
                deadline = time.monotonic() + CHANGE_DEADLINE_S
                while await status(worker) == 200:
                    assert time.monotonic() < deadline, f"worker {worker} still accepts a revoked key"
                    await asyncio.sleep(0.05)
                assert await status(worker) == 401
                assert await _worker_of(pinned[worker]) == worker

    def test_sigterm_stops_every_worker_cleanly(self, served: Served) -> None:
        async def workers() -> set[int]:
            async with _one_client_per_worker(served) as pinned:
                return set(pinned)

        pids = asyncio.run(workers())
        served.process.send_signal(signal.SIGTERM)
        assert served.process.wait(timeout=60) == 0, served.log.read_text()[-4000:]
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in pids):
            assert time.monotonic() < deadline, f"workers still running after the supervisor exited: {pids}"
            time.sleep(0.1)
        text = served.log.read_text(errors="replace")
        assert text.count("Application shutdown complete.") == WORKERS
        assert "Traceback" not in text
        assert not list(served.tmp.glob("quiver-events-*")), "the broker's socket directory was left behind"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_broker_socket_path_too_long_is_refused_before_anything_starts(tmp_path: Path) -> None:
    long_tmp = tmp_path / ("t" * 100)
    long_tmp.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(REPOSITORY_ROOT),
        "QUIVER_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'quiver.db'}",
        "TMPDIR": str(long_tmp),
    }
    env.pop("QUIVER_REDIS_URL", None)
    finished = subprocess.run(
        [str(QUIVER), "serve", "--port", str(free_port()), "--workers", "2"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert finished.returncode == 2, finished.stderr.decode()[-2000:]
    assert "too long for a Unix socket" in finished.stderr.decode()
    assert not (tmp_path / "quiver.db").exists()
    assert list(long_tmp.iterdir()) == []
