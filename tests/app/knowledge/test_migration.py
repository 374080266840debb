"""Migration 0003's hand-made lexical index: created, dropped and created again on each backend."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from sqlalchemy import text

from app.db import create_engine
from app.migrate import downgrade, upgrade
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
