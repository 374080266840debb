"""approvalRequests: a space's approval requests, decisions and expiries, live over
graphql-transport-ws — across two replicas sharing Redis, only to the space's keys."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession

from app.config import Settings
from app.main import create_app
from app.principal import Role
from app.runtime.service import approvals_topic
from tests.conftest import Keys
from tests.databases import require_redis
from tests.schema.runtime import RuntimeApp, create_agent, runtime_app, runtime_settings
from tests.schema.runtime.test_run_events import connect, invoke_over_http, post, receive_message, wait_for_subscribers
from tests.support.openai_server import OpenAIServer, ScriptedModel, call, final, tool_calls
from tests.support.openai_server import openai_server as openai_server

APPROVAL_REQUESTS = """
subscription Approvals($spaceId: ID!) {
  approvalRequests(spaceId: $spaceId) {
    kind at toolCallId
    toolCall { id toolId status arguments approval { decision comment } run { id status } }
  }
}
"""

RUN = "query R($id: ID!) { agentRun(id: $id) { status toolCalls { id status } } }"
APPROVE = """
mutation A($input: ApproveToolCallInput!) {
  approveToolCall(input: $input) { run { status } userErrors { code } }
}
"""
REJECT = """
mutation J($input: RejectToolCallInput!) {
  rejectToolCall(input: $input) { run { status } userErrors { code } }
}
"""


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server) as app:
        yield app


@dataclass
class World:
    space_id: str
    other_space_id: str
    admin_key: str
    viewer_key: str
    other_admin_key: str
    model: ScriptedModel
    agent_id: str


@pytest.fixture
async def world(quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer) -> World:
    """An agent whose calculator calls always wait for a person, a VIEWER of its space, and
    a SPACE_ADMIN of another space."""
    space = await keys.space("approval_events")
    other = await keys.space("approval_events_other")
    model = openai_server.model("approval-events")
    agent = await create_agent(
        quiver.client(admin_key),
        space.id,
        model.name,
        activatedToolIds=["bt_calculator"],
        toolApprovals=[{"toolId": "bt_calculator", "approval": "ALWAYS"}],
    )
    return World(
        space.id,
        other.id,
        admin_key,
        await keys.for_space(space.id, Role.VIEWER),
        await keys.for_space(other.id, Role.SPACE_ADMIN),
        model,
        agent["id"],
    )


def subscribe(ws: WebSocketTestSession, key: str, space_id: str, operation_id: str = "approvals") -> None:
    connect(ws, key)
    ws.send_json(
        {
            "id": operation_id,
            "type": "subscribe",
            "payload": {"query": APPROVAL_REQUESTS, "variables": {"spaceId": space_id}},
        }
    )


def next_event(ws: WebSocketTestSession) -> dict[str, Any]:
    message = receive_message(ws)
    assert message is not None, "no approval event"
    assert message["type"] == "next", message
    assert "errors" not in message["payload"], message
    event: dict[str, Any] = message["payload"]["data"]["approvalRequests"]
    return event


def wait_for_waiting(client: TestClient, key: str, run_id: str) -> dict[str, Any]:
    for _ in range(400):
        run: dict[str, Any] = post(client, key, RUN, {"id": run_id})["agentRun"]
        if run["status"] == "WAITING_APPROVAL":
            return run
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} never waited for approval")


def wait_until_finished(client: TestClient, key: str, run_id: str) -> dict[str, Any]:
    """The run once it has finished: a run still writing when its app closes (SQLite) holds the
    database's write lock into the next test's clean-up ('database is locked')."""
    for _ in range(400):
        run: dict[str, Any] = post(client, key, RUN, {"id": run_id})["agentRun"]
        if run["status"] in ("SUCCEEDED", "FAILED", "MAX_STEPS"):
            return run
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} never finished")


def follow_across_replicas(settings: Settings, world: World, *, approve: bool) -> list[dict[str, Any]]:
    """A VIEWER subscribes on replica A; the run starts and the decision is taken on replica B."""
    with (
        TestClient(create_app(settings)) as replica_a,
        TestClient(create_app(settings)) as replica_b,
        replica_a.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
    ):
        subscribe(ws, world.viewer_key, world.space_id)
        wait_for_subscribers(replica_a, approvals_topic(world.space_id))
        run = invoke_over_http(replica_b, world.admin_key, world.agent_id, "What is 6 * 7?", run_async=True)
        requested = next_event(ws)
        waiting = wait_for_waiting(replica_b, world.admin_key, run["id"])
        (call_row,) = waiting["toolCalls"]
        if approve:
            decided = post(
                replica_b, world.admin_key, APPROVE, {"input": {"toolCallId": call_row["id"], "comment": "fine"}}
            )["approveToolCall"]
        else:
            decided = post(
                replica_b, world.admin_key, REJECT, {"input": {"toolCallId": call_row["id"], "reason": "no"}}
            )["rejectToolCall"]
        assert decided["userErrors"] == [], decided
        event = next_event(ws)
        wait_until_finished(replica_b, world.admin_key, run["id"])
        return [requested, event, {"run": run, "call": call_row}]


class TestApprovalRequests:
    async def test_a_request_and_its_approval_reach_a_viewer_on_another_replica(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        world.model.push(tool_calls(call("calculator", {"expression": "6 * 7"})), final("42"))
        shared = runtime_settings(settings, openai_server, redis_url=await require_redis())

        requested, decided, started = await asyncio.to_thread(follow_across_replicas, shared, world, approve=True)

        call_id = started["call"]["id"]
        assert requested["kind"] == "REQUESTED"
        assert requested["toolCallId"] == call_id
        assert requested["toolCall"]["toolId"] == "bt_calculator"
        assert requested["toolCall"]["arguments"] == {"expression": "6 * 7"}
        assert requested["toolCall"]["run"]["id"] == started["run"]["id"]
        assert requested["toolCall"]["approval"]["decision"] == "PENDING"
        assert decided["kind"] == "DECIDED"
        assert decided["toolCallId"] == call_id
        assert decided["toolCall"]["approval"] == {"decision": "APPROVED", "comment": "fine"}

    async def test_a_rejection_is_an_event_with_its_reason(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        world.model.push(tool_calls(call("calculator", {"expression": "1 + 1"})), final("refused"))
        shared = runtime_settings(settings, openai_server, redis_url=await require_redis())

        requested, decided, _ = await asyncio.to_thread(follow_across_replicas, shared, world, approve=False)

        assert requested["kind"] == "REQUESTED"
        assert decided["kind"] == "DECIDED"
        assert decided["toolCall"]["approval"] == {"decision": "REJECTED", "comment": "no"}

    async def test_another_spaces_key_is_refused_and_hears_nothing(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        def refused() -> dict[str, Any] | None:
            with (
                TestClient(create_app(runtime_settings(settings, openai_server))) as client,
                client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
            ):
                subscribe(ws, world.other_admin_key, world.space_id)
                return receive_message(ws)

        message = await asyncio.to_thread(refused)

        assert message is not None and message["type"] == "next", message
        assert message["payload"]["data"] is None
        assert message["payload"]["errors"][0]["extensions"]["code"] == "NOT_FOUND"

    async def test_an_unanswered_request_expires_as_an_event(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        world.model.push(tool_calls(call("calculator", {"expression": "2 + 2"})), final("too late"))
        quick = runtime_settings(settings, openai_server, approval_timeout_s=1.0, run_lease_s=0.5)

        def follow() -> list[dict[str, Any]]:
            with (
                TestClient(create_app(quick)) as client,
                client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
            ):
                subscribe(ws, world.admin_key, world.space_id)
                wait_for_subscribers(client, approvals_topic(world.space_id))
                run = invoke_over_http(client, world.admin_key, world.agent_id, "What is 2 + 2?", run_async=True)
                events = [next_event(ws), next_event(ws)]
                wait_until_finished(client, world.admin_key, run["id"])
                return events

        requested, expired = await asyncio.to_thread(follow)

        assert requested["kind"] == "REQUESTED"
        assert expired["kind"] == "EXPIRED"
        assert expired["toolCallId"] == requested["toolCallId"]
        assert expired["toolCall"]["approval"]["decision"] == "EXPIRED"

    async def test_it_counts_toward_the_tenants_subscription_cap(self, world: World, settings: Settings) -> None:
        capped = settings.model_copy(update={"max_subscriptions_per_tenant": 1})

        def second_is_refused() -> tuple[int, dict[str, Any] | None]:
            with (
                TestClient(create_app(capped)) as client,
                client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as first,
                client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as second,
            ):
                subscribe(first, world.viewer_key, world.space_id, "first")
                wait_for_subscribers(client, approvals_topic(world.space_id))
                counted = client.app.state.operation_cap.open(world.space_id)  # type: ignore[attr-defined]
                subscribe(second, world.viewer_key, world.space_id, "second")
                return counted, receive_message(second)

        counted, refusal = await asyncio.to_thread(second_is_refused)

        assert counted == 1
        assert refusal is not None and refusal["type"] == "error" and refusal["id"] == "second", refusal
        assert refusal["payload"][0]["extensions"] == {"code": "TOO_MANY_SUBSCRIPTIONS", "limit": 1}
