"""``importOpenApi`` and ``quiver tools import-openapi``: an OpenAPI document becomes CUSTOM tools of a space.

Reading the document (``app.tools.openapi``) is CPU work bounded by its size; it runs on a
worker thread so the event loop keeps serving others meanwhile. Storing is one
transaction: every tool of the import, or none.

Imported tools belong to the space (its SPACE_ADMINs manage them) and are bound to it.
A tool remembers its document (``openapi:<info.title>``) and its operation (operationId,
else ``METHOD /path``): importing the document again updates those tools in place —
the declared fields (label, description, schemas, endpoint, request mapping, and the
credentials when ``auth`` is given); names and policies stay as they are — and DISABLES
the ones whose operation left the document (tagged ``openapi:vanished``; such a tool is
ACTIVE again when its operation comes back). A tool an admin disabled or archived keeps
its status. ``include`` narrows what is created or updated, never what counts as gone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from app.crypto import SecretBox
from app.egress import EgressPolicy
from app.errors import DomainError, ForbiddenError, NotFoundError
from app.ids import new_id
from app.principal import Principal
from app.spaces import repository as spaces_repository
from app.tools import openapi, repository
from app.tools.models import ToolDefinition
from app.tools.service import AuthConfig, check_egress, seal_auth
from app.validation import check_http_url

SOURCE_PREFIX = "openapi:"
VANISHED_TAG = "openapi:vanished"
IMPORT_TAG = "openapi"
#: (phase, done, total): "validate", "read", "store", "done".
Progress = Callable[[str, int, int | None], None]


@dataclass
class OpenApiImport:
    space_id: str
    spec: str
    base_url: str | None = None
    auth: AuthConfig | None = None
    include: list[str] | None = None


@dataclass(frozen=True)
class Imported:
    operation: openapi.Operation
    tool: ToolDefinition


@dataclass
class ImportReport:
    source: str
    created: list[Imported] = field(default_factory=list)
    updated: list[Imported] = field(default_factory=list)
    disabled: list[Imported] = field(default_factory=list)
    skipped: list[openapi.Skip] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{len(self.created)} created, {len(self.updated)} updated, "
            f"{len(self.disabled)} disabled, {len(self.skipped)} skipped"
        )


class SpecRejectedError(Exception):
    """The document cannot be imported: every problem, each with its field path."""

    def __init__(self, errors: list[DomainError]) -> None:
        super().__init__("; ".join(error.message for error in errors))
        self.errors = errors


def _spec_errors(problems: list[openapi.SpecError]) -> SpecRejectedError:
    return SpecRejectedError(
        [
            DomainError(
                problem.code,
                problem.message,
                ["input", problem.path[0]] if problem.path[:1] == ["baseUrl"] else ["input", "spec", *problem.path],
            )
            for problem in problems
        ]
    )


@dataclass
class _Read:
    document: openapi.Document
    base: str
    results: list[openapi.Draft | openapi.Skip]
    every_key: set[str]


def _read(data: OpenApiImport, progress: Progress | None) -> _Read:
    """Parse, validate and draft (CPU only: runs on a worker thread)."""
    if progress:
        progress("validate", 0, None)
    document = openapi.parse(data.spec)
    openapi.validate(document)
    base = openapi.base_url(document, data.base_url)
    chosen = openapi.selected(document, data.include)
    every_key = {operation.key for operation, _, _ in openapi.operations(document)}

    def step(done: int, total: int) -> None:
        if progress:
            progress("read", done, total)

    return _Read(document, base, openapi.drafts(document, chosen, base, step), every_key)


async def _space_to_manage(session: AsyncSession, principal: Principal, space_id: str) -> None:
    field_path = ["input", "spaceId"]
    if not principal.can_read_space(space_id) or await spaces_repository.get_space(session, space_id) is None:
        raise NotFoundError("Space", space_id, field_path)
    if not principal.can_manage_space(space_id):
        raise ForbiddenError("Only ADMIN keys and the space's SPACE_ADMIN keys import tools.", field_path)


async def _free_name(session: AsyncSession, space_id: str, wanted: str, batch: set[str]) -> str:
    """``wanted``, suffixed until no tool visible in the space (nor another of this import) has it."""
    name = wanted
    counter = 1
    while name in batch or await repository.name_taken(session, name, [space_id]):
        counter += 1
        suffix = f"_{counter}"
        name = wanted[: openapi.MAX_NAME - len(suffix)] + suffix
    return name


def _apply_declared(tool: ToolDefinition, draft: openapi.Draft, source: str) -> None:
    tool.label = draft.label
    tool.description = draft.description
    tool.input_schema = draft.input_schema
    tool.output_schema = draft.output_schema
    tool.endpoint = draft.endpoint
    tool.request_mapping = draft.mapping
    tool.import_source = source
    tool.import_key = draft.operation.key[:200]


async def import_openapi(
    session: AsyncSession,
    principal: Principal,
    data: OpenApiImport,
    box: SecretBox,
    egress: EgressPolicy | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    await _space_to_manage(session, principal, data.space_id)
    if data.base_url is not None:
        check_http_url(data.base_url, ["input", "baseUrl"])
    # Sealed first: bad credentials are refused before the document is read.
    auth_type, auth_config = seal_auth(box, data.auth, ["input", "auth"]) if data.auth else ("NONE", None)
    try:
        read = await asyncio.to_thread(_read, data, progress)
    except openapi.SpecError as error:
        raise _spec_errors([error]) from None
    except openapi.InvalidSpecError as error:
        raise _spec_errors(error.errors) from None
    await check_egress(egress, read.base + "/", ["input", "baseUrl" if data.base_url else "spec"])
    if data.auth is not None:
        await check_egress(egress, data.auth.token_url, ["input", "auth", "tokenUrl"])
    source = (SOURCE_PREFIX + read.document.title)[:200]
    report = ImportReport(source)
    existing = {
        tool.import_key: tool
        for tool in await repository.imported_tools(session, data.space_id, source)
        if tool.import_key is not None
    }
    drafts = [result for result in read.results if isinstance(result, openapi.Draft)]
    report.skipped = [result for result in read.results if isinstance(result, openapi.Skip)]
    names: set[str] = set()
    for index, draft in enumerate(drafts, start=1):
        tool = existing.get(draft.operation.key[:200])
        if tool is not None:
            _apply_declared(tool, draft, source)
            if data.auth is not None:
                tool.auth_type, tool.auth_config = auth_type, auth_config
            if VANISHED_TAG in (tool.tags or []):
                tool.tags = [tag for tag in tool.tags if tag != VANISHED_TAG]
                if tool.status == "DISABLED":
                    tool.status = "ACTIVE"
            report.updated.append(Imported(draft.operation, tool))
        else:
            name = await _free_name(session, data.space_id, draft.name, names)
            names.add(name)
            tool = ToolDefinition(
                tool_id=new_id("ct_"),
                name=name,
                type="CUSTOM",
                status="ACTIVE",
                side_effect=draft.side_effect,
                timeout_ms=10_000,
                max_retries=1,
                tags=list(dict.fromkeys([IMPORT_TAG, *draft.tags])),
                group=read.document.title[:100],
                allowed_roles=[],
                static_arguments={},
                version="1.0.0",
                owner_space_id=data.space_id,
                auth_type=auth_type,
                auth_config=auth_config,
            )
            _apply_declared(tool, draft, source)
            session.add(tool)
            await session.flush()
            await repository.replace_tool_bindings(session, tool.tool_id, [data.space_id])
            report.created.append(Imported(draft.operation, tool))
        if progress:
            progress("store", index, len(drafts))
    for key, tool in existing.items():
        if key in read.every_key:
            continue
        if tool.status == "ACTIVE":
            tool.status = "DISABLED"
            tool.tags = [*(tool.tags or []), VANISHED_TAG]
            report.disabled.append(Imported(_operation_of(tool), tool))
    await session.flush()
    if progress:
        progress("done", len(drafts), len(drafts))
    return report


def _operation_of(tool: ToolDefinition) -> openapi.Operation:
    """The operation a stored tool was imported from (to report a vanished one)."""
    mapping = tool.request_mapping or {}
    method, path = str(mapping.get("method") or "").lower(), str(mapping.get("path") or "")
    key = tool.import_key or ""
    return openapi.Operation(method, path, None if key == f"{method.upper()} {path}" else key or None)
