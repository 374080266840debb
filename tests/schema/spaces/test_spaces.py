"""Spaces and the viewer through GraphQL: creation, reach, and Relay pagination."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.principal import SYSTEM_PRINCIPAL, Role
from app.spaces import service as spaces_service
from app.spaces.models import SYSTEM_SPACE_ID
from tests.conftest import GraphQLClient, Keys

CREATE_SPACE = """
mutation CreateSpace($input: CreateSpaceInput!) {
  createSpace(input: $input) {
    space { id name label isSystem createdAt }
    userErrors { field code message }
  }
}
"""

SPACES_PAGE = """
query SpacesPage($first: Int, $after: String) {
  spaces(first: $first, after: $after) {
    totalCount
    edges { cursor node { id name } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}
"""

SPACE_BY_ID = """
query SpaceById($id: ID!) {
  space(id: $id) { id name label isSystem }
}
"""

VIEWER = """
query Viewer {
  viewer { roles space { id name } }
}
"""

NON_ADMIN_ROLES = [Role.SPACE_ADMIN, Role.MEMBER, Role.VIEWER]


async def create_space(gql: GraphQLClient, name: str, label: str) -> dict[str, Any]:
    data = await gql.execute(CREATE_SPACE, {"input": {"name": name, "label": label}})
    return data["createSpace"]  # type: ignore[no-any-return]


async def all_space_ids(gql: GraphQLClient) -> list[str]:
    data = await gql.execute(SPACES_PAGE, {"first": 100})
    return [edge["node"]["id"] for edge in data["spaces"]["edges"]]


async def create_many_spaces(session_factory: async_sessionmaker[AsyncSession], count: int) -> None:
    """Many spaces in one transaction, through the service (fast on both backends)."""
    async with session_factory() as session, session.begin():
        for index in range(count):
            await spaces_service.create_space(session, SYSTEM_PRINCIPAL, f"bulk-{index:03d}", f"Bulk {index}")


class TestCreateSpace:
    async def test_admin_creates_a_space(self, gql: GraphQLClient) -> None:
        payload = await create_space(gql, "research", "  Research team ")

        assert payload["userErrors"] == []
        space = payload["space"]
        assert space["id"].startswith("sp_")
        assert space["name"] == "research"
        assert space["label"] == "Research team"
        assert space["isSystem"] is False
        assert space["createdAt"]

    async def test_created_space_can_be_read_back(self, gql: GraphQLClient) -> None:
        created = (await create_space(gql, "readback", "Read back"))["space"]

        data = await gql.execute(SPACE_BY_ID, {"id": created["id"]})

        assert data["space"] == {"id": created["id"], "name": "readback", "label": "Read back", "isSystem": False}

    @pytest.mark.parametrize("name", ["Research", "with space", "-leading-dash", "", "x" * 65, "émoji"])
    async def test_invalid_name_is_a_user_error(self, gql: GraphQLClient, name: str) -> None:
        payload = await create_space(gql, name, "Label")

        assert payload["space"] is None
        assert [(error["field"], error["code"]) for error in payload["userErrors"]] == [
            (["input", "name"], "INVALID_NAME")
        ]
        assert payload["userErrors"][0]["message"]

    @pytest.mark.parametrize("label", ["", "   "])
    async def test_blank_label_is_a_user_error(self, gql: GraphQLClient, label: str) -> None:
        payload = await create_space(gql, "unlabelled", label)

        assert payload["space"] is None
        assert [(error["field"], error["code"]) for error in payload["userErrors"]] == [(["input", "label"], "INVALID")]

    async def test_duplicate_name_is_a_user_error(self, gql: GraphQLClient) -> None:
        first = await create_space(gql, "twice", "First")
        assert first["userErrors"] == []

        second = await create_space(gql, "twice", "Second")

        assert second["space"] is None
        assert [(error["field"], error["code"]) for error in second["userErrors"]] == [(["input", "name"], "DUPLICATE")]
        assert "twice" in second["userErrors"][0]["message"]

    async def test_refused_space_is_not_stored(self, gql: GraphQLClient) -> None:
        before = await all_space_ids(gql)

        await create_space(gql, "Not Valid", "Label")
        await create_space(gql, "no-label", " ")

        assert await all_space_ids(gql) == before

    @pytest.mark.parametrize("role", NON_ADMIN_ROLES, ids=lambda role: role.value)
    async def test_non_admin_key_gets_forbidden(self, gql: GraphQLClient, keys: Keys, role: Role) -> None:
        home = await keys.space("home")
        key = await keys.for_space(home.id, role)

        payload = await create_space(gql.as_key(key), "intruder", "Intruder")

        assert payload["space"] is None
        assert [error["code"] for error in payload["userErrors"]] == ["FORBIDDEN"]
        assert payload["userErrors"][0]["field"] == ["input"]
        names = [edge["node"]["name"] for edge in (await gql.execute(SPACES_PAGE, {"first": 100}))["spaces"]["edges"]]
        assert "intruder" not in names


class TestSpacesReach:
    async def test_admin_lists_every_space_including_the_system_space(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")

        data = await gql.execute(SPACES_PAGE, {"first": 10})

        ids = {edge["node"]["id"] for edge in data["spaces"]["edges"]}
        assert ids == {SYSTEM_SPACE_ID, alpha.id, beta.id}
        assert data["spaces"]["totalCount"] == 3

    @pytest.mark.parametrize("role", NON_ADMIN_ROLES, ids=lambda role: role.value)
    async def test_space_key_lists_only_its_own_space(self, gql: GraphQLClient, keys: Keys, role: Role) -> None:
        mine = await keys.space("mine")
        await keys.space("theirs")
        key = await keys.for_space(mine.id, role)

        data = await gql.as_key(key).execute(SPACES_PAGE, {"first": 10})

        assert [edge["node"]["id"] for edge in data["spaces"]["edges"]] == [mine.id]
        assert data["spaces"]["totalCount"] == 1
        assert data["spaces"]["pageInfo"]["hasNextPage"] is False

    async def test_space_key_sees_its_own_space_by_id(self, gql: GraphQLClient, keys: Keys) -> None:
        mine = await keys.space("mine")
        key = await keys.for_space(mine.id, Role.VIEWER)

        data = await gql.as_key(key).execute(SPACE_BY_ID, {"id": mine.id})

        assert data["space"]["id"] == mine.id

    @pytest.mark.parametrize("role", NON_ADMIN_ROLES, ids=lambda role: role.value)
    async def test_other_space_by_id_is_null_for_a_space_key(self, gql: GraphQLClient, keys: Keys, role: Role) -> None:
        mine = await keys.space("mine")
        theirs = await keys.space("theirs")
        key = await keys.for_space(mine.id, role)

        other = await gql.as_key(key).execute(SPACE_BY_ID, {"id": theirs.id})
        system = await gql.as_key(key).execute(SPACE_BY_ID, {"id": SYSTEM_SPACE_ID})

        assert other == {"space": None}
        assert system == {"space": None}

    async def test_out_of_reach_looks_like_absent(self, gql: GraphQLClient, keys: Keys) -> None:
        mine = await keys.space("mine")
        theirs = await keys.space("theirs")
        key = await keys.for_space(mine.id, Role.MEMBER)

        existing = await gql.as_key(key).raw(SPACE_BY_ID, {"id": theirs.id})
        missing = await gql.as_key(key).raw(SPACE_BY_ID, {"id": "sp_does_not_exist"})

        assert existing.status_code == missing.status_code == 200
        assert existing.json() == missing.json() == {"data": {"space": None}}

    async def test_admin_reads_any_space_by_id(self, gql: GraphQLClient, keys: Keys) -> None:
        theirs = await keys.space("theirs")

        data = await gql.execute(SPACE_BY_ID, {"id": theirs.id})
        system = await gql.execute(SPACE_BY_ID, {"id": SYSTEM_SPACE_ID})

        assert data["space"] == {"id": theirs.id, "name": "theirs", "label": "Theirs", "isSystem": False}
        assert system["space"]["isSystem"] is True

    async def test_unknown_space_is_null_for_admin(self, gql: GraphQLClient) -> None:
        data = await gql.execute(SPACE_BY_ID, {"id": "sp_does_not_exist"})

        assert data == {"space": None}


class TestViewer:
    async def test_member_key_sees_its_space_and_role(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("crew")
        key = await keys.for_space(space.id, Role.MEMBER)

        data = await gql.as_key(key).execute(VIEWER)

        assert data == {"viewer": {"roles": ["MEMBER"], "space": {"id": space.id, "name": "crew"}}}

    @pytest.mark.parametrize("role", NON_ADMIN_ROLES, ids=lambda role: role.value)
    async def test_each_space_role_is_reported(self, gql: GraphQLClient, keys: Keys, role: Role) -> None:
        space = await keys.space("crew")
        key = await keys.for_space(space.id, role)

        data = await gql.as_key(key).execute(VIEWER)

        assert data["viewer"]["roles"] == [role.value]
        assert data["viewer"]["space"]["id"] == space.id

    async def test_admin_key_has_no_space(self, gql: GraphQLClient) -> None:
        data = await gql.execute(VIEWER)

        assert data == {"viewer": {"roles": ["ADMIN"], "space": None}}


class TestSpacesPagination:
    async def test_walking_pages_visits_every_space_once(self, gql: GraphQLClient, keys: Keys) -> None:
        created = {(await keys.space(f"page-{index}")).id for index in range(5)}
        expected = created | {SYSTEM_SPACE_ID}

        seen: list[str] = []
        pages: list[dict[str, Any]] = []
        after: str | None = None
        while True:
            data = await gql.execute(SPACES_PAGE, {"first": 2, "after": after})
            connection = data["spaces"]
            pages.append(connection)
            seen.extend(edge["node"]["id"] for edge in connection["edges"])
            if not connection["pageInfo"]["hasNextPage"]:
                break
            after = connection["pageInfo"]["endCursor"]
            assert len(pages) < 10, "pagination does not terminate"

        assert len(seen) == len(set(seen)), "a space was listed twice"
        assert set(seen) == expected
        assert [len(page["edges"]) for page in pages] == [2, 2, 2]
        assert [page["pageInfo"]["hasNextPage"] for page in pages] == [True, True, False]
        assert [page["pageInfo"]["hasPreviousPage"] for page in pages] == [False, True, True]
        assert all(page["totalCount"] == len(expected) for page in pages)

    async def test_page_info_cursors_match_the_edges(self, gql: GraphQLClient, keys: Keys) -> None:
        for index in range(3):
            await keys.space(f"cursor-{index}")

        connection = (await gql.execute(SPACES_PAGE, {"first": 3}))["spaces"]

        cursors = [edge["cursor"] for edge in connection["edges"]]
        assert len(set(cursors)) == 3
        assert connection["pageInfo"]["startCursor"] == cursors[0]
        assert connection["pageInfo"]["endCursor"] == cursors[-1]

    async def test_page_after_the_last_cursor_is_empty(self, gql: GraphQLClient, keys: Keys) -> None:
        await keys.space("only")
        whole = (await gql.execute(SPACES_PAGE, {"first": 10}))["spaces"]

        data = await gql.execute(SPACES_PAGE, {"first": 10, "after": whole["pageInfo"]["endCursor"]})

        connection = data["spaces"]
        assert connection["edges"] == []
        assert connection["pageInfo"]["hasNextPage"] is False
        assert connection["pageInfo"]["startCursor"] is None
        assert connection["pageInfo"]["endCursor"] is None
        assert connection["totalCount"] == 2

    @pytest.mark.parametrize("cursor", ["not-a-cursor!", "YWJj", "Y3Vyc29y"])
    async def test_invalid_cursor_is_a_client_error(self, gql: GraphQLClient, cursor: str) -> None:
        response = await gql.raw(SPACES_PAGE, {"first": 2, "after": cursor})

        assert response.status_code == 200, response.text
        body = response.json()
        assert body["data"] is None
        [error] = body["errors"]
        assert error["message"] != "internal error"
        assert error["path"] == ["spaces"]
        assert error.get("extensions", {}).get("code") == "INVALID_CURSOR", error

    async def test_negative_first_is_a_client_error(self, gql: GraphQLClient) -> None:
        response = await gql.raw(SPACES_PAGE, {"first": -1})

        assert response.status_code == 200, response.text
        [error] = response.json()["errors"]
        assert error["message"] != "internal error"
        assert error.get("extensions", {}).get("code") == "INVALID_ARGUMENT", error

    async def test_first_zero_returns_no_edges_but_the_total(self, gql: GraphQLClient, keys: Keys) -> None:
        await keys.space("zero")

        connection = (await gql.execute(SPACES_PAGE, {"first": 0}))["spaces"]

        assert connection["edges"] == []
        assert connection["pageInfo"]["hasNextPage"] is True
        assert connection["totalCount"] == 2

    async def test_first_is_capped_at_one_hundred(
        self, gql: GraphQLClient, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        await create_many_spaces(session_factory, 101)
        total = 102  # with the system space

        capped = (await gql.execute(SPACES_PAGE, {"first": 1000}))["spaces"]

        assert len(capped["edges"]) == 100
        assert capped["pageInfo"]["hasNextPage"] is True
        assert capped["totalCount"] == total
        rest = (await gql.execute(SPACES_PAGE, {"first": 1000, "after": capped["pageInfo"]["endCursor"]}))["spaces"]
        assert len(rest["edges"]) == total - 100
        assert rest["pageInfo"]["hasNextPage"] is False
        ids = [edge["node"]["id"] for edge in capped["edges"] + rest["edges"]]
        assert len(set(ids)) == total

    async def test_omitted_first_uses_the_default_page_size(
        self, gql: GraphQLClient, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        await create_many_spaces(session_factory, 60)

        data = await gql.execute("query DefaultPage { spaces { edges { node { id } } pageInfo { hasNextPage } } }")

        assert len(data["spaces"]["edges"]) == 50
        assert data["spaces"]["pageInfo"]["hasNextPage"] is True
