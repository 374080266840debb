"""Knowledge base records through the API: creation, reach, uniqueness, empty documents."""

from __future__ import annotations

from typing import Any

from app.principal import Role
from tests.conftest import GraphQLClient, Keys

CREATE_KNOWLEDGE_BASE = """
mutation CreateKnowledgeBase($input: CreateKnowledgeBaseInput!) {
  createKnowledgeBase(input: $input) {
    knowledgeBase {
      id name label description documentCount createdAt
      space { id name }
      documents(first: 10) {
        totalCount
        edges { cursor node { id } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }
    userErrors { field code message }
  }
}
"""

KNOWLEDGE_BASES = """
query KnowledgeBases($spaceId: ID) {
  knowledgeBases(spaceId: $spaceId) {
    totalCount
    edges { node { id name space { id } } }
    pageInfo { hasNextPage hasPreviousPage }
  }
}
"""

SPACE_KNOWLEDGE_BASES = """
query SpaceKnowledgeBases($id: ID!) {
  space(id: $id) {
    knowledgeBases { totalCount edges { node { id name } } }
  }
}
"""

KNOWLEDGE_BASE_NODE = """
query KnowledgeBaseNode($id: ID!) {
  node(id: $id) {
    __typename
    ... on KnowledgeBase { id name documentCount space { id } }
  }
}
"""


async def create_knowledge_base(
    client: GraphQLClient, space_id: str, name: str = "handbook", **fields: Any
) -> dict[str, Any]:
    values: dict[str, Any] = {"spaceId": space_id, "name": name, "label": "Employee handbook"}
    values.update(fields)
    data = await client.execute(CREATE_KNOWLEDGE_BASE, {"input": values})
    payload: dict[str, Any] = data["createKnowledgeBase"]
    return payload


def error_pairs(payload: dict[str, Any]) -> list[tuple[str, list[str] | None]]:
    return [(error["code"], error["field"]) for error in payload["userErrors"]]


class TestCreateKnowledgeBase:
    async def test_space_admin_creates_one_in_its_space(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))

        payload = await create_knowledge_base(space_admin, alpha.id, description="Policies and procedures.")

        assert payload["userErrors"] == []
        kb = payload["knowledgeBase"]
        assert kb["id"].startswith("kb_")
        assert kb["name"] == "handbook"
        assert kb["label"] == "Employee handbook"
        assert kb["description"] == "Policies and procedures."
        assert kb["space"] == {"id": alpha.id, "name": "alpha"}

    async def test_admin_creates_one_in_any_space(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")

        payload = await create_knowledge_base(gql, alpha.id)

        assert payload["userErrors"] == []
        assert payload["knowledgeBase"]["space"]["id"] == alpha.id

    async def test_another_space_looks_absent(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))

        payload = await create_knowledge_base(space_admin, beta.id)

        assert payload["knowledgeBase"] is None
        assert error_pairs(payload) == [("NOT_FOUND", ["input", "spaceId"])]
        listed = await gql.execute(KNOWLEDGE_BASES, {"spaceId": beta.id})
        assert listed["knowledgeBases"]["totalCount"] == 0

    async def test_unknown_space_is_not_found(self, gql: GraphQLClient) -> None:
        payload = await create_knowledge_base(gql, "sp_doesnotexist")

        assert payload["knowledgeBase"] is None
        assert error_pairs(payload) == [("NOT_FOUND", ["input", "spaceId"])]

    async def test_member_is_forbidden(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))

        payload = await create_knowledge_base(member, alpha.id)

        assert payload["knowledgeBase"] is None
        assert error_pairs(payload) == [("FORBIDDEN", ["input", "spaceId"])]
        listed = await gql.execute(KNOWLEDGE_BASES, {"spaceId": alpha.id})
        assert listed["knowledgeBases"]["totalCount"] == 0

    async def test_name_outside_the_pattern_is_refused(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")

        payload = await create_knowledge_base(gql, alpha.id, name="with space")

        assert payload["knowledgeBase"] is None
        assert error_pairs(payload) == [("INVALID_NAME", ["input", "name"])]


class TestDuplicateKnowledgeBaseNames:
    async def test_same_name_in_the_same_space_is_a_duplicate(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        await create_knowledge_base(gql, alpha.id)

        payload = await create_knowledge_base(gql, alpha.id)

        assert payload["knowledgeBase"] is None
        assert error_pairs(payload) == [("DUPLICATE", ["input", "name"])]
        listed = await gql.execute(KNOWLEDGE_BASES, {"spaceId": alpha.id})
        assert listed["knowledgeBases"]["totalCount"] == 1

    async def test_same_name_in_another_space_is_fine(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        first = await create_knowledge_base(gql, alpha.id)

        second = await create_knowledge_base(gql, beta.id)

        assert second["userErrors"] == []
        assert second["knowledgeBase"]["id"] != first["knowledgeBase"]["id"]
        assert second["knowledgeBase"]["space"]["id"] == beta.id


class TestListKnowledgeBases:
    async def test_unreachable_space_gives_an_empty_list(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        await create_knowledge_base(gql, beta.id)
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))

        response = await member.raw(KNOWLEDGE_BASES, {"spaceId": beta.id})

        assert response.status_code == 200
        body = response.json()
        assert "errors" not in body
        assert body["data"]["knowledgeBases"] == {
            "totalCount": 0,
            "edges": [],
            "pageInfo": {"hasNextPage": False, "hasPreviousPage": False},
        }

    async def test_space_key_without_space_id_lists_only_its_space(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        own = await create_knowledge_base(gql, alpha.id, name="alpha-docs")
        await create_knowledge_base(gql, beta.id, name="beta-docs")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))

        data = await member.execute(KNOWLEDGE_BASES)

        assert [edge["node"]["id"] for edge in data["knowledgeBases"]["edges"]] == [own["knowledgeBase"]["id"]]
        assert data["knowledgeBases"]["totalCount"] == 1

    async def test_admin_lists_one_space_or_every_space(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        await create_knowledge_base(gql, alpha.id, name="alpha-docs")
        await create_knowledge_base(gql, beta.id, name="beta-docs")

        one = await gql.execute(KNOWLEDGE_BASES, {"spaceId": alpha.id})
        every = await gql.execute(KNOWLEDGE_BASES)
        through_space = await gql.execute(SPACE_KNOWLEDGE_BASES, {"id": beta.id})

        assert [edge["node"]["name"] for edge in one["knowledgeBases"]["edges"]] == ["alpha-docs"]
        assert {edge["node"]["name"] for edge in every["knowledgeBases"]["edges"]} == {
            "alpha-docs",
            "beta-docs",
        }
        assert every["knowledgeBases"]["totalCount"] == 2
        assert through_space["space"]["knowledgeBases"]["totalCount"] == 1
        assert through_space["space"]["knowledgeBases"]["edges"][0]["node"]["name"] == "beta-docs"


class TestEmptyKnowledgeBase:
    async def test_has_no_documents(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")

        kb = (await create_knowledge_base(gql, alpha.id))["knowledgeBase"]

        assert kb["documentCount"] == 0
        assert kb["documents"] == {
            "totalCount": 0,
            "edges": [],
            "pageInfo": {
                "hasNextPage": False,
                "hasPreviousPage": False,
                "startCursor": None,
                "endCursor": None,
            },
        }


class TestKnowledgeBaseNode:
    async def test_node_resolves_with_its_space(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))
        kb = (await create_knowledge_base(gql, alpha.id))["knowledgeBase"]

        data = await member.execute(KNOWLEDGE_BASE_NODE, {"id": kb["id"]})

        assert data["node"] == {
            "__typename": "KnowledgeBase",
            "id": kb["id"],
            "name": "handbook",
            "documentCount": 0,
            "space": {"id": alpha.id},
        }

    async def test_another_space_key_gets_null(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))
        kb = (await create_knowledge_base(gql, beta.id))["knowledgeBase"]

        data = await member.execute(KNOWLEDGE_BASE_NODE, {"id": kb["id"]})

        assert data == {"node": None}
