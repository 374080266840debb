"""A listing whose nodes the database writes as JSON (``schema.tools.rendering``) answers exactly
what graphql-core's own execution answers from Python objects: every renderable field of ``Tool``,
of its spaces and of its server, for every kind of viewer, page after page, with filters, on odd
values, and on rows written around the API (which take the ordinary reading). Other transports
(WebSockets) never get JSON written by the database."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from websockets.asyncio.client import connect

from app import jsoncodec
from app.config import Settings
from app.db import SQLITE_BUSY_TIMEOUT_MS
from app.main import create_app
from app.principal import Role
from app.tools import repository
from schema.pagination import encode_cursor
from schema.tools import rendering
from tests.app.tools.factories import custom_tool_row, insert_rows
from tests.conftest import Keys
from tests.schema.tools.conftest import RenderedPages, SessionFactory, mixed_catalog, odd_catalog_viewers
from tests.schema.tools.test_listing_fast_path import listing
from tests.support.serving import serving

SPACE_FIELDS = "__typename id name label isSystem createdAt"
SERVER_FIELDS = "__typename id name url transport status authType lastSyncedAt lastError createdAt"
TOOL_FIELDS = (
    "__typename id name label description inputSchema outputSchema type status endpoint authType sideEffect "
    "timeoutMs maxRetries tags group allowedRoles version owner createdAt updatedAt driftedAt requestMapping "
    "approval viewerCanManage isGlobal boundSpaces { " + SPACE_FIELDS + " } mcpServer { " + SERVER_FIELDS + " }"
)
RENDERED = (
    "query Rendered($first: Int!, $after: String, $filter: ToolFilter) { tools(first: $first, after: $after, "
    "filter: $filter) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } "
    "edges { cursor node { " + TOOL_FIELDS + " } } } }"
)
FULL_PAGES = RENDERED.replace(SPACE_FIELDS, "id name").replace(SERVER_FIELDS, "id name")
#: Aliases (one of them named like another field), a subset, the fields in another order.
ALIASED = (
    "query Aliased($first: Int!, $after: String) { tools(first: $first, after: $after) { pageInfo { hasNextPage "
    "endCursor } edges { node { name: id id: name kind: type when: createdAt tags isGlobal "
    "spaces: boundSpaces { name id } server: mcpServer { id } } } } }"
)


async def viewers_of(keys: Keys, spaces: dict[str, str]) -> dict[str, str]:
    viewers = {"admin": await keys.admin()}
    for name, space_id in spaces.items():
        viewers[f"{name} member"] = await keys.for_space(space_id, Role.MEMBER)
    viewers["alpha space admin"] = await keys.for_space(spaces["alpha"], Role.SPACE_ADMIN)
    viewers["alpha viewer"] = await keys.for_space(spaces["alpha"], Role.VIEWER)
    return viewers


async def test_written_nodes_answer_as_graphql_core_for_every_viewer(
    session_factory: SessionFactory,
    keys: Keys,
    fast_client: httpx.AsyncClient,
    plain_client: httpx.AsyncClient,
    rendered_pages: RenderedPages,
) -> None:
    spaces = await mixed_catalog(session_factory)
    filters: list[dict[str, Any] | None] = [None, {"type": "MCP"}, {"isGlobal": False}, {"search": "full"}]
    kinds: set[tuple[str, bool, bool]] = set()
    for viewer, key in (await viewers_of(keys, spaces)).items():
        for first in (1, 3, 20):
            for tool_filter in filters:
                variables = {"first": first, "filter": tool_filter}
                fast = await listing(fast_client, key, RENDERED, variables)
                assert fast == await listing(plain_client, key, RENDERED, variables), (viewer, first, tool_filter)
                for body in fast:
                    assert "errors" not in body, body
                    for edge in body["data"]["tools"]["edges"]:
                        node = edge["node"]
                        kinds.add((node["type"], node["isGlobal"], node["mcpServer"] is None))
        variables = {"first": 2}
        assert await listing(fast_client, key, ALIASED, variables) == await listing(
            plain_client, key, ALIASED, variables
        ), viewer
    # Builtin, custom global and bound, MCP tools of a bound server and of a global one.
    assert {("BUILTIN", True, True), ("CUSTOM", True, True), ("CUSTOM", False, True), ("MCP", False, False)} <= kinds
    # Every page of this catalog was written by SQLite (the plain client never asks).
    assert rendered_pages.answers == rendered_pages.on_sqlite([True] * len(rendered_pages.answers))
    assert rendered_pages.answers or not rendered_pages.sqlite


async def test_odd_values_answer_as_graphql_core(
    session_factory: SessionFactory,
    keys: Keys,
    fast_client: httpx.AsyncClient,
    plain_client: httpx.AsyncClient,
    rendered_pages: RenderedPages,
) -> None:
    _, viewers = await odd_catalog_viewers(session_factory, keys)
    for viewer, key in viewers.items():
        for first in (1, 7, 20):
            variables = {"first": first, "filter": None}
            fast = await listing(fast_client, key, RENDERED, variables)
            assert fast == await listing(plain_client, key, RENDERED, variables), (viewer, first)
            assert all("errors" not in body for body in fast), fast
    assert any(rendered_pages.answers) == rendered_pages.sqlite


#: Rows written around the API (a migration, a hand edit): each changes one column of one custom
#: tool. Per backend: True, the database still writes the page; False, the page takes the ordinary
#: reading (which answers the value, or its error, as graphql-core does); None, the column's type
#: or constraint refuses the value there.
AROUND_THE_API: dict[str, tuple[str, dict[str, bool | None]]] = {
    "approval NULL": ("approval = NULL", {"sqlite": None, "postgresql": None}),
    "approval empty": ("approval = ''", {"sqlite": True, "postgresql": True}),
    "status not a member": ("status = 'PAUSED'", {"sqlite": False, "postgresql": False}),
    "tags a JSON string": ("tags = '\"abc\"'", {"sqlite": False, "postgresql": False}),
    "tags holding a number": ("tags = '[1, \"x\"]'", {"sqlite": False, "postgresql": False}),
    "tags JSON null": ("tags = 'null'", {"sqlite": True, "postgresql": True}),
    "tags spaced": ('tags = \' [ "a" , "b" ] \'', {"sqlite": True, "postgresql": True}),
    "roles not a member": ("allowed_roles = '[\"OWNER\"]'", {"sqlite": False, "postgresql": False}),
    "input schema JSON null": ("input_schema = 'null'", {"sqlite": False, "postgresql": False}),
    "input schema not JSON": ("input_schema = '{not json'", {"sqlite": False, "postgresql": None}),
    "input schema a number": ("input_schema = '5'", {"sqlite": False, "postgresql": True}),
    "description a blob": ("description = X'00FF'", {"sqlite": False, "postgresql": True}),  # PostgreSQL: bits, as text
    "timeout not an integer": ("timeout_ms = 'soon'", {"sqlite": False, "postgresql": None}),
    "timeout beyond 32 bits": ("timeout_ms = 4000000000", {"sqlite": False, "postgresql": None}),
    "time in another zone": ("created_at = '2026-03-04 05:06:07.000001+02:00'", {"sqlite": False, "postgresql": True}),
    "time not in the calendar": ("updated_at = '2026-02-30 05:06:07.000000'", {"sqlite": False, "postgresql": None}),
    "time without a fraction": ("updated_at = '2026-02-03 05:06:07'", {"sqlite": True, "postgresql": True}),
    "time at a whole second": ("updated_at = '2026-02-03 05:06:07.000000'", {"sqlite": True, "postgresql": True}),
    "drifted at a microsecond": ("drifted_at = '2026-02-03 05:06:07.000001'", {"sqlite": True, "postgresql": True}),
    "time to the millisecond": ("updated_at = '2026-02-03 05:06:07.123'", {"sqlite": False, "postgresql": True}),
    "time to a tenth of a microsecond": (
        "updated_at = '2026-02-03 05:06:07.1234567'",
        {"sqlite": False, "postgresql": True},
    ),
    "time with a letter in its fraction": (
        "updated_at = '2026-02-03 05:06:07.12345x'",
        {"sqlite": False, "postgresql": None},
    ),
    "time with a comma for a point": (
        "updated_at = '2026-02-03 05:06:07,123456'",
        {"sqlite": False, "postgresql": None},
    ),
}


@pytest.mark.parametrize("case", list(AROUND_THE_API))
async def test_rows_written_around_the_api_answer_as_graphql_core(
    session_factory: SessionFactory,
    keys: Keys,
    fast_client: httpx.AsyncClient,
    plain_client: httpx.AsyncClient,
    rendered_pages: RenderedPages,
    case: str,
) -> None:
    assignment, expected = AROUND_THE_API[case]
    await mixed_catalog(session_factory)
    async with session_factory() as session:
        backend = session.get_bind().dialect.name
        tool_id = (
            (await session.execute(text("SELECT tool_id FROM tool_definition WHERE type = 'CUSTOM' ORDER BY tool_id")))
            .scalars()
            .first()
        )
        statement = text(f"UPDATE tool_definition SET {assignment} WHERE tool_id = :id")
        if expected[backend] is None:
            with pytest.raises(DBAPIError):
                await session.execute(statement, {"id": tool_id})
            return
        await session.execute(statement, {"id": tool_id})
        await session.commit()
    admin = await keys.admin()
    variables = {"first": 20, "filter": None}
    fast = await listing(fast_client, admin, RENDERED, variables)
    assert without_trace_ids(fast) == without_trace_ids(await listing(plain_client, admin, RENDERED, variables))
    writable = expected[backend]
    assert writable is not None
    assert rendered_pages.answers == rendered_pages.on_sqlite([writable]), rendered_pages.answers


def without_trace_ids(bodies: list[Any]) -> list[Any]:
    """The bodies with each error's trace id (one per request) taken out."""
    for body in bodies:
        for error in body.get("errors") or ():
            (error.get("extensions") or {}).pop("traceId", None)
    return bodies


async def test_a_page_too_long_for_one_answer_reads_on(
    session_factory: SessionFactory, keys: Keys, fast_client: httpx.AsyncClient, plain_client: httpx.AsyncClient
) -> None:
    """Pages of 100 (the most a page holds) follow each other to the end, cursors included (every
    field of a tool, its spaces and server by id and name, as bench/catalog_scale.py lists them)."""
    await mixed_catalog(session_factory)
    await insert_rows(session_factory, tools=[custom_tool_row(f"page_{number:03d}") for number in range(230)])
    admin = await keys.admin()
    fast = await listing(fast_client, admin, FULL_PAGES, {"first": 100, "filter": None})
    assert [len(body["data"]["tools"]["edges"]) for body in fast] == [100, 100, 42]
    assert fast == await listing(plain_client, admin, FULL_PAGES, {"first": 100, "filter": None})


@pytest.fixture
async def base_url(settings: Settings, app_and_services: Any) -> AsyncIterator[str]:
    async with serving(settings, create_app(settings)) as url:
        yield url


async def test_a_listing_over_a_websocket_gets_objects_not_written_json(
    session_factory: SessionFactory, keys: Keys, base_url: str, rendered_pages: RenderedPages
) -> None:
    await mixed_catalog(session_factory)
    admin = await keys.admin()
    async with httpx.AsyncClient(base_url=base_url) as client:
        over_http = await listing(client, admin, RENDERED, {"first": 20, "filter": None})
    assert rendered_pages.answers == rendered_pages.on_sqlite([True])
    async with connect(
        base_url.replace("http://", "ws://") + "/graphql",
        subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
    ) as ws:
        await ws.send(json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {admin}"}}))
        assert json.loads(await asyncio.wait_for(ws.recv(), 10)) == {"type": "connection_ack"}
        payload = {"query": RENDERED, "variables": {"first": 20, "after": None, "filter": None}}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
    assert message["type"] == "next", message
    assert message["payload"] == over_http[0]
    # The socket's listing took the ordinary reading.
    assert rendered_pages.answers == rendered_pages.on_sqlite([True])


def test_written_json_is_written_as_it_is() -> None:
    node = jsoncodec.Raw('{"a":[1,2.5,"é"],"b":null}')
    assert jsoncodec.dumps_bytes({"node": node}) == '{"node":{"a":[1,2.5,"é"],"b":null}}'.encode()
    # Beside an integer beyond 64 bits (the standard library writes the answer), read back for it.
    big = 2**70
    assert json.loads(jsoncodec.dumps_bytes({"node": node, "n": big})) == {
        "node": {"a": [1, 2.5, "é"], "b": None},
        "n": big,
    }
    with pytest.raises(TypeError):
        jsoncodec.dumps_bytes({"other": object()})


async def test_documents_made_up_afresh_are_read_the_ordinary_way_beyond_the_budget(
    session_factory: SessionFactory,
    keys: Keys,
    fast_client: httpx.AsyncClient,
    plain_client: httpx.AsyncClient,
    rendered_pages: RenderedPages,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each new selection costs the making of a statement: a process makes its share a minute
    (here 3), then a selection it has not seen is read the ordinary way; one it keeps is still
    written by the database."""
    monkeypatch.setattr(repository, "NEW_RENDERED_STATEMENTS", repository.StatementBudget(3))
    await mixed_catalog(session_factory)
    admin = await keys.admin()
    documents = [
        "query Fresh($first: Int!, $after: String) { tools(first: $first, after: $after) { "
        f"pageInfo {{ hasNextPage endCursor }} edges {{ node {{ id made{number}: name tags }} }} }} }}"
        for number in range(5)
    ]
    for document in documents:
        fast = await listing(fast_client, admin, document, {"first": 50})
        assert fast == await listing(plain_client, admin, document, {"first": 50})
    assert rendered_pages.answers == rendered_pages.on_sqlite([True, True, True, False, False])
    assert await listing(fast_client, admin, documents[0], {"first": 50})
    assert rendered_pages.answers[-1:] == rendered_pages.on_sqlite([True])


async def test_a_listing_observed_statement_by_statement_answers_the_same(
    session_factory: SessionFactory, keys: Keys, fast_client: httpx.AsyncClient, rendered_pages: RenderedPages
) -> None:
    """On SQLite the page's statement goes to the driver directly, unless something listens to the
    statements SQLAlchemy runs (tracing): then it runs through SQLAlchemy, where they see it."""
    spaces = await mixed_catalog(session_factory)
    key = await keys.for_space(spaces["alpha"], Role.SPACE_ADMIN)
    unobserved = await listing(fast_client, key, RENDERED, {"first": 3, "filter": None})
    seen: list[str] = []

    def observe(_connection: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement)

    event.listen(Engine, "before_cursor_execute", observe)  # every engine's, the app's included
    try:
        observed = await listing(fast_client, key, RENDERED, {"first": 3, "filter": None})
    finally:
        event.remove(Engine, "before_cursor_execute", observe)
    assert observed == unobserved
    assert rendered_pages.answers == rendered_pages.on_sqlite([True] * 2 * len(unobserved))
    written = [statement for statement in seen if "json_object" in statement and "tool_definition" in statement]
    assert len(written) == len(rendered_pages.on_sqlite([True] * len(observed)))


#: Selections of the connection itself, each page written whole by the database's nodes and
#: Python around them (schema.tools.rendering.connection_json): fields in another order, the
#: typename at every level, aliases, a part of it.
WHOLE_CONNECTIONS = {
    "reordered": "edges { node { id name } cursor __typename } pageInfo { __typename endCursor startCursor "
    "hasPreviousPage hasNextPage } __typename totalCount",
    "aliased": "count: totalCount info: pageInfo { more: hasNextPage last: endCursor first: startCursor } "
    "items: edges { at: cursor tool: node { id } }",
    "edges only": "edges { node { id type } }",
    "cursors only": "pageInfo { endCursor hasNextPage } edges { cursor node { __typename id } }",
}
#: Selections that are not written whole (the nodes still are): a fragment, a directive.
NOT_WHOLE = {
    "fragment": "...on ToolConnection { totalCount } pageInfo { hasNextPage endCursor } edges { node { id } }",
    "directive": "totalCount @include(if: true) pageInfo { hasNextPage endCursor } edges { node { id } }",
}


async def answer_in_order(client: httpx.AsyncClient, key: str, query: str, variables: dict[str, Any]) -> Any:
    """The body with every object as a list of (key, value) pairs: the order of the keys counts."""
    response = await client.post(
        "/graphql", json={"query": query, "variables": variables}, headers={"Authorization": f"Bearer {key}"}
    )
    assert response.status_code == 200, response.text
    return json.loads(response.text, object_pairs_hook=list)


async def test_whole_connections_are_written_in_the_order_graphql_core_answers(
    session_factory: SessionFactory,
    keys: Keys,
    fast_client: httpx.AsyncClient,
    plain_client: httpx.AsyncClient,
    rendered_pages: RenderedPages,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    written: list[str] = []
    original = rendering.connection_json

    def spy(*args: Any) -> str:
        text = original(*args)
        written.append(text)
        return text

    monkeypatch.setattr(rendering, "connection_json", spy)
    spaces = await mixed_catalog(session_factory)
    viewers = {"admin": await keys.admin(), "alpha member": await keys.for_space(spaces["alpha"], Role.MEMBER)}
    for name, selection in {**WHOLE_CONNECTIONS, **NOT_WHOLE}.items():
        tools = f"query Whole($first: Int!, $after: String) {{ tools(first: $first, after: $after) {{ {selection} }} }}"
        visible = (
            "query Visible($space: ID!, $first: Int!, $after: String) { space(id: $space) { "
            f"visibleTools(first: $first, after: $after) {{ {selection} }} }} }}"
        )
        for viewer, key in viewers.items():
            for first in (0, 2, 100):
                cases: list[tuple[str, dict[str, Any]]] = [(tools, {"first": first, "after": None})]
                cases.append((visible, {"space": spaces["alpha"], "first": first, "after": None}))
                # A page after the first, and one after the last tool (empty, no cursors).
                for after in ("builtin_", "~"):
                    cases.append((tools, {"first": first, "after": encode_cursor(after)}))
                for query, variables in cases:
                    before = len(written)
                    fast = await answer_in_order(fast_client, key, query, variables)
                    assert fast == await answer_in_order(plain_client, key, query, variables), (name, viewer, variables)
                    assert "errors" not in dict(fast), fast
                    if name in WHOLE_CONNECTIONS and rendered_pages.sqlite:
                        assert len(written) == before + 1, (name, viewer, variables)
                    else:
                        assert len(written) == before, (name, viewer, variables)
    assert rendered_pages.answers == rendered_pages.on_sqlite([True] * len(rendered_pages.answers))


async def test_a_page_past_its_time_on_the_event_loop_is_read_on_the_drivers_thread(
    session_factory: SessionFactory,
    keys: Keys,
    fast_client: httpx.AsyncClient,
    plain_client: httpx.AsyncClient,
    rendered_pages: RenderedPages,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The loop is held no longer than the bound; past it the statement is stopped and the page
    read on aiosqlite's thread, written by the database all the same."""
    outcomes: list[str] = []
    original = repository._read_on_the_loop

    def spy(*args: Any) -> Any:
        try:
            rows = original(*args)
        except sqlite3.OperationalError as error:
            outcomes.append(str(error))
            raise
        outcomes.append("read")
        return rows

    monkeypatch.setattr(repository, "_read_on_the_loop", spy)
    await mixed_catalog(session_factory)
    await insert_rows(session_factory, tools=[custom_tool_row(f"slow_{number:03d}") for number in range(120)])
    admin = await keys.admin()
    monkeypatch.setattr(repository, "ON_LOOP_BUDGET_S", 60.0)  # however busy the machine
    on_the_loop = await listing(fast_client, admin, FULL_PAGES, {"first": 100, "filter": None})
    assert outcomes == rendered_pages.on_sqlite(["read"] * len(on_the_loop))
    monkeypatch.setattr(repository, "ON_LOOP_BUDGET_S", 0.0)
    on_the_thread = await listing(fast_client, admin, FULL_PAGES, {"first": 100, "filter": None})
    assert (
        on_the_thread == on_the_loop == await listing(plain_client, admin, FULL_PAGES, {"first": 100, "filter": None})
    )
    assert outcomes[len(on_the_loop) :] == rendered_pages.on_sqlite(["interrupted"] * len(on_the_thread))
    assert rendered_pages.answers == rendered_pages.on_sqlite([True] * (len(on_the_loop) + len(on_the_thread)))


def test_a_statement_on_the_event_loop_is_bounded_and_never_waits_for_a_lock(tmp_path: Path) -> None:
    """Real SQLite: a statement past the bound is stopped; a lock another connection holds is not
    waited for (a database left in rollback-journal mode, where a writer locks readers out); the
    connection's progress handler and busy timeout are as they were afterwards."""
    path = tmp_path / "bounded.db"
    database = sqlite3.connect(path, isolation_level=None)
    database.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
    database.execute("CREATE TABLE item (n INTEGER)")
    long_count = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) SELECT count(*) FROM n"
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):
        repository._read_on_the_loop(database, long_count, [10**9])
    assert repository._read_on_the_loop(database, long_count, [1000]) == [(1000,)]
    assert database.execute(long_count, [200_000]).fetchall() == [(200_000,)]  # no handler left behind
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            repository._read_on_the_loop(database, "SELECT count(*) FROM item", [])
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert database.execute("PRAGMA busy_timeout").fetchall() == [(SQLITE_BUSY_TIMEOUT_MS,)]
    assert repository._read_on_the_loop(database, "SELECT count(*) FROM item", []) == [(0,)]
    database.close()
