"""Tool.viewerCanManage: the same rule the mutations apply, so a console shows only controls that work."""

from __future__ import annotations

from app.principal import Role
from tests.conftest import GraphQLClient, Keys
from tests.schema.tools.operations import SET_STATUS, create_tool

CAN_MANAGE = "query CanManage($id: ID!) { tool(id: $id) { viewerCanManage } }"


async def can_manage(client: GraphQLClient, tool_id: str) -> bool:
    tool = (await client.execute(CAN_MANAGE, {"id": tool_id}))["tool"]
    assert tool is not None
    return bool(tool["viewerCanManage"])


class TestViewerCanManage:
    async def test_matches_what_set_status_allows(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))
        own = await create_tool(space_admin, "own_tool")
        admins = await create_tool(gql, "admins_tool", spaceIds=[alpha.id])

        cases = [
            (gql, own["id"], True),
            (gql, "bt_calculator", True),
            (space_admin, own["id"], True),
            (space_admin, admins["id"], False),
            (space_admin, "bt_calculator", False),
            (member, own["id"], False),
        ]
        for client, tool_id, expected in cases:
            assert await can_manage(client, tool_id) is expected, (client.key, tool_id)
            errors = (await client.execute(SET_STATUS, {"input": {"id": tool_id, "status": "ACTIVE"}}))["setStatus"][
                "userErrors"
            ]
            assert (errors == []) is expected, errors
