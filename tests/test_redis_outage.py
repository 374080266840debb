"""A `quiver serve` on a Redis of the test's own, killed (SIGKILL) under it and started again on
the same port: invokeTool and invokeAgent keep answering (idempotency keys too), a subscriber
is told it misses the other replicas' events (EVENTS_MISSED), /healthz says degraded and why,
/metrics shows it, and once Redis is back events and rate limits go through it again, with no
restart and no "Task exception was never retrieved" in the log. Redis down from the start: the
server starts, serves, and recovers."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import subprocess
import time
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as redis
import websockets
from cryptography.fernet import Fernet

from tests.support.openai_server import OpenAIServer, final, running_openai_server
from tests.support.processes import REPOSITORY_ROOT, free_port
from tests.support.redis_server import RedisServer, redis_server
from tests.test_replicas import ADMIN_TOKEN, _graphql, _serve, _wait_healthy

RECOVERY_WAIT_S = 30.0
#: Migrating a fresh database and loading the embedding model, on a machine under heavy load.
STARTUP_WAIT_S = 240.0
CALLS = 20

INVOKE_TOOL = """mutation Call($input: InvokeToolInput!) { invokeTool(input: $input) {
  status data error { code message } call { id } } }"""
INVOKE_AGENT = """mutation Invoke($input: InvokeAgentInput!) { invokeAgent(input: $input) {
  run { id status output } userErrors { code message } } }"""
CREATE_AGENT = """mutation Agent($input: CreateAgentInput!) { createAgent(input: $input) {
  agent { id } userErrors { code message } } }"""
TOOL_CALLS = "subscription Calls { toolCalls { id status toolId } }"


@pytest.fixture(scope="module")
def model_server() -> Iterator[OpenAIServer]:
    with running_openai_server() as server:
        yield server


def _environment(tmp_path: Path, redis_url: str, model_server: OpenAIServer) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(REPOSITORY_ROOT),
        "QUIVER_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/quiver.db",
        "QUIVER_REDIS_URL": redis_url,
        "QUIVER_SECRET_KEY": Fernet.generate_key().decode(),
        "QUIVER_ADMIN_TOKEN": ADMIN_TOKEN,
        "QUIVER_OPENAI_BASE_URL": model_server.base_url,
        "QUIVER_OPENAI_API_KEY": "sk-outage",
    }


def _stop_gracefully(process: subprocess.Popen[bytes]) -> None:
    """SIGINT, as a terminal's Ctrl-C: the server shuts down and flushes its log."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _problems_in(log: str) -> list[str]:
    """Lines of the server's log that show a failure rather than a degraded service."""
    problems = []
    for line in log.splitlines():
        if "never retrieved" in line or "Traceback" in line:
            problems.append(line)
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("level") in ("ERROR", "CRITICAL"):
            problems.append(line)
    return problems


async def _health(port: int) -> tuple[int, dict[str, Any]]:
    async with httpx.AsyncClient(trust_env=False, timeout=30) as client:
        response = await client.get(f"http://127.0.0.1:{port}/healthz")
    return response.status_code, response.json()


async def _metric(port: int, name: str) -> float:
    async with httpx.AsyncClient(trust_env=False, timeout=30) as client:
        text = (await client.get(f"http://127.0.0.1:{port}/metrics")).text
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def _until_healthy(port: int) -> dict[str, Any]:
    deadline = time.monotonic() + RECOVERY_WAIT_S
    while True:
        status, body = await _health(port)
        if status == 200 and body["status"] == "ok":
            return body
        assert time.monotonic() < deadline, f"not healthy again: {body}"
        await asyncio.sleep(0.2)


async def _call(port: int, expression: str, idempotency_key: str | None = None) -> dict[str, Any]:
    values: dict[str, Any] = {
        "spaceId": "sp_system",
        "toolId": "bt_calculator",
        "arguments": {"expression": expression},
    }
    if idempotency_key is not None:
        values["idempotencyKey"] = idempotency_key
    result: dict[str, Any] = (await _graphql(port, INVOKE_TOOL, {"input": values}))["invokeTool"]
    return result


class SubscriptionEndedError(Exception):
    """The subscription ended with errors; ``codes``, their ``extensions.code``."""

    def __init__(self, codes: list[str]) -> None:
        super().__init__(codes)
        self.codes = codes


async def _tool_call_events(port: int) -> AsyncGenerator[dict[str, Any], None]:
    async with websockets.connect(
        f"ws://127.0.0.1:{port}/graphql",
        subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
    ) as socket:
        await socket.send(
            json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {ADMIN_TOKEN}"}})
        )
        assert json.loads(await asyncio.wait_for(socket.recv(), 10))["type"] == "connection_ack"
        await socket.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": TOOL_CALLS}}))
        yield {}  # subscribed
        while True:
            message = json.loads(await asyncio.wait_for(socket.recv(), 30))
            assert message["type"] == "next", message
            if message["payload"].get("errors"):
                raise SubscriptionEndedError([error["extensions"]["code"] for error in message["payload"]["errors"]])
            yield message["payload"]["data"]["toolCalls"]


class TestServeThroughARedisOutage:
    def test_calls_go_on_while_redis_is_dead_and_shared_state_resumes_when_it_returns(
        self, tmp_path: Path, model_server: OpenAIServer
    ) -> None:
        with redis_server() as server:
            port, log = free_port(), tmp_path / "serve.log"
            process = _serve(port, _environment(tmp_path, server.url, model_server), log)
            try:
                _wait_healthy(port, process, log, timeout_s=STARTUP_WAIT_S)
                asyncio.run(self._outage(port, server, model_server))
            finally:
                _stop_gracefully(process)
        assert _problems_in(log.read_text()) == []

    async def _outage(self, port: int, server: RedisServer, model_server: OpenAIServer) -> None:
        status, body = await _health(port)
        assert isinstance(body.pop("worker"), int)
        assert (status, body) == (
            200,
            {"status": "ok", "checks": {"database": {"status": "ok"}, "redis": {"status": "ok"}}},
        )
        model = model_server.model(f"outage-{secrets.token_hex(3)}")
        created = await _graphql(
            port,
            CREATE_AGENT,
            {
                "input": {
                    "spaceId": "sp_system",
                    "name": "Outage agent",
                    "model": model.name,
                    "systemPrompt": "Be brief.",
                }
            },
        )
        agent_id = created["createAgent"]["agent"]["id"]
        events = _tool_call_events(port)
        await anext(events)
        # Let the subscription reach the server before Redis goes.
        assert (await _call(port, "1 + 1"))["status"] == "SUCCESS"
        assert (await anext(events))["status"] == "SUCCESS"

        server.kill()
        model.push(final("answered without Redis"))
        key = f"outage-{secrets.token_hex(4)}"
        results = await asyncio.gather(
            *(_call(port, f"{number} * 2") for number in range(CALLS)),
            _call(port, "40 + 2", key),
            _call(port, "40 + 2", key),
        )
        assert [result["status"] for result in results] == ["SUCCESS"] * (CALLS + 2), results
        assert [result["data"]["result"] for result in results[:CALLS]] == [number * 2 for number in range(CALLS)]
        # The idempotency key holds without Redis (its record is in the database): one call, one replay.
        assert results[-1]["data"] == results[-2]["data"]
        assert results[-1]["data"]["result"] == 42
        invoked = await _graphql(port, INVOKE_AGENT, {"input": {"agentId": agent_id, "message": "hello"}})
        assert invoked["invokeAgent"]["run"]["status"] == "SUCCEEDED"
        assert invoked["invokeAgent"]["run"]["output"] == "answered without Redis"

        # The subscriber is told that it misses what other replicas publish, not left silent.
        with pytest.raises(SubscriptionEndedError) as ended:
            while True:
                await anext(events)
        assert ended.value.codes == ["EVENTS_MISSED"]
        await events.aclose()

        status, body = await _health(port)
        assert status == 200
        assert body["status"] == "degraded"
        assert body["checks"]["database"] == {"status": "ok"}
        assert body["checks"]["redis"]["status"] == "unreachable"
        assert "Connect" in body["checks"]["redis"]["reason"]
        assert await _metric(port, "quiver_redis_up") == 0
        assert await _metric(port, "quiver_rate_limit_local_fallbacks_total") >= CALLS
        assert await _metric(port, "quiver_events_buffered") > 0

        server.start()
        assert (await _until_healthy(port))["checks"]["redis"] == {"status": "ok"}
        assert await _metric(port, "quiver_redis_up") == 1
        # Events and rate limits go through Redis again: the restarted (empty) Redis sees both.
        raw = redis.from_url(server.url)
        try:
            async with raw.pubsub() as pubsub:
                await pubsub.subscribe("quiver:0:tool_calls")
                result = await _call(port, "6 * 7")
                assert result["status"] == "SUCCESS"
                deadline = time.monotonic() + RECOVERY_WAIT_S
                published: list[Any] = []
                while result["call"]["id"] not in [event["id"] for event in published]:
                    assert time.monotonic() < deadline, "the call's event never reached Redis"
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if message is not None:
                        published.append(json.loads(message["data"])["event"])
            assert await raw.keys("LIMITS*") != []
        finally:
            await raw.aclose()

    def test_a_server_started_while_redis_is_down_serves_then_recovers(
        self, tmp_path: Path, model_server: OpenAIServer
    ) -> None:
        with redis_server(started=False) as server:
            port, log = free_port(), tmp_path / "serve.log"
            process = _serve(port, _environment(tmp_path, server.url, model_server), log)
            try:
                _wait_healthy(port, process, log, timeout_s=STARTUP_WAIT_S)
                asyncio.run(self._down_from_the_start(port, server))
            finally:
                _stop_gracefully(process)
        assert _problems_in(log.read_text()) == []

    async def _down_from_the_start(self, port: int, server: RedisServer) -> None:
        assert (await _call(port, "2 + 3"))["data"]["result"] == 5
        status, body = await _health(port)
        assert (status, body["status"], body["checks"]["redis"]["status"]) == (200, "degraded", "unreachable")
        server.start()
        await _until_healthy(port)
        assert (await _call(port, "3 + 4"))["data"]["result"] == 7
