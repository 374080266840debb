"""Alembic migrations: upgrade → downgrade → upgrade on each backend, and no drift from the models."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from app.db import create_engine
from app.knowledge.models import include_in_autogenerate, is_search_index_object
from app.migrate import alembic_config, downgrade, upgrade
from app.models import Base
from app.spaces.models import SYSTEM_SPACE_ID
from tests.databases import BACKENDS, database

VERSION_TABLE = "alembic_version"


def _model_diff(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "include_object": include_in_autogenerate}
    )
    return compare_metadata(context, Base.metadata)  # type: ignore[no-any-return]


def _table_names(connection: Connection) -> set[str]:
    # The lexical index of the knowledge domain (an FTS5 table on SQLite) lives outside the models.
    return {name for name in inspect(connection).get_table_names() if not is_search_index_object(name, "table")}


async def _run(database_url: str, action: Any) -> Any:
    """Run a sync inspection on an async connection of a fresh engine."""
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(action)
    finally:
        await engine.dispose()


async def _rows(database_url: str, statement: str) -> list[tuple[Any, ...]]:
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            return [tuple(row) for row in (await connection.execute(text(statement))).all()]
    finally:
        await engine.dispose()


def _head_revision(database_url: str) -> str:
    head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
    assert head is not None
    return head


@dataclass(frozen=True)
class RoundTrip:
    """What a fresh database looked like at each step of upgrade → downgrade → upgrade."""

    tables_after_first_upgrade: set[str]
    tables_after_downgrade: set[str]
    tables_after_second_upgrade: set[str]
    model_diff: list[Any]
    spaces: list[tuple[Any, ...]]
    versions: list[tuple[Any, ...]]
    head: str


@pytest.fixture(scope="module", params=BACKENDS)
def round_trip(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> RoundTrip:
    """One fresh database per backend (not the shared test database), migrated up, down and up again."""
    with database(request.param, str(tmp_path_factory.mktemp("migrations"))) as url:
        upgrade(url)
        after_first_upgrade = asyncio.run(_run(url, _table_names))
        downgrade(url, "base")
        after_downgrade = asyncio.run(_run(url, _table_names))
        upgrade(url)
        upgrade(url)  # already at head: must change nothing
        return RoundTrip(
            tables_after_first_upgrade=after_first_upgrade,
            tables_after_downgrade=after_downgrade,
            tables_after_second_upgrade=asyncio.run(_run(url, _table_names)),
            model_diff=asyncio.run(_run(url, _model_diff)),
            spaces=asyncio.run(_rows(url, "SELECT id, is_system FROM space")),
            versions=asyncio.run(_rows(url, f"SELECT version_num FROM {VERSION_TABLE}")),
            head=_head_revision(url),
        )


class TestMigrationRoundTrip:
    def test_upgrade_creates_every_model_table(self, round_trip: RoundTrip) -> None:
        assert round_trip.tables_after_first_upgrade == set(Base.metadata.tables) | {VERSION_TABLE}

    def test_downgrade_to_base_drops_every_table(self, round_trip: RoundTrip) -> None:
        assert round_trip.tables_after_downgrade <= {VERSION_TABLE}, round_trip.tables_after_downgrade

    def test_upgrade_again_restores_the_same_tables(self, round_trip: RoundTrip) -> None:
        assert round_trip.tables_after_second_upgrade == round_trip.tables_after_first_upgrade

    def test_autogenerate_finds_no_difference_from_the_models(self, round_trip: RoundTrip) -> None:
        assert round_trip.model_diff == [], (
            f"migrations and models differ; write a migration for: {round_trip.model_diff}"
        )

    def test_database_is_stamped_at_head(self, round_trip: RoundTrip) -> None:
        assert round_trip.versions == [(round_trip.head,)]


class TestSystemSpace:
    def test_upgrade_creates_the_system_space(self, round_trip: RoundTrip) -> None:
        assert [(space_id, bool(is_system)) for space_id, is_system in round_trip.spaces] == [(SYSTEM_SPACE_ID, True)]
