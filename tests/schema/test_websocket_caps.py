"""GraphQL WebSockets are bounded (schema/websocket_admission.py), against the app under uvicorn
with the ``websockets`` client: a tenant's open sockets (QUIVER_MAX_WEBSOCKETS_PER_TENANT; past
it connection_init is answered by a close 4013 TOO_MANY_WEBSOCKETS, other tenants unaffected, a
closed socket frees its place; an ADMIN key is a tenant of its own), sockets waiting for
connection_init (closed after QUIVER_WEBSOCKET_INIT_TIMEOUT_S; past QUIVER_MAX_PENDING_WEBSOCKETS
the longest waiting is closed), and the older graphql-ws protocol, which is not spoken."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from app.config import Settings
from app.main import create_app
from app.principal import Role
from schema.fairness import TenantCap
from tests.conftest import Keys
from tests.support.processes import wait_until
from tests.support.serving import serving

CAP = 2


async def open_socket(base_url: str, protocol: str = "graphql-transport-ws") -> ClientConnection:
    url = base_url.replace("http://", "ws://") + "/graphql"
    return await connect(url, subprotocols=[protocol])  # type: ignore[list-item]


async def init(ws: ClientConnection, key: str) -> dict[str, Any]:
    """Send connection_init with ``key``; the server's answer: its first message, or how it closed."""
    await ws.send(json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {key}"}}))
    return await answer(ws)


async def answer(ws: ClientConnection) -> dict[str, Any]:
    try:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
    except ConnectionClosed:
        assert ws.close_code is not None
        return {"closed": ws.close_code, "reason": ws.close_reason}
    return message


async def acknowledged(base_url: str, key: str, stack: AsyncExitStack) -> ClientConnection:
    ws = await stack.enter_async_context(await open_socket(base_url))
    assert await init(ws, key) == {"type": "connection_ack"}
    return ws


async def query_over(ws: ClientConnection) -> dict[str, Any]:
    """A query over the socket still answers (the socket is of use, not only open)."""
    await ws.send(json.dumps({"id": "q", "type": "subscribe", "payload": {"query": "{ __typename }"}}))
    return await answer(ws)


@pytest.fixture
async def served(settings: Settings, app_and_services: Any) -> AsyncIterator[tuple[str, TenantCap]]:
    app = create_app(settings.model_copy(update={"max_websockets_per_tenant": CAP}))
    async with serving(settings, app) as base_url:
        yield base_url, app.state.socket_cap


def assert_refused(outcome: dict[str, Any]) -> None:
    assert outcome["closed"] == 4013, outcome
    assert outcome["reason"].startswith("TOO_MANY_WEBSOCKETS: this tenant has 2 open"), outcome
    assert "QUIVER_MAX_WEBSOCKETS_PER_TENANT" in outcome["reason"]


class TestPerTenantCap:
    async def test_the_tenant_past_its_cap_is_refused_others_are_not_and_closing_frees_a_place(
        self, served: tuple[str, TenantCap], keys: Keys
    ) -> None:
        base_url, cap = served
        alpha, beta = await keys.space("ws_alpha"), await keys.space("ws_beta")
        # Two keys of one space are one tenant.
        alpha_keys = [await keys.for_space(alpha.id, Role.MEMBER) for _ in range(2)]
        beta_key = await keys.for_space(beta.id, Role.VIEWER)
        async with AsyncExitStack() as stack:
            first = await acknowledged(base_url, alpha_keys[0], stack)
            await acknowledged(base_url, alpha_keys[1], stack)
            assert cap.open(alpha.id) == CAP

            third = await stack.enter_async_context(await open_socket(base_url))
            assert_refused(await init(third, alpha_keys[1]))
            assert cap.open(alpha.id) == CAP

            # Another tenant is not refused, and the tenant's open sockets still work.
            other = await acknowledged(base_url, beta_key, stack)
            assert (await query_over(other))["payload"] == {"data": {"__typename": "Query"}}
            assert (await query_over(first))["payload"] == {"data": {"__typename": "Query"}}

            # Closing one frees its place.
            await first.close()
            await wait_until(lambda: cap.open(alpha.id) == 1)
            again = await acknowledged(base_url, alpha_keys[0], stack)
            assert (await query_over(again))["payload"] == {"data": {"__typename": "Query"}}
            assert cap.open(alpha.id) == CAP
        await wait_until(lambda: cap.open(alpha.id) == cap.open(beta.id) == 0)

    async def test_an_admin_key_is_a_tenant_of_its_own(self, served: tuple[str, TenantCap], keys: Keys) -> None:
        base_url, _ = served
        admin, other_admin = await keys.admin(), await keys.admin()
        async with AsyncExitStack() as stack:
            for _ in range(CAP):
                await acknowledged(base_url, admin, stack)
            refused = await stack.enter_async_context(await open_socket(base_url))
            assert_refused(await init(refused, admin))
            # Another ADMIN key has a share of its own.
            await acknowledged(base_url, other_admin, stack)

    async def test_a_socket_with_a_bad_key_takes_no_place(self, served: tuple[str, TenantCap], keys: Keys) -> None:
        base_url, cap = served
        space = await keys.space("ws_bad_key")
        key = await keys.for_space(space.id, Role.MEMBER)
        async with AsyncExitStack() as stack:
            for _ in range(CAP + 1):
                ws = await stack.enter_async_context(await open_socket(base_url))
                assert await init(ws, "qv_not_a_key") == {"closed": 4403, "reason": "Forbidden"}
            for _ in range(CAP):
                await acknowledged(base_url, key, stack)
            assert cap.open(space.id) == CAP

    def test_zero_turns_the_cap_off(self, settings: Settings) -> None:
        assert create_app(settings).state.socket_cap.per_tenant == 100
        assert create_app(settings.model_copy(update={"max_websockets_per_tenant": 0})).state.socket_cap is None


class TestBeforeConnectionInit:
    async def test_a_socket_that_does_not_authenticate_is_closed(
        self, settings: Settings, app_and_services: Any, admin_key: str
    ) -> None:
        app = create_app(settings.model_copy(update={"websocket_init_timeout_s": 0.2}))
        async with serving(settings, app) as base_url, AsyncExitStack() as stack:
            silent = await stack.enter_async_context(await open_socket(base_url))
            assert await answer(silent) == {"closed": 4408, "reason": "Connection initialisation timeout"}
            assert len(app.state.pending_sockets) == 0

    async def test_past_the_bound_the_longest_waiting_is_closed(
        self, settings: Settings, app_and_services: Any, admin_key: str
    ) -> None:
        app = create_app(settings.model_copy(update={"max_pending_websockets": 2}))
        async with serving(settings, app) as base_url, AsyncExitStack() as stack:
            oldest, second = [await stack.enter_async_context(await open_socket(base_url)) for _ in range(2)]
            await wait_until(lambda: len(app.state.pending_sockets) == 2)
            newest = await stack.enter_async_context(await open_socket(base_url))
            outcome = await answer(oldest)
            assert outcome["closed"] == 4408, outcome
            assert outcome["reason"].startswith("TOO_MANY_PENDING_WEBSOCKETS: 2 sockets wait"), outcome
            # The two that came after it are served; an authenticated socket no longer waits.
            assert await init(second, admin_key) == {"type": "connection_ack"}
            assert await init(newest, admin_key) == {"type": "connection_ack"}
            assert len(app.state.pending_sockets) == 0
            for _ in range(3):
                await acknowledged(base_url, admin_key, stack)

    async def test_the_older_graphql_ws_protocol_is_not_spoken(self, settings: Settings, app_and_services: Any) -> None:
        async with serving(settings) as base_url, await open_socket(base_url, "graphql-ws") as legacy:
            assert legacy.subprotocol is None
            assert await answer(legacy) == {"closed": 4406, "reason": "Subprotocol not acceptable"}
