"""API keys in the spaces service: hashed at rest, revocable, tied to a role and a space."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import pytest
from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.errors import DomainError
from app.principal import Principal, Role
from app.spaces import service
from app.spaces.models import SYSTEM_SPACE_ID, ApiKey
from tests.conftest import Keys

SessionFactory = async_sessionmaker[AsyncSession]


async def authenticate(session_factory: SessionFactory, raw_key: str) -> Principal | None:
    async with session_factory() as session:
        return await service.authenticate(session, raw_key)


async def api_key_rows(session_factory: SessionFactory) -> list[ApiKey]:
    async with session_factory() as session:
        return list((await session.scalars(select(ApiKey))).all())


class TestKeyStorage:
    async def test_only_the_hash_of_the_key_is_stored(self, session_factory: SessionFactory) -> None:
        async with session_factory() as session, session.begin():
            row, raw = await service.create_api_key(session, role=Role.ADMIN, space_id=None, label="ops")

        assert raw.startswith("qk_")
        async with session_factory() as session:
            stored = (await session.execute(text("SELECT * FROM api_key"))).mappings().all()
        assert len(stored) == 1
        values = [str(value) for value in stored[0].values() if value is not None]
        assert all(raw not in value for value in values), stored
        assert all(raw.removeprefix("qk_") not in value for value in values), stored
        assert stored[0]["key_hash"] == hashlib.sha256(raw.encode()).hexdigest()
        assert stored[0]["id"] == row.id

    async def test_each_key_is_different(self, session_factory: SessionFactory) -> None:
        async with session_factory() as session, session.begin():
            _, first = await service.create_api_key(session, role=Role.ADMIN, space_id=None)
            _, second = await service.create_api_key(session, role=Role.ADMIN, space_id=None)

        assert first != second
        assert len(first) > len("qk_") + 30


class TestAuthenticate:
    async def test_admin_key_authenticates_as_admin_without_space(self, session_factory: SessionFactory) -> None:
        async with session_factory() as session, session.begin():
            row, raw = await service.create_api_key(session, role=Role.ADMIN, space_id=None)

        principal = await authenticate(session_factory, raw)

        assert principal == Principal(key_id=row.id, role=Role.ADMIN, space_id=None)

    @pytest.mark.parametrize("role", [Role.SPACE_ADMIN, Role.MEMBER, Role.VIEWER], ids=lambda role: role.value)
    async def test_space_key_authenticates_with_its_role_and_space(
        self, session_factory: SessionFactory, keys: Keys, role: Role
    ) -> None:
        space = await keys.space("keyed")
        async with session_factory() as session, session.begin():
            row, raw = await service.create_api_key(session, role=role, space_id=space.id)

        principal = await authenticate(session_factory, raw)

        assert principal == Principal(key_id=row.id, role=role, space_id=space.id)

    async def test_unknown_key_does_not_authenticate(self, session_factory: SessionFactory, keys: Keys) -> None:
        raw = await keys.admin()

        assert await authenticate(session_factory, raw + "x") is None
        assert await authenticate(session_factory, "qk_unknown") is None
        assert await authenticate(session_factory, "") is None

    async def test_the_stored_hash_is_not_a_key(self, session_factory: SessionFactory, keys: Keys) -> None:
        raw = await keys.admin()

        assert await authenticate(session_factory, service.hash_key(raw)) is None

    async def test_revoked_key_does_not_authenticate(self, session_factory: SessionFactory, keys: Keys) -> None:
        revoked = await keys.admin()
        kept = await keys.admin()
        assert await authenticate(session_factory, revoked) is not None

        async with session_factory() as session, session.begin():
            await session.execute(
                update(ApiKey).where(ApiKey.key_hash == service.hash_key(revoked)).values(revoked_at=datetime.now(UTC))
            )

        assert await authenticate(session_factory, revoked) is None
        assert await authenticate(session_factory, kept) is not None


class TestKeyRules:
    async def test_admin_key_with_a_space_is_refused(self, session_factory: SessionFactory) -> None:
        async with session_factory() as session, session.begin():
            with pytest.raises(DomainError) as caught:
                await service.create_api_key(session, role=Role.ADMIN, space_id=SYSTEM_SPACE_ID)

        assert caught.value.code == "INVALID"
        assert caught.value.field == ["space"]
        assert await api_key_rows(session_factory) == []

    @pytest.mark.parametrize("role", [Role.SPACE_ADMIN, Role.MEMBER, Role.VIEWER], ids=lambda role: role.value)
    async def test_space_key_without_a_space_is_refused(self, session_factory: SessionFactory, role: Role) -> None:
        async with session_factory() as session, session.begin():
            with pytest.raises(DomainError) as caught:
                await service.create_api_key(session, role=role, space_id=None)

        assert caught.value.code == "INVALID"
        assert caught.value.field == ["space"]
        assert await api_key_rows(session_factory) == []

    async def test_space_key_for_an_unknown_space_is_not_found(self, session_factory: SessionFactory) -> None:
        async with session_factory() as session, session.begin():
            with pytest.raises(DomainError) as caught:
                await service.create_api_key(session, role=Role.MEMBER, space_id="sp_nope")

        assert caught.value.code == "NOT_FOUND"
        assert "sp_nope" in caught.value.message
        assert await api_key_rows(session_factory) == []


class TestAdminToken:
    async def test_configured_token_becomes_an_admin_key_once(self, session_factory: SessionFactory) -> None:
        token = "configured-admin-token"
        for _ in range(2):
            async with session_factory() as session, session.begin():
                await service.ensure_admin_token(session, token)

        rows = await api_key_rows(session_factory)
        assert len(rows) == 1
        assert rows[0].key_hash == service.hash_key(token)
        principal = await authenticate(session_factory, token)
        assert principal is not None
        assert principal.role is Role.ADMIN
        assert principal.space_id is None


class TestFirstAdminKey:
    async def test_created_when_no_key_exists(self, session_factory: SessionFactory) -> None:
        async with session_factory() as session, session.begin():
            raw = await service.create_first_admin_key(session)

        assert raw is not None
        principal = await authenticate(session_factory, raw)
        assert principal is not None
        assert principal.role is Role.ADMIN

    async def test_not_created_again(self, session_factory: SessionFactory) -> None:
        async with session_factory() as session, session.begin():
            first = await service.create_first_admin_key(session)
        async with session_factory() as session, session.begin():
            second = await service.create_first_admin_key(session)

        assert first is not None
        assert second is None
        assert len(await api_key_rows(session_factory)) == 1

    async def test_not_created_when_any_key_exists(self, session_factory: SessionFactory, keys: Keys) -> None:
        space = await keys.space("existing")
        await keys.for_space(space.id, Role.VIEWER)

        async with session_factory() as session, session.begin():
            raw = await service.create_first_admin_key(session)

        assert raw is None
        assert len(await api_key_rows(session_factory)) == 1
