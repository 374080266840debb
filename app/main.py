"""The composition root: settings, engine, secrets, auth and the GraphQL router on FastAPI.

It is the one module of ``app`` allowed to import ``schema`` (see the import-linter
contract in pyproject.toml): everything else in ``app`` knows nothing of GraphQL.
"""

from __future__ import annotations

import asyncio
import gc
import hmac
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
import strawberry
from cross_web import HTTPException
from fastapi import BackgroundTasks, FastAPI
from fastapi.responses import HTMLResponse, JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from starlette.requests import HTTPConnection, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL as StrawberryASGI
from strawberry.exceptions import ConnectionRejectionError
from strawberry.fastapi import GraphQLRouter
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types.unset import UNSET, UnsetType

from app import jsoncodec
from app.agents import repository as agents_repository
from app.catalog.loader import load_builtin_catalog
from app.changes import ChangeRelay, GenerationCache, watch_catalog_commits
from app.config import Settings
from app.console.routes import ConsoleFiles, graphiql_response
from app.console.routes import install as install_console
from app.crypto import SecretBox, load_secret_box
from app.db import DatabaseUnavailableError, create_engine, create_session_factory, is_database_unavailable, utcnow
from app.egress import EgressPolicy, egress_checked_transport
from app.events.bus import EventBus, InProcessEventBus
from app.events.redis_bus import RedisEventBus
from app.events.redis_link import RedisLink
from app.gateway import metrics
from app.gateway.call_log import CallLog
from app.gateway.executors.base import Executor
from app.gateway.executors.builtin import BuiltinExecutor
from app.gateway.executors.http import HttpExecutor
from app.gateway.quotas import QuotaGuard
from app.gateway.service import ToolGateway
from app.gateway.spool import DiskSpool
from app.http_limits import RequestLimits
from app.knowledge.context import KnowledgeContextProvider
from app.knowledge.embeddings import EmbeddingProvider, create_embedding_provider
from app.knowledge.ingest import Ingestor, chunking_options
from app.knowledge.search import KnowledgeSearch
from app.knowledge.tool import TOOL_ID as SEARCH_KNOWLEDGE_TOOL_ID
from app.knowledge.tool import SearchKnowledgeTool
from app.mcp.executor import McpExecutor
from app.mcp.pool import McpSessionPool
from app.mcp_server.catalog import Catalog as McpCatalog
from app.mcp_server.endpoint import McpEndpoint
from app.mcp_server.notify import ChangeNotifier
from app.mcp_server.server import build_server as build_mcp_server
from app.pipelines.runner import PipelineRunner
from app.principal import Principal
from app.prometheus import REGISTRY as METRICS_REGISTRY
from app.reports.rollup import CatchUpLoop
from app.runtime.driver import StageSink
from app.runtime.model import ModelClient
from app.runtime.prompt import PromptBuilder, PromptSettings
from app.runtime.service import AgentRuntime, RuntimeSettings
from app.runtime.skill_source import RoutedSkillProvider
from app.runtime.trace import Scrubber
from app.scheduling import LOOP_SHARE, TENANT
from app.spaces import repository as spaces_repository
from app.spaces import service as spaces_service
from schema.context import Context
from schema.fairness import (
    LINE_RELEASE_SCOPE_KEY,
    CostlyOperationGate,
    OperationCap,
    TenantAdmission,
    TenantBusyError,
    TenantCap,
)
from schema.gateway.hot_path import RENDERED_REFUSED_SCOPE_KEY, HotPathApp
from schema.listing_cache import EncodedData
from schema.schema import build_schema, export_sdl
from schema.shared_streams import Frame, SharedStreams
from schema.websocket_admission import AdmittingTransportWSHandler, PendingSockets, take_socket

logger = logging.getLogger("quiver")

GRAPHQL_PATH = "/graphql"
PRINCIPAL_SCOPE_KEY = "quiver.principal"
# Keys whose last use this replica remembers stamping; past it the memory starts again.
MAX_STAMPED_KEYS = 10_000


@dataclass
class Services:
    settings: Settings
    engine: AsyncEngine
    session_factory: async_sessionmaker[AsyncSession]
    secret_box: SecretBox
    http_client: httpx.AsyncClient
    egress: EgressPolicy
    bus: EventBus
    mcp_pool: McpSessionPool
    gateway: ToolGateway
    builtins: BuiltinExecutor
    embedder: EmbeddingProvider | None
    knowledge: KnowledgeSearch
    ingestor: Ingestor
    runtime: AgentRuntime
    pipelines: PipelineRunner
    model_client: ModelClient | None
    call_log: CallLog
    changes: ChangeRelay
    redis: RedisLink | None

    async def start(self) -> None:
        """What needs a running event loop: hearing of other replicas' catalog changes."""
        await self.changes.start()

    async def close(self) -> None:
        close_embedder = getattr(self.embedder, "close", None)
        if close_embedder is not None:
            await close_embedder()
        await self.runtime.close()
        if self.model_client is not None:
            await self.model_client.close()
        await self.gateway.close()
        await self.call_log.close()
        await self.changes.close()
        await self.bus.close()
        if self.redis is not None:
            await self.redis.close()
        await self.mcp_pool.close()
        close_custom = getattr(self.gateway.executors.get("CUSTOM"), "aclose", None)
        if close_custom is not None:
            await close_custom()
        await self.http_client.aclose()
        await self.engine.dispose()


class KeyCache:
    """Authenticated keys, so a burst of requests costs one look-up. A revoked or new key
    is seen at once: any API-key commit drops the cache (see app.changes); an
    expired one at its expiry, which is checked on every use.

    Each key's last use is written at most once per ``LAST_USED_RESOLUTION_S`` by this
    replica (and skipped when another replica stamped it within that time)."""

    def __init__(self, engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession], ttl_s: float) -> None:
        self._engine = engine
        self._session_factory = session_factory
        self._entries: GenerationCache[str, spaces_service.KeyStanding | None] = GenerationCache(ttl_s)
        self._stamped: dict[str, float] = {}

    async def principal(self, raw_key: str) -> Principal | None:
        standing = await self._entries.get_or_load(raw_key, lambda: self._standing(raw_key))
        if standing is None:
            return None
        now = utcnow()
        if not standing.is_valid_at(now):
            return None
        await self._note_use(standing.principal.key_id, now)
        return standing.principal

    async def _standing(self, raw_key: str) -> spaces_service.KeyStanding | None:
        async with self._session_factory() as session:
            return await spaces_service.key_standing(session, raw_key)

    async def _note_use(self, key_id: str, now: datetime) -> None:
        clock = time.monotonic()
        last = self._stamped.get(key_id)
        if last is not None and clock - last < spaces_service.LAST_USED_RESOLUTION_S:
            return
        if len(self._stamped) >= MAX_STAMPED_KEYS:
            self._stamped.clear()
        self._stamped[key_id] = clock
        stale_before = now - timedelta(seconds=spaces_service.LAST_USED_RESOLUTION_S)
        try:
            async with self._engine.begin() as connection:
                await spaces_repository.stamp_last_used(connection, key_id, now, stale_before)
        except Exception:
            # Bookkeeping: a busy or unreachable database must not cost the request its answer.
            logger.warning("could not record the last use of API key %s", key_id, exc_info=True)


def bearer_token(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _same_secret(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


BUSY = "BUSY"


def _busy(message: str) -> JSONResponse:
    """A request its tenant's admission queue could not take (``QUIVER_TENANT_CONCURRENCY``)."""
    return JSONResponse(
        {"data": None, "errors": [{"message": message, "extensions": {"code": BUSY}}]},
        status_code=429,
        headers={"Retry-After": "1"},
    )


DATABASE_UNAVAILABLE = "DATABASE_UNAVAILABLE"


def _database_unavailable(error: BaseException) -> JSONResponse:
    """A request the database did not answer for before its operation ran (its key's look-up,
    say): 503 with a GraphQL error the client may retry on, and one log line, not a stack."""
    logger.warning("answered %s: %s", DATABASE_UNAVAILABLE, error)
    return JSONResponse(
        {
            "data": None,
            "errors": [
                {
                    "message": "The database is not answering; try again shortly.",
                    "extensions": {"code": DATABASE_UNAVAILABLE},
                }
            ],
        },
        status_code=503,
        headers={"Retry-After": "1"},
    )


def _unauthenticated(message: str) -> JSONResponse:
    return JSONResponse(
        {"data": None, "errors": [{"message": message, "extensions": {"code": "UNAUTHENTICATED"}}]},
        status_code=401,
        headers={"WWW-Authenticate": 'Bearer realm="quiver"'},
    )


class AuthMiddleware:
    """Every GraphQL HTTP request needs ``Authorization: Bearer <key>``.

    The GraphiQL page itself (a browser GET asking for HTML, without a query) is
    served without a key; WebSockets authenticate in ``connection_init``.
    """

    def __init__(
        self,
        app: ASGIApp,
        keys: KeyCache,
        heavy_line: CostlyOperationGate | None = None,
        heavy_bytes: int = 0,
        admission: TenantAdmission | None = None,
    ) -> None:
        self.app = app
        self.keys = keys
        # A tenant's share of requests executing at once while others are served (QUIVER_TENANT_CONCURRENCY).
        self.admission = admission
        # Large POST bodies wait for the same tenant's earlier ones (QUIVER_HEAVY_REQUEST_BYTES).
        self.heavy_line = heavy_line if heavy_bytes > 0 else None
        self.heavy_bytes = heavy_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != GRAPHQL_PATH:
            await self.app(scope, receive, send)
            return
        if scope["method"] == "GET":
            request = Request(scope)
            is_ide_page = "text/html" in request.headers.get("accept", "") and "query" not in request.query_params
            if is_ide_page:
                await self.app(scope, receive, send)
                return
        token = bearer_token(_header(scope, b"authorization"))
        if token is None:
            response = _unauthenticated("Missing API key: send `Authorization: Bearer <key>`.")
            await response(scope, receive, send)
            return
        try:
            principal = await self.keys.principal(token)
        except DatabaseUnavailableError as error:
            await _database_unavailable(error)(scope, receive, send)
            return
        if principal is None:
            await _unauthenticated("Invalid, expired or revoked API key.")(scope, receive, send)
            return
        scope[PRINCIPAL_SCOPE_KEY] = principal
        # Whose request this is, for the loop's fair share (app/scheduling.py).
        tenant = principal.tenant
        TENANT.set(tenant)
        if self.admission is None:
            await self._admitted(tenant, scope, receive, send)
            return
        try:
            ticket = await self.admission.enter(tenant)
        except TenantBusyError as busy:
            await _busy(busy.message)(scope, receive, send)
            return
        # While the request waits on an upstream it gives its place up (app.scheduling.waiting_outside).
        share = LOOP_SHARE.set(ticket)
        try:
            await self._admitted(tenant, scope, receive, send)
        finally:
            LOOP_SHARE.reset(share)
            ticket.release()

    async def _admitted(self, tenant: str, scope: Scope, receive: Receive, send: Send) -> None:
        if self.heavy_line is not None and scope["method"] == "POST" and self._is_heavy(scope):
            await self._in_line(self.heavy_line, tenant, scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _in_line(
        self, line: CostlyOperationGate, tenant: str, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """Read, parse, validate and cost the request in the tenant's line; the schema lets the
        next one in as execution starts (``LINE_RELEASE_SCOPE_KEY``), or this does at the end."""
        await line.enter(tenant)
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                line.leave(tenant)

        scope[LINE_RELEASE_SCOPE_KEY] = release
        try:
            await self.app(scope, receive, send)
        finally:
            release()

    def _is_heavy(self, scope: Scope) -> bool:
        """A body of at least ``heavy_bytes``, or one whose length is not declared (chunked)."""
        declared = _header(scope, b"content-length")
        if declared is None or not declared.strip().isdigit():
            return True
        return int(declared) >= self.heavy_bytes


def _header(scope: Scope, name: bytes) -> str | None:
    """The first value of a header (names arrive lower-cased), as Starlette's ``Headers.get`` reads it."""
    for key, value in scope["headers"]:
        if key == name:
            text: str = value.decode("latin-1")
            return text
    return None


class GraphQLPost(StrawberryASGI[Context, None]):
    """``POST /graphql`` as a bare ASGI app (Strawberry's own), reached without FastAPI's
    routing, dependency solving and middleware (:class:`QuiverApp`): about a seventh of a
    served call's CPU (bench/throughput.py). The same schema, context and JSON as the
    router, which still serves everything else at /graphql (GET, WebSockets)."""

    def __init__(self, schema: strawberry.Schema, context: Callable[[HTTPConnection], Awaitable[Context]]) -> None:
        super().__init__(schema, graphql_ide=None)
        self._context = context

    async def get_context(self, request: Request | WebSocket, response: Response | WebSocket) -> Context:
        context = await self._context(request)
        context.request = request
        if isinstance(response, Response):
            context.response = response
        # Its answers are written by orjson (encode_json): parts the database wrote as JSON may be
        # passed through as they are (schema.tools.rendering), unless a listing plan found the
        # database could not write this page (schema.gateway.hot_path): then it is not tried again.
        context.writes_fragments = not request.scope.get(RENDERED_REFUSED_SCOPE_KEY, False)
        return context

    def decode_json(self, data: str | bytes) -> object:
        # json.loads, as Strawberry's; a body that is not Unicode text is a 400 (it was a 500 for
        # bytes that are not UTF-8, and a failed call without its log row for a lone surrogate).
        try:
            return jsoncodec.loads_unicode(data)
        except jsoncodec.NotUnicodeError as error:
            raise HTTPException(400, error.msg) from None

    def encode_json(self, data: object) -> bytes:
        if type(data) is dict and len(data) == 1:
            answer = data.get("data")
            if type(answer) is EncodedData:
                # A listing cache's answer (schema/listing_cache.py): already encoded when kept.
                return b'{"data":' + answer.encoded + b"}"
        return jsoncodec.dumps_bytes(data)


class QuiverApp(FastAPI):
    """FastAPI, with ``POST /graphql`` handed straight to its own middleware chain (the key
    check, the request limits, then :class:`GraphQLPost`) and a WebSocket to ``/graphql``
    straight to the request limits and the router's socket handler (:class:`GraphQLSocket`);
    every other request takes FastAPI's way, through the same key check and limits."""

    graphql_post: ASGIApp | None = None
    graphql_socket: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if (
            kind == "http"
            and self.graphql_post is not None
            and scope["path"] == GRAPHQL_PATH
            and scope["method"] == "POST"
        ):
            scope["app"] = self
            await _answering_500(self.graphql_post, scope, receive, send)
            return
        if kind == "websocket" and self.graphql_socket is not None and scope["path"] == GRAPHQL_PATH:
            scope["app"] = self
            await self.graphql_socket(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


class GraphQLSocket:
    """A subscription socket, handed to the router's handler as FastAPI's WebSocket route would
    (the context from ``get_context`` with the socket, no root value), without FastAPI's routing,
    exception handlers and dependency solving in between: those stay suspended under every open
    socket for its whole life, about a fifth of what a subscriber holds (1,000 subscribers:
    ~10 MiB). The key check is in ``connection_init`` (``QuiverGraphQLRouter.on_ws_connect``)."""

    def __init__(
        self, router: QuiverGraphQLRouter, get_context: Callable[[HTTPConnection], Awaitable[Context]]
    ) -> None:
        self.router = router
        self.get_context = get_context

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        websocket = WebSocket(scope, receive, send)
        context = await self.get_context(websocket)
        # What strawberry's FastAPI context dependency adds to a BaseContext.
        context.request = websocket
        context.background_tasks = BackgroundTasks()
        context.response = None
        await self.router.run(request=websocket, context=context, root_value=None)


async def _answering_500(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """What Starlette's ServerErrorMiddleware does for the routes behind it: an exception
    before the answer started is answered 500 (then raised on, for the server to log)."""
    started = False

    async def tracking(message: Message) -> None:
        nonlocal started
        started = started or message["type"] == "http.response.start"
        await send(message)

    try:
        await app(scope, receive, tracking)
    except Exception as error:
        if not started and is_database_unavailable(error):
            await _database_unavailable(error)(scope, receive, send)
            return
        if not started:
            await JSONResponse(
                {"data": None, "errors": [{"message": "Internal server error.", "extensions": {"code": "INTERNAL"}}]},
                status_code=500,
            )(scope, receive, send)
        raise


class QuiverGraphQLRouter(GraphQLRouter[Context, None]):
    keys: KeyCache
    console_files: ConsoleFiles
    # Alike subscriptions run once and share their encoded frames (schema/shared_streams.py);
    # sockets are bounded per tenant and before connection_init (schema/websocket_admission.py).
    graphql_transport_ws_handler_class = AdmittingTransportWSHandler
    shared_streams: SharedStreams
    # A tenant's WebSocket operations running on their own (not in a shared stream), bounded.
    operation_cap: OperationCap | None = None
    # A tenant's open sockets; the sockets waiting for connection_init.
    socket_cap: TenantCap | None = None
    pending_sockets: PendingSockets | None = None

    def decode_json(self, data: str | bytes) -> object:
        # Not Unicode text (a lone surrogate escape): a message that is not JSON, as on POST.
        return jsoncodec.loads_unicode(data)

    def encode_json(self, data: object) -> str:
        if isinstance(data, Frame):
            return data.text  # encoded once for every member of a shared subscription
        # orjson: a page of 100 tools with every field is ~100 KB of JSON. A str, not bytes:
        # WebSocket messages go out as what this returns, and graphql-transport-ws wants text frames.
        return jsoncodec.dumps(data)

    async def render_graphql_ide(self, request: Request) -> HTMLResponse:
        # Quiver's own GraphiQL build (app/console/dist): no CDN, the console's key, subscriptions over WebSocket.
        return graphiql_response(self.console_files)

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        params = context.connection_params if isinstance(context.connection_params, dict) else {}
        raw = params.get("Authorization") or params.get("authorization")
        token = bearer_token(raw) if isinstance(raw, str) else None
        if token is None and isinstance(params.get("apiKey"), str):
            token = str(params["apiKey"])
        # The database away: DatabaseUnavailableError closes the socket with 1013, "try again"
        # (schema.websocket_admission), not 4403, which tells a client its key is bad.
        principal = await self.keys.principal(token) if token else None
        if principal is None:
            raise ConnectionRejectionError({"message": "Invalid or missing API key."})
        take_socket(self.socket_cap, context, principal.tenant)
        context.viewer = principal
        acknowledged: UnsetType = UNSET  # connection_ack without a payload
        return acknowledged


async def prepare_database(settings: Settings, session_factory: async_sessionmaker[AsyncSession]) -> str | None:
    """Migrate to head, load the builtin catalog and make sure an admin key exists.

    Returns a newly created admin key (first run only), to be printed once.
    """
    from app.migrate import upgrade_async

    await upgrade_async(settings.database_url)
    async with session_factory() as session, session.begin():
        await load_builtin_catalog(session)
        if settings.admin_token:
            await spaces_service.ensure_admin_token(session, settings.admin_token)
            return None
        return await spaces_service.create_first_admin_key(session)


async def prepare_once(settings: Settings) -> None:
    """What `quiver serve --workers N` does once, in the supervisor, before starting its workers:
    migrations, the builtin catalog, the first admin key (printed here, once) and, on SQLite
    without QUIVER_SECRET_KEY, the generated secret key file the workers then all read."""
    load_secret_box(settings)
    watch_catalog_commits()
    engine = create_engine(settings.database_url)
    try:
        new_key = await prepare_database(settings, create_session_factory(engine))
    finally:
        await engine.dispose()
    if new_key:
        print_first_admin_key(new_key)


def create_worker_app() -> FastAPI:
    """One worker of `quiver serve --workers N` (uvicorn's factory, in a process of its own): the
    supervisor prepared the database; each worker warms its own models up."""
    from app.logging import configure_logging

    settings = Settings()
    configure_logging(settings.log_level)
    return create_app(settings, prepare=False, warm_up=True)


def build_services(settings: Settings) -> Services:
    # The catalog caches below (gateway, MCP configs, API keys) hear of every commit.
    watch_catalog_commits()
    engine = create_engine(settings.database_url, timeout_s=settings.database_timeout_s or None)
    session_factory = create_session_factory(engine)
    secret_box = load_secret_box(settings)
    # One shared client for every CUSTOM call; per-call timeouts come from the gateway.
    egress = EgressPolicy(settings.egress_hosts)
    # Every connection it makes is checked against the egress policy, to the address it uses.
    http_client = httpx.AsyncClient(
        follow_redirects=False,
        transport=egress_checked_transport(egress, httpx.Limits(max_connections=200, max_keepalive_connections=50)),
        trust_env=False,
    )
    # One view of Redis for the bus, the rate limiter and /healthz: none of them waits on a dead one.
    # Without Redis, the workers of one `quiver serve --workers N` share their supervisor's broker instead.
    events_url = settings.redis_url or settings.event_broker_url
    redis_link = RedisLink(events_url) if events_url else None
    bus: EventBus = (
        RedisEventBus(redis_link.url, link=redis_link, ping_interval_s=settings.event_bus_ping_s)
        if redis_link
        else InProcessEventBus()
    )
    builtins = BuiltinExecutor()
    # One live MCP session per server, reused by every call and by discovery.
    mcp_pool = McpSessionPool(secret_box, egress)
    executors: dict[str, Executor] = {
        "BUILTIN": builtins,
        "CUSTOM": HttpExecutor(http_client, secret_box, egress),
        "MCP": McpExecutor(mcp_pool, session_factory, config_ttl_s=settings.catalog_cache_ttl_s),
    }
    quotas = QuotaGuard(
        default_rate_limit=settings.tool_rate_limit,
        default_max_concurrency=settings.tool_max_concurrency,
        # The local broker carries events only: without Redis each worker counts its own rate limits.
        redis=redis_link if settings.redis_url else None,
    )
    call_log = CallLog(engine)
    gateway = ToolGateway(
        session_factory=session_factory,
        executors=executors,
        quotas=quotas,
        bus=bus,
        call_log=call_log,
        call_log_max_bytes=settings.call_log_max_bytes,
        catalog_ttl_s=settings.catalog_cache_ttl_s,
        # An open /metrics labels tools so they can be told apart but not named; a scraper
        # that authenticates with QUIVER_METRICS_TOKEN sees their ids.
        metric_tool_label=metrics.tool_ids_as_labels
        if settings.metrics_token
        else metrics.opaque_tool_labels(secret_box.derive_key("quiver metrics tool labels")),
        disk_spool=None
        if settings.call_spool_dir is None
        else DiskSpool(settings.call_spool_dir, settings.database_url),
    )
    embedder = create_embedding_provider(settings)
    knowledge = KnowledgeSearch(
        session_factory,
        embedder,
        timeout_s=settings.knowledge_search_timeout_s,
        max_query_chars=settings.max_query_chars,
    )
    ingestor = Ingestor(chunking_options(settings), embedder)
    builtins.register(SEARCH_KNOWLEDGE_TOOL_ID, SearchKnowledgeTool(knowledge, agents_repository.mounted_knowledge))
    model_client = (
        ModelClient(
            base_url=settings.openai_base_url, api_key=settings.openai_api_key, timeout_s=settings.model_timeout_s
        )
        if settings.openai_base_url
        else None
    )
    prompt_builder = PromptBuilder(
        session_factory,
        skills=RoutedSkillProvider(session_factory, settings),
        knowledge=KnowledgeContextProvider(knowledge, top_k=settings.knowledge_context_top_k),
        settings=PromptSettings(
            budget_chars=settings.prompt_budget_chars,
            skill_max_chars=settings.skill_prompt_max_chars,
            knowledge_budget_chars=settings.knowledge_context_chars,
        ),
        catalog_ttl_s=settings.catalog_cache_ttl_s,
    )
    runtime = AgentRuntime(
        session_factory=session_factory,
        gateway=gateway,
        bus=bus,
        prompt_builder=prompt_builder,
        model_client=lambda: model_client,
        settings=RuntimeSettings(
            history_turns=settings.history_turns,
            tool_parallelism=settings.tool_parallelism,
            max_tool_calls_per_step=settings.max_tool_calls_per_step,
            delegation_depth_limit=settings.delegation_depth_limit,
            stream=settings.model_stream,
            lease_s=settings.run_lease_s,
            approval_timeout_s=settings.approval_timeout_s,
            trace_retention_days=settings.trace_retention_days,
            row_max_bytes=settings.run_log_max_bytes,
            catalog_ttl_s=settings.catalog_cache_ttl_s,
        ),
        # No platform secret may appear in a trace, wherever a model or a tool echoes it.
        scrubber=Scrubber(
            [
                settings.openai_api_key,
                settings.embeddings_api_key,
                settings.admin_token,
                settings.secret_key,
                settings.metrics_token,
            ]
        ),
        sink=_otel_sink(settings),
    )
    builtins.register("bt_send_message", runtime.send_message, cap_seconds=settings.delegation_timeout_s)
    return Services(
        settings=settings,
        engine=engine,
        session_factory=session_factory,
        secret_box=secret_box,
        http_client=http_client,
        egress=egress,
        bus=bus,
        mcp_pool=mcp_pool,
        gateway=gateway,
        builtins=builtins,
        embedder=embedder,
        knowledge=knowledge,
        ingestor=ingestor,
        runtime=runtime,
        # Its pipeline runs are leased and taken over with the runtime's heartbeat and sweep.
        pipelines=PipelineRunner(runtime, max_message_chars=settings.max_prompt_chars),
        model_client=model_client,
        call_log=call_log,
        changes=ChangeRelay(bus),
        redis=redis_link,
    )


def _otel_sink(settings: Settings) -> StageSink | None:
    """Runs as OpenTelemetry spans when OTEL_EXPORTER_OTLP_ENDPOINT is set (the SDK is imported only then)."""
    if not settings.otel_endpoint:
        return None
    from app.runtime.otel import otlp_exporter

    return otlp_exporter(
        settings.otel_endpoint, settings.otel_service_name, capture_content=settings.otel_capture_content
    )


def create_app(settings: Settings | None = None, *, prepare: bool = False, warm_up: bool | None = None) -> FastAPI:
    """The ASGI app. With ``prepare``, the lifespan migrates and loads the catalog first; with
    ``warm_up`` (default: as ``prepare``) it loads a local embedding model before serving."""
    settings = settings or Settings()
    services = build_services(settings)
    keys = KeyCache(services.engine, services.session_factory, settings.catalog_cache_ttl_s)
    mcp_endpoint = build_mcp_endpoint(services, keys)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await services.start()
        if prepare:
            new_key = await prepare_database(settings, services.session_factory)
            if new_key:
                print_first_admin_key(new_key)
        if prepare if warm_up is None else warm_up:
            # A local embedding model takes seconds to load: before the first request, not in it.
            await services.knowledge.warm_up()
        # Leases on this replica's runs, and the sweep continuing the runs of replicas that are
        # gone (a first one now): once the database is migrated.
        await services.runtime.start()
        # Call-log rows left on disk by processes killed during a database outage: written now
        # (the database is migrated) and looked for again every SPOOL_SWEEP_S.
        services.gateway.start()
        # The health report's rollups: closed hours of the call log and runs, caught up now and every minute.
        rollups = CatchUpLoop(services.session_factory, settings.report_rollup_interval_s)
        rollups.start()
        freeze_startup_objects()
        async with mcp_endpoint.run():
            yield
        await rollups.close()
        await services.close()

    async def get_context(connection: HTTPConnection) -> Context:
        principal = connection.scope.get(PRINCIPAL_SCOPE_KEY)
        return Context(
            session_factory=services.session_factory,
            settings=settings,
            secret_box=services.secret_box,
            viewer=principal,
            gateway=services.gateway,
            knowledge=services.knowledge,
            ingestor=services.ingestor,
            runtime=services.runtime,
            pipelines=services.pipelines,
            mcp_pool=services.mcp_pool,
            bus=services.bus,
            egress=services.egress,
        )

    schema = build_schema(settings)
    router = QuiverGraphQLRouter(
        schema,
        path=GRAPHQL_PATH,
        context_getter=get_context,
        graphql_ide="graphiql" if settings.graphiql else None,
        # Not the older graphql-ws (subscriptions-transport-ws): its sockets would wait for
        # connection_init forever and run operations outside the tenants' caps.
        subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
        connection_init_wait_timeout=timedelta(seconds=settings.websocket_init_timeout_s),
    )
    router.keys = keys
    router.shared_streams = SharedStreams()
    if settings.max_subscriptions_per_tenant > 0:
        router.operation_cap = OperationCap(settings.max_subscriptions_per_tenant)
    if settings.max_websockets_per_tenant > 0:
        router.socket_cap = TenantCap(settings.max_websockets_per_tenant)
    if settings.max_pending_websockets > 0:
        router.pending_sockets = PendingSockets(settings.max_pending_websockets)
    console_files = ConsoleFiles()
    router.console_files = console_files

    app = QuiverApp(title="Quiver", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.services = services
    app.state.shared_streams = router.shared_streams
    app.state.operation_cap = router.operation_cap
    app.state.socket_cap = router.socket_cap
    app.state.pending_sockets = router.pending_sockets
    app.state.mcp_stream_cap = mcp_endpoint.stream_cap
    app.state.listing_cache = getattr(router.schema, "listing_cache", None)
    app.include_router(router)
    app.mount("/mcp", mcp_endpoint)
    # Inside the auth check: a request without a valid key is refused before its body is read.
    app.add_middleware(
        RequestLimits,
        path=GRAPHQL_PATH,
        max_bytes=settings.max_request_bytes,
        max_depth=settings.max_json_depth,
        body_timeout_s=settings.request_body_timeout_s,
    )
    # One line per tenant for large bodies, shared by both ways in.
    heavy_line = CostlyOperationGate()
    # And one admission per process, shared by every way in: a tenant's share of executing requests.
    admission = (
        TenantAdmission(
            settings.tenant_concurrency,
            max_waiting=settings.tenant_queue_max,
            max_wait_s=settings.tenant_queue_timeout_s,
        )
        if settings.tenant_concurrency > 0
        else None
    )
    # The 2026-07-28 MCP calls too (app/mcp_server/endpoint.py).
    mcp_endpoint.admission = admission
    app.add_middleware(
        AuthMiddleware,
        keys=keys,
        heavy_line=heavy_line,
        heavy_bytes=settings.heavy_request_bytes,
        admission=admission,
    )
    # The hot path: the same two checks in the same order, without FastAPI in between.
    graphql_view: ASGIApp = GraphQLPost(schema, get_context)
    hot_path = getattr(schema, "hot_path", None)
    app.state.hot_path = hot_path
    if hot_path is not None:
        # invokeTool's and invokeAgent's known documents, answered without the generic machinery
        # (schema/gateway/hot_path.py), with the same context.

        async def hot_path_context(scope: Scope) -> Context:
            return await get_context(HTTPConnection(scope))

        graphql_view = HotPathApp(graphql_view, hot_path, hot_path_context, PRINCIPAL_SCOPE_KEY)
    app.graphql_post = AuthMiddleware(
        RequestLimits(
            graphql_view,
            path=GRAPHQL_PATH,
            max_bytes=settings.max_request_bytes,
            max_depth=settings.max_json_depth,
            body_timeout_s=settings.request_body_timeout_s,
        ),
        keys=keys,
        heavy_line=heavy_line,
        heavy_bytes=settings.heavy_request_bytes,
        admission=admission,
    )
    # Subscriptions: the same limits on their messages, without FastAPI in between.
    app.graphql_socket = RequestLimits(
        GraphQLSocket(router, get_context),
        path=GRAPHQL_PATH,
        max_bytes=settings.max_request_bytes,
        max_depth=settings.max_json_depth,
        body_timeout_s=settings.request_body_timeout_s,
    )
    install_console(app, console_files)

    @app.get("/metrics", include_in_schema=False)
    async def metrics(request: Request) -> Response:
        # Open unless QUIVER_METRICS_TOKEN is set (Prometheus's `authorization` scrape setting).
        if settings.metrics_token and not _same_secret(
            bearer_token(request.headers.get("authorization")), settings.metrics_token
        ):
            return _unauthenticated("/metrics needs `Authorization: Bearer <QUIVER_METRICS_TOKEN>`.")
        return Response(generate_latest(METRICS_REGISTRY), media_type=CONTENT_TYPE_LATEST)

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> JSONResponse:
        return await health_response(services)

    return app


HEALTH_DATABASE_TIMEOUT_S = 5.0


async def health_response(services: Services) -> JSONResponse:
    """``/healthz``: 200 while this replica can answer calls, 503 when it cannot.

    The database is required: without it, 503 ``down``. Redis is not (calls go on without
    it): unreachable, the answer is still 200, with ``status: degraded`` and the reason, so
    a load balancer keeps every replica of a fleet whose shared Redis is away.
    """
    checks: dict[str, Any] = {}
    try:
        async with asyncio.timeout(HEALTH_DATABASE_TIMEOUT_S), services.session_factory() as session:
            await session.execute(text("SELECT 1"))
        checks["database"] = {"status": "ok"}
    except Exception as error:
        # An outage says why in one line; anything else keeps its stack.
        logger.warning(
            "healthz: the database does not answer: %s",
            error or type(error).__name__,
            exc_info=not (is_database_unavailable(error) or isinstance(error, TimeoutError)),
        )
        checks["database"] = {"status": "unreachable", "reason": getattr(error, "reason", type(error).__name__)}
    if services.redis is not None:
        await services.redis.probe()
        checks["redis" if services.settings.redis_url else "eventBroker"] = services.redis.status()
    # Which process answered: with `quiver serve --workers N`, one of N sharing the port.
    worker = os.getpid()
    if checks["database"]["status"] != "ok":
        return JSONResponse({"status": "down", "checks": checks, "worker": worker}, status_code=503)
    degraded = any(check["status"] != "ok" for check in checks.values())
    return JSONResponse({"status": "degraded" if degraded else "ok", "checks": checks, "worker": worker})


def freeze_startup_objects() -> None:
    """Take what start-up made (modules, the schema, the embedding model, the catalog) out of
    the garbage collector's sight. A full collection walks every tracked object: with them,
    0.2 to 1 s during which the loop answers nobody, started by whichever request happens
    to allocate; without them, a few milliseconds (bench/noisy_neighbour.py)."""
    gc.collect()
    gc.freeze()


def build_mcp_endpoint(services: Services, keys: KeyCache) -> McpEndpoint:
    """Quiver as an MCP server: /mcp/spaces/{id} and /mcp/agents/{id} (app.mcp_server)."""
    catalog = McpCatalog(services.session_factory, services.settings.catalog_cache_ttl_s)
    notifier = ChangeNotifier(catalog, session_idle_s=McpEndpoint.session_idle_s)
    per_tenant = services.settings.max_mcp_streams_per_tenant
    stream_cap = TenantCap(per_tenant) if per_tenant > 0 else None
    server = build_mcp_server(
        catalog, services.gateway, notifier, page_size=services.settings.mcp_page_size, stream_cap=stream_cap
    )
    return McpEndpoint(
        server,
        catalog,
        notifier,
        keys.principal,
        stream_cap=stream_cap,
        body_timeout_s=services.settings.request_body_timeout_s,
    )


def print_first_admin_key(raw_key: str) -> None:
    """Shown once: the key is stored only as a hash."""
    print(
        "No API key existed, so an ADMIN key was created. It is shown only now; keep it safe:",
        flush=True,
    )
    print(raw_key, flush=True)


def schema_sdl() -> str:
    return export_sdl()
