"""A full tool listing through Quiver's executor (schema/execution.py: compiled selections, page
fields computed ahead) answers exactly what graphql-core's own execution answers, every field of
``Tool`` included, for admins and space keys, page after page, on every backend."""

from __future__ import annotations

from typing import Any
from unittest import mock

import httpx

from app.principal import Role
from schema import execution
from tests.conftest import Keys
from tests.schema.tools.conftest import SessionFactory, mixed_catalog

SPACE_FIELDS = "__typename id name label isSystem createdAt"
SERVER_FIELDS = (
    "__typename id name url command transport status authType lastSyncedAt lastError createdAt isGlobal "
    "boundSpaces { " + SPACE_FIELDS + " }"
)
TOOL_FIELDS = (
    "__typename id name label description inputSchema outputSchema type status endpoint authType sideEffect "
    "timeoutMs maxRetries tags group allowedRoles version owner createdAt updatedAt driftedAt requestMapping "
    "approval viewerCanManage isGlobal boundSpaces { " + SPACE_FIELDS + " } mcpServer { " + SERVER_FIELDS + " }"
)
#: Every field of Tool, ``stats`` aside (it reads the call log and has an argument: never compiled).
LISTING = (
    "query Listing($first: Int!, $after: String, $filter: ToolFilter) { tools(first: $first, after: $after, "
    "filter: $filter) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } "
    "edges { cursor node { " + TOOL_FIELDS + " } } } }"
)
COMPILED_LISTING = LISTING.replace("isGlobal boundSpaces { " + SPACE_FIELDS + " } }", "}")
WITH_STATS = LISTING.replace("approval viewerCanManage", "approval stats { calls failures } viewerCanManage")
ALIASED = (
    "query Aliased($first: Int!) { tools(first: $first) { edges { node { "
    "ident: id id kind: type spaces: boundSpaces { id } again: boundSpaces { name } server: mcpServer { name } "
    "...more } } } } fragment more on Tool { label tags isGlobal }"
)


async def listing(client: httpx.AsyncClient, key: str, query: str, variables: dict[str, Any]) -> list[Any]:
    """Every page of ``query`` (the whole body of each), following the cursor."""
    bodies = []
    after = None
    while True:
        response = await client.post(
            "/graphql",
            json={"query": query, "variables": {**variables, "after": after}},
            headers={"Authorization": f"Bearer {key}"},
        )
        assert response.status_code == 200, response.text
        body = response.json()
        bodies.append(body)
        page = (body.get("data") or {}).get("tools")
        if page is None or "pageInfo" not in page or not page["pageInfo"]["hasNextPage"]:
            return bodies
        after = page["pageInfo"]["endCursor"]


async def test_every_field_answers_as_graphql_core_for_every_viewer(
    session_factory: SessionFactory,
    keys: Keys,
    fast_client: httpx.AsyncClient,
    plain_client: httpx.AsyncClient,
) -> None:
    spaces = await mixed_catalog(session_factory)
    viewers = {"admin": await keys.admin()}
    for name, space_id in spaces.items():
        viewers[f"{name} member"] = await keys.for_space(space_id, Role.MEMBER)
    viewers["alpha space admin"] = await keys.for_space(spaces["alpha"], Role.SPACE_ADMIN)
    filters: list[dict[str, Any] | None] = [None, {"type": "MCP"}, {"isGlobal": False}, {"search": "full"}]
    listed_kinds: set[tuple[str, bool, bool]] = set()
    for viewer, key in viewers.items():
        for first in (1, 3, 20):
            for tool_filter in filters:
                variables = {"first": first, "filter": tool_filter}
                fast = await listing(fast_client, key, LISTING, variables)
                plain = await listing(plain_client, key, LISTING, variables)
                assert fast == plain, (viewer, first, tool_filter)
                for body in fast:
                    assert "errors" not in body, body
                    for edge in body["data"]["tools"]["edges"]:
                        node = edge["node"]
                        listed_kinds.add((node["type"], node["isGlobal"], node["mcpServer"] is None))
        for query in (WITH_STATS, ALIASED):
            variables = {"first": 3, "filter": None}
            assert await listing(fast_client, key, query, variables) == await listing(
                plain_client, key, query, variables
            ), (viewer, query)
    # Builtin, custom global and bound, MCP tools of a bound server and of a global one.
    assert {
        ("BUILTIN", True, True),
        ("CUSTOM", True, True),
        ("CUSTOM", False, True),
        ("MCP", False, False),
        ("MCP", True, False),
    } <= listed_kinds


async def test_the_listing_takes_the_compiled_path(
    session_factory: SessionFactory, keys: Keys, fast_client: httpx.AsyncClient
) -> None:
    """Every node of a page is completed by its compiled selection: no field of a Tool, of its
    spaces or of its server goes through graphql-core's per-field execution (the server's own
    resolver fields, ``isGlobal`` and ``boundSpaces``, are left out: they are not computed ahead)."""
    await mixed_catalog(session_factory)
    admin = await keys.admin()
    executed: list[str] = []
    original = execution.FastExecutionContext.execute_field

    def counting(self: Any, parent_type: Any, *args: Any, **kwargs: Any) -> Any:
        executed.append(parent_type.name)
        return original(self, parent_type, *args, **kwargs)

    with mock.patch.object(execution.FastExecutionContext, "execute_field", counting):
        bodies = await listing(fast_client, admin, COMPILED_LISTING, {"first": 20, "filter": None})
    assert len(bodies[0]["data"]["tools"]["edges"]) == 12  # 4 builtins, 8 more
    assert {"Tool", "Space", "McpServer", "ToolEdge"}.isdisjoint(executed), executed
