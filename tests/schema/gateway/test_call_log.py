"""The call log: toolCalls (filters, reach), Tool.stats, /metrics and the toolCalls
subscription over graphql-transport-ws."""

from __future__ import annotations

import asyncio
import json
import math
import secrets
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import anyio
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient, WebSocketTestSession

from app.config import Settings
from app.main import create_app
from app.principal import SYSTEM_PRINCIPAL, Role
from app.spaces.models import Space
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import INVOKE_TOOL, call_log, fresh, http_tool, invoke, tool_stats
from tests.support.http_tool_server import ToolServer, running_tool_server


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


def nearest_rank(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[max(1, math.ceil(fraction * len(ordered))) - 1]


class TestToolCallsFilter:
    async def _calls_in_two_spaces(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, app_and_services: Any
    ) -> tuple[Space, Space, dict[str, Any], list[dict[str, Any]]]:
        """alpha: ok, calculator FAILED, ok by an agent; beta: ok."""
        alpha, beta = await keys.space("alpha"), await keys.space("beta")
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('log')}")
        envelopes = [
            await invoke(gql, alpha.id, tool["id"], {"n": 1}),
            await invoke(gql, alpha.id, "bt_calculator", {"expression": "1 / 0"}),
            await invoke(gql, beta.id, tool["id"], {"n": 2}),
        ]
        # Agent calls come from the agent loop, which calls the gateway directly.
        gateway = app_and_services.state.services.gateway
        by_agent = await gateway.execute(SYSTEM_PRINCIPAL, alpha.id, tool["id"], {"n": 3}, agent_id="ag_filter_test")
        assert by_agent.ok
        envelopes.append({"traceId": by_agent.trace_id, "call": {"id": by_agent.call_id}})
        return alpha, beta, tool, envelopes

    async def test_filters_narrow_the_log(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, app_and_services: Any
    ) -> None:
        alpha, beta, tool, envelopes = await self._calls_in_two_spaces(gql, keys, tool_server, app_and_services)
        ids = [envelope["call"]["id"] for envelope in envelopes]

        async def matching(**call_filter: Any) -> list[str]:
            log = await call_log(gql, **call_filter)
            assert log["totalCount"] == len(log["nodes"])
            return [node["id"] for node in log["nodes"]]

        assert await matching() == ids
        assert await matching(spaceId=alpha.id) == [ids[0], ids[1], ids[3]]
        assert await matching(spaceId=beta.id) == [ids[2]]
        assert await matching(toolId=tool["id"]) == [ids[0], ids[2], ids[3]]
        assert await matching(toolId="bt_calculator") == [ids[1]]
        assert await matching(status="FAILED") == [ids[1]]
        assert await matching(status="SUCCESS", spaceId=alpha.id) == [ids[0], ids[3]]
        assert await matching(agentId="ag_filter_test") == [ids[3]]
        assert await matching(agentId="ag_filter_test", spaceId=beta.id) == []

    async def test_calls_made_one_after_another_are_listed_in_that_order(
        self, gql: GraphQLClient, keys: Keys, app_and_services: Any
    ) -> None:
        # Many land in the same millisecond: the ids made in one process still increase (app.ids).
        space = await keys.space("in_order")
        gateway = app_and_services.state.services.gateway
        made: list[str] = []
        for index in range(60):
            result = await gateway.execute(SYSTEM_PRINCIPAL, space.id, "bt_calculator", {"expression": f"{index} + 1"})
            made.append(result.call_id)
        log = await call_log(gql, spaceId=space.id)
        assert [node["id"] for node in log["nodes"]] == made
        paged: list[str] = []
        after = None
        while True:
            page = await call_log(gql, first=7, after=after, spaceId=space.id)
            paged.extend(node["id"] for node in page["nodes"])
            if not page["pageInfo"]["hasNextPage"]:
                break
            after = page["pageInfo"]["endCursor"]
        assert paged == made

    async def test_since_keeps_calls_started_at_or_after(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, app_and_services: Any
    ) -> None:
        _, _, _, envelopes = await self._calls_in_two_spaces(gql, keys, tool_server, app_and_services)
        ids = [envelope["call"]["id"] for envelope in envelopes]
        nodes = (await call_log(gql))["nodes"]
        third_started = nodes[2]["startedAt"]

        later = await call_log(gql, since=third_started)

        assert [node["id"] for node in later["nodes"]] == ids[2:]
        assert all(
            datetime.fromisoformat(node["startedAt"]) >= datetime.fromisoformat(third_started)
            for node in later["nodes"]
        )

    async def test_since_without_offset_is_read_as_utc(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, app_and_services: Any
    ) -> None:
        await self._calls_in_two_spaces(gql, keys, tool_server, app_and_services)

        assert (await call_log(gql, since="2000-01-01T00:00:00"))["totalCount"] == 4
        assert (await call_log(gql, since="2999-01-01T00:00:00"))["totalCount"] == 0

    async def test_pages_follow_each_other(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, app_and_services: Any
    ) -> None:
        _, _, _, envelopes = await self._calls_in_two_spaces(gql, keys, tool_server, app_and_services)

        first_page = await call_log(gql, first=3)
        second_page = await call_log(gql, first=3, after=first_page["pageInfo"]["endCursor"])

        assert first_page["pageInfo"]["hasNextPage"] is True
        assert second_page["pageInfo"]["hasNextPage"] is False
        assert [node["id"] for node in first_page["nodes"] + second_page["nodes"]] == [
            envelope["call"]["id"] for envelope in envelopes
        ]

    async def test_space_key_sees_only_its_space(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, app_and_services: Any
    ) -> None:
        alpha, beta, tool, _ = await self._calls_in_two_spaces(gql, keys, tool_server, app_and_services)
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))

        own = await call_log(member)
        other = await call_log(member, spaceId=beta.id)
        by_tool = await call_log(member, toolId=tool["id"])

        assert own["totalCount"] == 3
        assert {node["space"]["id"] for node in own["nodes"]} == {alpha.id}
        assert other == {"totalCount": 0, "pageInfo": other["pageInfo"], "nodes": []}
        assert {node["space"]["id"] for node in by_tool["nodes"]} == {alpha.id}
        assert by_tool["totalCount"] == 2


class TestToolStats:
    async def test_stats_follow_the_call_log(self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer) -> None:
        space = await keys.space("alpha")
        tool = await http_tool(
            gql,
            tool_server,
            f"/ok/{fresh('stats')}",
            inputSchema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        )
        assert (await tool_stats(gql, tool["id"])) == {
            "calls": 0,
            "failures": 0,
            "failuresByCode": {},
            "p50LatencyMs": None,
            "p95LatencyMs": None,
            "lastCalledAt": None,
        }
        arguments: list[dict[str, Any]] = [{"n": 1}, {"n": "x"}, {"n": 2}, {}, {"n": 3}, {"n": 4}, {"n": 5}]
        envelopes = [await invoke(gql, space.id, tool["id"], each) for each in arguments]

        stats = await tool_stats(gql, tool["id"])

        latencies = [envelope["latencyMs"] for envelope in envelopes]
        assert stats["calls"] == 7
        assert stats["failures"] == 2
        assert stats["failuresByCode"] == {"PARAM_INVALID": 2}
        assert stats["p50LatencyMs"] == pytest.approx(nearest_rank(latencies, 0.50))
        assert stats["p95LatencyMs"] == pytest.approx(nearest_rank(latencies, 0.95))
        assert datetime.fromisoformat(stats["lastCalledAt"]) == datetime.fromisoformat(
            envelopes[-1]["call"]["startedAt"]
        )

    async def test_since_narrows_the_window(self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer) -> None:
        space = await keys.space("alpha")
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('stats')}")
        envelopes = [await invoke(gql, space.id, tool["id"], {"n": number}) for number in range(5)]

        stats = await tool_stats(gql, tool["id"], since=envelopes[3]["call"]["startedAt"])

        assert stats["calls"] == 2
        assert stats["p95LatencyMs"] == pytest.approx(max(envelope["latencyMs"] for envelope in envelopes[3:]))

    async def test_space_key_counts_only_its_space(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        alpha, beta = await keys.space("alpha"), await keys.space("beta")
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('stats')}")
        await invoke(gql, alpha.id, tool["id"], {})
        for _ in range(3):
            await invoke(gql, beta.id, tool["id"], {})
        member_of_alpha = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))

        assert (await tool_stats(gql, tool["id"]))["calls"] == 4
        assert (await tool_stats(member_of_alpha, tool["id"]))["calls"] == 1


def sample_value(text: str, metric: str, labels: dict[str, str]) -> float | None:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == metric and sample.labels == labels:
                return float(sample.value)
    return None


class TestMetrics:
    async def test_calls_and_failures_are_counted_per_tool(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, app_and_services: Any
    ) -> None:
        space = await keys.space("alpha")
        tool = await http_tool(
            gql,
            tool_server,
            f"/ok/{fresh('metrics')}",
            inputSchema={"type": "object", "properties": {"n": {"type": "integer"}}},
        )
        for arguments in ({"n": 1}, {"n": 2}, {"n": "bad"}):
            await invoke(gql, space.id, tool["id"], arguments)

        response = await gql.http.get("/metrics")

        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/plain")
        labels = {"kind": "CUSTOM", "tool": app_and_services.state.services.gateway.metric_tool_label(tool["id"])}
        assert sample_value(response.text, "quiver_tool_calls_total", labels) == 3
        assert sample_value(response.text, "quiver_tool_call_failures_total", {**labels, "code": "PARAM_INVALID"}) == 1
        assert sample_value(response.text, "quiver_tool_call_latency_seconds_count", labels) == 3

    async def test_an_open_metrics_endpoint_tells_tools_apart_without_naming_them(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, settings: Settings, app_and_services: Any
    ) -> None:
        space = await keys.space("alpha")
        first = await http_tool(gql, tool_server, f"/ok/{fresh('named')}")
        second = await http_tool(gql, tool_server, f"/ok/{fresh('named')}")
        for tool in (first, second):
            await invoke(gql, space.id, tool["id"], {"n": 1})

        text = (await gql.http.get("/metrics")).text

        label = app_and_services.state.services.gateway.metric_tool_label
        assert label(first["id"]) != label(second["id"])
        for tool in (first, second):
            assert tool["id"] not in text and tool["name"] not in text
            assert label(tool["id"]).startswith("t_")
            assert sample_value(text, "quiver_tool_calls_total", {"kind": "CUSTOM", "tool": label(tool["id"])}) == 1
        # Another replica with the same secret key labels the same tool the same way.
        replica = create_app(settings)
        try:
            assert replica.state.services.gateway.metric_tool_label(first["id"]) == label(first["id"])
        finally:
            await replica.state.services.close()


# ---------------------------------------------------------------- subscription

SUBSCRIPTION = "subscription ToolCalls { toolCalls { id toolId status } }"
SUBSCRIPTION_IN_SPACE = (
    "subscription ToolCallsIn($spaceId: ID!) { toolCalls(filter: {spaceId: $spaceId}) { id toolId status } }"
)
SUBSCRIPTION_SINCE = (
    "subscription ToolCallsSince($since: DateTime) { toolCalls(filter: {since: $since}) { id toolId status } }"
)
RECEIVE_TIMEOUT_S = 10.0


def receive_message(ws: WebSocketTestSession, timeout_s: float = RECEIVE_TIMEOUT_S) -> dict[str, Any]:
    """The next graphql-transport-ws message; fails instead of hanging when none arrives."""

    async def receive() -> Any:
        with anyio.fail_after(timeout_s):
            # The session's own receive() has no timeout; read its stream directly.
            return await ws._send_rx.receive()

    message = ws.portal.call(receive)
    assert message["type"] == "websocket.send", message
    parsed: dict[str, Any] = json.loads(message["text"])
    return parsed


def connect(ws: WebSocketTestSession, key: str) -> None:
    ws.send_json({"type": "connection_init", "payload": {"Authorization": f"Bearer {key}"}})
    assert receive_message(ws)["type"] == "connection_ack"


def wait_for_subscribers(client: TestClient, count: int) -> None:
    bus = client.app.state.services.bus  # type: ignore[attr-defined]
    deadline = time.monotonic() + RECEIVE_TIMEOUT_S
    while bus.subscriber_count("tool_calls") < count:
        assert time.monotonic() < deadline, "the subscription never reached the event bus"
        time.sleep(0.01)


def invoke_over_http(client: TestClient, key: str, space_id: str, expression: str) -> dict[str, Any]:
    response = client.post(
        "/graphql",
        json={
            "query": INVOKE_TOOL,
            "variables": {
                "input": {"spaceId": space_id, "toolId": "bt_calculator", "arguments": {"expression": expression}}
            },
        },
        headers={"Authorization": f"Bearer {key}"},
    )
    assert response.status_code == 200, response.text
    envelope: dict[str, Any] = response.json()["data"]["invokeTool"]
    assert envelope["status"] == "SUCCESS", envelope
    return envelope


def next_call(message: dict[str, Any], subscription_id: str) -> dict[str, Any]:
    assert message["type"] == "next", message
    assert message["id"] == subscription_id
    assert message["payload"].get("errors") is None, message
    call: dict[str, Any] = message["payload"]["data"]["toolCalls"]
    return call


def admin_sees_each_call_once(settings: Settings, admin: str, alpha: str, beta: str) -> None:
    with (
        TestClient(create_app(settings)) as client,
        client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
    ):
        assert ws.accepted_subprotocol == "graphql-transport-ws"
        connect(ws, admin)
        ws.send_json({"id": "all", "type": "subscribe", "payload": {"query": SUBSCRIPTION}})
        wait_for_subscribers(client, 1)

        first = invoke_over_http(client, admin, alpha, "1 + 1")
        first_event = next_call(receive_message(ws), "all")
        second = invoke_over_http(client, admin, beta, "2 + 2")
        # The next message is the second call: the first was delivered exactly once.
        second_event = next_call(receive_message(ws), "all")

        assert first_event == {"id": first["call"]["id"], "toolId": "bt_calculator", "status": "SUCCESS"}
        assert second_event == {"id": second["call"]["id"], "toolId": "bt_calculator", "status": "SUCCESS"}
        ws.send_json({"id": "all", "type": "complete"})


def member_sees_only_its_space(settings: Settings, admin: str, member_of_beta: str, alpha: str, beta: str) -> None:
    with (
        TestClient(create_app(settings)) as client,
        client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
    ):
        connect(ws, member_of_beta)
        ws.send_json({"id": "mine", "type": "subscribe", "payload": {"query": SUBSCRIPTION}})
        wait_for_subscribers(client, 1)

        invoke_over_http(client, admin, alpha, "3 * 3")
        in_beta = invoke_over_http(client, member_of_beta, beta, "4 * 4")

        assert next_call(receive_message(ws), "mine")["id"] == in_beta["call"]["id"]

        # Asking for another space's stream ends it at once.
        ws.send_json(
            {
                "id": "theirs",
                "type": "subscribe",
                "payload": {"query": SUBSCRIPTION_IN_SPACE, "variables": {"spaceId": alpha}},
            }
        )
        assert receive_message(ws) == {"id": "theirs", "type": "complete"}


def naive_since_is_read_as_utc(settings: Settings, admin: str, space_id: str) -> None:
    with (
        TestClient(create_app(settings)) as client,
        client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
    ):
        connect(ws, admin)
        ws.send_json(
            {
                "id": "since",
                "type": "subscribe",
                "payload": {"query": SUBSCRIPTION_SINCE, "variables": {"since": "2000-01-01T00:00:00"}},
            }
        )
        wait_for_subscribers(client, 1)

        envelope = invoke_over_http(client, admin, space_id, "5 + 5")

        assert next_call(receive_message(ws), "since")["id"] == envelope["call"]["id"]


class TestToolCallsSubscription:
    async def test_admin_receives_each_call_once(self, settings: Settings, keys: Keys) -> None:
        alpha, beta = await keys.space("alpha"), await keys.space("beta")
        admin = await keys.admin()

        await asyncio.to_thread(admin_sees_each_call_once, settings, admin, alpha.id, beta.id)

    async def test_member_does_not_receive_other_spaces_calls(self, settings: Settings, keys: Keys) -> None:
        alpha, beta = await keys.space("alpha"), await keys.space("beta")
        admin = await keys.admin()
        member_of_beta = await keys.for_space(beta.id, Role.MEMBER)

        await asyncio.to_thread(member_sees_only_its_space, settings, admin, member_of_beta, alpha.id, beta.id)

    async def test_since_without_offset_is_read_as_utc(self, settings: Settings, keys: Keys) -> None:
        space = await keys.space("alpha")
        admin = await keys.admin()

        await asyncio.to_thread(naive_since_is_read_as_utc, settings, admin, space.id)


class TestMetricsToken:
    """With QUIVER_METRICS_TOKEN set, /metrics answers only a scraper presenting it."""

    async def test_metrics_need_the_token_when_one_is_set(self, settings: Settings) -> None:
        token = "scrape-" + secrets.token_hex(8)
        app = create_app(settings.model_copy(update={"metrics_token": token}))
        try:
            async with httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://quiver.test"
            ) as client:
                missing = await client.get("/metrics")
                wrong = await client.get("/metrics", headers={"Authorization": "Bearer not-the-token"})
                right = await client.get("/metrics", headers={"Authorization": f"Bearer {token}"})
        finally:
            await app.state.services.close()

        for refused in (missing, wrong):
            assert refused.status_code == 401
            assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
            assert token not in refused.text
        assert right.status_code == 200
        assert "quiver_tool_calls_total" in right.text

    async def test_an_authenticated_scraper_sees_tool_ids(
        self, settings: Settings, admin_key: str, keys: Keys, tool_server: ToolServer
    ) -> None:
        token = "scrape-" + secrets.token_hex(8)
        app = create_app(settings.model_copy(update={"metrics_token": token}))
        try:
            async with httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://quiver.test"
            ) as client:
                gql = GraphQLClient(http=client, key=admin_key)
                space = await keys.space("scraped")
                tool = await http_tool(gql, tool_server, f"/ok/{fresh('scraped')}")
                await invoke(gql, space.id, tool["id"], {"n": 1})
                text = (await client.get("/metrics", headers={"Authorization": f"Bearer {token}"})).text
        finally:
            await app.state.services.close()

        assert sample_value(text, "quiver_tool_calls_total", {"kind": "CUSTOM", "tool": tool["id"]}) == 1
