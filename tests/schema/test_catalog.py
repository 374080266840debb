"""Cross-domain operations: setStatus, node(id:), and the honest placeholders of later issues."""

from __future__ import annotations

from typing import Any

import pytest

from app.principal import Role
from tests.conftest import GraphQLClient, Keys

SET_STATUS = """
mutation SetStatus($input: SetStatusInput!) {
  setStatus(input: $input) {
    node {
      __typename
      id
      ... on Skill { status }
      ... on Agent { status }
      ... on McpServer { status }
      ... on Tool { status }
    }
    userErrors { field code message }
  }
}
"""

NODE = """
query Node($id: ID!) {
  node(id: $id) {
    __typename
    id
    ... on Skill { status }
    ... on Agent { status }
    ... on McpServer { status }
    ... on Tool { status }
  }
}
"""

CREATE_SKILL = """
mutation CreateSkill($input: CreateSkillInput!) {
  createSkill(input: $input) { skill { id } userErrors { code } }
}
"""

CREATE_AGENT = """
mutation CreateAgent($input: CreateAgentInput!) {
  createAgent(input: $input) { agent { id } userErrors { code } }
}
"""

CREATE_TOOL = """
mutation CreateTool($input: CreateToolInput!) {
  createTool(input: $input) { tool { id } userErrors { code } }
}
"""

CREATE_KNOWLEDGE_BASE = """
mutation CreateKnowledgeBase($input: CreateKnowledgeBaseInput!) {
  createKnowledgeBase(input: $input) { knowledgeBase { id } userErrors { code } }
}
"""

REGISTER_MCP_SERVER = """
mutation RegisterMcpServer($input: RegisterMcpServerInput!) {
  registerMcpServer(input: $input) {
    mcpServer { id name status transport url }
    userErrors { field code message }
  }
}
"""

SPACE_AGENTS = """
query SpaceAgents($id: ID!) {
  space(id: $id) { agents { totalCount edges { node { id } } } }
}
"""

AGENTS = """
query Agents($spaceId: ID) {
  agents(spaceId: $spaceId) { totalCount edges { node { id } } }
}
"""

AGENT = """
query Agent($id: ID!) {
  agent(id: $id) { id name status }
}
"""

INVOKE_AGENT = """
mutation InvokeAgent($input: InvokeAgentInput!) {
  invokeAgent(input: $input) { run { id } userErrors { field code message } }
}
"""


async def created(client: GraphQLClient, mutation: str, values: dict[str, Any], path: str) -> str:
    data = await client.execute(mutation, {"input": values})
    field, kind = path.split(".")
    payload = data[field]
    assert payload["userErrors"] == []
    identifier: str = payload[kind]["id"]
    return identifier


async def create_skill(client: GraphQLClient, space_id: str | None, name: str = "refunds") -> str:
    values: dict[str, Any] = {
        "name": name,
        "label": "Refunds",
        "description": "How to answer refund questions.",
        "prompt": "Check the order date first.",
    }
    if space_id is not None:
        values["spaceId"] = space_id
    return await created(client, CREATE_SKILL, values, "createSkill.skill")


async def create_agent(client: GraphQLClient, space_id: str, name: str = "Helper") -> str:
    values = {"spaceId": space_id, "name": name, "model": "gpt-4o-mini", "systemPrompt": "Help."}
    return await created(client, CREATE_AGENT, values, "createAgent.agent")


async def create_tool(client: GraphQLClient, name: str = "order_lookup") -> str:
    values = {
        "name": name,
        "label": "Order lookup",
        "description": "Finds an order.",
        "inputSchema": {"type": "object"},
        "endpoint": "http://tools.example.invalid/orders",
    }
    return await created(client, CREATE_TOOL, values, "createTool.tool")


async def create_knowledge_base(client: GraphQLClient, space_id: str) -> str:
    values = {"spaceId": space_id, "name": "handbook", "label": "Handbook"}
    return await created(client, CREATE_KNOWLEDGE_BASE, values, "createKnowledgeBase.knowledgeBase")


async def register_mcp_server(client: GraphQLClient, name: str = "orders-mcp") -> str:
    values = {"name": name, "transport": "STREAMABLE_HTTP", "url": "http://example.invalid/mcp"}
    return await created(client, REGISTER_MCP_SERVER, values, "registerMcpServer.mcpServer")


async def set_status(client: GraphQLClient, identifier: str, status: str) -> dict[str, Any]:
    data = await client.execute(SET_STATUS, {"input": {"id": identifier, "status": status}})
    payload: dict[str, Any] = data["setStatus"]
    return payload


def error_pairs(payload: dict[str, Any]) -> list[tuple[str, list[str] | None]]:
    return [(error["code"], error["field"]) for error in payload["userErrors"]]


class TestSetStatus:
    @pytest.mark.parametrize("status", ["DISABLED", "ARCHIVED", "ACTIVE"])
    async def test_on_a_skill(self, gql: GraphQLClient, keys: Keys, status: str) -> None:
        alpha = await keys.space("alpha")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))
        skill_id = await create_skill(space_admin, alpha.id)

        payload = await set_status(space_admin, skill_id, status)

        assert payload["userErrors"] == []
        assert payload["node"] == {"__typename": "Skill", "id": skill_id, "status": status}
        assert (await gql.execute(NODE, {"id": skill_id}))["node"]["status"] == status

    async def test_on_a_global_skill_by_admin(self, gql: GraphQLClient) -> None:
        skill_id = await create_skill(gql, None)

        payload = await set_status(gql, skill_id, "DISABLED")

        assert payload["node"] == {"__typename": "Skill", "id": skill_id, "status": "DISABLED"}

    @pytest.mark.parametrize("status", ["DISABLED", "ARCHIVED"])
    async def test_on_an_agent(self, gql: GraphQLClient, keys: Keys, status: str) -> None:
        alpha = await keys.space("alpha")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))
        agent_id = await create_agent(space_admin, alpha.id)

        payload = await set_status(space_admin, agent_id, status)

        assert payload["userErrors"] == []
        assert payload["node"] == {"__typename": "Agent", "id": agent_id, "status": status}
        assert (await gql.execute(AGENT, {"id": agent_id}))["agent"]["status"] == status

    @pytest.mark.parametrize("status", ["DISABLED", "ARCHIVED"])
    async def test_on_an_mcp_server(self, gql: GraphQLClient, status: str) -> None:
        server_id = await register_mcp_server(gql)

        payload = await set_status(gql, server_id, status)

        assert payload["userErrors"] == []
        assert payload["node"] == {"__typename": "McpServer", "id": server_id, "status": status}
        assert (await gql.execute(NODE, {"id": server_id}))["node"]["status"] == status

    @pytest.mark.parametrize("status", ["DISABLED", "ARCHIVED"])
    async def test_on_a_tool(self, gql: GraphQLClient, keys: Keys, status: str) -> None:
        alpha = await keys.space("alpha")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))
        tool_id = await create_tool(space_admin)

        payload = await set_status(space_admin, tool_id, status)

        assert payload["userErrors"] == []
        assert payload["node"] == {"__typename": "Tool", "id": tool_id, "status": status}
        assert (await gql.execute(NODE, {"id": tool_id}))["node"]["status"] == status

    async def test_back_to_active(self, gql: GraphQLClient) -> None:
        tool_id = await create_tool(gql)
        await set_status(gql, tool_id, "ARCHIVED")

        payload = await set_status(gql, tool_id, "ACTIVE")

        assert payload["node"]["status"] == "ACTIVE"

    @pytest.mark.parametrize("identifier", ["zz_unknown", "sku_missing", "ag_missing", "ct_missing", "mcp_missing"])
    async def test_unknown_id_is_not_found(self, gql: GraphQLClient, identifier: str) -> None:
        payload = await set_status(gql, identifier, "DISABLED")

        assert payload["node"] is None
        assert error_pairs(payload) == [("NOT_FOUND", ["input", "id"])]

    async def test_another_space_agent_looks_absent(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))
        beta_agent = await create_agent(gql, beta.id)

        payload = await set_status(space_admin, beta_agent, "ARCHIVED")

        assert payload["node"] is None
        assert error_pairs(payload) == [("NOT_FOUND", ["input", "id"])]
        assert (await gql.execute(AGENT, {"id": beta_agent}))["agent"]["status"] == "ACTIVE"

    async def test_another_space_skill_looks_absent(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))
        beta_skill = await create_skill(gql, beta.id)

        payload = await set_status(space_admin, beta_skill, "DISABLED")

        assert error_pairs(payload) == [("NOT_FOUND", ["input", "id"])]
        assert (await gql.execute(NODE, {"id": beta_skill}))["node"]["status"] == "ACTIVE"

    async def test_member_may_not_change_its_space_agent(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))
        agent_id = await create_agent(gql, alpha.id)

        payload = await set_status(member, agent_id, "DISABLED")

        assert error_pairs(payload) == [("FORBIDDEN", ["input", "id"])]
        assert (await gql.execute(AGENT, {"id": agent_id}))["agent"]["status"] == "ACTIVE"

    async def test_space_admin_may_not_change_a_builtin_tool(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))

        payload = await set_status(space_admin, "bt_calculator", "DISABLED")

        assert error_pairs(payload) == [("FORBIDDEN", ["input", "id"])]
        assert (await gql.execute(NODE, {"id": "bt_calculator"}))["node"]["status"] == "ACTIVE"

    async def test_space_admin_may_not_change_an_mcp_server(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))
        server_id = await register_mcp_server(gql)

        payload = await set_status(space_admin, server_id, "DISABLED")

        # A global server is visible to the space, so the refusal may say so.
        assert payload["node"] is None
        assert error_pairs(payload) == [("FORBIDDEN", ["input", "id"])]
        assert (await gql.execute(NODE, {"id": server_id}))["node"]["status"] == "ACTIVE"


class TestArchivedAgents:
    async def test_disappear_from_lists_but_stay_readable(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))
        kept = await create_agent(gql, alpha.id, "Kept")
        archived = await create_agent(gql, alpha.id, "Archived")

        await set_status(gql, archived, "ARCHIVED")

        space_list = (await gql.execute(SPACE_AGENTS, {"id": alpha.id}))["space"]["agents"]
        assert [edge["node"]["id"] for edge in space_list["edges"]] == [kept]
        assert space_list["totalCount"] == 1
        top_list = (await member.execute(AGENTS, {"spaceId": alpha.id}))["agents"]
        assert [edge["node"]["id"] for edge in top_list["edges"]] == [kept]
        assert top_list["totalCount"] == 1
        assert (await member.execute(AGENT, {"id": archived}))["agent"] == {
            "id": archived,
            "name": "Archived",
            "status": "ARCHIVED",
        }
        assert (await member.execute(NODE, {"id": archived}))["node"]["status"] == "ARCHIVED"

    async def test_disabled_agents_stay_listed(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        agent_id = await create_agent(gql, alpha.id)

        await set_status(gql, agent_id, "DISABLED")

        space_list = (await gql.execute(SPACE_AGENTS, {"id": alpha.id}))["space"]["agents"]
        assert [edge["node"]["id"] for edge in space_list["edges"]] == [agent_id]


class TestNode:
    async def test_dispatches_on_the_id_prefix(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        agent_id = await create_agent(gql, alpha.id)
        kb_id = await create_knowledge_base(gql, alpha.id)
        skill_id = await create_skill(gql, alpha.id)
        tool_id = await create_tool(gql)
        server_id = await register_mcp_server(gql)

        expected = {
            alpha.id: "Space",
            agent_id: "Agent",
            kb_id: "KnowledgeBase",
            "sk_email_draft": "Skill",
            skill_id: "Skill",
            "bt_calculator": "Tool",
            tool_id: "Tool",
            server_id: "McpServer",
        }
        for identifier, typename in expected.items():
            node = (await gql.execute(NODE, {"id": identifier}))["node"]
            assert node is not None, identifier
            assert (node["__typename"], node["id"]) == (typename, identifier)

    @pytest.mark.parametrize(
        "identifier",
        ["zz_unknown", "sp_missing", "ag_missing", "kb_missing", "sk_missing", "bt_missing", ""],
    )
    async def test_unknown_ids_are_null(self, gql: GraphQLClient, identifier: str) -> None:
        assert (await gql.execute(NODE, {"id": identifier})) == {"node": None}

    async def test_another_space_objects_are_null_for_a_space_key(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))
        hidden = [
            beta.id,
            await create_agent(gql, beta.id),
            await create_knowledge_base(gql, beta.id),
            await create_skill(gql, beta.id),
            "bt_send_message",
        ]

        for identifier in hidden:
            assert (await member.execute(NODE, {"id": identifier})) == {"node": None}, identifier
        own = await member.execute(NODE, {"id": alpha.id})
        assert own["node"]["__typename"] == "Space"


class TestInvokeAgentWithoutModel:
    async def test_no_model_configured_is_a_user_error_not_a_server_error(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        agent_id = await create_agent(gql, alpha.id)

        data = await gql.execute(INVOKE_AGENT, {"input": {"agentId": agent_id, "message": "Hi"}})

        assert data["invokeAgent"]["run"] is None
        assert [error["code"] for error in data["invokeAgent"]["userErrors"]] == ["MODEL_NOT_CONFIGURED"]
        assert "QUIVER_OPENAI_BASE_URL" in data["invokeAgent"]["userErrors"][0]["message"]
