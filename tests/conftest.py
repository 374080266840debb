"""Shared fixtures: a migrated database per backend, the ASGI app, an HTTP client, keys."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from cryptography.fernet import Fernet
from sqlalchemy import delete, event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.catalog.loader import load_builtin_catalog
from app.config import Settings
from app.db import Base
from app.main import create_app
from app.migrate import upgrade
from app.principal import Role
from app.spaces import service as spaces_service
from app.spaces.models import SYSTEM_SPACE_ID, Space
from tests.databases import BACKENDS, database

TEST_SECRET_KEY = Fernet.generate_key().decode()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "backends(*names): run only on these database backends (the others are deselected, not skipped)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests about one backend's behaviour (``@pytest.mark.backends("postgresql")``) are not
    collected for the others; then the static checks (tests/test_checks.py) first: a lint or
    type error fails the run in seconds instead of after the whole suite."""
    kept: list[pytest.Item] = []
    other_backend: list[pytest.Item] = []
    for item in items:
        marker = item.get_closest_marker("backends")
        callspec = getattr(item, "callspec", None)
        backend = callspec.params.get("database_url") if callspec is not None else None
        if marker is not None and backend is not None and backend not in marker.args:
            other_backend.append(item)
        else:
            kept.append(item)
    if other_backend:
        config.hook.pytest_deselected(items=other_backend)
        items[:] = kept
    items.sort(key=lambda item: item.path.name != "test_checks.py")


@pytest.fixture(scope="session", params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One migrated database per backend for the whole session."""
    with database(request.param, str(tmp_path_factory.mktemp("db"))) as url:
        upgrade(url)
        yield url


@pytest.fixture(scope="session")
def settings(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    # Test servers run on loopback, which the egress policy refuses unless allow-listed;
    # 127.0.0.2 stays refused, for the egress tests.
    return Settings(
        database_url=database_url,
        secret_key=TEST_SECRET_KEY,
        admin_token=None,
        egress_allowlist="127.0.0.1,localhost",
        # One app serves every test, so another test's tenant counts as "being served" for a second
        # after it: the per-tenant admission (tested on its own, tests/app/test_tenant_admission.py)
        # would serialise a test's concurrent calls of one tenant and change what it measures.
        tenant_concurrency=0,
        # Call-log rows kept through a staged outage: never in the working directory.
        spool_dir=tmp_path_factory.mktemp("spool"),
    )


@pytest.fixture(scope="session")
async def app_and_services(settings: Settings) -> AsyncIterator[Any]:
    app = create_app(settings)
    yield app
    await app.state.services.close()


@pytest.fixture
def engine(app_and_services: Any) -> AsyncEngine:
    return app_and_services.state.services.engine  # type: ignore[no-any-return]


@pytest.fixture
def session_factory(app_and_services: Any) -> async_sessionmaker[AsyncSession]:
    return app_and_services.state.services.session_factory  # type: ignore[no-any-return]


@pytest.fixture(autouse=True)
def fresh_statement_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test may make its share of new rendered listing statements (app.tools.repository):
    what earlier tests made does not decide which path a test's listing takes."""
    from app.tools import repository

    monkeypatch.setattr(repository, "NEW_RENDERED_STATEMENTS", repository.StatementBudget(30))


@pytest.fixture(autouse=True)
async def clean_database(request: pytest.FixtureRequest) -> AsyncIterator[None]:
    """Every test starts from a migrated database holding only the system space and builtins,
    and from an app holding no MCP session: the app is shared by the session, and its pool keeps
    a session (a STDIO server's process) for every server an earlier test used, whose row is
    deleted here."""
    if "session_factory" not in request.fixturenames:
        yield
        return
    await request.getfixturevalue("app_and_services").state.services.mcp_pool.close()
    session_factory: async_sessionmaker[AsyncSession] = request.getfixturevalue("session_factory")
    async with session_factory() as session, session.begin():
        for table in reversed(Base.metadata.sorted_tables):
            if table.name == "space":
                await session.execute(delete(table).where(table.c.id != SYSTEM_SPACE_ID))
            else:
                await session.execute(delete(table))
        await load_builtin_catalog(session)
    yield


@dataclass
class GraphQLClient:
    """Posts named operations like a client: JSON over HTTP with a bearer key."""

    http: httpx.AsyncClient
    key: str | None = None

    async def raw(
        self, query: str, variables: dict[str, Any] | None = None, *, key: str | None = None
    ) -> httpx.Response:
        headers = {}
        token = key if key is not None else self.key
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return await self.http.post("/graphql", json={"query": query, "variables": variables or {}}, headers=headers)

    async def execute(
        self, query: str, variables: dict[str, Any] | None = None, *, key: str | None = None
    ) -> dict[str, Any]:
        """The ``data`` of a successful response; fails the test on top-level errors."""
        response = await self.raw(query, variables, key=key)
        assert response.status_code == 200, response.text
        body = response.json()
        assert "errors" not in body, body["errors"]
        return body["data"]  # type: ignore[no-any-return]

    def as_key(self, key: str) -> GraphQLClient:
        return GraphQLClient(http=self.http, key=key)


@pytest.fixture
async def http(app_and_services: Any, session_factory: Any) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app_and_services)
    async with httpx.AsyncClient(transport=transport, base_url="http://quiver.test") as client:
        yield client


@dataclass
class Keys:
    """Creates spaces and API keys straight through the services."""

    session_factory: async_sessionmaker[AsyncSession]
    created: list[str] = field(default_factory=list)

    async def admin(self) -> str:
        async with self.session_factory() as session, session.begin():
            _, raw = await spaces_service.create_api_key(session, role=Role.ADMIN, space_id=None)
        return raw

    async def for_space(self, space_id: str, role: Role) -> str:
        async with self.session_factory() as session, session.begin():
            _, raw = await spaces_service.create_api_key(session, role=role, space_id=space_id)
        return raw

    async def space(self, name: str) -> Space:
        from app.principal import SYSTEM_PRINCIPAL

        async with self.session_factory() as session, session.begin():
            return await spaces_service.create_space(session, SYSTEM_PRINCIPAL, name, name.title())


@pytest.fixture
def keys(session_factory: async_sessionmaker[AsyncSession]) -> Keys:
    return Keys(session_factory)


@pytest.fixture
async def admin_key(keys: Keys) -> str:
    return await keys.admin()


@pytest.fixture
def gql(http: httpx.AsyncClient, admin_key: str) -> GraphQLClient:
    """A client holding an ADMIN key; ``gql.as_key(other)`` for other principals."""
    return GraphQLClient(http=http, key=admin_key)


@dataclass
class StatementCounter:
    statements: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.statements)


@pytest.fixture
def count_queries(engine: AsyncEngine) -> Iterator[StatementCounter]:
    """Counts SQL statements sent through the app's engine (Saleor's count_queries)."""
    counter = StatementCounter()

    def before_cursor_execute(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        counter.statements.append(statement)

    event.listen(engine.sync_engine, "before_cursor_execute", before_cursor_execute)
    yield counter
    event.remove(engine.sync_engine, "before_cursor_execute", before_cursor_execute)
