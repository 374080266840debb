"""Odd and hostile selections of the listings (tools, visibleTools, McpServer.tools, spaces, node)
through Quiver's executor (schema/execution.py: compiled selections) answer exactly what
graphql-core's own execution answers: aliases, repeated fields, directives with variables,
fragments on interfaces, ``__typename`` at every level, introspection beside a listing, and
pagination at its edges (first 0, negative, huge; cursors that are not ours)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.principal import Role
from tests.conftest import Keys
from tests.schema.tools.conftest import SessionFactory, mixed_catalog

NODE = "__typename id name type status tags isGlobal"
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "alias-named-like-another-field": (
        "{ tools(first: 5) { edges { node { name: id id: name type: status status: type } } } }",
        {},
    ),
    "one-field-under-two-aliases": (
        "{ tools(first: 5) { edges { node { a: name b: name name c: tags tags } } } }",
        {},
    ),
    "a-field-twice-merged": (
        "{ tools(first: 5) { edges { node { id id boundSpaces { id } boundSpaces { name } } } } }",
        {},
    ),
    "skip-and-include-with-variables": (
        "query($yes: Boolean!, $no: Boolean!) { tools(first: 5) { totalCount @skip(if: $yes) edges { "
        "cursor @include(if: $no) node { id name @skip(if: $no) tags @include(if: $yes) "
        "mcpServer @include(if: $yes) { name } } } } }",
        {"yes": True, "no": False},
    ),
    "skip-and-include-the-other-way": (
        "query($yes: Boolean!, $no: Boolean!) { tools(first: 5) { totalCount @skip(if: $yes) edges { "
        "cursor @include(if: $no) node { id name @skip(if: $no) tags @include(if: $yes) } } } }",
        {"yes": False, "no": True},
    ),
    "inline-fragments": (
        "{ tools(first: 5) { edges { node { ... on Tool { id } ... on Node { __typename id } "
        "... { name } ...@include(if: true) { type } } } } }",
        {},
    ),
    "named-fragments-nested": (
        "{ tools(first: 5) { ...Page } } fragment Page on ToolConnection { totalCount edges { node { ...T } } } "
        "fragment T on Tool { id ...S mcpServer { ...Srv } } fragment S on Tool { name tags } "
        "fragment Srv on McpServer { __typename name tools(first: 2) { edges { node { ...S } } } }",
        {},
    ),
    "typename-everywhere": (
        "{ __typename tools(first: 5) { __typename pageInfo { __typename hasNextPage } edges { __typename "
        "node { __typename boundSpaces { __typename id } mcpServer { __typename } } } } }",
        {},
    ),
    "introspection-beside": (
        '{ __schema { queryType { name } } __type(name: "Tool") { name kind } '
        "tools(first: 3) { edges { node { __typename id } } } }",
        {},
    ),
    "first-0": ("{ tools(first: 0) { totalCount edges { node { id } } pageInfo { hasNextPage } } }", {}),
    "first-negative": ("{ tools(first: -1) { totalCount edges { node { id } } } }", {}),
    "first-huge": ("{ tools(first: 2147483647) { edges { node { id } } } }", {}),
    "first-too-big-for-int": ("{ tools(first: 99999999999) { edges { node { id } } } }", {}),
    "first-a-string-variable": ("query($n: Int) { tools(first: $n) { edges { node { id } } } }", {"n": "3"}),
    "first-null": ("query($n: Int) { tools(first: $n) { edges { node { id } } } }", {"n": None}),
    "a-cursor-not-ours": ('{ tools(first: 3, after: "garbage") { edges { node { id } } } }', {}),
    "an-empty-cursor": ('{ tools(first: 3, after: "") { edges { node { id } } } }', {}),
    "a-base64-cursor-not-ours": (
        '{ tools(first: 3, after: "YXJyYXljb25uZWN0aW9uOjA=") { edges { node { id } } } }',
        {},
    ),
    "a-cursor-10k-long": (
        "query($c: String) { tools(first: 3, after: $c) { edges { node { id } } } }",
        {"c": "A" * 10_000},
    ),
    "visible-tools-of-every-space": (
        "{ spaces(first: 10) { edges { node { __typename id name visibleTools(first: 3) { totalCount edges { "
        "cursor node { " + NODE + " } } } a: visibleTools(first: 0) { totalCount } "
        "b: visibleTools(first: 2, includeInactive: true) { edges { node { id id name } } } } } } }",
        {},
    ),
    "mcp-server-tools": (
        "{ mcpServers(first: 5) { edges { node { __typename name tools(first: 5) { edges { node { "
        + NODE
        + " mcpServer { name } } } } again: tools(first: 1) { totalCount } } } } }",
        {},
    ),
    "node-on-an-interface": (
        "query($id: ID!) { node(id: $id) { __typename id ... on Tool { name tags } ... on Space { name } } }",
        {"id": "bt_calculator"},
    ),
    "an-unknown-node": ("query($id: ID!) { node(id: $id) { __typename id } }", {"id": "ct_" + "x" * 10_000}),
    "spaces-pages": ('{ spaces(first: 1, after: "bad") { edges { node { id } } } }', {}),
}


async def post(client: httpx.AsyncClient, key: str, query: str, variables: dict[str, Any]) -> tuple[int, Any]:
    response = await client.post(
        "/graphql", json={"query": query, "variables": variables}, headers={"Authorization": f"Bearer {key}"}
    )
    return response.status_code, response.json()


@pytest.mark.parametrize("case", list(CASES))
async def test_the_same_answer_as_graphql_core(
    session_factory: SessionFactory,
    keys: Keys,
    fast_client: httpx.AsyncClient,
    plain_client: httpx.AsyncClient,
    case: str,
) -> None:
    spaces = await mixed_catalog(session_factory)
    query, variables = CASES[case]
    for key in (await keys.admin(), await keys.for_space(spaces["alpha"], Role.MEMBER)):
        fast = await post(fast_client, key, query, variables)
        plain = await post(plain_client, key, query, variables)

        assert fast[0] < 500, fast
        assert fast == plain


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("first-negative", "INVALID_ARGUMENT"),
        ("a-cursor-not-ours", "INVALID_CURSOR"),
        ("a-base64-cursor-not-ours", "INVALID_CURSOR"),
        ("a-cursor-10k-long", "INVALID_CURSOR"),
        ("spaces-pages", "INVALID_CURSOR"),
        ("an-unknown-node", "TOO_LONG"),
    ],
)
async def test_bad_page_arguments_are_client_errors_with_a_code(
    fast_client: httpx.AsyncClient, admin_key: str, case: str, code: str
) -> None:
    status, body = await post(fast_client, admin_key, *CASES[case])

    assert status == 200
    assert [error["extensions"]["code"] for error in body["errors"]] == [code]


async def test_first_0_is_an_empty_page_that_still_counts(fast_client: httpx.AsyncClient, admin_key: str) -> None:
    status, body = await post(fast_client, admin_key, *CASES["first-0"])

    page = body["data"]["tools"]
    assert (status, page["edges"], page["pageInfo"]["hasNextPage"]) == (200, [], True)
    assert page["totalCount"] > 0
