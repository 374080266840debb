"""MCP calls go through the tenant admission of POST /graphql (QUIVER_TENANT_CONCURRENCY,
app/mcp_server/endpoint.py), in both protocol eras: while another tenant is served, a tenant past
its share waits in its own queue, and past the queue is answered 429 with error.data.code BUSY;
a call waiting on an upstream gives its place up, in a handshake-era session's task too."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from app.principal import Role
from schema.fairness import TenantAdmission
from tests.app.mcp_server.conftest import McpServer
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import fresh, http_tool
from tests.support.http_tool_server import ToolServer, running_tool_server
from tests.support.serving import serving


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


async def eventually(condition: Any, what: str, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.01)


class TestMcpAdmission:
    async def test_a_tenant_past_its_share_waits_then_is_refused_past_its_queue(
        self, settings: Settings, keys: Keys
    ) -> None:
        space = await keys.space("mcp_admission")
        key = await keys.for_space(space.id, Role.MEMBER)
        app: Any = create_app(settings.model_copy(update={"tenant_concurrency": 1, "tenant_queue_max": 1}))
        admission: TenantAdmission = app.graphql_post.admission
        async with serving(settings, app) as base_url:
            server = McpServer(base_url)
            async with server.client("spaces", space.id, key) as client:
                # Alone: straight in.
                alone = await client.call_tool("calculator", {"expression": "1 + 1"})
                assert alone.is_error is False
                # Another tenant is being served and this one's share is taken: the call waits in its queue.
                other = await admission.enter("sp_someone_else")
                mine = await admission.enter(space.id)
                waiting = asyncio.create_task(client.call_tool("calculator", {"expression": "6 * 7"}))
                await eventually(lambda: admission.waiting(space.id) == 1, "the call did not wait in the queue")
                assert not waiting.done()
                # The queue is full (one): the next call is refused with BUSY, not queued.
                async with httpx.AsyncClient() as http:
                    refused = await http.post(
                        server.url("spaces", space.id),
                        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
                        headers={
                            "Authorization": f"Bearer {key}",
                            "Accept": "application/json, text/event-stream",
                            "Mcp-Protocol-Version": "2026-07-28",
                            "Mcp-Method": "tools/list",
                        },
                    )
                assert refused.status_code == 429
                assert refused.headers["retry-after"] == "1"
                error = refused.json()["error"]
                assert error["data"] == {"code": "BUSY"}
                assert "1 requests of this tenant are already waiting" in error["message"]
                # Its turn comes when the tenant's running request ends.
                mine.release()
                result = await asyncio.wait_for(waiting, 10)
                assert result.is_error is False
                assert result.structured_content is not None and result.structured_content["result"] == 42
                other.release()
        assert admission.running(space.id) == 0

    async def test_a_handshake_era_session_is_admitted_and_gives_its_place_up_while_upstream(
        self, settings: Settings, keys: Keys, gql: GraphQLClient, tool_server: ToolServer
    ) -> None:
        space = await keys.space("mcp_admission_legacy")
        key = await keys.for_space(space.id, Role.MEMBER)
        slow_key = fresh("slow")
        slow = await http_tool(gql, tool_server, f"/slow/{slow_key}?seconds=2", spaceIds=[space.id])
        app: Any = create_app(settings.model_copy(update={"tenant_concurrency": 1}))
        admission: TenantAdmission = app.graphql_post.admission
        admission.hold_s = 60.0  # a call counts until it ends or waits outside: nothing expires here
        async with serving(settings, app) as base_url:
            server = McpServer(base_url)
            async with server.client("spaces", space.id, key, mode="legacy") as client:
                other = await admission.enter("sp_someone_else")
                # Past its share while another tenant is served: the session's call waits its turn.
                mine = await admission.enter(space.id)
                waiting = asyncio.create_task(client.call_tool("calculator", {"expression": "6 * 7"}))
                await eventually(lambda: admission.waiting(space.id) == 1, "the session's call did not wait")
                mine.release()
                assert (await asyncio.wait_for(waiting, 10)).is_error is False
                # Two slow calls: the first, waiting on the upstream in the session's task, gives its
                # place up, so the second goes in at once instead of after it.
                calls = [asyncio.create_task(client.call_tool(slow["name"], {})) for _ in range(2)]
                arrived: list[Any] = []

                async def arrivals() -> int:
                    arrived[:] = await tool_server.requests("slow", slow_key)
                    return len(arrived)

                deadline = time.monotonic() + 10
                while await arrivals() < 1:
                    assert time.monotonic() < deadline, "the first call never reached the upstream"
                    await asyncio.sleep(0.01)
                assert admission.running(space.id) <= 1
                while await arrivals() < 2:
                    assert time.monotonic() < deadline, "the second call waited behind the first's upstream"
                    await asyncio.sleep(0.01)
                assert admission.running(space.id) == 0  # both waiting outside
                for result in await asyncio.gather(*calls):
                    assert result.is_error is False
                other.release()
        assert admission.running(space.id) == 0
