"""A tenant's open /mcp streams are bounded (QUIVER_MAX_MCP_STREAMS_PER_TENANT), whichever of its
keys opened them: handshake-era GET streams (past the cap, 429 TOO_MANY_STREAMS) and 2026-07-28
``subscriptions/listen`` streams (a JSON-RPC error, the same code), counted together; another
tenant is not refused; a stream that ends frees its place. Against the app under uvicorn, with
plain HTTP for the GET streams and the official SDK's client for listen."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import httpx
import pytest
from mcp.shared.exceptions import MCPError

from app.config import Settings
from app.main import create_app
from app.principal import Role
from app.scheduling import TenantCap
from tests.app.mcp_server.conftest import McpServer
from tests.conftest import Keys
from tests.support.processes import wait_until
from tests.support.serving import serving

CAP = 2
VERSION = "2025-11-25"


@pytest.fixture
async def capped(settings: Settings, app_and_services: Any) -> AsyncIterator[tuple[McpServer, TenantCap]]:
    app = create_app(settings.model_copy(update={"max_mcp_streams_per_tenant": CAP}))
    async with serving(settings, app) as base_url:
        yield McpServer(base_url), app.state.mcp_stream_cap


async def session(http: httpx.AsyncClient, url: str, key: str) -> dict[str, str]:
    """A handshake-era session opened with ``key``: the headers of its requests."""
    headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {key}"}
    info = {"name": "probe", "version": "1"}
    initialize = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": info}
    opened = await http.post(
        url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize}, headers=headers
    )
    assert opened.status_code == 200, opened.text
    headers = {**headers, "Mcp-Session-Id": opened.headers["mcp-session-id"], "Mcp-Protocol-Version": VERSION}
    initialized = await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    assert initialized.status_code == 202, initialized.text
    return headers


async def get_stream(stack: AsyncExitStack, http: httpx.AsyncClient, url: str, key: str) -> httpx.Response:
    """A session's GET stream, open until ``stack`` closes it (or its answer, when refused)."""
    headers = {**(await session(http, url, key)), "Accept": "text/event-stream"}
    return await stack.enter_async_context(http.stream("GET", url, headers=headers))


async def assert_refused(response: httpx.Response) -> None:
    assert response.status_code == 429
    body = await response.aread()
    error = httpx.Response(200, content=body).json()["error"]
    assert error["data"] == {"code": "TOO_MANY_STREAMS", "limit": CAP}
    assert "QUIVER_MAX_MCP_STREAMS_PER_TENANT" in error["message"]


async def test_get_streams_are_bounded_per_tenant_not_per_key(capped: tuple[McpServer, TenantCap], keys: Keys) -> None:
    server, cap = capped
    alpha, beta = await keys.space("streams_alpha"), await keys.space("streams_beta")
    alpha_keys = [await keys.for_space(alpha.id, Role.MEMBER) for _ in range(3)]
    beta_key = await keys.for_space(beta.id, Role.MEMBER)
    alpha_url, beta_url = server.url("spaces", alpha.id), server.url("spaces", beta.id)
    async with httpx.AsyncClient(trust_env=False, timeout=30) as http, AsyncExitStack() as stack:
        first = await get_stream(stack, http, alpha_url, alpha_keys[0])
        second = await get_stream(stack, http, alpha_url, alpha_keys[1])
        assert (first.status_code, second.status_code) == (200, 200)
        assert cap.open(alpha.id) == CAP
        # A third key of the same space: the same tenant, refused.
        await assert_refused(await get_stream(stack, http, alpha_url, alpha_keys[2]))
        # Another tenant is not.
        assert (await get_stream(stack, http, beta_url, beta_key)).status_code == 200
        # A stream that ends frees its place.
        await first.aclose()
        await wait_until(lambda: cap.open(alpha.id) == 1)
        assert (await get_stream(stack, http, alpha_url, alpha_keys[2])).status_code == 200
    await wait_until(lambda: cap.open(alpha.id) == cap.open(beta.id) == 0)


async def test_listen_streams_count_with_get_streams(capped: tuple[McpServer, TenantCap], keys: Keys) -> None:
    server, cap = capped
    space = await keys.space("streams_listen")
    key, other_key = await keys.for_space(space.id, Role.MEMBER), await keys.for_space(space.id, Role.VIEWER)
    url = server.url("spaces", space.id)
    async with (
        httpx.AsyncClient(trust_env=False, timeout=30) as http,
        AsyncExitStack() as stack,
        server.client("spaces", space.id, key) as client,
    ):
        assert client.protocol_version == "2026-07-28"
        assert (await get_stream(stack, http, url, other_key)).status_code == 200
        async with client.listen(tools_list_changed=True):
            assert cap.open(space.id) == CAP
            with pytest.raises(MCPError) as refused:
                async with client.listen(prompts_list_changed=True):
                    pass
            assert refused.value.error.data == {"code": "TOO_MANY_STREAMS", "limit": CAP}
            await assert_refused(await get_stream(stack, http, url, other_key))
        await wait_until(lambda: cap.open(space.id) == 1)
        async with client.listen(prompts_list_changed=True):
            assert cap.open(space.id) == CAP


def test_zero_turns_the_cap_off(settings: Settings) -> None:
    assert create_app(settings).state.mcp_stream_cap.per_tenant == 100
    assert create_app(settings.model_copy(update={"max_mcp_streams_per_tenant": 0})).state.mcp_stream_cap is None
