"""agentRunEvents over graphql-transport-ws: the events of a run, in order, with the
tool calls they carry and MESSAGE_DELTA when the model streams."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio
import pytest
from starlette.testclient import TestClient, WebSocketTestSession

from app.config import Settings
from app.gateway.service import TOOL_CALLS_TOPIC
from app.main import create_app
from app.principal import Role
from app.runtime.service import run_topic
from tests.conftest import Keys
from tests.schema.runtime import INVOKE_AGENT, RuntimeApp, create_agent, runtime_app, runtime_settings
from tests.support.openai_server import OpenAIServer, ScriptedModel, call, final, tool_calls
from tests.support.openai_server import openai_server as openai_server

RECEIVE_TIMEOUT_S = 15.0

RUN_EVENTS = """
subscription RunEvents($runId: ID!) {
  agentRunEvents(runId: $runId) {
    kind step toolId delta at
    run { id status steps output }
    toolCall { id toolId status result }
  }
}
"""

AGENT_TOOL_CALLS = """
subscription AgentToolCalls($agentId: ID!) {
  toolCalls(filter: {agentId: $agentId}) { id toolId status }
}
"""

RUN_TOOL_CALLS = (
    "query RunToolCalls($id: ID!) "
    "{ agentRun(id: $id) { status output promptTokens completionTokens toolCalls { id toolId } } }"
)


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server) as app:
        yield app


@dataclass
class World:
    space_id: str
    admin_key: str
    model: ScriptedModel
    agent_id: str


@pytest.fixture
async def world(quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer) -> World:
    space = await keys.space("alpha")
    model = openai_server.model()
    agent = await create_agent(
        quiver.client(admin_key), space.id, model.name, activatedToolIds=["bt_calculator", "bt_current_time"]
    )
    return World(space.id, admin_key, model, agent["id"])


# ---------------------------------------------------------------- graphql-transport-ws, on the client's thread


def receive_message(ws: WebSocketTestSession, timeout_s: float = RECEIVE_TIMEOUT_S) -> dict[str, Any] | None:
    """The next graphql-transport-ws message, or None when none arrives in time."""

    async def receive() -> Any:
        with anyio.move_on_after(timeout_s):
            # The session's own receive() has no timeout; read its stream directly.
            return await ws._send_rx.receive()
        return None

    message = ws.portal.call(receive)
    if message is None:
        return None
    assert message["type"] == "websocket.send", message
    parsed: dict[str, Any] = json.loads(message["text"])
    return parsed


def connect(ws: WebSocketTestSession, key: str) -> None:
    ws.send_json({"type": "connection_init", "payload": {"Authorization": f"Bearer {key}"}})
    ack = receive_message(ws)
    assert ack is not None and ack["type"] == "connection_ack", ack


def wait_for_subscribers(client: TestClient, topic: str, count: int = 1) -> None:
    bus = client.app.state.services.bus  # type: ignore[attr-defined]
    deadline = time.monotonic() + RECEIVE_TIMEOUT_S
    while bus.subscriber_count(topic) < count:
        assert time.monotonic() < deadline, f"the subscription never reached the event bus ({topic})"
        time.sleep(0.01)


def post(client: TestClient, key: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    response = client.post(
        "/graphql", json={"query": query, "variables": variables}, headers={"Authorization": f"Bearer {key}"}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


def invoke_over_http(client: TestClient, key: str, agent_id: str, message: str, *, run_async: bool) -> dict[str, Any]:
    payload = post(client, key, INVOKE_AGENT, {"input": {"agentId": agent_id, "message": message, "async": run_async}})[
        "invokeAgent"
    ]
    assert payload["userErrors"] == [], payload
    run: dict[str, Any] = payload["run"]
    return run


def events_until_complete(ws: WebSocketTestSession, subscription_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while True:
        message = receive_message(ws)
        assert message is not None, f"no FINISHED after {[event['kind'] for event in events]}"
        assert message.get("id") == subscription_id, message
        if message["type"] == "complete":
            return events
        assert message["type"] == "next", message
        assert "errors" not in message["payload"], message
        events.append(message["payload"]["data"]["agentRunEvents"])


@dataclass
class Followed:
    run: dict[str, Any]
    events: list[dict[str, Any]]
    final: dict[str, Any]

    @property
    def kinds(self) -> list[str]:
        return [event["kind"] for event in self.events]


def follow_async_run(settings: Settings, key: str, agent_id: str, message: str, gate: threading.Event) -> Followed:
    """Start an async run, subscribe to its events, then let the model answer (open ``gate``)."""
    with (
        TestClient(create_app(settings)) as client,
        client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
    ):
        connect(ws, key)
        run = invoke_over_http(client, key, agent_id, message, run_async=True)
        assert run["status"] == "RUNNING"
        ws.send_json(
            {"id": "run", "type": "subscribe", "payload": {"query": RUN_EVENTS, "variables": {"runId": run["id"]}}}
        )
        wait_for_subscribers(client, run_topic(run["id"]))
        gate.set()
        events = events_until_complete(ws, "run")
        final_state = post(client, key, RUN_TOOL_CALLS, {"id": run["id"]})["agentRun"]
        return Followed(run, events, final_state)


class TestAgentRunEvents:
    async def test_events_follow_the_loop_in_order(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        gate = threading.Event()
        world.model.push(
            tool_calls(call("calculator", {"expression": "2 + 2"})).held_until(gate),
            final("4"),
        )

        followed = await asyncio.to_thread(
            follow_async_run, runtime_settings(settings, openai_server), world.admin_key, world.agent_id, "2 + 2?", gate
        )

        # Held at the first model call: STARTED is replayed to the subscriber, the first MODEL_CALL
        # arrives if it was published after the subscription; everything after it, once, in loop order.
        head, tail = followed.kinds[:-4], followed.kinds[-4:]
        assert tail == ["TOOL_CALL_STARTED", "TOOL_CALL_FINISHED", "MODEL_CALL", "FINISHED"], followed.kinds
        assert head in (["STARTED"], ["STARTED", "MODEL_CALL"]), followed.kinds
        started, finished_call, model_call, finished = followed.events[-4:]
        (tool_call,) = followed.final["toolCalls"]
        assert started["toolId"] == "bt_calculator"
        assert started["toolCall"] is None
        assert finished_call["toolId"] == "bt_calculator"
        assert finished_call["toolCall"] == {
            "id": tool_call["id"],
            "toolId": "bt_calculator",
            "status": "SUCCESS",
            "result": {"expression": "2 + 2", "result": 4},
        }
        assert model_call["step"] == 2
        assert finished["run"] == {"id": followed.run["id"], "status": "SUCCEEDED", "steps": 2, "output": "4"}
        assert all(event["run"]["id"] == followed.run["id"] for event in followed.events)

    async def test_a_subscriber_of_a_running_run_learns_that_it_started(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        """invokeAgent(async) is the only way to learn a run id, so a client always subscribes
        after the run began: the stream must still open with STARTED (as it closes with
        FINISHED for a run that already ended)."""
        gate = threading.Event()
        world.model.push(final("hello").held_until(gate))

        followed = await asyncio.to_thread(
            follow_async_run, runtime_settings(settings, openai_server), world.admin_key, world.agent_id, "hi", gate
        )

        assert followed.kinds[0] == "STARTED", followed.kinds
        assert followed.kinds[-1] == "FINISHED"

    async def test_streaming_adds_message_deltas(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        gate = threading.Event()
        world.model.push(
            tool_calls(
                call("calculator", {"expression": "2 + 2"}),
                call("current_time", {"timezone": "UTC"}),
                prompt_tokens=30,
                completion_tokens=3,
            ).held_until(gate),
            final("The answer is 4.", chunks=["The ", "answer ", "is 4."], prompt_tokens=40, completion_tokens=5),
        )
        streaming = runtime_settings(settings, openai_server, model_stream=True)

        followed = await asyncio.to_thread(
            follow_async_run, streaming, world.admin_key, world.agent_id, "2 + 2, streamed", gate
        )

        tail = followed.kinds[followed.kinds.index("TOOL_CALL_STARTED") :]
        assert sorted(tail[:4]) == [
            "TOOL_CALL_FINISHED",
            "TOOL_CALL_FINISHED",
            "TOOL_CALL_STARTED",
            "TOOL_CALL_STARTED",
        ]
        assert tail[4:] == ["MODEL_CALL", "MESSAGE_DELTA", "MESSAGE_DELTA", "MESSAGE_DELTA", "FINISHED"]
        assert [event["delta"] for event in followed.events if event["kind"] == "MESSAGE_DELTA"] == [
            "The ",
            "answer ",
            "is 4.",
        ]
        finished = followed.events[-1]["run"]
        assert (finished["status"], finished["output"]) == ("SUCCEEDED", "The answer is 4.")
        assert sorted(item["toolId"] for item in followed.final["toolCalls"]) == ["bt_calculator", "bt_current_time"]
        assert (followed.final["promptTokens"], followed.final["completionTokens"]) == (70, 8)
        assert all(request["stream"] is True for request in world.model.requests)
        assert all(request["stream_options"] == {"include_usage": True} for request in world.model.requests)

    async def test_a_finished_run_yields_finished_at_once(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        world.model.push(final("already done"))

        def scenario() -> list[dict[str, Any]]:
            with (
                TestClient(create_app(runtime_settings(settings, openai_server))) as client,
                client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
            ):
                connect(ws, world.admin_key)
                run = invoke_over_http(client, world.admin_key, world.agent_id, "done?", run_async=False)
                variables = {"runId": run["id"]}
                ws.send_json(
                    {"id": "late", "type": "subscribe", "payload": {"query": RUN_EVENTS, "variables": variables}}
                )
                return events_until_complete(ws, "late")

        events = await asyncio.to_thread(scenario)

        assert [(event["kind"], event["run"]["status"], event["run"]["output"]) for event in events] == [
            ("FINISHED", "SUCCEEDED", "already done")
        ]

    async def test_a_run_out_of_reach_cannot_be_followed(
        self, world: World, settings: Settings, openai_server: OpenAIServer, keys: Keys
    ) -> None:
        world.model.push(final("private"))
        beta = await keys.space("beta")
        outsider = await keys.for_space(beta.id, Role.MEMBER)

        def scenario() -> list[dict[str, Any]]:
            with (
                TestClient(create_app(runtime_settings(settings, openai_server))) as client,
                client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
            ):
                run = invoke_over_http(client, world.admin_key, world.agent_id, "secret", run_async=False)
                connect(ws, outsider)
                variables = {"runId": run["id"]}
                ws.send_json(
                    {"id": "spy", "type": "subscribe", "payload": {"query": RUN_EVENTS, "variables": variables}}
                )
                messages = []
                while (message := receive_message(ws)) is not None:
                    messages.append(message)
                    if message["type"] in ("complete", "error"):
                        break
                return messages

        messages = await asyncio.to_thread(scenario)

        assert not any(message["type"] == "next" and message["payload"].get("data") for message in messages), messages
        errors = [
            error
            for message in messages
            for error in (
                message["payload"] if message["type"] == "error" else message.get("payload", {}).get("errors") or []
            )
        ]
        assert [error["extensions"]["code"] for error in errors] == ["NOT_FOUND"], messages


class TestToolCallsOfARun:
    async def test_every_call_of_a_run_appears_once_on_the_tool_calls_subscription(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        world.model.push(
            tool_calls(
                call("calculator", {"expression": "1 + 1"}),
                call("calculator", {"expression": "2 + 2"}),
                call("current_time", {}),
            ),
            tool_calls(call("calculator", {"expression": "oops("})),
            final("done"),
        )

        def scenario() -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
            with (
                TestClient(create_app(runtime_settings(settings, openai_server))) as client,
                client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
            ):
                connect(ws, world.admin_key)
                variables = {"agentId": world.agent_id}
                ws.send_json(
                    {"id": "calls", "type": "subscribe", "payload": {"query": AGENT_TOOL_CALLS, "variables": variables}}
                )
                wait_for_subscribers(client, TOOL_CALLS_TOPIC)
                run = invoke_over_http(client, world.admin_key, world.agent_id, "four calls", run_async=False)
                received = []
                for _ in range(4):
                    message = receive_message(ws)
                    assert message is not None and message["type"] == "next", message
                    received.append(message["payload"]["data"]["toolCalls"])
                extra = receive_message(ws, timeout_s=0.5)
                final_state = post(client, world.admin_key, RUN_TOOL_CALLS, {"id": run["id"]})["agentRun"]
                return final_state, received, extra

        final_state, received, extra = await asyncio.to_thread(scenario)

        assert extra is None
        assert final_state["status"] == "SUCCEEDED"
        assert sorted(item["id"] for item in received) == sorted(item["id"] for item in final_state["toolCalls"])
        assert len({item["id"] for item in received}) == 4
        assert sorted(item["status"] for item in received) == ["FAILED", "SUCCESS", "SUCCESS", "SUCCESS"]


ALWAYS_CALCULATOR = {"toolId": "bt_calculator", "approval": "ALWAYS"}
APPROVE = """mutation Approve($input: ApproveToolCallInput!) { approveToolCall(input: $input) {
  toolCall { id } userErrors { code } } }"""


def invoke_needing_approval(client: TestClient, world: World) -> dict[str, Any]:
    """The agent's calculator made to wait for approval, and the agent invoked (async) on "6 * 7?"."""
    post(
        client,
        world.admin_key,
        """mutation U($input: UpdateAgentInput!) { updateAgent(input: $input) { userErrors { code } } }""",
        {"input": {"id": world.agent_id, "toolApprovals": [{"toolId": "bt_calculator", "approval": "ALWAYS"}]}},
    )
    return invoke_over_http(client, world.admin_key, world.agent_id, "6 * 7?", run_async=True)


class TestApprovalAndRecoveryEvents:
    async def test_approval_requested_and_decided_are_streamed_with_the_call(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        world.model.push(tool_calls(call("calculator", {"expression": "6 * 7"})), final("42"))
        strict = runtime_settings(settings, openai_server)

        def follow() -> list[dict[str, Any]]:
            with (
                TestClient(create_app(strict)) as client,
                client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
            ):
                connect(ws, world.admin_key)
                run = invoke_needing_approval(client, world)
                ws.send_json(
                    {
                        "id": "run",
                        "type": "subscribe",
                        "payload": {"query": RUN_EVENTS, "variables": {"runId": run["id"]}},
                    }
                )
                events: list[dict[str, Any]] = []
                while not events or events[-1]["kind"] != "APPROVAL_REQUESTED":
                    message = receive_message(ws)
                    assert message is not None and message["type"] == "next", (message, events)
                    events.append(message["payload"]["data"]["agentRunEvents"])
                decided = post(
                    client, world.admin_key, APPROVE, {"input": {"toolCallId": events[-1]["toolCall"]["id"]}}
                )["approveToolCall"]
                assert decided["userErrors"] == []
                return events + events_until_complete(ws, "run")

        events = await asyncio.to_thread(follow)

        kinds = [event["kind"] for event in events]
        requested = events[kinds.index("APPROVAL_REQUESTED")]
        assert requested["toolCall"]["status"] == "PENDING_APPROVAL"
        assert requested["toolCall"]["id"].startswith("tc_")
        assert requested["toolId"] == "bt_calculator"
        assert kinds[kinds.index("APPROVAL_REQUESTED") + 1 :] == [
            "APPROVAL_DECIDED",
            "TOOL_CALL_STARTED",
            "TOOL_CALL_FINISHED",
            "MODEL_CALL",
            "FINISHED",
        ]
        finished_call = events[kinds.index("TOOL_CALL_FINISHED")]["toolCall"]
        assert finished_call["id"] == requested["toolCall"]["id"]
        assert finished_call["status"] == "SUCCESS"
        assert events[-1]["run"]["output"] == "42"

    async def test_a_subscriber_who_arrives_while_the_run_waits_learns_the_open_request(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        """The run asked for approval before anyone subscribed (its id is known only once it
        runs): the subscription replays the request still open, once, and goes on live."""
        world.model.push(tool_calls(call("calculator", {"expression": "6 * 7"})), final("42"))
        strict = runtime_settings(settings, openai_server)

        def follow() -> list[dict[str, Any]]:
            with (
                TestClient(create_app(strict)) as client,
                client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
            ):
                connect(ws, world.admin_key)
                run = invoke_needing_approval(client, world)
                for _ in range(400):
                    status = post(
                        client, world.admin_key, "query R($id: ID!) { agentRun(id: $id) { status } }", {"id": run["id"]}
                    )
                    if status["agentRun"]["status"] == "WAITING_APPROVAL":
                        break
                    time.sleep(0.025)
                else:
                    raise AssertionError("the run never waited for approval")
                ws.send_json(
                    {
                        "id": "late",
                        "type": "subscribe",
                        "payload": {"query": RUN_EVENTS, "variables": {"runId": run["id"]}},
                    }
                )
                events: list[dict[str, Any]] = []
                for _ in range(2):
                    message = receive_message(ws)
                    assert message is not None and message["type"] == "next", (message, events)
                    events.append(message["payload"]["data"]["agentRunEvents"])
                assert [event["kind"] for event in events] == ["STARTED", "APPROVAL_REQUESTED"]
                decided = post(
                    client, world.admin_key, APPROVE, {"input": {"toolCallId": events[-1]["toolCall"]["id"]}}
                )["approveToolCall"]
                assert decided["userErrors"] == []
                return events + events_until_complete(ws, "late")

        events = await asyncio.to_thread(follow)

        kinds = [event["kind"] for event in events]
        assert kinds.count("APPROVAL_REQUESTED") == 1
        requested = events[1]
        assert requested["toolId"] == "bt_calculator"
        assert requested["toolCall"]["status"] == "PENDING_APPROVAL"
        assert requested["run"]["status"] == "WAITING_APPROVAL"
        assert kinds[2:] == ["APPROVAL_DECIDED", "TOOL_CALL_STARTED", "TOOL_CALL_FINISHED", "MODEL_CALL", "FINISHED"]
        assert events[-1]["run"]["output"] == "42"

    async def test_a_subscriber_gets_finished_even_when_the_event_never_reached_its_bus(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        """The run is driven by another replica whose events this one never hears (no shared
        bus, as with Redis down): the subscription still ends, from the database."""
        gate = threading.Event()
        world.model.push(final("done elsewhere").held_until(gate))
        async with runtime_app(settings, openai_server) as other:
            started = await invoke_async(other, world.admin_key, world.agent_id)

            def follow() -> list[dict[str, Any]]:
                with (
                    TestClient(create_app(runtime_settings(settings, openai_server))) as client,
                    client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
                ):
                    connect(ws, world.admin_key)
                    ws.send_json(
                        {
                            "id": "run",
                            "type": "subscribe",
                            "payload": {"query": RUN_EVENTS, "variables": {"runId": started}},
                        }
                    )
                    wait_for_subscribers(client, run_topic(started))
                    gate.set()
                    return events_until_complete(ws, "run")

            events = await asyncio.to_thread(follow)

        assert [event["kind"] for event in events] == ["STARTED", "FINISHED"]
        assert events[-1]["run"]["output"] == "done elsewhere"


async def invoke_async(app: RuntimeApp, key: str, agent_id: str) -> str:
    payload = (
        await app.client(key).execute(INVOKE_AGENT, {"input": {"agentId": agent_id, "message": "hi", "async": True}})
    )["invokeAgent"]
    assert payload["userErrors"] == []
    run_id: str = payload["run"]["id"]
    return run_id
