"""``importOpenApi`` and ``quiver tools import-openapi``: an OpenAPI document becomes CUSTOM tools of a space.

Reading the document (``app.tools.openapi``: parsing, validation, one draft per
operation) is CPU work bounded by the document's size; it runs in a child process
(``app.tools.openapi_worker``), killed after ``READ_TIMEOUT_S``, at most
``READS_AT_ONCE`` per process, so no import slows the server's other requests. Storing
is one transaction: every tool of the import, or none.

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
import json
import logging
import os
import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.crypto import SecretBox
from app.egress import EgressPolicy
from app.errors import DomainError, ForbiddenError, NotFoundError
from app.ids import new_id
from app.principal import Principal
from app.spaces import repository as spaces_repository
from app.tools import openapi, openapi_worker, repository
from app.tools.models import ToolDefinition
from app.tools.service import AuthConfig, check_credentials_stay, check_egress, seal_auth
from app.validation import check_http_url

logger = logging.getLogger(__name__)

SOURCE_PREFIX = "openapi:"
#: A child reading a document is killed after this long.
READ_TIMEOUT_S = 60.0
#: Documents read at once per process; more imports wait their turn.
READS_AT_ONCE = 2
#: Where the ``app`` package lives (the child process imports the same code).
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
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
    title: str
    base: str
    results: list[openapi.Draft | openapi.Skip]
    every_key: set[str]


def _operation(data: dict[str, Any]) -> openapi.Operation:
    return openapi.Operation(str(data["method"]), str(data["path"]), data.get("operation_id"))


def _parsed(answer: dict[str, Any]) -> _Read:
    results: list[openapi.Draft | openapi.Skip] = []
    for item in answer["results"]:
        if item.get("skip"):
            results.append(openapi.Skip(_operation(item["operation"]), str(item["reason"])))
        else:
            results.append(openapi.Draft(**{**item, "operation": _operation(item["operation"])}))
    return _Read(str(answer["title"]), str(answer["base"]), results, set(answer["every_key"]))


_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = weakref.WeakKeyDictionary()


async def _read(data: OpenApiImport, progress: Progress | None) -> _Read:
    """Parse, validate and draft in a child process (see the module's docstring)."""
    loop = asyncio.get_running_loop()
    slots = _slots.setdefault(loop, asyncio.Semaphore(READS_AT_ONCE))
    request = json.dumps({"spec": data.spec, "base_url": data.base_url, "include": data.include}).encode()
    # The child imports this very code, wherever it was imported from here.
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([PACKAGE_ROOT, os.environ.get("PYTHONPATH", "")]),
        openapi_worker.PARENT_PID_VARIABLE: str(os.getpid()),
    }
    async with slots:
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "app.tools.openapi_worker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
        )
        try:
            async with asyncio.timeout(READ_TIMEOUT_S):
                output, _ = await asyncio.gather(_answer(child, request), _follow(child.stderr, progress))
                await child.wait()
        except TimeoutError:
            raise openapi.SpecError(
                "TOO_LARGE", f"Reading the document took longer than {READ_TIMEOUT_S:.0f} s; import fewer operations."
            ) from None
        finally:
            if child.returncode is None:
                child.kill()
                await child.wait()
    try:
        answer = json.loads(output)
    except ValueError:
        raise RuntimeError(f"the OpenAPI reader exited with {child.returncode} and no answer") from None
    if answer.get("errors"):
        raise openapi.InvalidSpecError(
            [openapi.SpecError(item["code"], item["message"], list(item["path"])) for item in answer["errors"]]
        )
    return _parsed(answer)


async def _answer(child: asyncio.subprocess.Process, request: bytes) -> bytes:
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(request)
    await child.stdin.drain()
    child.stdin.close()
    return await child.stdout.read()


async def _follow(stream: asyncio.StreamReader | None, progress: Progress | None) -> None:
    """The child's progress lines, handed on (anything else it prints is logged)."""
    assert stream is not None
    while line := await stream.readline():
        try:
            step = json.loads(line)
            if progress:
                progress(str(step["phase"]), int(step["done"]), step["total"])
        except (ValueError, KeyError, TypeError):
            logger.warning("OpenAPI reader: %s", line[:500].decode("utf-8", "replace").rstrip())


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
        read = await _read(data, progress)
    except openapi.SpecError as error:
        raise _spec_errors([error]) from None
    except openapi.InvalidSpecError as error:
        raise _spec_errors(error.errors) from None
    await check_egress(egress, read.base + "/", ["input", "baseUrl" if data.base_url else "spec"])
    if data.auth is not None:
        await check_egress(egress, data.auth.token_url, ["input", "auth", "tokenUrl"])
    source = (SOURCE_PREFIX + read.title)[:200]
    report = ImportReport(source)
    existing = {
        tool.import_key: tool
        for tool in await repository.imported_tools(session, data.space_id, source)
        if tool.import_key is not None
    }
    drafts = [result for result in read.results if isinstance(result, openapi.Draft)]
    if data.auth is None:
        # A re-import that moves a tool elsewhere must not take its stored credential along.
        for draft in drafts:
            moved = existing.get(draft.operation.key[:200])
            if moved is not None:
                check_credentials_stay(
                    moved.auth_type,
                    moved.endpoint,
                    draft.endpoint,
                    ["input", "baseUrl" if data.base_url else "spec"],
                    f"endpoint of {moved.name}",
                )
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
                group=read.title[:100],
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
