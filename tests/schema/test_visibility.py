"""Links to objects out of the caller's reach, one by one (the matrix covers them all at once)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import utcnow
from app.ids import new_id
from app.principal import Role
from app.runtime.models import AgentRun
from tests.conftest import GraphQLClient, Keys

INVOKE = """mutation Invoke($input: InvokeToolInput!) {
  invokeTool(input: $input) { status error { code } call { id toolId tool { id name endpoint } } }
}"""
CREATE_TOOL = (
    """mutation Tool($input: CreateToolInput!) { createTool(input: $input) { tool { id } userErrors { code } } }"""
)


async def foreign_tool(gql: GraphQLClient, space_id: str) -> str:
    created = await gql.execute(
        CREATE_TOOL,
        {
            "input": {
                "name": "foreign_lookup",
                "label": "Foreign lookup",
                "description": "Only for the other space.",
                "inputSchema": {"type": "object"},
                "endpoint": "https://foreign.example.com/lookup",
                "spaceIds": [space_id],
            }
        },
    )
    return str(created["createTool"]["tool"]["id"])


class TestToolCallTool:
    async def test_a_refused_call_does_not_link_another_space_s_tool(self, gql: GraphQLClient, keys: Keys) -> None:
        home, other = await keys.space("home"), await keys.space("other")
        tool_id = await foreign_tool(gql, other.id)
        viewer = gql.as_key(await keys.for_space(home.id, Role.VIEWER))

        result = (await viewer.execute(INVOKE, {"input": {"spaceId": home.id, "toolId": tool_id, "arguments": {}}}))[
            "invokeTool"
        ]

        assert result["status"] == "FAILED" and result["error"]["code"] == "TOOL_NOT_AVAILABLE"
        assert result["call"]["toolId"] == tool_id  # what the caller gave
        assert result["call"]["tool"] is None
        # The admin sees the same call linked to the tool.
        listed = await gql.execute(
            "query Calls($space: ID) { toolCalls(filter: {spaceId: $space}) { edges { node { tool { id } } } } }",
            {"space": home.id},
        )
        assert [edge["node"]["tool"] for edge in listed["toolCalls"]["edges"]] == [{"id": tool_id}]


class TestNonNullLinks:
    async def test_a_run_pointing_at_another_space_s_agent_is_refused_not_shown(
        self, gql: GraphQLClient, keys: Keys, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        home, other = await keys.space("home"), await keys.space("other")
        agent = await gql.execute(
            """mutation A($input: CreateAgentInput!) { createAgent(input: $input) { agent { id } } }""",
            {"input": {"spaceId": other.id, "name": "Other agent", "model": "m", "systemPrompt": "secret role"}},
        )
        agent_id = agent["createAgent"]["agent"]["id"]
        run_id = new_id("run_")
        async with session_factory() as session, session.begin():
            # No API makes such a row: it stands for a foreign key gone wrong.
            session.add(
                AgentRun(
                    id=run_id,
                    agent_id=agent_id,
                    space_id=home.id,
                    status="SUCCEEDED",
                    input="hello",
                    model="m",
                    finished_at=utcnow(),
                )
            )
        member = gql.as_key(await keys.for_space(home.id, Role.MEMBER))
        query = "query Run($id: ID!) { agentRun(id: $id) { id agent { id systemPrompt } } }"

        response = await member.raw(query, {"id": run_id})

        body = response.json()
        assert body["data"] == {"agentRun": None}
        assert [error["extensions"]["code"] for error in body["errors"]] == ["NOT_VISIBLE"]
        assert "secret role" not in response.text
        assert (await gql.execute(query, {"id": run_id}))["agentRun"]["agent"]["id"] == agent_id
