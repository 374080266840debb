"""`viewer`: who the key of a request is — role, space, key id and label — as the console shows it."""

from __future__ import annotations

from app.principal import Role
from app.spaces import service as spaces_service
from tests.conftest import GraphQLClient, Keys

VIEWER = "query Viewer { viewer { role roles keyId keyLabel space { id name } } }"


class TestViewer:
    async def test_admin_key_has_no_space_and_names_itself(self, gql: GraphQLClient, keys: Keys) -> None:
        async with keys.session_factory() as session, session.begin():
            row, raw = await spaces_service.create_api_key(
                session, role=Role.ADMIN, space_id=None, label="ops laptop 运维"
            )

        viewer = (await gql.execute(VIEWER, key=raw))["viewer"]

        assert viewer == {
            "role": "ADMIN",
            "roles": ["ADMIN"],
            "keyId": row.id,
            "keyLabel": "ops laptop 运维",
            "space": None,
        }

    async def test_space_key_shows_its_space_role_and_no_label(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")
        raw = await keys.for_space(space.id, Role.VIEWER)

        viewer = (await gql.execute(VIEWER, key=raw))["viewer"]

        assert viewer["role"] == "VIEWER"
        assert viewer["roles"] == ["VIEWER"]
        assert viewer["space"] == {"id": space.id, "name": "alpha"}
        assert viewer["keyLabel"] is None
        assert viewer["keyId"].startswith("key_")

    async def test_two_keys_have_two_ids(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")
        first = (await gql.execute(VIEWER, key=await keys.for_space(space.id, Role.MEMBER)))["viewer"]
        second = (await gql.execute(VIEWER, key=await keys.for_space(space.id, Role.MEMBER)))["viewer"]

        assert first["keyId"] != second["keyId"]
