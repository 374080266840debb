"""Migrations 0003 and 0016, the hand-made lexical indexes (passages, documents' leads): created,
dropped and created again on each backend; 0016 backfills the leads of existing documents."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from sqlalchemy import text

from app.db import create_engine, create_session_factory
from app.knowledge import repository, service
from app.knowledge.models import Chunk, Document
from app.knowledge.tokens import query_tokens
from app.migrate import downgrade, upgrade
from app.principal import SYSTEM_PRINCIPAL
from app.spaces import service as spaces_service
from tests.databases import BACKENDS, database

SQLITE_OBJECTS = "SELECT type, name FROM sqlite_master WHERE name LIKE 'chunk_fts%' AND type IN ('table', 'trigger')"
POSTGRES_OBJECTS = """
SELECT 'column', column_name FROM information_schema.columns WHERE table_name = 'chunk' AND data_type = 'tsvector'
UNION ALL
SELECT 'index', indexname || ' ' || split_part(indexdef, ' USING ', 2) FROM pg_indexes
WHERE indexname = 'ix_chunk_search_vector'
"""


def index_objects(database_url: str) -> set[tuple[str, str]]:
    async def read() -> set[tuple[str, str]]:
        engine = create_engine(database_url)
        try:
            async with engine.connect() as connection:
                statement = SQLITE_OBJECTS if engine.dialect.name == "sqlite" else POSTGRES_OBJECTS
                return {(str(kind), str(name)) for kind, name in (await connection.execute(text(statement))).all()}
        finally:
            await engine.dispose()

    return asyncio.run(read())


@pytest.fixture(scope="module", params=BACKENDS)
def fresh_database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    with database(request.param, str(tmp_path_factory.mktemp("kb-migration"))) as url:
        yield request.param, url


class TestLexicalIndexMigration:
    def test_upgrade_downgrade_upgrade(self, fresh_database: tuple[str, str]) -> None:
        backend, url = fresh_database
        expected = (
            {("table", "chunk_fts"), ("trigger", "chunk_fts_delete")}
            if backend == "sqlite"
            else {("column", "search_vector"), ("index", "ix_chunk_search_vector gin (search_vector)")}
        )

        upgrade(url)
        after_upgrade = index_objects(url)
        downgrade(url, "0002")
        after_downgrade = index_objects(url)
        upgrade(url)

        assert expected <= after_upgrade
        assert after_downgrade == set()
        assert index_objects(url) == after_upgrade


LEAD_OBJECTS = {
    "sqlite": "SELECT type, name FROM sqlite_master WHERE name LIKE 'chunk_lead_fts%' AND type IN ('table', 'trigger')",
    # The index without a pending list (migration 0017): searches never scan one.
    "postgresql": "SELECT 'column', column_name FROM information_schema.columns "
    "WHERE table_name = 'chunk' AND column_name = 'lead_vector' UNION ALL "
    "SELECT 'index', relname || ' ' || array_to_string(reloptions, ',') FROM pg_class "
    "WHERE relname = 'ix_chunk_lead_vector'",
}


async def _documents_before_0016(database_url: str) -> tuple[str, list[int]]:
    """A knowledge base with two documents written as before migration 0016 (no lead index):
    rows straight into the tables, as that version's ingest left them."""
    engine = create_engine(database_url)
    session_factory = create_session_factory(engine)
    try:
        async with session_factory() as session, session.begin():
            space = await spaces_service.create_space(session, SYSTEM_PRINCIPAL, "old", "Old")
            kb = await service.create_knowledge_base(
                session, SYSTEM_PRINCIPAL, space_id=space.id, name="old", label="Old", description=None
            )
            first_chunks = []
            for number, (title, body) in enumerate(
                [("Process inspector", "lsof lists open files.\n\nLater words."), ("Kitchen", "Coffee and tea.")]
            ):
                document = Document(id=f"doc_old{number}", knowledge_base_id=kb.id, title=title, chunk_count=2)
                session.add(document)
                await session.flush()
                chunks = [
                    Chunk(document_id=document.id, knowledge_base_id=kb.id, position=position, heading_path=[], text=t)
                    for position, t in enumerate([body, "A second passage about lsof."])
                ]
                session.add_all(chunks)
                await session.flush()
                first_chunks.append(chunks[0].id)
            return kb.id, first_chunks
    finally:
        await engine.dispose()


async def _leads(database_url: str, kb_id: str, query: str) -> list[int]:
    engine = create_engine(database_url)
    try:
        async with create_session_factory(engine)() as session:
            found = await repository.lead_candidates(session, kb_id, query_tokens(query), 10)
            return [chunk_id for chunk_id, _ in found]
    finally:
        await engine.dispose()


async def _lead_objects(database_url: str) -> set[tuple[str, str]]:
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            rows = (await connection.execute(text(LEAD_OBJECTS[engine.dialect.name]))).all()
            return {(str(kind), str(name)) for kind, name in rows}
    finally:
        await engine.dispose()


class TestLeadIndexMigration:
    def test_existing_documents_are_backfilled_and_the_index_goes_on_downgrade(
        self, tmp_path_factory: pytest.TempPathFactory, backend: str
    ) -> None:
        with database(backend, str(tmp_path_factory.mktemp("lead-migration"))) as url:
            upgrade(url, "0015")
            kb_id, first_chunks = asyncio.run(_documents_before_0016(url))

            upgrade(url)
            assert asyncio.run(_leads(url, kb_id, "inspector open files")) == [first_chunks[0]]
            assert asyncio.run(_leads(url, kb_id, "later words second passage")) == []  # not in the lead
            assert asyncio.run(_leads(url, kb_id, "kitchen coffee")) == [first_chunks[1]]
            created = asyncio.run(_lead_objects(url))
            if backend == "postgresql":
                assert ("index", "ix_chunk_lead_vector fastupdate=off") in created

            downgrade(url, "0015")
            assert asyncio.run(_lead_objects(url)) == set()
            upgrade(url)
            assert asyncio.run(_lead_objects(url)) == created != set()
            assert asyncio.run(_leads(url, kb_id, "inspector")) == [first_chunks[0]]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)
