"""Quiver's MCP endpoints served for real: the app under uvicorn (lifespan on) on a loopback
port, in the tests' event loop, and the official SDK's client over streamable HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from app.config import Settings
from tests.support.serving import serving

PAGE_SIZE = 3


@dataclass
class McpServer:
    base_url: str

    def url(self, kind: str, identifier: str) -> str:
        return f"{self.base_url}/mcp/{kind}/{identifier}"

    def client(
        self, kind: str, identifier: str, key: str | None, **options: Any
    ) -> AbstractAsyncContextManager[Client]:
        """The SDK's ``Client`` on an endpoint with ``key`` (``mode="legacy"`` for the handshake era)."""
        return _client(self.url(kind, identifier), key, **options)


@asynccontextmanager
async def _client(url: str, key: str | None, **options: Any) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as http,
        Client(streamable_http_client(url, http_client=http), **options) as client,
    ):
        yield client


@pytest.fixture(scope="module")
async def mcp_server(settings: Settings) -> AsyncIterator[McpServer]:
    async with serving(settings.model_copy(update={"mcp_page_size": PAGE_SIZE})) as base_url:
        yield McpServer(base_url)
