"""ToolGateway.execute: the only door to a tool.

Order: resolve → visibility + role → static arguments + JSON Schema → quota and
concurrency → idempotency → executor under a timeout → retries by policy →
envelope → one tool_call row → one event on the bus.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import secrets
import time
import traceback
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from jsonschema.protocols import Validator
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.changes import DEFAULT_TTL_S, GenerationCache
from app.db import is_database_unavailable, utcnow
from app.events.bus import EventBus
from app.gateway import metrics
from app.gateway import repository as calls_repository
from app.gateway.call_log import DEFAULT_MAX_BYTES, CallLog, bounded_row, reduced_row
from app.gateway.envelope import (
    IDEMPOTENCY_CONFLICT,
    INTERNAL_ERROR,
    LOGGED_ID_CHARS,
    PARAM_INVALID,
    PERMISSION_DENIED,
    TOOL_NOT_AVAILABLE,
    ToolError,
    ToolFailure,
    ToolResult,
    logged_id,
)
from app.gateway.executors.base import Executor, Invocation
from app.gateway.models import IdempotencyRecord
from app.gateway.quotas import QuotaGuard
from app.gateway.redaction import SecretScrubber, json_safe
from app.gateway.spool import DiskSpool, replay_orphans
from app.ids import new_id
from app.jsonschemas import UnsafeSchemaError, ValidationTooCostlyError, checked, compiled_validator
from app.principal import Principal
from app.scheduling import waiting_outside
from app.tools import repository as tools_repository
from app.tools.models import ToolDefinition

logger = logging.getLogger("quiver.gateway")

TOOL_CALLS_TOPIC = "tool_calls"
IDEMPOTENCY_TTL = timedelta(hours=24)
IDEMPOTENCY_POLL_S = 0.02
SECRET_ARGUMENT = re.compile(r"(password|passwd|secret|token|api[_-]?key|authorization)", re.IGNORECASE)
REDACTED = "[redacted]"
BACKOFF_BASE_S = 0.05
BACKOFF_MAX_S = 1.0
EXECUTOR_GRACE_S = 1.0
# A call-log row the database refused is tried once more after this, then written reduced.
LOG_RETRY_S = 0.05
#: Call-log rows kept in memory while the database is away (past it, a row is lost and said so).
SPOOL_LIMIT = 10_000
SPOOL_RETRY_FIRST_S = 0.1
SPOOL_RETRY_MAX_S = 2.0
#: How long a shutting-down process waits for the database to take its kept rows.
SPOOL_CLOSE_TIMEOUT_S = 5.0
#: How often a running process looks for spool files of processes that are gone (a folder listing).
SPOOL_SWEEP_S = 30.0
# Longest tool id and idempotency key the call log stores (a longer one is logged cut: logged_id).
MAX_IDENTIFIER_LENGTH = LOGGED_ID_CHARS
# How a call arrived (ToolCall.origin).
ORIGIN_GRAPHQL = "GRAPHQL"
ORIGIN_AGENT = "AGENT"
ORIGIN_MCP = "MCP"
ORIGINS = (ORIGIN_GRAPHQL, ORIGIN_AGENT, ORIGIN_MCP)


@dataclass(frozen=True)
class CallRequest:
    principal: Principal
    space_id: str
    tool_id: str
    arguments: Any
    agent_id: str | None
    run_id: str | None
    idempotency_key: str | None
    delegation_depth: int
    origin: str = ORIGIN_GRAPHQL
    # An agent run names its calls before they run (``tc_…``), so it can find their rows after a crash.
    call_id: str | None = None
    # The row exists already (a call that waited for approval): the outcome replaces it.
    replace_pending: bool = False


def _redact(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: REDACTED if SECRET_ARGUMENT.search(str(key)) else _redact(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact(item) for item in value]
    return value


def logged_arguments(arguments: Any, static_keys: set[str]) -> dict[str, Any]:
    """The caller's arguments as logged: static values dropped, secret-looking values redacted at any depth."""
    if not isinstance(arguments, dict):
        return {"_invalid": repr(arguments)[:200]}
    redacted: dict[str, Any] = _redact({key: value for key, value in arguments.items() if key not in static_keys})
    return redacted


def _problem_path(error: Any) -> str:
    """JSON path of a schema problem; for a missing required property, the property itself."""
    parts = [str(part) for part in error.path]
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [name for name in error.validator_value if name not in error.instance]
        if missing:
            parts.append(str(missing[0]))
    return "/" + "/".join(parts)


def request_hash(tool_id: str, arguments: Any) -> str:
    canonical = json.dumps({"tool": tool_id, "arguments": arguments}, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def call_event(row: dict[str, Any]) -> dict[str, Any]:
    """The bus payload of a finished call: the row, JSON-ready, without the caller's key id."""
    event = {key: value for key, value in row.items() if key != "principal_key_id"}
    event["started_at"] = row["started_at"].isoformat()
    event["finished_at"] = row["finished_at"].isoformat()
    return event


@dataclass(frozen=True)
class ResolvedTool:
    """What the gateway reads of the catalog for one (space, tool): cached between changes."""

    space_exists: bool
    tool: ToolDefinition | None
    visible: bool
    validator: Validator | None
    #: Why the tool's stored schema cannot be served (stored before it was vetted), if so.
    schema_problem: str | None = None


class ToolGateway:
    def __init__(
        self,
        *,
        session_factory: async_sessionmaker[AsyncSession],
        executors: dict[str, Executor],
        quotas: QuotaGuard,
        bus: EventBus,
        call_log: CallLog,
        call_log_max_bytes: int = DEFAULT_MAX_BYTES,
        catalog_ttl_s: float = DEFAULT_TTL_S,
        metric_tool_label: Callable[[str], str] = metrics.tool_ids_as_labels,
        disk_spool: DiskSpool | None = None,
    ) -> None:
        self.session_factory = session_factory
        self.metric_tool_label = metric_tool_label
        self.executors = executors
        self.quotas = quotas
        self.bus = bus
        self.call_log = call_log
        self.call_log_max_bytes = call_log_max_bytes
        # The tool and its visibility per (space, tool), dropped on any catalog commit
        # (here or, through the bus, on another replica) and after the TTL.
        self._resolved: GenerationCache[tuple[str, str], ResolvedTool] = GenerationCache(catalog_ttl_s)
        # Rows of calls answered while the database was away, written when it answers again.
        self._spooled: deque[tuple[dict[str, Any], bool]] = deque()
        self._spooler: asyncio.Task[None] | None = None
        # ... and on disk too, so that a process killed before the database is back loses none
        # of them: the next process on the same spool folder writes them (app.gateway.spool).
        self.disk_spool = disk_spool
        self._sweeper: asyncio.Task[None] | None = None

    async def execute(
        self,
        principal: Principal,
        space_id: str,
        tool_id: str,
        arguments: Any,
        *,
        agent_id: str | None = None,
        run_id: str | None = None,
        idempotency_key: str | None = None,
        delegation_depth: int = 0,
        call_id: str | None = None,
        replace_pending: bool = False,
        origin: str | None = None,
    ) -> ToolResult:
        """``origin`` says how the call arrived (ORIGINS); by default AGENT for a run's call, else GRAPHQL."""
        if origin is None:
            origin = ORIGIN_AGENT if run_id is not None else ORIGIN_GRAPHQL
        request = CallRequest(
            principal,
            space_id,
            tool_id,
            arguments,
            agent_id,
            run_id,
            idempotency_key,
            delegation_depth,
            origin,
            call_id,
            replace_pending,
        )
        trace_id = secrets.token_hex(16)
        started_at = utcnow()
        clock = time.perf_counter()
        tool: ToolDefinition | None = None
        attempts = 0
        data: Any = None
        failure: ToolFailure | None = None
        try:
            if len(request.tool_id) > MAX_IDENTIFIER_LENGTH:
                raise _not_available(logged_id(request.tool_id))
            key = request.idempotency_key
            if key is not None and (not 0 < len(key) <= MAX_IDENTIFIER_LENGTH or "\x00" in key):
                # (PostgreSQL text cannot hold a NUL: such a key was an INTERNAL_ERROR there.)
                raise ToolFailure(
                    PARAM_INVALID,
                    f"Idempotency keys are 1 to {MAX_IDENTIFIER_LENGTH} characters, none of them NUL.",
                    "idempotencyKey",
                )
            resolved = await self._resolve(request)
            if resolved is None:
                # A space the caller cannot reach: nothing is logged into it.
                return self._envelope_only(trace_id, clock, _not_available(tool_id))
            tool, validator = resolved
            merged = await self._check(request, tool, validator)
            if request.idempotency_key:
                data, failure, attempts = await self._run_idempotent(request, tool, merged, trace_id)
            else:
                data, failure, attempts = await self._run_with_quota(request, tool, merged, trace_id)
        except ToolFailure as rejected:
            failure = rejected
        except Exception:
            logger.exception("gateway failure", extra={"trace_id": trace_id, "tool_id": logged_id(tool_id)})
            failure = ToolFailure(INTERNAL_ERROR, "The tool call failed inside the platform.", f"trace {trace_id}")
        latency_ms = (time.perf_counter() - clock) * 1000
        return await self._finish(request, tool, trace_id, started_at, latency_ms, attempts, data, failure)

    async def visible_tool(self, space_id: str, tool_id: str) -> ToolDefinition | None:
        """The tool as calls made in the space resolve it, from the cache; None unless it is
        ACTIVE and visible there."""
        if len(tool_id) > MAX_IDENTIFIER_LENGTH:
            return None
        resolved = await self._resolved.get_or_load((space_id, tool_id), lambda: self._load(space_id, tool_id))
        return resolved.tool if resolved.space_exists and resolved.visible else None

    async def check_arguments(
        self, principal: Principal, space_id: str, tool_id: str, arguments: Any
    ) -> ToolFailure | None:
        """What ``execute`` would refuse before running anything (availability, role,
        arguments against the schema), without running or logging; None when it would run."""
        request = CallRequest(principal, space_id, tool_id, arguments, None, None, None, 0)
        try:
            resolved = await self._resolve(request)
            if resolved is None:
                return _not_available(tool_id)
            await self._check(request, *resolved)
        except ToolFailure as refused:
            return refused
        return None

    # ------------------------------------------------------------ steps

    async def _resolve(self, request: CallRequest) -> tuple[ToolDefinition, Validator] | None:
        """The tool and its argument validator; None when the space is out of the caller's reach."""
        principal = request.principal
        if not principal.can_read_space(request.space_id):
            return None
        resolved = await self._resolved.get_or_load(
            (request.space_id, request.tool_id), lambda: self._load(request.space_id, request.tool_id)
        )
        if not resolved.space_exists:
            return None
        tool, validator = resolved.tool, resolved.validator
        if tool is None or not resolved.visible:
            raise _not_available(request.tool_id)
        if validator is None:
            raise ToolFailure(
                TOOL_NOT_AVAILABLE,
                "This tool's input schema cannot be served; an admin must correct it.",
                resolved.schema_problem,
            )
        if not principal.can_invoke_in_space(request.space_id):
            raise ToolFailure(PERMISSION_DENIED, "This key may not call tools.", f"role {principal.role.value}")
        if tool.allowed_roles and not principal.is_admin and principal.role.value not in tool.allowed_roles:
            raise ToolFailure(
                PERMISSION_DENIED,
                "You are not allowed to call this tool.",
                f"role {principal.role.value} not in {tool.allowed_roles}",
            )
        return tool, validator

    async def _load(self, space_id: str, tool_id: str) -> ResolvedTool:
        async with self.session_factory() as session:
            space_exists, tool, visible = await tools_repository.tool_for_call(session, tool_id, space_id)
        if tool is None:
            return ResolvedTool(space_exists, tool, visible, None)
        try:
            # Compiled once per distinct schema, shared by every tool and space that uses it; off
            # the event loop (a schema of hundreds of patterns takes a tenth of a second).
            validator = await compiled_validator(tool.input_schema)
        except UnsafeSchemaError as problem:
            return ResolvedTool(
                space_exists, tool, visible, None, f"input schema refused at {problem.where}: {problem.message}"
            )
        return ResolvedTool(space_exists, tool, visible, validator)

    async def _check(self, request: CallRequest, tool: ToolDefinition, validator: Validator) -> dict[str, Any]:
        if not isinstance(request.arguments, dict):
            raise ToolFailure(PARAM_INVALID, "Arguments must be a JSON object.", "(root): not an object")
        # Platform-held values win: the caller can never set or override them.
        merged = {**request.arguments, **(tool.static_arguments or {})}
        try:
            errors = sorted(await checked(validator, merged), key=lambda error: list(error.path))
        except ValidationTooCostlyError as costly:
            raise ToolFailure(
                PARAM_INVALID,
                f"The arguments take too much work to check against the tool's input schema "
                f"(more than {costly.limit} steps): send fewer or simpler values, or simplify the schema.",
                json.dumps({"steps": costly.limit}),
            ) from None
        if errors:
            problems = [{"path": _problem_path(error), "message": error.message} for error in errors]
            summary = "; ".join(f"{problem['path']}: {problem['message']}" for problem in problems[:5])
            raise ToolFailure(
                PARAM_INVALID,
                f"The arguments do not match the tool's input schema: {summary}",
                json.dumps(problems),
            )
        return merged

    async def _run_with_quota(
        self, request: CallRequest, tool: ToolDefinition, merged: dict[str, Any], trace_id: str
    ) -> tuple[Any, ToolFailure | None, int]:
        async with self.quotas.admit(request.space_id, tool):
            return await self._run(request, tool, merged, trace_id)

    async def _run(
        self, request: CallRequest, tool: ToolDefinition, merged: dict[str, Any], trace_id: str
    ) -> tuple[Any, ToolFailure | None, int]:
        """The executor's outcome made safe before anything else sees it (idempotency record,
        envelope, call log, events, a model): JSON-safe, and without the tool's secrets."""
        executor = self.executors.get(tool.type)
        if executor is None:
            raise ToolFailure(INTERNAL_ERROR, "No executor for this kind of tool.", tool.type)
        data, failure, attempts = await self._attempts(request, tool, merged, trace_id, executor)
        scrub = await executor.scrubber_for(tool)
        data = scrub.value(json_safe(data))
        if failure is not None:
            failure = _safe_failure(failure, scrub)
        return data, failure, attempts

    async def _attempts(
        self, request: CallRequest, tool: ToolDefinition, merged: dict[str, Any], trace_id: str, executor: Executor
    ) -> tuple[Any, ToolFailure | None, int]:
        timeout_s = min(tool.timeout_ms / 1000, executor.cap_for(tool.tool_id))
        max_attempts = 1
        if tool.type != "MCP" and (tool.side_effect == "READ" or request.idempotency_key):
            max_attempts += max(tool.max_retries, 0)
        failure: ToolFailure | None = None
        for attempt in range(1, max_attempts + 1):
            invocation = Invocation(
                tool=tool,
                arguments=merged,
                principal=request.principal,
                space_id=request.space_id,
                trace_id=trace_id,
                timeout_s=timeout_s,
                attempt=attempt,
                agent_id=request.agent_id,
                run_id=request.run_id,
                idempotency_key=request.idempotency_key,
                delegation_depth=request.delegation_depth,
            )
            try:
                async with asyncio.timeout(timeout_s + EXECUTOR_GRACE_S):
                    if executor.waits_outside:
                        with waiting_outside():
                            data = await executor.execute(invocation)
                    else:
                        data = await executor.execute(invocation)
                return data, None, attempt
            except TimeoutError:
                failure = ToolFailure(
                    executor.timeout_code,
                    "The tool did not finish in time.",
                    f"no result within {timeout_s:.1f}s",
                    retryable=True,
                )
            except ToolFailure as raised:
                failure = raised
            except Exception as crash:
                # Logged without the tool's secrets (a driver's error may quote a header).
                scrub = await executor.scrubber_for(tool)
                logger.error(
                    "executor crashed",
                    extra={
                        "trace_id": trace_id,
                        "tool_id": tool.tool_id,
                        "exception": scrub.text("".join(traceback.format_exception(crash))),
                    },
                )
                failure = ToolFailure(INTERNAL_ERROR, "The tool failed unexpectedly.", f"trace {trace_id}")
            if not failure.retryable or attempt == max_attempts:
                return None, failure, attempt
            await asyncio.sleep(min(BACKOFF_BASE_S * 2 ** (attempt - 1), BACKOFF_MAX_S))
        return None, failure, max_attempts

    async def _run_idempotent(
        self, request: CallRequest, tool: ToolDefinition, merged: dict[str, Any], trace_id: str
    ) -> tuple[Any, ToolFailure | None, int]:
        """Exactly one execution per (space, key): the first caller claims the key,
        concurrent duplicates wait for its envelope. Only the caller that runs the tool
        takes a quota: duplicates run nothing, so they hold no concurrency slot and use up
        no rate limit while they wait (if the owner is refused, the key is free again and
        one of them claims it)."""
        key = request.idempotency_key
        assert key is not None
        fingerprint = request_hash(tool.tool_id, request.arguments)
        while True:
            if await self._claim(request.space_id, key, tool.tool_id, fingerprint):
                break
            stored = await self._await_stored(request.space_id, key, fingerprint, tool)
            if stored is not None:
                return stored
        try:
            async with self.quotas.admit(request.space_id, tool):
                data, failure, attempts = await self._run(request, tool, merged, trace_id)
        except BaseException:
            await self._release(request.space_id, key)
            raise
        if failure is not None and failure.retryable:
            # A transient failure is not a result: the caller may retry with the same key.
            await self._release(request.space_id, key)
        else:
            envelope = {
                "status": "FAILED" if failure else "SUCCESS",
                "data": data,
                "error": failure.error.as_dict() if failure else None,
            }
            async with self.session_factory() as session, session.begin():
                await calls_repository.complete_idempotency_key(session, request.space_id, key, envelope)
        return data, failure, attempts

    async def _claim(self, space_id: str, key: str, tool_id: str, fingerprint: str) -> bool:
        now = utcnow()
        async with self.session_factory() as session:
            await calls_repository.purge_expired_idempotency_keys(session, now)
            session.add(
                IdempotencyRecord(
                    space_id=space_id,
                    key=key,
                    tool_id=tool_id,
                    request_hash=fingerprint,
                    state="PENDING",
                    envelope=None,
                    created_at=now,
                    expires_at=now + IDEMPOTENCY_TTL,
                )
            )
            try:
                await session.commit()
            except IntegrityError:
                await session.rollback()
                return False
        return True

    async def _await_stored(
        self, space_id: str, key: str, fingerprint: str, tool: ToolDefinition
    ) -> tuple[Any, ToolFailure | None, int] | None:
        """The stored outcome of the key's first call; None when the key is free again."""
        executor = self.executors.get(tool.type)
        cap = executor.cap_for(tool.tool_id) if executor else 15.0
        # The owner may retry: wait for as long as its attempts can take, then take over.
        stale_after = timedelta(seconds=(cap + EXECUTOR_GRACE_S) * (1 + max(tool.max_retries, 0)) + 5)
        while True:
            async with self.session_factory() as session:
                record = await calls_repository.get_idempotency_record(session, space_id, key)
            if record is None:
                return None
            if record.request_hash != fingerprint:
                raise ToolFailure(
                    IDEMPOTENCY_CONFLICT,
                    "This idempotency key was already used with other arguments.",
                    f"key {key!r} belongs to another request",
                )
            if record.state == "DONE" and record.envelope is not None:
                envelope = record.envelope
                error = envelope.get("error")
                failure = ToolFailure(error["code"], error["message"], error.get("detail")) if error else None
                return envelope.get("data"), failure, 0
            now = utcnow()
            if record.created_at < now - stale_after:
                async with self.session_factory() as session, session.begin():
                    await calls_repository.release_idempotency_key(session, space_id, key)
                return None
            await asyncio.sleep(IDEMPOTENCY_POLL_S)

    async def _release(self, space_id: str, key: str) -> None:
        async with self.session_factory() as session, session.begin():
            await calls_repository.release_idempotency_key(session, space_id, key)

    # ------------------------------------------------------------ outcome

    def _envelope_only(self, trace_id: str, clock: float, failure: ToolFailure) -> ToolResult:
        latency_ms = (time.perf_counter() - clock) * 1000
        logger.info(
            "tool call refused",
            extra={"trace_id": trace_id, "error_code": failure.error.code, "latency_ms": latency_ms},
        )
        return ToolResult(status="FAILED", trace_id=trace_id, latency_ms=latency_ms, error=failure.error)

    async def _finish(
        self,
        request: CallRequest,
        tool: ToolDefinition | None,
        trace_id: str,
        started_at: datetime,
        latency_ms: float,
        attempts: int,
        data: Any,
        failure: ToolFailure | None,
    ) -> ToolResult:
        error: ToolError | None = failure.error if failure else None
        static_keys = set((tool.static_arguments or {}) if tool else {})
        status = "FAILED" if error else "SUCCESS"
        call_id = request.call_id or new_id("tc_")
        row: dict[str, Any] = {
            "id": call_id,
            "tool_id": logged_id(request.tool_id),
            "tool_type": tool.type if tool else None,
            "space_id": request.space_id,
            "agent_id": request.agent_id,
            "run_id": request.run_id,
            "principal_key_id": request.principal.key_id,
            "arguments": json_safe(logged_arguments(request.arguments, static_keys)),
            "status": status,
            "result": None if error else data,
            "error_code": error.code if error else None,
            "error_message": json_safe(error.message) if error else None,
            "error_detail": json_safe(error.detail) if error else None,
            "latency_ms": latency_ms,
            "attempts": attempts,
            "trace_id": trace_id,
            # (A key holding a NUL, refused above, is logged with U+FFFD: PostgreSQL text cannot hold it.)
            "idempotency_key": logged_id(request.idempotency_key) if request.idempotency_key else None,
            "origin": request.origin,
            "started_at": started_at,
            "finished_at": utcnow(),
        }
        row = await self._log(bounded_row(row, self.call_log_max_bytes), replace=request.replace_pending)
        # Only resolved tools get their own label: a caller's made-up ids must not grow the series.
        metrics.observe(
            tool.type if tool else "UNKNOWN",
            self.metric_tool_label(tool.tool_id) if tool else "unknown",
            latency_ms / 1000,
            error.code if error else None,
        )
        logger.info(
            "tool call %s",
            status,
            extra={
                "trace_id": trace_id,
                "call_id": call_id,
                "tool_id": row["tool_id"],
                "space_id": request.space_id,
                "status": status,
                "error_code": row["error_code"],
                "latency_ms": round(latency_ms, 3),
                "attempts": attempts,
            },
        )
        await self.bus.publish(TOOL_CALLS_TOPIC, call_event(row))
        return ToolResult(
            status=status,
            trace_id=trace_id,
            latency_ms=latency_ms,
            data=None if error else data,
            error=error,
            call_id=call_id,
            attempts=attempts,
        )

    async def _write(self, row: dict[str, Any], *, replace: bool) -> None:
        if replace:
            async with self.session_factory() as session, session.begin():
                await calls_repository.replace_call(session, row)
        else:
            await self.call_log.write(row)

    async def _log(self, row: dict[str, Any], *, replace: bool) -> dict[str, Any]:
        """Write the call's row; never takes the envelope from the caller. A refused row is
        tried again, then written reduced (no arguments, result or detail; a marker says why);
        should even that fail, the loss is logged at CRITICAL. Returns the row last tried."""
        where = {"call_id": row["id"], "trace_id": row["trace_id"], "tool_id": row["tool_id"]}
        problem: Exception | None = None
        for attempt in (1, 2):
            try:
                await self._write(row, replace=replace)
                return row
            except Exception as error:
                if is_database_unavailable(error):
                    # Not the row's fault: it is written as soon as the database answers again.
                    await self._spool(row, replace=replace, reason=_describe(error))
                    return row
                problem = error
                logger.warning("call-log row refused (attempt %d): %s", attempt, _describe(error), extra=where)
                await asyncio.sleep(LOG_RETRY_S)
        reduced = reduced_row(row, f"the full row was refused: {_describe(problem)}"[:300])
        try:
            await self._write(reduced, replace=replace)
        except Exception as error:
            logger.critical(
                "call-log row LOST: the call ran but no row records it: %s",
                _describe(error),
                extra={**where, "status": row["status"], "error_code": row["error_code"]},
            )
        else:
            logger.error("call-log row written without its arguments and result", extra=where)
        return reduced

    async def _spool(self, row: dict[str, Any], *, replace: bool, reason: str) -> None:
        where = {"call_id": row["id"], "trace_id": row["trace_id"], "tool_id": row["tool_id"]}
        if len(self._spooled) >= SPOOL_LIMIT:
            logger.critical(
                "call-log row LOST: the database is away and %d rows already wait for it: %s",
                len(self._spooled),
                reason,
                extra={**where, "status": row["status"], "error_code": row["error_code"]},
            )
            return
        logger.warning("call-log row kept until the database answers: %s", reason, extra=where)
        self._spooled.append((row, replace))
        try:
            stored = self._store_spooled(row, replace)
        except Exception as error:  # the spool closed (shutting down): the memory still holds it
            logger.critical("call-log row kept in memory only: %s", _describe(error), extra=where)
            stored = None
        if self._spooler is None or self._spooler.done():
            self._spooler = asyncio.get_running_loop().create_task(self._write_spooled(), name="call-log-spool")
        if stored is not None:
            try:
                # The call is answered once its row is on disk (fsync'ed): a kill now loses nothing.
                await asyncio.wrap_future(stored)
            except Exception as error:
                logger.critical(
                    "call-log row kept in memory only (the spool file could not be written): %s",
                    _describe(error),
                    extra=where,
                )

    def _store_spooled(self, row: dict[str, Any], replace: bool) -> Future[None] | None:
        """Hand the row to the disk spool (on its thread, in order); the file holds at most
        SPOOL_LIMIT rows: past it, it is rewritten with the rows still waiting."""
        disk = self.disk_spool
        if disk is None:
            return None
        if disk.rows >= SPOOL_LIMIT:
            return disk.rewrite(list(self._spooled))
        return disk.append(row, replace)

    async def _write_spooled(self) -> None:
        """The rows of calls answered while the database was away, in order, once it answers."""
        delay = SPOOL_RETRY_FIRST_S
        written = 0
        while self._spooled:
            row, replace = self._spooled[0]
            try:
                await self._write(row, replace=replace)
            except IntegrityError:
                pass  # a write that timed out had committed after all: the row is there
            except Exception as error:
                if is_database_unavailable(error):
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, SPOOL_RETRY_MAX_S)
                    continue
                logger.critical(
                    "call-log row LOST: the call ran but no row records it: %s",
                    _describe(error),
                    extra={"call_id": row["id"], "status": row["status"], "error_code": row["error_code"]},
                )
            self._spooled.popleft()
            written += 1
            delay = SPOOL_RETRY_FIRST_S
        if self.disk_spool is not None:
            # Every row handed to the file before now is written: it goes. (Its thread runs this
            # after them, and a row handed over later goes into a new file.)
            self.disk_spool.remove()
        logger.warning("the database answers again: %d kept call-log rows written", written)

    async def replay_spool(self) -> int:
        """Write the rows of spool files left by processes that are gone (none of a live one)."""
        disk = self.disk_spool
        if disk is None:
            return 0
        return await replay_orphans(disk.folder, disk.identity, self.session_factory, own=disk.path)

    def start(self, sweep_every_s: float = SPOOL_SWEEP_S) -> None:
        """Replay what processes that are gone left in the spool folder, now and every ``sweep_every_s``."""
        if self.disk_spool is not None and self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep(sweep_every_s), name="call-log-sweep")

    async def _sweep(self, every_s: float) -> None:
        while True:
            try:
                await self.replay_spool()
            except Exception as error:
                # The database away, a file that cannot be read now: the next sweep tries again.
                logger.warning("call-log spool files not replayed yet: %s", _describe(error))
            await asyncio.sleep(every_s)

    async def close(self) -> None:
        """Write the rows kept during an outage, if the database answers in time; say what is left."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)
        try:
            if self._spooler is None or self._spooler.done():
                return
            try:
                async with asyncio.timeout(SPOOL_CLOSE_TIMEOUT_S):
                    await asyncio.shield(self._spooler)
            except TimeoutError:
                self._spooler.cancel()
                if self.disk_spool is not None and self.disk_spool.path is not None:
                    logger.critical(
                        "call-log rows not written at shutdown: %d kept while the database was away are in %s; "
                        "the next process on this spool folder writes them",
                        len(self._spooled),
                        self.disk_spool.path,
                    )
                else:
                    logger.critical(
                        "call-log rows LOST at shutdown: %d kept while the database was away", len(self._spooled)
                    )
        finally:
            if self.disk_spool is not None:
                await asyncio.to_thread(self.disk_spool.close)


def _describe(error: BaseException | None) -> str:
    """An error in one line, bounded (a driver's message may quote a whole row)."""
    if error is None:
        return "unknown error"
    cause = error.__cause__ or error
    return f"{type(cause).__name__}: {str(cause)[:200]}"


def _safe_failure(failure: ToolFailure, scrub: SecretScrubber) -> ToolFailure:
    error = failure.error
    message = scrub.text(json_safe(error.message))
    detail = scrub.optional_text(json_safe(error.detail))
    if (message, detail) == (error.message, error.detail):
        return failure
    return ToolFailure(error.code, message, detail, retryable=failure.retryable)


def _not_available(tool_id: str) -> ToolFailure:
    return ToolFailure(
        TOOL_NOT_AVAILABLE,
        "This tool is not available here.",
        f"{tool_id} does not exist, is not ACTIVE, or is not visible in this space",
    )
