"""A tenant opening many idle GraphQL WebSockets against another tenant's calls (QUIVER_MAX_WEBSOCKETS_PER_TENANT).

One ``quiver serve`` (in-process bus, SQLite) per setting: the cap off (``0``, as before the cap
existed) and the default cap (``100``). A hostile space's key opens ``--sockets`` WebSockets,
each authenticated with ``connection_init`` and then left idle; a quiet space's key makes
``--calls`` invokeTool calls (bt_calculator) one after another over HTTP, timed alone and
with the sockets open. Reported: how many sockets were acknowledged, what they added to the
server's resident size, and the quiet calls' p50/p99 without and with them.

    .venv/bin/python -m bench.hostile_websockets                  # 2,000 sockets, 300 calls
    .venv/bin/python -m bench.hostile_websockets --sockets 500 --calls 100
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bench.memory import rss_mb
from bench.tenants import Hostile, quiet_beside_each, summary


async def one_socket(stack: AsyncExitStack, hostile: Hostile) -> bool:
    """One authenticated socket held open until ``stack`` closes; False when it was refused."""
    ws = await stack.enter_async_context(connect(hostile.server.ws_url, subprotocols=["graphql-transport-ws"]))  # type: ignore[list-item]
    await ws.send(json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {hostile.key}"}}))
    try:
        return bool(json.loads(await ws.recv())["type"] == "connection_ack")
    except ConnectionClosed:
        return False


@asynccontextmanager
async def idle_sockets(hostile: Hostile, count: int) -> AsyncIterator[dict[str, float]]:
    """``count`` sockets of the hostile tenant open (the refused ones closed by the server) while
    the block runs; gives how many were acknowledged and the server's growth in resident size."""
    pid = hostile.server.process.pid
    before = rss_mb(pid)
    async with AsyncExitStack() as stack:
        accepted = 0
        for start in range(0, count, 100):
            batch = [one_socket(stack, hostile) for _ in range(min(100, count - start))]
            accepted += sum(await asyncio.gather(*batch))
        await asyncio.sleep(1.0)
        yield {"accepted": accepted, "grown_mb": rss_mb(pid) - before}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sockets", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--caps", default="0,100", help="QUIVER_MAX_WEBSOCKETS_PER_TENANT values, in turn")
    args = parser.parse_args()
    each = quiet_beside_each(
        "QUIVER_MAX_WEBSOCKETS_PER_TENANT", args.caps, "hostile", args.calls, lambda h: idle_sockets(h, args.sockets)
    )
    async for cap, result in each:
        grown = result.load["grown_mb"]
        print(
            f"cap {cap:>4}: {result.load['accepted']:>5.0f} of {args.sockets} hostile sockets acknowledged, "
            f"server resident size +{grown:.1f} MiB; quiet tenant's calls alone {summary(result.alone)}; "
            f"beside them {summary(result.beside)}"
        )


if __name__ == "__main__":
    asyncio.run(main())
