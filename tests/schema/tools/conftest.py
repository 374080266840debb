"""What the listing tests share: an app on the test database with the listing cache off, served
through Quiver's executor (``fast_client``) or graphql-core's own (``plain_client``), and a catalog
holding tools of every kind."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar
from unittest import mock

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

import schema.schema as schema_module
from app.config import Settings
from app.main import create_app
from app.principal import Role
from app.tools import repository
from tests.app.tools.factories import (
    OddCatalog,
    custom_tool_row,
    insert_rows,
    mcp_server_row,
    mcp_tool_row,
    odd_catalog,
    space_row,
)
from tests.conftest import Keys

SessionFactory = async_sessionmaker[AsyncSession]


@asynccontextmanager
async def uncached_app(settings: Settings, *, executor: Any = None) -> AsyncIterator[httpx.AsyncClient]:
    """An app on the test database with the listing cache off (every page executed), with Quiver's
    executor or, given one, another execution context."""
    uncached = settings.model_copy(update={"listing_cache_mb": 0})
    if executor is None:
        app = create_app(uncached)
    else:
        with mock.patch.object(schema_module, "TimeSlicedExecutor", executor):
            app = create_app(uncached)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://listing.test") as client:
            yield client
    finally:
        await app.state.services.close()


@pytest.fixture
async def plain_client(settings: Settings, app_and_services: Any) -> AsyncIterator[httpx.AsyncClient]:
    """graphql-core's own execution context."""
    async with uncached_app(settings, executor=StrawberryGraphQLCoreExecutionContext) as client:
        yield client


@pytest.fixture
async def fast_client(settings: Settings, app_and_services: Any) -> AsyncIterator[httpx.AsyncClient]:
    """Quiver's executor."""
    async with uncached_app(settings) as client:
        yield client


async def mixed_catalog(session_factory: SessionFactory) -> dict[str, str]:
    """Tools of every kind: global and bound custom tools (nulls and values in every nullable
    column), MCP tools of a bound and of a global server, a disabled tool; the builtins."""
    spaces = [space_row(name) for name in ("alpha", "beta", "gamma")]
    alpha, beta, gamma = (space["id"] for space in spaces)
    bound_server, free_server = mcp_server_row(), mcp_server_row(status="DISABLED")
    moment = datetime(2026, 3, 4, 5, 6, 7, 890_000, tzinfo=UTC)
    full = {
        "output_schema": {"type": "object", "properties": {"n": {"type": "number"}}},
        "group": "billing",
        "owner": "team-a",
        "tags": ["a", "b"],
        "allowed_roles": ["MEMBER", "SPACE_ADMIN"],
        "request_mapping": {"method": "GET", "path": "/x/{id}", "arguments": {"id": "path"}},
        "approval": "ALWAYS",
        "side_effect": "WRITE",
        "owner_space_id": alpha,
    }
    tools = [
        custom_tool_row("global_plain"),
        custom_tool_row("global_full", **{**full, "owner_space_id": None}),
        custom_tool_row("alpha_full", **full),
        custom_tool_row("alpha_beta", tags=[], allowed_roles=[]),
        custom_tool_row("gamma_only", status="DISABLED"),
        mcp_tool_row(bound_server["id"], "bound_mcp", drifted_at=moment),
        mcp_tool_row(bound_server["id"], "bound_mcp_two"),
        mcp_tool_row(free_server["id"], "free_mcp", output_schema={"type": "string"}),
    ]
    ids = {row["name"]: row["tool_id"] for row in tools}
    await insert_rows(
        session_factory,
        spaces=spaces,
        servers=[bound_server, free_server],
        tools=tools,
        tool_bindings=[
            (ids["alpha_full"], alpha),
            (ids["alpha_beta"], alpha),
            (ids["alpha_beta"], beta),
            (ids["gamma_only"], gamma),
            (ids["bound_mcp"], beta),  # a tool bound beside its server's binding
        ],
        server_bindings=[(bound_server["id"], alpha)],
    )
    return {"alpha": alpha, "beta": beta, "gamma": gamma}


async def odd_catalog_viewers(session_factory: SessionFactory, keys: Keys) -> tuple[OddCatalog, dict[str, str]]:
    """:func:`odd_catalog` bound to a space "alpha", and the keys that see it differently: an
    admin, a member and a space admin of alpha, a member of one of the 40 spaces."""
    alpha = space_row("alpha")
    await insert_rows(session_factory, spaces=[alpha])
    catalog = await odd_catalog(session_factory, alpha["id"])
    return catalog, {
        "admin": await keys.admin(),
        "alpha member": await keys.for_space(alpha["id"], Role.MEMBER),
        "alpha space admin": await keys.for_space(alpha["id"], Role.SPACE_ADMIN),
        "member of one of 40": await keys.for_space(catalog.many_spaces[7], Role.MEMBER),
    }


Answer = TypeVar("Answer")


class RenderedPages:
    """What each call of ``list_rendered_tool_page`` answered: a page written by the database, or
    None. On PostgreSQL no listing asks (its pages are read the ordinary way)."""

    def __init__(self, sqlite: bool) -> None:
        self.sqlite = sqlite
        self.answers: list[bool] = []

    def on_sqlite(self, answers: list[Answer]) -> list[Answer]:
        """``answers`` on SQLite; none on PostgreSQL."""
        return answers if self.sqlite else []


@pytest.fixture
def rendered_pages(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> Iterator[RenderedPages]:
    pages = RenderedPages(settings.is_sqlite)
    original = repository.list_rendered_tool_page

    async def spy(*args: Any, **kwargs: Any) -> Any:
        page = await original(*args, **kwargs)
        pages.answers.append(page is not None)
        return page

    monkeypatch.setattr(repository, "list_rendered_tool_page", spy)
    yield pages
