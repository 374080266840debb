"""bt_send_message: agents of a space notifying and asking each other, through the gateway."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from app.config import Settings
from tests.conftest import GraphQLClient, Keys
from tests.schema.runtime import (
    AGENT_RUNS,
    RuntimeApp,
    create_agent,
    get_run,
    invoke,
    messages_of,
    runtime_app,
    tool_messages,
)
from tests.schema.tools.operations import set_bindings
from tests.support.openai_server import OpenAIServer, ScriptedModel, Step, call, final, respond, tool_calls
from tests.support.openai_server import openai_server as openai_server

SEND = "send_message"


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server) as app:
        yield app


@dataclass
class World:
    space_id: str
    gql: GraphQLClient
    openai: OpenAIServer

    async def agent(self, name: str, *, space_id: str | None = None, tools: list[str] | None = None) -> Agent:
        model = self.openai.model(name)
        row = await create_agent(
            self.gql,
            space_id or self.space_id,
            model.name,
            name=name,
            systemPrompt=f"You are {name}.",
            activatedToolIds=tools if tools is not None else ["bt_send_message"],
        )
        return Agent(row["id"], model)


@dataclass
class Agent:
    id: str
    model: ScriptedModel


@pytest.fixture
async def world(quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer) -> World:
    """A space where bt_send_message (restricted to the system space) has been assigned by an admin."""
    space = await keys.space("alpha")
    gql = quiver.client(admin_key)
    payload = await set_bindings(gql, "bt_send_message", [space.id])
    assert payload["userErrors"] == [], payload
    return World(space.id, gql, openai_server)


def send(to: str, kind: str, content: str, call_id: str = "call_send") -> Step:
    return tool_calls(call(SEND, {"to": to, "type": kind, "content": content}, call_id=call_id))


def answer_with_tool_result(prefix: str) -> Step:
    """A final answer quoting the last tool message the model received."""

    def reply(body: dict[str, Any]) -> Step:
        tool_message = [message for message in body["messages"] if message["role"] == "tool"][-1]
        return final(f"{prefix}: {tool_message['content']}")

    return respond(reply)


class TestRestriction:
    async def test_send_message_is_not_offered_until_assigned(
        self, quiver: RuntimeApp, keys: Keys, admin_key: str
    ) -> None:
        space = await keys.space("gamma")
        gql = quiver.client(admin_key)

        payload = (
            await gql.execute(
                "mutation C($input: CreateAgentInput!) { createAgent(input: $input) { agent { id } "
                "userErrors { field code } } }",
                {
                    "input": {
                        "spaceId": space.id,
                        "name": "Lonely",
                        "model": "m",
                        "systemPrompt": "x",
                        "activatedToolIds": ["bt_send_message"],
                    }
                },
            )
        )["createAgent"]

        assert payload["agent"] is None
        assert [error["field"] for error in payload["userErrors"]] == [["input", "activatedToolIds", "0"]]


class TestNotify:
    # A run without an idempotency key reads its notifications with its insert; one with a key,
    # when its prompt is built: both must show them once.
    @pytest.mark.parametrize("keyed", [False, True], ids=["no-key", "idempotency-key"])
    async def test_a_notification_is_shown_once_at_the_start_of_the_next_run(self, world: World, keyed: bool) -> None:
        sender = await world.agent("sender")
        recipient = await world.agent("recipient", tools=[])
        sender.model.push(send(recipient.id, "notify", "Order 42 has shipped."), final("Told them."))
        recipient.model.push(final("Noted."), final("Nothing new."))

        sent = await invoke(world.gql, sender.id, "Tell the recipient that order 42 shipped.")

        assert sent["status"] == "SUCCEEDED"
        envelope = tool_messages(sender.model.requests[1])["call_send"]
        assert envelope["status"] == "SUCCESS", envelope
        assert envelope["data"]["status"] == "DELIVERED_ON_NEXT_RUN"
        assert envelope["data"]["messageId"]
        assert recipient.model.requests == []

        keys: list[dict[str, Any]] = [{"idempotencyKey": "first"}, {"idempotencyKey": "second"}] if keyed else [{}, {}]
        await invoke(world.gql, recipient.id, "Anything for me?", **keys[0])
        await invoke(world.gql, recipient.id, "And now?", **keys[1])

        first, second = recipient.model.requests
        shown = [message for message in messages_of(first) if "Order 42 has shipped." in (message["content"] or "")]
        assert len(shown) == 1
        assert shown[0]["role"] == "system"
        assert sender.id in shown[0]["content"]
        # At the start: before the user's message.
        assert messages_of(first).index(shown[0]) < len(messages_of(first)) - 1
        assert messages_of(first)[-1] == {"role": "user", "content": "Anything for me?"}
        assert not any("Order 42 has shipped." in (message["content"] or "") for message in messages_of(second))

    async def test_notifications_are_delivered_only_to_their_recipient(self, world: World) -> None:
        sender = await world.agent("sender")
        recipient = await world.agent("recipient", tools=[])
        bystander = await world.agent("bystander", tools=[])
        sender.model.push(send(recipient.id, "notify", "For your eyes only."), final("ok"))
        bystander.model.push(final("hm"))
        recipient.model.push(final("got it"))

        await invoke(world.gql, sender.id, "notify")
        await invoke(world.gql, bystander.id, "anything?")
        await invoke(world.gql, recipient.id, "anything?")

        assert not any("For your eyes only." in json.dumps(request) for request in bystander.model.requests)
        assert "For your eyes only." in json.dumps(recipient.model.requests[0])


class TestRequest:
    async def test_a_request_runs_the_other_agent_and_returns_its_answer(self, world: World) -> None:
        asker = await world.agent("asker")
        expert = await world.agent("expert", tools=[])
        asker.model.push(send(expert.id, "request", "What is the refund window?"), answer_with_tool_result("Asked"))
        expert.model.push(final("30 days."))

        run = await invoke(world.gql, asker.id, "Find out the refund window.")

        assert run["status"] == "SUCCEEDED"
        envelope = tool_messages(asker.model.requests[1])["call_send"]
        assert envelope["status"] == "SUCCESS", envelope
        assert envelope["data"]["answer"] == "30 days."
        delegated = await get_run(world.gql, envelope["data"]["runId"])
        assert delegated is not None
        assert delegated["agent"] == {"id": expert.id}
        assert delegated["input"] == "What is the refund window?"
        assert delegated["output"] == "30 days."
        assert delegated["delegationDepth"] == 1
        assert messages_of(expert.model.requests[0])[-1] == {"role": "user", "content": "What is the refund window?"}
        assert [item["toolId"] for item in run["toolCalls"]] == ["bt_send_message"]
        assert run["toolCalls"][0]["result"]["answer"] == "30 days."

    async def test_a_request_whose_target_fails_returns_a_structured_error(self, world: World) -> None:
        asker = await world.agent("asker")
        broken = await world.agent("broken", tools=[])
        asker.model.push(send(broken.id, "request", "Help?"), final("It could not help."))
        # Nothing scripted for the target: its model call fails.

        run = await invoke(world.gql, asker.id, "ask broken")

        assert run["status"] == "SUCCEEDED"
        envelope = tool_messages(asker.model.requests[1])["call_send"]
        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"]
        assert envelope["data"] is None

    async def test_an_agent_of_another_space_is_out_of_reach(self, world: World, keys: Keys) -> None:
        beta = await keys.space("beta")
        asker = await world.agent("asker")
        foreign = await world.agent("foreign", space_id=beta.id, tools=[])
        asker.model.push(
            send(foreign.id, "request", "Hello from alpha", call_id="call_request"),
            send(foreign.id, "notify", "Psst", call_id="call_notify"),
            final("Could not reach them."),
        )
        foreign.model.push(final("should never run"))

        run = await invoke(world.gql, asker.id, "reach out")

        assert run["status"] == "SUCCEEDED"
        for request, call_id in ((asker.model.requests[1], "call_request"), (asker.model.requests[2], "call_notify")):
            envelope = tool_messages(request)[call_id]
            assert envelope["status"] == "FAILED"
            assert envelope["error"]["code"] == "PERMISSION_DENIED"
        assert foreign.model.requests == []
        foreign.model.push(final("fresh"))
        await invoke(world.gql, foreign.id, "anything?")
        assert "Psst" not in json.dumps(foreign.model.requests[0])

    async def test_an_agent_cannot_message_itself(self, world: World) -> None:
        narcissus = await world.agent("narcissus")
        narcissus.model.push(send(narcissus.id, "request", "me?"), final("no"))

        await invoke(world.gql, narcissus.id, "talk to yourself")

        envelope = tool_messages(narcissus.model.requests[1])["call_send"]
        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "PARAM_INVALID"
        assert len(narcissus.model.requests) == 2


class TestDelegationDepth:
    async def test_a_chain_stops_at_the_depth_limit(self, world: World) -> None:
        names = ["a", "b", "c", "d", "e"]
        chain = [await world.agent(name) for name in names]
        for agent, target in itertools.pairwise(chain):
            agent.model.push(send(target.id, "request", f"Please ask {target.id}."), answer_with_tool_result(agent.id))
        chain[-1].model.push(final("e answered"))

        run = await invoke(world.gql, chain[0].id, "Start the chain.")

        assert run["status"] == "SUCCEEDED"
        # a (depth 0) → b (1) → c (2) → d (3); d may not delegate a fourth level.
        d_envelope = tool_messages(chain[3].model.requests[1])["call_send"]
        assert d_envelope["status"] == "FAILED"
        assert d_envelope["error"]["code"] == "DELEGATION_DEPTH_EXCEEDED"
        assert "3" in d_envelope["error"]["message"]
        assert chain[4].model.requests == []
        for upper in chain[:3]:
            envelope = tool_messages(upper.model.requests[1])["call_send"]
            assert envelope["status"] == "SUCCESS", (upper.id, envelope)
        depths = []
        for agent in chain[1:4]:
            runs = (await world.gql.execute(AGENT_RUNS, {"id": agent.id}))["agent"]["runs"]
            (node,) = [edge["node"] for edge in runs["edges"]]
            depths.append(node["delegationDepth"])
        assert depths == [1, 2, 3]
        # The refusal travels back up the chain inside each answer.
        assert "DELEGATION_DEPTH_EXCEEDED" in run["output"]
