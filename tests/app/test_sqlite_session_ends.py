"""SQLite: ending a session with no transaction open (a read) is not handed to aiosqlite's
thread; one with a transaction open (a write) is committed or rolled back as before."""

from __future__ import annotations

import collections
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiosqlite.core
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker

from app.db import create_engine


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/ends.db")
    async with engine.begin() as connection:
        await connection.execute(text("CREATE TABLE item (name TEXT)"))
    yield engine
    await engine.dispose()


@pytest.fixture
def hand_offs(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    """What each connection handed to its thread, by the driver method's name."""
    counted: collections.Counter[str] = collections.Counter()
    original: Any = aiosqlite.core.Connection._execute

    async def counting(self: Any, function: Any, *args: Any, **kwargs: Any) -> Any:
        counted[getattr(function, "__name__", "?")] += 1
        return await original(self, function, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.core.Connection, "_execute", counting)
    return counted


async def names(engine: AsyncEngine) -> list[str]:
    async with engine.connect() as connection:
        return list((await connection.execute(text("SELECT name FROM item ORDER BY name"))).scalars())


async def test_a_read_session_ends_without_a_hand_off(engine: AsyncEngine, hand_offs: collections.Counter[str]) -> None:
    sessions = async_sessionmaker(engine)
    async with sessions() as session:
        assert (await session.execute(text("SELECT count(*) FROM item"))).scalar() == 0
    async with sessions() as session, session.begin():
        await session.execute(text("SELECT count(*) FROM item"))
    assert hand_offs["rollback"] == 0
    assert hand_offs["commit"] == 0


async def test_writes_are_committed_and_rolled_back_as_before(
    engine: AsyncEngine, hand_offs: collections.Counter[str]
) -> None:
    sessions = async_sessionmaker(engine)
    async with sessions() as session, session.begin():
        await session.execute(text("INSERT INTO item VALUES ('kept')"))
    assert hand_offs["commit"] == 1
    with pytest.raises(RuntimeError):
        async with sessions() as session, session.begin():
            await session.execute(text("INSERT INTO item VALUES ('failed')"))
            raise RuntimeError("the mutation failed")
    assert hand_offs["rollback"] == 1
    # Closed without a commit: the session's end rolls the write back.
    async with sessions() as session:
        await session.execute(text("INSERT INTO item VALUES ('abandoned')"))
    assert hand_offs["rollback"] == 2
    assert await names(engine) == ["kept"]
