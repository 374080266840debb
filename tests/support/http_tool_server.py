"""A real HTTP server for CUSTOM tools, served by uvicorn on loopback in a background thread.

Tests start it with :func:`running_tool_server` (a module-scoped fixture in each test
module) and point tools at ``server.url("/ok/<key>")``. Every tool endpoint takes a
``key`` path segment: counters and recorded requests are kept per (endpoint, key), so
tests that use a fresh key never see each other's traffic, across both backends.

Tool endpoints (POST):

- ``/ok/{key}``: echoes the JSON body and the headers of interest;
- ``/slow/{key}?seconds=2``: sleeps, then answers (the most requests of a key under way at
  once is kept: ``max_in_flight`` in ``/_state``);
- ``/error500/{key}``: always HTTP 500;
- ``/reflect500/{key}``: HTTP 500 whose text body repeats every request header (as a careless
  upstream's debug page would), the credential included;
- ``/not-json-safe/{key}``: a 200 ``application/json`` body with ``NaN``, ``Infinity``, an
  integer past 2**53 and a ``\u0000`` escape (Python's and many upstreams' idea of JSON);
- ``/fails-once/{key}``: HTTP 500 the first time per key, then like ``/ok``;
- ``/auth-check/{scheme}/{key}``: 401 unless the right credential arrived
  (``api-key``: ``X-Api-Key``; ``header``: ``X-Tool-Secret``; ``bearer``: ``Authorization``);
- ``/text/{key}``: a text/plain body;
- ``/big/{key}``: a JSON body over 1 MB with its Content-Length;
  ``/big-stream/{key}``: the same, chunked, without Content-Length;
- ``/redirect/{key}``: 302 to ``/ok/{key}``;
- ``/count-write/{key}?seconds=0``: a write that counts its executions per key;
- ``/token``: OAuth 2 client credentials (form); tokens are counted per client id;
- ``/oauth/protected/{key}``: accepts only the current token of the client that holds it.

Control endpoints: ``GET /_state``, ``POST /_reset``, ``POST /_revoke/{client_id}``
(revokes the client's current token, so the next call with it gets 401).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
from collections import defaultdict
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.support.threaded_server import serve_in_thread

# Credentials the server accepts; tests configure tools with them.
API_KEY_SECRET = "sk-apikey-4f1c2b9e7d0a4c55"
HEADER_SECRET = "hdr-secret-9b2e61d0c7aa4f03"
BEARER_SECRET = "bearer-secret-3d7f0e12ab9c4411"
OAUTH_CLIENT_SECRET = "oauth-client-secret-77c1e0b5d2f94a6e"
TOKEN_LIFETIME_S = 3600
BIG_BODY_BYTES = 1024 * 1024 + 64 * 1024

# Request headers recorded and echoed (lower case).
HEADERS_OF_INTEREST = (
    "authorization",
    "x-api-key",
    "x-tool-secret",
    "idempotency-key",
    "x-quiver-trace-id",
    "content-type",
)
AUTH_SCHEMES = {
    "api-key": ("x-api-key", API_KEY_SECRET),
    "header": ("x-tool-secret", HEADER_SECRET),
    "bearer": ("authorization", f"Bearer {BEARER_SECRET}"),
}


class ServerState:
    """Everything the server saw; mutated on the server's thread, read through ``/_state``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.tokens_issued: dict[str, int] = defaultdict(int)
        self.current_token: dict[str, str | None] = {}
        self.token_owner: dict[str, str] = {}
        self.rejected: dict[str, int] = defaultdict(int)
        # /slow: requests of a key under way now, and the most there ever were at once.
        self.in_flight: dict[str, int] = defaultdict(int)
        self.max_in_flight: dict[str, int] = defaultdict(int)

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()
            self.tokens_issued.clear()
            self.current_token.clear()
            self.token_owner.clear()
            self.rejected.clear()
            self.in_flight.clear()
            self.max_in_flight.clear()

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            return {
                "requests": {name: list(entries) for name, entries in self.requests.items()},
                "tokens_issued": dict(self.tokens_issued),
                "rejected": dict(self.rejected),
                "max_in_flight": dict(self.max_in_flight),
            }


async def _record(state: ServerState, endpoint: str, request: Request) -> tuple[list[dict[str, Any]], Any]:
    """Record the request under ``endpoint/key``; returns the entries so far and the body."""
    raw = await request.body()
    try:
        body: Any = json.loads(raw) if raw else None
    except ValueError:
        body = raw.decode("utf-8", "replace")
    headers = {name: request.headers[name] for name in HEADERS_OF_INTEREST if name in request.headers}
    name = f"{endpoint}/{request.path_params.get('key', '')}"
    with state.lock:
        entries = state.requests[name]
        entries.append({"body": body, "headers": headers})
        return list(entries), body


def _echo(body: Any, entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"received": body, "headers": entries[-1]["headers"], "hit": len(entries)}


def build_app(state: ServerState) -> Starlette:
    async def ok(request: Request) -> Response:
        entries, body = await _record(state, "ok", request)
        return JSONResponse(_echo(body, entries))

    async def slow(request: Request) -> Response:
        await _record(state, "slow", request)
        name = f"slow/{request.path_params['key']}"
        with state.lock:
            state.in_flight[name] += 1
            state.max_in_flight[name] = max(state.max_in_flight[name], state.in_flight[name])
        try:
            await asyncio.sleep(float(request.query_params.get("seconds", "2")))
        finally:
            with state.lock:
                state.in_flight[name] -= 1
        return JSONResponse({"slow": True})

    async def error500(request: Request) -> Response:
        await _record(state, "error500", request)
        return JSONResponse({"error": "boom"}, status_code=500)

    async def reflect500(request: Request) -> Response:
        await _record(state, "reflect500", request)
        lines = "".join(f"{name}: {value}\n" for name, value in request.headers.items())
        return PlainTextResponse(f"upstream exploded; request was:\n{lines}", status_code=500)

    async def not_json_safe(request: Request) -> Response:
        await _record(state, "not-json-safe", request)
        body = (
            b'{"mean": NaN, "max": Infinity, "min": -Infinity, '
            b'"id": 123456789012345678901, "name": "a\\u0000b", "n": 2}'
        )
        return Response(body, media_type="application/json")

    async def fails_once(request: Request) -> Response:
        entries, body = await _record(state, "fails-once", request)
        if len(entries) == 1:
            return JSONResponse({"error": "first attempt fails"}, status_code=500)
        return JSONResponse(_echo(body, entries))

    async def auth_check(request: Request) -> Response:
        scheme = request.path_params["scheme"]
        await _record(state, f"auth-check/{scheme}", request)
        header, expected = AUTH_SCHEMES[scheme]
        if request.headers.get(header) != expected:
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        return JSONResponse({"authorized": True, "scheme": scheme})

    async def text(request: Request) -> Response:
        await _record(state, "text", request)
        return PlainTextResponse("plain text, not JSON")

    async def big(request: Request) -> Response:
        await _record(state, "big", request)
        return Response(b'{"pad": "' + b"x" * BIG_BODY_BYTES + b'"}', media_type="application/json")

    async def big_stream(request: Request) -> Response:
        await _record(state, "big-stream", request)

        async def chunks() -> AsyncIterator[bytes]:
            yield b'{"pad": "'
            for _ in range(BIG_BODY_BYTES // 65536):
                yield b"x" * 65536
            yield b'"}'

        return StreamingResponse(chunks(), media_type="application/json")

    async def redirect(request: Request) -> Response:
        await _record(state, "redirect", request)
        return RedirectResponse(f"/ok/{request.path_params['key']}", status_code=302)

    async def count_write(request: Request) -> Response:
        # Counted on arrival, so concurrent duplicates show up even while the first sleeps.
        entries, body = await _record(state, "count-write", request)
        await asyncio.sleep(float(request.query_params.get("seconds", "0")))
        return JSONResponse({"execution": len(entries), "received": body})

    async def token(request: Request) -> Response:
        form = await request.form()
        client_id = str(form.get("client_id") or "")
        if form.get("grant_type") != "client_credentials" or form.get("client_secret") != OAUTH_CLIENT_SECRET:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        value = f"tok-{secrets.token_hex(12)}"
        with state.lock:
            state.tokens_issued[client_id] += 1
            state.current_token[client_id] = value
            state.token_owner[value] = client_id
        return JSONResponse({"access_token": value, "token_type": "Bearer", "expires_in": TOKEN_LIFETIME_S})

    async def protected(request: Request) -> Response:
        await _record(state, "oauth/protected", request)
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        with state.lock:
            client_id = state.token_owner.get(value)
            is_current = scheme == "Bearer" and client_id is not None and state.current_token.get(client_id) == value
            if not is_current:
                state.rejected[client_id or "unknown"] += 1
        if not is_current:
            return JSONResponse({"error": "invalid_token"}, status_code=401)
        return JSONResponse({"client": client_id})

    async def revoke(request: Request) -> Response:
        with state.lock:
            state.current_token[request.path_params["client_id"]] = None
        return JSONResponse({"revoked": True})

    async def get_state(_: Request) -> Response:
        return JSONResponse(state.snapshot())

    async def reset(_: Request) -> Response:
        state.reset()
        return JSONResponse({"reset": True})

    return Starlette(
        routes=[
            Route("/ok/{key}", ok, methods=["POST"]),
            Route("/slow/{key}", slow, methods=["POST"]),
            Route("/error500/{key}", error500, methods=["POST"]),
            Route("/reflect500/{key}", reflect500, methods=["POST"]),
            Route("/not-json-safe/{key}", not_json_safe, methods=["POST"]),
            Route("/fails-once/{key}", fails_once, methods=["POST"]),
            Route("/auth-check/{scheme:str}/{key}", auth_check, methods=["POST"]),
            Route("/text/{key}", text, methods=["POST"]),
            Route("/big/{key}", big, methods=["POST"]),
            Route("/big-stream/{key}", big_stream, methods=["POST"]),
            Route("/redirect/{key}", redirect, methods=["POST"]),
            Route("/count-write/{key}", count_write, methods=["POST"]),
            Route("/token", token, methods=["POST"]),
            Route("/oauth/protected/{key}", protected, methods=["POST"]),
            Route("/_revoke/{client_id}", revoke, methods=["POST"]),
            Route("/_state", get_state, methods=["GET"]),
            Route("/_reset", reset, methods=["POST"]),
        ]
    )


@dataclass
class ToolServer:
    """The client side of a running server: URLs and its recorded state."""

    host: str
    port: int

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    async def state(self) -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=self.base_url, trust_env=False) as client:
            response = await client.get("/_state")
            response.raise_for_status()
            return response.json()  # type: ignore[no-any-return]

    async def requests(self, endpoint: str, key: str) -> list[dict[str, Any]]:
        """What ``endpoint/key`` received, in order: ``{"body", "headers"}`` each."""
        recorded: list[dict[str, Any]] = (await self.state())["requests"].get(f"{endpoint}/{key}", [])
        return recorded

    async def tokens_issued(self, client_id: str) -> int:
        return int((await self.state())["tokens_issued"].get(client_id, 0))

    async def revoke_token(self, client_id: str) -> None:
        async with httpx.AsyncClient(base_url=self.base_url, trust_env=False) as client:
            (await client.post(f"/_revoke/{client_id}")).raise_for_status()

    async def reset(self) -> None:
        async with httpx.AsyncClient(base_url=self.base_url, trust_env=False) as client:
            (await client.post("/_reset")).raise_for_status()


@contextmanager
def running_tool_server(host: str = "127.0.0.1", *, start_timeout_s: float = 10.0) -> Iterator[ToolServer]:
    """Serve the tool app on ``host`` and a free port until the block ends."""
    with serve_in_thread(
        build_app(ServerState()), "/_state", name="tool server", host=host, start_timeout_s=start_timeout_s
    ) as port:
        yield ToolServer(host, port)
