"""Rules for MCP servers: registering one and syncing one (ADMIN keys only), reaching one, changing its status."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.crypto import SecretBox
from app.db import lock_name
from app.egress import EgressPolicy
from app.errors import DomainError, ForbiddenError, NotFoundError
from app.ids import new_id
from app.principal import Principal, within_reach
from app.tools import repository
from app.tools import service as tools_service
from app.tools.models import McpServer
from app.tools.service import AuthConfig
from app.validation import check_http_url

MCP_SERVER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
TRANSPORTS = ("STREAMABLE_HTTP", "SSE", "STDIO")


def _path(*names: str) -> list[str]:
    return ["input", *names]


@dataclass
class McpServerInput:
    name: str
    transport: str
    url: str | None = None
    command: list[str] | None = None
    auth: AuthConfig | None = None
    space_ids: list[str] | None = None


async def register_mcp_server(
    session: AsyncSession,
    principal: Principal,
    data: McpServerInput,
    box: SecretBox,
    egress: EgressPolicy | None = None,
) -> McpServer:
    if not principal.is_admin:
        raise ForbiddenError("Only ADMIN keys register MCP servers.", ["input"])
    if not MCP_SERVER_NAME.match(data.name):
        raise DomainError("INVALID_NAME", "Server names match ^[a-zA-Z0-9_-]{1,64}$.", _path("name"))
    if data.transport not in TRANSPORTS:
        raise DomainError("INVALID", f"Unknown transport {data.transport!r}.", _path("transport"))
    if data.transport == "STDIO":
        if not data.command or not all(part.strip() for part in data.command):
            raise DomainError("REQUIRED", "A STDIO server needs a command.", _path("command"))
        if data.url is not None:
            raise DomainError("INVALID", "A STDIO server takes a command, not a url.", _path("url"))
    else:
        if not data.url:
            raise DomainError("REQUIRED", f"A {data.transport} server needs a url.", _path("url"))
        check_http_url(data.url, _path("url"))
        await tools_service.check_egress(egress, data.url, _path("url"))
        if data.command is not None:
            raise DomainError("INVALID", f"A {data.transport} server takes a url, not a command.", _path("command"))
    await lock_name(session, "mcp_server", data.name)
    if await repository.get_server_by_name(session, data.name) is not None:
        raise DomainError("DUPLICATE", f"An MCP server named {data.name!r} exists.", _path("name"))
    space_ids = (
        await tools_service.check_space_ids(session, principal, data.space_ids, _path("spaceIds"))
        if data.space_ids
        else []
    )
    auth_type, auth_config = tools_service.seal_auth(box, data.auth, _path("auth"))
    server = McpServer(
        id=new_id("mcp_"),
        name=data.name,
        transport=data.transport,
        url=data.url,
        command=data.command,
        auth_type=auth_type,
        auth_config=auth_config,
        status="ACTIVE",
    )
    session.add(server)
    await session.flush()
    if space_ids:
        await repository.replace_server_bindings(session, server.id, space_ids)
    return server


async def get_server_for(session: AsyncSession, principal: Principal, server_id: str) -> McpServer | None:
    """The server if the caller may see it (any status); None otherwise."""
    return await within_reach(
        principal,
        await repository.get_server(session, server_id),
        lambda space_id: repository.is_server_visible(session, server_id, space_id),
    )


async def set_server_status(session: AsyncSession, principal: Principal, server_id: str, status: str) -> McpServer:
    if not principal.is_admin:
        if await get_server_for(session, principal, server_id) is None:
            raise NotFoundError("MCP server", server_id, ["input", "id"])
        raise ForbiddenError("Only ADMIN keys change MCP servers.", ["input", "id"])
    server = await repository.get_server(session, server_id)
    if server is None:
        raise NotFoundError("MCP server", server_id, ["input", "id"])
    server.status = status
    await session.flush()
    return server


async def require_syncable(session: AsyncSession, principal: Principal, server_id: str) -> McpServer:
    """The server a ``syncMcpServer`` of this caller may discover: one within its reach, and only for ADMIN keys."""
    server = await get_server_for(session, principal, server_id)
    if server is None:
        raise NotFoundError("MCP server", server_id, ["id"])
    if not principal.is_admin:
        raise ForbiddenError("Only ADMIN keys sync MCP servers.", ["id"])
    return server
