"""A GraphQL WebSocket (``/graphql``) is handed to the router's socket handler without FastAPI's
routing in between (``app.main.GraphQLSocket``): what stays suspended under an open socket for its
whole life is the request limits and the handler, not FastAPI's route, exception handlers and
dependency stacks. Against the app under uvicorn with the ``websockets`` client, on both backends."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from app.config import Settings
from app.main import create_app
from tests.conftest import Keys
from tests.support.serving import serving


@pytest.fixture
async def base_url(settings: Settings, app_and_services: Any) -> AsyncIterator[str]:
    async with serving(settings, create_app(settings)) as url:
        yield url


async def receive(ws: ClientConnection) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
    return message


async def acknowledged(base_url: str, key: str) -> ClientConnection:
    ws = await connect(base_url.replace("http://", "ws://") + "/graphql", subprotocols=["graphql-transport-ws"])  # type: ignore[list-item]
    await ws.send(json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {key}"}}))
    assert await receive(ws) == {"type": "connection_ack"}
    return ws


def frames_under_sockets() -> list[list[str]]:
    """The file of every frame of every task serving a GraphQL socket, outermost first."""
    stacks: list[list[str]] = []
    for task in asyncio.all_tasks():
        files = [frame.f_code.co_filename for frame in task.get_stack(limit=200)]
        coroutine: Any = task.get_coro()
        while coroutine is not None:
            files.append(coroutine.cr_code.co_filename if hasattr(coroutine, "cr_code") else "")
            coroutine = getattr(coroutine, "cr_await", None)
        if any(name.endswith("strawberry/subscriptions/protocols/graphql_transport_ws/handlers.py") for name in files):
            stacks.append(files)
    return stacks


async def test_an_open_socket_answers_and_holds_no_fastapi_routing(base_url: str, keys: Keys) -> None:
    ws = await acknowledged(base_url, await keys.admin())
    try:
        await ws.send(json.dumps({"id": "q", "type": "subscribe", "payload": {"query": "{ __typename }"}}))
        assert await receive(ws) == {"id": "q", "type": "next", "payload": {"data": {"__typename": "Query"}}}
        assert await receive(ws) == {"id": "q", "type": "complete"}
        stacks = frames_under_sockets()
        assert stacks, "no task serves the open socket"
        for files in stacks:
            assert any(name.endswith("app/http_limits.py") for name in files)  # the limits still apply
            assert not [name for name in files if "/fastapi/" in name or name.endswith("starlette/routing.py")]
    finally:
        await ws.close()


async def test_a_socket_without_a_valid_key_is_refused_at_connection_init(base_url: str) -> None:
    ws = await connect(base_url.replace("http://", "ws://") + "/graphql", subprotocols=["graphql-transport-ws"])  # type: ignore[list-item]
    try:
        await ws.send(json.dumps({"type": "connection_init", "payload": {"Authorization": "Bearer qk_nobody"}}))
        with pytest.raises(ConnectionClosed):
            await receive(ws)
        assert ws.close_code == 4403, ws.close_reason
    finally:
        await ws.close()
