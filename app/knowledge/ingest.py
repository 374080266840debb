"""Turning a document into storable chunks: chunk, build lexical index text, embed.

Everything slow (chunking, embedding) happens here, before any transaction opens; the
write itself (``service.store_document``) is then short.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.errors import DomainError
from app.knowledge import repository, service
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


#: How many passages one worker-thread task tokenizes for the search index (~0.02 s of CPU).
INDEX_PIECE = 128


def _index_piece(piece: Sequence[str]) -> list[str]:
    return [index_text(text) for text in piece]


async def index_texts(passages: Sequence[str]) -> list[str]:
    """``index_text`` of each passage, on worker threads, a bounded piece at a time."""
    indexed: list[str] = []
    for start in range(0, len(passages), INDEX_PIECE):
        indexed.extend(await asyncio.to_thread(_index_piece, passages[start : start + INDEX_PIECE]))
    return indexed


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

    def _chunk_and_hash(self, item: ToPrepare) -> tuple[list[ChunkDraft], str]:
        """The chunks and the content hash (a pass over the whole text, ~1.3 ms a 456,000-character
        document): together on one worker thread."""
        digest = item.content_hash or self.content_hash(item.data, item.kind)
        return self.chunk(item.data, item.kind, item.sections), digest

    async def prepare(
        self,
        data: DocumentInput,
        *,
        kind: str = "markdown",
        sections: Sequence[Section] | None = None,
        content_hash: str | None = None,
    ) -> PreparedDocument:
        """``data`` must already have passed ``service.check_document_input``; ``content_hash``, its
        :meth:`content_hash` when already known. Raises DomainError."""
        (result,) = await self.prepare_many([ToPrepare(data, kind, sections, content_hash)])
        if isinstance(result, DomainError):
            raise result
        return result

    async def prepare_many(self, items: Sequence[ToPrepare]) -> list[PreparedDocument | DomainError]:
        """Several documents at once: their passages go to the embedding provider in one call
        (batches fill up across documents; the local model encodes them on worker threads, off
        the event loop). One result per item, in order: a document without text is a DomainError
        of its own; an embedding failure is one for every item."""
        drafts: list[list[ChunkDraft] | DomainError] = []
        digests: list[str] = []
        passages: list[str] = []
        for item in items:
            # Chunking, hashing and tokenizing are CPU work over the whole text (a 456,000-character
            # Chinese document held the event loop for seconds): done on worker threads, the index
            # text in pieces, so the loop keeps serving other requests (and tenants) meanwhile.
            chunks, digest = await asyncio.to_thread(self._chunk_and_hash, item)
            digests.append(digest)
            if not chunks:
                drafts.append(
                    DomainError("EMPTY_DOCUMENT", f"Document {item.data.title!r} has no text.", ["input", "text"])
                )
                continue
            drafts.append(chunks)
            passages.extend(contextual_text(item.data.title, chunk.heading_path, chunk.text) for chunk in chunks)
        vectors: list[bytes] | None = None
        if self.embedder is not None and passages:
            try:
                matrix = await self.embedder.embed(passage_texts(self.embedder, passages))
            except EmbeddingError as error:
                titles = ", ".join(repr(item.data.title) for item in items[:3]) + (" …" if len(items) > 3 else "")
                failure = DomainError(
                    "EMBEDDING_FAILED", f"Document {titles} could not be embedded: {error}", ["input", "text"]
                )
                return [failure for _ in items]
            vectors = [to_bytes(row) for row in matrix]
        indexed = await index_texts(passages)
        results: list[PreparedDocument | DomainError] = []
        offset = 0
        for item, drafted, digest in zip(items, drafts, digests, strict=True):
            if isinstance(drafted, DomainError):
                results.append(drafted)
                continue
            results.append(
                PreparedDocument(
                    knowledge_base_id=item.data.knowledge_base_id,
                    title=item.data.title,
                    source=item.data.source,
                    content_hash=digest,
                    chunks=drafted,
                    index_texts=indexed[offset : offset + len(drafted)],
                    vectors=vectors[offset : offset + len(drafted)] if vectors is not None else None,
                    embedding_model=self.embedder.model_name if self.embedder else None,
                )
            )
            offset += len(drafted)
        return results


@dataclass(frozen=True)
class ToPrepare:
    """A checked document (``service.check_document_input``) and how to read it."""

    data: DocumentInput
    kind: str = "markdown"
    sections: Sequence[Section] | None = None
    #: Its :meth:`Ingestor.content_hash`, when the caller computed it already.
    content_hash: str | None = None


#: How many characters of documents ``ingest_many`` prepares at once (about 300 chunks of 800).
BATCH_CHARS = 240_000


async def ingest_many(
    session_factory: async_sessionmaker[AsyncSession],
    principal: Principal,
    ingestor: Ingestor,
    items: Iterable[ToPrepare] | AsyncIterable[ToPrepare],
    *,
    batch_chars: int = BATCH_CHARS,
) -> AsyncIterator[tuple[ToPrepare, StoredDocument | DomainError]]:
    """Prepare and store many documents, yielding each one's outcome in order.

    Documents are prepared in groups of about ``batch_chars`` characters (one embedding call
    per group, so the model's batches are full), and the next group is prepared while the
    previous one is written: embedding runs on worker threads, the writes on the event loop.
    Each document is written in a transaction of its own (one INSERT of all its chunks), so
    a failing one leaves nothing behind and the others go on. Unchanged documents are not
    skipped here: ask ``service.unchanged_document`` first (``store_document`` still answers
    UNCHANGED for them, after preparing).
    """
    groups = _groups(items, max(1, batch_chars))
    group = await anext(groups, None)
    pending = asyncio.ensure_future(ingestor.prepare_many(group)) if group else None
    try:
        while group is not None and pending is not None:
            prepared = await pending
            following = await anext(groups, None)
            pending = asyncio.ensure_future(ingestor.prepare_many(following)) if following else None
            for item, result in zip(group, prepared, strict=True):
                if isinstance(result, DomainError):
                    yield item, result
                    continue
                try:
                    async with session_factory() as session, session.begin():
                        stored = await service.store_document(session, principal, result)
                except DomainError as error:
                    yield item, error
                    continue
                yield item, stored
            group = following
    finally:
        if pending is not None and not pending.done():
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError, DomainError):
                await pending


async def _groups(
    items: Iterable[ToPrepare] | AsyncIterable[ToPrepare], batch_chars: int
) -> AsyncIterator[list[ToPrepare]]:
    group: list[ToPrepare] = []
    size = 0
    async for item in _aiter(items):
        group.append(item)
        size += len(item.data.text)
        if size >= batch_chars:
            yield group
            group, size = [], 0
    if group:
        yield group


async def _aiter(items: Iterable[ToPrepare] | AsyncIterable[ToPrepare]) -> AsyncIterator[ToPrepare]:
    if isinstance(items, AsyncIterable):
        async for item in items:
            yield item
    else:
        for item in items:
            yield item


#: How many chunks ``reembed`` embeds per round (one embedding call, one write transaction).
REEMBED_BATCH = 512


@dataclass
class ReembedProgress:
    #: Chunks that needed a vector of the model when the run started.
    pending: int
    done: int = 0


async def reembed(
    session_factory: async_sessionmaker[AsyncSession],
    embedder: EmbeddingProvider,
    kb_ids: Sequence[str] | None = None,
    *,
    batch: int = REEMBED_BATCH,
    on_progress: Callable[[ReembedProgress], None] | None = None,
) -> ReembedProgress:
    """Give every chunk of ``kb_ids`` (None: every knowledge base) a vector of ``embedder``'s
    model: after ``QUIVER_EMBEDDINGS`` (or its model) changes, the stored vectors are of the
    old model and searches ignore them (vectors of different models are never compared), so
    search is lexical only for those chunks until this runs (``quiver kb reembed``).

    The chunks are read back from the database (title, headings, text: the same passage
    ingest embedded), in id order, ``batch`` at a time; the next batch is embedded while the
    previous one is written. Each batch is committed with the knowledge bases' content
    version bumped (every replica then reloads its vectors), so an interrupted run keeps its
    work and running it again continues where it stopped. Raises EmbeddingError.
    """
    model = embedder.model_name
    async with session_factory() as session:
        progress = ReembedProgress(await repository.count_chunks_without_vector(session, model, kb_ids))

    async def read(after_id: int) -> list[repository.ChunkToEmbed]:
        async with session_factory() as session:
            return await repository.chunks_without_vector(session, model, kb_ids, after_id, max(1, batch))

    async def embed(chunks: list[repository.ChunkToEmbed]) -> list[bytes]:
        passages = [contextual_text(chunk.title, chunk.heading_path, chunk.text) for chunk in chunks]
        return [to_bytes(row) for row in await embedder.embed(passage_texts(embedder, passages))]

    chunks = await read(0)
    pending = asyncio.ensure_future(embed(chunks)) if chunks else None
    try:
        while chunks and pending is not None:
            vectors = await pending
            following = await read(chunks[-1].id)
            pending = asyncio.ensure_future(embed(following)) if following else None
            async with session_factory() as session, session.begin():
                await repository.set_vectors(
                    session, model, [(chunk.id, vector) for chunk, vector in zip(chunks, vectors, strict=True)]
                )
                for kb_id in sorted({chunk.knowledge_base_id for chunk in chunks}):
                    await repository.bump_content_version(session, kb_id)
            progress.done += len(chunks)
            if on_progress is not None:
                on_progress(progress)
            chunks = following
    finally:
        if pending is not None and not pending.done():
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError, EmbeddingError):
                await pending
    return progress


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
    # Hashed once, on a worker thread: a pass over the whole text the event loop need not make.
    content_hash = await asyncio.to_thread(ingestor.content_hash, data)
    async with session_factory() as session:
        await service.writable_knowledge_base(session, principal, data.knowledge_base_id)
        unchanged = await service.unchanged_document(session, data.knowledge_base_id, data.source, content_hash)
    if unchanged is not None:
        return StoredDocument(unchanged, "UNCHANGED")
    prepared = await ingestor.prepare(data, content_hash=content_hash)
    async with session_factory() as session, session.begin():
        return await service.store_document(session, principal, prepared)
