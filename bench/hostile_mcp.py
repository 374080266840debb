"""A tenant flooding /mcp with tools/call against another tenant's invokeTool calls (QUIVER_TENANT_CONCURRENCY).

One ``quiver serve`` (in-process bus, SQLite) per setting: the admission off (``0``) and the
default (``1``). A hostile space's key keeps ``--in-flight`` MCP tools/call requests
(bt_calculator, 2026-07-28 era, the official SDK client) under way at all times, from a process
of its own; a quiet space's key makes ``--calls`` invokeTool calls one after another over HTTP,
timed alone and then beside the flood. Since the admission covers ``/mcp``, the hostile tenant's
calls execute one at a time while the quiet tenant is served. The side-by-side baseline is the
same build with the admission off.

    .venv/bin/python -m bench.hostile_mcp                    # 32 in flight, 300 calls, admission 0 and 1
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bench.tenants import Hostile, quiet_beside_each, summary


async def flood(url: str, key: str, in_flight: int) -> None:
    """``in_flight`` tools/call loops on one client until killed; prints the calls answered every second."""
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=120) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        answered = 0

        async def loop() -> None:
            nonlocal answered
            while True:
                result = await client.call_tool("calculator", {"expression": "2 * 21"})
                answered += 1
                if result.is_error:
                    print(f"error: {result.content}", flush=True)

        tasks = [asyncio.create_task(loop()) for _ in range(in_flight)]
        print("flooding", flush=True)
        while True:
            await asyncio.sleep(1)
            print(f"answered {answered}", flush=True)
            if any(task.done() for task in tasks):
                for task in tasks:
                    if task.done():
                        task.result()


@asynccontextmanager
async def flooding(hostile: Hostile, in_flight: int) -> AsyncIterator[list[str]]:
    """The flooding process under way while the block runs (from 2 s after it started); gives the
    lines it printed, once the block is left."""
    url = f"{hostile.server.http_url}/mcp/spaces/{hostile.space_id}"
    command = [sys.executable, "-m", "bench.hostile_mcp", "--flood", url, hostile.key, str(in_flight)]
    flooder = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
    output: list[str] = []
    try:
        assert flooder.stdout is not None
        if (await asyncio.wait_for(flooder.stdout.readline(), 60)).strip() != b"flooding":
            raise SystemExit("the flooding process did not start")
        await asyncio.sleep(2.0)
        yield output
    finally:
        flooder.terminate()
        raw, _ = await asyncio.wait_for(flooder.communicate(), 10)
        output.extend(raw.decode().splitlines())


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--in-flight", type=int, default=32)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--settings", default="0,1", help="QUIVER_TENANT_CONCURRENCY values, in turn")
    args = parser.parse_args()
    each = quiet_beside_each(
        "QUIVER_TENANT_CONCURRENCY",
        args.settings,
        "flood",
        args.calls,
        lambda hostile: flooding(hostile, args.in_flight),
    )
    async for concurrency, result in each:
        counts = [int(line.split()[1]) for line in result.load if line.startswith("answered ")]
        errors = [line for line in result.load if line.startswith("error")]
        flood_rate = counts[-1] / len(counts) if counts else 0.0
        print(
            f"QUIVER_TENANT_CONCURRENCY={concurrency}: quiet tenant's calls alone {summary(result.alone)}; "
            f"beside {args.in_flight} MCP calls in flight {summary(result.beside)}; "
            f"the flood got {flood_rate:.0f} calls/s answered ({len(errors)} errors)"
        )


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--flood":
        asyncio.run(flood(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    else:
        asyncio.run(main())
