"""Agents through the API: manifests, reference checks, and references that outlive their status."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from app.principal import Role
from tests.conftest import GraphQLClient, Keys

AGENT_FIELDS = """
    id name model systemPrompt maxSteps status manifest boundSkillReferences
    space { id }
    mountedKnowledgeBases { id name }
    activatedTools { id name type status }
    boundSkills { id name type status }
"""

CREATE_AGENT = f"""
mutation CreateAgent($input: CreateAgentInput!) {{
  createAgent(input: $input) {{
    agent {{ {AGENT_FIELDS} }}
    userErrors {{ field code message }}
  }}
}}
"""

UPDATE_AGENT = f"""
mutation UpdateAgent($input: UpdateAgentInput!) {{
  updateAgent(input: $input) {{
    agent {{ {AGENT_FIELDS} }}
    userErrors {{ field code message }}
  }}
}}
"""

AGENT = f"""
query Agent($id: ID!) {{
  agent(id: $id) {{ {AGENT_FIELDS} }}
}}
"""

AGENT_RUNS = """
query AgentRuns($id: ID!) {
  agent(id: $id) {
    runs(first: 10) {
      totalCount
      edges { cursor node { id } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
}
"""

CREATE_TOOL = """
mutation CreateTool($input: CreateToolInput!) {
  createTool(input: $input) {
    tool { id status }
    userErrors { field code message }
  }
}
"""

CREATE_SKILL = """
mutation CreateSkill($input: CreateSkillInput!) {
  createSkill(input: $input) {
    skill { id version }
    userErrors { field code message }
  }
}
"""

CREATE_KNOWLEDGE_BASE = """
mutation CreateKnowledgeBase($input: CreateKnowledgeBaseInput!) {
  createKnowledgeBase(input: $input) {
    knowledgeBase { id }
    userErrors { field code message }
  }
}
"""

SET_STATUS = """
mutation SetStatus($input: SetStatusInput!) {
  setStatus(input: $input) {
    node { id }
    userErrors { field code message }
  }
}
"""


async def create_tool(client: GraphQLClient, name: str, **fields: Any) -> str:
    values: dict[str, Any] = {
        "name": name,
        "label": name.replace("_", " ").title(),
        "description": f"Looks up {name}.",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
        "endpoint": "http://tools.example.invalid/lookup",
    }
    values.update(fields)
    payload = (await client.execute(CREATE_TOOL, {"input": values}))["createTool"]
    assert payload["userErrors"] == []
    tool_id: str = payload["tool"]["id"]
    return tool_id


async def create_skill(client: GraphQLClient, name: str, space_id: str | None) -> str:
    values: dict[str, Any] = {
        "name": name,
        "label": name.title(),
        "description": f"The {name} method.",
        "prompt": f"# {name}\n\nDo it carefully.",
    }
    if space_id is not None:
        values["spaceId"] = space_id
    payload = (await client.execute(CREATE_SKILL, {"input": values}))["createSkill"]
    assert payload["userErrors"] == []
    skill_id: str = payload["skill"]["id"]
    return skill_id


async def create_knowledge_base(client: GraphQLClient, space_id: str, name: str) -> str:
    values = {"spaceId": space_id, "name": name, "label": name.title()}
    payload = (await client.execute(CREATE_KNOWLEDGE_BASE, {"input": values}))["createKnowledgeBase"]
    assert payload["userErrors"] == []
    kb_id: str = payload["knowledgeBase"]["id"]
    return kb_id


async def set_status(client: GraphQLClient, identifier: str, status: str) -> None:
    payload = (await client.execute(SET_STATUS, {"input": {"id": identifier, "status": status}}))["setStatus"]
    assert payload["userErrors"] == []


async def create_agent(client: GraphQLClient, space_id: str, **fields: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "spaceId": space_id,
        "name": "Support agent",
        "model": "gpt-4o-mini",
        "systemPrompt": "You answer customer questions.",
    }
    values.update(fields)
    payload: dict[str, Any] = (await client.execute(CREATE_AGENT, {"input": values}))["createAgent"]
    return payload


async def update_agent(client: GraphQLClient, agent_id: str, **fields: Any) -> dict[str, Any]:
    payload: dict[str, Any] = (await client.execute(UPDATE_AGENT, {"input": {"id": agent_id, **fields}}))["updateAgent"]
    return payload


def only_error(payload: dict[str, Any]) -> dict[str, Any]:
    assert payload["agent"] is None
    assert len(payload["userErrors"]) == 1, payload["userErrors"]
    error: dict[str, Any] = payload["userErrors"][0]
    return error


@dataclass
class World:
    """Two spaces, with a SPACE_ADMIN client for the first and catalog objects in both."""

    alpha: str
    beta: str
    alpha_admin: GraphQLClient
    alpha_member: GraphQLClient
    alpha_tool: str
    beta_tool: str
    alpha_skill: str
    beta_skill: str
    alpha_kb: str
    beta_kb: str


@pytest.fixture
async def world(gql: GraphQLClient, keys: Keys) -> World:
    alpha = await keys.space("alpha")
    beta = await keys.space("beta")
    alpha_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))
    beta_admin = gql.as_key(await keys.for_space(beta.id, Role.SPACE_ADMIN))
    return World(
        alpha=alpha.id,
        beta=beta.id,
        alpha_admin=alpha_admin,
        alpha_member=gql.as_key(await keys.for_space(alpha.id, Role.MEMBER)),
        alpha_tool=await create_tool(alpha_admin, "order_lookup"),
        beta_tool=await create_tool(beta_admin, "beta_lookup"),
        alpha_skill=await create_skill(alpha_admin, "refund-policy", alpha.id),
        beta_skill=await create_skill(beta_admin, "beta-policy", beta.id),
        alpha_kb=await create_knowledge_base(alpha_admin, alpha.id, "handbook"),
        beta_kb=await create_knowledge_base(beta_admin, beta.id, "beta-handbook"),
    )


class TestCreateAgent:
    async def test_manifest_holds_exactly_the_assembly(self, world: World) -> None:
        payload = await create_agent(
            world.alpha_admin,
            world.alpha,
            maxSteps=7,
            mountedKnowledgeBaseIds=[world.alpha_kb],
            activatedToolIds=["bt_calculator", world.alpha_tool],
            boundSkillIds=["sk_email_draft", world.alpha_skill, "sk_data_calculation@1.0.0"],
        )

        assert payload["userErrors"] == []
        agent = payload["agent"]
        assert agent["id"].startswith("ag_")
        assert agent["status"] == "ACTIVE"
        assert agent["space"] == {"id": world.alpha}
        assert agent["manifest"] == {
            "model": "gpt-4o-mini",
            "systemPrompt": "You answer customer questions.",
            "mountedKbs": [world.alpha_kb],
            "activatedTools": ["bt_calculator", world.alpha_tool],
            "boundSkills": ["sk_email_draft", world.alpha_skill, "sk_data_calculation@1.0.0"],
            "maxSteps": 7,
        }
        assert agent["boundSkillReferences"] == [
            "sk_email_draft",
            world.alpha_skill,
            "sk_data_calculation@1.0.0",
        ]

    async def test_references_resolve_to_objects(self, world: World) -> None:
        agent = (
            await create_agent(
                world.alpha_admin,
                world.alpha,
                mountedKnowledgeBaseIds=[world.alpha_kb],
                activatedToolIds=["bt_calculator", world.alpha_tool],
                boundSkillIds=["sk_email_draft", world.alpha_skill, "sk_data_calculation@1.0.0"],
            )
        )["agent"]

        fetched = (await world.alpha_member.execute(AGENT, {"id": agent["id"]}))["agent"]

        assert fetched["mountedKnowledgeBases"] == [{"id": world.alpha_kb, "name": "handbook"}]
        assert fetched["activatedTools"] == [
            {"id": "bt_calculator", "name": "calculator", "type": "BUILTIN", "status": "ACTIVE"},
            {"id": world.alpha_tool, "name": "order_lookup", "type": "CUSTOM", "status": "ACTIVE"},
        ]
        assert fetched["boundSkills"] == [
            {"id": "sk_email_draft", "name": "email-draft", "type": "BUILTIN", "status": "ACTIVE"},
            {"id": world.alpha_skill, "name": "refund-policy", "type": "CUSTOM", "status": "ACTIVE"},
            {
                "id": "sk_data_calculation",
                "name": "data-calculation",
                "type": "BUILTIN",
                "status": "ACTIVE",
            },
        ]

    async def test_defaults_are_five_steps_and_empty_lists(self, world: World) -> None:
        agent = (await create_agent(world.alpha_admin, world.alpha))["agent"]

        assert agent["manifest"] == {
            "model": "gpt-4o-mini",
            "systemPrompt": "You answer customer questions.",
            "mountedKbs": [],
            "activatedTools": [],
            "boundSkills": [],
            "maxSteps": 5,
        }
        assert agent["activatedTools"] == []
        assert agent["boundSkills"] == []
        assert agent["mountedKnowledgeBases"] == []

    async def test_pin_to_a_new_version_of_a_space_skill(self, world: World) -> None:
        await world.alpha_admin.execute(
            """
            mutation UpdateSkill($input: UpdateSkillInput!) {
              updateSkill(input: $input) { userErrors { code } }
            }
            """,
            {"input": {"id": world.alpha_skill, "prompt": "second version"}},
        )

        payload = await create_agent(
            world.alpha_admin,
            world.alpha,
            boundSkillIds=[f"{world.alpha_skill}@1.0.0", "sk_meeting_summary"],
        )

        assert payload["userErrors"] == []
        assert payload["agent"]["manifest"]["boundSkills"] == [
            f"{world.alpha_skill}@1.0.0",
            "sk_meeting_summary",
        ]

    async def test_member_is_forbidden(self, world: World) -> None:
        error = only_error(await create_agent(world.alpha_member, world.alpha))

        assert (error["code"], error["field"]) == ("FORBIDDEN", ["input", "spaceId"])

    async def test_another_space_looks_absent(self, world: World) -> None:
        error = only_error(await create_agent(world.alpha_admin, world.beta))

        assert (error["code"], error["field"]) == ("NOT_FOUND", ["input", "spaceId"])


class TestCreateAgentReferenceErrors:
    async def test_tool_from_another_space_is_named_in_the_error(self, world: World) -> None:
        error = only_error(
            await create_agent(world.alpha_admin, world.alpha, activatedToolIds=["bt_calculator", world.beta_tool])
        )

        assert error["code"] == "NOT_VISIBLE"
        assert error["field"] == ["input", "activatedToolIds", "1"]
        assert world.beta_tool in error["message"]

    async def test_restricted_builtin_is_not_visible(self, world: World) -> None:
        error = only_error(await create_agent(world.alpha_admin, world.alpha, activatedToolIds=["bt_send_message"]))

        assert error["code"] == "NOT_VISIBLE"
        assert error["field"] == ["input", "activatedToolIds", "0"]
        assert "bt_send_message" in error["message"]

    async def test_disabled_tool_is_not_activated(self, gql: GraphQLClient, world: World) -> None:
        await set_status(world.alpha_admin, world.alpha_tool, "DISABLED")

        error = only_error(await create_agent(world.alpha_admin, world.alpha, activatedToolIds=[world.alpha_tool]))

        assert error["code"] == "NOT_VISIBLE"
        assert error["field"] == ["input", "activatedToolIds", "0"]
        assert world.alpha_tool in error["message"]

    async def test_unknown_tool_is_named_in_the_error(self, world: World) -> None:
        error = only_error(await create_agent(world.alpha_admin, world.alpha, activatedToolIds=["ct_nothing"]))

        assert error["code"] == "NOT_VISIBLE"
        assert error["field"] == ["input", "activatedToolIds", "0"]
        assert "ct_nothing" in error["message"]

    async def test_skill_from_another_space_is_named_in_the_error(self, world: World) -> None:
        error = only_error(
            await create_agent(
                world.alpha_admin,
                world.alpha,
                boundSkillIds=["sk_email_draft", world.beta_skill],
            )
        )

        assert error["code"] == "NOT_VISIBLE"
        assert error["field"] == ["input", "boundSkillIds", "1"]
        assert world.beta_skill in error["message"]

    async def test_pinned_version_that_does_not_exist(self, world: World) -> None:
        error = only_error(
            await create_agent(world.alpha_admin, world.alpha, boundSkillIds=[f"{world.alpha_skill}@9.9.9"])
        )

        assert error["code"] == "NOT_FOUND"
        assert error["field"] == ["input", "boundSkillIds", "0"]
        assert world.alpha_skill in error["message"]
        assert "9.9.9" in error["message"]

    async def test_pinned_version_that_is_not_semver(self, world: World) -> None:
        error = only_error(await create_agent(world.alpha_admin, world.alpha, boundSkillIds=["sk_email_draft@latest"]))

        assert error["code"] == "NOT_FOUND"
        assert error["field"] == ["input", "boundSkillIds", "0"]

    async def test_archived_skill_is_not_bound(self, world: World) -> None:
        await set_status(world.alpha_admin, world.alpha_skill, "ARCHIVED")

        error = only_error(await create_agent(world.alpha_admin, world.alpha, boundSkillIds=[world.alpha_skill]))

        assert error["field"] == ["input", "boundSkillIds", "0"]
        assert world.alpha_skill in error["message"]

    async def test_knowledge_base_from_another_space_is_named_in_the_error(self, world: World) -> None:
        error = only_error(
            await create_agent(
                world.alpha_admin,
                world.alpha,
                mountedKnowledgeBaseIds=[world.alpha_kb, world.beta_kb],
            )
        )

        assert error["code"] == "NOT_VISIBLE"
        assert error["field"] == ["input", "mountedKnowledgeBaseIds", "1"]
        assert world.beta_kb in error["message"]

    @pytest.mark.parametrize("max_steps", [0, 51, -1])
    async def test_max_steps_out_of_range(self, world: World, max_steps: int) -> None:
        error = only_error(await create_agent(world.alpha_admin, world.alpha, maxSteps=max_steps))

        assert (error["code"], error["field"]) == ("OUT_OF_RANGE", ["input", "maxSteps"])

    @pytest.mark.parametrize("max_steps", [1, 50])
    async def test_max_steps_bounds_are_accepted(self, world: World, max_steps: int) -> None:
        payload = await create_agent(world.alpha_admin, world.alpha, maxSteps=max_steps)

        assert payload["userErrors"] == []
        assert payload["agent"]["maxSteps"] == max_steps
        assert payload["agent"]["manifest"]["maxSteps"] == max_steps

    async def test_refused_agent_is_not_stored(self, gql: GraphQLClient, world: World) -> None:
        await create_agent(world.alpha_admin, world.alpha, activatedToolIds=[world.beta_tool])

        data = await gql.execute(
            "query Agents($spaceId: ID) { agents(spaceId: $spaceId) { totalCount } }",
            {"spaceId": world.alpha},
        )

        assert data["agents"]["totalCount"] == 0

    async def test_restricted_builtin_is_allowed_once_assigned_to_the_space(
        self, gql: GraphQLClient, world: World
    ) -> None:
        bindings = await gql.execute(
            """
            mutation SetSpaceBindings($input: SetBindingsInput!) {
              setSpaceBindings(input: $input) { userErrors { code } }
            }
            """,
            {"input": {"id": "bt_send_message", "spaceIds": [world.alpha]}},
        )
        assert bindings["setSpaceBindings"]["userErrors"] == []

        payload = await create_agent(world.alpha_admin, world.alpha, activatedToolIds=["bt_send_message"])

        assert payload["userErrors"] == []
        assert payload["agent"]["manifest"]["activatedTools"] == ["bt_send_message"]


class TestInactiveReferencesKeepAgentsWorking:
    @pytest.mark.parametrize(("tool_status", "skill_status"), [("DISABLED", "ARCHIVED"), ("ARCHIVED", "DISABLED")])
    async def test_agent_still_lists_them_with_their_new_status(
        self, world: World, tool_status: str, skill_status: str
    ) -> None:
        agent = (
            await create_agent(
                world.alpha_admin,
                world.alpha,
                activatedToolIds=[world.alpha_tool, "bt_calculator"],
                boundSkillIds=[world.alpha_skill, "sk_email_draft"],
            )
        )["agent"]

        await set_status(world.alpha_admin, world.alpha_tool, tool_status)
        await set_status(world.alpha_admin, world.alpha_skill, skill_status)
        fetched = (await world.alpha_member.execute(AGENT, {"id": agent["id"]}))["agent"]

        assert [(tool["id"], tool["status"]) for tool in fetched["activatedTools"]] == [
            (world.alpha_tool, tool_status),
            ("bt_calculator", "ACTIVE"),
        ]
        assert [(skill["id"], skill["status"]) for skill in fetched["boundSkills"]] == [
            (world.alpha_skill, skill_status),
            ("sk_email_draft", "ACTIVE"),
        ]
        assert fetched["manifest"]["activatedTools"] == [world.alpha_tool, "bt_calculator"]
        assert fetched["manifest"]["boundSkills"] == [world.alpha_skill, "sk_email_draft"]

    @pytest.mark.parametrize("status", ["DISABLED", "ARCHIVED"])
    async def test_update_of_an_unrelated_field_succeeds_and_keeps_them(self, world: World, status: str) -> None:
        agent = (
            await create_agent(
                world.alpha_admin,
                world.alpha,
                activatedToolIds=[world.alpha_tool],
                boundSkillIds=[world.alpha_skill],
            )
        )["agent"]
        await set_status(world.alpha_admin, world.alpha_tool, status)
        await set_status(world.alpha_admin, world.alpha_skill, status)

        payload = await update_agent(world.alpha_admin, agent["id"], name="Renamed agent")

        assert payload["userErrors"] == []
        updated = payload["agent"]
        assert updated["name"] == "Renamed agent"
        assert updated["manifest"]["activatedTools"] == [world.alpha_tool]
        assert updated["manifest"]["boundSkills"] == [world.alpha_skill]
        assert [(tool["id"], tool["status"]) for tool in updated["activatedTools"]] == [(world.alpha_tool, status)]
        assert [(skill["id"], skill["status"]) for skill in updated["boundSkills"]] == [(world.alpha_skill, status)]

    @pytest.mark.parametrize("status", ["DISABLED", "ARCHIVED"])
    async def test_resubmitting_the_same_lists_succeeds(self, world: World, status: str) -> None:
        agent = (
            await create_agent(
                world.alpha_admin,
                world.alpha,
                activatedToolIds=[world.alpha_tool],
                boundSkillIds=[world.alpha_skill],
            )
        )["agent"]
        await set_status(world.alpha_admin, world.alpha_tool, status)
        await set_status(world.alpha_admin, world.alpha_skill, status)

        payload = await update_agent(
            world.alpha_admin,
            agent["id"],
            activatedToolIds=[world.alpha_tool, "bt_calculator"],
            boundSkillIds=[world.alpha_skill],
            maxSteps=9,
        )

        assert payload["userErrors"] == []
        assert payload["agent"]["manifest"]["activatedTools"] == [world.alpha_tool, "bt_calculator"]
        assert payload["agent"]["manifest"]["boundSkills"] == [world.alpha_skill]
        assert payload["agent"]["maxSteps"] == 9

    async def test_adding_a_disabled_tool_in_an_update_is_still_refused(self, world: World) -> None:
        agent = (await create_agent(world.alpha_admin, world.alpha))["agent"]
        await set_status(world.alpha_admin, world.alpha_tool, "DISABLED")

        payload = await update_agent(
            world.alpha_admin, agent["id"], activatedToolIds=["bt_calculator", world.alpha_tool]
        )

        error = only_error(payload)
        assert error["code"] == "NOT_VISIBLE"
        assert error["field"] == ["input", "activatedToolIds", "1"]
        assert world.alpha_tool in error["message"]


class TestUpdateAgent:
    async def test_space_admin_changes_the_manifest(self, world: World) -> None:
        agent = (await create_agent(world.alpha_admin, world.alpha))["agent"]

        payload = await update_agent(
            world.alpha_admin,
            agent["id"],
            model="gpt-4.1",
            systemPrompt="You are terse.",
            maxSteps=3,
            mountedKnowledgeBaseIds=[world.alpha_kb],
            activatedToolIds=["bt_current_time"],
            boundSkillIds=["sk_knowledge_answer@1.0.0"],
        )

        assert payload["userErrors"] == []
        assert payload["agent"]["manifest"] == {
            "model": "gpt-4.1",
            "systemPrompt": "You are terse.",
            "mountedKbs": [world.alpha_kb],
            # knowledge-answer declares bt_search_knowledge: binding it activates the tool.
            "activatedTools": ["bt_current_time", "bt_search_knowledge"],
            "boundSkills": ["sk_knowledge_answer@1.0.0"],
            "maxSteps": 3,
        }
        assert payload["agent"]["name"] == "Support agent"

    async def test_member_is_forbidden(self, world: World) -> None:
        agent = (await create_agent(world.alpha_admin, world.alpha))["agent"]

        error = only_error(await update_agent(world.alpha_member, agent["id"], name="Mine now"))

        assert (error["code"], error["field"]) == ("FORBIDDEN", ["input", "id"])
        fetched = (await world.alpha_admin.execute(AGENT, {"id": agent["id"]}))["agent"]
        assert fetched["name"] == "Support agent"

    async def test_agent_of_another_space_looks_absent(self, gql: GraphQLClient, world: World) -> None:
        beta_agent = (await create_agent(gql, world.beta))["agent"]

        error = only_error(await update_agent(world.alpha_admin, beta_agent["id"], name="Taken"))

        assert (error["code"], error["field"]) == ("NOT_FOUND", ["input", "id"])

    async def test_max_steps_out_of_range(self, world: World) -> None:
        agent = (await create_agent(world.alpha_admin, world.alpha))["agent"]

        error = only_error(await update_agent(world.alpha_admin, agent["id"], maxSteps=51))

        assert (error["code"], error["field"]) == ("OUT_OF_RANGE", ["input", "maxSteps"])

    async def test_refused_update_changes_nothing(self, world: World) -> None:
        agent = (await create_agent(world.alpha_admin, world.alpha))["agent"]

        payload = await update_agent(world.alpha_admin, agent["id"], name="Renamed", activatedToolIds=[world.beta_tool])

        assert only_error(payload)["code"] == "NOT_VISIBLE"
        fetched = (await world.alpha_admin.execute(AGENT, {"id": agent["id"]}))["agent"]
        assert fetched["name"] == "Support agent"
        assert fetched["manifest"]["activatedTools"] == []


class TestAgentReach:
    async def test_space_key_gets_null_for_another_space_agent(self, gql: GraphQLClient, world: World) -> None:
        beta_agent = (await create_agent(gql, world.beta))["agent"]

        assert (await world.alpha_member.execute(AGENT, {"id": beta_agent["id"]})) == {"agent": None}
        node = await world.alpha_member.execute(
            "query Node($id: ID!) { node(id: $id) { id } }", {"id": beta_agent["id"]}
        )
        assert node == {"node": None}

    async def test_space_key_reads_its_own_agent(self, world: World) -> None:
        agent = (await create_agent(world.alpha_admin, world.alpha))["agent"]

        fetched = (await world.alpha_member.execute(AGENT, {"id": agent["id"]}))["agent"]

        assert fetched["id"] == agent["id"]


class TestAgentRuns:
    async def test_runs_is_an_empty_connection(self, world: World) -> None:
        agent = (await create_agent(world.alpha_admin, world.alpha))["agent"]

        data = await world.alpha_admin.execute(AGENT_RUNS, {"id": agent["id"]})

        assert data["agent"]["runs"] == {
            "totalCount": 0,
            "edges": [],
            "pageInfo": {
                "hasNextPage": False,
                "hasPreviousPage": False,
                "startCursor": None,
                "endCursor": None,
            },
        }


SET_BINDINGS = """
mutation SetBindings($input: SetBindingsInput!) {
  setSpaceBindings(input: $input) { tool { id } userErrors { code } }
}
"""

ACTIVATED_TOOLS = """
query ActivatedTools($id: ID!) { agent(id: $id) { activatedTools { id } manifest } }
"""


class TestErrorPathsWithDuplicates:
    async def test_field_path_points_at_the_offending_item_of_the_input(self, world: World) -> None:
        payload = await create_agent(
            world.alpha_admin,
            world.alpha,
            activatedToolIds=["bt_calculator", "bt_calculator", world.beta_tool],
        )
        error = only_error(payload)
        assert error["field"] == ["input", "activatedToolIds", "2"]
        assert world.beta_tool in error["message"]

    async def test_duplicate_skill_references_keep_their_input_positions(self, world: World) -> None:
        payload = await create_agent(
            world.alpha_admin,
            world.alpha,
            boundSkillIds=["sk_email_draft", "sk_email_draft", "sk_email_draft", world.beta_skill],
        )
        assert only_error(payload)["field"] == ["input", "boundSkillIds", "3"]


class TestToolRemovedFromTheAgentsSpace:
    async def test_a_tool_bound_elsewhere_is_absent_from_the_agent_and_refused_on_update(
        self, gql: GraphQLClient, world: World
    ) -> None:
        created = await create_agent(world.alpha_admin, world.alpha, activatedToolIds=[world.alpha_tool])
        agent_id = created["agent"]["id"]
        rebound = await gql.execute(SET_BINDINGS, {"input": {"id": world.alpha_tool, "spaceIds": [world.beta]}})
        assert rebound["setSpaceBindings"]["userErrors"] == []

        seen = (await world.alpha_member.execute(ACTIVATED_TOOLS, {"id": agent_id}))["agent"]
        assert seen["activatedTools"] == []

        payload = await update_agent(world.alpha_admin, agent_id, activatedToolIds=[world.alpha_tool])
        error = only_error(payload)
        assert error["code"] == "NOT_VISIBLE"
        assert error["field"] == ["input", "activatedToolIds", "0"]
