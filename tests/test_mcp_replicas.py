"""Two `quiver serve` replicas on PostgreSQL and Redis: MCP clients connected to one replica
(a handshake-era session and a 2026-07-28 listen stream) hear `tools/list_changed` when a
binding is changed through the other replica's GraphQL API."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
from cryptography.fernet import Fernet
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.subscriptions import ToolsListChanged

from tests.databases import postgres_database, require_redis
from tests.support.processes import REPOSITORY_ROOT, free_port, stop
from tests.test_replicas import ADMIN_TOKEN, _graphql, _serve, _wait_healthy


@asynccontextmanager
async def _client(url: str, **options: Any) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), **options) as client,
    ):
        yield client


async def _names(client: Client) -> set[str]:
    names: set[str] = set()
    cursor: str | None = None
    while True:
        page = await client.list_tools(cursor=cursor)
        names |= {tool.name for tool in page.tools}
        cursor = page.next_cursor
        if cursor is None:
            return names


async def _check_list_changed_across_replicas(port_a: int, port_b: int) -> None:
    space = (
        await _graphql(
            port_b,
            'mutation { createSpace(input: {name: "mcpreplicas", label: "MCP replicas"}) { space { id } } }',
        )
    )["createSpace"]["space"]["id"]
    url = f"http://127.0.0.1:{port_a}/mcp/spaces/{space}"
    # calculator is global: bound to the system space only, it leaves this space.
    heard_by_session = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            heard_by_session.set()

    async with (
        _client(url, mode="legacy", message_handler=on_message) as legacy,
        _client(url) as modern,
    ):
        assert modern.protocol_version == "2026-07-28"
        assert "calculator" in await _names(legacy)
        async with modern.listen(tools_list_changed=True) as subscription:
            await asyncio.sleep(0.5)  # the legacy client's GET stream is open by then
            changed = await _graphql(
                port_b,
                "mutation Bind($input: SetBindingsInput!) { setSpaceBindings(input: $input) { userErrors { code } } }",
                {"input": {"id": "bt_calculator", "spaceIds": ["sp_system"]}},
            )
            assert changed["setSpaceBindings"]["userErrors"] == []
            event = await asyncio.wait_for(anext(aiter(subscription)), 15)
        assert isinstance(event, ToolsListChanged)
        await asyncio.wait_for(heard_by_session.wait(), 15)
        assert "calculator" not in await _names(legacy)
        assert "calculator" not in await _names(modern)


class TestMcpAcrossReplicas:
    def test_a_change_on_one_replica_reaches_mcp_clients_of_the_other(self, tmp_path: Path) -> None:
        redis_url = asyncio.run(require_redis())
        with postgres_database("quiver_mcp_replicas") as database_url:
            env = {
                **os.environ,
                "PYTHONPATH": str(REPOSITORY_ROOT),
                "QUIVER_DATABASE_URL": database_url,
                "QUIVER_REDIS_URL": redis_url,
                "QUIVER_SECRET_KEY": Fernet.generate_key().decode(),
                "QUIVER_ADMIN_TOKEN": ADMIN_TOKEN,
                # Far beyond the test: only the change relayed over Redis can explain a notification.
                "QUIVER_CATALOG_CACHE_TTL_S": "600",
            }
            port_a, port_b = free_port(), free_port()
            log_a, log_b = tmp_path / "a.log", tmp_path / "b.log"
            replica_a = replica_b = None
            try:
                replica_a = _serve(port_a, env, log_a)
                _wait_healthy(port_a, replica_a, log_a)
                replica_b = _serve(port_b, env, log_b)
                _wait_healthy(port_b, replica_b, log_b)
                asyncio.run(_check_list_changed_across_replicas(port_a, port_b))
            finally:
                stop(replica_a)
                stop(replica_b)
