"""Named operations and small helpers shared by the tools API tests."""

from __future__ import annotations

from typing import Any

from tests.conftest import GraphQLClient

TOOL_FIELDS = """
fragment ToolFields on Tool {
  id name label description inputSchema outputSchema type status endpoint authType
  sideEffect timeoutMs maxRetries tags group allowedRoles version owner
  createdAt updatedAt driftedAt isGlobal
  boundSpaces { id }
  mcpServer {
    id name url command transport status authType lastSyncedAt lastError createdAt
    isGlobal boundSpaces { id }
  }
  stats { calls failures failuresByCode p50LatencyMs p95LatencyMs lastCalledAt }
}
"""

CREATE_TOOL = (
    """
mutation CreateTool($input: CreateToolInput!) {
  createTool(input: $input) { tool { ...ToolFields } userErrors { field code message } }
}
"""
    + TOOL_FIELDS
)

UPDATE_TOOL = (
    """
mutation UpdateTool($input: UpdateToolInput!) {
  updateTool(input: $input) { tool { ...ToolFields } userErrors { field code message } }
}
"""
    + TOOL_FIELDS
)

SET_SPACE_BINDINGS = (
    """
mutation SetSpaceBindings($input: SetBindingsInput!) {
  setSpaceBindings(input: $input) {
    tool { ...ToolFields }
    mcpServer { id isGlobal boundSpaces { id } }
    userErrors { field code message }
  }
}
"""
    + TOOL_FIELDS
)

REGISTER_MCP_SERVER = """
mutation RegisterMcpServer($input: RegisterMcpServerInput!) {
  registerMcpServer(input: $input) {
    mcpServer {
      id name url command transport status authType isGlobal boundSpaces { id }
      tools { totalCount }
    }
    userErrors { field code message }
  }
}
"""

SET_STATUS = """
mutation SetStatus($input: SetStatusInput!) {
  setStatus(input: $input) { node { id ... on Tool { status } } userErrors { field code message } }
}
"""

GET_TOOL = (
    """
query GetTool($id: ID!) { tool(id: $id) { ...ToolFields } }
"""
    + TOOL_FIELDS
)

VISIBLE_TOOL_IDS = """
query VisibleToolIds($spaceId: ID!, $includeInactive: Boolean, $filter: ToolFilter) {
  space(id: $spaceId) {
    visibleTools(first: 100, includeInactive: $includeInactive, filter: $filter) {
      totalCount
      edges { node { id } }
    }
  }
}
"""


def tool_input(name: str, **overrides: Any) -> dict[str, Any]:
    """A valid CreateToolInput; override any field."""
    return {
        "name": name,
        "label": name.replace("_", " ").title(),
        "description": f"Does {name}.",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
        "endpoint": f"https://tools.example.test/{name}",
        **overrides,
    }


async def create_tool(gql: GraphQLClient, name: str, **overrides: Any) -> dict[str, Any]:
    """Create a tool that must succeed; returns the tool."""
    payload = (await gql.execute(CREATE_TOOL, {"input": tool_input(name, **overrides)}))["createTool"]
    assert payload["userErrors"] == [], payload["userErrors"]
    tool: dict[str, Any] = payload["tool"]
    return tool


async def create_tool_errors(gql: GraphQLClient, name: str, **overrides: Any) -> list[dict[str, Any]]:
    """Create a tool that must fail; returns its userErrors."""
    payload = (await gql.execute(CREATE_TOOL, {"input": tool_input(name, **overrides)}))["createTool"]
    assert payload["tool"] is None
    errors: list[dict[str, Any]] = payload["userErrors"]
    assert errors
    return errors


async def visible_tool_ids(
    gql: GraphQLClient,
    space_id: str,
    *,
    include_inactive: bool | None = None,
    tool_filter: dict[str, Any] | None = None,
) -> list[str]:
    variables: dict[str, Any] = {"spaceId": space_id}
    if include_inactive is not None:
        variables["includeInactive"] = include_inactive
    if tool_filter is not None:
        variables["filter"] = tool_filter
    space = (await gql.execute(VISIBLE_TOOL_IDS, variables))["space"]
    assert space is not None
    connection = space["visibleTools"]
    ids = [edge["node"]["id"] for edge in connection["edges"]]
    assert connection["totalCount"] == len(ids)
    return ids


async def get_tool(gql: GraphQLClient, tool_id: str) -> dict[str, Any] | None:
    tool: dict[str, Any] | None = (await gql.execute(GET_TOOL, {"id": tool_id}))["tool"]
    return tool


async def set_bindings(gql: GraphQLClient, target_id: str, space_ids: list[str]) -> dict[str, Any]:
    payload: dict[str, Any] = (
        await gql.execute(SET_SPACE_BINDINGS, {"input": {"id": target_id, "spaceIds": space_ids}})
    )["setSpaceBindings"]
    return payload
