"""Two `quiver serve` replicas sharing PostgreSQL and Redis: a subscriber on one replica
receives, live, the tool calls of a run invoked on the other; a tool disabled on one
replica is refused by the other's gateway at once, and so is an API key revoked on it
(their caches hear of it over Redis)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from cryptography.fernet import Fernet

from tests.databases import postgres_database, require_redis
from tests.support.openai_server import OpenAIServer, call, final, running_openai_server, tool_calls
from tests.support.processes import REPOSITORY_ROOT, free_port, stop

ADMIN_TOKEN = "replica-test-admin-token"
QUIVER = Path(sys.executable).parent / "quiver"


@pytest.fixture(scope="module")
def model_server() -> Iterator[OpenAIServer]:
    with running_openai_server() as server:
        yield server


def _serve(port: int, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(QUIVER), "serve", "--port", str(port)],
        cwd=log.parent,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )


def _wait_healthy(port: int, process: subprocess.Popen[bytes], log: Path, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"replica on {port} exited:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1, trust_env=False).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"replica on {port} not healthy in {timeout_s}s:\n{log.read_text()[-3000:]}")


async def _graphql(port: int, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    async with httpx.AsyncClient(trust_env=False, timeout=60) as client:
        response = await client.post(
            f"http://127.0.0.1:{port}/graphql",
            json={"query": query, "variables": variables or {}},
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


class TestReplicasShareEvents:
    def test_subscriber_on_one_replica_receives_calls_of_a_run_on_the_other(
        self, model_server: OpenAIServer, tmp_path: Path
    ) -> None:
        redis_url = asyncio.run(require_redis())
        model = model_server.model("replicas")
        model.push(
            tool_calls(call("calculator", {"expression": "6 * 7"}), call("current_time", {"timezone": "UTC"})),
            final("The answer is 42."),
        )
        with postgres_database("quiver_replicas") as database_url:
            env = {
                **os.environ,
                "PYTHONPATH": str(REPOSITORY_ROOT),
                "QUIVER_DATABASE_URL": database_url,
                "QUIVER_REDIS_URL": redis_url,
                "QUIVER_SECRET_KEY": Fernet.generate_key().decode(),
                "QUIVER_ADMIN_TOKEN": ADMIN_TOKEN,
                "QUIVER_OPENAI_BASE_URL": model_server.base_url,
                "QUIVER_OPENAI_API_KEY": "sk-replicas",
            }
            port_a, port_b = free_port(), free_port()
            log_a, log_b = tmp_path / "a.log", tmp_path / "b.log"
            replica_a = replica_b = None
            try:
                # One after the other: the first one migrates the shared database.
                replica_a = _serve(port_a, env, log_a)
                _wait_healthy(port_a, replica_a, log_a)
                replica_b = _serve(port_b, env, log_b)
                _wait_healthy(port_b, replica_b, log_b)
                asyncio.run(self._check_fan_out(port_a, port_b, model.name))
                asyncio.run(self._check_catalog_change_reaches_the_other_gateway(port_a, port_b))
                asyncio.run(self._check_revoked_key_is_refused_by_the_other_replica(port_a, port_b))
            finally:
                stop(replica_a)
                stop(replica_b)

    async def _check_fan_out(self, port_a: int, port_b: int, model_name: str) -> None:
        created = await _graphql(
            port_a,
            """mutation Agent($input: CreateAgentInput!) {
                 createAgent(input: $input) { agent { id } userErrors { code } } }""",
            {
                "input": {
                    "spaceId": "sp_system",
                    "name": "Replica agent",
                    "model": model_name,
                    "systemPrompt": "You compute.",
                    "activatedToolIds": ["bt_calculator", "bt_current_time"],
                }
            },
        )
        agent_id = created["createAgent"]["agent"]["id"]
        async with websockets.connect(
            f"ws://127.0.0.1:{port_b}/graphql",
            subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
        ) as socket:
            init = {"type": "connection_init", "payload": {"Authorization": f"Bearer {ADMIN_TOKEN}"}}
            await socket.send(json.dumps(init))
            assert json.loads(await asyncio.wait_for(socket.recv(), 10))["type"] == "connection_ack"
            await socket.send(
                json.dumps(
                    {
                        "id": "calls",
                        "type": "subscribe",
                        "payload": {
                            "query": "subscription Calls($agent: ID) { toolCalls(filter: {agentId: $agent}) "
                            "{ id toolId status run { id } } }",
                            "variables": {"agent": agent_id},
                        },
                    }
                )
            )
            await asyncio.sleep(0.5)  # the subscription reaches Redis before the run starts
            invoked = await _graphql(
                port_a,
                """mutation Run($input: InvokeAgentInput!) { invokeAgent(input: $input) {
                     run { id status output toolCalls { id } } userErrors { code message } } }""",
                {"input": {"agentId": agent_id, "message": "What is 6 * 7?"}},
            )
            run = invoked["invokeAgent"]["run"]
            assert run["status"] == "SUCCEEDED", invoked
            received: list[dict[str, Any]] = []
            while len(received) < 2:
                message = json.loads(await asyncio.wait_for(socket.recv(), 10))
                assert message["type"] == "next", message
                received.append(message["payload"]["data"]["toolCalls"])
        assert sorted(call["toolId"] for call in received) == ["bt_calculator", "bt_current_time"]
        assert {call["run"]["id"] for call in received} == {run["id"]}
        assert {call["id"] for call in received} == {call["id"] for call in run["toolCalls"]}
        assert all(call["status"] == "SUCCESS" for call in received)

    async def _check_catalog_change_reaches_the_other_gateway(self, port_a: int, port_b: int) -> None:
        invoke = """mutation Invoke($input: InvokeToolInput!) { invokeTool(input: $input) { status error { code } } }"""
        arguments = {"input": {"spaceId": "sp_system", "toolId": "bt_calculator", "arguments": {"expression": "1+1"}}}
        # B resolves the tool and keeps it in its cache (entries live 5 s without a change).
        for _ in range(3):
            assert (await _graphql(port_b, invoke, arguments))["invokeTool"]["status"] == "SUCCESS"
        disabled = await _graphql(
            port_a,
            """mutation Off($input: SetStatusInput!) { setStatus(input: $input) { userErrors { code } } }""",
            {"input": {"id": "bt_calculator", "status": "DISABLED"}},
        )
        assert disabled["setStatus"]["userErrors"] == []
        # Well inside the cache's TTL: only the change relayed over Redis can explain a refusal.
        deadline = time.monotonic() + 1.0
        while True:
            result = (await _graphql(port_b, invoke, arguments))["invokeTool"]
            if result["status"] == "FAILED":
                break
            assert time.monotonic() < deadline, "replica B still runs a tool replica A disabled"
            await asyncio.sleep(0.02)
        assert result["error"]["code"] == "TOOL_NOT_AVAILABLE"

    async def _check_revoked_key_is_refused_by_the_other_replica(self, port_a: int, port_b: int) -> None:
        created = await _graphql(
            port_a,
            """mutation Key($input: CreateApiKeyInput!) {
                 createApiKey(input: $input) { secret apiKey { id } userErrors { code } } }""",
            {"input": {"role": "VIEWER", "spaceId": "sp_system", "label": "replica test"}},
        )
        secret, key_id = created["createApiKey"]["secret"], created["createApiKey"]["apiKey"]["id"]

        async def status_on_b() -> int:
            async with httpx.AsyncClient(trust_env=False, timeout=30) as client:
                response = await client.post(
                    f"http://127.0.0.1:{port_b}/graphql",
                    json={"query": "{ viewer { roles } }"},
                    headers={"Authorization": f"Bearer {secret}"},
                )
            return response.status_code

        # B authenticates the key and keeps it in its cache (entries live 5 s without a change).
        for _ in range(3):
            assert await status_on_b() == 200
        revoked = await _graphql(
            port_a,
            """mutation Revoke($input: RevokeApiKeyInput!) { revokeApiKey(input: $input) { userErrors { code } } }""",
            {"input": {"id": key_id}},
        )
        assert revoked["revokeApiKey"]["userErrors"] == []
        # Well inside the cache's TTL: only the change relayed over Redis can explain a refusal.
        deadline = time.monotonic() + 1.0
        while await status_on_b() == 200:
            assert time.monotonic() < deadline, "replica B still accepts a key replica A revoked"
            await asyncio.sleep(0.02)
