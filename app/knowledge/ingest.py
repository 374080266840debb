"""Turning a document into storable chunks: chunk, build lexical index text, embed.

Everything slow (chunking, embedding) happens here, before any transaction opens; the
write itself (``service.store_document``) is then short.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.errors import DomainError
from app.knowledge import service
from app.knowledge.chunking import ChunkDraft, ChunkingOptions, Section, chunk_markdown, chunk_plain, chunk_sections
from app.knowledge.embeddings import EmbeddingError, EmbeddingProvider, passage_texts, to_bytes
from app.knowledge.service import DocumentInput, PreparedDocument, StoredDocument
from app.knowledge.tokens import index_text
from app.principal import Principal

HEADING_SEPARATOR = " \u203a "  # a single right-pointing angle quotation mark


def chunking_options(settings: Settings) -> ChunkingOptions:
    return ChunkingOptions(size=settings.chunk_size, overlap=settings.chunk_overlap)


def contextual_text(title: str, heading_path: Sequence[str], text: str) -> str:
    """A chunk with its document title and headings in front: what is indexed and embedded,
    so that a passage is found by the words of the section it belongs to."""
    heading = HEADING_SEPARATOR.join(heading_path)
    return f"{title}\n{heading}\n{text}" if heading else f"{title}\n{text}"


class Ingestor:
    """Prepares documents for ``service.store_document`` with one chunking and embedding setup."""

    def __init__(self, options: ChunkingOptions, embedder: EmbeddingProvider | None) -> None:
        self.options = options
        self.embedder = embedder

    def content_hash(self, data: DocumentInput, kind: str = "markdown") -> str:
        """Changes when anything that shapes the stored chunks changes: text, title, format,
        chunking settings, embedding model or how much of a passage it embeds."""
        model = self.embedder.model_name if self.embedder else "none"
        passage_chars = getattr(self.embedder, "passage_chars", 0)
        if passage_chars:
            model += f"/{passage_chars}"
        digest = hashlib.sha256()
        for part in (self.options.fingerprint, model, kind, data.title, data.text):
            digest.update(part.encode())
            digest.update(b"\x00")
        return digest.hexdigest()

    def chunk(
        self, data: DocumentInput, kind: str = "markdown", sections: Sequence[Section] | None = None
    ) -> list[ChunkDraft]:
        if sections is not None:
            return chunk_sections(list(sections), self.options)
        if kind == "plain":
            return chunk_plain(data.text, self.options)
        return chunk_markdown(data.text, self.options)

    async def prepare(
        self, data: DocumentInput, *, kind: str = "markdown", sections: Sequence[Section] | None = None
    ) -> PreparedDocument:
        """``data`` must already have passed ``service.check_document_input``."""
        chunks = self.chunk(data, kind, sections)
        if not chunks:
            raise DomainError("EMPTY_DOCUMENT", f"Document {data.title!r} has no text.", ["input", "text"])
        contextual = [contextual_text(data.title, chunk.heading_path, chunk.text) for chunk in chunks]
        vectors: list[bytes] | None = None
        if self.embedder is not None:
            try:
                matrix = await self.embedder.embed(passage_texts(self.embedder, contextual))
            except EmbeddingError as error:
                raise DomainError(
                    "EMBEDDING_FAILED", f"Document {data.title!r} could not be embedded: {error}", ["input", "text"]
                ) from error
            vectors = [to_bytes(row) for row in matrix]
        return PreparedDocument(
            knowledge_base_id=data.knowledge_base_id,
            title=data.title,
            source=data.source,
            content_hash=self.content_hash(data, kind),
            chunks=chunks,
            index_texts=[index_text(text) for text in contextual],
            vectors=vectors,
            embedding_model=self.embedder.model_name if self.embedder else None,
        )


async def add_document(
    session_factory: async_sessionmaker[AsyncSession], principal: Principal, ingestor: Ingestor, data: DocumentInput
) -> StoredDocument:
    """``addDocument``: one document into a knowledge base the caller may write to.

    In three steps, so no transaction is held while the text is embedded (that can take as long
    as an embedding model does): the cheap checks in a short read (the input, access, then
    "nothing changed": UNCHANGED, nothing written), chunking and embedding outside any
    transaction, then the write in a transaction of its own. Raises DomainError.
    """
    data = service.check_document_input(data)
    async with session_factory() as session:
        await service.writable_knowledge_base(session, principal, data.knowledge_base_id)
        unchanged = await service.unchanged_document(
            session, data.knowledge_base_id, data.source, ingestor.content_hash(data)
        )
    if unchanged is not None:
        return StoredDocument(unchanged, "UNCHANGED")
    prepared = await ingestor.prepare(data)
    async with session_factory() as session, session.begin():
        return await service.store_document(session, principal, prepared)
