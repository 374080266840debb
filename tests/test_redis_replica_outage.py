"""Two `quiver serve` replicas (PostgreSQL) whose Redis hangs — a TCP proxy between them and a
Redis of the test's own passes no byte, keeping the connections open — while a subscriber on
one replica follows the tool calls made on the other, then comes back.

A call under way when Redis began to hang (a slow CUSTOM tool) ends during the hang: the
publishing replica's send of its event times out and the event stays in its outbox, to be
sent again once Redis answers; but the send that timed out had reached the link, and Redis
runs it when the link heals. The subscriber must get every call of the outage, each once.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import time
from collections import Counter
from pathlib import Path

import httpx
from cryptography.fernet import Fernet

from tests.databases import postgres_database
from tests.support.http_tool_server import ToolServer, running_tool_server
from tests.support.processes import REPOSITORY_ROOT, free_port, stop
from tests.support.redis_server import redis_server
from tests.support.tcp_proxy import TcpProxy, tcp_proxy
from tests.test_redis_outage import INVOKE_TOOL, RECOVERY_WAIT_S, _health, _tool_call_events
from tests.test_replicas import ADMIN_TOKEN, _graphql, _serve, _wait_healthy

CALLS_DURING_OUTAGE = 3
SLOW_S = 2
CREATE_TOOL = """mutation Tool($input: CreateToolInput!) { createTool(input: $input) {
  tool { id } userErrors { code message } } }"""


async def _call(port: int, expression: str, tool_id: str = "bt_calculator") -> str:
    values = {"spaceId": "sp_system", "toolId": tool_id, "arguments": {"expression": expression}}
    envelope = (await _graphql(port, INVOKE_TOOL, {"input": values}))["invokeTool"]
    assert envelope["status"] == "SUCCESS", envelope
    call_id: str = envelope["call"]["id"]
    return call_id


async def _until(port: int, redis_status: str) -> None:
    deadline = time.monotonic() + RECOVERY_WAIT_S
    while True:
        _, body = await _health(port)
        if body["checks"]["redis"]["status"] == redis_status:
            return
        assert time.monotonic() < deadline, f"Redis never {redis_status} for {port}: {body}"
        await asyncio.sleep(0.2)


def test_a_subscriber_gets_each_call_of_a_redis_hang_once(tmp_path: Path) -> None:
    with (
        postgres_database() as database_url,
        redis_server() as redis,
        tcp_proxy(redis.port) as proxy,
        running_tool_server() as tools,
    ):
        env = {
            **os.environ,
            "PYTHONPATH": str(REPOSITORY_ROOT),
            "QUIVER_DATABASE_URL": database_url,
            "QUIVER_REDIS_URL": f"redis://127.0.0.1:{proxy.port}/0",
            "QUIVER_SECRET_KEY": Fernet.generate_key().decode(),
            "QUIVER_ADMIN_TOKEN": ADMIN_TOKEN,
            "QUIVER_EGRESS_ALLOWLIST": "127.0.0.1",
        }
        caller_port, subscriber_port = free_port(), free_port()
        caller_log, subscriber_log = tmp_path / "caller.log", tmp_path / "subscriber.log"
        processes: list[subprocess.Popen[bytes]] = []
        try:
            processes.append(_serve(caller_port, env, caller_log))
            _wait_healthy(caller_port, processes[0], caller_log)
            processes.append(_serve(subscriber_port, env, subscriber_log))
            _wait_healthy(subscriber_port, processes[1], subscriber_log)
            slow_url = tools.url(f"/slow/{secrets.token_hex(4)}?seconds={SLOW_S}")
            asyncio.run(_follow_through_a_hang(caller_port, subscriber_port, slow_url, tools, proxy))
        finally:
            proxy.restore()
            for process in processes:
                stop(process)


async def _follow_through_a_hang(
    caller: int, subscriber: int, slow_url: str, tools: ToolServer, proxy: TcpProxy
) -> None:
    tool = {
        "name": "slow_lookup",
        "label": "Slow lookup",
        "description": "Answers after a while.",
        "inputSchema": {"type": "object"},
        "endpoint": slow_url,
        "maxRetries": 0,
    }
    created = (await _graphql(caller, CREATE_TOOL, {"input": tool}))["createTool"]
    assert created["userErrors"] == [], created
    slow_tool = created["tool"]["id"]
    events = _tool_call_events(subscriber)
    await anext(events)  # subscribed
    # The subscription is live across replicas once a call made on the other one arrives.
    while True:
        first = await _call(caller, "1 + 1")
        try:
            async with asyncio.timeout(5):
                while (await anext(events))["id"] != first:
                    pass
            break
        except TimeoutError:
            continue

    slow_call = asyncio.create_task(_call(caller, "slow", slow_tool))
    for _ in range(int(RECOVERY_WAIT_S / 0.02)):
        if (await tools.state())["max_in_flight"]:  # admitted (its quota checked on Redis) and under way
            break
        await asyncio.sleep(0.02)
    proxy.pause()
    during = [await slow_call]  # its event is the first thing sent to the hung Redis
    await _until(caller, "unreachable")  # that send timed out: the event waits in the outbox
    during += [await _call(caller, f"{number} * 3") for number in range(CALLS_DURING_OUTAGE)]
    proxy.restore()
    await _until(caller, "ok")

    marker = await _call(caller, "7 * 6")  # published after everything before it
    received: Counter[str] = Counter()
    async with asyncio.timeout(RECOVERY_WAIT_S):
        while (event := await anext(events))["id"] != marker:
            received[event["id"]] += 1
    assert {call_id: received[call_id] for call_id in during} == dict.fromkeys(during, 1), received
    await events.aclose()
    async with httpx.AsyncClient(trust_env=False) as client:
        assert (await client.get(f"http://127.0.0.1:{subscriber}/healthz")).status_code == 200
