"""Every SQL statement about knowledge bases and documents."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.knowledge.models import Document, KnowledgeBase
from app.pagination import Page, PageRequest, count, fetch_page


def _kb_statement(space_id: str | None) -> Select[KnowledgeBase]:
    statement = select(KnowledgeBase).where(KnowledgeBase.status != "ARCHIVED")
    if space_id is not None:
        statement = statement.where(KnowledgeBase.space_id == space_id)
    return statement


async def list_knowledge_bases(
    session: AsyncSession, space_id: str | None, page: PageRequest
) -> Page[KnowledgeBase]:
    return await fetch_page(session, _kb_statement(space_id), KnowledgeBase.id, page)


async def count_knowledge_bases(session: AsyncSession, space_id: str | None) -> int:
    return await count(session, _kb_statement(space_id))


async def get_knowledge_base(session: AsyncSession, kb_id: str) -> KnowledgeBase | None:
    return await session.get(KnowledgeBase, kb_id)


async def knowledge_bases_by_ids(
    session: AsyncSession, kb_ids: Sequence[str]
) -> list[KnowledgeBase]:
    if not kb_ids:
        return []
    statement = select(KnowledgeBase).where(KnowledgeBase.id.in_(kb_ids))
    return list((await session.scalars(statement)).all())


async def get_by_name(session: AsyncSession, space_id: str, name: str) -> KnowledgeBase | None:
    return await session.scalar(
        select(KnowledgeBase).where(KnowledgeBase.space_id == space_id, KnowledgeBase.name == name)
    )


async def document_counts(session: AsyncSession, kb_ids: Sequence[str]) -> dict[str, int]:
    if not kb_ids:
        return {}
    statement = (
        select(Document.knowledge_base_id, func.count())
        .where(Document.knowledge_base_id.in_(kb_ids))
        .group_by(Document.knowledge_base_id)
    )
    return {kb_id: int(total) for kb_id, total in (await session.execute(statement)).all()}


def _documents_statement(kb_id: str) -> Select[Document]:
    return select(Document).where(Document.knowledge_base_id == kb_id)


async def list_documents(session: AsyncSession, kb_id: str, page: PageRequest) -> Page[Document]:
    return await fetch_page(session, _documents_statement(kb_id), Document.id, page)


async def count_documents(session: AsyncSession, kb_id: str) -> int:
    return await count(session, _documents_statement(kb_id))


async def get_document(session: AsyncSession, document_id: str) -> Document | None:
    return await session.get(Document, document_id)
