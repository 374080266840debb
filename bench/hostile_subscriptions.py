"""A tenant opening many subscriptions against another tenant's calls (QUIVER_MAX_SUBSCRIPTIONS_PER_TENANT).

One ``quiver serve`` (in-process bus, SQLite) per setting: the cap off (``0``, as before the cap
existed) and the default cap (``100``). A hostile space's key opens ``--subscriptions`` toolCalls
subscriptions, each with other variables so that none shares a stream, over sockets of
``--per-socket`` each; a quiet space's key then makes ``--calls`` invokeTool calls
(bt_calculator) one after another over HTTP. Every call publishes one event, which every
accepted subscription is woken for (and filters out: none matches the quiet space).
Reported: how many were accepted, and the quiet calls' p50/p99 without and with them.

    .venv/bin/python -m bench.hostile_subscriptions                  # 1,000 subscriptions, 300 calls
    .venv/bin/python -m bench.hostile_subscriptions --subscriptions 3000 --calls 500
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from bench.common import load_average, percentile
from bench.subscription_fanout import IN_PROCESS, Server, start_server, stop_server, wait_until_ready

CREATE_SPACE = (
    "mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } userErrors { message } } }"
)
CREATE_KEY = "mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret userErrors { message } } }"
INVOKE_TOOL = "mutation Call($input: InvokeToolInput!) { invokeTool(input: $input) { status } }"
HOSTILE = (
    "subscription Hostile($toolId: String!, $spaceId: ID!) "
    "{ toolCalls(filter: {toolId: $toolId, spaceId: $spaceId}) { id } }"
)
WARM_UP_CALLS = 30


async def graphql(http: httpx.AsyncClient, key: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    response = await http.post("/graphql", json={"query": query, "variables": variables}, headers=_auth(key))
    response.raise_for_status()
    body: dict[str, Any] = response.json()
    if body.get("errors"):
        raise SystemExit(f"GraphQL errors: {body['errors']}")
    return body["data"]  # type: ignore[no-any-return]


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def space_with_key(http: httpx.AsyncClient, admin: str, name: str) -> tuple[str, str]:
    created = await graphql(http, admin, CREATE_SPACE, {"input": {"name": name, "label": name}})
    space_id: str = created["createSpace"]["space"]["id"]
    issued = await graphql(http, admin, CREATE_KEY, {"input": {"role": "MEMBER", "spaceId": space_id}})
    return space_id, issued["createApiKey"]["secret"]


async def quiet_calls(http: httpx.AsyncClient, key: str, space_id: str, count: int) -> list[float]:
    """Milliseconds per call, one after another."""
    variables = {"input": {"spaceId": space_id, "toolId": "bt_calculator", "arguments": {"expression": "1 + 1"}}}
    for _ in range(WARM_UP_CALLS):
        await graphql(http, key, INVOKE_TOOL, variables)
    took: list[float] = []
    for _ in range(count):
        started = time.perf_counter()
        answer = await graphql(http, key, INVOKE_TOOL, variables)
        took.append((time.perf_counter() - started) * 1000)
        assert answer["invokeTool"]["status"] == "SUCCESS", answer
    return took


async def open_hostile(server: Server, key: str, space_id: str, count: int, per_socket: int) -> list[ClientConnection]:
    sockets: list[ClientConnection] = []
    for start in range(0, count, per_socket):
        ws = await connect(server.ws_url, subprotocols=["graphql-transport-ws"], max_size=None)  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {key}"}}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        for index in range(start, min(start + per_socket, count)):
            variables = {"toolId": f"no_such_tool_{index}", "spaceId": space_id}
            message = {"id": f"h{index}", "type": "subscribe", "payload": {"query": HOSTILE, "variables": variables}}
            await ws.send(json.dumps(message))
        sockets.append(ws)
    return sockets


async def refused(sockets: list[ClientConnection]) -> int:
    """TOO_MANY_SUBSCRIPTIONS errors received so far (each refusal comes at once)."""
    await asyncio.sleep(2.0)
    count = 0
    for ws in sockets:
        while True:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), 0.05))
            except TimeoutError:
                break
            if message.get("type") == "error":
                count += 1
    return count


async def one_setting(cap: str, args: argparse.Namespace, directory: Path) -> dict[str, Any]:
    server = start_server(IN_PROCESS, directory / f"cap-{cap}", None, {"QUIVER_MAX_SUBSCRIPTIONS_PER_TENANT": cap})
    try:
        await asyncio.to_thread(wait_until_ready, server)
        async with httpx.AsyncClient(base_url=server.http_url, timeout=60, trust_env=False) as http:
            hostile_space, hostile_key = await space_with_key(http, server.admin_key, f"hostile-{cap}")
            quiet_space, quiet_key = await space_with_key(http, server.admin_key, f"quiet-{cap}")
            alone = await quiet_calls(http, quiet_key, quiet_space, args.calls)
            sockets = await open_hostile(server, hostile_key, hostile_space, args.subscriptions, args.per_socket)
            try:
                refusals = await refused(sockets)
                beside = await quiet_calls(http, quiet_key, quiet_space, args.calls)
            finally:
                for ws in sockets:
                    await ws.close()
        return {"cap": cap, "accepted": args.subscriptions - refusals, "alone": alone, "beside": beside}
    finally:
        stop_server(server)


def summary(values: list[float]) -> str:
    return f"p50 {statistics.median(values):6.2f} ms  p99 {percentile(values, 0.99):6.2f} ms"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subscriptions", type=int, default=1000)
    parser.add_argument("--per-socket", type=int, default=50)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--caps", default="0,100", help="QUIVER_MAX_SUBSCRIPTIONS_PER_TENANT values, in turn")
    args = parser.parse_args()
    print(f"load average before: {load_average():.2f}")
    with tempfile.TemporaryDirectory(prefix="quiver-hostile-") as directory:
        for cap in args.caps.split(","):
            (Path(directory) / f"cap-{cap}").mkdir()
            result = await one_setting(cap, args, Path(directory))
            print(
                f"cap {cap:>4}: {result['accepted']:>5} of {args.subscriptions} hostile subscriptions accepted; "
                f"quiet tenant's calls alone {summary(result['alone'])}; "
                f"beside them {summary(result['beside'])}"
            )
    print(f"load average after: {load_average():.2f}")


if __name__ == "__main__":
    asyncio.run(main())
