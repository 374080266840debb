"""Reading tools: space.visibleTools, tools, tool, node, filters and keyset pagination."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.principal import Role
from tests.app.tools.factories import custom_tool_row, insert_rows, mcp_server_row, mcp_tool_row
from tests.conftest import GraphQLClient, Keys
from tests.schema.tools.operations import (
    SET_STATUS,
    create_tool,
    get_tool,
    visible_tool_ids,
)

SessionFactory = async_sessionmaker[AsyncSession]

GLOBAL_BUILTINS = {"bt_calculator", "bt_current_time", "bt_search_knowledge"}

TOOLS = """
query Tools($first: Int, $after: String, $filter: ToolFilter) {
  tools(first: $first, after: $after, filter: $filter) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node { id } }
  }
}
"""

VISIBLE_PAGE = """
query VisiblePage($spaceId: ID!, $first: Int, $after: String, $filter: ToolFilter) {
  space(id: $spaceId) {
    visibleTools(first: $first, after: $after, filter: $filter) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { id } }
    }
  }
}
"""

NODE = """
query Node($id: ID!) {
  node(id: $id) {
    __typename
    id
    ... on Tool { name type }
    ... on McpServer { name transport }
  }
}
"""

# Ten servers a page keeps the nested tools pages within the default query cost limit.
MCP_SERVERS = """
query McpServers {
  mcpServers(first: 10) {
    totalCount
    edges { node { id tools(first: 100) { totalCount edges { node { id } } } } }
  }
}
"""


@dataclass
class Catalog:
    """A mix of global, bound and MCP tools over two spaces."""

    alpha: str
    beta: str
    ids: dict[str, str]
    servers: dict[str, str]

    def of(self, *roles: str) -> set[str]:
        return {self.ids[role] for role in roles}

    @property
    def visible_in_alpha(self) -> set[str]:
        return GLOBAL_BUILTINS | self.of("global", "alpha_only", "both", "mcp_alpha_1", "mcp_alpha_2", "mcp_global")

    @property
    def visible_in_beta(self) -> set[str]:
        return GLOBAL_BUILTINS | self.of("global", "beta_only", "both", "mcp_global", "mcp_beta")


@pytest.fixture
async def catalog(gql: GraphQLClient, keys: Keys, session_factory: SessionFactory) -> Catalog:
    alpha, beta = (await keys.space("alpha")).id, (await keys.space("beta")).id
    created = {
        "global": await create_tool(
            gql,
            "order_lookup",
            label="Order Lookup",
            description="Finds an ORDER by its number.",
            tags=["orders", "search"],
            group="commerce",
        ),
        "alpha_only": await create_tool(
            gql,
            "refund",
            label="Refund payment",
            description="Gives money back.",
            tags=["orders"],
            group="commerce",
            spaceIds=[alpha],
        ),
        "beta_only": await create_tool(
            gql,
            "crm_contact",
            label="Contact",
            description="Reads a CRM contact.",
            tags=["crm", "search"],
            spaceIds=[beta],
        ),
        "both": await create_tool(
            gql,
            "ticket",
            label="Ticket",
            description="Opens a support ticket.",
            tags=["support"],
            group="support",
            spaceIds=[alpha, beta],
        ),
        "disabled": await create_tool(gql, "legacy_export", description="Old export."),
    }
    ids: dict[str, str] = {role: tool["id"] for role, tool in created.items()}
    disabled = await gql.execute(SET_STATUS, {"input": {"id": ids["disabled"], "status": "DISABLED"}})
    assert disabled["setStatus"]["userErrors"] == []

    server_alpha, server_global, server_beta = (
        mcp_server_row("alpha-mcp"),
        mcp_server_row("global-mcp"),
        mcp_server_row("beta-mcp"),
    )
    mcp_tools = {
        "mcp_alpha_1": mcp_tool_row(server_alpha["id"], "wiki_search", description="Search the wiki."),
        "mcp_alpha_2": mcp_tool_row(server_alpha["id"], "wiki_page", description="Read a page."),
        "mcp_global": mcp_tool_row(server_global["id"], "forecast", description="Weather forecast."),
        "mcp_beta": mcp_tool_row(server_beta["id"], "crm_search", description="Search the CRM."),
    }
    await insert_rows(
        session_factory,
        servers=[server_alpha, server_global, server_beta],
        tools=list(mcp_tools.values()),
        server_bindings=[(server_alpha["id"], alpha), (server_beta["id"], beta)],
    )
    ids.update({role: row["tool_id"] for role, row in mcp_tools.items()})
    servers = {"alpha": server_alpha["id"], "global": server_global["id"], "beta": server_beta["id"]}
    return Catalog(alpha=alpha, beta=beta, ids=ids, servers=servers)


class TestVisibleTools:
    async def test_each_space_sees_exactly_its_tools_in_id_order(self, gql: GraphQLClient, catalog: Catalog) -> None:
        assert await visible_tool_ids(gql, catalog.alpha) == sorted(catalog.visible_in_alpha)
        assert await visible_tool_ids(gql, catalog.beta) == sorted(catalog.visible_in_beta)

    async def test_system_space_also_sees_the_restricted_builtin(self, gql: GraphQLClient, catalog: Catalog) -> None:
        assert set(await visible_tool_ids(gql, "sp_system")) == GLOBAL_BUILTINS | {"bt_send_message"} | catalog.of(
            "global", "mcp_global"
        )

    async def test_include_inactive_adds_the_disabled_tool_only(self, gql: GraphQLClient, catalog: Catalog) -> None:
        ids = await visible_tool_ids(gql, catalog.alpha, include_inactive=True)

        assert set(ids) == catalog.visible_in_alpha | catalog.of("disabled")

    async def test_space_key_sees_the_same_list_as_an_admin(
        self, gql: GraphQLClient, keys: Keys, catalog: Catalog
    ) -> None:
        member = gql.as_key(await keys.for_space(catalog.alpha, Role.MEMBER))

        assert await visible_tool_ids(member, catalog.alpha) == sorted(catalog.visible_in_alpha)

    async def test_space_key_cannot_read_another_space(self, gql: GraphQLClient, keys: Keys, catalog: Catalog) -> None:
        member = gql.as_key(await keys.for_space(catalog.alpha, Role.MEMBER))

        data = await member.execute("query Space($id: ID!) { space(id: $id) { id } }", {"id": catalog.beta})

        assert data == {"space": None}


class TestToolsForSpaceKeys:
    @pytest.mark.parametrize("role", ["beta_only", "mcp_beta"])
    async def test_tool_bound_elsewhere_looks_absent(
        self, gql: GraphQLClient, keys: Keys, catalog: Catalog, role: str
    ) -> None:
        member = gql.as_key(await keys.for_space(catalog.alpha, Role.MEMBER))
        query = "query Tool($id: ID!) { tool(id: $id) { id name } }"

        hidden = await member.raw(query, {"id": catalog.ids[role]})
        absent = await member.raw(query, {"id": catalog.ids[role] + "x"})

        assert hidden.status_code == absent.status_code == 200
        assert hidden.json() == absent.json() == {"data": {"tool": None}}
        assert await get_tool(gql, catalog.ids[role]) is not None

    async def test_tool_visible_in_its_space_is_readable(
        self, gql: GraphQLClient, keys: Keys, catalog: Catalog
    ) -> None:
        member = gql.as_key(await keys.for_space(catalog.alpha, Role.VIEWER))

        for role in ("global", "alpha_only", "both", "mcp_alpha_1", "disabled"):
            tool = await get_tool(member, catalog.ids[role])
            assert tool is not None and tool["id"] == catalog.ids[role]

    async def test_bound_spaces_show_only_the_spaces_the_key_can_read(
        self, gql: GraphQLClient, keys: Keys, catalog: Catalog
    ) -> None:
        member = gql.as_key(await keys.for_space(catalog.alpha, Role.MEMBER))

        tool = await get_tool(member, catalog.ids["both"])

        assert tool is not None
        assert [space["id"] for space in tool["boundSpaces"]] == [catalog.alpha]
        assert tool["isGlobal"] is False

    async def test_tools_lists_only_tools_visible_in_its_space(
        self, gql: GraphQLClient, keys: Keys, catalog: Catalog
    ) -> None:
        member = gql.as_key(await keys.for_space(catalog.alpha, Role.MEMBER))

        data = await member.execute(TOOLS, {"first": 100})

        listed = {edge["node"]["id"] for edge in data["tools"]["edges"]}
        assert listed == catalog.visible_in_alpha | catalog.of("disabled")
        assert data["tools"]["totalCount"] == len(listed)

    async def test_admin_tools_lists_every_tool(self, gql: GraphQLClient, catalog: Catalog) -> None:
        data = await gql.execute(TOOLS, {"first": 100})

        listed = {edge["node"]["id"] for edge in data["tools"]["edges"]}
        assert listed == GLOBAL_BUILTINS | {"bt_send_message"} | set(catalog.ids.values())

    async def test_mcp_servers_lists_global_and_own_servers_only(
        self, gql: GraphQLClient, keys: Keys, catalog: Catalog
    ) -> None:
        member = gql.as_key(await keys.for_space(catalog.alpha, Role.MEMBER))

        data = await member.execute(MCP_SERVERS)

        servers = {edge["node"]["id"]: edge["node"]["tools"] for edge in data["mcpServers"]["edges"]}
        assert set(servers) == {catalog.servers["alpha"], catalog.servers["global"]}
        assert data["mcpServers"]["totalCount"] == 2
        assert {edge["node"]["id"] for edge in servers[catalog.servers["alpha"]]["edges"]} == (
            catalog.of("mcp_alpha_1", "mcp_alpha_2")
        )
        assert servers[catalog.servers["alpha"]]["totalCount"] == 2


class TestToolFilter:
    @pytest.mark.parametrize(
        ("tool_type", "roles"),
        [
            ("CUSTOM", ("global", "alpha_only", "both")),
            ("MCP", ("mcp_alpha_1", "mcp_alpha_2", "mcp_global")),
        ],
    )
    async def test_by_type(self, gql: GraphQLClient, catalog: Catalog, tool_type: str, roles: tuple[str, ...]) -> None:
        ids = await visible_tool_ids(gql, catalog.alpha, tool_filter={"type": tool_type})

        assert set(ids) == catalog.of(*roles)

    async def test_by_type_builtin(self, gql: GraphQLClient, catalog: Catalog) -> None:
        ids = await visible_tool_ids(gql, catalog.alpha, tool_filter={"type": "BUILTIN"})

        assert set(ids) == GLOBAL_BUILTINS

    async def test_by_one_tag(self, gql: GraphQLClient, catalog: Catalog) -> None:
        ids = await visible_tool_ids(gql, catalog.alpha, tool_filter={"tags": ["orders"]})

        assert set(ids) == catalog.of("global", "alpha_only")

    async def test_by_several_tags_requires_all_of_them(self, gql: GraphQLClient, catalog: Catalog) -> None:
        alpha = await visible_tool_ids(gql, catalog.alpha, tool_filter={"tags": ["orders", "search"]})
        beta = await visible_tool_ids(gql, catalog.beta, tool_filter={"tags": ["search", "crm"]})
        nothing = await visible_tool_ids(gql, catalog.alpha, tool_filter={"tags": ["orders", "crm"]})

        assert set(alpha) == catalog.of("global")
        assert set(beta) == catalog.of("beta_only")
        assert nothing == []

    async def test_by_group(self, gql: GraphQLClient, catalog: Catalog) -> None:
        ids = await visible_tool_ids(gql, catalog.alpha, tool_filter={"group": "commerce"})

        assert set(ids) == catalog.of("global", "alpha_only")

    @pytest.mark.parametrize(
        ("term", "roles"),
        [
            ("ORDER_look", ("global",)),  # name, other case
            ("refund PAYMENT", ("alpha_only",)),  # label
            ("money", ("alpha_only",)),  # description
            ("order", ("global",)),  # description in upper case, name in lower case
            ("WIKI", ("mcp_alpha_1", "mcp_alpha_2")),
            ("no such words", ()),
        ],
    )
    async def test_by_search_case_insensitive_on_name_label_and_description(
        self, gql: GraphQLClient, catalog: Catalog, term: str, roles: tuple[str, ...]
    ) -> None:
        ids = await visible_tool_ids(gql, catalog.alpha, tool_filter={"search": term})

        assert set(ids) == catalog.of(*roles)

    @pytest.mark.parametrize("term", ["%", "_"])
    async def test_search_treats_like_wildcards_literally(
        self, gql: GraphQLClient, catalog: Catalog, term: str
    ) -> None:
        ids = await visible_tool_ids(gql, catalog.alpha, tool_filter={"search": term})

        expected = {
            tool_id
            for tool_id in await visible_tool_ids(gql, catalog.alpha)
            if term in _searchable(await get_tool(gql, tool_id))
        }
        assert set(ids) == expected
        assert len(ids) < len(catalog.visible_in_alpha)

    async def test_conditions_combine(self, gql: GraphQLClient, catalog: Catalog) -> None:
        ids = await visible_tool_ids(
            gql, catalog.alpha, tool_filter={"type": "CUSTOM", "tags": ["orders"], "search": "refund"}
        )

        assert set(ids) == catalog.of("alpha_only")

    async def test_by_status(self, gql: GraphQLClient, catalog: Catalog) -> None:
        disabled = await visible_tool_ids(gql, catalog.alpha, include_inactive=True, tool_filter={"status": "DISABLED"})
        active = await visible_tool_ids(gql, catalog.alpha, include_inactive=True, tool_filter={"status": "ACTIVE"})

        assert set(disabled) == catalog.of("disabled")
        assert set(active) == catalog.visible_in_alpha

    async def test_global_or_bound_counting_mcp_servers_bindings(self, gql: GraphQLClient, catalog: Catalog) -> None:
        non_builtin = {"type": "CUSTOM"}, {"type": "MCP"}
        global_ids: set[str] = set()
        bound_ids: set[str] = set()
        for type_filter in non_builtin:
            data = await gql.execute(TOOLS, {"first": 100, "filter": {**type_filter, "isGlobal": True}})
            global_ids |= {edge["node"]["id"] for edge in data["tools"]["edges"]}
            data = await gql.execute(TOOLS, {"first": 100, "filter": {**type_filter, "isGlobal": False}})
            bound_ids |= {edge["node"]["id"] for edge in data["tools"]["edges"]}

        # `tools` lists every status: the disabled CUSTOM tool has no binding, so it is global.
        assert global_ids == catalog.of("global", "disabled", "mcp_global")
        assert bound_ids == catalog.of("alpha_only", "beta_only", "both", "mcp_alpha_1", "mcp_alpha_2", "mcp_beta")

    async def test_filter_applies_to_the_tools_query(self, gql: GraphQLClient, catalog: Catalog) -> None:
        data = await gql.execute(TOOLS, {"first": 100, "filter": {"tags": ["search"]}})

        listed = {edge["node"]["id"] for edge in data["tools"]["edges"]}
        assert listed == catalog.of("global", "beta_only")
        assert data["tools"]["totalCount"] == 2


def _searchable(tool: dict[str, Any] | None) -> str:
    assert tool is not None
    return " ".join((tool["name"], tool["label"], tool["description"]))


async def walk(
    gql: GraphQLClient, space_id: str, first: int, tool_filter: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Every page of space.visibleTools, following endCursor."""
    pages: list[dict[str, Any]] = []
    after: str | None = None
    while True:
        data = await gql.execute(
            VISIBLE_PAGE, {"spaceId": space_id, "first": first, "after": after, "filter": tool_filter}
        )
        page = data["space"]["visibleTools"]
        pages.append(page)
        if not page["pageInfo"]["hasNextPage"]:
            return pages
        after = page["pageInfo"]["endCursor"]
        assert len(pages) < 50, "pagination does not end"


class TestKeysetPagination:
    async def test_walking_two_by_two_gives_every_tool_once(self, gql: GraphQLClient, catalog: Catalog) -> None:
        pages = await walk(gql, catalog.alpha, first=2)

        ids = [edge["node"]["id"] for page in pages for edge in page["edges"]]
        assert ids == sorted(catalog.visible_in_alpha)
        total = len(catalog.visible_in_alpha)
        assert len(pages) == (total + 1) // 2
        for number, page in enumerate(pages):
            assert page["totalCount"] == total
            assert page["pageInfo"]["hasNextPage"] is (number < len(pages) - 1)
            assert page["pageInfo"]["hasPreviousPage"] is (number > 0)
            assert 1 <= len(page["edges"]) <= 2
            assert page["pageInfo"]["startCursor"] == page["edges"][0]["cursor"]
            assert page["pageInfo"]["endCursor"] == page["edges"][-1]["cursor"]

    async def test_walking_a_filtered_list(self, gql: GraphQLClient, catalog: Catalog) -> None:
        pages = await walk(gql, catalog.alpha, first=1, tool_filter={"type": "MCP"})

        ids = [edge["node"]["id"] for page in pages for edge in page["edges"]]
        assert ids == sorted(catalog.of("mcp_alpha_1", "mcp_alpha_2", "mcp_global"))
        assert all(page["totalCount"] == 3 for page in pages)

    async def test_page_size_exactly_the_total_has_no_next_page(self, gql: GraphQLClient, catalog: Catalog) -> None:
        total = len(catalog.visible_in_alpha)

        pages = await walk(gql, catalog.alpha, first=total)

        assert len(pages) == 1
        assert len(pages[0]["edges"]) == total

    async def test_cursors_are_opaque(self, gql: GraphQLClient, catalog: Catalog) -> None:
        pages = await walk(gql, catalog.alpha, first=100)

        for edge in pages[0]["edges"]:
            assert edge["node"]["id"] not in edge["cursor"]

    async def test_tools_query_walks_the_same_way(self, gql: GraphQLClient, catalog: Catalog) -> None:
        seen: list[str] = []
        after = None
        while True:
            data = (await gql.execute(TOOLS, {"first": 3, "after": after}))["tools"]
            seen.extend(edge["node"]["id"] for edge in data["edges"])
            if not data["pageInfo"]["hasNextPage"]:
                break
            after = data["pageInfo"]["endCursor"]

        assert seen == sorted(GLOBAL_BUILTINS | {"bt_send_message"} | set(catalog.ids.values()))

    async def test_first_is_capped_at_one_hundred(
        self, gql: GraphQLClient, keys: Keys, session_factory: SessionFactory
    ) -> None:
        space = await keys.space("crowded")
        rows = [custom_tool_row(f"tool_{number:03d}") for number in range(105)]
        await insert_rows(
            session_factory,
            tools=rows,
            tool_bindings=[(row["tool_id"], space.id) for row in rows],
        )

        data = await gql.execute(
            VISIBLE_PAGE,
            {"spaceId": space.id, "first": 150, "filter": {"type": "CUSTOM"}},
        )

        page = data["space"]["visibleTools"]
        assert len(page["edges"]) == 100
        assert page["pageInfo"]["hasNextPage"] is True
        assert page["totalCount"] == 105

    @pytest.mark.parametrize("cursor", ["not-a-cursor!!", "Zm9vYmFy"], ids=["garbage", "no-prefix"])
    async def test_invalid_cursor_is_a_top_level_client_error(
        self, gql: GraphQLClient, catalog: Catalog, cursor: str
    ) -> None:
        response = await gql.raw(VISIBLE_PAGE, {"spaceId": catalog.alpha, "first": 2, "after": cursor})

        body = response.json()
        assert body["data"] == {"space": None}  # the non-null connection nulls its parent
        assert len(body["errors"]) == 1
        assert "cursor" in body["errors"][0]["message"].lower()
        assert body["errors"][0]["message"] != "internal error"
        assert body["errors"][0]["extensions"]["code"] == "INVALID_CURSOR"


class TestNode:
    async def test_resolves_a_tool(self, gql: GraphQLClient, catalog: Catalog) -> None:
        for role, tool_type in (("global", "CUSTOM"), ("mcp_global", "MCP")):
            data = await gql.execute(NODE, {"id": catalog.ids[role]})
            assert data["node"]["__typename"] == "Tool"
            assert (data["node"]["id"], data["node"]["type"]) == (catalog.ids[role], tool_type)

        builtin = await gql.execute(NODE, {"id": "bt_calculator"})
        assert builtin["node"] == {"__typename": "Tool", "id": "bt_calculator", "name": "calculator", "type": "BUILTIN"}

    async def test_resolves_an_mcp_server(self, gql: GraphQLClient, catalog: Catalog) -> None:
        data = await gql.execute(NODE, {"id": catalog.servers["alpha"]})

        assert data["node"] == {
            "__typename": "McpServer",
            "id": catalog.servers["alpha"],
            "name": "alpha-mcp",
            "transport": "STREAMABLE_HTTP",
        }

    @pytest.mark.parametrize(
        "unknown",
        ["ct_0000000000000000", "bt_nothing", "mcp_0000000000000000", "mcp_0000__nothing", "zz_what", "plain"],
    )
    async def test_unknown_id_is_null(self, gql: GraphQLClient, catalog: Catalog, unknown: str) -> None:
        assert await gql.execute(NODE, {"id": unknown}) == {"node": None}

    @pytest.mark.parametrize("target", ["beta_only", "mcp_beta", "server_beta"])
    async def test_object_outside_the_key_reach_is_null(
        self, gql: GraphQLClient, keys: Keys, catalog: Catalog, target: str
    ) -> None:
        member = gql.as_key(await keys.for_space(catalog.alpha, Role.MEMBER))
        node_id = catalog.servers["beta"] if target == "server_beta" else catalog.ids[target]

        assert await member.execute(NODE, {"id": node_id}) == {"node": None}
        assert (await gql.execute(NODE, {"id": node_id}))["node"] is not None
