"""Migration 0004 on a database that already holds skills: history starts with CREATED."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from app.db import create_engine
from app.migrate import downgrade, upgrade
from tests.databases import BACKENDS, database


async def _execute(url: str, *statements: str) -> list[tuple[Any, ...]]:
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            result: list[tuple[Any, ...]] = []
            for statement in statements:
                cursor = await connection.execute(text(statement))
                if cursor.returns_rows:
                    result = [tuple(row) for row in cursor.all()]
            return result
    finally:
        await engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_existing_production_versions_get_a_created_event(backend: str, tmp_path: Path) -> None:
    with database(backend, str(tmp_path)) as url:
        upgrade(url, "0003")
        asyncio.run(
            _execute(
                url,
                "INSERT INTO skill_definition (skill_id, space_id, name, label, description, prompt, tags, "
                "trigger_hints, tools, type, status, version, created_at, updated_at) VALUES ('sku_old', NULL, "
                "'old', 'Old', 'd', 'p2', '[]', '[]', '[]', 'CUSTOM', 'ACTIVE', '1.0.1', "
                "'2026-01-01 00:00:00+00:00', '2026-01-01 00:00:00+00:00')",
                "INSERT INTO skill_version (skill_id, version, channel, prompt, created_by, created_at) VALUES "
                "('sku_old', '1.0.0', 'RETIRED', 'p1', 'key_a', '2026-01-01 00:00:00+00:00'), "
                "('sku_old', '1.0.1', 'PRODUCTION', 'p2', 'key_b', '2026-01-02 00:00:00+00:00')",
            )
        )

        upgrade(url, "0004")
        rows = asyncio.run(
            _execute(url, "SELECT skill_id, action, channel, from_version, to_version, actor FROM skill_channel_event")
        )
        canary = asyncio.run(_execute(url, "SELECT canary_percent FROM skill_definition"))
        downgrade(url, "0003")
        upgrade(url, "0004")

    assert rows == [("sku_old", "CREATED", "PRODUCTION", None, "1.0.1", "key_b")]
    assert canary == [(0,)]
