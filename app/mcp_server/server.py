"""The MCP request handlers, on the official SDK's low-level ``Server``.

Each request carries, in its ASGI scope, the caller's principal and the endpoint it
reached (set by ``app.mcp_server.endpoint`` after authenticating the key): the handlers
answer for that endpoint only.

- ``tools/list`` pages through the endpoint's offer (``QUIVER_MCP_PAGE_SIZE`` per page,
  an opaque cursor that is the last tool id, so a page boundary survives catalog changes).
- ``tools/call`` goes through ``ToolGateway.execute`` (origin MCP): visibility, role,
  static arguments, schema, quotas, idempotency (``_meta["quiver/idempotencyKey"]``),
  retries, one call-log row and one event. An unknown name is refused by the gateway too,
  and logged. A failed envelope is ``isError`` with ``CODE: message`` as text and the
  whole error in ``_meta``; data is ``structuredContent`` (an object as is, anything else
  as ``{"result": …}``) plus the same as a JSON text block.
- ``prompts/list`` / ``prompts/get``: an agent's bound skills.
- ``subscriptions/listen`` (2026-07-28 clients): the SDK's ``ListenHandler`` on the
  change notifier, one stream per endpoint.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPError
from starlette.requests import Request

from app.errors import ECHO_CHARS, echo
from app.gateway.envelope import ToolResult, unknown_tool_id
from app.gateway.service import ORIGIN_MCP, ToolGateway
from app.mcp_server.catalog import Catalog, Offer, Target
from app.mcp_server.notify import LISTEN_TARGET, ChangeNotifier
from app.principal import Principal
from app.scheduling import TenantCap

SCOPE_PRINCIPAL = "quiver.principal"
SCOPE_TARGET = "quiver.mcp_target"
META_IDEMPOTENCY_KEY = "quiver/idempotencyKey"
META_TRACE_ID = "quiver/traceId"
META_CALL_ID = "quiver/callId"
META_ERROR = "quiver/error"
#: Longest prompt argument (a session id) taken.
MAX_ARGUMENT_CHARS = 200
#: Listen streams one key may hold open on this replica.
MAX_STREAMS_PER_KEY = 32
#: Events a listen stream buffers for a client that stopped reading (list_changed events repeat anyway).
MAX_BUFFERED_EVENTS = 16
#: The code in a refusal's ``error.data`` when the tenant has QUIVER_MAX_MCP_STREAMS_PER_TENANT streams open.
TOO_MANY_STREAMS = "TOO_MANY_STREAMS"
SERVER_NAME = "quiver"
SERVER_VERSION = "0.1.0"


class QuiverMcpServer(Server[Any]):
    """The SDK's server, advertising ``listChanged`` for tools and prompts to handshake-era clients."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True, prompts_changed=True),
            experimental_capabilities,
            extensions,
        )


def too_many_streams(limit: int) -> tuple[str, dict[str, Any]]:
    """The message and ``error.data`` refusing a stream past the tenant's cap."""
    message = (
        f"This tenant already has {limit} MCP streams open (GET streams and subscriptions/listen; "
        "QUIVER_MAX_MCP_STREAMS_PER_TENANT): close one and try again."
    )
    return message, {"code": TOO_MANY_STREAMS, "limit": limit}


def caller(ctx: ServerRequestContext[Any]) -> tuple[Principal, Target]:
    """The principal and endpoint the HTTP layer authenticated this request for."""
    request = ctx.request
    scope = request.scope if isinstance(request, Request) else {}
    principal, target = scope.get(SCOPE_PRINCIPAL), scope.get(SCOPE_TARGET)
    if not isinstance(principal, Principal) or not isinstance(target, Target):
        raise MCPError(types.INVALID_REQUEST, "Requests reach Quiver's MCP endpoints over HTTP only.")
    return principal, target


def _encode_cursor(value: str) -> str:
    return base64.urlsafe_b64encode(value.encode()).decode()


def _decode_cursor(cursor: str) -> str:
    try:
        return base64.urlsafe_b64decode(cursor.encode()).decode()
    except (binascii.Error, UnicodeError, ValueError):
        raise MCPError(types.INVALID_PARAMS, "Invalid cursor.") from None


def _meta_value(meta: Any, key: str) -> Any:
    if meta is None:
        return None
    values = meta if isinstance(meta, Mapping) else meta.model_dump(by_alias=True)
    return values.get(key)


def call_result(result: ToolResult) -> types.CallToolResult:
    """The gateway's envelope as an MCP result."""
    meta: dict[str, Any] = {META_TRACE_ID: result.trace_id}
    if result.call_id is not None:
        meta[META_CALL_ID] = result.call_id
    if not result.ok:
        error = result.error
        code, message = (error.code, error.message) if error else ("INTERNAL_ERROR", "The call failed.")
        meta[META_ERROR] = error.as_dict() if error else {"code": code, "message": message, "detail": None}
        return types.CallToolResult(content=[types.TextContent(text=f"{code}: {message}")], is_error=True, _meta=meta)
    data = result.data
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    structured = data if isinstance(data, dict) else {"result": data}
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=structured, _meta=meta)


#: An error message longer than this is cut too (the SDK's own messages are short).
MAX_ERROR_MESSAGE_CHARS = 2000


async def bounded_errors(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
    """Server middleware: a JSON-RPC error never echoes a client's input at length (the SDK
    puts an unknown method's name, whole, in ``error.data``)."""
    try:
        return await call_next(ctx)
    except MCPError as error:
        data, message = error.data, error.message
        if (isinstance(data, str) and len(data) > ECHO_CHARS) or len(message) > MAX_ERROR_MESSAGE_CHARS:
            raise MCPError(
                error.code, echo(message, MAX_ERROR_MESSAGE_CHARS), echo(data) if isinstance(data, str) else data
            ) from None
        raise


class SessionAttacher:
    """Server middleware: hands each handshake-era session's object to the notifier."""

    def __init__(self, notifier: ChangeNotifier) -> None:
        self.notifier = notifier

    async def __call__(self, ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        request = ctx.request
        if isinstance(request, Request):
            session_id = request.headers.get(MCP_SESSION_ID_HEADER)
            if session_id:
                self.notifier.session_attached(session_id, ctx.session)
        return await call_next(ctx)


def build_server(
    catalog: Catalog,
    gateway: ToolGateway,
    notifier: ChangeNotifier,
    *,
    page_size: int,
    stream_cap: TenantCap | None = None,
) -> QuiverMcpServer:
    """``stream_cap``: the tenants' open streams (listen streams here, GET streams in the endpoint)."""

    async def offer_for(target: Target) -> Offer:
        offer = await catalog.offer(target)
        notifier.served(target, offer)
        if offer is None:
            raise MCPError(types.INVALID_REQUEST, "This endpoint no longer exists.")
        return offer

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        _, target = caller(ctx)
        offer = await offer_for(target)
        start = 0
        if params is not None and params.cursor:
            after = _decode_cursor(params.cursor)
            # Tools are in tool-id order: resume after the last one sent, whatever changed since.
            start = next((index for index, item in enumerate(offer.tools) if item.tool_id > after), len(offer.tools))
        page = offer.tools[start : start + page_size]
        more = start + page_size < len(offer.tools)
        return types.ListToolsResult(
            tools=[item.tool for item in page],
            next_cursor=_encode_cursor(page[-1].tool_id) if more and page else None,
        )

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        principal, target = caller(ctx)
        offer = await offer_for(target)
        offered = offer.tools_by_name.get(params.name)
        # A name this endpoint does not offer still goes to the gateway, which refuses and logs it.
        tool_id = offered.tool_id if offered is not None else unknown_tool_id(params.name)
        key = _meta_value(params.meta, META_IDEMPOTENCY_KEY)
        result = await gateway.execute(
            principal,
            offer.space_id,
            tool_id,
            params.arguments if params.arguments is not None else {},
            agent_id=offer.agent_id,
            idempotency_key=str(key) if key is not None else None,
            origin=ORIGIN_MCP,
        )
        return call_result(result)

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        _, target = caller(ctx)
        offer = await offer_for(target)
        start = 0
        if params is not None and params.cursor:
            position = _decode_cursor(params.cursor)
            if not position.isdigit():
                raise MCPError(types.INVALID_PARAMS, "Invalid cursor.")
            start = int(position)
        page = offer.prompts[start : start + page_size]
        end = start + len(page)
        return types.ListPromptsResult(
            prompts=[item.prompt for item in page],
            next_cursor=_encode_cursor(str(end)) if end < len(offer.prompts) else None,
        )

    async def get_prompt(ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> types.GetPromptResult:
        _, target = caller(ctx)
        offer = await offer_for(target)
        offered = offer.prompts_by_name.get(params.name)
        if offered is None:
            raise MCPError(types.INVALID_PARAMS, f"No prompt named {echo(params.name)!r} here.")
        version, text = offered.version, offered.text
        session_id = (params.arguments or {}).get("sessionId")
        if session_id:
            if len(session_id) > MAX_ARGUMENT_CHARS:
                raise MCPError(types.INVALID_PARAMS, f"sessionId is at most {MAX_ARGUMENT_CHARS} characters.")
            resolved = await catalog.prompt_for_session(target, offered.skill_id, session_id)
            if resolved is not None:
                version, text = resolved
        return types.GetPromptResult(
            description=offered.prompt.description,
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
            _meta={"quiver/skillId": offered.skill_id, "quiver/skillVersion": version},
        )

    listen = ListenHandler(notifier, max_buffered_events=MAX_BUFFERED_EVENTS)

    async def subscriptions_listen(
        ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        principal, target = caller(ctx)
        if notifier.streams_of(principal.key_id) >= MAX_STREAMS_PER_KEY:
            raise MCPError(types.INVALID_REQUEST, f"At most {MAX_STREAMS_PER_KEY} listen streams per key.")
        tenant = principal.tenant
        if stream_cap is not None and not stream_cap.take(tenant):
            raise MCPError(types.INVALID_REQUEST, *too_many_streams(stream_cap.per_tenant))
        token = LISTEN_TARGET.set((target, principal.key_id))
        try:
            return await listen(ctx, params)
        finally:
            LISTEN_TARGET.reset(token)
            if stream_cap is not None:
                stream_cap.give_back(tenant)

    server = QuiverMcpServer(
        SERVER_NAME,
        version=SERVER_VERSION,
        title="Quiver",
        description="The tools (and, for an agent, the skills) of a Quiver space or agent, through Quiver's gateway.",
        # Mcp-Param-* header validation would otherwise walk tools/list on every call; Quiver's
        # schemas declare no such headers, and the gateway validates every argument.
        get_tool_input_schema=lambda _name: None,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_subscriptions_listen=subscriptions_listen,
    )
    server.middleware.append(SessionAttacher(notifier))
    server.middleware.append(bounded_errors)
    return server
