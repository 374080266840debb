"""Rules for spaces and API keys (authentication lives here)."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from app.db import lock_name, utcnow
from app.errors import DomainError, ForbiddenError, NotFoundError
from app.ids import new_id
from app.pagination import Page, PageRequest
from app.principal import Principal, Role
from app.spaces import repository
from app.spaces.models import ApiKey, Space

KEY_PREFIX = "qk_"
SPACE_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
MAX_KEY_LABEL_CHARS = 200
ENVIRONMENT_KEY_LABEL = "QUIVER_ADMIN_TOKEN"
#: A key's last use is recorded to this resolution: one write per key and minute, not one per request.
LAST_USED_RESOLUTION_S = 60.0
KEY_STATES = ("ACTIVE", "EXPIRED", "REVOKED")


def hash_key(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode()).hexdigest()


@dataclass(frozen=True)
class KeyStanding:
    """What authentication needs of an unrevoked key; kept in the replicas' key caches."""

    principal: Principal
    expires_at: datetime | None

    def is_valid_at(self, now: datetime) -> bool:
        return self.expires_at is None or now < self.expires_at


def key_state(api_key: ApiKey, now: datetime) -> str:
    """ACTIVE, EXPIRED or REVOKED (revocation wins over expiry)."""
    if api_key.revoked_at is not None:
        return "REVOKED"
    if api_key.expires_at is not None and api_key.expires_at <= now:
        return "EXPIRED"
    return "ACTIVE"


async def key_standing(session: AsyncSession, raw_key: str) -> KeyStanding | None:
    """The standing of a raw key, or None when it is unknown or revoked (expiry is checked at use)."""
    api_key = await repository.get_api_key_by_hash(session, hash_key(raw_key))
    if api_key is None:
        return None
    principal = Principal(key_id=api_key.id, role=Role(api_key.role), space_id=api_key.space_id)
    return KeyStanding(principal, api_key.expires_at)


async def authenticate(session: AsyncSession, raw_key: str) -> Principal | None:
    """The principal of a raw key, or None when the key is unknown, revoked or expired."""
    standing = await key_standing(session, raw_key)
    if standing is None or not standing.is_valid_at(utcnow()):
        return None
    return standing.principal


async def create_api_key(
    session: AsyncSession,
    *,
    role: Role,
    space_id: str | None,
    label: str | None = None,
    expires_at: datetime | None = None,
    raw_key: str | None = None,
    field_prefix: tuple[str, ...] = (),
) -> tuple[ApiKey, str]:
    """Create a key; returns the row and the raw key, which is shown once and never stored."""
    space_field = [*field_prefix, "spaceId"] if field_prefix else ["space"]
    if role is Role.ADMIN and space_id is not None:
        raise DomainError("INVALID", "An ADMIN key reaches every space; give no space.", space_field)
    if role is not Role.ADMIN:
        if space_id is None:
            raise DomainError("INVALID", f"A {role.value} key needs a space.", space_field)
        if await repository.get_space(session, space_id) is None:
            raise NotFoundError("Space", space_id, space_field)
    label = label.strip() if label is not None else None
    if label is not None and len(label) > MAX_KEY_LABEL_CHARS:
        raise DomainError("TOO_LONG", f"A label is at most {MAX_KEY_LABEL_CHARS} characters.", [*field_prefix, "label"])
    if expires_at is not None and expires_at <= utcnow():
        raise DomainError("INVALID", "The expiry must be in the future.", [*field_prefix, "expiresAt"])
    raw = raw_key or KEY_PREFIX + secrets.token_urlsafe(32)
    api_key = ApiKey(
        id=new_id("key_"),
        key_hash=hash_key(raw),
        space_id=space_id,
        role=role.value,
        label=label or None,
        expires_at=expires_at,
    )
    session.add(api_key)
    await session.flush()
    return api_key, raw


async def ensure_admin_token(session: AsyncSession, raw_key: str) -> None:
    """Make ``QUIVER_ADMIN_TOKEN`` a valid admin key (idempotent). The variable is the
    operator's word: a row of it revoked earlier (when the variable was unset) is restored."""
    existing = await repository.get_any_api_key_by_hash(session, hash_key(raw_key))
    if existing is None:
        await create_api_key(session, role=Role.ADMIN, space_id=None, label=ENVIRONMENT_KEY_LABEL, raw_key=raw_key)
    elif existing.revoked_at is not None or existing.expires_at is not None:
        existing.revoked_at = None
        existing.expires_at = None
        await session.flush()


def may_see_api_key(principal: Principal, api_key: ApiKey) -> bool:
    """ADMIN keys see every key; SPACE_ADMIN keys those of their space; other keys none."""
    if principal.is_admin:
        return True
    return (
        principal.role is Role.SPACE_ADMIN and api_key.space_id is not None and api_key.space_id == principal.space_id
    )


async def list_api_keys(
    session: AsyncSession, principal: Principal, space_id: str | None, state: str | None, page: PageRequest
) -> tuple[Page[ApiKey], repository.ApiKeyFilter] | None:
    """A page of the keys the caller may see (None: nothing it may see matches)."""
    key_filter = _key_filter(principal, space_id, state)
    if key_filter is None:
        return None
    return await repository.list_api_keys(session, key_filter, page), key_filter


def _key_filter(principal: Principal, space_id: str | None, state: str | None) -> repository.ApiKeyFilter | None:
    if principal.is_admin:
        return repository.ApiKeyFilter(space_id=space_id, state=state, now=utcnow())
    if principal.role is not Role.SPACE_ADMIN or (space_id is not None and space_id != principal.space_id):
        return None
    return repository.ApiKeyFilter(space_id=principal.space_id, state=state, now=utcnow())


async def get_api_key_for(session: AsyncSession, principal: Principal, key_id: str) -> ApiKey | None:
    api_key = await repository.get_api_key(session, key_id)
    return api_key if api_key is not None and may_see_api_key(principal, api_key) else None


async def create_api_key_for(
    session: AsyncSession,
    principal: Principal,
    *,
    role: Role,
    space_id: str | None,
    label: str | None,
    expires_at: datetime | None,
) -> tuple[ApiKey, str]:
    """createApiKey: ADMIN keys make any key; SPACE_ADMIN keys make keys of their own space
    (SPACE_ADMIN, MEMBER or VIEWER); other keys none."""
    prefix = ("input",)
    if not principal.is_admin:
        if principal.role is not Role.SPACE_ADMIN:
            raise ForbiddenError("Only ADMIN and SPACE_ADMIN keys create keys.", ["input"])
        space_id = space_id or principal.space_id
        if space_id != principal.space_id:
            raise NotFoundError("Space", str(space_id), ["input", "spaceId"])
        if role is Role.ADMIN:
            raise ForbiddenError("Only ADMIN keys create ADMIN keys.", ["input", "role"])
    return await create_api_key(
        session, role=role, space_id=space_id, label=label, expires_at=expires_at, field_prefix=prefix
    )


async def revoke_api_key(
    session: AsyncSession, principal: Principal, key_id: str, environment_key: str | None
) -> ApiKey:
    """Revoke a key at once (every replica drops it from its cache on the commit). Revoking
    a revoked key changes nothing; the key of ``QUIVER_ADMIN_TOKEN`` is refused while it is set."""
    field = ["input", "id"]
    api_key = await get_api_key_for(session, principal, key_id)
    if api_key is None:
        raise NotFoundError("API key", key_id, field)
    if environment_key is not None and api_key.key_hash == hash_key(environment_key):
        raise DomainError(
            "MANAGED_BY_ENVIRONMENT",
            "This key is QUIVER_ADMIN_TOKEN: unset the variable on every replica, then revoke it.",
            field,
        )
    if api_key.revoked_at is None:
        api_key.revoked_at = utcnow()
        await session.flush()
    return api_key


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
    await lock_name(session, "space", name)
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
