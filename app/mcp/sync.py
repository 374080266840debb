"""MCP discovery: ``tools/list`` over every page, upserted as ``{serverId}__{name}`` tools.

Rules, in the order a sync applies them:

- A new tool is created ACTIVE, READ when ``annotations.readOnlyHint`` is true and WRITE
  otherwise, ``timeout_ms`` 15000 and ``max_retries`` 0 (MCP calls are never retried).
- Discovery owns the declared fields (name, label, description, input and output
  schemas) and rewrites them on every sync. ``side_effect`` is a policy field admins may
  change: a sync only ever makes it more cautious (READ → WRITE when the server stops
  declaring ``readOnlyHint``), never the other way.
- Drift: a description, input schema or output schema that differs from the stored one
  sets ``drifted_at``; with the ``disable`` policy an ACTIVE tool also becomes DISABLED
  until an admin activates it again (which clears ``drifted_at``).
- A tool the server no longer lists is never deleted. If it was ACTIVE it becomes
  DISABLED and gets the tag ``mcp:vanished``: the tag is how a later sync knows the
  platform, not an admin, disabled it. When the tool comes back the tag is removed and
  the tool is ACTIVE again, unless the drift policy disables it. A tool an admin
  disabled or archived keeps its status whatever the server does.
- Names: ``tool_id`` holds the exact MCP name (the executor calls the server with it).
  ``name`` is the identifier models see, so a name outside ``^[a-zA-Z0-9_-]{1,64}$`` is
  stored with every other character replaced by ``_`` and cut to 64 characters; the
  label keeps the original. A tool whose id would not fit is skipped and reported (and
  treated as not listed).
- A tool whose schemas are refused (not valid JSON Schema, or unsafe to serve: a ``$ref``
  outside the schema, a pattern RE2 cannot run, a reference cycle; see app.jsonschemas)
  is never served: a new one is not stored; a stored one keeps its last accepted schemas,
  becomes DISABLED and gets the tag ``mcp:schema-refused`` (removed, and the tool
  re-activated, once the server lists an acceptable schema again). Each refusal is in
  the report and, with its reason, in the server's ``lastError``.

The sync runs its own transactions (it is a boundary, like a request): the listing
happens with no transaction open, then one transaction applies every change.
On failure ``mcp_server.last_error`` is stored and ``McpSyncError`` raised.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import utcnow
from app.errors import DomainError, NotFoundError
from app.ids import mcp_tool_id
from app.mcp.config import McpCallError, McpServerConfig
from app.mcp.pool import McpSessionPool
from app.tools import repository
from app.tools.models import ToolDefinition
from app.tools.repository import ToolFilter
from app.tools.visibility import tool_visible_somewhere
from app.validation import check_json_schema

DRIFT_POLICIES = ("flag", "disable")
VANISHED_TAG = "mcp:vanished"
SCHEMA_REFUSED_TAG = "mcp:schema-refused"
#: Tags by which a sync knows that the platform, not an admin, disabled a tool.
PLATFORM_TAGS = (VANISHED_TAG, SCHEMA_REFUSED_TAG)
#: The whole listing, every page included.
LIST_TIMEOUT_S = 60.0
MCP_TIMEOUT_MS = 15_000
MAX_TOOL_ID_LENGTH = 200
MAX_LABEL_LENGTH = 200
MAX_ERROR_CHARS = 500
MODEL_SAFE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
UNSAFE_CHARACTERS = re.compile(r"[^a-zA-Z0-9_-]")

Progress = Callable[[str, int, int | None], None]


class RefusedSchemaError(ValueError):
    """A listed tool's schema cannot be served; the tool is known by id."""

    def __init__(self, tool_id: str, reason: str) -> None:
        super().__init__(reason)
        self.tool_id = tool_id


class McpSyncError(DomainError):
    """Discovery failed; the message (also stored as the server's ``lastError``) is safe to show."""

    def __init__(self, message: str) -> None:
        super().__init__("MCP_SYNC_FAILED", message)


@dataclass
class SyncReport:
    """Tool ids by outcome. Every listed tool is in exactly one of added / updated /
    unchanged / skipped; ``vanished`` are stored tools the server no longer lists;
    ``disabled``, ``drifted`` and ``reactivated`` cut across those."""

    server_id: str
    pages: int = 0
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    vanished: list[str] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)
    drifted: list[str] = field(default_factory=list)
    reactivated: list[str] = field(default_factory=list)
    #: ``"name: reason"`` for tools that could not be stored.
    skipped: list[str] = field(default_factory=list)
    #: ``"name: reason"`` for tools whose schemas were refused (also in ``skipped``).
    refused: list[str] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return {
            name: len(getattr(self, name))
            for name in ("added", "updated", "unchanged", "vanished", "disabled", "drifted", "reactivated", "skipped")
        }

    def summary(self) -> str:
        return ", ".join(f"{count} {name}" for name, count in self.counts.items())


def model_safe_name(mcp_name: str) -> str:
    """The name models and MCP clients see: the MCP name when it is one; an ASCII name with
    other punctuation (``files.read/v2``) with it made ``_``; a name with other letters
    (``查询天气``) its ASCII part (``tool`` when none) and 8 hex digits of its hash.

    Those letters all became ``_``, so every four-character Chinese name was ``____``: the
    first sorted kept it and the others were aliased by the agent runtime and the MCP
    endpoint, so a tool added by a later sync could take over a name another tool had been
    called by (a client asking for the weather sent an e-mail)."""
    if MODEL_SAFE_NAME.match(mcp_name):
        return mcp_name
    if mcp_name.isascii():
        return UNSAFE_CHARACTERS.sub("_", mcp_name)[:64] or "_"
    digest = hashlib.sha256(mcp_name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    base = re.sub(r"_+", "_", UNSAFE_CHARACTERS.sub("_", mcp_name)).strip("_") or "tool"
    return f"{base[: 64 - len(digest) - 1]}_{digest}"


def _canonical(value: Any) -> str:
    # JSON equality, not Python's (which conflates true and 1); key order is irrelevant.
    return json.dumps(value, sort_keys=True)


def _contract(description: str, input_schema: Any, output_schema: Any) -> str:
    """What drift watches: the parts of a tool a model relies on."""
    return _canonical([description, input_schema, output_schema])


@dataclass(frozen=True)
class _Listed:
    """A listed tool, as the platform stores it."""

    tool_id: str
    name: str
    label: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    side_effect: str

    @property
    def contract(self) -> str:
        return _contract(self.description, self.input_schema, self.output_schema)


async def _convert(server_id: str, tool: types.Tool) -> _Listed:
    """Raises ValueError with the reason when the tool cannot be stored."""
    tool_id = mcp_tool_id(server_id, tool.name)
    if not tool.name or len(tool_id) > MAX_TOOL_ID_LENGTH:
        raise ValueError(f"the name is empty or longer than {MAX_TOOL_ID_LENGTH - len(server_id) - 2} characters")
    try:
        input_schema = await check_json_schema(tool.input_schema, ["inputSchema"], require_object=True)
        output_schema = (
            await check_json_schema(tool.output_schema, ["outputSchema"], require_object=False)
            if tool.output_schema is not None
            else None
        )
    except DomainError as error:
        raise RefusedSchemaError(tool_id, f"{'/'.join(error.field or [])}: {error.message}") from None
    annotations = tool.annotations
    # The MCP display-name order: title, then annotations.title, then name.
    label = tool.title or (annotations.title if annotations else None) or tool.name
    is_read_only = bool(annotations and annotations.read_only_hint)
    return _Listed(
        tool_id=tool_id,
        name=model_safe_name(tool.name),
        label=label[:MAX_LABEL_LENGTH],
        description=tool.description or "",
        input_schema=input_schema,
        output_schema=output_schema,
        side_effect="READ" if is_read_only else "WRITE",
    )


def _new_tool(server_id: str, listed: _Listed) -> ToolDefinition:
    return ToolDefinition(
        tool_id=listed.tool_id,
        name=listed.name,
        label=listed.label,
        description=listed.description,
        input_schema=listed.input_schema,
        output_schema=listed.output_schema,
        static_arguments={},
        type="MCP",
        endpoint=None,
        auth_type="NONE",
        auth_config=None,
        mcp_server_id=server_id,
        status="ACTIVE",
        side_effect=listed.side_effect,
        timeout_ms=MCP_TIMEOUT_MS,
        max_retries=0,
        tags=[],
        group=None,
        allowed_roles=[],
        version="1.0.0",
        owner=None,
        owner_space_id=None,
        drifted_at=None,
    )


class _Applier:
    """Applies one listing to the stored tools of a server, filling the report."""

    def __init__(self, server_id: str, drift_policy: str, report: SyncReport) -> None:
        self.server_id = server_id
        self.drift_policy = drift_policy
        self.report = report
        self.now = utcnow()

    def update(self, stored: ToolDefinition, listed: _Listed) -> None:
        report = self.report
        is_changed = False
        is_drifted = _contract(stored.description, stored.input_schema, stored.output_schema) != listed.contract
        if is_drifted:
            stored.drifted_at = self.now
            report.drifted.append(stored.tool_id)
            is_changed = True
        for attribute in ("name", "label", "description", "input_schema", "output_schema"):
            new_value = getattr(listed, attribute)
            if _canonical(getattr(stored, attribute)) != _canonical(new_value):
                setattr(stored, attribute, new_value)
                is_changed = True
        if listed.side_effect == "WRITE" and stored.side_effect != "WRITE":
            stored.side_effect = "WRITE"
            is_changed = True
        status = stored.status
        if any(tag in PLATFORM_TAGS for tag in stored.tags or []):
            stored.tags = [tag for tag in stored.tags if tag not in PLATFORM_TAGS]
            is_changed = True
            if status == "DISABLED":
                status = "ACTIVE"
        if is_drifted and self.drift_policy == "disable" and status == "ACTIVE":
            status = "DISABLED"
        if status != stored.status:
            (report.reactivated if status == "ACTIVE" else report.disabled).append(stored.tool_id)
            stored.status = status
            is_changed = True
        (report.updated if is_changed else report.unchanged).append(stored.tool_id)

    def refuse(self, stored: ToolDefinition) -> None:
        """The server lists the tool with schemas the platform will not serve: the stored,
        accepted schemas stay; the tool is disabled unless an admin already disabled it."""
        tags = stored.tags or []
        platform_disabled = stored.status == "DISABLED" and any(tag in PLATFORM_TAGS for tag in tags)
        if stored.status != "ACTIVE" and not platform_disabled:
            return
        if stored.status == "ACTIVE":
            stored.status = "DISABLED"
            self.report.disabled.append(stored.tool_id)
        stored.tags = [*(tag for tag in tags if tag not in PLATFORM_TAGS), SCHEMA_REFUSED_TAG]

    def vanish(self, stored: ToolDefinition) -> None:
        self.report.vanished.append(stored.tool_id)
        if stored.status == "ACTIVE":
            stored.status = "DISABLED"
            # Already there when an admin re-activated the tool while it was still gone.
            if VANISHED_TAG not in (stored.tags or []):
                stored.tags = [*(stored.tags or []), VANISHED_TAG]
            self.report.disabled.append(stored.tool_id)


async def _stored_tools(session: AsyncSession, server_id: str) -> dict[str, ToolDefinition]:
    every_status = tool_visible_somewhere(None, include_inactive=True)
    statement = repository.tools_statement(every_status, ToolFilter(mcp_server_id=server_id))
    return {tool.tool_id: tool for tool in (await session.scalars(statement)).all()}


async def _record_failure(session_factory: async_sessionmaker[AsyncSession], server_id: str, message: str) -> None:
    async with session_factory() as session, session.begin():
        server = await repository.get_server(session, server_id)
        if server is not None:
            server.last_error = message


async def sync_server(
    session_factory: async_sessionmaker[AsyncSession],
    pool: McpSessionPool,
    server_id: str,
    *,
    drift_policy: str = "flag",
    progress: Progress | None = None,
) -> SyncReport:
    """Discover the server's tools and upsert them (see the module docstring for the rules).

    Args:
        drift_policy: ``flag`` (mark drifted tools) or ``disable`` (also disable them).
        progress: called as ``progress(phase, done, total)`` with the phases ``connect``,
            ``list`` (pages read; total known at the end), ``apply`` (tools written)
            and ``done``.

    Raises:
        NotFoundError: no such server.
        McpSyncError: the server could not be listed or the result not stored; the
            message is stored in ``mcp_server.last_error`` too.
    """
    if drift_policy not in DRIFT_POLICIES:
        raise ValueError(f"drift_policy is one of {DRIFT_POLICIES}, not {drift_policy!r}")

    def notify(phase: str, done: int, total: int | None) -> None:
        if progress is not None:
            progress(phase, done, total)

    async with pool.sync_lock(server_id):
        async with session_factory() as session:
            server = await repository.get_server(session, server_id)
            if server is None:
                raise NotFoundError("MCP server", server_id)
            config = McpServerConfig.from_row(server)
        report = SyncReport(server_id=server_id)

        def on_page(pages: int, _tools: int) -> None:
            report.pages = pages
            notify("list", pages, None)

        notify("connect", 0, None)
        try:
            listing = await pool.list_tools(config, timeout_s=LIST_TIMEOUT_S, on_page=on_page)
        except McpCallError as error:
            message = f"tools/list failed ({error.kind.lower().replace('_', ' ')}): {error.detail}"
            message = message[:MAX_ERROR_CHARS]
            await _record_failure(session_factory, server_id, message)
            raise McpSyncError(message) from None
        notify("list", report.pages, report.pages)

        try:
            async with session_factory() as session, session.begin():
                await _apply(session, server_id, listing, drift_policy, report, notify)
        except SQLAlchemyError as error:
            message = f"storing the tools failed: {type(error).__name__}"
            await _record_failure(session_factory, server_id, message)
            raise McpSyncError(message) from error
        notify("done", len(listing), len(listing))
        return report


async def _apply(
    session: AsyncSession,
    server_id: str,
    listing: list[types.Tool],
    drift_policy: str,
    report: SyncReport,
    notify: Progress,
) -> None:
    server = await repository.get_server(session, server_id)
    if server is None:
        raise NotFoundError("MCP server", server_id)
    stored_tools = await _stored_tools(session, server_id)
    applier = _Applier(server_id, drift_policy, report)
    listed_ids: set[str] = set()
    total = len(listing)
    for done, tool in enumerate(listing, start=1):
        try:
            listed = await _convert(server_id, tool)
        except RefusedSchemaError as refusal:
            report.skipped.append(f"{tool.name}: {refusal}")
            report.refused.append(f"{tool.name}: {refusal}")
            listed_ids.add(refusal.tool_id)
            if (refused_tool := stored_tools.get(refusal.tool_id)) is not None:
                applier.refuse(refused_tool)
            notify("apply", done, total)
            continue
        except ValueError as reason:
            report.skipped.append(f"{tool.name}: {reason}")
            notify("apply", done, total)
            continue
        if listed.tool_id in listed_ids:
            report.skipped.append(f"{tool.name}: listed twice")
            notify("apply", done, total)
            continue
        listed_ids.add(listed.tool_id)
        stored = stored_tools.get(listed.tool_id)
        if stored is None:
            session.add(_new_tool(server_id, listed))
            report.added.append(listed.tool_id)
        else:
            applier.update(stored, listed)
        notify("apply", done, total)
    for tool_id, stored in stored_tools.items():
        if tool_id not in listed_ids:
            applier.vanish(stored)
    server.last_synced_at = applier.now
    # A sync that refused tools says which and why where admins look: the server's lastError.
    server.last_error = ("Not served: " + "; ".join(report.refused))[:MAX_ERROR_CHARS] if report.refused else None
    await session.flush()
