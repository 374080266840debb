"""ToolCall.origin: how each call arrived, on the row, in the filter and on the live event."""

from __future__ import annotations

import asyncio
from typing import Any

from app.principal import SYSTEM_PRINCIPAL
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import call_log, invoke


class TestOrigin:
    async def test_each_way_in_is_recorded_and_filterable(
        self, gql: GraphQLClient, keys: Keys, app_and_services: Any
    ) -> None:
        space = await keys.space("origins")
        gateway = app_and_services.state.services.gateway
        by_graphql = await invoke(gql, space.id, "bt_calculator", {"expression": "1 + 1"})
        by_run = await gateway.execute(
            SYSTEM_PRINCIPAL, space.id, "bt_calculator", {"expression": "2 + 2"}, agent_id="ag_o", run_id="run_o"
        )
        by_mcp = await gateway.execute(
            SYSTEM_PRINCIPAL, space.id, "bt_calculator", {"expression": "3 + 3"}, agent_id="ag_o", origin="MCP"
        )
        assert by_graphql["call"]["origin"] == "GRAPHQL"
        log = await call_log(gql, spaceId=space.id)
        # Listed in the order they were made, even within one millisecond (app.ids).
        assert [(node["id"], node["origin"]) for node in log["nodes"]] == [
            (by_graphql["call"]["id"], "GRAPHQL"),
            (by_run.call_id, "AGENT"),
            (by_mcp.call_id, "MCP"),
        ]
        for origin, call_id in (
            ("GRAPHQL", by_graphql["call"]["id"]),
            ("AGENT", by_run.call_id),
            ("MCP", by_mcp.call_id),
        ):
            narrowed = await call_log(gql, spaceId=space.id, origin=origin)
            assert [node["id"] for node in narrowed["nodes"]] == [call_id]

    async def test_the_live_event_carries_the_origin(
        self, gql: GraphQLClient, keys: Keys, app_and_services: Any
    ) -> None:
        space = await keys.space("origin_events")
        services = app_and_services.state.services
        received: list[dict[str, Any]] = []
        subscribed = asyncio.Event()

        async def listen() -> None:
            async with services.bus.subscribe("tool_calls") as subscription:
                subscribed.set()
                async for event in subscription:
                    if event["space_id"] == space.id:
                        received.append(event)
                        return

        listener = asyncio.create_task(listen())
        await subscribed.wait()
        await services.gateway.execute(SYSTEM_PRINCIPAL, space.id, "bt_calculator", {"expression": "1"}, origin="MCP")
        await asyncio.wait_for(listener, 5)
        assert received[0]["origin"] == "MCP"
