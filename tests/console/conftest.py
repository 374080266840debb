"""A real `quiver serve`, a real headless Chromium driven by Playwright, and helpers for both.

Chromium comes from the Debian package (`apt-get install chromium`): Playwright's own browser
download is not used. Without it the browser tests are skipped on a developer machine and
fail under CI=true. Each test gets a fresh browser context (its own localStorage), and every
request it makes must stay on the server's own origin: nothing may come from a CDN.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.fernet import Fernet

from tests.support.http_tool_server import ToolServer, running_tool_server
from tests.support.openai_server import API_KEY, OpenAIServer, running_openai_server
from tests.support.processes import REPOSITORY_ROOT, free_port

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = REPOSITORY_ROOT / "artifacts" / "console"
ADMIN_TOKEN = "qk_console-tests-admin-7c1d"
# Start-up migrates and loads the catalog; on a loaded 2-core machine that took over 60 s.
READY_TIMEOUT_S = 180.0
# Playwright's default per action; generous because the suite shares two cores with others.
ACTION_TIMEOUT_MS = 20_000
KEY_LINE = re.compile(r"^qk_\S+$")


def _require(condition: bool, reason: str) -> None:
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (required when CI=true)")
    pytest.skip(reason)


@dataclass
class Quiver:
    """A running `quiver serve` with its own SQLite database, and an API client for setup."""

    url: str
    directory: Path
    env: dict[str, str]
    tool_server: ToolServer
    model_server: OpenAIServer

    async def graphql(self, query: str, variables: dict[str, Any] | None = None, *, key: str = ADMIN_TOKEN) -> Any:
        async with httpx.AsyncClient(timeout=30) as client:
            response = await client.post(
                f"{self.url}/graphql",
                json={"query": query, "variables": variables or {}},
                headers={"Authorization": f"Bearer {key}"},
            )
        assert response.status_code == 200, response.text
        body = response.json()
        assert "errors" not in body, body
        return body["data"]

    async def status_for(self, key: str) -> int:
        async with httpx.AsyncClient(timeout=30) as client:
            response = await client.post(
                f"{self.url}/graphql", json={"query": "{ viewer { role } }"}, headers={"Authorization": f"Bearer {key}"}
            )
        return response.status_code

    async def create_key(self, *arguments: str) -> str:
        """`quiver apikey create ...` against the same database; the key is the last line."""
        process = await asyncio.create_subprocess_exec(
            str(Path(sys.executable).parent / "quiver"),
            "apikey",
            "create",
            *arguments,
            cwd=self.directory,
            env=self.env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=120)
        assert process.returncode == 0, stderr.decode()
        key = stdout.decode().strip().splitlines()[-1]
        assert KEY_LINE.match(key), stdout.decode()
        return key

    async def create_space(self, name: str) -> str:
        payload = (
            await self.graphql(
                "mutation S($input: CreateSpaceInput!) "
                "{ createSpace(input: $input) { space { id } userErrors { message } } }",
                {"input": {"name": name, "label": name.title()}},
            )
        )["createSpace"]
        assert payload["userErrors"] == [], payload
        return str(payload["space"]["id"])


@pytest.fixture(scope="session")
def quiver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Quiver]:
    directory = tmp_path_factory.mktemp("console-serve")
    with running_tool_server() as tool_server, running_openai_server() as model_server:
        env = {name: value for name, value in os.environ.items() if not name.startswith("QUIVER_")}
        env.update(
            QUIVER_DATABASE_URL=f"sqlite+aiosqlite:///{directory / 'quiver.db'}",
            QUIVER_ADMIN_TOKEN=ADMIN_TOKEN,
            QUIVER_SECRET_KEY=Fernet.generate_key().decode(),
            QUIVER_EGRESS_ALLOWLIST="127.0.0.1,localhost",
            QUIVER_OPENAI_BASE_URL=model_server.base_url,
            QUIVER_OPENAI_API_KEY=API_KEY,
            PYTHONUNBUFFERED="1",
        )
        with serving(env, directory) as url:
            yield Quiver(url=url, directory=directory, env=env, tool_server=tool_server, model_server=model_server)


@contextmanager
def serving(env: dict[str, str], directory: Path) -> Iterator[str]:
    """`quiver serve` with ``env`` in ``directory`` (its log in serve.log), until ready: its URL."""
    port = free_port()
    log = (directory / "serve.log").open("wb")
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "quiver"), "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=directory,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            assert process.poll() is None, (directory / "serve.log").read_text(errors="replace")
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "quiver serve was not ready in time"
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        log.close()


@pytest.fixture(scope="session")
def chromium() -> Path:
    _require(CHROMIUM.exists(), f"{CHROMIUM} is missing: apt-get install chromium")
    return CHROMIUM


@pytest.fixture(scope="session")
async def browser(chromium: Path) -> AsyncIterator[Any]:
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        _require(False, "Playwright for Python is missing: pip install -e '.[dev]'")
        raise
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=str(chromium), args=CHROMIUM_FLAGS)
        yield launched
        await launched.close()


@dataclass
class Visit:
    """One browser context on the server, recording every request it makes."""

    page: Any
    base: str
    name: str
    requests: list[str] = field(default_factory=list)
    shots: int = 0

    async def open(self, path: str) -> None:
        await self.page.goto(self.base + path)

    async def sign_in(self, key: str) -> None:
        await self.open("/")
        await self.page.get_by_label("API key").fill(key)
        await self.page.get_by_role("button", name="Sign in").click()
        await self.page.get_by_role("navigation", name="Pages", exact=True).wait_for()

    async def go(self, page_name: str) -> None:
        """Follows a link of the navigation and waits for that page's title."""
        navigation = self.page.get_by_role("navigation", name="Pages", exact=True)
        await navigation.get_by_role("link", name=page_name, exact=True).click()
        await self.page.get_by_role("heading", level=1, name=page_name, exact=True).wait_for()

    async def screenshot(self, label: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.shots += 1
        path = ARTIFACTS / f"{self.name}-{self.shots:02d}-{label}.png"
        await self.page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture
async def visit(browser: Any, quiver: Quiver, request: pytest.FixtureRequest) -> AsyncIterator[Visit]:
    async with visiting(browser, quiver.url, re.sub(r"[^a-zA-Z0-9_-]+", "_", request.node.name)) as current:
        yield current


@asynccontextmanager
async def visiting(browser: Any, base: str, name: str) -> AsyncIterator[Visit]:
    """A fresh browser context on the server at ``base``; it may reach nothing else, nor throw."""
    context = await browser.new_context(viewport={"width": 1280, "height": 860})
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    page = await context.new_page()
    current = Visit(page=page, base=base, name=name)
    page.on("request", lambda sent: current.requests.append(sent.url))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield current
    finally:
        await context.close()
    foreign = [url for url in current.requests if not url.startswith((base, "data:", "blob:"))]
    assert foreign == [], f"requests left the server's origin: {foreign}"
    assert errors == [], f"uncaught errors in the page: {errors}"
