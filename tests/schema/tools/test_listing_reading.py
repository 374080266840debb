"""A listing's page is read in one statement whose values Quiver decodes itself
(``app.tools.repository.list_tool_page``: JSON and time columns, the bindings with their spaces,
the servers' bindings). Each node of a listing answers exactly what ``tool(id:)`` answers for the
same tool, which reads it through the ORM and the per-request DataLoaders, every field included,
for odd values and for every kind of viewer; a space's key sees only its own spaces."""

from __future__ import annotations

from typing import Any

import httpx

from app.principal import Role
from tests.app.tools.factories import insert_rows, odd_catalog, space_row
from tests.conftest import Keys
from tests.schema.tools.conftest import SessionFactory, odd_catalog_viewers
from tests.schema.tools.test_listing_fast_path import LISTING, TOOL_FIELDS, listing

ONE_TOOL = "query One($id: ID!) { tool(id: $id) { " + TOOL_FIELDS + " } }"


async def nodes_of_the_listing(client: httpx.AsyncClient, key: str, first: int) -> list[dict[str, Any]]:
    bodies = await listing(client, key, LISTING, {"first": first, "filter": None})
    nodes: list[dict[str, Any]] = []
    for body in bodies:
        assert "errors" not in body, body
        nodes.extend(edge["node"] for edge in body["data"]["tools"]["edges"])
    return nodes


async def the_tool(client: httpx.AsyncClient, key: str, tool_id: str) -> Any:
    response = await client.post(
        "/graphql",
        json={"query": ONE_TOOL, "variables": {"id": tool_id}},
        headers={"Authorization": f"Bearer {key}"},
    )
    body = response.json()
    assert response.status_code == 200 and "errors" not in body, body
    return body["data"]["tool"]


async def test_each_node_answers_as_the_tool_query(
    session_factory: SessionFactory, keys: Keys, fast_client: httpx.AsyncClient
) -> None:
    catalog, viewers = await odd_catalog_viewers(session_factory, keys)
    for viewer, key in viewers.items():
        for first in (1, 7, 20):
            nodes = await nodes_of_the_listing(fast_client, key, first)
            assert set(catalog.tools.values()) & {node["id"] for node in nodes}, viewer
            for node in nodes:
                assert node == await the_tool(fast_client, key, node["id"]), (viewer, first, node["id"])


async def test_a_space_key_sees_only_its_own_spaces_of_a_tool_bound_to_many(
    session_factory: SessionFactory, keys: Keys, fast_client: httpx.AsyncClient
) -> None:
    alpha = space_row("alpha")
    await insert_rows(session_factory, spaces=[alpha])
    catalog = await odd_catalog(session_factory, alpha["id"])
    many_spaces, server_tool = catalog.tools["many_spaces"], catalog.tools["server_bound_everywhere"]

    admin = {node["id"]: node for node in await nodes_of_the_listing(fast_client, await keys.admin(), 20)}
    assert [space["id"] for space in admin[many_spaces]["boundSpaces"]] == sorted([*catalog.many_spaces, alpha["id"]])
    assert [space["id"] for space in admin[server_tool]["mcpServer"]["boundSpaces"]] == sorted(catalog.many_spaces)
    assert not admin[many_spaces]["isGlobal"] and not admin[server_tool]["isGlobal"]

    for space_id in (catalog.many_spaces[0], catalog.many_spaces[39], alpha["id"]):
        for role in (Role.MEMBER, Role.SPACE_ADMIN):
            key = await keys.for_space(space_id, role)
            nodes = {node["id"]: node for node in await nodes_of_the_listing(fast_client, key, 3)}
            shown = {space["id"] for node in nodes.values() for space in node["boundSpaces"]}
            shown |= {
                space["id"]
                for node in nodes.values()
                if node["mcpServer"] is not None
                for space in node["mcpServer"]["boundSpaces"]
            }
            assert shown == {space_id}, (space_id, role)
            assert [space["id"] for space in nodes[many_spaces]["boundSpaces"]] == [space_id]
            assert nodes[many_spaces]["isGlobal"] is False
            if space_id != alpha["id"]:
                assert nodes[server_tool]["isGlobal"] is False
                assert nodes[server_tool]["mcpServer"]["boundSpaces"] == [nodes[many_spaces]["boundSpaces"][0]]
            else:  # the server is bound to the 40 only: neither it nor its tool is visible in alpha
                assert server_tool not in nodes
