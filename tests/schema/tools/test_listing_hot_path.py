"""A page of ``tools`` whose whole connection the database's nodes make is answered by a listing
plan (``schema.gateway.hot_path``) without the generic GraphQL machinery, on SQLite: the same
bytes the generic path answers, for every kind of key, page after page, literals and variables,
with the listing cache on or off; anything else (a bad cursor, an odd page size, a filter, a row
the database cannot write) is answered by the generic path exactly as before."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from app.changes import FEED
from app.config import Settings
from app.main import create_app
from schema.gateway.hot_path import HotPath
from schema.pagination import encode_cursor
from tests.app.tools.factories import custom_tool_row, insert_rows
from tests.conftest import Keys
from tests.schema.tools.conftest import RenderedPages, SessionFactory, mixed_catalog
from tests.schema.tools.test_listing_rendered import FULL_PAGES, TOOL_FIELDS, viewers_of, without_trace_ids

FULL = (
    FULL_PAGES.replace("$first: Int!", "$first: Int")
    .replace("filter: $filter", "")
    .replace(", $filter: ToolFilter", "")
)
LITERAL_FIRST = (
    "query Literal($after: String) { tools(first: 2, after: $after) { totalCount pageInfo { hasNextPage "
    "endCursor } edges { cursor node { " + TOOL_FIELDS + " } } } }"
)
ALIASED_ROOT = (
    "query Aliased($first: Int!) { catalog: tools(first: $first) { pageInfo { hasNextPage } "
    "edges { node { id name } } } }"
)


@asynccontextmanager
async def app_client(settings: Settings, **overrides: Any) -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    app = create_app(settings.model_copy(update=overrides))
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://hot.test") as client:
            yield client, app
    finally:
        await app.state.services.close()


@pytest.fixture
async def hot(settings: Settings, app_and_services: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with app_client(settings, listing_cache_mb=0) as (client, _):
        yield client


@pytest.fixture
async def generic(settings: Settings, app_and_services: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with app_client(settings, listing_cache_mb=0, graphql_hot_path=False) as (client, _):
        yield client


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each listing plan's outcome: answered (True) or handed to the generic path (False)."""
    outcomes: list[bool] = []
    original = HotPath.answer_listing

    async def spy(self: HotPath, *args: Any) -> bytes | None:
        answer = await original(self, *args)
        outcomes.append(answer is not None)
        return answer

    monkeypatch.setattr(HotPath, "answer_listing", spy)
    return outcomes


async def post(client: httpx.AsyncClient, key: str, query: str, variables: Any) -> httpx.Response:
    body: dict[str, Any] = {"query": query}
    if variables is not ...:
        body["variables"] = variables
    return await client.post("/graphql", json=body, headers={"Authorization": f"Bearer {key}"})


async def pages(client: httpx.AsyncClient, key: str, query: str, variables: dict[str, Any]) -> list[bytes]:
    """Every page's bytes, following the cursor."""
    answers: list[bytes] = []
    after = None
    while True:
        response = await post(client, key, query, {**variables, "after": after})
        answers.append(response.content)
        page = response.json()["data"]["tools"]
        if not page["pageInfo"]["hasNextPage"]:
            return answers
        after = page["pageInfo"]["endCursor"]


async def test_planned_pages_answer_the_generic_paths_bytes(
    settings: Settings,
    session_factory: SessionFactory,
    keys: Keys,
    hot: httpx.AsyncClient,
    generic: httpx.AsyncClient,
    planned: list[bool],
) -> None:
    spaces = await mixed_catalog(session_factory)
    await insert_rows(session_factory, tools=[custom_tool_row(f"hot_{number:03d}") for number in range(130)])
    for viewer, key in (await viewers_of(keys, spaces)).items():
        for query, variables in [(FULL, {"first": 100}), (FULL, {"first": 7}), (LITERAL_FIRST, {})]:
            answered = await pages(hot, key, query, variables)
            assert answered == await pages(generic, key, query, variables), (viewer, query[:20], variables)
        for variables in ({"first": 0}, {"first": 3}):
            answer = await post(hot, key, ALIASED_ROOT, variables)
            assert answer.content == (await post(generic, key, ALIASED_ROOT, variables)).content, viewer
            assert answer.headers["content-type"] == "application/json"
        # A literal cursor, and one past the last tool (an empty page, no cursors).
        for after in ("builtin_", "~"):
            literal = FULL.replace("after: $after", f'after: "{encode_cursor(after)}"')
            literal = literal.replace("$first: Int, $after: String", "$first: Int")
            answer = await post(hot, key, literal, {"first": 5})
            assert answer.content == (await post(generic, key, literal, {"first": 5})).content, (viewer, after)
    if settings.is_sqlite:
        assert planned and all(planned)
    else:
        assert planned == []  # PostgreSQL: listings are not planned (their nodes are not written there)


#: Requests a listing plan hands to the generic path, or that no plan takes: (document, variables).
HANDED_ON: dict[str, tuple[str, Any]] = {
    "a cursor that is not one": (FULL, {"first": 5, "after": "not a cursor"}),
    "a cursor too long": (FULL, {"first": 5, "after": "x" * 20_000}),
    "first null": (FULL, {"first": None}),
    "first absent": (FULL, {}),
    "no variables at all": (FULL, ...),
    "first past a page": (FULL, {"first": 101}),
    "first negative": (FULL, {"first": -1}),
    "first a boolean": (FULL, {"first": True}),
    "first a float": (FULL, {"first": 2.0}),
    "after a number": (FULL, {"first": 2, "after": 12}),
    "variables not an object": (FULL, [1]),
    "a filter": (FULL.replace("after: $after", "after: $after, filter: {type: CUSTOM}"), {"first": 2}),
    "two root fields": (
        "query Two($first: Int) { tools(first: $first) { edges { node { id } } } me { role } }",
        {"first": 2},
    ),
    "a fragment": (
        "query Fragment($first: Int) { tools(first: $first) { ...Page } } fragment Page on ToolConnection "
        "{ edges { node { id } } }",
        {"first": 2},
    ),
    "a directive": (
        "query Skip($first: Int) { tools(first: $first) @skip(if: false) { edges { node { id } } } }",
        {"first": 2},
    ),
    "stats": (
        "query Stats($first: Int) { tools(first: $first) { edges { node { id stats { calls } } } } }",
        {"first": 2},
    ),
}


@pytest.mark.parametrize("case", list(HANDED_ON))
async def test_what_no_plan_answers_the_generic_path_answers(
    session_factory: SessionFactory,
    keys: Keys,
    hot: httpx.AsyncClient,
    generic: httpx.AsyncClient,
    planned: list[bool],
    case: str,
) -> None:
    query, variables = HANDED_ON[case]
    spaces = await mixed_catalog(session_factory)
    key = (await viewers_of(keys, spaces))["alpha member"]
    answer, expected = await post(hot, key, query, variables), await post(generic, key, query, variables)
    assert answer.status_code == expected.status_code
    assert without_trace_ids([answer.json()]) == without_trace_ids([expected.json()])
    assert not any(planned)


async def test_variables_nobody_declared_are_left_aside_as_graphql_core_does(
    settings: Settings,
    session_factory: SessionFactory,
    keys: Keys,
    hot: httpx.AsyncClient,
    generic: httpx.AsyncClient,
    planned: list[bool],
) -> None:
    spaces = await mixed_catalog(session_factory)
    key = (await viewers_of(keys, spaces))["alpha member"]
    variables = {"first": 2, "other": "x"}
    assert (await post(hot, key, FULL, variables)).content == (await post(generic, key, FULL, variables)).content
    assert planned == ([True] if settings.is_sqlite else [])


async def test_a_page_the_database_cannot_write_is_read_the_ordinary_way_once(
    settings: Settings,
    session_factory: SessionFactory,
    keys: Keys,
    hot: httpx.AsyncClient,
    generic: httpx.AsyncClient,
    planned: list[bool],
    rendered_pages: RenderedPages,
) -> None:
    """A time written around the API that the calendar does not have: the plan hands the page on,
    and the generic path reads it the ordinary way without asking the database to write it again."""
    await mixed_catalog(session_factory)
    odd_time = text(
        "UPDATE tool_definition SET updated_at = '2026-02-30 05:06:07.000000' WHERE tool_id = "
        "(SELECT min(tool_id) FROM tool_definition WHERE type = 'CUSTOM')"
    )
    async with session_factory() as session:
        if not settings.is_sqlite:
            with pytest.raises(DBAPIError):  # PostgreSQL refuses the time: no such row there
                await session.execute(odd_time)
            return
        await session.execute(odd_time)
        await session.commit()
    admin = await keys.admin()
    answer = (await post(hot, admin, FULL, {"first": 50})).json()
    assert planned == [False]
    assert rendered_pages.answers == [False]  # the generic path did not ask the database to write it again
    assert without_trace_ids([answer]) == without_trace_ids([(await post(generic, admin, FULL, {"first": 50})).json()])
    assert rendered_pages.answers == [False, False]  # the generic app beside it (no plans) asked once


async def test_the_listing_cache_is_read_and_filled_as_on_the_generic_path(
    settings: Settings, session_factory: SessionFactory, keys: Keys, app_and_services: Any, planned: list[bool]
) -> None:
    spaces = await mixed_catalog(session_factory)
    key = (await viewers_of(keys, spaces))["alpha space admin"]
    async with (
        app_client(settings) as (hot, hot_app),
        app_client(settings, graphql_hot_path=False) as (generic, _),
    ):
        cache = hot_app.state.listing_cache
        first = await post(hot, key, FULL, {"first": 5})
        again = await post(hot, key, FULL, {"first": 5})
        assert first.content == again.content == (await post(generic, key, FULL, {"first": 5})).content
        assert (cache.misses, cache.hits) == (1, 1)
        # A change of the catalog (here another replica's, as app.changes.ChangeRelay hears it): the
        # next listing is read afresh, and shows it.
        await insert_rows(session_factory, tools=[custom_tool_row("aaa_new", tool_id="aaa_new")])
        FEED.bump()
        changed = await post(hot, key, FULL, {"first": 5})
        assert changed.content != first.content
        assert b"aaa_new" in changed.content  # global: every space sees it, first by name
        assert changed.content == (await post(generic, key, FULL, {"first": 5})).content
    assert cache.misses == 2
    assert planned == ([True, True, True] if settings.is_sqlite else [])


async def test_a_costly_page_waits_its_tenants_turn_as_on_the_generic_path(
    settings: Settings, session_factory: SessionFactory, keys: Keys, app_and_services: Any, planned: list[bool]
) -> None:
    """A full page costs more than COSTLY_COST: it runs once its tenant's earlier costly queries are
    done (schema.fairness), while another tenant's page is answered meanwhile."""
    spaces = await mixed_catalog(session_factory)
    viewers = await viewers_of(keys, spaces)
    async with app_client(settings, listing_cache_mb=0) as (client, app):
        gate = app.state.hot_path.gate
        assert gate is not None
        async with gate.turn(spaces["alpha"]):  # an earlier costly query of alpha's, still running
            waiting = asyncio.create_task(post(client, viewers["alpha member"], FULL, {"first": 100}))
            other = await post(client, viewers["beta member"], FULL, {"first": 100})
            assert other.status_code == 200
            assert "errors" not in other.json()
            await asyncio.sleep(0.2)
            assert not waiting.done()
        answer = await waiting
        assert answer.status_code == 200
        assert "errors" not in answer.json()
    assert planned == ([True, True] if settings.is_sqlite else [])
