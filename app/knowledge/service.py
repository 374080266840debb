"""Rules for knowledge base records (ingest and search come with the knowledge issue)."""

from __future__ import annotations

import re

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import DomainError, ForbiddenError, NotFoundError
from app.ids import new_id
from app.knowledge import repository
from app.knowledge.models import Document, KnowledgeBase
from app.principal import Principal
from app.spaces import repository as spaces_repository
from app.validation import check_not_blank

KB_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


async def get_knowledge_base_for(
    session: AsyncSession, principal: Principal, kb_id: str
) -> KnowledgeBase | None:
    kb = await repository.get_knowledge_base(session, kb_id)
    if kb is None or not principal.can_read_space(kb.space_id):
        return None
    return kb


async def get_document_for(
    session: AsyncSession, principal: Principal, document_id: str
) -> Document | None:
    document = await repository.get_document(session, document_id)
    if document is None:
        return None
    if await get_knowledge_base_for(session, principal, document.knowledge_base_id) is None:
        return None
    return document


async def create_knowledge_base(
    session: AsyncSession,
    principal: Principal,
    *,
    space_id: str,
    name: str,
    label: str,
    description: str | None,
) -> KnowledgeBase:
    if (
        not principal.can_read_space(space_id)
        or await spaces_repository.get_space(session, space_id) is None
    ):
        raise NotFoundError("Space", space_id, ["input", "spaceId"])
    if not principal.can_manage_space(space_id):
        raise ForbiddenError("This key may not create knowledge bases in that space.", ["input", "spaceId"])
    if not KB_NAME.match(name):
        raise DomainError(
            "INVALID_NAME", "Knowledge base names match ^[a-zA-Z0-9_-]{1,64}$.", ["input", "name"]
        )
    if await repository.get_by_name(session, space_id, name) is not None:
        raise DomainError(
            "DUPLICATE", f"A knowledge base named {name!r} exists in this space.", ["input", "name"]
        )
    kb = KnowledgeBase(
        id=new_id("kb_"),
        space_id=space_id,
        name=name,
        label=check_not_blank(label, ["input", "label"]),
        description=(description or "").strip() or None,
        status="ACTIVE",
    )
    session.add(kb)
    await session.flush()
    return kb
