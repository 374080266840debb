"""N+1 guard: listing 1, 10 or 100 tools with their bindings and servers costs the same
number of SQL statements (Saleor's count_queries)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from sqlalchemy import delete, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.principal import Role
from app.tools.models import McpServer, McpServerSpaceBinding, ToolDefinition, ToolSpaceBinding
from tests.app.tools.factories import (
    custom_tool_row,
    insert_rows,
    mcp_server_row,
    mcp_tool_row,
    space_row,
)
from tests.conftest import GraphQLClient, Keys, StatementCounter

SessionFactory = async_sessionmaker[AsyncSession]

SPACE_TOOLS = """
query SpaceTools($spaceId: ID!, $first: Int!) {
  space(id: $spaceId) {
    visibleTools(first: $first) {
      totalCount
      edges { node { id name isGlobal boundSpaces { id } mcpServer { id } } }
    }
  }
}
"""

WARM_UP = "query WarmUp { viewer { roles } }"


async def reseed(session_factory: SessionFactory, space_id: str, other_space_id: str, count: int) -> None:
    """Exactly ``count`` ACTIVE tools visible in ``space_id``: every second one custom
    (alternately bound and global), the rest MCP tools of a bound and a global server."""
    async with session_factory() as session, session.begin():
        await session.execute(delete(ToolSpaceBinding))
        await session.execute(delete(McpServerSpaceBinding))
        await session.execute(delete(ToolDefinition).where(ToolDefinition.type != "BUILTIN"))
        await session.execute(delete(McpServer))
        # Builtins are global and sort first (bt_…); keep them off the page.
        await session.execute(update(ToolDefinition).values(status="DISABLED"))

    bound_server, global_server = mcp_server_row(), mcp_server_row()
    custom_count = (count + 1) // 2
    custom = [custom_tool_row(f"custom_{number:03d}") for number in range(custom_count)]
    mcp = [
        mcp_tool_row((bound_server if number % 2 == 0 else global_server)["id"], f"mcp_{number:03d}")
        for number in range(count - custom_count)
    ]
    tool_bindings: list[tuple[str, str]] = []
    for number, row in enumerate(custom):
        if number % 2 == 0:
            tool_bindings.append((row["tool_id"], space_id))
            if number % 4 == 0:
                tool_bindings.append((row["tool_id"], other_space_id))
    # A tool bound only elsewhere and a server bound only elsewhere: present, not visible.
    hidden_server = mcp_server_row()
    hidden_tool = custom_tool_row("elsewhere")
    await insert_rows(
        session_factory,
        servers=[bound_server, global_server, hidden_server],
        tools=[*custom, *mcp, hidden_tool, mcp_tool_row(hidden_server["id"], "elsewhere")],
        tool_bindings=[*tool_bindings, (hidden_tool["tool_id"], other_space_id)],
        server_bindings=[
            (bound_server["id"], space_id),
            (bound_server["id"], other_space_id),
            (hidden_server["id"], other_space_id),
        ],
    )


def shape(statement: str) -> str:
    """A statement with its bound values and IN-list length abstracted away."""
    normalized = re.sub(r"\$\d+(?:::\w+)?", "?", statement)
    normalized = re.sub(r"%\(\w+\)s", "?", normalized)
    normalized = re.sub(r"\(\s*\?(?:\s*,\s*\?)*\s*\)", "(?…)", normalized)
    return " ".join(normalized.split())


async def measure(
    client: GraphQLClient, counter: StatementCounter, space_id: str, count: int
) -> tuple[list[str], dict[str, Any]]:
    """Statements run by one SpaceTools request, after a warm-up that caches the key."""
    await client.execute(WARM_UP)
    start = len(counter.statements)
    data = await client.execute(SPACE_TOOLS, {"spaceId": space_id, "first": count})
    return counter.statements[start:], data["space"]["visibleTools"]


def check_page(page: dict[str, Any], count: int, space_id: str) -> None:
    """The page holds exactly the seeded tools and exercises every loader (count >= 2)."""
    assert page["totalCount"] == count
    nodes = [edge["node"] for edge in page["edges"]]
    assert len(nodes) == count
    if count < 2:
        return
    custom = [node for node in nodes if node["mcpServer"] is None]
    mcp = [node for node in nodes if node["mcpServer"] is not None]
    assert any(space_id in {space["id"] for space in node["boundSpaces"]} for node in custom)
    assert mcp
    if count >= 4:
        assert any(node["isGlobal"] for node in custom)
        assert {node["isGlobal"] for node in mcp} == {True, False}


@pytest.fixture
async def spaces(session_factory: SessionFactory) -> tuple[str, str]:
    rows = [space_row("measured"), space_row("elsewhere")]
    await insert_rows(session_factory, spaces=rows)
    return rows[0]["id"], rows[1]["id"]


class TestVisibleToolsStatementCount:
    @pytest.mark.parametrize("role", [Role.ADMIN, Role.MEMBER])
    async def test_same_statement_count_for_2_10_and_100_tools(
        self,
        gql: GraphQLClient,
        keys: Keys,
        session_factory: SessionFactory,
        count_queries: StatementCounter,
        spaces: tuple[str, str],
        role: Role,
    ) -> None:
        space_id, other_space_id = spaces
        client = gql if role is Role.ADMIN else gql.as_key(await keys.for_space(space_id, role))

        shapes: dict[int, Counter[str]] = {}
        for count in (2, 10, 100):
            await reseed(session_factory, space_id, other_space_id, count)
            statements, page = await measure(client, count_queries, space_id, count)
            check_page(page, count, space_id)
            shapes[count] = Counter(shape(statement) for statement in statements)

        totals = {count: sum(found.values()) for count, found in shapes.items()}
        assert len(set(totals.values())) == 1, totals
        assert shapes[2] == shapes[10] == shapes[100]
        # One statement per loader and per connection field, never one per tool.
        assert all(occurrences == 1 for occurrences in shapes[100].values()), shapes[100]

    async def test_one_tool_costs_no_more_than_a_hundred(
        self,
        gql: GraphQLClient,
        session_factory: SessionFactory,
        count_queries: StatementCounter,
        spaces: tuple[str, str],
    ) -> None:
        space_id, other_space_id = spaces
        totals: dict[int, int] = {}
        for count in (1, 10, 100):
            await reseed(session_factory, space_id, other_space_id, count)
            statements, page = await measure(gql, count_queries, space_id, count)
            check_page(page, count, space_id)
            totals[count] = len(statements)

        # A page of one tool holds one kind only, so fewer loaders may fire; never more.
        assert totals[1] <= totals[10] == totals[100], totals

    async def test_each_loader_batches_the_whole_page(
        self,
        gql: GraphQLClient,
        session_factory: SessionFactory,
        count_queries: StatementCounter,
        spaces: tuple[str, str],
    ) -> None:
        space_id, other_space_id = spaces
        await reseed(session_factory, space_id, other_space_id, 100)

        statements, _ = await measure(gql, count_queries, space_id, 100)

        def reading(table: str) -> list[str]:
            return [
                statement
                for statement in statements
                if re.search(rf"\bFROM {table}\b", statement) and "tool_definition" not in statement
            ]

        pages = [statement for statement in statements if re.search(r"\bFROM tool_definition\b", statement)]
        assert len(pages) == 1
        assert reading("tool_space_binding") == []
        assert reading("mcp_server_space_binding") == []
        assert re.search(r"\bFROM mcp_server_space_binding\b", pages[0])
        async with session_factory() as session:
            sqlite = session.get_bind().dialect.name == "sqlite"
        if sqlite:
            # The nodes are written by SQLite (schema.tools.rendering): the page's own statement
            # reads each tool's bindings with their spaces, its server and the server's bindings.
            assert re.search(r"\bFROM tool_space_binding AS \w+ JOIN space AS \w+\b", pages[0])
            assert re.search(r"\bFROM mcp_server AS \w+\b", pages[0])
            assert reading("mcp_server") == []
        else:
            # The page's own statement reads each tool's bindings with their spaces and its server's
            # bindings (correlated subqueries); the page's servers take one statement.
            assert re.search(r"\bFROM tool_space_binding JOIN space\b", pages[0])
            assert len(reading("mcp_server")) == 1
        assert len(reading("space")) == 1  # space(id) itself
