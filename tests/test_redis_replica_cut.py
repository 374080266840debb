"""Two `quiver serve` replicas (PostgreSQL) on the shared Redis (a database of this test's own):
the caller reaches Redis directly, the subscriber's replica through a TCP proxy that the test
cuts (its connections reset, new ones refused: Redis restarting, a proxy dropping the link), or
black-holes (no byte passes either way and nothing is reset: a NAT or firewall dropping the flow;
the idle replica learns of it only by the PING it sends on its listening connection).

The caller's calls go on reaching Redis while the subscriber's replica hears nothing, so its
`toolCalls` subscriber missed them: it is told (`EVENTS_MISSED`), not left silent. While cut
off, that replica answers queries and mutations, and refuses a new subscription
(`EVENT_BUS_UNAVAILABLE`); once Redis is reachable again a new subscription hears the
caller's calls again, without a restart.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import websockets
from cryptography.fernet import Fernet
from websockets.asyncio.client import ClientConnection

from tests.databases import postgres_database, require_redis
from tests.support.processes import REPOSITORY_ROOT, free_port, stop
from tests.support.tcp_proxy import TcpProxy, tcp_proxy
from tests.test_redis_outage import INVOKE_TOOL, TOOL_CALLS, _health, _problems_in
from tests.test_replicas import ADMIN_TOKEN, _graphql, _serve, _wait_healthy

#: A Redis database no other test uses (the bus puts it in its channel names).
DATABASE = 12
#: Generous bounds for a loaded machine: what is checked is that it happens, not how fast.
WAIT_S = 60.0


@pytest.mark.parametrize("outage", ["cut", "black_hole"])
def test_a_subscriber_whose_replica_is_cut_off_from_redis_is_told_and_can_follow_again(
    tmp_path: Path, outage: str
) -> None:
    redis = urlsplit(asyncio.run(require_redis()))
    with postgres_database() as database_url, tcp_proxy(redis.port or 6379, redis.hostname or "127.0.0.1") as proxy:
        env = {
            **os.environ,
            "PYTHONPATH": str(REPOSITORY_ROOT),
            "QUIVER_DATABASE_URL": database_url,
            "QUIVER_SECRET_KEY": Fernet.generate_key().decode(),
            "QUIVER_ADMIN_TOKEN": ADMIN_TOKEN,
        }
        direct = f"redis://{redis.hostname}:{redis.port}/{DATABASE}"
        cut_off = f"redis://127.0.0.1:{proxy.port}/{DATABASE}"
        caller_port, subscriber_port = free_port(), free_port()
        caller_log, subscriber_log = tmp_path / "caller.log", tmp_path / "subscriber.log"
        processes: list[subprocess.Popen[bytes]] = []
        try:
            processes.append(_serve(caller_port, {**env, "QUIVER_REDIS_URL": direct}, caller_log))
            _wait_healthy(caller_port, processes[0], caller_log, timeout_s=240)
            subscriber_env = {**env, "QUIVER_REDIS_URL": cut_off, "QUIVER_EVENT_BUS_PING_S": "0.5"}
            processes.append(_serve(subscriber_port, subscriber_env, subscriber_log))
            _wait_healthy(subscriber_port, processes[1], subscriber_log, timeout_s=240)
            asyncio.run(_cut_under_a_subscriber(caller_port, subscriber_port, proxy, outage))
        finally:
            proxy.restore()
            for process in processes:
                stop(process)
    assert _problems_in(subscriber_log.read_text()) == []


async def _call(port: int, expression: str) -> str:
    values = {"spaceId": "sp_system", "toolId": "bt_calculator", "arguments": {"expression": expression}}
    envelope = (await _graphql(port, INVOKE_TOOL, {"input": values}))["invokeTool"]
    assert envelope["status"] == "SUCCESS", envelope
    call_id: str = envelope["call"]["id"]
    return call_id


@asynccontextmanager
async def _subscription(port: int) -> AsyncIterator[ClientConnection]:
    """A graphql-transport-ws socket with the toolCalls subscription sent (operation id "1")."""
    async with websockets.connect(f"ws://127.0.0.1:{port}/graphql", subprotocols=["graphql-transport-ws"]) as socket:  # type: ignore[list-item]
        await socket.send(
            json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {ADMIN_TOKEN}"}})
        )
        assert json.loads(await asyncio.wait_for(socket.recv(), WAIT_S))["type"] == "connection_ack"
        await socket.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": TOOL_CALLS}}))
        yield socket


async def _message(socket: ClientConnection) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), WAIT_S))
    return message


async def _until_heard(caller: int, socket: ClientConnection) -> dict[str, Any] | None:
    """Calls on the caller until the subscriber hears one (None), or the error the subscription ended with."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        call_id = await _call(caller, "1 + 1")
        try:
            async with asyncio.timeout(3):
                while True:
                    message = await _message(socket)
                    if message["type"] != "next":
                        raise AssertionError(f"the subscription ended without an error: {message}")
                    if message["payload"].get("errors"):
                        return message["payload"]  # type: ignore[no-any-return]
                    if message["payload"]["data"]["toolCalls"]["id"] == call_id:
                        return None
        except TimeoutError:
            continue
    raise AssertionError("the subscriber never heard the caller's calls")


def _codes(payload: dict[str, Any]) -> list[str]:
    return [error["extensions"]["code"] for error in payload["errors"]]


async def _cut_under_a_subscriber(caller: int, subscriber: int, proxy: TcpProxy, outage: str) -> None:
    async with _subscription(subscriber) as socket:
        assert await _until_heard(caller, socket) is None  # live across the replicas
        if outage == "cut":
            proxy.cut()
        else:
            proxy.pause()
        missed = [await _call(caller, f"{number} * 3") for number in range(3)]
        if outage == "cut":
            # The subscriber's replica answers without Redis, its own calls too. (Not yet when
            # black-holed: its call would find Redis silent; the replica must notice while idle.)
            await _call(subscriber, "2 * 21")
        while True:
            message = await _message(socket)
            assert message["type"] == "next", message
            if message["payload"].get("errors"):
                break
            assert message["payload"]["data"]["toolCalls"]["id"] not in missed
        assert message["payload"]["data"] is None
        assert _codes(message["payload"]) == ["EVENTS_MISSED"], message
        assert "toolCalls query" in message["payload"]["errors"][0]["message"]
        assert (await _message(socket))["type"] == "complete"
    if outage == "black_hole":
        await _call(subscriber, "2 * 21")

    # Cut off: a new subscription would miss the caller's calls, so it is refused and says why.
    async with _subscription(subscriber) as socket:
        message = await _message(socket)
        assert message["type"] == "next", message
        assert _codes(message["payload"]) == ["EVENT_BUS_UNAVAILABLE"], message
        assert (await _message(socket))["type"] == "complete"
    status, body = await _health(subscriber)
    assert (status, body["status"], body["checks"]["redis"]["status"]) == (200, "degraded", "unreachable")
    listed = await _graphql(subscriber, "query { toolCalls(first: 50) { edges { node { id } } } }")
    assert set(missed) <= {edge["node"]["id"] for edge in listed["toolCalls"]["edges"]}  # what to reconcile with

    proxy.restore()
    deadline = time.monotonic() + WAIT_S
    while True:
        # Once the replica listens again a new subscription is taken and hears the caller again.
        async with _subscription(subscriber) as socket:
            ended = await _until_heard(caller, socket)
            if ended is None:
                break
            assert _codes(ended) == ["EVENT_BUS_UNAVAILABLE"], ended
        assert time.monotonic() < deadline, "no subscription taken after Redis came back"
        await asyncio.sleep(0.2)
