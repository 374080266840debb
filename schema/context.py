"""The typed request context: session factory, loaders, viewer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from strawberry.fastapi import BaseContext
from strawberry.types import Info as StrawberryInfo

from app.config import Settings
from app.crypto import SecretBox
from app.egress import EgressPolicy
from app.events.bus import EventBus
from app.gateway.service import ToolGateway
from app.knowledge.ingest import Ingestor
from app.knowledge.search import KnowledgeSearch
from app.mcp.pool import McpSessionPool
from app.pipelines.runner import PipelineRunner
from app.principal import Principal
from app.runtime.service import AgentRuntime
from schema.errors import ClientError
from schema.loaders import Loaders, build_loaders


@dataclass
class Context(BaseContext):
    session_factory: async_sessionmaker[AsyncSession]
    settings: Settings
    secret_box: SecretBox
    gateway: ToolGateway
    knowledge: KnowledgeSearch
    ingestor: Ingestor
    runtime: AgentRuntime
    pipelines: PipelineRunner
    mcp_pool: McpSessionPool
    bus: EventBus
    egress: EgressPolicy
    viewer: Principal | None = None
    #: A WebSocket's: the tenant whose share of sockets it holds a place in (schema.websocket_admission).
    socket_tenant: str | None = None
    #: Set by ``app.main.GraphQLPost``, whose answers orjson writes: a listing's nodes may then be
    #: JSON the database wrote (``app.jsoncodec.Raw``, schema.tools.rendering).
    writes_fragments: bool = False
    _loaders: Loaders | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        super().__init__()

    @property
    def loaders(self) -> Loaders:
        """Built on first use: a subscription event that needs none costs none."""
        if self._loaders is None:
            self._loaders = build_loaders(self.session_factory)
        return self._loaders

    def renew_loaders(self) -> None:
        """Fresh caches, e.g. per event on a long-lived WebSocket."""
        self._loaders = None

    @property
    def principal(self) -> Principal:
        if self.viewer is None:
            raise ClientError("Not authenticated.", "UNAUTHENTICATED")
        return self.viewer

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """A read session of its own (never shared across resolvers)."""
        async with self.session_factory() as session:
            yield session

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """The mutation boundary: commits on success, rolls back on any exception."""
        async with self.session_factory() as session, session.begin():
            yield session


Info = StrawberryInfo[Context, None]
