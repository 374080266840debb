"""Authentication at the HTTP and WebSocket edges: bearer keys, 401s, the open pages."""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from app.config import Settings
from app.main import create_app
from app.principal import Role
from app.spaces.models import ApiKey
from app.spaces.service import hash_key
from tests.conftest import GraphQLClient, Keys

VIEWER_QUERY = "query Viewer { viewer { roles space { id } } }"
TRANSPORT_WS = "graphql-transport-ws"


def assert_unauthenticated(response: httpx.Response) -> None:
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"].lower().startswith("bearer")
    body = response.json()
    assert body["data"] is None
    assert len(body["errors"]) == 1
    error = body["errors"][0]
    assert isinstance(error["message"], str) and error["message"]
    assert error["extensions"] == {"code": "UNAUTHENTICATED"}


class TestMissingKey:
    async def test_no_authorization_header_is_401_with_graphql_shaped_body(self, http: httpx.AsyncClient) -> None:
        response = await http.post("/graphql", json={"query": VIEWER_QUERY})

        assert_unauthenticated(response)

    async def test_get_query_without_key_is_401(self, http: httpx.AsyncClient) -> None:
        response = await http.get("/graphql", params={"query": VIEWER_QUERY})

        assert_unauthenticated(response)

    async def test_html_get_carrying_a_query_still_needs_a_key(self, http: httpx.AsyncClient) -> None:
        response = await http.get("/graphql", params={"query": VIEWER_QUERY}, headers={"Accept": "text/html"})

        assert_unauthenticated(response)


class TestMalformedAuthorization:
    @pytest.mark.parametrize("header", ["Basic x", "Bearer", "Bearer    ", "qk_no_scheme", "Token abc"])
    async def test_non_bearer_header_is_401(self, http: httpx.AsyncClient, admin_key: str, header: str) -> None:
        response = await http.post("/graphql", json={"query": VIEWER_QUERY}, headers={"Authorization": header})

        assert_unauthenticated(response)

    async def test_basic_scheme_carrying_a_valid_key_is_still_401(
        self, http: httpx.AsyncClient, admin_key: str
    ) -> None:
        response = await http.post(
            "/graphql", json={"query": VIEWER_QUERY}, headers={"Authorization": f"Basic {admin_key}"}
        )

        assert_unauthenticated(response)


class TestUnknownKey:
    async def test_unknown_key_is_401(self, gql: GraphQLClient) -> None:
        response = await gql.raw(VIEWER_QUERY, key="qk_this-key-was-never-issued")

        assert_unauthenticated(response)

    async def test_revoked_key_is_401(
        self,
        gql: GraphQLClient,
        keys: Keys,
        session_factory: async_sessionmaker[AsyncSession],
    ) -> None:
        space = await keys.space("revoked")
        key = await keys.for_space(space.id, Role.MEMBER)
        async with session_factory() as session, session.begin():
            await session.execute(
                update(ApiKey).where(ApiKey.key_hash == hash_key(key)).values(revoked_at=datetime.now(UTC))
            )

        response = await gql.raw(VIEWER_QUERY, key=key)

        assert_unauthenticated(response)

    async def test_a_key_revoked_after_use_is_refused_at_once(
        self,
        gql: GraphQLClient,
        keys: Keys,
        session_factory: async_sessionmaker[AsyncSession],
    ) -> None:
        """Authenticated keys are cached, but any API-key commit drops the cache."""
        space = await keys.space("revoked-later")
        key = await keys.for_space(space.id, Role.MEMBER)
        assert (await gql.raw(VIEWER_QUERY, key=key)).status_code == 200
        assert (await gql.raw(VIEWER_QUERY, key=key)).status_code == 200
        async with session_factory() as session, session.begin():
            await session.execute(
                update(ApiKey).where(ApiKey.key_hash == hash_key(key)).values(revoked_at=datetime.now(UTC))
            )

        assert_unauthenticated(await gql.raw(VIEWER_QUERY, key=key))


class TestValidKey:
    async def test_bearer_key_reaches_the_api(self, gql: GraphQLClient) -> None:
        response = await gql.raw(VIEWER_QUERY)

        assert response.status_code == 200
        assert response.json() == {"data": {"viewer": {"roles": ["ADMIN"], "space": None}}}

    async def test_scheme_is_case_insensitive(self, http: httpx.AsyncClient, admin_key: str) -> None:
        response = await http.post(
            "/graphql", json={"query": VIEWER_QUERY}, headers={"Authorization": f"bearer {admin_key}"}
        )

        assert response.status_code == 200
        assert response.json()["data"]["viewer"]["roles"] == ["ADMIN"]


class TestOpenEndpoints:
    async def test_graphiql_page_is_served_without_a_key(self, http: httpx.AsyncClient) -> None:
        response = await http.get("/graphql", headers={"Accept": "text/html"})

        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")
        assert "graphiql" in response.text.lower()

    async def test_healthz_answers_ok_without_a_key(self, http: httpx.AsyncClient) -> None:
        response = await http.get("/healthz")

        assert response.status_code == 200
        # The app runs in this process: it names it as the worker that answered.
        assert response.json() == {"status": "ok", "checks": {"database": {"status": "ok"}}, "worker": os.getpid()}


def _websocket_handshake(settings: Settings, payload: dict[str, Any] | None) -> dict[str, Any]:
    """Open a graphql-transport-ws socket on a fresh app, send connection_init, report the outcome.

    Runs in a worker thread: TestClient drives the app on an event loop of its own.
    """
    app = create_app(settings)
    message: dict[str, Any] = {"type": "connection_init"}
    if payload is not None:
        message["payload"] = payload
    with TestClient(app) as client, client.websocket_connect("/graphql", subprotocols=[TRANSPORT_WS]) as socket:
        assert socket.accepted_subprotocol == TRANSPORT_WS
        socket.send_json(message)
        try:
            return {"message": socket.receive_json()}
        except WebSocketDisconnect as disconnect:
            return {"closed": disconnect.code}


class TestWebSocketAuth:
    async def test_valid_key_in_connection_init_is_acknowledged(self, settings: Settings, admin_key: str) -> None:
        outcome = await asyncio.to_thread(_websocket_handshake, settings, {"Authorization": f"Bearer {admin_key}"})

        assert outcome["message"]["type"] == "connection_ack", outcome

    async def test_space_key_in_connection_init_is_acknowledged(self, settings: Settings, keys: Keys) -> None:
        space = await keys.space("sockets")
        key = await keys.for_space(space.id, Role.VIEWER)

        outcome = await asyncio.to_thread(_websocket_handshake, settings, {"Authorization": f"Bearer {key}"})

        assert outcome["message"]["type"] == "connection_ack", outcome

    async def test_unknown_key_closes_the_socket_with_4403(self, settings: Settings) -> None:
        outcome = await asyncio.to_thread(_websocket_handshake, settings, {"Authorization": "Bearer qk_never-issued"})

        assert outcome == {"closed": 4403}

    async def test_missing_payload_closes_the_socket_with_4403(self, settings: Settings) -> None:
        outcome = await asyncio.to_thread(_websocket_handshake, settings, None)

        assert outcome == {"closed": 4403}

    async def test_non_bearer_scheme_closes_the_socket_with_4403(self, settings: Settings, admin_key: str) -> None:
        outcome = await asyncio.to_thread(_websocket_handshake, settings, {"Authorization": f"Basic {admin_key}"})

        assert outcome == {"closed": 4403}
