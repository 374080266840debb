"""MCP through the API, like a client: registerMcpServer → syncMcpServer → invokeTool,
with the third-party `mcp-server-time` over STDIO."""

from __future__ import annotations

from tests.conftest import GraphQLClient, Keys
from tests.support.mcp import TIME_SERVER_COMMAND

REGISTER = """
mutation Register($input: RegisterMcpServerInput!) {
  registerMcpServer(input: $input) { mcpServer { id } userErrors { field code message } }
}
"""
SYNC = """
mutation Sync($id: ID!) {
  syncMcpServer(id: $id) {
    mcpServer { id lastSyncedAt lastError tools { totalCount edges { node { id name type sideEffect status } } } }
    userErrors { field code message }
  }
}
"""
INVOKE = """
mutation Invoke($input: InvokeToolInput!) {
  invokeTool(input: $input) { status data error { code message } call { toolId attempts tool { type } } }
}
"""
STATUS = """
mutation Status($input: SetStatusInput!) { setStatus(input: $input) { userErrors { code } } }
"""


class TestMcpServerThroughGraphQL:
    async def test_sync_discovers_tools_and_invoke_tool_calls_them(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")
        registered = await gql.execute(
            REGISTER, {"input": {"name": "time", "transport": "STDIO", "command": TIME_SERVER_COMMAND}}
        )
        assert registered["registerMcpServer"]["userErrors"] == []
        server_id = registered["registerMcpServer"]["mcpServer"]["id"]

        synced = (await gql.execute(SYNC, {"id": server_id}))["syncMcpServer"]

        assert synced["userErrors"] == []
        server = synced["mcpServer"]
        assert server["lastSyncedAt"] is not None and server["lastError"] is None
        tools = {edge["node"]["name"]: edge["node"] for edge in server["tools"]["edges"]}
        assert set(tools) == {"get_current_time", "convert_time"}
        current = tools["get_current_time"]
        assert current["id"] == f"{server_id}__get_current_time"
        assert (current["type"], current["sideEffect"], current["status"]) == ("MCP", "READ", "ACTIVE")

        result = (
            await gql.execute(
                INVOKE, {"input": {"spaceId": space.id, "toolId": current["id"], "arguments": {"timezone": "UTC"}}}
            )
        )["invokeTool"]
        assert result["status"] == "SUCCESS", result
        assert result["data"]["timezone"] == "UTC"
        assert result["call"] == {"toolId": current["id"], "attempts": 1, "tool": {"type": "MCP"}}

        refused = (
            await gql.execute(
                INVOKE,
                {"input": {"spaceId": space.id, "toolId": current["id"], "arguments": {"timezone": "Mars/Base"}}},
            )
        )["invokeTool"]
        assert refused["status"] == "FAILED"
        assert refused["error"]["code"] == "MCP_ERROR"

        # A disabled server's tools are not callable.
        assert (await gql.execute(STATUS, {"input": {"id": server_id, "status": "DISABLED"}}))["setStatus"][
            "userErrors"
        ] == []
        disabled = (
            await gql.execute(
                INVOKE, {"input": {"spaceId": space.id, "toolId": current["id"], "arguments": {"timezone": "UTC"}}}
            )
        )["invokeTool"]
        assert disabled["error"]["code"] == "TOOL_NOT_AVAILABLE"

    async def test_sync_failure_is_a_user_error_and_is_kept_as_last_error(self, gql: GraphQLClient) -> None:
        registered = await gql.execute(
            REGISTER, {"input": {"name": "broken", "transport": "STDIO", "command": ["/nonexistent/mcp-server"]}}
        )
        server_id = registered["registerMcpServer"]["mcpServer"]["id"]

        synced = (await gql.execute(SYNC, {"id": server_id}))["syncMcpServer"]

        assert [error["code"] for error in synced["userErrors"]] == ["MCP_SYNC_FAILED"]
        assert synced["mcpServer"]["lastError"]
        assert synced["mcpServer"]["lastSyncedAt"] is None

    async def test_only_admins_sync(self, gql: GraphQLClient, keys: Keys) -> None:
        from app.principal import Role

        space = await keys.space("alpha")
        member = gql.as_key(await keys.for_space(space.id, Role.SPACE_ADMIN))
        registered = await gql.execute(
            REGISTER, {"input": {"name": "time2", "transport": "STDIO", "command": TIME_SERVER_COMMAND}}
        )
        server_id = registered["registerMcpServer"]["mcpServer"]["id"]

        synced = (await member.execute(SYNC, {"id": server_id}))["syncMcpServer"]

        assert synced["mcpServer"] is None
        assert [error["code"] for error in synced["userErrors"]] == ["FORBIDDEN"]


SYNC_REPORT = """
mutation SyncReport($id: ID!) {
  syncMcpServer(id: $id) {
    syncReport { pages added updated unchanged vanished disabled drifted reactivated skipped }
    userErrors { code }
  }
}
"""


class TestSyncReport:
    async def test_first_sync_adds_and_the_next_finds_them_unchanged(self, gql: GraphQLClient) -> None:
        registered = (
            await gql.execute(
                REGISTER.replace("mcpServer { id }", "mcpServer { id } syncReport { pages }"),
                {"input": {"name": "time-report", "transport": "STDIO", "command": TIME_SERVER_COMMAND}},
            )
        )["registerMcpServer"]
        assert registered["syncReport"] is None
        server_id = registered["mcpServer"]["id"]
        tool_ids = sorted(f"{server_id}__{name}" for name in ("convert_time", "get_current_time"))

        first = (await gql.execute(SYNC_REPORT, {"id": server_id}))["syncMcpServer"]
        second = (await gql.execute(SYNC_REPORT, {"id": server_id}))["syncMcpServer"]

        assert first["userErrors"] == []
        assert first["syncReport"]["pages"] == 1
        assert sorted(first["syncReport"]["added"]) == tool_ids
        assert first["syncReport"]["unchanged"] == first["syncReport"]["updated"] == []
        assert sorted(second["syncReport"]["unchanged"]) == tool_ids
        assert second["syncReport"]["added"] == second["syncReport"]["disabled"] == []

    async def test_failed_sync_has_no_report(self, gql: GraphQLClient) -> None:
        registered = await gql.execute(
            REGISTER, {"input": {"name": "broken-report", "transport": "STDIO", "command": ["/nonexistent/mcp"]}}
        )
        server_id = registered["registerMcpServer"]["mcpServer"]["id"]

        synced = (await gql.execute(SYNC_REPORT, {"id": server_id}))["syncMcpServer"]

        assert synced["syncReport"] is None
        assert [error["code"] for error in synced["userErrors"]] == ["MCP_SYNC_FAILED"]
