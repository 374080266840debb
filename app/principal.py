"""Who is calling: the principal behind an API key, and what it may reach."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

Row = TypeVar("Row")


class Role(StrEnum):
    ADMIN = "ADMIN"
    SPACE_ADMIN = "SPACE_ADMIN"
    MEMBER = "MEMBER"
    VIEWER = "VIEWER"


@dataclass(frozen=True)
class Principal:
    """An authenticated caller. ``space_id`` is None only for ADMIN keys."""

    key_id: str
    role: Role
    space_id: str | None

    @property
    def tenant(self) -> str:
        """Whose share of the process this caller uses: its space; an ADMIN key is a tenant of its own."""
        return self.space_id or f"key:{self.key_id}"

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN

    def can_read_space(self, space_id: str | None) -> bool:
        return self.is_admin or (space_id is not None and space_id == self.space_id)

    def can_manage_space(self, space_id: str | None) -> bool:
        """Create and change custom tools, skills, KBs and agents of that space."""
        return self.is_admin or (self.role is Role.SPACE_ADMIN and space_id is not None and space_id == self.space_id)

    def can_invoke_in_space(self, space_id: str) -> bool:
        return self.is_admin or (space_id == self.space_id and self.role in (Role.SPACE_ADMIN, Role.MEMBER))

    def as_json(self) -> dict[str, str | None]:
        """The principal as stored with work another replica may continue."""
        return {"keyId": self.key_id, "role": self.role.value, "spaceId": self.space_id}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Principal:
        return cls(key_id=data["keyId"], role=Role(data["role"]), space_id=data["spaceId"])

    @property
    def reach(self) -> str | None:
        """The space a listing is limited to; None means every space."""
        return None if self.is_admin else self.space_id


SYSTEM_PRINCIPAL = Principal(key_id="system", role=Role.ADMIN, space_id=None)


async def within_reach(
    principal: Principal, row: Row | None, is_visible_in: Callable[[str], Awaitable[bool]]
) -> Row | None:
    """``row`` when the caller may see it: any row for ADMIN keys, otherwise when ``is_visible_in`` its space."""
    if row is None or principal.is_admin:
        return row
    assert principal.space_id is not None
    return row if await is_visible_in(principal.space_id) else None
