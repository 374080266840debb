"""The real ``quiver`` console script, run in a subprocess against a temporary SQLite file."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from app.db import create_engine, create_session_factory
from app.principal import SYSTEM_PRINCIPAL, Principal, Role
from app.spaces import service as spaces_service
from schema.schema import export_sdl

COMMAND_TIMEOUT_SECONDS = 60
# A bound, not a wait: readiness is polled. Start-up (migrations, the embedding model) takes
# seconds on an idle machine and far longer on a loaded CI runner.
READY_TIMEOUT_SECONDS = 120
VIEWER_QUERY = "query Viewer { viewer { roles space { id } } }"


def quiver_executable() -> str:
    """The console script installed beside this interpreter, else the one on PATH."""
    beside = Path(sys.executable).parent / "quiver"
    if beside.exists():
        return str(beside)
    found = shutil.which("quiver")
    assert found, "the `quiver` console script is not installed (pip install -e .)"
    return found


def database_url(directory: Path) -> str:
    return f"sqlite+aiosqlite:///{directory / 'quiver.db'}"


def quiver_env(directory: Path, **overrides: str) -> dict[str, str]:
    """The caller's environment without any QUIVER_ setting, pointed at a database in ``directory``."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("QUIVER_")}
    env["QUIVER_DATABASE_URL"] = database_url(directory)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(overrides)
    return env


def run_quiver(directory: Path, *arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [quiver_executable(), *arguments],
        cwd=directory,
        env=quiver_env(directory, **(env or {})),
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_SECONDS,
        check=False,
    )


async def run_quiver_async(
    directory: Path, *arguments: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(lambda: run_quiver(directory, *arguments, env=env))


def key_lines(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if line.strip().startswith("qk_")]


async def authenticate(directory: Path, raw_key: str) -> Principal | None:
    """Open the CLI's database with the app's own authentication service."""
    engine = create_engine(database_url(directory))
    try:
        async with create_session_factory(engine)() as session:
            return await spaces_service.authenticate(session, raw_key)
    finally:
        await engine.dispose()


async def create_space(directory: Path, name: str) -> str:
    engine = create_engine(database_url(directory))
    try:
        async with create_session_factory(engine)() as session, session.begin():
            space = await spaces_service.create_space(session, SYSTEM_PRINCIPAL, name, name.title())
            return space.id
    finally:
        await engine.dispose()


def assert_succeeded(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"


class TestMigrate:
    async def test_migrate_creates_the_database_with_the_system_space(self, tmp_path: Path) -> None:
        result = await run_quiver_async(tmp_path, "migrate")

        assert_succeeded(result)
        assert (tmp_path / "quiver.db").is_file()
        engine = create_engine(database_url(tmp_path))
        try:
            async with create_session_factory(engine)() as session:
                system = await spaces_service.get_readable_space(session, SYSTEM_PRINCIPAL, "sp_system")
        finally:
            await engine.dispose()
        assert system is not None
        assert system.is_system is True


class TestApiKeyCreate:
    async def test_admin_key_is_printed_alone_on_the_last_line_and_authenticates(self, tmp_path: Path) -> None:
        result = await run_quiver_async(tmp_path, "apikey", "create", "--admin", "--label", "ops")

        assert_succeeded(result)
        last_line = result.stdout.rstrip("\n").splitlines()[-1]
        assert last_line.startswith("qk_")
        assert last_line == last_line.strip() and " " not in last_line
        assert key_lines(result.stdout) == [last_line], "the key is printed exactly once"
        principal = await authenticate(tmp_path, last_line)
        assert principal is not None
        assert principal.role is Role.ADMIN
        assert principal.space_id is None

    async def test_space_key_authenticates_with_its_role_and_space(self, tmp_path: Path) -> None:
        assert_succeeded(await run_quiver_async(tmp_path, "migrate"))
        space_id = await create_space(tmp_path, "crew")

        result = await run_quiver_async(tmp_path, "apikey", "create", "--space", space_id, "--role", "MEMBER")

        assert_succeeded(result)
        key = result.stdout.rstrip("\n").splitlines()[-1]
        principal = await authenticate(tmp_path, key)
        assert principal is not None
        assert (principal.role, principal.space_id) == (Role.MEMBER, space_id)

    async def test_unknown_space_fails_with_a_clear_message(self, tmp_path: Path) -> None:
        result = await run_quiver_async(tmp_path, "apikey", "create", "--space", "sp_nope", "--role", "MEMBER")

        assert result.returncode != 0
        assert "sp_nope" in result.stderr
        assert "not found" in result.stderr.lower()
        assert key_lines(result.stdout + result.stderr) == []

    @pytest.mark.parametrize(
        "arguments",
        [
            ["--admin", "--space", "sp_system"],
            [],
            ["--space", "sp_system"],
            ["--space", "sp_system", "--role", "ADMIN"],
        ],
        ids=["admin-with-space", "nothing", "space-without-role", "space-as-admin"],
    )
    def test_inconsistent_options_are_refused(self, tmp_path: Path, arguments: list[str]) -> None:
        result = run_quiver(tmp_path, "apikey", "create", *arguments)

        assert result.returncode != 0
        assert "--admin" in result.stderr or "--role" in result.stderr, result.stderr
        assert key_lines(result.stdout + result.stderr) == []


class TestSettings:
    @pytest.mark.parametrize(
        ("name", "value", "secret"),
        [
            ("QUIVER_GRAPHQL_MAX_COST", "s3cret-value", "s3cret-value"),  # a setting that does not parse
            ("QUIVER_DATABASE_URL", "not a url:hunter2", "hunter2"),  # a database URL that does not parse
        ],
    )
    def test_a_value_that_does_not_parse_is_named_without_a_traceback_or_its_value(
        self, tmp_path: Path, name: str, value: str, secret: str
    ) -> None:
        result = run_quiver(tmp_path, "migrate", env={name: value})

        assert result.returncode == 2
        assert name in result.stderr
        assert "Traceback" not in result.stderr + result.stdout
        assert secret not in result.stderr + result.stdout

    @pytest.mark.parametrize(
        ("env", "says"),
        [
            ({"QUIVER_SECRET_KEY": "not-a-fernet-key-hunter2"}, "QUIVER_SECRET_KEY is not a Fernet key"),
            (
                {"QUIVER_DATABASE_URL": "postgresql+asyncpg://nobody@127.0.0.1:9/none"},
                "QUIVER_SECRET_KEY must be set when the database is not SQLite",
            ),
        ],
        ids=["malformed", "missing-on-postgresql"],
    )
    def test_a_secret_key_to_fix_is_said_without_a_traceback(
        self, tmp_path: Path, env: dict[str, str], says: str
    ) -> None:
        # quiver mcp sync (and tools import-openapi) printed a rich traceback ending in the message.
        result = run_quiver(tmp_path, "mcp", "sync", "mcp_0000", env=env)

        assert result.returncode == 2, result.stderr
        assert says in " ".join(result.stderr.split())
        assert "Traceback" not in result.stderr + result.stdout
        assert "hunter2" not in result.stderr + result.stdout

    def test_an_empty_setting_means_its_default(self, tmp_path: Path) -> None:
        result = run_quiver(tmp_path, "migrate", env={"QUIVER_GRAPHQL_MAX_COST": "", "QUIVER_LOG_LEVEL": ""})

        assert_succeeded(result)


class TestExportSchema:
    def test_writes_the_sdl_of_the_code(self, tmp_path: Path) -> None:
        output = tmp_path / "exported" / "schema.graphql"
        output.parent.mkdir()

        result = run_quiver(tmp_path, "export-schema", "--output", str(output))

        assert_succeeded(result)
        assert output.read_text(encoding="utf-8") == export_sdl()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    url: str
    stdout_path: Path
    stderr_path: Path

    def stdout(self) -> str:
        return self.stdout_path.read_text(encoding="utf-8", errors="replace")

    def viewer(self, key: str) -> httpx.Response:
        return httpx.post(
            f"{self.url}/graphql",
            json={"query": VIEWER_QUERY},
            headers={"Authorization": f"Bearer {key}"},
            timeout=10,
        )


def _wait_until_ready(process: subprocess.Popen[bytes], server: Server) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(
                f"quiver serve exited with {process.returncode}\n"
                f"stdout:\n{server.stdout()}\nstderr:\n{server.stderr_path.read_text(errors='replace')}"
            )
        try:
            if httpx.get(f"{server.url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    pytest.fail(
        f"quiver serve was not ready within {READY_TIMEOUT_SECONDS} s\nstderr:\n{server.stderr_path.read_text()}"
    )


@contextmanager
def serving(directory: Path, **env: str) -> Iterator[Server]:
    """``quiver serve`` on a free port, ready to answer; always terminated afterwards."""
    port = free_port()
    server = Server(
        url=f"http://127.0.0.1:{port}",
        stdout_path=directory / f"serve-{port}.out",
        stderr_path=directory / f"serve-{port}.err",
    )
    with server.stdout_path.open("wb") as stdout, server.stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            [quiver_executable(), "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=directory,
            env=quiver_env(directory, **env),
            stdout=stdout,
            stderr=stderr,
        )
        try:
            _wait_until_ready(process, server)
            yield server
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)


class TestServe:
    @pytest.mark.parametrize("port", ["99999", "65536", "-1", "0"])
    def test_a_port_out_of_range_is_refused_before_anything_starts(self, tmp_path: Path, port: str) -> None:
        # 99999 was taken modulo 65536: the server listened on 34463 and said it was on 99999.
        result = run_quiver(tmp_path, "serve", "--port", port)

        assert result.returncode == 2, result.stderr
        assert "--port" in result.stderr and "Traceback" not in result.stderr
        assert "Uvicorn running" not in result.stdout + result.stderr

    def test_first_run_prints_an_admin_key_once(self, tmp_path: Path) -> None:
        with serving(tmp_path) as first:
            health = httpx.get(f"{first.url}/healthz", timeout=5)
            printed = key_lines(first.stdout())
            assert len(printed) == 1, first.stdout()
            key = printed[0]
            response = first.viewer(key)

        body = health.json()
        assert isinstance(body.pop("worker"), int)
        assert body == {"status": "ok", "checks": {"database": {"status": "ok"}}}
        assert response.status_code == 200, response.text
        assert response.json() == {"data": {"viewer": {"roles": ["ADMIN"], "space": None}}}

        with serving(tmp_path) as second:
            again = second.viewer(key)
            reprinted = key_lines(second.stdout())

        assert reprinted == [], "a second run of the same database must not create another key"
        assert again.status_code == 200, again.text

    def test_admin_token_from_the_environment_authenticates(self, tmp_path: Path) -> None:
        with serving(tmp_path, QUIVER_ADMIN_TOKEN="some-token") as server:
            response = server.viewer("some-token")
            other = server.viewer("some-other-token")
            anonymous = httpx.post(f"{server.url}/graphql", json={"query": VIEWER_QUERY}, timeout=5)
            printed = key_lines(server.stdout())

        assert response.status_code == 200, response.text
        assert response.json() == {"data": {"viewer": {"roles": ["ADMIN"], "space": None}}}
        assert other.status_code == 401
        assert anonymous.status_code == 401
        assert anonymous.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert printed == [], "with QUIVER_ADMIN_TOKEN set, no key is generated"


class TestCatalogChangesAreAnnounced:
    async def test_a_key_created_by_the_cli_is_announced_to_servers_on_its_redis(self, tmp_path: Path) -> None:
        """Servers cache API keys (an unknown one too): the CLI's commit must reach them."""
        from app.changes import ChangeFeed, ChangeRelay
        from app.events.redis_bus import RedisEventBus
        from tests.databases import require_redis

        redis_url = await require_redis()
        feed = ChangeFeed()  # what a server replica would bump
        bus = RedisEventBus(redis_url)
        relay = ChangeRelay(bus, feed)
        try:
            await relay.start()
            before = feed.generation
            environment = {"QUIVER_REDIS_URL": redis_url}
            result = await run_quiver_async(tmp_path, "apikey", "create", "--admin", env=environment)
            assert_succeeded(result)
            deadline = time.monotonic() + 5
            while feed.generation == before:
                assert time.monotonic() < deadline, "the CLI's commit was not announced"
                await asyncio.sleep(0.02)
        finally:
            await relay.close()
            await bus.close()
