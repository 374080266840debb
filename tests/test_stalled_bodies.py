"""A POST /graphql whose body stops half-way, against a real ``quiver serve``.

Before QUIVER_REQUEST_BODY_TIMEOUT_S the server waited for the rest for ever: the connection
stayed open, and, the body being large (QUIVER_HEAVY_REQUEST_BYTES), every later large body of
the same tenant waited behind it in the tenant's line, never answered.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx

from tests.test_cli import serving

TOKEN = "stalled-bodies-admin"
# Bounds the test's own reads: far above the server's body time-out of 1 s.
CLIENT_TIMEOUT_S = 30


def stalled_post(url: str, path: str = "/graphql") -> socket.socket:
    """A POST declaring 100,000 bytes that sends a few and then nothing."""
    host, port = url.removeprefix("http://").split(":")
    connection = socket.create_connection((host, int(port)), timeout=CLIENT_TIMEOUT_S)
    connection.sendall(
        f"POST {path} HTTP/1.1\r\nHost: quiver\r\nContent-Type: application/json\r\n".encode()
        + b"Accept: application/json, text/event-stream\r\n"
        + f"Authorization: Bearer {TOKEN}\r\n".encode()
        + b'Content-Length: 100000\r\n\r\n{"query": "{ viewer { roles } }", "pad": "'
    )
    return connection


def answer(connection: socket.socket) -> tuple[int, dict[str, object]]:
    """The status and JSON body of the response on ``connection`` (read until it closes)."""
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
        head, _, body = received.partition(b"\r\n\r\n")
        length = next(
            (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")),
            None,
        )
        if length is not None and len(body) >= length:
            break
    head, _, body = received.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), json.loads(body)


def test_a_body_that_stops_is_answered_408_and_the_tenants_next_large_body_goes_through(tmp_path: Path) -> None:
    with serving(tmp_path, QUIVER_ADMIN_TOKEN=TOKEN, QUIVER_REQUEST_BODY_TIMEOUT_S="1") as server:
        stalled = stalled_post(server.url)
        # The same tenant's large body, sent while the first is stalled: it waits in the line.
        large = httpx.post(
            f"{server.url}/graphql",
            json={"query": "{ viewer { roles } }", "extensions": {"pad": "x" * 20_000}},
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=CLIENT_TIMEOUT_S,
        )
        with stalled:
            status, body = answer(stalled)

    assert status == 408
    assert body["data"] is None
    assert body["errors"] == [
        {
            "message": "The request body did not arrive within 1 s (QUIVER_REQUEST_BODY_TIMEOUT_S).",
            "extensions": {"code": "REQUEST_TIMEOUT"},
        }
    ]
    assert large.status_code == 200, large.text
    assert large.json() == {"data": {"viewer": {"roles": ["ADMIN"]}}}


def test_an_mcp_body_that_stops_is_answered_408(tmp_path: Path) -> None:
    with serving(tmp_path, QUIVER_ADMIN_TOKEN=TOKEN, QUIVER_REQUEST_BODY_TIMEOUT_S="1") as server:
        with stalled_post(server.url, "/mcp/spaces/sp_system") as stalled:
            status, body = answer(stalled)
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        after = httpx.post(
            f"{server.url}/mcp/spaces/sp_system",
            json=initialize,
            headers={"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream"},
            timeout=CLIENT_TIMEOUT_S,
        )

    assert status == 408
    assert body == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": "The request body did not arrive within 1 s.",
            "data": {"code": "REQUEST_TIMEOUT"},
        },
    }
    assert after.status_code == 200, after.text
    assert '"protocolVersion"' in after.text
