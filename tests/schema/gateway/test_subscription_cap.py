"""A tenant's running subscriptions are bounded (QUIVER_MAX_SUBSCRIPTIONS_PER_TENANT,
schema.fairness.OperationCap): past the cap a new one is answered with TOO_MANY_SUBSCRIPTIONS
and the socket stays open; joining an alike subscription's shared stream is free; another
tenant is not refused; a completed or disconnected subscription gives its place back."""

from __future__ import annotations

import asyncio
import time
from contextlib import ExitStack
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession

from app.config import Settings
from app.main import create_app
from app.principal import Role
from schema.fairness import OperationCap
from tests.conftest import Keys
from tests.schema.gateway.test_call_log import (
    SUBSCRIPTION_IN_SPACE,
    connect,
    invoke_over_http,
    next_call,
    receive_message,
)
from tests.schema.gateway.test_shared_streams import wait_until

CAP = 2
BY_TOOL = (
    "subscription ByTool($toolId: String!, $spaceId: ID!) "
    "{ toolCalls(filter: {toolId: $toolId, spaceId: $spaceId}) { id toolId status } }"
)


def cap_of(client: TestClient) -> OperationCap:
    cap: OperationCap = client.app.state.operation_cap  # type: ignore[attr-defined]
    return cap


def subscribe(ws: WebSocketTestSession, operation_id: str, query: str, **variables: Any) -> None:
    ws.send_json({"id": operation_id, "type": "subscribe", "payload": {"query": query, "variables": variables}})


def assert_refused(ws: WebSocketTestSession, operation_id: str) -> None:
    message = receive_message(ws)
    assert message["type"] == "error" and message["id"] == operation_id, message
    [error] = message["payload"]
    assert error["extensions"] == {"code": "TOO_MANY_SUBSCRIPTIONS", "limit": CAP}
    assert f"already has {CAP} subscriptions running" in error["message"]


def cap_holds(settings: Settings, alpha_key: str, alpha: str, beta_key: str, beta: str) -> None:
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        first, second, third, other = (
            stack.enter_context(client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]))
            for _ in range(4)
        )
        for ws, key in ((first, alpha_key), (second, alpha_key), (third, alpha_key), (other, beta_key)):
            connect(ws, key)
        cap = cap_of(client)
        # Two streams of their own (different variables: they cannot share): the tenant's cap.
        subscribe(first, "a", BY_TOOL, toolId="bt_calculator", spaceId=alpha)
        subscribe(second, "b", SUBSCRIPTION_IN_SPACE, spaceId=alpha)
        wait_until(lambda: cap.open(alpha) == CAP, "the two subscriptions were not counted")
        # A third, with yet other variables, on another socket: refused, that socket still open.
        subscribe(third, "c", BY_TOOL, toolId="bt_current_time", spaceId=alpha)
        assert_refused(third, "c")
        # A query over the socket runs on its own too: refused while at the cap.
        subscribe(third, "q", "query { __typename }")
        assert_refused(third, "q")
        # Joining the first subscription's stream (same document and variables) costs nothing more.
        subscribe(third, "a-again", BY_TOOL, toolId="bt_calculator", spaceId=alpha)
        # Another tenant is not refused.
        subscribe(other, "mine", SUBSCRIPTION_IN_SPACE, spaceId=beta)
        wait_until(lambda: cap.open(beta) == 1, "the other tenant's subscription did not start")

        call = invoke_over_http(client, alpha_key, alpha, "1 + 1")["call"]["id"]
        assert next_call(receive_message(first), "a")["id"] == call
        assert next_call(receive_message(second), "b")["id"] == call
        assert next_call(receive_message(third), "a-again")["id"] == call
        in_beta = invoke_over_http(client, beta_key, beta, "2 + 2")["call"]["id"]
        assert next_call(receive_message(other), "mine")["id"] == in_beta
        assert cap.open(alpha) == CAP

        # One completed: its place is free for the next.
        second.send_json({"id": "b", "type": "complete"})
        wait_until(lambda: cap.open(alpha) == 1, "the completed subscription still counts")
        subscribe(second, "c", BY_TOOL, toolId="bt_current_time", spaceId=alpha)
        wait_until(lambda: cap.open(alpha) == CAP, "the next subscription did not start")
        later = invoke_over_http(client, alpha_key, alpha, "3 + 3")["call"]["id"]
        assert next_call(receive_message(first), "a")["id"] == later
        assert next_call(receive_message(third), "a-again")["id"] == later

        # The stream started by the first subscription runs while a member is left: it still counts
        # after its starter leaves, and stops counting with its last member.
        first.send_json({"id": "a", "type": "complete"})
        time.sleep(0.05)
        assert cap.open(alpha) == CAP
        third.send_json({"id": "a-again", "type": "complete"})
        wait_until(lambda: cap.open(alpha) == 1, "the stream with no member left still counts")
        # A socket that goes away gives its subscriptions' places back.
        second.close()
        wait_until(lambda: cap.open(alpha) == 0, "a closed socket's subscription still counts")
        other.send_json({"id": "mine", "type": "complete"})
        wait_until(lambda: cap.open(beta) == 0, "the other tenant's completed subscription still counts")
        # One that fails validation ends its stream at once, and its place with it.
        subscribe(third, "broken", "subscription Broken { toolCalls { id noSuchField } }")
        assert receive_message(third)["type"] == "error"
        wait_until(lambda: cap.open(alpha) == 0, "a stream that ended on an error still counts")


class TestSubscriptionCap:
    async def test_a_tenant_past_its_cap_is_refused_and_others_are_not(self, settings: Settings, keys: Keys) -> None:
        alpha, beta = await keys.space("cap_alpha"), await keys.space("cap_beta")
        alpha_key = await keys.for_space(alpha.id, Role.MEMBER)
        beta_key = await keys.for_space(beta.id, Role.MEMBER)
        capped = settings.model_copy(update={"max_subscriptions_per_tenant": CAP})
        await asyncio.to_thread(cap_holds, capped, alpha_key, alpha.id, beta_key, beta.id)

    def test_zero_turns_the_cap_off(self, settings: Settings) -> None:
        on = create_app(settings)
        assert on.state.operation_cap.per_tenant == 100
        off = create_app(settings.model_copy(update={"max_subscriptions_per_tenant": 0}))
        assert off.state.operation_cap is None


class TestOperationCap:
    def test_take_and_give_back_per_tenant(self) -> None:
        cap = OperationCap(2)
        assert cap.take("a") and cap.take("a")
        assert not cap.take("a")
        assert cap.take("b")
        cap.give_back("a")
        assert cap.open("a") == 1
        assert cap.take("a")
        for tenant in ("a", "a", "b"):
            cap.give_back(tenant)
        assert cap.open("a") == cap.open("b") == 0

    def test_the_cap_is_at_least_one(self) -> None:
        with pytest.raises(ValueError):
            OperationCap(0)
