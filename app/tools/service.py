"""Rules for tools, MCP server records and bindings."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.ext.asyncio import AsyncSession

from app.crypto import SecretBox
from app.db import lock_name
from app.egress import EgressDeniedError, EgressPolicy
from app.errors import DomainError, ForbiddenError, NotFoundError
from app.ids import new_id
from app.principal import Principal, Role, within_reach
from app.spaces import repository as spaces_repository
from app.tools import repository
from app.tools.models import McpServer, ToolDefinition
from app.validation import (
    check_http_url,
    check_json_schema,
    check_not_blank,
    check_range,
    check_secret,
    check_version,
)

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
AUTH_TYPES = ("NONE", "API_KEY", "HEADER", "OAUTH_CLIENT_CREDENTIALS", "BEARER")
MAX_TIMEOUT_MS = 600_000
MAX_RETRIES = 5
# When an agent's call of the tool waits for a person (app.runtime decides by these).
APPROVAL_POLICIES = ("NEVER", "ALWAYS", "WRITE_ONLY")
# Headers a tool's credential may not be sent in: they frame the request (hop-by-hop,
# length, host), or the gateway sets them itself.
RESERVED_HEADERS = frozenset(
    {
        "host",
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authorization",
        "proxy-authenticate",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
        "content-type",
        "content-encoding",
        "expect",
        "cookie",
        "idempotency-key",
        "x-quiver-trace-id",
    }
)
# RFC 9110 token characters: what a header name may be made of.
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")
# Fields of BUILTIN and MCP tools that come from code or discovery, not from admins.
DECLARED_FIELDS = ("label", "description", "input_schema", "output_schema", "endpoint", "auth")


@dataclass
class AuthConfig:
    type: str = "NONE"
    header_name: str | None = None
    secret: str | None = None
    token_url: str | None = None
    client_id: str | None = None
    scopes: list[str] = field(default_factory=list)


@dataclass
class ToolInput:
    """Fields of createTool / updateTool; None means "not given"."""

    name: str | None = None
    label: str | None = None
    description: str | None = None
    input_schema: Any = None
    output_schema: Any = None
    endpoint: str | None = None
    auth: AuthConfig | None = None
    side_effect: str | None = None
    approval: str | None = None
    timeout_ms: int | None = None
    max_retries: int | None = None
    tags: list[str] | None = None
    group: str | None = None
    allowed_roles: list[str] | None = None
    version: str | None = None
    owner: str | None = None
    space_ids: list[str] | None = None


def _path(*names: str) -> list[str]:
    return ["input", *names]


def seal_auth(box: SecretBox, auth: AuthConfig | None, prefix: list[str]) -> tuple[str, str | None]:
    """Validate an auth configuration; returns (auth type, encrypted config or None)."""
    if auth is None or auth.type == "NONE":
        return "NONE", None
    if auth.type not in AUTH_TYPES:
        raise DomainError("INVALID_AUTH", f"Unknown auth type {auth.type!r}.", [*prefix, "type"])
    required: dict[str, tuple[str, ...]] = {
        "API_KEY": ("header_name", "secret"),
        "HEADER": ("header_name", "secret"),
        "BEARER": ("secret",),
        "OAUTH_CLIENT_CREDENTIALS": ("token_url", "client_id", "secret"),
    }
    camel = {
        "header_name": "headerName",
        "secret": "secret",
        "token_url": "tokenUrl",
        "client_id": "clientId",
    }
    for attribute in required[auth.type]:
        if not getattr(auth, attribute):
            raise DomainError("INVALID_AUTH", f"{auth.type} needs {camel[attribute]}.", [*prefix, camel[attribute]])
    if auth.header_name is not None and auth.type in ("API_KEY", "HEADER"):
        check_header_name(auth.header_name, [*prefix, "headerName"])
    if auth.token_url:
        check_http_url(auth.token_url, [*prefix, "tokenUrl"])
    # Header-safe: an unsendable value would otherwise fail every call, echoed in its error.
    check_secret(auth.secret or "", [*prefix, "secret"], in_header=auth.type != "OAUTH_CLIENT_CREDENTIALS")
    if auth.type == "OAUTH_CLIENT_CREDENTIALS":
        check_secret(auth.client_id or "", [*prefix, "clientId"], in_header=False)
        for index, scope in enumerate(auth.scopes or []):
            check_secret(scope, [*prefix, "scopes", str(index)], in_header=False)
    config = {
        "header_name": auth.header_name,
        "secret": auth.secret,
        "token_url": auth.token_url,
        "client_id": auth.client_id,
        "scopes": auth.scopes,
    }
    return auth.type, box.encrypt(config)


def check_header_name(name: str, field_path: list[str]) -> None:
    if not HEADER_NAME.match(name):
        raise DomainError("INVALID_AUTH", f"{name[:100]!r} is not a valid HTTP header name.", field_path)
    if name.lower() in RESERVED_HEADERS or name.lower().startswith("proxy-"):
        raise DomainError(
            "INVALID_AUTH",
            f"{name!r} is a reserved header (it frames the request or the gateway sets it); use another name.",
            field_path,
        )


async def check_space_ids(
    session: AsyncSession, principal: Principal, space_ids: Sequence[str], field_path: list[str]
) -> list[str]:
    unique = list(dict.fromkeys(space_ids))
    known = await spaces_repository.existing_space_ids(session, unique)
    for space_id in unique:
        if space_id not in known or not principal.can_read_space(space_id):
            raise NotFoundError("Space", space_id, field_path)
    return unique


def _apply_policy_fields(tool: ToolDefinition, data: ToolInput) -> None:
    if data.side_effect is not None:
        if data.side_effect not in ("READ", "WRITE"):
            raise DomainError("INVALID", "sideEffect is READ or WRITE.", _path("sideEffect"))
        tool.side_effect = data.side_effect
    if data.approval is not None:
        if data.approval not in APPROVAL_POLICIES:
            raise DomainError("INVALID", "approval is NEVER, ALWAYS or WRITE_ONLY.", _path("approval"))
        tool.approval = data.approval
    if data.timeout_ms is not None:
        tool.timeout_ms = check_range(data.timeout_ms, 1, MAX_TIMEOUT_MS, _path("timeoutMs"))
    if data.max_retries is not None:
        tool.max_retries = check_range(data.max_retries, 0, MAX_RETRIES, _path("maxRetries"))
    if data.tags is not None:
        tool.tags = list(dict.fromkeys(tag.strip() for tag in data.tags if tag.strip()))
    if data.group is not None:
        tool.group = data.group.strip() or None
    if data.allowed_roles is not None:
        for role in data.allowed_roles:
            if role not in Role.__members__:
                raise DomainError("INVALID", f"Unknown role {role!r}.", _path("allowedRoles"))
        tool.allowed_roles = list(dict.fromkeys(data.allowed_roles))
    if data.version is not None:
        tool.version = check_version(data.version, _path("version"))
    if data.owner is not None:
        tool.owner = data.owner.strip() or None


async def _apply_declared_fields(tool: ToolDefinition, data: ToolInput, box: SecretBox) -> None:
    if data.label is not None:
        tool.label = check_not_blank(data.label, _path("label"))
    if data.description is not None:
        tool.description = check_not_blank(data.description, _path("description"))
    if data.input_schema is not None:
        tool.input_schema = await check_json_schema(data.input_schema, _path("inputSchema"), require_object=True)
    if data.output_schema is not None:
        tool.output_schema = await check_json_schema(data.output_schema, _path("outputSchema"), require_object=False)
    if data.endpoint is not None:
        tool.endpoint = check_http_url(data.endpoint, _path("endpoint"))
    if data.auth is not None:
        tool.auth_type, tool.auth_config = seal_auth(box, data.auth, _path("auth"))


def url_origin(url: str | None) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of an http(s) URL, the default port made explicit; None without one."""
    if not url:
        return None
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme)


def _show_origin(origin: tuple[str, str, int | None] | None) -> str:
    if origin is None:
        return "none"
    scheme, host, port = origin
    return f"{scheme}://{host}:{port}"


def check_credentials_stay(
    auth_type: str, old_url: str | None, new_url: str | None, field_path: list[str], what: str
) -> None:
    """A stored credential never follows a URL to another origin (scheme, host, port): changing
    it without giving the credential again is refused (SECRET_WOULD_MOVE)."""
    if auth_type == "NONE" or url_origin(old_url) == url_origin(new_url):
        return
    raise DomainError(
        "SECRET_WOULD_MOVE",
        f"Changing the origin of the {what} from {_show_origin(url_origin(old_url))} to "
        f"{_show_origin(url_origin(new_url))} would send the stored {auth_type} credential there; "
        "give auth again in the same request (or auth {type: NONE} to drop it).",
        field_path,
    )


async def check_egress(egress: EgressPolicy | None, url: str | None, field_path: list[str]) -> None:
    """Refuse, at creation, a URL whose host resolves to a forbidden address (checked again per call)."""
    if egress is None or url is None:
        return
    try:
        await egress.check_url(url, resolve_failure_ok=True)
    except EgressDeniedError as error:
        raise DomainError("EGRESS_DENIED", str(error), field_path) from None


async def create_tool(
    session: AsyncSession,
    principal: Principal,
    data: ToolInput,
    box: SecretBox,
    egress: EgressPolicy | None = None,
) -> ToolDefinition:
    """Create a CUSTOM tool. Admins bind it where they say (global when omitted);
    a SPACE_ADMIN's tool is bound to its own space."""
    if principal.role not in (Role.ADMIN, Role.SPACE_ADMIN):
        raise ForbiddenError("Only ADMIN and SPACE_ADMIN keys create tools.", ["input"])
    name = data.name or ""
    if not TOOL_NAME.match(name):
        raise DomainError("INVALID_NAME", "Tool names match ^[a-zA-Z0-9_-]{1,64}$.", _path("name"))
    for required in ("label", "description", "input_schema", "endpoint"):
        if getattr(data, required) is None:
            raise DomainError("REQUIRED", f"{required} is required.", _path(required))
    if principal.is_admin:
        space_ids = (
            await check_space_ids(session, principal, data.space_ids, _path("spaceIds"))
            if data.space_ids is not None
            else []
        )
    else:
        assert principal.space_id is not None
        if data.space_ids is not None:
            await check_space_ids(session, principal, data.space_ids, _path("spaceIds"))
        space_ids = [principal.space_id]
    if await repository.name_taken(session, name, space_ids or None):
        raise DomainError("DUPLICATE", f"A tool named {name!r} is already visible there.", _path("name"))
    tool = ToolDefinition(
        tool_id=new_id("ct_"),
        name=name,
        type="CUSTOM",
        status="ACTIVE",
        side_effect="READ",
        timeout_ms=10_000,
        max_retries=1,
        tags=[],
        allowed_roles=[],
        static_arguments={},
        version="1.0.0",
        owner_space_id=None if principal.is_admin else principal.space_id,
    )
    await _apply_declared_fields(tool, data, box)
    _apply_policy_fields(tool, data)
    await check_egress(egress, tool.endpoint, _path("endpoint"))
    await check_egress(egress, data.auth.token_url if data.auth else None, _path("auth", "tokenUrl"))
    # Checked again under the name's lock (held to the commit): a simultaneous createTool of the
    # same name may have passed the check above too.
    await lock_name(session, "tool", name)
    if await repository.name_taken(session, name, space_ids or None):
        raise DomainError("DUPLICATE", f"A tool named {name!r} is already visible there.", _path("name"))
    session.add(tool)
    await session.flush()
    if space_ids:
        await repository.replace_tool_bindings(session, tool.tool_id, space_ids)
    return tool


async def get_tool_for(session: AsyncSession, principal: Principal, tool_id: str) -> ToolDefinition | None:
    """The tool if the caller may see it (any status); None otherwise."""
    return await within_reach(
        principal,
        await repository.get_tool(session, tool_id),
        lambda space_id: repository.is_tool_visible(session, tool_id, space_id, include_inactive=True),
    )


async def _require_manageable_tool(
    session: AsyncSession, principal: Principal, tool_id: str, field_path: list[str]
) -> ToolDefinition:
    tool = await get_tool_for(session, principal, tool_id)
    if tool is None:
        raise NotFoundError("Tool", tool_id, field_path)
    if may_manage_tool(principal, tool):
        return tool
    raise ForbiddenError("This key may read this tool but not change it.", field_path)


def may_manage_tool(principal: Principal, tool: repository.ToolRow) -> bool:
    """Change its definition, policies or status: admins, and the SPACE_ADMIN of the space that made a CUSTOM tool."""
    if principal.is_admin:
        return True
    return principal.role is Role.SPACE_ADMIN and tool.type == "CUSTOM" and tool.owner_space_id == principal.space_id


async def update_tool(
    session: AsyncSession,
    principal: Principal,
    tool_id: str,
    data: ToolInput,
    box: SecretBox,
    egress: EgressPolicy | None = None,
) -> ToolDefinition:
    tool = await _require_manageable_tool(session, principal, tool_id, _path("id"))
    if tool.type != "CUSTOM":
        for declared in DECLARED_FIELDS:
            if getattr(data, declared) is not None:
                camel = re.sub(r"_(\w)", lambda match: match.group(1).upper(), declared)
                raise DomainError(
                    "READ_ONLY",
                    f"{camel} of a {tool.type} tool comes from "
                    f"{'the platform' if tool.type == 'BUILTIN' else 'MCP discovery'}; "
                    "only policy fields can be changed.",
                    _path(camel),
                )
    if data.endpoint is not None and data.auth is None:
        check_credentials_stay(tool.auth_type, tool.endpoint, data.endpoint, _path("endpoint"), "endpoint")
    await _apply_declared_fields(tool, data, box)
    _apply_policy_fields(tool, data)
    if data.endpoint is not None:
        await check_egress(egress, tool.endpoint, _path("endpoint"))
    if data.auth is not None:
        await check_egress(egress, data.auth.token_url, _path("auth", "tokenUrl"))
    await session.flush()
    return tool


def _is_server_id(identifier: str) -> bool:
    return identifier.startswith("mcp_") and "__" not in identifier


async def set_space_bindings(
    session: AsyncSession, principal: Principal, identifier: str, space_ids: Sequence[str]
) -> ToolDefinition | McpServer:
    """Replace every binding of a tool or server; an empty list makes it global again."""
    if not principal.is_admin:
        raise ForbiddenError("Only ADMIN keys change bindings.", ["input", "id"])
    unique = await check_space_ids(session, principal, space_ids, ["input", "spaceIds"])
    if _is_server_id(identifier):
        server = await repository.get_server(session, identifier)
        if server is None:
            raise NotFoundError("MCP server", identifier, ["input", "id"])
        await repository.replace_server_bindings(session, server.id, unique)
        return server
    tool = await repository.get_tool(session, identifier)
    if tool is None:
        raise NotFoundError("Tool", identifier, ["input", "id"])
    if tool.mcp_server_id is not None:
        raise DomainError(
            "INHERITED",
            f"MCP tools inherit the bindings of their server; bind {tool.mcp_server_id!r} instead.",
            ["input", "id"],
        )
    if tool.status != "ARCHIVED" and await repository.name_taken(
        session, tool.name, unique or None, exclude_tool_id=tool.tool_id
    ):
        raise DomainError(
            "DUPLICATE",
            f"Another tool named {tool.name!r} is already visible there; the model would see two.",
            ["input", "spaceIds"],
        )
    await repository.replace_tool_bindings(session, tool.tool_id, unique)
    return tool


async def set_tool_status(session: AsyncSession, principal: Principal, tool_id: str, status: str) -> ToolDefinition:
    tool = await _require_manageable_tool(session, principal, tool_id, ["input", "id"])
    if tool.status == "ARCHIVED" and status != "ARCHIVED" and tool.mcp_server_id is None:
        # An archived tool gave up its name; someone may have taken it since.
        bound = (await repository.tool_bindings(session, [tool.tool_id])).get(tool.tool_id, [])
        if await repository.name_taken(session, tool.name, bound or None, exclude_tool_id=tool.tool_id):
            raise DomainError(
                "DUPLICATE",
                f"Another tool named {tool.name!r} is now visible where this one was; rename or rebind it first.",
                ["input", "id"],
            )
    tool.status = status
    if status == "ACTIVE":
        tool.drifted_at = None
    await session.flush()
    return tool
