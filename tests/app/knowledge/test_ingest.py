"""Storing documents: chunks with their citations, replacement by source, all-or-nothing writes."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.errors import DomainError
from app.knowledge import ingest, repository, service
from app.knowledge.models import Chunk, Document, KnowledgeBase
from app.knowledge.search import KnowledgeSearch
from app.principal import SYSTEM_PRINCIPAL, Principal, Role
from tests.app.knowledge.support import ConceptEmbedder, add_document, ingestor, make_kb, make_space

SessionFactory = async_sessionmaker[AsyncSession]

HANDBOOK = """# Handbook

Welcome to the company.

## Leave

Employees get 25 days of paid leave.

### Sick leave

Call your manager before 9 am.
"""


async def chunk_rows(session_factory: SessionFactory, document_id: str) -> list[Chunk]:
    async with session_factory() as session:
        return await repository.chunks_of_document(session, document_id)


async def lexical_entries(session_factory: SessionFactory) -> int:
    """Rows of the hand-made lexical index (FTS5 entries, or filled tsvectors)."""
    async with session_factory() as session:
        if session.get_bind().dialect.name == "sqlite":
            statement = text("SELECT count(*) FROM chunk_fts")
        else:
            statement = text("SELECT count(*) FROM chunk WHERE search_vector IS NOT NULL")
        return int((await session.execute(statement)).scalar_one())


class TestStoreDocument:
    async def test_chunks_keep_document_position_and_heading_path(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)

        stored = await add_document(session_factory, kb.id, "Handbook", HANDBOOK, "handbook.md")

        assert stored.outcome == "CREATED"
        assert stored.document.id.startswith("doc_")
        assert stored.document.chunk_count == 3
        chunks = await chunk_rows(session_factory, stored.document.id)
        assert [(chunk.position, chunk.heading_path, chunk.text) for chunk in chunks] == [
            (0, ["Handbook"], "Welcome to the company."),
            (1, ["Handbook", "Leave"], "Employees get 25 days of paid leave."),
            (2, ["Handbook", "Leave", "Sick leave"], "Call your manager before 9 am."),
        ]
        assert {chunk.knowledge_base_id for chunk in chunks} == {kb.id}
        assert all(chunk.embedding is None and chunk.embedding_model is None for chunk in chunks)
        assert await lexical_entries(session_factory) == 3

    async def test_same_source_again_replaces_the_chunks(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        first = await add_document(session_factory, kb.id, "Handbook", HANDBOOK, "handbook.md")

        second = await add_document(
            session_factory, kb.id, "Handbook v2", "# Handbook\n\nWe moved to Lyon.", "handbook.md"
        )

        assert second.outcome == "REPLACED"
        assert second.document.id == first.document.id
        assert second.document.title == "Handbook v2"
        assert second.document.chunk_count == 1
        chunks = await chunk_rows(session_factory, first.document.id)
        assert [chunk.text for chunk in chunks] == ["We moved to Lyon."]
        assert await lexical_entries(session_factory) == 1
        async with session_factory() as session:
            assert await session.scalar(select(func.count()).select_from(Document)) == 1
        search = KnowledgeSearch(session_factory)
        assert (await search.search([kb.id], "paid leave", 5)).hits == []
        assert [hit.text for hit in (await search.search([kb.id], "Lyon", 5)).hits] == ["We moved to Lyon."]

    async def test_same_source_and_content_is_unchanged(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        first = await add_document(session_factory, kb.id, "Handbook", HANDBOOK, "handbook.md")
        chunk_ids = [chunk.id for chunk in await chunk_rows(session_factory, first.document.id)]

        again = await add_document(session_factory, kb.id, "Handbook", HANDBOOK, "handbook.md")

        assert again.outcome == "UNCHANGED"
        assert [chunk.id for chunk in await chunk_rows(session_factory, first.document.id)] == chunk_ids

    async def test_documents_without_source_are_always_new(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)

        first = await add_document(session_factory, kb.id, "Note", "Same text.")
        second = await add_document(session_factory, kb.id, "Note", "Same text.")

        assert first.document.id != second.document.id
        assert (first.outcome, second.outcome) == ("CREATED", "CREATED")

    async def test_same_source_in_another_knowledge_base_is_another_document(
        self, session_factory: SessionFactory
    ) -> None:
        space = await make_space(session_factory, "alpha")
        one = await make_kb(session_factory, space.id, "one")
        two = await make_kb(session_factory, space.id, "two")

        first = await add_document(session_factory, one.id, "Doc", "Text one.", "shared.md")
        second = await add_document(session_factory, two.id, "Doc", "Text two.", "shared.md")

        assert second.outcome == "CREATED"
        assert second.document.id != first.document.id

    async def test_each_write_bumps_the_content_version(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "A", "Alpha.", "a.md")
        await add_document(session_factory, kb.id, "A", "Alpha two.", "a.md")
        await add_document(session_factory, kb.id, "A", "Alpha two.", "a.md")  # unchanged: no bump

        async with session_factory() as session:
            assert await repository.content_version(session, kb.id) == 2

    async def test_vectors_are_stored_with_their_model(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)

        stored = await add_document(
            session_factory, kb.id, "Cats", "The cat sleeps.", using=ingestor(ConceptEmbedder())
        )

        (chunk,) = await chunk_rows(session_factory, stored.document.id)
        assert chunk.embedding_model == "test:concepts"
        assert chunk.embedding is not None and len(chunk.embedding) == 64 * 4


class HashThreads(ingest.Ingestor):
    """The test's Ingestor: records the thread each content hash is computed on."""

    def __init__(self) -> None:
        base = ingestor()
        super().__init__(base.options, base.embedder)
        self.threads: list[threading.Thread] = []

    def content_hash(self, data: service.DocumentInput, kind: str = "markdown") -> str:
        self.threads.append(threading.current_thread())
        return super().content_hash(data, kind)


class TestAddDocumentOffTheLoop:
    async def test_the_content_hash_is_computed_once_and_not_on_the_event_loop(
        self, session_factory: SessionFactory
    ) -> None:
        """A pass over the whole text (456,000 characters: ~1.3 ms, twice): computed once per
        addDocument, on a worker thread, and stored as before (an unchanged source is UNCHANGED)."""
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        hashing = HashThreads()
        data = service.DocumentInput(kb.id, "Handbook", HANDBOOK, "handbook.md")
        loop_thread = threading.current_thread()

        created = await ingest.add_document(session_factory, SYSTEM_PRINCIPAL, hashing, data)
        again = await ingest.add_document(session_factory, SYSTEM_PRINCIPAL, hashing, data)

        assert (created.outcome, again.outcome) == ("CREATED", "UNCHANGED")
        assert created.document.content_hash == ingestor().content_hash(data)
        assert len(hashing.threads) == 2  # one a call (it was two for a new document)
        assert loop_thread not in hashing.threads


class TestAllOrNothing:
    async def test_a_failure_while_writing_chunks_leaves_nothing(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        original = repository.insert_chunks

        async def insert_then_fail(
            session: AsyncSession, rows: list[dict[str, Any]], texts: list[str], lead: str | None = None
        ) -> None:
            await original(session, rows, texts, lead)
            raise RuntimeError("disk full")

        monkeypatch.setattr(repository, "insert_chunks", insert_then_fail)
        with pytest.raises(RuntimeError, match="disk full"):
            await add_document(session_factory, kb.id, "Handbook", HANDBOOK, "handbook.md")

        async with session_factory() as session:
            assert await session.scalar(select(func.count()).select_from(Document)) == 0
            assert await session.scalar(select(func.count()).select_from(Chunk)) == 0
            assert await repository.content_version(session, kb.id) == 0
        assert await lexical_entries(session_factory) == 0

    async def test_a_failed_replacement_keeps_the_old_version(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        first = await add_document(session_factory, kb.id, "Handbook", HANDBOOK, "handbook.md")

        async def fail(*_: Any) -> None:
            raise RuntimeError("disk full")

        monkeypatch.setattr(repository, "bump_content_version", fail)
        with pytest.raises(RuntimeError):
            await add_document(session_factory, kb.id, "Handbook", "# New\n\nNew text.", "handbook.md")

        chunks = await chunk_rows(session_factory, first.document.id)
        assert len(chunks) == 3
        async with session_factory() as session:
            document = await session.get(Document, first.document.id)
            assert document is not None and document.title == "Handbook"

    async def test_a_concurrent_insert_of_the_same_source_becomes_a_replacement(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        winner = await add_document(session_factory, kb.id, "Doc", "First.", "race.md")
        real_lookup = repository.get_document_by_source
        calls = {"count": 0}

        async def miss_once(session: AsyncSession, kb_id: str, key: str) -> Document | None:
            # The loser looked before the winner committed: it saw nothing.
            calls["count"] += 1
            return None if calls["count"] == 1 else await real_lookup(session, kb_id, key)

        monkeypatch.setattr(repository, "get_document_by_source", miss_once)
        loser = await add_document(session_factory, kb.id, "Doc", "Second.", "race.md")

        assert loser.outcome == "REPLACED"
        assert loser.document.id == winner.document.id
        assert [chunk.text for chunk in await chunk_rows(session_factory, winner.document.id)] == ["Second."]


class TestRules:
    async def test_empty_text_is_refused_with_the_title(self) -> None:
        with pytest.raises(DomainError) as raised:
            service.check_document_input(service.DocumentInput("kb_x", "Policy", " \n "))
        assert (raised.value.code, raised.value.field) == ("EMPTY_DOCUMENT", ["input", "text"])
        assert "Policy" in raised.value.message

    async def test_blank_title_is_refused(self) -> None:
        with pytest.raises(DomainError) as raised:
            service.check_document_input(service.DocumentInput("kb_x", "  ", "text"))
        assert (raised.value.code, raised.value.field) == ("INVALID", ["input", "title"])

    async def test_unknown_knowledge_base_is_not_found_by_name(self, session_factory: SessionFactory) -> None:
        async with session_factory() as session:
            with pytest.raises(DomainError) as raised:
                await service.writable_knowledge_base(session, SYSTEM_PRINCIPAL, "kb_missing")
        assert raised.value.code == "NOT_FOUND"
        assert "kb_missing" in raised.value.message

    async def test_another_spaces_knowledge_base_is_not_found(self, session_factory: SessionFactory) -> None:
        alpha = await make_space(session_factory, "alpha")
        beta = await make_space(session_factory, "beta")
        kb = await make_kb(session_factory, beta.id)
        alpha_admin = Principal(key_id="k", role=Role.SPACE_ADMIN, space_id=alpha.id)

        async with session_factory() as session:
            with pytest.raises(DomainError) as raised:
                await service.writable_knowledge_base(session, alpha_admin, kb.id)
        assert raised.value.code == "NOT_FOUND"

    async def test_archived_knowledge_base_is_not_found(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        async with session_factory() as session, session.begin():
            row = await session.get(KnowledgeBase, kb.id)
            assert row is not None
            row.status = "ARCHIVED"

        with pytest.raises(DomainError, match="not found"):
            await add_document(session_factory, kb.id, "Doc", "Text.")


class TestReembed:
    """After the embedding model changes, ``reembed`` gives the stored chunks vectors of the new one."""

    async def test_chunks_of_another_model_or_none_get_vectors_of_the_new_one(
        self, session_factory: SessionFactory, caplog: pytest.LogCaptureFixture
    ) -> None:
        from app.knowledge.ingest import contextual_text, reembed

        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        old = await add_document(
            session_factory, kb.id, "Pets", "The feline rested on the rug.", using=ingestor(ConceptEmbedder("test:old"))
        )
        await add_document(session_factory, kb.id, "Garage", "A mechanic can mend your automobile.")  # no vectors
        new_model = ConceptEmbedder("test:new")
        search = KnowledgeSearch(session_factory, new_model)

        # Before: the old vectors are ignored, and the log says what to run.
        with caplog.at_level("WARNING", logger="quiver.knowledge"):
            assert [hit.title for hit in (await search.search([kb.id], "cat sleeping on a mat", 5)).hits] == []
        assert "2 chunk(s) have no vector of test:new" in caplog.text and f"quiver kb reembed {kb.id}" in caplog.text

        progress = await reembed(session_factory, new_model, [kb.id], batch=1)

        assert (progress.pending, progress.done) == (2, 2)
        # The same search object sees the new vectors (the content version moved).
        outcome = await search.search([kb.id], "cat sleeping on a mat", 5)
        assert [hit.title for hit in outcome.hits] == ["Pets"] and outcome.hits[0].vector_rank == 1
        assert [hit.title for hit in (await search.search([kb.id], "car repair", 5)).hits] == ["Garage"]
        # The vector is the one ingest would have made of the passage (title and headings in front).
        (chunk,) = await chunk_rows(session_factory, old.document.id)
        expected = (await new_model.embed([contextual_text("Pets", [], "The feline rested on the rug.")]))[0]
        assert chunk.embedding_model == "test:new"
        assert chunk.embedding == expected.astype("<f4").tobytes()
        # Nothing left to do the second time.
        again = await reembed(session_factory, new_model, [kb.id])
        assert (again.pending, again.done) == (0, 0)

    async def test_only_the_named_knowledge_bases_are_touched(self, session_factory: SessionFactory) -> None:
        from app.knowledge.ingest import reembed

        space = await make_space(session_factory, "alpha")
        mine = await make_kb(session_factory, space.id, "mine")
        other = await make_kb(session_factory, space.id, "other")
        await add_document(session_factory, mine.id, "A", "Parking is free on weekends.")
        kept = await add_document(session_factory, other.id, "B", "Lunch is at noon.")

        await reembed(session_factory, ConceptEmbedder("test:new"), [mine.id])

        (chunk,) = await chunk_rows(session_factory, kept.document.id)
        assert chunk.embedding is None and chunk.embedding_model is None
        everything = await reembed(session_factory, ConceptEmbedder("test:new"), None)
        assert everything.done == 1
        (chunk,) = await chunk_rows(session_factory, kept.document.id)
        assert chunk.embedding_model == "test:new"
