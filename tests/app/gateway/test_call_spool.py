"""The call-log spool on disk (app.gateway.spool), against a real database and real file locks:
a file left by a process that is gone is written once and removed, a torn last line (a kill
mid-write) is ignored, and the file of a live process (a real other process holding its lock)
is never touched. The kill -9 of a serving process during a PostgreSQL outage is in
tests/test_database_outage.py."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.db import utcnow
from app.gateway.models import ToolCall
from app.gateway.spool import DiskSpool, database_identity, replay_orphans
from app.ids import new_id
from app.spaces.models import SYSTEM_SPACE_ID
from tests.support.processes import REPOSITORY_ROOT


def call_row(**overrides: Any) -> dict[str, Any]:
    started = utcnow()
    row: dict[str, Any] = {
        "id": new_id("call"),
        "tool_id": "bt_calculator",
        "tool_type": "BUILTIN",
        "space_id": SYSTEM_SPACE_ID,
        "agent_id": None,
        "run_id": None,
        "principal_key_id": None,
        "arguments": {"expression": "6 * 7", "note": "日本語 ✓"},
        "status": "SUCCESS",
        "result": {"value": 42},
        "error_code": None,
        "error_message": None,
        "error_detail": None,
        "latency_ms": 1.5,
        "attempts": 1,
        "trace_id": new_id("trace"),
        "idempotency_key": None,
        "origin": "GRAPHQL",
        "started_at": started,
        "finished_at": started + timedelta(milliseconds=2),
    }
    row.update(overrides)
    return row


def left_behind(folder: Path, database_url: str, rows: list[dict[str, Any]]) -> Path:
    """A spool file as a process that died with ``rows`` kept leaves it (its lock gone with it)."""
    spool = DiskSpool(folder, database_url)
    for row in rows:
        spool.append(row, False).result()
    path = spool.path
    assert path is not None
    spool.close()  # lets the lock go, as the kernel does for a killed process; the file stays
    return path


async def rows_by_id(session_factory: async_sessionmaker[AsyncSession], ids: list[str]) -> dict[str, int]:
    async with session_factory() as session:
        result = await session.execute(
            select(ToolCall.id, func.count()).where(ToolCall.id.in_(ids)).group_by(ToolCall.id)
        )
        return {call_id: count for call_id, count in result.all()}


class TestReplay:
    async def test_rows_of_a_gone_process_are_written_once_and_the_file_removed(
        self, tmp_path: Path, settings: Settings, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        rows = [call_row() for _ in range(3)]
        path = left_behind(tmp_path, settings.database_url, rows)
        copy = path.read_bytes()
        identity = database_identity(settings.database_url)

        assert await replay_orphans(tmp_path, identity, session_factory) == 3
        assert not path.exists()
        ids = [row["id"] for row in rows]
        assert await rows_by_id(session_factory, ids) == dict.fromkeys(ids, 1)
        async with session_factory() as session:
            stored = await session.get(ToolCall, rows[0]["id"])
            assert stored is not None
            assert stored.arguments == rows[0]["arguments"] and stored.result == {"value": 42}
            assert stored.started_at == rows[0]["started_at"] and stored.trace_id == rows[0]["trace_id"]

        # The same file again (a replayer killed after writing, before removing it): nothing twice.
        path.write_bytes(copy)
        assert await replay_orphans(tmp_path, identity, session_factory) == 0
        assert not path.exists()
        assert await rows_by_id(session_factory, ids) == dict.fromkeys(ids, 1)

    async def test_a_torn_last_line_is_ignored(
        self, tmp_path: Path, settings: Settings, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        rows = [call_row() for _ in range(2)]
        path = left_behind(tmp_path, settings.database_url, rows)
        torn = call_row()
        with path.open("ab") as file:  # killed half-way through writing a third row
            file.write(json.dumps({"replace": False, "row": {"id": torn["id"], "tool_id": "bt_calc"}})[:30].encode())

        written = await replay_orphans(tmp_path, database_identity(settings.database_url), session_factory)
        assert written == 2
        assert not path.exists()
        ids = [row["id"] for row in rows]
        assert await rows_by_id(session_factory, [*ids, torn["id"]]) == dict.fromkeys(ids, 1)

    async def test_another_databases_file_is_left_alone(
        self, tmp_path: Path, settings: Settings, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        row = call_row()
        path = left_behind(tmp_path, "postgresql+asyncpg://someone@elsewhere/another_database", [row])
        assert await replay_orphans(tmp_path, database_identity(settings.database_url), session_factory) == 0
        assert path.exists()
        assert await rows_by_id(session_factory, [row["id"]]) == {}


HOLDER = """
import sys
from datetime import datetime
from app.gateway.spool import DiskSpool
rows = __import__("json").loads(sys.argv[3])
for row in rows:
    row["started_at"] = row["finished_at"] = datetime.fromisoformat(row["started_at"])
spool = DiskSpool(__import__("pathlib").Path(sys.argv[1]), sys.argv[2])
for row in rows:
    spool.append(row, False).result()
print(spool.path, flush=True)
sys.stdin.read()  # alive, holding the file's lock, until the test closes its stdin
spool.close()
"""


class TestBound:
    async def test_a_rewritten_file_holds_only_the_rows_still_waiting_and_stays_locked(
        self, tmp_path: Path, settings: Settings, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        """The gateway rewrites its file with the rows still waiting once it holds SPOOL_LIMIT."""
        rows = [call_row() for _ in range(3)]
        spool = DiskSpool(tmp_path, settings.database_url)
        identity = database_identity(settings.database_url)
        try:
            for row in rows:
                spool.append(row, False).result()
            spool.rewrite([(row, False) for row in rows[1:]]).result()
            assert spool.rows == 2
            path = spool.path
            assert path is not None
            lines = (await asyncio.to_thread(path.read_bytes)).splitlines()
            assert [json.loads(line)["row"]["id"] for line in lines[1:]] == [row["id"] for row in rows[1:]]
            assert sorted(await asyncio.to_thread(os.listdir, tmp_path)) == [path.name]
            # Still this live process's: nobody replays it.
            assert await replay_orphans(tmp_path, identity, session_factory) == 0
        finally:
            spool.close()
        assert await replay_orphans(tmp_path, identity, session_factory) == 2
        assert await rows_by_id(session_factory, [row["id"] for row in rows]) == dict.fromkeys(
            [row["id"] for row in rows[1:]], 1
        )


class TestLiveProcess:
    async def test_the_file_of_a_live_process_is_never_touched(
        self, tmp_path: Path, settings: Settings, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        live_rows = [call_row() for _ in range(2)]
        as_json = [{**row, "started_at": row["started_at"].isoformat(), "finished_at": None} for row in live_rows]
        holder = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            HOLDER,
            str(tmp_path),
            settings.database_url,
            json.dumps(as_json),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(REPOSITORY_ROOT)},
        )
        try:
            assert holder.stdout is not None and holder.stdin is not None
            live = Path((await holder.stdout.readline()).decode().strip())
            before = await asyncio.to_thread(live.read_bytes)
            assert before.count(b"\n") == 3, before  # its header and two rows
            dead_row = call_row()
            dead = left_behind(tmp_path, settings.database_url, [dead_row])
            identity = database_identity(settings.database_url)

            assert await replay_orphans(tmp_path, identity, session_factory) == 1
            assert not await asyncio.to_thread(dead.exists)
            assert await asyncio.to_thread(live.read_bytes) == before
            live_ids = [row["id"] for row in live_rows]
            assert await rows_by_id(session_factory, [*live_ids, dead_row["id"]]) == {dead_row["id"]: 1}

            # Once its process is gone, its rows are written like any other's.
            holder.stdin.close()
            assert await holder.wait() == 0
            assert await replay_orphans(tmp_path, identity, session_factory) == 2
            assert not await asyncio.to_thread(live.exists)
            assert await rows_by_id(session_factory, live_ids) == dict.fromkeys(live_ids, 1)
        finally:
            if holder.returncode is None:
                holder.kill()
                await holder.wait()


class TestSettings:
    def test_the_spool_folder_defaults(self, tmp_path: Path) -> None:
        sqlite = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/data/quiver.db")
        assert sqlite.call_spool_dir == tmp_path / "data" / "quiver.db.spool"
        assert Settings(database_url="sqlite+aiosqlite:///:memory:").call_spool_dir is None
        postgres = Settings(database_url="postgresql+asyncpg://quiver@db/quiver")
        assert postgres.call_spool_dir == Path.cwd() / "quiver-spool"
        chosen = Settings(database_url="postgresql+asyncpg://quiver@db/quiver", spool_dir=tmp_path / "spool")
        assert chosen.call_spool_dir == tmp_path / "spool"

    def test_no_secret_reaches_the_file(self, tmp_path: Path) -> None:
        """The file says which database it is for by backend and name: never a password or host."""
        url = "postgresql+asyncpg://quiver:s3cr3t-pw@db.internal:5432/quiver"
        path = left_behind(tmp_path, url, [call_row()])
        text = path.read_text()
        assert "s3cr3t-pw" not in text and "db.internal" not in text
        assert json.loads(text.splitlines()[0])["database"] == "postgresql:quiver"
        assert oct(path.stat().st_mode & 0o777) == oct(0o600)
