"""2026-07-28 MCP calls go through the tenant admission of POST /graphql (QUIVER_TENANT_CONCURRENCY,
app/mcp_server/endpoint.py): while another tenant is served, a tenant past its share waits in its
own queue, and past the queue is answered 429 with error.data.code BUSY; the handshake era's
requests, whose work runs in the session's task, are not admitted."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from app.config import Settings
from app.main import create_app
from app.principal import Role
from schema.fairness import TenantAdmission
from tests.app.mcp_server.conftest import McpServer, serving
from tests.conftest import Keys


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
                # The handshake era is not admitted (its work runs in the session's task): it goes in.
                mine = await admission.enter(space.id)
                async with server.client("spaces", space.id, key, mode="legacy") as legacy:
                    assert (await legacy.call_tool("calculator", {"expression": "2 + 2"})).is_error is False
                mine.release()
                other.release()
        assert admission.running(space.id) == 0
