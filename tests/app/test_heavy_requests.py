"""Large request bodies wait in their tenant's line (QUIVER_HEAVY_REQUEST_BYTES, app.main.AuthMiddleware):
one tenant's many large bodies are let in one at a time, without holding back its small requests
or anyone else's."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, cast

from starlette.types import Receive, Scope, Send

from app.main import PRINCIPAL_SCOPE_KEY, AuthMiddleware, KeyCache
from app.principal import Principal, Role
from schema.fairness import LINE_RELEASE_SCOPE_KEY, CostlyOperationGate
from tests.support.asgi import StubKeys, post, settle

HEAVY = 8 * 1024
KEYS = {
    "key-a": Principal(key_id="k_a", role=Role.MEMBER, space_id="sp_a"),
    "key-b": Principal(key_id="k_b", role=Role.MEMBER, space_id="sp_b"),
}


class HeldApp:
    """Counts the requests inside at once, per tenant and size, until released."""

    def __init__(self, executes: bool = False) -> None:
        self.inside: Counter[tuple[str, str]] = Counter()
        self.most: Counter[tuple[str, str]] = Counter()
        self.release = asyncio.Event()
        self.executes = executes  # let the line go as the schema does once execution starts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        principal: Principal = scope[PRINCIPAL_SCOPE_KEY]
        if self.executes and LINE_RELEASE_SCOPE_KEY in scope:
            scope[LINE_RELEASE_SCOPE_KEY]()
            scope[LINE_RELEASE_SCOPE_KEY]()  # twice: the second does nothing
        headers = dict(scope["headers"])
        size = "heavy" if b"content-length" not in headers or int(headers[b"content-length"]) >= HEAVY else "light"
        key = (str(principal.space_id), size)
        self.inside[key] += 1
        self.most[key] = max(self.most[key], self.inside[key])
        try:
            await self.release.wait()
        finally:
            self.inside[key] -= 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


async def sized(app: Any, token: str, size: int | None) -> int:
    """The status of a POST declaring ``size`` bytes (None: chunked, no length declared)."""
    headers = [] if size is None else [(b"content-length", str(size).encode())]
    status, _, _ = await post(app, token, headers)
    return status


def middleware(inner: HeldApp, heavy_bytes: int = HEAVY, line: CostlyOperationGate | None = None) -> AuthMiddleware:
    return AuthMiddleware(inner, cast(KeyCache, StubKeys(KEYS)), line or CostlyOperationGate(), heavy_bytes)


class TestHeavyLine:
    async def test_a_tenants_large_bodies_go_in_one_at_a_time(self) -> None:
        inner = HeldApp()
        app = middleware(inner)
        requests = [
            *(sized(app, "key-a", 2 * 1024 * 1024) for _ in range(3)),
            sized(app, "key-a", None),  # chunked: its size is not declared
            sized(app, "key-a", 200),
            sized(app, "key-a", 300),
            sized(app, "key-b", 100_000),
        ]
        running = [asyncio.ensure_future(request) for request in requests]
        await settle()
        # One of tenant A's large bodies is in; its small requests and tenant B's large one are not held.
        assert inner.inside[("sp_a", "heavy")] == 1
        assert inner.inside[("sp_a", "light")] == 2
        assert inner.inside[("sp_b", "heavy")] == 1
        inner.release.set()
        assert await asyncio.gather(*running) == [200] * 7
        assert inner.most[("sp_a", "heavy")] == 1

    async def test_zero_turns_the_line_off(self) -> None:
        inner = HeldApp()
        app = middleware(inner, heavy_bytes=0)
        running = [asyncio.ensure_future(sized(app, "key-a", 2 * 1024 * 1024)) for _ in range(3)]
        await settle()
        assert inner.inside[("sp_a", "heavy")] == 3
        inner.release.set()
        assert await asyncio.gather(*running) == [200] * 3

    async def test_a_refused_key_waits_in_no_line(self) -> None:
        inner = HeldApp()
        app = middleware(inner)
        holding = asyncio.ensure_future(sized(app, "key-a", 2 * 1024 * 1024))
        await settle()
        assert await sized(app, "wrong-key", 2 * 1024 * 1024) == 401
        inner.release.set()
        assert await holding == 200

    async def test_execution_lets_the_next_large_body_in(self) -> None:
        inner, line = HeldApp(executes=True), CostlyOperationGate()
        app = middleware(inner, line=line)
        running = [asyncio.ensure_future(sized(app, "key-a", 2 * 1024 * 1024)) for _ in range(3)]
        await settle()
        # Each let the next in as it started executing: all three execute at once, none is in line.
        assert inner.inside[("sp_a", "heavy")] == 3
        assert line.in_line("sp_a") == 0
        inner.release.set()
        assert await asyncio.gather(*running) == [200] * 3
        assert line.in_line("sp_a") == 0
