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
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from websockets.asyncio.client import ClientConnection, connect

from bench.subscription_fanout import Server
from bench.tenants import Hostile, quiet_beside_each, summary

HOSTILE = (
    "subscription Hostile($toolId: String!, $spaceId: ID!) "
    "{ toolCalls(filter: {toolId: $toolId, spaceId: $spaceId}) { id } }"
)


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


@asynccontextmanager
async def subscribed(hostile: Hostile, count: int, per_socket: int) -> AsyncIterator[int]:
    """The hostile tenant's subscriptions open while the block runs; gives how many were accepted."""
    sockets = await open_hostile(hostile.server, hostile.key, hostile.space_id, count, per_socket)
    try:
        yield count - await refused(sockets)
    finally:
        for ws in sockets:
            await ws.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subscriptions", type=int, default=1000)
    parser.add_argument("--per-socket", type=int, default=50)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--caps", default="0,100", help="QUIVER_MAX_SUBSCRIPTIONS_PER_TENANT values, in turn")
    args = parser.parse_args()
    each = quiet_beside_each(
        "QUIVER_MAX_SUBSCRIPTIONS_PER_TENANT",
        args.caps,
        "hostile",
        args.calls,
        lambda hostile: subscribed(hostile, args.subscriptions, args.per_socket),
    )
    async for cap, result in each:
        print(
            f"cap {cap:>4}: {result.load:>5} of {args.subscriptions} hostile subscriptions accepted; "
            f"quiet tenant's calls alone {summary(result.alone)}; "
            f"beside them {summary(result.beside)}"
        )


if __name__ == "__main__":
    asyncio.run(main())
