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
import tempfile
from pathlib import Path

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bench.common import load_average
from bench.hostile_subscriptions import quiet_calls, space_with_key, summary
from bench.subscription_fanout import IN_PROCESS, start_server, stop_server, wait_until_ready


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


async def one_setting(concurrency: str, args: argparse.Namespace, directory: Path) -> dict[str, object]:
    folder = directory / f"admission-{concurrency}"
    folder.mkdir()
    server = start_server(IN_PROCESS, folder, None, {"QUIVER_TENANT_CONCURRENCY": concurrency})
    try:
        await asyncio.to_thread(wait_until_ready, server)
        async with httpx.AsyncClient(base_url=server.http_url, timeout=60, trust_env=False) as http:
            hostile_space, hostile_key = await space_with_key(http, server.admin_key, f"flood-{concurrency}")
            quiet_space, quiet_key = await space_with_key(http, server.admin_key, f"quiet-{concurrency}")
            alone = await quiet_calls(http, quiet_key, quiet_space, args.calls)
            url = f"{server.http_url}/mcp/spaces/{hostile_space}"
            command = [sys.executable, "-m", "bench.hostile_mcp", "--flood", url, hostile_key, str(args.in_flight)]
            flooder = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
            try:
                assert flooder.stdout is not None
                if (await asyncio.wait_for(flooder.stdout.readline(), 60)).strip() != b"flooding":
                    raise SystemExit("the flooding process did not start")
                await asyncio.sleep(2.0)
                beside = await quiet_calls(http, quiet_key, quiet_space, args.calls)
            finally:
                flooder.terminate()
                raw, _ = await asyncio.wait_for(flooder.communicate(), 10)
                output = raw.decode()
        counts = [int(line.split()[1]) for line in output.splitlines() if line.startswith("answered ")]
        errors = [line for line in output.splitlines() if line.startswith("error")]
        return {
            "alone": alone,
            "beside": beside,
            "flood_rate": counts[-1] / len(counts) if counts else 0.0,
            "errors": len(errors),
        }
    finally:
        stop_server(server)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--in-flight", type=int, default=32)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--settings", default="0,1", help="QUIVER_TENANT_CONCURRENCY values, in turn")
    args = parser.parse_args()
    print(f"load average before: {load_average():.2f}")
    with tempfile.TemporaryDirectory(prefix="quiver-hostile-mcp-") as directory:
        for concurrency in args.settings.split(","):
            result = await one_setting(concurrency, args, Path(directory))
            print(
                f"QUIVER_TENANT_CONCURRENCY={concurrency}: quiet tenant's calls alone {summary(result['alone'])}; "  # type: ignore[arg-type]
                f"beside {args.in_flight} MCP calls in flight {summary(result['beside'])}; "  # type: ignore[arg-type]
                f"the flood got {result['flood_rate']:.0f} calls/s answered ({result['errors']} errors)"
            )
    print(f"load average after: {load_average():.2f}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--flood":
        asyncio.run(flood(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    else:
        asyncio.run(main())
