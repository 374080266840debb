"""The mutation boundary: one transaction, DomainErrors turned into userErrors."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import DomainError
from schema.context import Info
from schema.errors import UserError

Result = TypeVar("Result")


async def in_transaction(
    info: Info, action: Callable[[AsyncSession], Awaitable[Result]]
) -> tuple[Result | None, list[UserError]]:
    """Run ``action`` in one transaction; commit on success, roll back on a DomainError."""
    try:
        async with info.context.transaction() as session:
            result = await action(session)
    except DomainError as error:
        return None, [UserError.from_domain(error)]
    return result, []
