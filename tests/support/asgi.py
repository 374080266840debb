"""Driving app.main.AuthMiddleware (or any ASGI app) directly, without a server: a key store
from a dict, one ``POST /graphql`` answered in full, and a few turns of the loop."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from typing import Any

from starlette.types import Message

from app.principal import Principal


class StubKeys:
    """The key store's ``principal`` lookup over a fixed mapping of token to principal."""

    def __init__(self, keys: dict[str, Principal]) -> None:
        self.keys = keys

    async def principal(self, token: str) -> Principal | None:
        return self.keys.get(token)


async def post(
    app: Any, token: str, headers: Iterable[tuple[bytes, bytes]] = ()
) -> tuple[int, dict[str, Any] | None, dict[bytes, bytes]]:
    """One empty-bodied POST /graphql with ``token`` as the bearer key (and ``headers``):
    the status, the JSON body (None when empty) and the response headers."""
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/graphql",
        "headers": [(b"authorization", f"Bearer {token}".encode()), *headers],
        "query_string": b"",
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    body = b"".join(message.get("body", b"") for message in sent[1:])
    return int(sent[0]["status"]), json.loads(body) if body else None, dict(sent[0]["headers"])


async def settle(turns: int = 30) -> None:
    """Let every task that can run do so (``turns`` passes of the loop)."""
    for _ in range(turns):
        await asyncio.sleep(0)
