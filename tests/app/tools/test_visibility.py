"""The one visibility rule (app.tools.visibility), straight on the SQL expression and the repository."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.pagination import Page, PageRequest
from app.spaces.models import SYSTEM_SPACE_ID
from app.spaces.repository import SPACE_COLUMNS, spaces_by_ids
from app.tools import repository
from app.tools.models import ToolDefinition
from app.tools.visibility import tool_visible_in_space
from tests.app.tools.factories import (
    custom_tool_row,
    insert_rows,
    mcp_server_row,
    mcp_tool_row,
    odd_catalog,
    space_row,
)

SessionFactory = async_sessionmaker[AsyncSession]


async def visible_ids(
    session_factory: SessionFactory,
    space_id: str,
    among: set[str],
    *,
    include_inactive: bool = False,
) -> set[str]:
    """Which of ``among`` the expression lets through for ``space_id``."""
    statement = select(ToolDefinition.tool_id).where(
        ToolDefinition.tool_id.in_(among),
        tool_visible_in_space(space_id, include_inactive=include_inactive),
    )
    async with session_factory() as session:
        return set((await session.scalars(statement)).all())


@pytest.fixture
async def spaces(session_factory: SessionFactory) -> dict[str, str]:
    """Three ordinary spaces besides the system space, by name."""
    rows = [space_row(name) for name in ("alpha", "beta", "gamma")]
    await insert_rows(session_factory, spaces=rows)
    return {row["name"]: row["id"] for row in rows}


class TestToolBindings:
    async def test_tool_without_binding_rows_is_visible_in_every_space(
        self, session_factory: SessionFactory, spaces: dict[str, str]
    ) -> None:
        tool = custom_tool_row("weather")
        await insert_rows(session_factory, tools=[tool])

        for space_id in [*spaces.values(), SYSTEM_SPACE_ID]:
            assert await visible_ids(session_factory, space_id, {tool["tool_id"]}) == {tool["tool_id"]}

    async def test_tool_with_binding_rows_is_visible_only_in_those_spaces(
        self, session_factory: SessionFactory, spaces: dict[str, str]
    ) -> None:
        tool = custom_tool_row("billing")
        await insert_rows(
            session_factory,
            tools=[tool],
            tool_bindings=[(tool["tool_id"], spaces["alpha"]), (tool["tool_id"], spaces["beta"])],
        )

        among = {tool["tool_id"]}
        assert await visible_ids(session_factory, spaces["alpha"], among) == among
        assert await visible_ids(session_factory, spaces["beta"], among) == among
        assert await visible_ids(session_factory, spaces["gamma"], among) == set()
        assert await visible_ids(session_factory, SYSTEM_SPACE_ID, among) == set()

    async def test_bindings_of_one_tool_do_not_restrict_another(
        self, session_factory: SessionFactory, spaces: dict[str, str]
    ) -> None:
        bound, unbound = custom_tool_row("bound_one"), custom_tool_row("free_one")
        await insert_rows(
            session_factory,
            tools=[bound, unbound],
            tool_bindings=[(bound["tool_id"], spaces["alpha"])],
        )

        among = {bound["tool_id"], unbound["tool_id"]}
        assert await visible_ids(session_factory, spaces["alpha"], among) == among
        assert await visible_ids(session_factory, spaces["beta"], among) == {unbound["tool_id"]}


class TestMcpToolsFollowTheirServer:
    async def test_tools_of_a_server_without_bindings_are_global(
        self, session_factory: SessionFactory, spaces: dict[str, str]
    ) -> None:
        server = mcp_server_row()
        tools = [mcp_tool_row(server["id"], "lookup"), mcp_tool_row(server["id"], "fetch")]
        await insert_rows(session_factory, servers=[server], tools=tools)

        among = {tool["tool_id"] for tool in tools}
        for space_id in [*spaces.values(), SYSTEM_SPACE_ID]:
            assert await visible_ids(session_factory, space_id, among) == among

    async def test_tools_of_a_bound_server_are_visible_only_in_its_spaces(
        self, session_factory: SessionFactory, spaces: dict[str, str]
    ) -> None:
        server = mcp_server_row()
        tools = [mcp_tool_row(server["id"], "lookup"), mcp_tool_row(server["id"], "fetch")]
        await insert_rows(
            session_factory,
            servers=[server],
            tools=tools,
            server_bindings=[(server["id"], spaces["alpha"]), (server["id"], spaces["gamma"])],
        )

        among = {tool["tool_id"] for tool in tools}
        assert await visible_ids(session_factory, spaces["alpha"], among) == among
        assert await visible_ids(session_factory, spaces["gamma"], among) == among
        assert await visible_ids(session_factory, spaces["beta"], among) == set()

    async def test_each_tool_follows_its_own_server(
        self, session_factory: SessionFactory, spaces: dict[str, str]
    ) -> None:
        in_alpha, in_beta, everywhere = mcp_server_row(), mcp_server_row(), mcp_server_row()
        tools = {
            "alpha": mcp_tool_row(in_alpha["id"], "search"),
            "beta": mcp_tool_row(in_beta["id"], "search"),
            "global": mcp_tool_row(everywhere["id"], "search"),
        }
        await insert_rows(
            session_factory,
            servers=[in_alpha, in_beta, everywhere],
            tools=list(tools.values()),
            server_bindings=[(in_alpha["id"], spaces["alpha"]), (in_beta["id"], spaces["beta"])],
        )

        among = {tool["tool_id"] for tool in tools.values()}
        assert await visible_ids(session_factory, spaces["alpha"], among) == {
            tools["alpha"]["tool_id"],
            tools["global"]["tool_id"],
        }
        assert await visible_ids(session_factory, spaces["beta"], among) == {
            tools["beta"]["tool_id"],
            tools["global"]["tool_id"],
        }
        assert await visible_ids(session_factory, spaces["gamma"], among) == {tools["global"]["tool_id"]}


class TestInactiveTools:
    @pytest.mark.parametrize("status", ["DISABLED", "ARCHIVED"])
    async def test_inactive_tool_is_hidden_unless_include_inactive(
        self, session_factory: SessionFactory, spaces: dict[str, str], status: str
    ) -> None:
        active, inactive = custom_tool_row("on_tool"), custom_tool_row("off_tool", status=status)
        await insert_rows(session_factory, tools=[active, inactive])

        among = {active["tool_id"], inactive["tool_id"]}
        assert await visible_ids(session_factory, spaces["alpha"], among) == {active["tool_id"]}
        assert await visible_ids(session_factory, spaces["alpha"], among, include_inactive=True) == among

    @pytest.mark.parametrize("status", ["DISABLED", "ARCHIVED"])
    async def test_tools_of_an_inactive_server_are_hidden_unless_include_inactive(
        self, session_factory: SessionFactory, spaces: dict[str, str], status: str
    ) -> None:
        live, dead = mcp_server_row(), mcp_server_row(status=status)
        live_tool, dead_tool = mcp_tool_row(live["id"], "ping"), mcp_tool_row(dead["id"], "ping")
        await insert_rows(session_factory, servers=[live, dead], tools=[live_tool, dead_tool])

        among = {live_tool["tool_id"], dead_tool["tool_id"]}
        assert await visible_ids(session_factory, spaces["alpha"], among) == {live_tool["tool_id"]}
        assert await visible_ids(session_factory, spaces["alpha"], among, include_inactive=True) == among

    async def test_include_inactive_still_applies_the_bindings(
        self, session_factory: SessionFactory, spaces: dict[str, str]
    ) -> None:
        server = mcp_server_row(status="DISABLED")
        custom = custom_tool_row("paused", status="DISABLED")
        mcp = mcp_tool_row(server["id"], "paused")
        await insert_rows(
            session_factory,
            servers=[server],
            tools=[custom, mcp],
            tool_bindings=[(custom["tool_id"], spaces["alpha"])],
            server_bindings=[(server["id"], spaces["alpha"])],
        )

        among = {custom["tool_id"], mcp["tool_id"]}
        assert await visible_ids(session_factory, spaces["alpha"], among, include_inactive=True) == among
        assert await visible_ids(session_factory, spaces["beta"], among, include_inactive=True) == set()


class TestRepositoryAppliesTheRule:
    @pytest.fixture
    async def mixed_catalog(self, session_factory: SessionFactory, spaces: dict[str, str]) -> dict[str, str]:
        """A tool of every kind of visibility, by role in the test."""
        bound_server, free_server, off_server = (
            mcp_server_row(),
            mcp_server_row(),
            mcp_server_row(status="DISABLED"),
        )
        tools = {
            "global": custom_tool_row("global_tool"),
            "alpha_only": custom_tool_row("alpha_tool"),
            "beta_only": custom_tool_row("beta_tool"),
            "disabled_global": custom_tool_row("disabled_tool", status="DISABLED"),
            "mcp_alpha": mcp_tool_row(bound_server["id"], "bound_mcp"),
            "mcp_global": mcp_tool_row(free_server["id"], "free_mcp"),
            "mcp_off_server": mcp_tool_row(off_server["id"], "off_mcp"),
        }
        await insert_rows(
            session_factory,
            servers=[bound_server, free_server, off_server],
            tools=list(tools.values()),
            tool_bindings=[
                (tools["alpha_only"]["tool_id"], spaces["alpha"]),
                (tools["beta_only"]["tool_id"], spaces["beta"]),
            ],
            server_bindings=[(bound_server["id"], spaces["alpha"])],
        )
        return {role: row["tool_id"] for role, row in tools.items()}

    async def test_list_and_count_return_exactly_the_visible_tools(
        self, session_factory: SessionFactory, spaces: dict[str, str], mixed_catalog: dict[str, str]
    ) -> None:
        builtins = {"bt_search_knowledge", "bt_current_time", "bt_calculator"}
        expected_alpha = builtins | {
            mixed_catalog["global"],
            mixed_catalog["alpha_only"],
            mixed_catalog["mcp_alpha"],
            mixed_catalog["mcp_global"],
        }
        expected_beta = builtins | {
            mixed_catalog["global"],
            mixed_catalog["beta_only"],
            mixed_catalog["mcp_global"],
        }
        async with session_factory() as session:
            for space, expected in (("alpha", expected_alpha), ("beta", expected_beta)):
                page = await repository.list_tools(session, spaces[space], PageRequest(first=100))
                ids = [tool.tool_id for tool in page.items]
                assert set(ids) == expected
                assert ids == sorted(ids)
                assert not page.has_next_page
                assert await repository.count_tools(session, spaces[space]) == len(expected)

    async def test_list_with_include_inactive_adds_inactive_tools_in_reach(
        self, session_factory: SessionFactory, spaces: dict[str, str], mixed_catalog: dict[str, str]
    ) -> None:
        async with session_factory() as session:
            page = await repository.list_tools(session, spaces["beta"], PageRequest(first=100), include_inactive=True)
        ids = {tool.tool_id for tool in page.items}
        assert mixed_catalog["disabled_global"] in ids
        assert mixed_catalog["mcp_off_server"] in ids
        assert mixed_catalog["alpha_only"] not in ids
        assert mixed_catalog["mcp_alpha"] not in ids

    async def test_single_tool_check_agrees_with_the_list(
        self, session_factory: SessionFactory, spaces: dict[str, str], mixed_catalog: dict[str, str]
    ) -> None:
        async with session_factory() as session:
            for space_id in spaces.values():
                listed = {
                    tool.tool_id
                    for tool in (await repository.list_tools(session, space_id, PageRequest(first=100))).items
                }
                for tool_id in mixed_catalog.values():
                    assert await repository.is_tool_visible(session, tool_id, space_id) is (tool_id in listed), (
                        tool_id,
                        space_id,
                    )
                assert await repository.visible_tool_ids(
                    session, space_id, list(mixed_catalog.values())
                ) == listed & set(mixed_catalog.values())

    @pytest.mark.parametrize("include_inactive", [False, True])
    async def test_the_row_listing_is_the_orm_listing(
        self,
        session_factory: SessionFactory,
        spaces: dict[str, str],
        mixed_catalog: dict[str, str],
        include_inactive: bool,
    ) -> None:
        """list_tool_page (Core rows for the GraphQL listings): the same tools, page by page, with
        the same values of every ToolRow attribute and the same links, for every space, for admins
        and with filters; the whole count only when asked, and still on an empty page."""
        names = [column.name for column in repository.TOOL_ROW_COLUMNS]
        assert "auth_config" not in names  # the secret is never read for a listing
        filters = [
            None,
            repository.ToolFilter(type="MCP"),
            repository.ToolFilter(is_global=True),
            repository.ToolFilter(search="alpha"),
        ]
        async with session_factory() as session:
            for space_id in [None, SYSTEM_SPACE_ID, *spaces.values()]:
                for tool_filter in filters:
                    after = None
                    while True:
                        request = PageRequest(first=2, after=after)
                        orm = await repository.list_tools(
                            session, space_id, request, tool_filter, include_inactive=include_inactive
                        )
                        untotalled = await repository.list_tool_page(
                            session, space_id, request, tool_filter, include_inactive=include_inactive
                        )
                        assert untotalled.total is None
                        assert [[getattr(row, name) for name in names] for row in untotalled.rows.items] == [
                            [getattr(tool, name) for name in names] for tool in orm.items
                        ], (space_id, tool_filter)
                        await assert_the_page_is_the_orm_page(
                            session, space_id, request, tool_filter, include_inactive, orm
                        )
                        if not orm.has_next_page:
                            break
                        after = orm.items[-1].tool_id
                    # After the last tool: an empty page, still with the whole count.
                    empty = await repository.list_tool_page(
                        session,
                        space_id,
                        PageRequest(first=2, after="~"),
                        tool_filter,
                        include_inactive=include_inactive,
                        with_total=True,
                    )
                    assert empty.rows.items == []
                    assert empty.total == await repository.count_tools(
                        session, space_id, tool_filter, include_inactive=include_inactive
                    )


class TestSqlShape:
    @pytest.mark.parametrize("url", ["sqlite+aiosqlite://", "postgresql+asyncpg://"], ids=["sqlite", "postgresql"])
    @pytest.mark.parametrize("include_inactive", [False, True])
    def test_rule_is_written_with_exists_not_not_in(self, url: str, include_inactive: bool) -> None:
        dialect = make_url(url).get_dialect()()
        expression = tool_visible_in_space("sp_x", include_inactive=include_inactive)
        sql = str(select(ToolDefinition.tool_id).where(expression).compile(dialect=dialect)).upper()

        assert "NOT IN" not in sql
        assert "NOT EXISTS" in sql or "NOT (EXISTS" in sql
        assert "TOOL_SPACE_BINDING" in sql
        assert "MCP_SERVER_SPACE_BINDING" in sql
        # Each binding table is only probed inside an EXISTS.
        for table in ("TOOL_SPACE_BINDING", "MCP_SERVER_SPACE_BINDING"):
            for occurrence in sql.split(f"FROM {table}")[:-1]:
                assert occurrence.rstrip().endswith(("EXISTS (SELECT *", "EXISTS (SELECT 1")), sql


def exact(value: Any) -> Any:
    """``value`` with what ``==`` overlooks made visible: a bool is not 1, -0.0 is not 0.0, two
    datetimes of the same instant in different zones differ, a tuple is not a list."""
    if isinstance(value, dict):
        return ("dict", [(exact(key), exact(item)) for key, item in value.items()])
    if isinstance(value, list | tuple):
        return (type(value).__name__, [exact(item) for item in value])
    if isinstance(value, datetime):
        return ("datetime", value.isoformat(), repr(value.tzinfo))
    return (type(value).__name__, repr(value))


async def orm_links(session: AsyncSession, tools: Sequence[ToolDefinition]) -> repository.PageLinks:
    """What a page links to, read the ORM's way, one kind at a time."""
    tool_ids = [tool.tool_id for tool in tools]
    server_ids = sorted({tool.mcp_server_id for tool in tools if tool.mcp_server_id is not None})
    bindings = await repository.tool_bindings(session, tool_ids)
    bound = sorted({space_id for spaces in bindings.values() for space_id in spaces})
    return repository.PageLinks(
        tool_spaces=dict(bindings),
        server_spaces=dict(await repository.server_bindings(session, server_ids)),
        spaces={space.id: space for space in await spaces_by_ids(session, bound)},
        servers={server.id: server for server in await repository.servers_by_ids(session, server_ids)},
    )


async def assert_the_page_is_the_orm_page(
    session: AsyncSession,
    space_id: str | None,
    request: PageRequest,
    tool_filter: repository.ToolFilter | None,
    include_inactive: bool,
    orm: Page[ToolDefinition],
) -> None:
    """list_tool_page (one statement: the rows, their JSON and time columns decoded in one pass, the
    bindings with their spaces and the servers' bindings as correlated subqueries) holds exactly the
    values the ORM reads, whatever it is asked to read besides the rows."""
    names = [column.name for column in repository.TOOL_ROW_COLUMNS]
    expected_rows = [[exact(getattr(tool, name)) for name in names] for tool in orm.items]
    links = await orm_links(session, orm.items)
    space_columns = [column.name for column in SPACE_COLUMNS]
    for flags in (
        {},
        {"with_bindings": True},
        {"with_server_bindings": True},
        {"with_bindings": True, "with_spaces": True, "with_server_bindings": True, "with_servers": True},
    ):
        page = await repository.list_tool_page(
            session, space_id, request, tool_filter, include_inactive=include_inactive, with_total=True, **flags
        )
        assert [[exact(getattr(row, name)) for name in names] for row in page.rows.items] == expected_rows, flags
        assert (page.rows.has_next_page, page.rows.has_previous_page) == (orm.has_next_page, orm.has_previous_page)
        assert page.total == await repository.count_tools(
            session, space_id, tool_filter, include_inactive=include_inactive
        )
        if flags.get("with_bindings"):
            assert {tool: spaces for tool, spaces in page.links.tool_spaces.items() if spaces} == links.tool_spaces
        else:
            assert not page.links.tool_spaces
        if flags.get("with_spaces"):
            assert {
                space: [exact(getattr(row, name)) for name in space_columns] for space, row in page.links.spaces.items()
            } == {space: [exact(getattr(row, name)) for name in space_columns] for space, row in links.spaces.items()}
        else:
            assert not page.links.spaces
        if flags.get("with_server_bindings"):
            assert {
                server: spaces for server, spaces in page.links.server_spaces.items() if spaces
            } == links.server_spaces
        else:
            assert not page.links.server_spaces
        assert sorted(page.links.servers) == (sorted(links.servers) if flags.get("with_servers") else [])
    # The servers read are those of the page's MCP tools, each of them.
    assert sorted(links.servers) == sorted({tool.mcp_server_id for tool in orm.items if tool.mcp_server_id})


class TestTheListingReadsOddValuesAsTheOrm:
    async def test_odd_json_times_nulls_and_many_spaces(
        self, session_factory: SessionFactory, spaces: dict[str, str]
    ) -> None:
        """Values the decoding of list_tool_page could get wrong, read page by page as the ORM reads
        them (every attribute, types and zones included): integers beyond 64 bits, floats at the
        edges, escapes and non-ASCII text in strings and keys, a boolean and a bare number as the
        output schema, JSON null and SQL NULL, deep nesting; times without a fraction, given in
        another zone, at a microsecond's edge; a tool and a server bound to 40 spaces."""
        catalog = await odd_catalog(session_factory, spaces["alpha"])
        async with session_factory() as session:
            for space_id in [None, spaces["alpha"], catalog.many_spaces[7]]:
                for first in (1, 3, 100):
                    after = None
                    while True:
                        request = PageRequest(first=first, after=after)
                        orm = await repository.list_tools(session, space_id, request, include_inactive=True)
                        await assert_the_page_is_the_orm_page(session, space_id, request, None, True, orm)
                        if not orm.has_next_page:
                            break
                        after = orm.items[-1].tool_id

    async def test_a_row_whose_text_cannot_be_parsed_is_read_again(
        self, session_factory: SessionFactory, spaces: dict[str, str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A row whose JSON text the one parse cannot take (on SQLite, a number stored as such in a
        JSON column; anywhere, JSON nested to the parser's limit) has its JSON columns, and on SQLite
        its links, read again the ORM's way: the page is the same."""
        catalog = await odd_catalog(session_factory, spaces["alpha"])
        parse = repository._json_arrays
        refused: list[str] = []

        def refusing_every_other_row(rows: Sequence[Any], sqlite: bool) -> list[list[Any] | None]:
            decoded = parse(rows, sqlite)
            for index in range(len(rows) % 2, len(rows), 2):
                refused.append(rows[index][0])
                decoded[index] = None
            return decoded

        monkeypatch.setattr(repository, "_json_arrays", refusing_every_other_row)
        async with session_factory() as session:
            for space_id in [None, spaces["alpha"], catalog.many_spaces[0]]:
                request = PageRequest(first=100)
                orm = await repository.list_tools(session, space_id, request, include_inactive=True)
                await assert_the_page_is_the_orm_page(session, space_id, request, None, True, orm)
        assert len(set(refused)) > len(catalog.tools) // 2
