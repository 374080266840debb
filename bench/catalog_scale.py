"""Catalog at scale: ``space.visibleTools(first: 100)`` through the ASGI app.

Seeds a throwaway database per backend (SQLite file, PostgreSQL database) with
1,000 spaces, 10,000 custom tools and 20,000 tool bindings, 50 MCP servers of
20 tools each (half of the servers bound) and the builtin catalog, then measures
three variants of the same page, interleaved round-robin:

* ``graphql``            the operation through the ASGI app, per-request DataLoaders;
* ``graphql-no-loaders`` the same operation on a second app whose loaders fetch one
                         key per query and cache nothing (a);
* ``bare-sql``           ``list_tools`` + ``count_tools`` in one session, no GraphQL (b).

For each it prints p50/p95 wall latency and SQL statements per request, then the
ratios. Run from the repository root::

    .venv/bin/python -m bench.catalog_scale            # both backends, full size
    .venv/bin/python -m bench.catalog_scale --quick    # small smoke run

See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractContextManager, asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock

import httpx
import sqlalchemy
from cryptography.fernet import Fernet
from fastapi import FastAPI
from sqlalchemy import event, insert, text
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
)
from strawberry.dataloader import DataLoader

import schema.context
from app.catalog.loader import load_builtin_catalog
from app.config import Settings
from app.db import Base
from app.main import create_app
from app.migrate import upgrade
from app.pagination import PageRequest
from app.principal import Role
from app.spaces import service as spaces_service
from app.tools import repository as tools_repository
from bench.common import (
    DEFAULT_POSTGRES_URL,
    load_average,
    percentile,
    postgres_problem,
    throwaway_database,
    version,
)
from schema.loaders import Loaders, build_loaders

ROOT = Path(__file__).resolve().parent.parent

PAGE_SIZE = 100
BATCH_ROWS = 1_000
MAX_SPACES_PER_TOOL = 5
MAX_SPACES_PER_SERVER = 4

OPERATION = """
query Bench($id: ID!) {
  space(id: $id) {
    visibleTools(first: 100) {
      totalCount
      edges { node { id name isGlobal boundSpaces { id } mcpServer { id } } }
    }
  }
}
"""

GRAPHQL = "graphql"
GRAPHQL_NO_LOADERS = "graphql-no-loaders"
BARE_SQL = "bare-sql"
VARIANTS = (GRAPHQL, GRAPHQL_NO_LOADERS, BARE_SQL)
VARIANT_NOTES = {
    GRAPHQL: "GraphQL over ASGI, per-request DataLoaders",
    GRAPHQL_NO_LOADERS: "(a) same, DataLoader(max_batch_size=1, cache=False)",
    BARE_SQL: "(b) list_tools + count_tools, one session",
}


# ------------------------------------------------------------------ data set


@dataclass(frozen=True)
class Scale:
    spaces: int
    custom_tools: int
    tool_bindings: int
    mcp_servers: int
    tools_per_server: int
    global_share: float = 0.30

    @property
    def bound_servers(self) -> int:
        return self.mcp_servers // 2

    def describe(self) -> str:
        return (
            f"{self.spaces:,} spaces, {self.custom_tools:,} custom tools "
            f"({self.global_share:.0%} global, the rest bound to 1-{MAX_SPACES_PER_TOOL} "
            f"random spaces: {self.tool_bindings:,} tool_space_binding rows), "
            f"{self.mcp_servers} MCP servers x {self.tools_per_server} tools "
            f"({self.bound_servers} servers bound to 1-{MAX_SPACES_PER_SERVER} spaces each), "
            "plus the builtin catalog"
        )


FULL = Scale(spaces=1_000, custom_tools=10_000, tool_bindings=20_000, mcp_servers=50, tools_per_server=20)
QUICK = Scale(spaces=10, custom_tools=200, tool_bindings=400, mcp_servers=6, tools_per_server=5)


@dataclass
class Dataset:
    """The rows to insert, plus what each space should see (to check the visibility rule)."""

    spaces: list[dict[str, Any]] = field(default_factory=list)
    servers: list[dict[str, Any]] = field(default_factory=list)
    server_bindings: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_bindings: list[dict[str, Any]] = field(default_factory=list)
    global_tools: int = 0
    bound_tools_by_space: Counter[str] = field(default_factory=Counter)
    bound_servers_by_space: Counter[str] = field(default_factory=Counter)
    unbound_server_tools: int = 0
    tools_per_server: int = 0


def _binding_counts(rng: random.Random, tools: int, rows: int, cap: int) -> list[int]:
    """``tools`` counts in 1..cap summing to ``rows``: one each, the rest spread at random."""
    if not tools <= rows <= tools * cap:
        raise SystemExit(f"cannot spread {rows} bindings over {tools} tools with 1-{cap} each")
    counts = [1] * tools
    open_slots = list(range(tools))
    for _ in range(rows - tools):
        slot = rng.randrange(len(open_slots))
        index = open_slots[slot]
        counts[index] += 1
        if counts[index] == cap:
            open_slots[slot] = open_slots[-1]
            open_slots.pop()
    return counts


def build_dataset(scale: Scale, seed: int) -> Dataset:
    rng = random.Random(seed)
    now = datetime.now(UTC)
    data = Dataset()
    space_ids = [f"sp_bench{index:06d}" for index in range(scale.spaces)]
    data.spaces = [
        {
            "id": space_id,
            "name": f"bench-{index:06d}",
            "label": f"Bench space {index}",
            "is_system": False,
            "created_at": now,
        }
        for index, space_id in enumerate(space_ids)
    ]

    # Custom tools: a share is global (no rows), the rest bound to 1-5 random spaces.
    global_count = round(scale.custom_tools * scale.global_share)
    global_indexes = set(rng.sample(range(scale.custom_tools), global_count))
    cap = min(MAX_SPACES_PER_TOOL, scale.spaces)
    counts = iter(_binding_counts(rng, scale.custom_tools - global_count, scale.tool_bindings, cap))
    data.global_tools = global_count
    data.tools_per_server = scale.tools_per_server
    for index in range(scale.custom_tools):
        tool_id = f"ct_{index:06d}"
        bound = [] if index in global_indexes else rng.sample(space_ids, next(counts))
        write = index % 4 == 0
        data.tools.append(
            {
                "tool_id": tool_id,
                "name": f"custom_tool_{index:06d}",
                "label": f"Custom tool {index}",
                "description": (
                    f"Looks up record {index} in the team's system of record. Use it when the user "
                    "names a record id; do not use it for free-text search."
                ),
                "input_schema": {
                    "type": "object",
                    "properties": {
                        "record_id": {"type": "string"},
                        "fields": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["record_id"],
                },
                "output_schema": {"type": "object"},
                "static_arguments": {},
                "type": "CUSTOM",
                "endpoint": f"https://tools.example.com/custom/{index}",
                "auth_type": "NONE",
                "auth_config": None,
                "mcp_server_id": None,
                "status": "ACTIVE",
                "side_effect": "WRITE" if write else "READ",
                "timeout_ms": 10_000,
                "max_retries": 0 if write else 1,
                "tags": ["bench", f"family-{index % 20}"],
                "group": f"group-{index % 10}",
                "allowed_roles": [],
                "version": "1.0.0",
                "owner": f"team-{index % 50}",
                "owner_space_id": bound[0] if bound else None,
                "drifted_at": None,
                "created_at": now,
                "updated_at": now,
            }
        )
        for space_id in bound:
            data.tool_bindings.append({"tool_id": tool_id, "space_id": space_id, "created_at": now})
            data.bound_tools_by_space[space_id] += 1

    # MCP servers: half bound to a few spaces, their tools inherit the bindings.
    bound_servers = set(rng.sample(range(scale.mcp_servers), scale.bound_servers))
    for server_index in range(scale.mcp_servers):
        server_id = f"mcp_bench{server_index:03d}"
        data.servers.append(
            {
                "id": server_id,
                "name": f"bench-server-{server_index:03d}",
                "transport": "STREAMABLE_HTTP",
                "url": f"https://mcp.example.com/{server_index}/mcp",
                "command": None,
                "auth_type": "NONE",
                "auth_config": None,
                "status": "ACTIVE",
                "last_synced_at": now,
                "last_error": None,
                "created_at": now,
                "updated_at": now,
            }
        )
        if server_index in bound_servers:
            count = rng.randint(1, min(MAX_SPACES_PER_SERVER, scale.spaces))
            for space_id in rng.sample(space_ids, count):
                data.server_bindings.append({"server_id": server_id, "space_id": space_id, "created_at": now})
                data.bound_servers_by_space[space_id] += 1
        else:
            data.unbound_server_tools += scale.tools_per_server
        for tool_index in range(scale.tools_per_server):
            data.tools.append(
                {
                    "tool_id": f"{server_id}__tool_{tool_index}",
                    "name": f"tool_{tool_index}",
                    "label": f"Tool {tool_index} of server {server_index}",
                    "description": f"Discovered tool {tool_index} of MCP server {server_index}.",
                    "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}},
                    "output_schema": None,
                    "static_arguments": {},
                    "type": "MCP",
                    "endpoint": None,
                    "auth_type": "NONE",
                    "auth_config": None,
                    "mcp_server_id": server_id,
                    "status": "ACTIVE",
                    "side_effect": "READ",
                    "timeout_ms": 15_000,
                    "max_retries": 0,
                    "tags": ["mcp"],
                    "group": None,
                    "allowed_roles": [],
                    "version": "1.0.0",
                    "owner": None,
                    "owner_space_id": None,
                    "drifted_at": None,
                    "created_at": now,
                    "updated_at": now,
                }
            )
    return data


async def _insert_batches(connection: AsyncConnection, table: sqlalchemy.Table, rows: Sequence[dict[str, Any]]) -> None:
    for start in range(0, len(rows), BATCH_ROWS):
        await connection.execute(insert(table), list(rows[start : start + BATCH_ROWS]))


async def seed(engine: AsyncEngine, data: Dataset) -> None:
    """Bulk inserts (SQLAlchemy Core, lists of dicts, in batches), then the builtin catalog."""
    tables = Base.metadata.tables
    async with engine.begin() as connection:
        for table, rows in (
            ("space", data.spaces),
            ("mcp_server", data.servers),
            ("mcp_server_space_binding", data.server_bindings),
            ("tool_definition", data.tools),
            ("tool_space_binding", data.tool_bindings),
        ):
            await _insert_batches(connection, tables[table], rows)
    session_factory = async_sessionmaker(engine, expire_on_commit=False)
    async with session_factory() as session, session.begin():
        await load_builtin_catalog(session)
    if engine.dialect.name == "postgresql":
        # What autovacuum would have done by the time such a catalog is in use.
        async with engine.connect() as connection:
            await connection.execute(text("ANALYZE"))
            await connection.commit()


# ------------------------------------------------------------------ measuring


class StatementCounter:
    """Counts statements sent to the driver (``before_cursor_execute``) on one engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.count = 0
        event.listen(engine.sync_engine, "before_cursor_execute", self._on_execute)

    def _on_execute(self, *_: Any) -> None:
        self.count += 1


@dataclass
class Samples:
    latencies_ms: list[float] = field(default_factory=list)
    statements: list[int] = field(default_factory=list)


def unbatched_loaders_for(
    target: async_sessionmaker[AsyncSession],
    original: Callable[[async_sessionmaker[AsyncSession]], Loaders],
) -> Callable[[async_sessionmaker[AsyncSession]], Loaders]:
    """A ``build_loaders`` that gives ``target``'s contexts one-key, uncached loaders.

    Every other session factory (the main app's) still gets the real loaders, so
    the variants can be interleaved while the patch is in place.
    """

    def build(session_factory: async_sessionmaker[AsyncSession]) -> Loaders:
        loaders = original(session_factory)
        if session_factory is not target:
            return loaders
        for loader_field in dataclasses.fields(loaders):
            batched: DataLoader[Any, Any] = getattr(loaders, loader_field.name)
            setattr(
                loaders,
                loader_field.name,
                DataLoader(load_fn=batched.load_fn, max_batch_size=1, cache=False),
            )
        return loaders

    return build


@dataclass
class BackendResult:
    backend: str
    migrate_s: float
    load_average: tuple[float, float]
    seed_s: float
    target_space: str
    visible: int
    page_note: str
    samples: dict[str, Samples]


@asynccontextmanager
async def _entered(manager: AbstractContextManager[Any]) -> AsyncIterator[None]:
    """A synchronous context manager (a ``mock.patch``) inside an ``async with``."""
    with manager:
        yield


def _settings(database_url: str) -> Settings:
    return Settings(database_url=database_url, secret_key=Fernet.generate_key().decode(), admin_token=None)


async def _admin_key(app: FastAPI) -> str:
    async with app.state.services.session_factory() as session, session.begin():
        _, raw = await spaces_service.create_api_key(
            session, role=Role.ADMIN, space_id=None, label="catalog_scale bench"
        )
    return raw


def _pick_target(data: Dataset, builtin_visible: int) -> tuple[str, int]:
    """The space with the median number of visible tools (a typical tenant, not the busiest)."""
    visible = {
        row["id"]: builtin_visible
        + data.global_tools
        + data.bound_tools_by_space[row["id"]]
        + data.unbound_server_tools
        + data.bound_servers_by_space[row["id"]] * data.tools_per_server
        for row in data.spaces
    }
    ranked = sorted(visible.items(), key=lambda item: (item[1], item[0]))
    return ranked[len(ranked) // 2]


def _page_note(body: dict[str, Any]) -> str:
    edges = body["data"]["space"]["visibleTools"]["edges"]
    nodes = [edge["node"] for edge in edges]
    kinds = Counter(node["id"].split("_", 1)[0] for node in nodes)
    return (
        f"{len(nodes)} nodes ({', '.join(f'{kind}_: {n}' for kind, n in sorted(kinds.items()))}); "
        f"isGlobal: {sum(node['isGlobal'] for node in nodes)}; "
        f"with boundSpaces: {sum(bool(node['boundSpaces']) for node in nodes)} "
        f"({sum(len(node['boundSpaces']) for node in nodes)} space refs); "
        f"with mcpServer: {sum(node['mcpServer'] is not None for node in nodes)}"
    )


async def measure(
    backend: str, database_url: str, data: Dataset, iterations: int, warmup: int, migrate_s: float
) -> BackendResult:
    app = create_app(_settings(database_url))
    services = app.state.services
    started = time.perf_counter()
    await seed(services.engine, data)
    seed_s = time.perf_counter() - started

    async with services.session_factory() as session:
        builtin_visible = await tools_repository.count_tools(
            session, data.spaces[0]["id"], tools_repository.ToolFilter(type="BUILTIN")
        )
    target, expected = _pick_target(data, builtin_visible)
    async with services.session_factory() as session:
        visible = await tools_repository.count_tools(session, target)
    if visible != expected:
        raise SystemExit(f"{backend}: {target} sees {visible} tools, the seed implies {expected}")
    if visible <= PAGE_SIZE:
        print(f"  note: {target} sees only {visible} tools; the page is not full")

    admin_key = await _admin_key(app)
    load_before = load_average()
    # (a): a second app on the same database; only its contexts get unbatched loaders.
    app_unbatched = create_app(_settings(database_url))
    counters = {
        GRAPHQL: StatementCounter(services.engine),
        GRAPHQL_NO_LOADERS: StatementCounter(app_unbatched.state.services.engine),
    }
    counters[BARE_SQL] = counters[GRAPHQL]
    # Context.__post_init__ calls the name imported into schema.context; patch it there.
    patched_loaders = mock.patch.object(
        schema.context,
        "build_loaders",
        unbatched_loaders_for(app_unbatched.state.services.session_factory, build_loaders),
    )
    payload = {"query": OPERATION, "variables": {"id": target}}
    headers = {"Authorization": f"Bearer {admin_key}"}
    page = PageRequest(first=PAGE_SIZE)

    try:
        async with (
            _entered(patched_loaders),
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client,
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app_unbatched), base_url="http://bench"
            ) as client_unbatched,
        ):

            async def graphql() -> Any:
                return await client.post("/graphql", json=payload, headers=headers)

            async def graphql_no_loaders() -> Any:
                return await client_unbatched.post("/graphql", json=payload, headers=headers)

            async def bare_sql() -> Any:
                async with services.session_factory() as session:
                    listed = await tools_repository.list_tools(session, target, page)
                    total = await tools_repository.count_tools(session, target)
                return listed, total

            runners: dict[str, Callable[[], Awaitable[Any]]] = {
                GRAPHQL: graphql,
                GRAPHQL_NO_LOADERS: graphql_no_loaders,
                BARE_SQL: bare_sql,
            }
            results: dict[str, Any] = {}
            for _ in range(warmup):
                for name, run in runners.items():
                    results[name] = await run()
            bodies = {}
            for name in (GRAPHQL, GRAPHQL_NO_LOADERS):
                response = results[name]
                body = response.json()
                if response.status_code != 200 or "errors" in body:
                    raise SystemExit(f"{backend} {name}: {response.status_code} {response.text[:500]}")
                bodies[name] = body
            if bodies[GRAPHQL] != bodies[GRAPHQL_NO_LOADERS]:
                raise SystemExit(f"{backend}: the two GraphQL variants answered differently")
            listed, total = results[BARE_SQL]
            connection = bodies[GRAPHQL]["data"]["space"]["visibleTools"]
            if [row.tool_id for row in listed.items] != [
                edge["node"]["id"] for edge in connection["edges"]
            ] or total != connection["totalCount"]:
                raise SystemExit(f"{backend}: bare SQL and GraphQL disagree on the page")

            samples = {name: Samples() for name in VARIANTS}
            for iteration in range(iterations):
                # Rotate the starting variant so none always runs after the same one.
                offset = iteration % len(VARIANTS)
                for name in VARIANTS[offset:] + VARIANTS[:offset]:
                    counter = counters[name]
                    before = counter.count
                    started = time.perf_counter()
                    outcome = await runners[name]()
                    elapsed = time.perf_counter() - started
                    samples[name].latencies_ms.append(elapsed * 1000)
                    samples[name].statements.append(counter.count - before)
                    if name != BARE_SQL and outcome.status_code != 200:
                        raise SystemExit(f"{backend} {name}: HTTP {outcome.status_code}")
    finally:
        await app_unbatched.state.services.engine.dispose()
        await services.engine.dispose()

    return BackendResult(
        backend=backend,
        migrate_s=migrate_s,
        load_average=(load_before, load_average()),
        seed_s=seed_s,
        target_space=target,
        visible=visible,
        page_note=_page_note(bodies[GRAPHQL]),
        samples=samples,
    )


# ------------------------------------------------------------------ databases


# ------------------------------------------------------------------ report


def print_method(scale: Scale, args: argparse.Namespace) -> None:
    print("Quiver catalog_scale benchmark")
    print(f"  machine:    {platform.system()} {platform.machine()}, os.cpu_count()={os.cpu_count()}")
    print(
        f"  software:   Python {platform.python_version()}, SQLAlchemy {sqlalchemy.__version__}, "
        f"strawberry-graphql {version('strawberry-graphql')}, httpx {httpx.__version__}"
    )
    print(f"  data:       {scale.describe()}; random seed {args.seed}")
    print(
        f"  measured:   {args.warmup} warm-up rounds, then {args.iterations} rounds; "
        "each round runs the three variants once, round-robin with a rotating start"
    )
    print("  operation:  " + " ".join(OPERATION.split()))
    print("  variants:")
    for name in VARIANTS:
        print(f"    {name:<20} {VARIANT_NOTES[name]}")
    print(
        "  latency:    wall time per request with time.perf_counter (httpx.AsyncClient over "
        "httpx.ASGITransport, in process: no network, no server)"
    )
    print(
        "  statements: before_cursor_execute events on the app's engine during the request "
        "(includes the API-key look-up the auth middleware repeats every 10 s)"
    )
    print("  target:     the space with the median number of visible tools")
    print("  PostgreSQL: ANALYZE after seeding; SQLite: no ANALYZE")
    print(
        "  caution:    latencies are only comparable between runs on a quiet machine; "
        "the load average is printed per backend"
    )
    print()


def _statements(values: Sequence[int]) -> str:
    median = statistics.median(values)
    low, high = min(values), max(values)
    spread = "" if low == high else f" ({low}-{high})"
    return f"{median:g}{spread}"


def print_result(result: BackendResult) -> None:
    print(f"== {result.backend}")
    print(f"  migrate: {result.migrate_s:.2f} s, seeding: {result.seed_s:.2f} s")
    print(
        f"  1-minute load average before / after measuring: {result.load_average[0]:.2f} / {result.load_average[1]:.2f}"
    )
    print(f"  target space: {result.target_space} ({result.visible:,} visible tools)")
    print(f"  page: {result.page_note}")
    header = f"  {'variant':<20} {'p50 ms':>9} {'p95 ms':>9} {'mean ms':>9}   statements/request"
    print(header)
    print("  " + "-" * (len(header) - 2))
    p50: dict[str, float] = {}
    statements: dict[str, float] = {}
    for name in VARIANTS:
        samples = result.samples[name]
        p50[name] = percentile(samples.latencies_ms, 0.50)
        statements[name] = statistics.median(samples.statements)
        print(
            f"  {name:<20} {p50[name]:>9.2f} {percentile(samples.latencies_ms, 0.95):>9.2f} "
            f"{statistics.fmean(samples.latencies_ms):>9.2f}   {_statements(samples.statements)}"
        )
    print("  ratios:")
    print(f"    graphql p50 / bare-sql p50:                 {p50[GRAPHQL] / p50[BARE_SQL]:.2f}x")
    print(f"    graphql-no-loaders p50 / graphql p50:       {p50[GRAPHQL_NO_LOADERS] / p50[GRAPHQL]:.2f}x")
    print(
        f"    statements graphql-no-loaders / graphql:    "
        f"{statements[GRAPHQL_NO_LOADERS] / statements[GRAPHQL]:.2f}x "
        f"({statements[GRAPHQL_NO_LOADERS]:g} / {statements[GRAPHQL]:g} median)"
    )
    print()


# ------------------------------------------------------------------ full listings (#16)

FULL_FIELDS = (
    "id name label description inputSchema outputSchema type status endpoint authType sideEffect "
    "timeoutMs maxRetries tags group allowedRoles version owner createdAt updatedAt driftedAt "
    "requestMapping approval viewerCanManage isGlobal boundSpaces { id name } mcpServer { id name }"
)
LISTING_OPERATION = (
    "query FullListing($after: String) { tools(first: 100, after: $after) { totalCount "
    "pageInfo { hasNextPage endCursor } edges { cursor node { " + FULL_FIELDS + " } } } }"
)
LISTING_FAST = "graphql"
LISTING_UNCACHED = "graphql-uncached"
LISTING_PLAIN = "graphql-per-field"
LISTING_SQL = "bare-sql"
LISTING_VARIANTS = (LISTING_FAST, LISTING_UNCACHED, LISTING_PLAIN, LISTING_SQL)
LISTING_NOTES = {
    LISTING_FAST: "the app as shipped: listing cache on (warm after the first listing), fast execution",
    LISTING_UNCACHED: "the same app code with QUIVER_LISTING_CACHE_MB=0: every page executed (a first listing)",
    LISTING_PLAIN: "listing cache off, strawberry's own execution context: every field through its resolver",
    LISTING_SQL: "the SQL a page needs (list_tool_page: page, count, bindings with spaces, servers), no GraphQL",
}
BUILTIN_TOOLS = 4


def listing_scale(tools: int) -> Scale:
    """``tools`` tools in all (with the 4 builtin ones): 5 % MCP (10 a server), the rest custom, 70 % bound."""
    servers = max(1, tools // 200)
    custom = tools - BUILTIN_TOOLS - servers * 10
    bound = custom - round(custom * 0.30)
    return Scale(spaces=100, custom_tools=custom, tool_bindings=2 * bound, mcp_servers=servers, tools_per_server=10)


@dataclass
class ListingResult:
    backend: str
    tools: int
    pages: int
    load_average: tuple[float, float]
    wall_ms: dict[str, list[float]]
    cpu_ms: dict[str, list[float]]


async def _list_everything(client: httpx.AsyncClient, headers: dict[str, str]) -> list[dict[str, Any]]:
    pages = []
    after = None
    while True:
        response = await client.post(
            "/graphql", json={"query": LISTING_OPERATION, "variables": {"after": after}}, headers=headers
        )
        body = response.json()
        if response.status_code != 200 or "errors" in body:
            raise SystemExit(f"listing: {response.status_code} {response.text[:500]}")
        page = body["data"]["tools"]
        pages.append(page)
        if not page["pageInfo"]["hasNextPage"]:
            return pages
        after = page["pageInfo"]["endCursor"]


async def _bare_sql_listing(session_factory: async_sessionmaker[AsyncSession]) -> int:
    """Every tool, page by page, read as the GraphQL listing reads it (``list_tool_page``: the rows,
    the count, the bindings with their spaces, the servers' bindings and the servers), no GraphQL."""
    from app.spaces import repository as spaces_repository

    list_tool_page = getattr(tools_repository, "list_tool_page", None)  # absent in code before it (a baseline run)
    listed = 0
    after = None
    while True:
        request = PageRequest(first=PAGE_SIZE, after=after)
        async with session_factory() as session:
            if list_tool_page is not None:
                page = (
                    await list_tool_page(
                        session,
                        None,
                        request,
                        include_inactive=True,
                        with_total=True,
                        with_spaces=True,
                        with_server_bindings=True,
                        with_servers=True,
                    )
                ).rows
            else:
                page = await tools_repository.list_tools(session, None, request, include_inactive=True)
                await tools_repository.count_tools(session, None, include_inactive=True)
                tool_ids = [row.tool_id for row in page.items]
                server_ids = sorted({row.mcp_server_id for row in page.items if row.mcp_server_id})
                bindings = await tools_repository.tool_bindings(session, tool_ids)
                await tools_repository.server_bindings(session, server_ids)
                await tools_repository.servers_by_ids(session, server_ids)
                await spaces_repository.spaces_by_ids(session, sorted({s for ids in bindings.values() for s in ids}))
        listed += len(page.items)
        if not page.has_next_page:
            return listed
        after = page.items[-1].tool_id


def _listing_settings(database_url: str, *, cached: bool) -> Settings:
    settings = _settings(database_url)
    if not cached and "listing_cache_mb" in Settings.model_fields:  # a baseline without the cache has none
        settings = settings.model_copy(update={"listing_cache_mb": 0})
    return settings


async def measure_listing(backend: str, database_url: str, tools: int, rounds: int, seed_value: int) -> ListingResult:
    from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

    import schema.schema as schema_module

    app = create_app(_listing_settings(database_url, cached=True))
    services = app.state.services
    await seed(services.engine, build_dataset(listing_scale(tools), seed_value))
    app_uncached = create_app(_listing_settings(database_url, cached=False))
    # The execution context build_schema names (schema.fairness.TimeSlicedExecutor, a FastExecutionContext).
    with mock.patch.object(schema_module, "TimeSlicedExecutor", StrawberryGraphQLCoreExecutionContext):
        app_plain = create_app(_listing_settings(database_url, cached=False))
    admin_key = await _admin_key(app)
    headers = {"Authorization": f"Bearer {admin_key}"}
    rng = random.Random(seed_value)
    wall: dict[str, list[float]] = {name: [] for name in LISTING_VARIANTS}
    cpu: dict[str, list[float]] = {name: [] for name in LISTING_VARIANTS}
    try:
        async with (
            # Started as a server starts them (httpx.ASGITransport runs no lifespan): the services,
            # and the garbage collector's freeze of what start-up made (app.main.freeze_startup_objects)
            # without which a full collection walks every module and the schema during the listings.
            app.router.lifespan_context(app),
            app_uncached.router.lifespan_context(app_uncached),
            app_plain.router.lifespan_context(app_plain),
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client,
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app_uncached), base_url="http://bench") as uncached,
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app_plain), base_url="http://bench") as plain,
        ):
            fast_pages = await _list_everything(client, headers)
            for other in (uncached, plain, client):  # the last one: the cache's answer
                if await _list_everything(other, headers) != fast_pages:
                    raise SystemExit(f"{backend}: the variants answered differently")
            listed = sum(len(page["edges"]) for page in fast_pages)
            if listed != tools or await _bare_sql_listing(services.session_factory) != tools:
                raise SystemExit(f"{backend}: listed {listed} tools, seeded {tools}")
            runners: dict[str, Callable[[], Awaitable[Any]]] = {
                LISTING_FAST: lambda: _list_everything(client, headers),
                LISTING_UNCACHED: lambda: _list_everything(uncached, headers),
                LISTING_PLAIN: lambda: _list_everything(plain, headers),
                LISTING_SQL: lambda: _bare_sql_listing(services.session_factory),
            }
            load_before = load_average()
            for _ in range(rounds):
                order = list(LISTING_VARIANTS)
                rng.shuffle(order)
                for name in order:
                    wall_started, cpu_started = time.perf_counter(), time.process_time()
                    await runners[name]()
                    wall[name].append((time.perf_counter() - wall_started) * 1000)
                    cpu[name].append((time.process_time() - cpu_started) * 1000)
    finally:
        await app_plain.state.services.engine.dispose()
        await app_uncached.state.services.engine.dispose()
        await services.engine.dispose()
    return ListingResult(backend, tools, len(fast_pages), (load_before, load_average()), wall, cpu)


def print_listing_method(args: argparse.Namespace) -> None:
    print("Full listings (#16): every tool, `tools(first: 100)` page after page, every field")
    print(f"  operation:  {' '.join(LISTING_OPERATION.split())}")
    print(
        f"  catalogs:   {', '.join(f'{size:,}' for size in args.listing_size_list)} tools in all (4 builtin, 5 % MCP "
        "tools of servers of 10, the rest custom, 70 % of them bound to 2 of 100 spaces on average); admin key"
    )
    print(
        f"  measured:   1 warm-up listing per variant, then {args.listing_rounds} rounds, variants in an order "
        "shuffled per round; wall (time.perf_counter) and CPU (time.process_time: this process, every thread) "
        "of one whole listing, in process over httpx.ASGITransport"
    )
    for name in LISTING_VARIANTS:
        print(f"    {name:<18} {LISTING_NOTES[name]}")
    print(
        "  apps:       started under their lifespan, as a server starts them (services, gc.freeze of start-up objects)"
    )
    print("  goal:       1,000 tools in 10 pages <= 40 ms in all (wall)")
    print()


def print_listing(results: Sequence[ListingResult]) -> None:
    header = (
        f"  {'backend':<10} {'tools':>6} {'pages':>5} {'variant':<18} {'wall p50':>9} {'wall min':>9} "
        f"{'cpu p50':>9} {'us/tool':>8}  {'ratio':>6}  load"
    )
    print(header)
    print("  " + "-" * (len(header) - 2))
    for result in results:
        fast_p50 = percentile(result.wall_ms[LISTING_FAST], 0.5)
        for name in LISTING_VARIANTS:
            wall_p50 = percentile(result.wall_ms[name], 0.5)
            cpu_p50 = percentile(result.cpu_ms[name], 0.5)
            print(
                f"  {result.backend:<10} {result.tools:>6,} {result.pages:>5} {name:<18} {wall_p50:>9.1f} "
                f"{min(result.wall_ms[name]):>9.1f} {cpu_p50:>9.1f} {cpu_p50 * 1000 / result.tools:>8.1f}  "
                f"{wall_p50 / fast_p50:>5.2f}x  {result.load_average[0]:.1f}-{result.load_average[1]:.1f}"
            )
    print("  ratio: the variant's wall p50 / graphql's; us/tool: CPU p50 per listed tool (flat = linear growth)")
    for result in results:
        if result.tools == 1_000:
            for name in (LISTING_FAST, LISTING_UNCACHED):
                wall_p50 = percentile(result.wall_ms[name], 0.5)
                verdict = "met" if wall_p50 <= 40 else "NOT met"
                print(
                    f"  goal ({result.backend}, {name}): 1,000 tools in {result.pages} pages, "
                    f"wall p50 {wall_p50:.1f} ms "
                    f"(best {min(result.wall_ms[name]):.1f} ms) vs 40 ms: {verdict} "
                    f"at load {result.load_average[0]:.1f}-{result.load_average[1]:.1f}"
                )
    print()


# ------------------------------------------------------------------ entry point


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--backends",
        default="sqlite,postgresql",
        help="comma-separated: sqlite, postgresql (default: both)",
    )
    parser.add_argument("--iterations", type=int, default=None, help="measured rounds (default 150, quick 20)")
    parser.add_argument("--warmup", type=int, default=None, help="warm-up rounds (default 10, quick 3)")
    parser.add_argument("--quick", action="store_true", help="small data set and few rounds (smoke run)")
    parser.add_argument("--seed", type=int, default=20240601, help="random seed of the data set")
    parser.add_argument(
        "--listing-sizes",
        default=None,
        help="catalog sizes of the full listing (default 100,1000,10000; quick 100,1000)",
    )
    parser.add_argument("--listing-rounds", type=int, default=None, help="full-listing rounds (default 15, quick 3)")
    parser.add_argument("--only-listing", action="store_true", help="run the full listings only")
    parser.add_argument(
        "--postgres-url",
        default=DEFAULT_POSTGRES_URL,
        help="server and admin database for the throwaway PostgreSQL database "
        "(default: $QUIVER_BENCH_POSTGRES_URL or %(default)s)",
    )
    args = parser.parse_args(argv)
    if args.iterations is None:
        args.iterations = 20 if args.quick else 150
    if args.warmup is None:
        args.warmup = 3 if args.quick else 10
    if args.listing_sizes is None:
        args.listing_sizes = "100,1000" if args.quick else "100,1000,10000"
    args.listing_size_list = [int(size) for size in args.listing_sizes.split(",") if size.strip()]
    if args.listing_rounds is None:
        args.listing_rounds = 3 if args.quick else 15
    if args.iterations < 1 or args.warmup < 1:
        parser.error("--iterations and --warmup must be at least 1")
    backends = [name.strip() for name in args.backends.split(",") if name.strip()]
    unknown = set(backends) - {"sqlite", "postgresql"}
    if unknown or not backends:
        parser.error(f"unknown backends: {', '.join(sorted(unknown)) or '(none)'}")
    args.backend_list = backends
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    scale = QUICK if args.quick else FULL
    started = time.perf_counter()
    backends = []
    for backend in args.backend_list:
        if backend == "postgresql":
            problem = asyncio.run(postgres_problem(args.postgres_url))
            if problem is not None:
                print(f"== postgresql: skipped, {args.postgres_url} is unreachable ({problem})\n")
                continue
        backends.append(backend)
    if not args.only_listing:
        print_method(scale, args)
        data = build_dataset(scale, args.seed)
        for backend in backends:
            with throwaway_database(backend, args.postgres_url, "catalog_scale") as url:
                migrate_started = time.perf_counter()
                upgrade(url)
                migrate_s = time.perf_counter() - migrate_started
                result = asyncio.run(measure(backend, url, data, args.iterations, args.warmup, migrate_s))
            print_result(result)
    print_listing_method(args)
    listings = []
    for backend in backends:
        for size in args.listing_size_list:
            with throwaway_database(backend, args.postgres_url, f"listing_{size}") as url:
                upgrade(url)
                listings.append(asyncio.run(measure_listing(backend, url, size, args.listing_rounds, args.seed)))
            print(f"  ({backend}, {size:,} tools measured)", flush=True)
    print_listing(listings)
    print(f"total run time: {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
