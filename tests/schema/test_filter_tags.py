"""A tag filter (tools, a space's visibleTools, skills, a space's skills) holds at most 100
distinct tags: one more is a top-level TOO_LONG error naming it, never an internal error
(SQLite refused the query of 1,000 tags: "Expression tree is too large"). Repeated tags
count once, within the bound every list input has (QUIVER_MAX_LIST_ITEMS, 500 items)."""

from __future__ import annotations

from typing import Any

import pytest

from app.config import Settings
from tests.conftest import GraphQLClient
from tests.schema.skills.operations import created_skill
from tests.schema.tools.operations import create_tool

#: A tool and a skill carry these, Chinese, English and mixed, as a real catalog's tags.
TAGS = [f"客户成功 Acme 华东区 {index}" for index in range(100)]

TOOLS = "query($tags: [String!]) { tools(filter: {tags: $tags}) { totalCount edges { node { name } } } }"
SKILLS = "query($tags: [String!]) { skills(filter: {tags: $tags}) { totalCount edges { node { name } } } }"
SPACE = """
query($space: ID!, $tags: [String!]) {
  space(id: $space) {
    visibleTools(filter: {tags: $tags}) { totalCount edges { node { name } } }
    skills(filter: {tags: $tags}) { totalCount edges { node { name } } }
  }
}
"""


@pytest.fixture
async def space(gql: GraphQLClient) -> str:
    data = await gql.execute(
        'mutation { createSpace(input: {name: "east", label: "华东区"}) { space { id } userErrors { code } } }'
    )
    space_id: str = data["createSpace"]["space"]["id"]
    await create_tool(gql, "weekly_report", tags=TAGS, spaceIds=[space_id])
    await created_skill(gql, name="weekly-report", tags=TAGS, spaceId=space_id)
    return space_id


def names(connection: dict[str, Any]) -> list[str]:
    return [edge["node"]["name"] for edge in connection["edges"]]


class TestAtTheLimit:
    async def test_a_hundred_tags_find_what_carries_them_all(self, gql: GraphQLClient, space: str) -> None:
        tools = await gql.execute(TOOLS, {"tags": TAGS})
        skills = await gql.execute(SKILLS, {"tags": TAGS})
        seen = await gql.execute(SPACE, {"space": space, "tags": TAGS})

        assert names(tools["tools"]) == ["weekly_report"]
        assert names(skills["skills"]) == ["weekly-report"]
        assert names(seen["space"]["visibleTools"]) == ["weekly_report"]
        assert names(seen["space"]["skills"]) == ["weekly-report"]

    async def test_repeated_tags_count_once(self, gql: GraphQLClient, space: str) -> None:
        repeated = [*TAGS, *([TAGS[0]] * (Settings().max_list_items - len(TAGS)))]

        tools = await gql.execute(TOOLS, {"tags": repeated})
        seen = await gql.execute(SPACE, {"space": space, "tags": repeated})

        assert names(tools["tools"]) == ["weekly_report"]
        assert names(seen["space"]["skills"]) == ["weekly-report"]


class TestOverTheLimit:
    @pytest.mark.parametrize("count", [101, 400])
    @pytest.mark.parametrize(("query", "path"), [(TOOLS, ["tools"]), (SKILLS, ["skills"])])
    async def test_one_more_is_too_long(self, gql: GraphQLClient, count: int, query: str, path: list[str]) -> None:
        response = await gql.raw(query, {"tags": [*TAGS, *(f"tag {index}" for index in range(count - 100))]})

        assert response.status_code == 200
        [error] = response.json()["errors"]
        assert error["extensions"] == {"code": "TOO_LONG"}
        assert error["path"] == path
        assert error["message"] == f"filter.tags holds {count} tags; at most 100 are accepted."

    @pytest.mark.parametrize("count", [1000, 20000])
    @pytest.mark.parametrize(("query", "path"), [(TOOLS, ["tools"]), (SKILLS, ["skills"])])
    async def test_past_the_list_bound_the_items_are_counted_first(
        self, gql: GraphQLClient, count: int, query: str, path: list[str]
    ) -> None:
        """More items than any list input takes (QUIVER_MAX_LIST_ITEMS) is refused before the
        tags are counted, repeats included."""
        limit = Settings().max_list_items
        for tags in ([f"tag {index}" for index in range(count)], [TAGS[0]] * count):
            response = await gql.raw(query, {"tags": tags})

            [error] = response.json()["errors"]
            assert error["extensions"] == {"code": "TOO_LONG"}
            assert error["path"] == path
            assert error["message"] == f"filter.tags has {count} items; at most {limit} are accepted."

    @pytest.mark.parametrize("field", ["visibleTools", "skills"])
    async def test_nested_in_a_space(self, gql: GraphQLClient, space: str, field: str) -> None:
        query = (
            "query($space: ID!, $tags: [String!]) "
            f"{{ space(id: $space) {{ {field}(filter: {{tags: $tags}}) {{ totalCount }} }} }}"
        )
        response = await gql.raw(query, {"space": space, "tags": [*TAGS, "one more"]})

        [error] = response.json()["errors"]
        assert error["path"] == ["space", field]
        assert error["extensions"] == {"code": "TOO_LONG"}
