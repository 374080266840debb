"""Runs survive their replica: `quiver serve` processes killed with SIGKILL during async runs
and during approvals, then restarted, observed only through the API.

- A replica dies during 20 runs (some in a model call, some with a WRITE call in flight):
  after a restart every run is continued from its last completed step and succeeds, no WRITE
  call is executed twice (a call that may have run is INTERRUPTED, never repeated), a
  subscriber gets FINISHED, and invokeAgent with the same idempotency key answers with the
  same run once it is done.
- Two replicas on PostgreSQL + Redis: a run waits for approval, both replicas are killed and
  restarted, the decision taken on one replica continues the run, a subscriber on the other
  follows it to FINISHED.
- A run started while Redis is down finishes (its bookkeeping never depends on the bus).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from cryptography.fernet import Fernet

from app.config import Settings
from tests.conftest import Keys
from tests.databases import postgres_database, require_redis
from tests.schema.runtime import create_agent, invoke, runtime_app
from tests.support.http_tool_server import ToolServer, running_tool_server
from tests.support.openai_server import OpenAIServer, Step, call, final, respond, running_openai_server, tool_calls
from tests.support.processes import REPOSITORY_ROOT, free_port, stop
from tests.test_replicas import ADMIN_TOKEN, _graphql, _serve, _wait_healthy

RUNS = 20
LEASE_S = "2"
WRITE_SECONDS = 3

RUN = """query Run($id: ID!) { agentRun(id: $id) {
  id status output steps finishedAt error { code }
  toolCalls { id toolId status arguments error { code } approval { decision } } } }"""
INVOKE = """mutation Invoke($input: InvokeAgentInput!) { invokeAgent(input: $input) {
  run { id status output } userErrors { code message } } }"""
CREATE_TOOL = """mutation Tool($input: CreateToolInput!) { createTool(input: $input) {
  tool { id } userErrors { code message } } }"""
CREATE_AGENT = """mutation Agent($input: CreateAgentInput!) { createAgent(input: $input) {
  agent { id } userErrors { code message } } }"""
PENDING = """query Pending($space: ID!) { pendingApprovals(spaceId: $space) {
  totalCount edges { node { id run { id status } } } } }"""
APPROVE = """mutation Approve($input: ApproveToolCallInput!) { approveToolCall(input: $input) {
  toolCall { id } userErrors { code message } } }"""
RUN_EVENTS = "subscription Events($id: ID!) { agentRunEvents(runId: $id) { kind run { id status } } }"


@pytest.fixture(scope="module")
def model_server() -> Iterator[OpenAIServer]:
    with running_openai_server() as server:
        yield server


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


def _environment(database_url: str, model_server: OpenAIServer, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(REPOSITORY_ROOT),
        "QUIVER_DATABASE_URL": database_url,
        "QUIVER_SECRET_KEY": Fernet.generate_key().decode(),
        "QUIVER_ADMIN_TOKEN": ADMIN_TOKEN,
        "QUIVER_OPENAI_BASE_URL": model_server.base_url,
        "QUIVER_OPENAI_API_KEY": "sk-recovery",
        "QUIVER_EGRESS_ALLOWLIST": "127.0.0.1",
        "QUIVER_RUN_LEASE_S": LEASE_S,
        **extra,
    }


def _job_script(write_tool_name: str) -> Step:
    """Each run: a WRITE call and a calculator call for its job number, then an answer."""

    def answer(body: dict[str, Any]) -> Step:
        user = next(message["content"] for message in body["messages"] if message["role"] == "user")
        job = re.search(r"job (\d+)", user)
        assert job is not None
        number = job.group(1)
        if not any(message["role"] == "tool" for message in body["messages"]):
            return tool_calls(
                call(write_tool_name, {"ref": number}), call("calculator", {"expression": f"{number} + 1"})
            )
        return final(f"done {number}")

    return respond(answer, delay_s=0.2)


async def _run(port: int, run_id: str) -> dict[str, Any]:
    run: dict[str, Any] = (await _graphql(port, RUN, {"id": run_id}))["agentRun"]
    return run


async def _subscribe(
    port: int, run_id: str, query: str = RUN_EVENTS, field: str = "agentRunEvents"
) -> AsyncIterator[dict[str, Any]]:
    """The events of a subscription (``query`` with variable ``id``) over graphql-transport-ws, until complete."""
    async with websockets.connect(
        f"ws://127.0.0.1:{port}/graphql",
        subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
    ) as socket:
        await socket.send(
            json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {ADMIN_TOKEN}"}})
        )
        assert json.loads(await asyncio.wait_for(socket.recv(), 10))["type"] == "connection_ack"
        await socket.send(
            json.dumps({"id": "events", "type": "subscribe", "payload": {"query": query, "variables": {"id": run_id}}})
        )
        while True:
            message = json.loads(await asyncio.wait_for(socket.recv(), 60))
            if message["type"] == "complete":
                return
            assert message["type"] == "next", message
            yield message["payload"]["data"][field]


async def _wait_finished(port: int, run_ids: list[str], timeout_s: float = 90.0) -> dict[str, dict[str, Any]]:
    deadline = time.monotonic() + timeout_s
    while True:
        runs = {run_id: await _run(port, run_id) for run_id in run_ids}
        if all(run["finishedAt"] for run in runs.values()):
            return runs
        if time.monotonic() > deadline:
            stuck = {run_id: run["status"] for run_id, run in runs.items() if not run["finishedAt"]}
            raise AssertionError(f"runs not finished in {timeout_s}s: {stuck}")
        await asyncio.sleep(0.2)


async def _record_tool(port: int, tool_server: ToolServer, write_key: str) -> str:
    """The WRITE tool ``record`` (no retries): each call counted under ``write_key``, taking WRITE_SECONDS."""
    tool = await _graphql(
        port,
        CREATE_TOOL,
        {
            "input": {
                "name": "record",
                "label": "Record",
                "description": "Record a job (a write).",
                "inputSchema": {"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]},
                "endpoint": tool_server.url(f"/count-write/{write_key}?seconds={WRITE_SECONDS}"),
                "sideEffect": "WRITE",
                "maxRetries": 0,
            }
        },
    )
    tool_id: str = tool["createTool"]["tool"]["id"]
    return tool_id


class TestKilledReplica:
    def test_runs_of_a_killed_replica_are_continued_and_no_write_runs_twice(
        self, model_server: OpenAIServer, tool_server: ToolServer, tmp_path: Path
    ) -> None:
        database_url = f"sqlite+aiosqlite:///{tmp_path}/recovery.db"
        env = _environment(database_url, model_server)
        port = free_port()
        log = tmp_path / "serve.log"
        process = _serve(port, env, log)
        try:
            _wait_healthy(port, process, log)
            write_key = f"rec-{secrets.token_hex(4)}"
            model = model_server.model("recovery")
            model.push(*[_job_script("record") for _ in range(RUNS * 4)])
            agent_id, tool_id, run_ids = asyncio.run(self._start(port, tool_server, write_key, model.name))

            # Kill once several WRITE calls are in flight (each takes WRITE_SECONDS).
            deadline = time.monotonic() + 60
            while len(asyncio.run(tool_server.requests("count-write", write_key))) < 5:
                assert time.monotonic() < deadline, log.read_text()[-3000:]
                time.sleep(0.05)
            before = {run_id: asyncio.run(_run(port, run_id)) for run_id in run_ids}
            process.kill()
            process.wait(timeout=10)
            assert all(run["status"] == "RUNNING" for run in before.values())

            process = _serve(port, env, log)
            _wait_healthy(port, process, log)
            asyncio.run(self._check(port, tool_server, write_key, tool_id, run_ids, agent_id))
        finally:
            stop(process)

    async def _start(
        self, port: int, tool_server: ToolServer, write_key: str, model_name: str
    ) -> tuple[str, str, list[str]]:
        tool_id = await _record_tool(port, tool_server, write_key)
        agent = await _graphql(
            port,
            CREATE_AGENT,
            {
                "input": {
                    "spaceId": "sp_system",
                    "name": "Recovery agent",
                    "model": model_name,
                    "systemPrompt": "You record jobs.",
                    "activatedToolIds": [tool_id, "bt_calculator"],
                }
            },
        )
        agent_id = agent["createAgent"]["agent"]["id"]
        run_ids = []
        for number in range(RUNS):
            run_input: dict[str, Any] = {"agentId": agent_id, "message": f"Please do job {number}", "async": True}
            if number == 0:
                run_input["idempotencyKey"] = "recovery-job-0"
            started = await _graphql(port, INVOKE, {"input": run_input})
            assert started["invokeAgent"]["userErrors"] == []
            run_ids.append(started["invokeAgent"]["run"]["id"])
        return agent_id, tool_id, run_ids

    async def _check(
        self, port: int, tool_server: ToolServer, write_key: str, tool_id: str, run_ids: list[str], agent_id: str
    ) -> None:
        # A subscriber of a run orphaned by the crash is told when a live replica finished it.
        events = _subscribe(port, run_ids[-1])
        first = await anext(events)
        kinds = [first["kind"]]
        async for event in events:
            kinds.append(event["kind"])
        assert kinds[-1] == "FINISHED", kinds

        runs = await _wait_finished(port, run_ids)

        writes = await tool_server.requests("count-write", write_key)
        executions: dict[str, int] = {}
        for entry in writes:
            executions[entry["body"]["ref"]] = executions.get(entry["body"]["ref"], 0) + 1
        assert max(executions.values()) == 1, executions  # no WRITE ran twice
        interrupted = 0
        for number, run_id in enumerate(run_ids):
            run = runs[run_id]
            assert run["status"] == "SUCCEEDED", run
            assert run["output"] == f"done {number}"
            assert run["steps"] == 2
            [write] = [item for item in run["toolCalls"] if item["toolId"] == tool_id]
            if write["status"] == "SUCCESS":
                assert executions.get(str(number)) == 1
            else:
                assert write["error"]["code"] == "INTERRUPTED", write
                assert executions.get(str(number), 0) <= 1
                interrupted += 1
            [calculation] = [item for item in run["toolCalls"] if item["toolId"] == "bt_calculator"]
            assert calculation["status"] == "SUCCESS"
        assert interrupted >= 1, "the kill was meant to catch WRITE calls in flight"

        # The same request again, with its idempotency key: the same run, not a new one.
        again = await _graphql(
            port,
            INVOKE,
            {"input": {"agentId": agent_id, "message": "Please do job 0", "idempotencyKey": "recovery-job-0"}},
        )
        assert again["invokeAgent"]["run"] == {"id": run_ids[0], "status": "SUCCEEDED", "output": "done 0"}


class TestApprovalAcrossRestarts:
    def test_a_decision_on_one_replica_after_both_restarted_continues_the_run(
        self, model_server: OpenAIServer, tool_server: ToolServer, tmp_path: Path
    ) -> None:
        redis_url = asyncio.run(require_redis())
        with postgres_database("quiver_approvals") as database_url:
            env = _environment(database_url, model_server, QUIVER_REDIS_URL=redis_url)
            ports = [free_port(), free_port()]
            logs = [tmp_path / "a.log", tmp_path / "b.log"]
            processes: list[subprocess.Popen[bytes] | None] = [None, None]
            write_key = f"appr-{secrets.token_hex(4)}"
            model = model_server.model("approval-replicas")
            try:
                for index in (0, 1):
                    processes[index] = _serve(ports[index], env, logs[index])
                    _wait_healthy(ports[index], processes[index], logs[index])  # type: ignore[arg-type]
                run_id, tool_id = asyncio.run(self._wait_for_approval(ports[0], tool_server, write_key, model))
                for process in processes:
                    stop(process)
                for index in (0, 1):
                    processes[index] = _serve(ports[index], env, logs[index])
                    _wait_healthy(ports[index], processes[index], logs[index])  # type: ignore[arg-type]
                model.push(final("Refund sent."))
                asyncio.run(self._approve_on_b_follow_on_a(ports, run_id, tool_id))
                assert len(asyncio.run(tool_server.requests("count-write", write_key))) == 1
            finally:
                for process in processes:
                    stop(process)

    async def _wait_for_approval(
        self, port: int, tool_server: ToolServer, write_key: str, model: Any
    ) -> tuple[str, str]:
        tool = await _graphql(
            port,
            CREATE_TOOL,
            {
                "input": {
                    "name": "refund",
                    "label": "Refund",
                    "description": "Refund an order.",
                    "inputSchema": {"type": "object", "properties": {"order": {"type": "string"}}},
                    "endpoint": tool_server.url(f"/count-write/{write_key}"),
                    "sideEffect": "WRITE",
                    "approval": "ALWAYS",
                }
            },
        )
        tool_id = tool["createTool"]["tool"]["id"]
        agent = await _graphql(
            port,
            CREATE_AGENT,
            {
                "input": {
                    "spaceId": "sp_system",
                    "name": "Refunder",
                    "model": model.name,
                    "systemPrompt": "You refund.",
                    "activatedToolIds": [tool_id],
                }
            },
        )
        model.push(tool_calls(call("refund", {"order": "A-1"})))
        started = await _graphql(
            port,
            INVOKE,
            {"input": {"agentId": agent["createAgent"]["agent"]["id"], "message": "Refund A-1", "async": True}},
        )
        run_id = started["invokeAgent"]["run"]["id"]
        deadline = time.monotonic() + 30
        while (await _run(port, run_id))["status"] != "WAITING_APPROVAL":
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        return run_id, tool_id

    async def _approve_on_b_follow_on_a(self, ports: list[int], run_id: str, tool_id: str) -> None:
        port_a, port_b = ports
        waiting = (await _graphql(port_b, PENDING, {"space": "sp_system"}))["pendingApprovals"]
        [node] = [edge["node"] for edge in waiting["edges"] if edge["node"]["run"]["id"] == run_id]
        assert node["run"]["status"] == "WAITING_APPROVAL"
        events = _subscribe(port_a, run_id)
        first = await anext(events)
        assert first["kind"] == "STARTED"  # replayed for a run already under way
        replayed = await anext(events)
        assert replayed["kind"] == "APPROVAL_REQUESTED"  # the request still open, replayed
        decided = await _graphql(port_b, APPROVE, {"input": {"toolCallId": node["id"], "comment": "go"}})
        assert decided["approveToolCall"]["userErrors"] == []
        kinds = [event["kind"] async for event in events]
        assert kinds[0] == "APPROVAL_DECIDED", kinds
        assert "TOOL_CALL_FINISHED" in kinds
        assert kinds[-1] == "FINISHED"
        run = await _run(port_a, run_id)
        assert run["status"] == "SUCCEEDED" and run["output"] == "Refund sent."
        [refund] = run["toolCalls"]
        assert refund["id"] == node["id"]
        assert refund["status"] == "SUCCESS"
        assert refund["approval"] == {"decision": "APPROVED"}


class TestRedisDown:
    async def test_a_run_started_while_redis_is_down_finishes(
        self, settings: Settings, keys: Keys, admin_key: str
    ) -> None:
        dead_redis = f"redis://127.0.0.1:{free_port()}/0"
        with running_openai_server() as server:
            model = server.model("no-redis")
            model.push(final("fine without the bus"))
            async with runtime_app(settings, server, redis_url=dead_redis) as app:
                space = await keys.space("busless")
                gql = app.client(admin_key)
                agent = await create_agent(gql, space.id, model.name)
                run = await invoke(gql, agent["id"], "hello")
        assert run["status"] == "SUCCEEDED"
        assert run["output"] == "fine without the bus"
        assert run["finishedAt"] is not None
