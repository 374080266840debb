"""``quiver mcp sync ID``: the real console script, against a temporary SQLite file."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cryptography.fernet import Fernet

from app.db import create_engine, create_session_factory
from app.ids import mcp_tool_id
from app.migrate import upgrade_async
from tests.support.mcp import TIME_SERVER_COMMAND, add_server, load_server, load_tool

COMMAND_TIMEOUT_S = 60


def quiver_executable() -> str:
    beside = Path(sys.executable).parent / "quiver"
    found = str(beside) if beside.exists() else shutil.which("quiver")
    assert found, "the `quiver` console script is not installed (pip install -e .)"
    return found


class CliDatabase:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.url = f"sqlite+aiosqlite:///{directory / 'quiver.db'}"
        self.engine = create_engine(self.url)
        self.session_factory = create_session_factory(self.engine)

    async def run(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        env = {name: value for name, value in os.environ.items() if not name.startswith("QUIVER_")}
        env.update(QUIVER_DATABASE_URL=self.url, QUIVER_SECRET_KEY=Fernet.generate_key().decode(), PYTHONUNBUFFERED="1")
        return await asyncio.to_thread(
            subprocess.run,
            [quiver_executable(), *arguments],
            cwd=self.directory,
            env=env,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
            check=False,
        )


class TestMcpSyncCommand:
    async def test_sync_stores_the_tools_and_prints_a_summary(self, tmp_path: Path) -> None:
        database = CliDatabase(tmp_path)
        try:
            await upgrade_async(database.url)
            server_id = await add_server(database.session_factory, command=TIME_SERVER_COMMAND)

            result = await database.run("mcp", "sync", server_id)

            assert result.returncode == 0, result.stdout + result.stderr
            assert f"synced {server_id}: 1 page(s), 2 added" in result.stdout
            tool = await load_tool(database.session_factory, mcp_tool_id(server_id, "get_current_time"))
            assert tool.status == "ACTIVE"
            assert (await load_server(database.session_factory, server_id)).last_synced_at is not None
        finally:
            await database.engine.dispose()

    async def test_a_failing_server_exits_non_zero_with_the_error(self, tmp_path: Path) -> None:
        database = CliDatabase(tmp_path)
        try:
            await upgrade_async(database.url)
            server_id = await add_server(database.session_factory, command=[str(tmp_path / "no-such-server")])

            result = await database.run("mcp", "sync", server_id)
            unknown = await database.run("mcp", "sync", "mcp_unknown")

            assert result.returncode == 1
            assert "tools/list failed" in result.stderr
            assert "tools/list failed" in ((await load_server(database.session_factory, server_id)).last_error or "")
            assert unknown.returncode == 1
            assert "not found" in unknown.stderr
        finally:
            await database.engine.dispose()
