"""Resident memory of a real server as its catalog and its subscribers grow.

For each catalog size (default 100, 1,000 and 10,000 tools) a fresh ``quiver serve``
(its own process and SQLite file) is started and its resident set size (VmRSS, from
/proc) read: empty after start-up and a first request; after the catalog is seeded and
read once in full (every page of ``tools(first: 50)`` with every field, and the MCP endpoint's
``tools/list`` of a space); then with 10, 100 and 1,000 WebSocket subscribers to
``toolCalls`` (graphql-transport-ws), each after a few calls were delivered to all.
Run from the repository root::

    .venv/bin/python -m bench.memory                    # 100, 1,000, 10,000 tools; 10, 100, 1,000 subscribers
    .venv/bin/python -m bench.memory --quick            # 100 tools; 10, 50 subscribers

See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from app.db import create_engine
from bench.catalog_scale import LISTING_OPERATION, build_dataset, listing_scale, seed
from bench.common import load_average, version
from bench.mcp_endpoint import PROTOCOL
from bench.subscription_fanout import (
    IN_PROCESS,
    Fanout,
    Server,
    create_space,
    invoke,
    start_server,
    stop_server,
    wait_until_ready,
)

#: Issue #16: resident size with 10,000 tools and 1,000 subscribers under 250 MB (megabytes,
#: 10^6 bytes: 238.4 MiB). Resident sizes are read and printed in MiB (2^20 bytes).
GOAL_MB = 250.0
GOAL_MIB = GOAL_MB * 1e6 / 2**20
#: Pages of 50: a page of 100 with every field costs more than the default QUIVER_GRAPHQL_MAX_COST.
LISTING = LISTING_OPERATION.replace("first: 100", "first: 50")
CALLS_PER_STAGE = 3
DELIVERY_TIMEOUT_S = 30.0


def rss_mb(pid: int) -> float:
    """VmRSS of the process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise SystemExit("no VmRSS in /proc (Linux only)")


@dataclass
class Stage:
    label: str
    tools: int
    subscribers: int
    rss_mb: float


@dataclass
class Run:
    tools: int
    stages: list[Stage] = field(default_factory=list)
    load: list[float] = field(default_factory=list)


async def list_everything(client: httpx.AsyncClient, server: Server) -> int:
    headers = {"Authorization": f"Bearer {server.admin_key}"}
    listed, after = 0, None
    while True:
        response = await client.post(
            f"{server.http_url}/graphql",
            json={"query": LISTING, "variables": {"after": after}},
            headers=headers,
        )
        body = response.json()
        if response.status_code != 200 or body.get("errors"):
            raise SystemExit(f"listing: {response.status_code} {response.text[:400]}")
        page = body["data"]["tools"]
        listed += len(page["edges"])
        if not page["pageInfo"]["hasNextPage"]:
            return listed
        after = page["pageInfo"]["endCursor"]


async def mcp_list(client: httpx.AsyncClient, server: Server, space_id: str) -> int:
    """Every page of the MCP endpoint's tools/list for one space (the endpoint caches the listing)."""
    listed, cursor, request_id = 0, None, 0
    while True:
        request_id += 1
        meta = {"io.modelcontextprotocol/protocolVersion": PROTOCOL, "io.modelcontextprotocol/clientCapabilities": {}}
        params: dict[str, Any] = {"_meta": meta, **({"cursor": cursor} if cursor else {})}
        response = await client.post(
            f"{server.http_url}/mcp/spaces/{space_id}",
            json={"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": params},
            headers={
                "Authorization": f"Bearer {server.admin_key}",
                "MCP-Protocol-Version": PROTOCOL,
                "Mcp-Method": "tools/list",
                "Accept": "application/json, text/event-stream",
            },
        )
        answer = response.json()
        if response.status_code != 200 or "result" not in answer:
            raise SystemExit(f"tools/list: {response.status_code} {response.text[:400]}")
        listed += len(answer["result"]["tools"])
        cursor = answer["result"].get("nextCursor")
        if not cursor:
            return listed


async def deliver(client: httpx.AsyncClient, fanout: Fanout) -> None:
    """A few calls, each until every subscriber has it (the subscriptions are live and used)."""
    for _ in range(CALLS_PER_STAGE):
        call_id, _, _ = await invoke(client, fanout.server)
        try:
            await asyncio.wait_for(fanout.expect(call_id).wait(), DELIVERY_TIMEOUT_S)
        except TimeoutError:
            got = fanout.counts.get(call_id, 0)
            raise SystemExit(f"only {got} of {len(fanout.subscribers)} subscribers received a call") from None


async def measure(server: Server, database_url: str, tools: int, levels: list[int], run: Run) -> None:
    pid = server.process.pid

    def record(label: str, subscribers: int, with_tools: int) -> None:
        stage = Stage(label, with_tools, subscribers, rss_mb(pid))
        run.stages.append(stage)
        print(f"  {tools:>6} tools  {label:<44} {stage.rss_mb:>8.1f} MiB", flush=True)

    async with httpx.AsyncClient(trust_env=False, timeout=120) as client:
        server.space_id = await create_space(client, server)
        await invoke(client, server)
        run.load.append(load_average())
        record("empty (after start-up and one call)", 0, 0)

        engine = create_engine(database_url)
        try:
            await seed(engine, build_dataset(listing_scale(tools), 20240601))
        finally:
            await engine.dispose()
        listed = await list_everything(client, server)
        if listed != tools:
            raise SystemExit(f"listed {listed} tools, seeded {tools}")
        mcp_listed = await mcp_list(client, server, "sp_bench000000")
        record(f"catalog read ({listed} listed, MCP tools/list {mcp_listed})", 0, tools)

        fanout = Fanout(server)
        try:
            for count in levels:
                await fanout.open(count, None)
                await deliver(client, fanout)
                record(f"{count} subscribers, {CALLS_PER_STAGE} calls delivered to each", count, tools)
            run.load.append(load_average())
        finally:
            await fanout.close()


def print_summary(runs: list[Run]) -> None:
    print()
    print("== resident size (MiB), and what it grows by")
    levels = sorted({stage.subscribers for run in runs for stage in run.stages if stage.subscribers})
    header = f"  {'tools':>6}  {'empty':>7}  {'catalog':>7}  " + "  ".join(f"{f'{n} subs':>9}" for n in levels)
    print(header)
    print("  " + "-" * (len(header) - 2))
    for run in runs:
        empty = run.stages[0].rss_mb
        catalog = run.stages[1].rss_mb
        by_subscribers = {stage.subscribers: stage.rss_mb for stage in run.stages[2:]}
        cells = "  ".join(f"{by_subscribers.get(n, float('nan')):>9.1f}" for n in levels)
        loads = ", ".join(f"{value:.1f}" for value in run.load)
        print(f"  {run.tools:>6}  {empty:>7.1f}  {catalog:>7.1f}  {cells}   (load {loads})")
    print()
    print("== cost as work grows (against linear: a ratio of the figure no larger than the ratio of the work)")
    first, last = runs[0], runs[-1]
    if len(runs) > 1:
        catalog_growth = [(run.tools, run.stages[1].rss_mb - run.stages[0].rss_mb) for run in runs]
        for tools_count, grown in catalog_growth:
            print(
                f"  catalog of {tools_count:>6} tools read: +{grown:7.1f} MiB over the empty server "
                f"({grown * 1024 / tools_count:6.2f} KiB a tool)"
            )
        ratio = max(catalog_growth[-1][1], 0.0) / max(catalog_growth[0][1], 0.1)
        work = last.tools / first.tools
        verdict = "no faster than linear" if ratio <= work else "FASTER than linear"
        print(f"  {work:.0f}x the tools: {ratio:.1f}x the catalog's memory: {verdict}")
    for run in runs:
        stages = [stage for stage in run.stages if stage.subscribers]
        if len(stages) < 2:
            continue
        catalog = run.stages[1].rss_mb
        for stage in stages:
            grown = stage.rss_mb - catalog
            print(
                f"  {run.tools:>6} tools, {stage.subscribers:>5} subscribers: +{grown:7.1f} MiB over the catalog "
                f"({grown * 1024 / stage.subscribers:6.1f} KiB a subscriber)"
            )
    top = last.stages[-1]
    verdict = "<" if top.rss_mb < GOAL_MIB else ">="
    print(
        f"  goal (issue #16): {top.tools} tools and {top.subscribers} subscribers: "
        f"{top.rss_mb:.1f} MiB = {top.rss_mb * 2**20 / 1e6:.1f} MB {verdict} {GOAL_MB:g} MB ({GOAL_MIB:.1f} MiB)"
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tools", default=None, help="comma-separated catalog sizes (default 100,1000,10000)")
    parser.add_argument("--subscribers", default=None, help="comma-separated subscriber levels (default 10,100,1000)")
    parser.add_argument("--quick", action="store_true", help="100 tools; 10 then 50 subscribers")
    args = parser.parse_args(argv)
    tools = args.tools or ("100" if args.quick else "100,1000,10000")
    subscribers = args.subscribers or ("10,50" if args.quick else "10,100,1000")
    try:
        args.tool_levels = sorted({int(part) for part in tools.split(",") if part.strip()})
        args.subscriber_levels = sorted({int(part) for part in subscribers.split(",") if part.strip()})
    except ValueError:
        parser.error("--tools and --subscribers take comma-separated whole numbers")
    if args.tool_levels[0] < 50 or args.tool_levels[-1] > 100_000:
        parser.error("--tools between 50 and 100,000")
    if args.subscriber_levels[0] < 1 or args.subscriber_levels[-1] > 5000:
        parser.error("--subscribers between 1 and 5,000")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print("Quiver memory benchmark")
    print(f"  machine:     {platform.system()} {platform.machine()}, Python {platform.python_version()}")
    print(f"  software:    strawberry-graphql {version('strawberry-graphql')}, uvicorn {version('uvicorn')}")
    print(
        "  server:      `quiver serve` (one process, in-process event bus, SQLite file), fresh for each catalog "
        "size; resident set = VmRSS of that process"
    )
    print(
        "  catalog:     bench/catalog_scale.py's listing data set (5 % MCP tools, the rest custom, 70 % bound "
        "to 2 of 100 spaces), inserted with SQLAlchemy Core; read once in full: every page of "
        "tools(first: 50) with every field, and tools/list of the MCP endpoint for one space"
    )
    print(
        f"  subscribers: {', '.join(map(str, args.subscriber_levels))} toolCalls subscriptions over WebSocket "
        f"(graphql-transport-ws, one connection each, the same document), {CALLS_PER_STAGE} calls delivered "
        "to all at each level"
    )
    print()
    started = time.perf_counter()
    runs: list[Run] = []
    for tools in args.tool_levels:
        with tempfile.TemporaryDirectory(prefix="quiver-bench-memory-") as name:
            directory = Path(name)
            server = start_server(IN_PROCESS, directory, None)
            try:
                wait_until_ready(server)
                run = Run(tools)
                database_url = f"sqlite+aiosqlite:///{directory}/fanout-{IN_PROCESS}.db"
                asyncio.run(measure(server, database_url, tools, args.subscriber_levels, run))
                runs.append(run)
            finally:
                stop_server(server)
    print_summary(runs)
    print(f"total run time: {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
