"""An MCP tool's structured result is checked against its outputSchema within the same bounds as a
call's arguments: a hostile server's result that takes too much work to check fails the call with
a stable code, and other tenants are answered while it is checked (the SDK checked it on the event
loop, without a bound: 2^17 subschemas for a result 150 bytes long)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from app import jsonschemas
from app.principal import Role
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import fresh, invoke
from tests.schema.tools.operations import REGISTER_MCP_SERVER
from tests.support.mcp import DOUBLING, nested
from tests.support.processes import HttpMcpServer, running_http_mcp_server

SYNC_MCP_SERVER = """
mutation Sync($id: ID!) {
  syncMcpServer(id: $id) { mcpServer { id lastError } userErrors { code message } }
}
"""
SPACE = "query QuietSpace($id: ID!) { space(id: $id) { id name } }"


@pytest.fixture(scope="module")
def mcp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpMcpServer]:
    with running_http_mcp_server(tmp_path_factory.mktemp("mcp-results")) as server:
        yield server


async def weather_tool(gql: GraphQLClient, mcp_server: HttpMcpServer, output_schema: dict[str, Any]) -> str:
    """The server's ``weather`` tool, discovered with ``output_schema``: its id."""
    mcp_server.set_state({"output_schemas": {"weather": output_schema}})
    mcp_server.ensure_running()
    registered = (
        await gql.execute(
            REGISTER_MCP_SERVER,
            {"input": {"name": fresh("results"), "transport": "STREAMABLE_HTTP", "url": mcp_server.url}},
        )
    )["registerMcpServer"]
    assert registered["userErrors"] == []
    server_id: str = registered["mcpServer"]["id"]
    synced = (await gql.execute(SYNC_MCP_SERVER, {"id": server_id}))["syncMcpServer"]
    assert synced["userErrors"] == [] and synced["mcpServer"]["lastError"] is None
    return f"{server_id}__weather"


def answers(mcp_server: HttpMcpServer, output_schema: dict[str, Any], result: dict[str, Any]) -> None:
    mcp_server.set_state({"output_schemas": {"weather": output_schema}, "weather_result": result})


async def quiet_tenant(gql: GraphQLClient, keys: Keys) -> Callable[[], Awaitable[None]]:
    """Another tenant's cheap query over HTTP: its space."""
    space = await keys.space("quiet")
    client = gql.as_key(await keys.for_space(space.id, Role.VIEWER))

    async def ask() -> None:
        assert (await client.execute(SPACE, {"id": space.id}))["space"]["id"] == space.id

    return ask


def too_much_work(envelope: dict[str, Any]) -> None:
    assert envelope["status"] == "FAILED", envelope
    assert envelope["error"]["code"] == "MCP_ERROR", envelope
    assert "too much work to check against the tool's output schema" in envelope["error"]["message"]
    assert json.loads(envelope["error"]["detail"]) == {"steps": jsonschemas.MAX_VALIDATION_STEPS}


class TestHostileResults:
    async def test_another_tenant_is_answered_while_a_hostile_result_is_checked(
        self, gql: GraphQLClient, keys: Keys, mcp_server: HttpMcpServer
    ) -> None:
        space = await keys.space("alpha")
        ask = await quiet_tenant(gql, keys)
        tool_id = await weather_tool(gql, mcp_server, DOUBLING)
        answers(mcp_server, DOUBLING, nested(17))

        calling = asyncio.ensure_future(invoke(gql, space.id, tool_id, {}))
        # Until the result's check runs on the check thread (a check on the loop would end
        # the call before this loop could look again).
        while not jsonschemas.long_checks_running() and not calling.done():  # noqa: ASYNC110
            await asyncio.sleep(0.001)
        assert not calling.done(), calling.result()
        asking = asyncio.ensure_future(ask())
        finished, _ = await asyncio.wait({calling, asking}, return_when=asyncio.FIRST_COMPLETED)

        assert asking in finished and calling not in finished
        await asking
        too_much_work(await calling)

    async def test_valid_results_pass_and_violating_ones_fail_as_before(
        self, gql: GraphQLClient, keys: Keys, mcp_server: HttpMcpServer
    ) -> None:
        space = await keys.space("alpha")
        tool_id = await weather_tool(gql, mcp_server, DOUBLING)

        answers(mcp_server, DOUBLING, nested(3))
        passed = await invoke(gql, space.id, tool_id, {})
        assert passed["status"] == "SUCCESS", passed
        assert passed["data"] == nested(3)
        answers(mcp_server, DOUBLING, {"a": {"a": 5}})
        failed = await invoke(gql, space.id, tool_id, {})
        assert failed["status"] == "FAILED", failed
        assert failed["error"]["code"] == "MCP_ERROR"
        assert "5 is not of type 'object' (at /a/a)" in failed["error"]["detail"]
        # A result long to check but within the bound is checked to the end, off the loop.
        answers(mcp_server, DOUBLING, nested(10))
        assert (await invoke(gql, space.id, tool_id, {}))["status"] == "SUCCESS"
        answers(mcp_server, DOUBLING, nested(10, "x"))
        deep = await invoke(gql, space.id, tool_id, {})
        assert deep["error"]["code"] == "MCP_ERROR", deep
        assert f"'x' is not of type 'object' (at {'/a' * 10})" in deep["error"]["detail"]
