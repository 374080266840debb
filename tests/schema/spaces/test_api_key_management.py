"""API keys managed through GraphQL: apiKeys, createApiKey (the secret shown once),
revokeApiKey, expiry and the last-used time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.errors import DomainError
from app.main import create_app
from app.principal import SYSTEM_PRINCIPAL, Role
from app.spaces import service
from app.spaces.models import ApiKey
from tests.conftest import GraphQLClient, Keys, StatementCounter

KEY_FIELDS = "id label role state createdAt expiresAt revokedAt lastUsedAt space { id }"
CREATE = f"""mutation Create($input: CreateApiKeyInput!) {{
  createApiKey(input: $input) {{ secret apiKey {{ {KEY_FIELDS} }} userErrors {{ field code message }} }}
}}"""
REVOKE = f"""mutation Revoke($input: RevokeApiKeyInput!) {{
  revokeApiKey(input: $input) {{ apiKey {{ {KEY_FIELDS} }} userErrors {{ field code message }} }}
}}"""
LIST = f"""query Keys($space: ID, $state: ApiKeyState, $after: String) {{
  apiKeys(spaceId: $space, state: $state, first: 100, after: $after) {{
    totalCount edges {{ node {{ {KEY_FIELDS} }} }} pageInfo {{ hasNextPage endCursor }}
  }}
}}"""
VIEWER = "query Viewer { viewer { roles } }"


async def key_hashes(session_factory: async_sessionmaker[AsyncSession]) -> set[str]:
    async with session_factory() as session:
        return set((await session.scalars(select(ApiKey.key_hash))).all())


async def listed(client: GraphQLClient, **variables: Any) -> list[dict[str, Any]]:
    data = await client.execute(LIST, variables)
    return [edge["node"] for edge in data["apiKeys"]["edges"]]


async def create(client: GraphQLClient, **fields: Any) -> dict[str, Any]:
    payload: dict[str, Any] = (await client.execute(CREATE, {"input": fields}))["createApiKey"]
    return payload


class TestCreate:
    async def test_admin_creates_a_key_whose_secret_is_shown_once_and_works(
        self, gql: GraphQLClient, keys: Keys, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        space = await keys.space("keyed")
        expires = (datetime.now(UTC) + timedelta(days=30)).replace(microsecond=0)

        created = await create(
            gql, role="MEMBER", spaceId=space.id, label="  ci runner  ", expiresAt=expires.isoformat()
        )

        assert created["userErrors"] == []
        secret, key = created["secret"], created["apiKey"]
        assert secret.startswith("qk_")
        assert key["role"] == "MEMBER" and key["space"] == {"id": space.id} and key["label"] == "ci runner"
        assert key["state"] == "ACTIVE" and key["revokedAt"] is None and key["lastUsedAt"] is None
        assert datetime.fromisoformat(key["expiresAt"]) == expires
        viewer = await gql.execute(VIEWER, key=secret)
        assert viewer["viewer"]["roles"] == ["MEMBER"]
        # Never again: not in the listing, and the stored hash is in no answer either.
        listing = await gql.raw(LIST, {"space": space.id})
        assert secret not in listing.text
        assert not any(stored in listing.text for stored in await key_hashes(session_factory))
        assert [item["id"] for item in await listed(gql, space=space.id)] == [key["id"]]

    async def test_an_admin_key_takes_no_space_and_a_space_key_needs_one(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("keyed")

        with_space = await create(gql, role="ADMIN", spaceId=space.id)
        without = await create(gql, role="VIEWER")
        unknown = await create(gql, role="VIEWER", spaceId="sp_unknown")

        assert [(e["field"], e["code"]) for e in with_space["userErrors"]] == [(["input", "spaceId"], "INVALID")]
        assert [(e["field"], e["code"]) for e in without["userErrors"]] == [(["input", "spaceId"], "INVALID")]
        assert [(e["field"], e["code"]) for e in unknown["userErrors"]] == [(["input", "spaceId"], "NOT_FOUND")]
        assert with_space["secret"] is None and without["apiKey"] is None

    async def test_an_expiry_in_the_past_and_a_long_label_are_refused(self, gql: GraphQLClient) -> None:
        past = await create(gql, role="ADMIN", expiresAt=(datetime.now(UTC) - timedelta(seconds=1)).isoformat())
        long = await create(gql, role="ADMIN", label="x" * 201)

        assert [(e["field"], e["code"]) for e in past["userErrors"]] == [(["input", "expiresAt"], "INVALID")]
        assert [(e["field"], e["code"]) for e in long["userErrors"]] == [(["input", "label"], "TOO_LONG")]

    async def test_a_space_admin_creates_keys_of_its_own_space_only(self, gql: GraphQLClient, keys: Keys) -> None:
        home, other = await keys.space("home"), await keys.space("other")
        space_admin = gql.as_key(await keys.for_space(home.id, Role.SPACE_ADMIN))

        defaulted = await create(space_admin, role="VIEWER")
        foreign = await create(space_admin, role="VIEWER", spaceId=other.id)
        escalated = await create(space_admin, role="ADMIN")

        assert defaulted["userErrors"] == [] and defaulted["apiKey"]["space"] == {"id": home.id}
        assert [e["code"] for e in foreign["userErrors"]] == ["NOT_FOUND"]
        assert [e["code"] for e in escalated["userErrors"]] == ["FORBIDDEN"]

    @pytest.mark.parametrize("role", [Role.MEMBER, Role.VIEWER], ids=lambda role: role.value)
    async def test_members_and_viewers_create_no_key(self, gql: GraphQLClient, keys: Keys, role: Role) -> None:
        home = await keys.space("home")
        client = gql.as_key(await keys.for_space(home.id, role))

        created = await create(client, role="VIEWER", spaceId=home.id)

        assert [e["code"] for e in created["userErrors"]] == ["FORBIDDEN"] and created["secret"] is None


class TestList:
    async def test_admin_lists_every_key_and_filters_by_space_and_state(
        self, gql: GraphQLClient, keys: Keys, admin_key: str
    ) -> None:
        home, other = await keys.space("home"), await keys.space("other")
        member = (await create(gql, role="MEMBER", spaceId=home.id))["apiKey"]["id"]
        viewer = (await create(gql, role="VIEWER", spaceId=other.id))["apiKey"]["id"]
        revoked = (await create(gql, role="VIEWER", spaceId=other.id))["apiKey"]["id"]
        await gql.execute(REVOKE, {"input": {"id": revoked}})

        everything = {item["id"] for item in await listed(gql)}
        assert {member, viewer, revoked} <= everything and len(everything) == 4  # and the admin's own key
        assert {item["id"] for item in await listed(gql, space=other.id)} == {viewer, revoked}
        assert [item["id"] for item in await listed(gql, space=other.id, state="REVOKED")] == [revoked]
        assert {item["id"] for item in await listed(gql, state="ACTIVE")} == everything - {revoked}

    async def test_a_space_admin_sees_its_space_s_keys_and_others_see_none(
        self, gql: GraphQLClient, keys: Keys
    ) -> None:
        home, other = await keys.space("home"), await keys.space("other")
        space_admin_key = await keys.for_space(home.id, Role.SPACE_ADMIN)
        member_key = await keys.for_space(home.id, Role.MEMBER)
        await create(gql, role="VIEWER", spaceId=other.id)
        space_admin = gql.as_key(space_admin_key)

        own = await listed(space_admin)
        assert {item["role"] for item in own} == {"SPACE_ADMIN", "MEMBER"}
        assert {item["space"]["id"] for item in own} == {home.id}
        assert await listed(space_admin, space=other.id) == []
        assert await listed(gql.as_key(member_key)) == []
        assert (await gql.as_key(member_key).execute(LIST))["apiKeys"]["totalCount"] == 0

    async def test_node_finds_a_key_by_the_same_rule(self, gql: GraphQLClient, keys: Keys) -> None:
        home, other = await keys.space("home"), await keys.space("other")
        foreign = (await create(gql, role="VIEWER", spaceId=other.id))["apiKey"]["id"]
        own = (await create(gql, role="VIEWER", spaceId=home.id))["apiKey"]["id"]
        space_admin = gql.as_key(await keys.for_space(home.id, Role.SPACE_ADMIN))
        query = "query Node($id: ID!) { node(id: $id) { id ... on ApiKey { role } } }"

        assert (await space_admin.execute(query, {"id": own}))["node"] == {"id": own, "role": "VIEWER"}
        assert (await space_admin.execute(query, {"id": foreign}))["node"] is None
        assert (await gql.execute(query, {"id": foreign}))["node"]["id"] == foreign


class TestRevoke:
    async def test_a_revoked_key_is_refused_at_once_and_revoking_again_changes_nothing(
        self, gql: GraphQLClient, keys: Keys
    ) -> None:
        home = await keys.space("home")
        created = await create(gql, role="MEMBER", spaceId=home.id)
        secret, key_id = created["secret"], created["apiKey"]["id"]
        assert (await gql.raw(VIEWER, key=secret)).status_code == 200  # now in the key cache

        first = (await gql.execute(REVOKE, {"input": {"id": key_id}}))["revokeApiKey"]
        refused = await gql.raw(VIEWER, key=secret)
        again = (await gql.execute(REVOKE, {"input": {"id": key_id}}))["revokeApiKey"]

        assert first["userErrors"] == [] and first["apiKey"]["state"] == "REVOKED"
        assert refused.status_code == 401
        assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert again["userErrors"] == [] and again["apiKey"]["revokedAt"] == first["apiKey"]["revokedAt"]

    async def test_a_space_admin_revokes_its_space_s_keys_only(self, gql: GraphQLClient, keys: Keys) -> None:
        home, other = await keys.space("home"), await keys.space("other")
        space_admin = gql.as_key(await keys.for_space(home.id, Role.SPACE_ADMIN))
        own = (await create(gql, role="VIEWER", spaceId=home.id))["apiKey"]["id"]
        foreign = (await create(gql, role="VIEWER", spaceId=other.id))["apiKey"]["id"]
        admin = (await create(gql, role="ADMIN"))["apiKey"]["id"]

        results = {
            name: (await space_admin.execute(REVOKE, {"input": {"id": key_id}}))["revokeApiKey"]
            for name, key_id in (("own", own), ("foreign", foreign), ("admin", admin))
        }

        assert results["own"]["userErrors"] == []
        for name in ("foreign", "admin"):
            assert [e["code"] for e in results[name]["userErrors"]] == ["NOT_FOUND"], name
            assert results[name]["apiKey"] is None
        states = {item["id"]: item["state"] for item in await listed(gql)}
        assert (states[own], states[foreign], states[admin]) == ("REVOKED", "ACTIVE", "ACTIVE")

    async def test_a_member_revokes_nothing(self, gql: GraphQLClient, keys: Keys) -> None:
        home = await keys.space("home")
        member = gql.as_key(await keys.for_space(home.id, Role.MEMBER))
        victim = (await create(gql, role="VIEWER", spaceId=home.id))["apiKey"]["id"]

        result = (await member.execute(REVOKE, {"input": {"id": victim}}))["revokeApiKey"]

        assert [e["code"] for e in result["userErrors"]] == ["NOT_FOUND"]

    async def test_the_environment_admin_token_is_not_revoked_while_it_is_set(
        self, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        token = "environment-admin-token"
        async with session_factory() as session, session.begin():
            await service.ensure_admin_token(session, token)
        async with session_factory() as session:
            standing = await service.key_standing(session, token)
        assert standing is not None
        key_id = standing.principal.key_id

        with pytest.raises(DomainError) as refused:
            async with session_factory() as session, session.begin():
                await service.revoke_api_key(session, SYSTEM_PRINCIPAL, key_id, token)
        assert refused.value.code == "MANAGED_BY_ENVIRONMENT"
        # Unset, it can be revoked; set again at the next start, it is restored.
        async with session_factory() as session, session.begin():
            await service.revoke_api_key(session, SYSTEM_PRINCIPAL, key_id, None)
        async with session_factory() as session:
            assert await service.authenticate(session, token) is None
        async with session_factory() as session, session.begin():
            await service.ensure_admin_token(session, token)
        async with session_factory() as session:
            restored = await service.authenticate(session, token)
        assert restored is not None and restored.key_id == key_id


@pytest.fixture
async def long_cache_app(settings: Settings, app_and_services: Any) -> AsyncIterator[httpx.AsyncClient]:
    """An app whose key cache would keep an entry for an hour: only the expiry check refuses."""
    app = create_app(settings.model_copy(update={"catalog_cache_ttl_s": 3600.0}))
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://quiver.test") as client:
            yield client
    finally:
        await app.state.services.close()


class TestExpiry:
    async def test_a_key_is_refused_from_its_expiry_on_even_while_cached(
        self, gql: GraphQLClient, keys: Keys, long_cache_app: httpx.AsyncClient
    ) -> None:
        # Long enough for the key to be created and used once on a loaded machine (1 s was not).
        expires = datetime.now(UTC) + timedelta(seconds=5)
        created = await create(gql, role="ADMIN", expiresAt=expires.isoformat())
        client = GraphQLClient(http=long_cache_app, key=created["secret"])
        assert (await client.raw(VIEWER)).status_code == 200

        deadline = expires + timedelta(seconds=20)
        while (response := await client.raw(VIEWER)).status_code == 200:
            assert datetime.now(UTC) < deadline, "an expired key is still accepted"

        assert response.status_code == 401
        assert datetime.now(UTC) >= expires
        states = {item["id"]: item["state"] for item in await listed(gql)}
        assert states[created["apiKey"]["id"]] == "EXPIRED"
        assert [item["id"] for item in await listed(gql, state="EXPIRED")] == [created["apiKey"]["id"]]


class TestLastUsed:
    async def test_the_last_use_is_written_once_per_minute_not_per_request(
        self, gql: GraphQLClient, keys: Keys, count_queries: StatementCounter
    ) -> None:
        home = await keys.space("home")
        created = await create(gql, role="VIEWER", spaceId=home.id)
        client = gql.as_key(created["secret"])
        before = datetime.now(UTC)
        already = count_queries.count

        for _ in range(5):
            await client.execute(VIEWER)

        statements = count_queries.statements[already:]
        stamps = [statement for statement in statements if "last_used_at=" in statement.replace(" ", "")]
        assert len(stamps) == 1, stamps
        key = next(item for item in await listed(gql) if item["id"] == created["apiKey"]["id"])
        assert before - timedelta(seconds=1) <= datetime.fromisoformat(key["lastUsedAt"]) <= datetime.now(UTC)
