"""Rules for spaces and API keys (authentication lives here)."""

from __future__ import annotations

import hashlib
import re
import secrets

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import DomainError, ForbiddenError
from app.ids import new_id
from app.principal import Principal, Role
from app.spaces import repository
from app.spaces.models import ApiKey, Space

KEY_PREFIX = "qk_"
SPACE_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def hash_key(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode()).hexdigest()


async def authenticate(session: AsyncSession, raw_key: str) -> Principal | None:
    """The principal of a raw key, or None when the key is unknown or revoked."""
    api_key = await repository.get_api_key_by_hash(session, hash_key(raw_key))
    if api_key is None:
        return None
    return Principal(key_id=api_key.id, role=Role(api_key.role), space_id=api_key.space_id)


async def create_api_key(
    session: AsyncSession,
    *,
    role: Role,
    space_id: str | None,
    label: str | None = None,
    raw_key: str | None = None,
) -> tuple[ApiKey, str]:
    """Create a key; returns the row and the raw key, which is shown once and never stored."""
    if role is Role.ADMIN and space_id is not None:
        raise DomainError("INVALID", "An ADMIN key reaches every space; give no space.", ["space"])
    if role is not Role.ADMIN:
        if space_id is None:
            raise DomainError("INVALID", f"A {role.value} key needs a space.", ["space"])
        if await repository.get_space(session, space_id) is None:
            raise DomainError("NOT_FOUND", f"Space {space_id!r} not found.", ["space"])
    raw = raw_key or KEY_PREFIX + secrets.token_urlsafe(32)
    api_key = ApiKey(id=new_id("key_"), key_hash=hash_key(raw), space_id=space_id, role=role.value, label=label)
    session.add(api_key)
    await session.flush()
    return api_key, raw


async def ensure_admin_token(session: AsyncSession, raw_key: str) -> None:
    """Make ``QUIVER_ADMIN_TOKEN`` a valid admin key (idempotent)."""
    if await repository.get_api_key_by_hash(session, hash_key(raw_key)) is None:
        await create_api_key(session, role=Role.ADMIN, space_id=None, label="QUIVER_ADMIN_TOKEN", raw_key=raw_key)


async def create_first_admin_key(session: AsyncSession) -> str | None:
    """With no key at all, create an admin key and return it (once); otherwise None."""
    if await repository.any_api_key(session):
        return None
    _, raw = await create_api_key(session, role=Role.ADMIN, space_id=None, label="first run")
    return raw


async def create_space(session: AsyncSession, principal: Principal, name: str, label: str) -> Space:
    if not principal.is_admin:
        raise ForbiddenError("Only ADMIN keys create spaces.", ["input"])
    if not SPACE_NAME_PATTERN.match(name):
        raise DomainError(
            "INVALID_NAME",
            "Space names are 1-64 characters of a-z, 0-9, '_' and '-', starting with a letter or digit.",
            ["input", "name"],
        )
    if not label.strip():
        raise DomainError("INVALID", "Label must not be empty.", ["input", "label"])
    if await repository.get_space_by_name(session, name) is not None:
        raise DomainError("DUPLICATE", f"A space named {name!r} already exists.", ["input", "name"])
    space = Space(id=new_id("sp_"), name=name, label=label.strip(), is_system=False)
    session.add(space)
    await session.flush()
    return space


async def get_readable_space(session: AsyncSession, principal: Principal, space_id: str) -> Space | None:
    """The space if the caller may read it; None otherwise (absent and forbidden look alike)."""
    if not principal.can_read_space(space_id):
        return None
    return await repository.get_space(session, space_id)


async def require_readable_space(session: AsyncSession, principal: Principal, space_id: str, field: list[str]) -> Space:
    space = await get_readable_space(session, principal, space_id)
    if space is None:
        raise DomainError("NOT_FOUND", f"Space {space_id!r} not found.", field)
    return space
