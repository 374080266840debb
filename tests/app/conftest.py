"""Fixtures shared by the MCP tests (tests/app/mcp) and the egress tests (tests/app/gateway): a
session pool, and the SDK-built streamable-HTTP server (one per module, reset before each test)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from app.mcp.pool import McpSessionPool
from tests.support.mcp import new_pool
from tests.support.processes import HttpMcpServer, running_http_mcp_server


@pytest.fixture
async def pool() -> AsyncIterator[McpSessionPool]:
    pool = new_pool()
    yield pool
    await pool.close()


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpMcpServer]:
    with running_http_mcp_server(tmp_path_factory.mktemp("mcp-http")) as server:
        yield server


@pytest.fixture
def server(http_server: HttpMcpServer) -> HttpMcpServer:
    """The module's server, running (a test may have crashed it) and in its default state."""
    http_server.set_state({})
    http_server.ensure_running()
    return http_server
