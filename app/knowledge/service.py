"""Rules for knowledge bases and their documents: who may write, what a document must be,
how a re-ingested source replaces its chunks, which knowledge bases a search may reach."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.db import lock_name, utcnow
from app.errors import DomainError, ForbiddenError, NotFoundError
from app.ids import new_id
from app.knowledge import repository
from app.knowledge.chunking import ChunkDraft
from app.knowledge.lead import lead_index_text
from app.knowledge.models import Document, KnowledgeBase
from app.principal import Principal
from app.spaces import repository as spaces_repository
from app.validation import check_not_blank

KB_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


async def get_knowledge_base_for(session: AsyncSession, principal: Principal, kb_id: str) -> KnowledgeBase | None:
    kb = await repository.get_knowledge_base(session, kb_id)
    if kb is None or not principal.can_read_space(kb.space_id):
        return None
    return kb


async def get_document_for(session: AsyncSession, principal: Principal, document_id: str) -> Document | None:
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
    if not principal.can_read_space(space_id) or await spaces_repository.get_space(session, space_id) is None:
        raise NotFoundError("Space", space_id, ["input", "spaceId"])
    if not principal.can_manage_space(space_id):
        raise ForbiddenError("This key may not create knowledge bases in that space.", ["input", "spaceId"])
    if not KB_NAME.match(name):
        raise DomainError("INVALID_NAME", "Knowledge base names match ^[a-zA-Z0-9_-]{1,64}$.", ["input", "name"])
    await lock_name(session, "knowledge_base", f"{space_id}/{name}")
    if await repository.get_by_name(session, space_id, name) is not None:
        raise DomainError("DUPLICATE", f"A knowledge base named {name!r} exists in this space.", ["input", "name"])
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


# ------------------------------------------------------------------ documents

MAX_TITLE_LENGTH = 500
MAX_DOCUMENT_CHARS = 5_000_000


@dataclass(frozen=True)
class DocumentInput:
    """What a caller gives: checked by ``check_document_input``."""

    knowledge_base_id: str
    title: str
    text: str
    source: str | None = None


@dataclass(frozen=True)
class PreparedDocument:
    """A checked document, chunked and (with a provider) embedded, ready to be stored."""

    knowledge_base_id: str
    title: str
    source: str | None
    content_hash: str
    chunks: list[ChunkDraft]
    index_texts: list[str]
    vectors: list[bytes] | None
    embedding_model: str | None


@dataclass(frozen=True)
class StoredDocument:
    document: Document
    #: CREATED, REPLACED (same source ingested again) or UNCHANGED (same source, same content).
    outcome: str


def source_key(source: str | None) -> str | None:
    return hashlib.sha256(source.encode()).hexdigest() if source else None


def check_document_input(data: DocumentInput, field: Sequence[str] = ("input",)) -> DocumentInput:
    """Title and text present and within limits; a blank source counts as none."""
    prefix = list(field)
    title = data.title.strip()
    if not title:
        raise DomainError("INVALID", "A document needs a title.", [*prefix, "title"])
    if len(title) > MAX_TITLE_LENGTH:
        raise DomainError("TOO_LONG", f"Titles are limited to {MAX_TITLE_LENGTH} characters.", [*prefix, "title"])
    if not data.text.strip():
        raise DomainError("EMPTY_DOCUMENT", f"Document {title!r} has no text.", [*prefix, "text"])
    if len(data.text) > MAX_DOCUMENT_CHARS:
        raise DomainError(
            "TOO_LARGE", f"Document {title!r} is over {MAX_DOCUMENT_CHARS} characters.", [*prefix, "text"]
        )
    source = (data.source or "").strip() or None
    return DocumentInput(data.knowledge_base_id, title, data.text, source)


async def writable_knowledge_base(
    session: AsyncSession, principal: Principal, kb_id: str, field: Sequence[str] = ("input", "knowledgeBaseId")
) -> KnowledgeBase:
    """The ACTIVE knowledge base ``principal`` may add documents to.

    Unknown, archived and other spaces' knowledge bases are all NOT_FOUND (they look alike);
    a key that can read the space but not manage it gets FORBIDDEN.
    """
    kb = await get_knowledge_base_for(session, principal, kb_id)
    if kb is None or kb.status != "ACTIVE":
        raise NotFoundError("Knowledge base", kb_id, field)
    if not principal.can_manage_space(kb.space_id):
        raise ForbiddenError("This key may not add documents to that knowledge base.", field)
    return kb


async def unchanged_document(
    session: AsyncSession, kb_id: str, source: str | None, content_hash: str
) -> Document | None:
    """The stored document of that source when its content (and chunking) has not changed."""
    key = source_key(source)
    if key is None:
        return None
    existing = await repository.get_document_by_source(session, kb_id, key)
    return existing if existing is not None and existing.content_hash == content_hash else None


async def store_document(session: AsyncSession, principal: Principal, prepared: PreparedDocument) -> StoredDocument:
    """Write a document and its chunks in the caller's transaction.

    A source already in the knowledge base is replaced: same document id, its old
    chunks deleted, the new ones inserted, so a document and its chunks always change
    together and never twice. The document's lead (``app.knowledge.lead``) is indexed with its
    first chunk, so it changes (and goes) with the chunks.
    """
    await writable_knowledge_base(session, principal, prepared.knowledge_base_id)
    key = source_key(prepared.source)
    document: Document | None = None
    if key is not None:
        document = await repository.get_document_by_source(session, prepared.knowledge_base_id, key)
    outcome = "REPLACED"
    if document is None:
        now = utcnow()
        document = await repository.insert_document(
            session,
            {
                "id": new_id("doc_"),
                "knowledge_base_id": prepared.knowledge_base_id,
                "title": prepared.title,
                "source": prepared.source,
                "source_key": key,
                "content_hash": prepared.content_hash,
                "chunk_count": len(prepared.chunks),
                "created_at": now,
                "updated_at": now,
            },
        )
        outcome = "CREATED"
        if document is None:  # the same source arrived meanwhile: replace it instead
            assert key is not None  # documents without a source never collide
            document = await repository.get_document_by_source(session, prepared.knowledge_base_id, key)
            assert document is not None
            outcome = "REPLACED"
    if outcome == "REPLACED":
        if document.content_hash == prepared.content_hash:
            return StoredDocument(document, "UNCHANGED")
        await repository.delete_chunks(session, document.id)
        document.title = prepared.title
        document.content_hash = prepared.content_hash
        document.chunk_count = len(prepared.chunks)
        document.updated_at = utcnow()
        await session.flush()
    rows = [
        {
            "document_id": document.id,
            "knowledge_base_id": prepared.knowledge_base_id,
            "position": chunk.position,
            "heading_path": list(chunk.heading_path),
            "text": chunk.text,
            "embedding": prepared.vectors[index] if prepared.vectors is not None else None,
            "embedding_model": prepared.embedding_model if prepared.vectors is not None else None,
            "created_at": utcnow(),
        }
        for index, chunk in enumerate(prepared.chunks)
    ]
    first = next((chunk for chunk in prepared.chunks if chunk.position == 0), None)
    lead = lead_index_text(prepared.title, first.text) if first is not None else None
    await repository.insert_chunks(session, rows, prepared.index_texts, lead)
    await repository.bump_content_version(session, prepared.knowledge_base_id)
    return StoredDocument(document, outcome)


# ------------------------------------------------------------------ search scope


async def searchable_knowledge_bases(
    session: AsyncSession, principal: Principal, space_id: str, kb_ids: Sequence[str] | None
) -> list[KnowledgeBase]:
    """The ACTIVE knowledge bases of ``space_id`` the principal may search, optionally narrowed.

    A space out of reach gives nothing; ids of other spaces, archived or unknown
    knowledge bases are left out (they look absent).
    """
    if not principal.can_read_space(space_id):
        return []
    return await repository.active_knowledge_bases(session, space_id, None if kb_ids is None else list(kb_ids))
