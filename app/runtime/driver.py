"""Driving one run: the tool-calling loop of a run this replica holds the lease on.

A ``RunDriver`` starts from the run's checkpoint and goes on until the run finishes,
waits for a person's approval (it is then released: nothing holds it), or another replica
took it over (``LeaseLostError``: this one stops). Every step is stored before its tool
calls run — each call named with its ``tc_…`` id — so that whoever continues the run
knows which calls may have run: their call-log rows hold the outcome, and a WRITE call
without a row is never run again (INTERRUPTED).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import inspect as sa_inspect
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.agents.models import Agent
from app.db import utcnow
from app.gateway.call_log import bounded_text
from app.gateway.envelope import INTERNAL_ERROR, ToolFailure, ToolResult, logged_id, unknown_tool_id
from app.gateway.models import ToolCall
from app.gateway.repository import PENDING_APPROVAL
from app.gateway.service import logged_arguments
from app.ids import new_id
from app.runtime import repository, trace
from app.runtime.checkpoint import Checkpoint, PlannedCall
from app.runtime.model import ModelClient, ModelError, ModelReply, ToolCallRequest
from app.runtime.models import AgentMessage, AgentRun, ToolCallApproval
from app.runtime.prompt import AssembledPrompt
from app.runtime.writer import Notification, write_with
from app.skills.usage import record_injection
from app.tools.models import ToolDefinition
from app.tools.service import APPROVAL_POLICIES

if TYPE_CHECKING:
    from app.runtime.service import AgentRuntime

logger = logging.getLogger("quiver.runtime")

INTERRUPTED = "INTERRUPTED"
APPROVAL_REJECTED = "APPROVAL_REJECTED"
APPROVAL_EXPIRED = "APPROVAL_EXPIRED"
TOO_MANY_TOOL_CALLS = "TOO_MANY_TOOL_CALLS"
RUNNING = repository.RUNNING
WAITING_APPROVAL = repository.WAITING_APPROVAL
APPROVED, REJECTED, EXPIRED = "APPROVED", "REJECTED", "EXPIRED"
NEVER, ALWAYS, WRITE_ONLY = APPROVAL_POLICIES


def effective_approval(tool: ToolDefinition, agent: Agent) -> str:
    """The agent's override for this tool, else the tool's own policy."""
    override = (agent.tool_approvals or {}).get(tool.tool_id)
    return override if override in APPROVAL_POLICIES else (tool.approval or NEVER)


def needs_approval(tool: ToolDefinition, agent: Agent) -> bool:
    policy = effective_approval(tool, agent)
    return policy == ALWAYS or (policy == WRITE_ONLY and tool.side_effect == "WRITE")


def with_pinned_skills(agent: Agent, pins: list[str] | None) -> Agent:
    """The agent as a run with pinned skill versions sees it: each pin replaces the agent's
    binding of the same skill, or is added. A detached copy: the stored agent is unchanged."""
    if not pins:
        return agent
    pinned = {pin.partition("@")[0]: pin for pin in pins}
    bound = [pinned.pop(reference.partition("@")[0], reference) for reference in agent.bound_skill_ids]
    columns = {column.key: getattr(agent, column.key) for column in Agent.__table__.columns}
    return Agent(**{**columns, "bound_skill_ids": [*bound, *pinned.values()]})


@dataclass(frozen=True)
class Snapshot:
    """What one store writes: the checkpoint, the progress, and the stages collected since the last."""

    checkpoint: dict[str, Any]
    steps: int
    prompt_tokens: int
    completion_tokens: int
    stages: list[trace.Stage]


def _retrieve(task: asyncio.Future[None]) -> None:
    """A background store's failure is raised where it is awaited; never 'never retrieved'."""
    if not task.cancelled():
        task.exception()


def build_prompt(
    runtime: AgentRuntime, agent: Agent, run: AgentRun, checkpoint: Checkpoint
) -> Awaitable[AssembledPrompt]:
    """The run's prompt: its system prompt, skills, knowledge and functions (not yet the messages)."""
    return runtime.prompt_builder.build(
        with_pinned_skills(agent, checkpoint.skill_pins),
        run.input,
        # A run without a conversation is its own canary bucket.
        session_id=run.session_id or run.id,
        user_profile=checkpoint.user_profile,
        force_channel=checkpoint.force_channel,
    )


class LeaseLostError(Exception):
    """Another replica took the run over (this one missed its heartbeats): stop driving it."""


class StageSink(Protocol):
    """Where committed trace stages go besides the database (OpenTelemetry, when configured)."""

    def stages(self, run: AgentRun, agent_name: str | None, stages: list[trace.Stage]) -> None: ...

    def finished(self, run: AgentRun, agent_name: str | None) -> None: ...

    def shutdown(self) -> None: ...


def failure_envelope(code: str, message: str, detail: str | None) -> dict[str, Any]:
    return {
        "status": "FAILED",
        "data": None,
        "error": {"code": code, "message": message, "detail": detail},
        "traceId": secrets.token_hex(16),
        "latencyMs": 0.0,
    }


def rejection_error(comment: str | None) -> tuple[str, str, str | None]:
    """What a call a person rejected fails with (its row, and what the model is told)."""
    reason = comment or "no reason given"
    return APPROVAL_REJECTED, f"A person refused this call, so it was not run. Reason: {reason}", reason


def row_values(row: ToolCall) -> dict[str, Any]:
    return {attribute.key: getattr(row, attribute.key) for attribute in sa_inspect(ToolCall).column_attrs}


def envelope_of_row(row: ToolCall) -> dict[str, Any]:
    error = (
        {"code": row.error_code, "message": row.error_message or "", "detail": row.error_detail}
        if row.error_code
        else None
    )
    return {
        "status": row.status,
        "data": row.result,
        "error": error,
        "traceId": row.trace_id,
        "latencyMs": row.latency_ms,
    }


class RunDriver:
    """Drives one run on this replica, from its checkpoint, until it finishes, waits for
    approval, or another replica took it over."""

    def __init__(
        self,
        runtime: AgentRuntime,
        run: AgentRun,
        agent: Agent | None,
        client: ModelClient | None,
        checkpoint: Checkpoint | None,
    ) -> None:
        self.runtime = runtime
        self.run = run
        self.agent = agent
        self.client = client
        self.checkpoint = checkpoint
        self.steps = run.steps or 0
        self.prompt_tokens = run.prompt_tokens or 0
        self.completion_tokens = run.completion_tokens or 0
        #: Trace stages not yet stored: they go with the next checkpoint (or the finish).
        self.stages: list[trace.Stage] = []
        #: A store of the state still under way (see _store_in_background).
        self._pending_store: asyncio.Future[None] | None = None
        #: The last step stored in the background: its snapshot, its task and the write before it.
        self._pending_step: tuple[Snapshot, asyncio.Future[None], asyncio.Future[None] | None] | None = None
        #: The step store the finish overtook (RunWriter.overtakes): its stages went with the finish.
        self._overtaken: Snapshot | None = None
        #: The trace's scrubbed copy of each message sent so far (a conversation only grows).
        self._scrubbed = trace.ScrubbedMessages()
        #: The step just planned is stored once its calls are settled (all READ, no approval).
        self._store_when_settled = False
        #: The agent's pending notifications when they were read with the run's insert (else read in _begin).
        self.notifications: list[Notification] | None = None
        #: The prompt when it was assembled while the run's row was inserted (else assembled in _begin).
        self.prompt: asyncio.Future[AssembledPrompt] | None = None
        #: Set once ``finish`` committed: the run as stored (the caller needs no read back).
        self.finished = False

    @property
    def session_factory(self) -> async_sessionmaker[AsyncSession]:
        return self.runtime.session_factory

    async def drive(self, *, fresh: bool) -> None:
        run_id = self.run.id
        try:
            if fresh:
                await self.runtime._event(run_id, "STARTED")
            try:
                await self._loop()
            except ModelError as failure:
                await self.finish("FAILED", None, (failure.code, failure.message, failure.detail))
            except (LeaseLostError, asyncio.CancelledError):
                raise
            except Exception:
                trace_id = secrets.token_hex(8)
                logger.exception("agent run crashed", extra={"run_id": run_id, "trace_id": trace_id})
                await self.finish(
                    "FAILED", None, (INTERNAL_ERROR, "The run failed inside the platform.", f"trace {trace_id}")
                )
        except LeaseLostError:
            logger.warning("run %s was taken over by another replica; stopping here", run_id)
        except asyncio.CancelledError:
            # Shutdown (or the caller gone): give the run up at once, so the next sweep of a live
            # replica continues it from its last completed step instead of leaving it RUNNING.
            with contextlib.suppress(Exception):
                await asyncio.shield(self.runtime.release(run_id))
            raise

    async def _loop(self) -> None:
        assert self.agent is not None and self.client is not None and self.checkpoint is not None
        checkpoint = self.checkpoint
        if checkpoint.messages is None:
            await self._begin()
        just_planned = False
        while True:
            if checkpoint.pending:
                waiting = await self._settle(just_planned=just_planned)
                just_planned = False
                if waiting and await self._wait_for_approval():
                    return
                continue
            if self.steps >= self.agent.max_steps:
                await self.finish("MAX_STEPS", None, None)
                return
            self.steps += 1
            reply = await self._model_call()
            if not reply.tool_calls:
                await self.finish("SUCCEEDED", reply.content or "", None)
                return
            if self.steps >= self.agent.max_steps:
                # No model call is left to read the results: do not act on the world for nothing.
                await self.finish("MAX_STEPS", None, None)
                return
            await self._plan(reply)
            just_planned = True

    async def _begin(self) -> None:
        """Assemble the prompt and the first messages: the run's first checkpoint."""
        assert self.agent is not None and self.checkpoint is not None
        run, agent, checkpoint = self.run, self.agent, self.checkpoint
        prompt = await (self.prompt if self.prompt is not None else build_prompt(self.runtime, agent, run, checkpoint))
        messages: list[dict[str, Any]] = [{"role": "system", "content": prompt.system_prompt}]
        notifications: Sequence[Notification | AgentMessage] | None = self.notifications
        if run.session_id or notifications is None:
            async with self.session_factory() as session:
                if run.session_id:
                    for turn in await repository.last_turns(
                        session, agent.id, run.session_id, self.runtime.settings.history_turns
                    ):
                        messages.append({"role": turn.role, "content": turn.content})
                if notifications is None:
                    notifications = await repository.pending_notifications(session, agent.id)
        if notifications:
            lines = [f"- from {note.from_agent_id or 'a caller'}: {note.content}" for note in notifications]
            messages.append(
                {"role": "system", "content": "Messages from other agents since your last run:\n" + "\n".join(lines)}
            )
        messages.append({"role": "user", "content": run.input})
        checkpoint.messages = messages
        checkpoint.functions = prompt.functions
        self.stages.extend(prompt.stages)
        values = {
            "skill_versions": prompt.skill_versions,
            "prompt_warnings": prompt.warnings,
            "checkpoint": checkpoint.as_json(),
        }
        stages, self.stages = self.stages, []
        rows = repository.stage_rows(run.id, stages, self.runtime.settings.row_max_bytes)
        owner = self.runtime.replica_id
        if notifications or prompt.injected_skills:
            # The notifications count as delivered with the checkpoint that holds them, the skills'
            # injections with the checkpoint of the prompt they are in: one transaction.
            async with self.session_factory() as session, session.begin():
                if not await write_with(session, run.id, owner, values, stages=rows):
                    raise LeaseLostError(run.id)
                await repository.mark_delivered(session, [note.id for note in notifications], utcnow())
                await record_injection(session, prompt.injected_skills)
        else:
            # Without waiting for it: should the replica die before the commit, whoever continues
            # the run builds the prompt again (a model call can always be made again).
            async def first_checkpoint() -> None:
                if not await self.runtime.writer.write(run.id, owner, values, stages=rows):
                    raise LeaseLostError(run.id)
                self._export(stages)

            self._in_background(first_checkpoint())
            run.skill_versions, run.prompt_warnings = prompt.skill_versions, prompt.warnings
            return
        run.skill_versions, run.prompt_warnings = prompt.skill_versions, prompt.warnings
        self._export(stages)

    async def _model_call(self) -> ModelReply:
        assert self.agent is not None and self.client is not None and self.checkpoint is not None
        messages = self.checkpoint.messages or []
        await self.runtime._event(self.run.id, "MODEL_CALL", step=self.steps)
        on_delta = self.runtime._delta_publisher(self.run.id) if self.runtime.settings.stream else None
        started = utcnow()
        clock = time.perf_counter()
        scrubber = self.runtime.scrubber
        sent, omitted = scrubber.messages(messages, self._scrubbed)
        detail: dict[str, Any] = {
            "model": self.agent.model,
            "messages": sent,
            "omittedMessages": omitted,
            "functions": sorted(self.checkpoint.functions.tool_by_name),
        }
        try:
            reply = await self.client.complete(
                model=self.agent.model,
                messages=messages,
                tools=self.checkpoint.functions.definitions,
                on_delta=on_delta,
            )
        except ModelError as failure:
            detail.update(
                latencyMs=round((time.perf_counter() - clock) * 1000, 3),
                error={"code": failure.code, "message": failure.message, "detail": scrubber.value(failure.detail)},
            )
            self.stages.append(trace.Stage(trace.MODEL_CALL, started, utcnow(), detail, step=self.steps))
            raise
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        detail.update(
            latencyMs=round((time.perf_counter() - clock) * 1000, 3),
            reply=scrubber.value(reply.content),
            toolCalls=[
                {"id": call.call_id, "name": call.name, "arguments": scrubber.arguments_text(call.arguments)}
                for call in reply.tool_calls
            ],
            promptTokens=reply.prompt_tokens,
            completionTokens=reply.completion_tokens,
        )
        self.stages.append(trace.Stage(trace.MODEL_CALL, started, utcnow(), detail, step=self.steps))
        return reply

    # ------------------------------------------------------------ tool calls

    async def _plan(self, reply: ModelReply) -> None:
        """Name the step's calls and store them before any runs; calls that need a person
        are recorded as PENDING_APPROVAL with their approval request, in the same commit."""
        assert self.agent is not None and self.checkpoint is not None
        checkpoint, agent = self.checkpoint, self.agent
        offered = set(checkpoint.functions.tool_by_name.values())
        planned: list[PlannedCall] = []
        for request in reply.tool_calls:
            planned.append(self._planned(request, offered))
        tools = await self._tools({call.tool_id for call in planned})
        for call in planned:
            tool = tools.get(call.tool_id)
            call.needs_approval = tool is not None and needs_approval(tool, agent)
        checkpoint.messages = [*(checkpoint.messages or []), _assistant_message(reply)]
        checkpoint.pending = planned
        now = utcnow()
        expires = now + timedelta(seconds=self.runtime.settings.approval_timeout_s)
        rows = [
            self._call_row(call, tools[call.tool_id], "PENDING_APPROVAL", None, now)
            for call in planned
            if call.needs_approval
        ]

        async def request_approvals(session: AsyncSession) -> None:
            for row in rows:
                await repository.write_call_row(session, row, replace=False)
                session.add(
                    ToolCallApproval(
                        tool_call_id=row["id"],
                        run_id=self.run.id,
                        space_id=self.run.space_id,
                        agent_id=self.run.agent_id,
                        tool_id=row["tool_id"],
                        requested_at=now,
                        expires_at=expires,
                    )
                )

        writes = [tools[call.tool_id] for call in planned if call.tool_id in tools]
        if rows or any(tool.side_effect == "WRITE" for tool in writes):
            # Stored before anything runs: whoever continues the run must know these calls were made.
            await self._store(also=request_approvals)
        else:
            # Calls that can all safely run again: stored once they are done, with their outcome (see _settle).
            self._store_when_settled = True
        for row in rows:
            await self.runtime._event(
                self.run.id, "APPROVAL_REQUESTED", tool_id=row["tool_id"], tool_call_id=row["id"], call_id=row["id"]
            )
            await self.runtime.publish_call(row)
            await self.runtime.publish_approval(
                self.run.space_id, "REQUESTED", call_id=row["id"], tool_id=row["tool_id"], run_id=self.run.id
            )

    def _planned(self, request: ToolCallRequest, offered: set[str]) -> PlannedCall:
        assert self.checkpoint is not None
        tool_id = self.checkpoint.functions.tool_id(request.name)
        try:
            arguments: Any = json.loads(request.arguments) if request.arguments.strip() else {}
        except ValueError:
            # The gateway reports the malformed arguments as PARAM_INVALID, to the model and the log.
            arguments = request.arguments
        if tool_id not in offered:
            # Not a function this agent was offered: the gateway refuses it and logs the attempt.
            tool_id = unknown_tool_id(request.name)
        return PlannedCall(
            call_id=request.call_id,
            tool_call_id=new_id("tc_"),
            name=request.name,
            tool_id=tool_id,
            arguments=arguments,
            needs_approval=False,
        )

    async def _tools(self, tool_ids: set[str]) -> dict[str, ToolDefinition]:
        """The tools as the run's space sees them now, from the gateway's cache (dropped on any catalog change)."""
        found: dict[str, ToolDefinition] = {}
        for tool_id in sorted(tool_ids):
            tool = await self.runtime.gateway.visible_tool(self.run.space_id, tool_id)
            if tool is not None:
                found[tool_id] = tool
        return found

    def _call_row(
        self,
        call: PlannedCall,
        tool: ToolDefinition | None,
        status: str,
        error: tuple[str, str, str | None] | None,
        now: datetime,
        arguments: Any = None,
    ) -> dict[str, Any]:
        """A call-log row the runtime writes itself: waiting, refused or interrupted (never run here)."""
        static_keys = set((tool.static_arguments or {}) if tool else {})
        return {
            "id": call.tool_call_id,
            "tool_id": logged_id(call.tool_id),
            "tool_type": tool.type if tool else None,
            "space_id": self.run.space_id,
            "agent_id": self.run.agent_id,
            "run_id": self.run.id,
            "principal_key_id": self.run.principal_key_id,
            "arguments": logged_arguments(call.arguments if arguments is None else arguments, static_keys),
            "status": status,
            "result": None,
            "error_code": error[0] if error else None,
            "error_message": error[1] if error else None,
            "error_detail": error[2] if error else None,
            "latency_ms": 0.0,
            "attempts": 0,
            "trace_id": secrets.token_hex(16),
            "idempotency_key": None,
            "origin": "AGENT",
            "started_at": now,
            "finished_at": now,
        }

    async def _settle(self, *, just_planned: bool) -> bool:
        """Find or produce the outcome of each call of the step; True when some still wait
        for a decision. ``just_planned``: this driver stored the calls a moment ago, so none
        can have started; otherwise a call without a row may have run before a crash."""
        assert self.checkpoint is not None
        checkpoint = self.checkpoint
        open_calls = [call for call in checkpoint.pending if call.envelope is None]
        rows: dict[str, ToolCall] = {}
        approvals: dict[str, ToolCallApproval] = {}
        if not just_planned:
            async with self.session_factory() as session:
                rows = await repository.calls_by_ids(session, [call.tool_call_id for call in open_calls])
                approvals = {
                    approval.tool_call_id: approval
                    for approval in await repository.approvals_by_ids(
                        session, [call.tool_call_id for call in open_calls if call.needs_approval]
                    )
                }
        tools = await self._tools({call.tool_id for call in open_calls})
        now = utcnow()
        to_run: list[tuple[PlannedCall, Any, bool]] = []
        refusals: list[tuple[PlannedCall, tuple[str, str, str | None], bool]] = []
        settled_approvals: list[str] = []
        waiting = False
        cap = self.runtime.settings.max_tool_calls_per_step
        over_cap = {call.tool_call_id for call in checkpoint.pending[cap:]} if just_planned and cap > 0 else set()
        for call in open_calls:
            row = rows.get(call.tool_call_id)
            tool = tools.get(call.tool_id)
            if row is not None and row.status != PENDING_APPROVAL:
                # It ran (or was refused) before this driver: its row holds the outcome.
                call.envelope = envelope_of_row(row)
                rejected = approvals.get(call.tool_call_id)
                if rejected is not None and rejected.decision == REJECTED and rejected.settled_at is None:
                    # Refused by the decision itself (rejectToolCall writes the FAILED row with it):
                    # the run takes the decision up now.
                    await self._take_decision_up(call, rejected)
                    self._tool_stage(call, call.envelope, row.started_at, row.finished_at)
                    await self.runtime._event(
                        self.run.id,
                        "TOOL_CALL_FINISHED",
                        tool_id=row.tool_id,
                        tool_call_id=row.id,
                        call_id=row.id,
                    )
                else:
                    self._tool_stage(call, call.envelope, row.started_at, row.finished_at)
                if call.needs_approval:
                    settled_approvals.append(call.tool_call_id)
                continue
            if call.tool_call_id in over_cap:
                count = len(checkpoint.pending)
                message = f"The model asked for {count} tool calls in one step; the first {cap} ran, this one did not."
                refusals.append((call, (TOO_MANY_TOOL_CALLS, message, None), False))
                continue
            if call.needs_approval and just_planned:
                waiting = True  # asked a moment ago: nobody can have decided yet
                continue
            if not call.needs_approval:
                if just_planned or tool is None or tool.side_effect != "WRITE":
                    to_run.append((call, call.arguments, False))
                else:
                    refusals.append((call, _interrupted(), False))
                continue
            approval = approvals.get(call.tool_call_id)
            if approval is None:
                refusals.append((call, _interrupted(), row is not None))
                continue
            if approval.decision is None:
                if approval.expires_at > now:
                    waiting = True
                    continue
                approval = await self._expire(approval, now)
                if approval.decision is None:
                    waiting = True
                    continue
            await self._take_decision_up(call, approval)
            settled_approvals.append(call.tool_call_id)
            if approval.decision == APPROVED:
                arguments = approval.arguments if approval.arguments is not None else call.arguments
                async with self.session_factory() as session, session.begin():
                    first_time = await repository.start_approved_execution(session, call.tool_call_id, now)
                if first_time or tool is None or tool.side_effect != "WRITE":
                    to_run.append((call, arguments, True))
                else:
                    refusals.append((call, _interrupted(), True))
            elif approval.decision == REJECTED:
                refusals.append((call, rejection_error(approval.comment), True))
            else:
                timeout = self.runtime.settings.approval_timeout_s
                refusals.append(
                    (
                        call,
                        (
                            APPROVAL_EXPIRED,
                            f"Nobody approved this call within {timeout:g} s, so it was not run.",
                            f"expired at {approval.expires_at.isoformat()}",
                        ),
                        True,
                    )
                )
        await self._refuse(refusals, tools, now)
        await self._run_calls(to_run)
        if all(call.envelope is not None for call in checkpoint.pending):
            messages = list(checkpoint.messages or [])
            for call in checkpoint.pending:
                # As text, not ASCII escapes: a Chinese result is otherwise six characters (and
                # several tokens) per character to the model. The envelope is JSON-safe (no lone
                # surrogates), so the request body that carries it encodes as UTF-8.
                content = json.dumps(call.envelope, default=str, ensure_ascii=False)
                messages.append({"role": "tool", "tool_call_id": call.call_id, "content": content})
            checkpoint.messages = messages
            checkpoint.pending = []
        if settled_approvals or not just_planned:

            async def settle(session: AsyncSession) -> None:
                await repository.settle_approvals(session, settled_approvals, utcnow())

            await self._store(also=settle)
        elif self._store_when_settled and not checkpoint.pending:
            # The completed step, without waiting for it: should the replica die before the commit,
            # the step is simply done again (its calls are all READ). Written after the calls rather
            # than beside them, so that on SQLite it does not hold the write lock their call-log rows need.
            self._store_when_settled = False
            self._store_in_background()
        # Otherwise the step's outcome is stored with the next step (or the finish, or the wait for a
        # decision): until then the call log holds it, which is where a replica continuing the run
        # after a crash would find it.
        return waiting

    async def _expire(self, approval: ToolCallApproval, now: datetime) -> ToolCallApproval:
        async with self.session_factory() as session, session.begin():
            recorded = await repository.decide_approval(
                session,
                approval.tool_call_id,
                decision=EXPIRED,
                decided_by=None,
                decided_at=now,
                comment=None,
                arguments=None,
                require_open_at=None,
            )
            current = await repository.get_approval(session, approval.tool_call_id)
        assert current is not None
        if recorded:
            # This driver recorded the expiry (not a decision that came first): the approvers learn it.
            await self.runtime.publish_approval(
                current.space_id,
                "EXPIRED",
                call_id=current.tool_call_id,
                tool_id=current.tool_id,
                run_id=current.run_id,
            )
        return current

    async def _refuse(
        self,
        refusals: list[tuple[PlannedCall, tuple[str, str, str | None], bool]],
        tools: dict[str, ToolDefinition],
        now: datetime,
    ) -> None:
        """Calls that will not run (refused, timed out, or interrupted when they may have
        run): a FAILED row each, and the model is told why."""
        if not refusals:
            return
        rows: list[dict[str, Any]] = []
        async with self.session_factory() as session, session.begin():
            for call, error, replace in refusals:
                row = self._call_row(call, tools.get(call.tool_id), "FAILED", error, now)
                rows.append(row)
                await repository.write_call_row(session, row, replace=replace)
                call.envelope = failure_envelope(*error) | {"traceId": row["trace_id"]}
                self._tool_stage(call, call.envelope, now, now)
        for row in rows:
            await self.runtime._event(
                self.run.id, "TOOL_CALL_FINISHED", tool_id=row["tool_id"], tool_call_id=row["id"], call_id=row["id"]
            )
            await self.runtime.publish_call(row)

    async def _run_calls(self, calls: list[tuple[PlannedCall, Any, bool]]) -> None:
        """Through the gateway, in parallel (bounded); a failing tool never fails the run."""
        if not calls:
            return
        assert self.checkpoint is not None
        limit = asyncio.Semaphore(self.runtime.settings.tool_parallelism)
        principal = self.checkpoint.principal
        run = self.run

        async def one(call: PlannedCall, arguments: Any, replace: bool) -> None:
            async with limit:
                await self.runtime._event(run.id, "TOOL_CALL_STARTED", tool_id=call.tool_id, tool_call_id=call.call_id)
                started = utcnow()
                try:
                    result = await self.runtime.gateway.execute(
                        principal,
                        run.space_id,
                        call.tool_id,
                        arguments,
                        agent_id=run.agent_id,
                        run_id=run.id,
                        delegation_depth=run.delegation_depth,
                        call_id=call.tool_call_id,
                        replace_pending=replace,
                    )
                except Exception:
                    trace_id = secrets.token_hex(8)
                    logger.exception("tool call failed in the platform", extra={"run_id": run.id})
                    result = ToolResult(
                        status="FAILED",
                        trace_id=trace_id,
                        latency_ms=0.0,
                        error=ToolFailure(INTERNAL_ERROR, "The tool call failed inside the platform.").error,
                        call_id=call.tool_call_id,
                    )
                call.envelope = result.as_dict()
                self._tool_stage(call, call.envelope, started, utcnow(), arguments=arguments)
                await self.runtime._event(
                    run.id,
                    "TOOL_CALL_FINISHED",
                    tool_id=call.tool_id,
                    tool_call_id=call.call_id,
                    call_id=result.call_id,
                )

        await asyncio.gather(*(one(call, arguments, replace) for call, arguments, replace in calls))

    def _tool_stage(
        self, call: PlannedCall, envelope: dict[str, Any], started: datetime, finished: datetime, arguments: Any = None
    ) -> None:
        scrubber = self.runtime.scrubber
        self.stages.append(
            trace.Stage(
                trace.TOOL_CALL,
                started,
                finished,
                {
                    "toolCallId": call.tool_call_id,
                    "modelCallId": call.call_id,
                    "toolId": call.tool_id,
                    "function": call.name,
                    "arguments": scrubber.value(call.arguments if arguments is None else arguments),
                    "envelope": scrubber.value(envelope),
                },
                step=self.steps,
            )
        )

    async def _take_decision_up(self, call: PlannedCall, approval: ToolCallApproval) -> None:
        """The run takes a person's decision up: its APPROVAL trace stage and APPROVAL_DECIDED,
        published by the run itself, so it comes before the events of the call it lets go."""
        self._approval_stage(call, approval)
        await self.runtime._event(
            self.run.id,
            "APPROVAL_DECIDED",
            tool_id=call.tool_id,
            tool_call_id=call.tool_call_id,
            call_id=call.tool_call_id,
        )

    def _approval_stage(self, call: PlannedCall, approval: ToolCallApproval) -> None:
        self.stages.append(
            trace.Stage(
                trace.APPROVAL,
                approval.requested_at,
                approval.decided_at or utcnow(),
                {
                    "toolCallId": call.tool_call_id,
                    "toolId": call.tool_id,
                    "decision": approval.decision,
                    "decidedBy": approval.decided_by,
                    "decidedAt": approval.decided_at.isoformat() if approval.decided_at else None,
                    "comment": self.runtime.scrubber.value(approval.comment),
                    "argumentsEdited": approval.arguments is not None,
                    "expiresAt": approval.expires_at.isoformat(),
                },
                step=self.steps,
            )
        )

    async def _wait_for_approval(self) -> bool:
        """Release the run to WAITING_APPROVAL; True when it stays released, False when a
        decision arrived meanwhile and this replica claimed it back (go on settling)."""
        await self._store(status=WAITING_APPROVAL)
        logger.info("run %s waits for approval", self.run.id, extra={"run_id": self.run.id})
        # A decision committed between our read and the release found the run RUNNING and left it
        # to us: look again now that it is released (the decider looks after its commit, too).
        async with self.session_factory() as session:
            ready = await repository.run_has_decisions(session, self.run.id, utcnow())
        if not ready:
            return True
        async with self.session_factory() as session, session.begin():
            claimed = await repository.claim_waiting(
                session, self.run.id, self.runtime.replica_id, self.runtime._lease_until()
            )
        return not claimed

    def _snapshot(self) -> Snapshot:
        """The state to store now; the stages collected so far go with it."""
        assert self.checkpoint is not None
        stages, self.stages = self.stages, []
        return Snapshot(self.checkpoint.as_json(), self.steps, self.prompt_tokens, self.completion_tokens, stages)

    async def _write(self, snapshot: Snapshot, *, status: str = RUNNING, session: AsyncSession | None = None) -> None:
        """Store a snapshot if this replica still owns the run (in ``session``'s transaction when
        given, else on its own through the runtime's writer); LeaseLostError otherwise."""
        values = repository.checkpoint_values(
            snapshot.checkpoint,
            steps=snapshot.steps,
            prompt_tokens=snapshot.prompt_tokens,
            completion_tokens=snapshot.completion_tokens,
            status=status,
        )
        stages = repository.stage_rows(self.run.id, snapshot.stages, self.runtime.settings.row_max_bytes)
        if session is not None:
            saved = await write_with(session, self.run.id, self.runtime.replica_id, values, stages=stages)
        else:
            saved = await self.runtime.writer.write(self.run.id, self.runtime.replica_id, values, stages=stages)
        if not saved:
            raise LeaseLostError(self.run.id)

    async def _store(
        self, *, status: str = RUNNING, also: Callable[[AsyncSession], Awaitable[None]] | None = None
    ) -> None:
        """One transaction: ``also``, then the run's state (after any store still under way)."""
        await self._stored_in_background()
        snapshot = self._snapshot()
        if also is None:
            await self._write(snapshot, status=status)
        else:
            async with self.session_factory() as session, session.begin():
                await also(session)
                await self._write(snapshot, status=status, session=session)
        self._export(snapshot.stages)

    def _store_in_background(self) -> None:
        """Store the state without waiting for it (a step whose calls can all safely run again:
        should the replica die before the commit, the step is simply done again)."""
        snapshot = self._snapshot()

        async def store() -> None:
            try:
                await self._write(snapshot)
            except LeaseLostError:
                if self._overtaken is not snapshot:
                    raise
                # The finish came first and stored this step's stages itself: nothing was lost.
            self._export(snapshot.stages)

        previous = self._pending_store
        self._in_background(store())
        assert self._pending_store is not None
        self._pending_step = (snapshot, self._pending_store, previous)

    def _overtakable(self) -> Snapshot | None:
        """The step store the finish may overtake rather than wait for: the last write under way,
        a step's (whose values the finish's replace), after any write before it succeeded; and
        a writer whose writes can overtake each other (RunWriter.overtakes)."""
        if self._pending_step is None or not self.runtime.writer.overtakes:
            return None
        snapshot, task, previous = self._pending_step
        if task is not self._pending_store or task.done():
            return None
        if previous is not None and not (previous.done() and not previous.cancelled() and previous.exception() is None):
            return None
        return snapshot

    def _in_background(self, write: Coroutine[Any, Any, None]) -> None:
        """Run ``write`` after any write still under way, without waiting for it; its failure
        (LeaseLostError included) is raised where the next store or the finish awaits it."""
        previous = self._pending_store

        async def store() -> None:
            try:
                if previous is not None:
                    await previous
            except BaseException:
                write.close()  # never started: no "never awaited" warning
                raise
            await write

        task = asyncio.ensure_future(store())
        # Awaited by the next store or the finish; shutdown cancels it with the runtime's tasks.
        self.runtime._background.add(task)
        task.add_done_callback(self.runtime._background.discard)
        task.add_done_callback(_retrieve)
        self._pending_store = task

    async def _stored_in_background(self) -> None:
        task, self._pending_store = self._pending_store, None
        if task is not None:
            await task

    def _export(self, stages: list[trace.Stage]) -> None:
        sink = self.runtime.sink
        if sink is not None and stages:
            try:
                sink.stages(self.run, self.agent.name if self.agent else None, stages)
            except Exception:
                logger.warning("trace export failed", exc_info=True)

    def _open_approvals(self) -> list[PlannedCall]:
        """Calls of the step still waiting for a decision."""
        if self.checkpoint is None:
            return []
        return [call for call in self.checkpoint.pending if call.needs_approval and call.envelope is None]

    async def _close_open_approvals(self, session: AsyncSession, open_calls: list[PlannedCall], now: datetime) -> None:
        """A run that ends with calls still waiting (it failed meanwhile): refuse them, so
        nothing is left pending for a decision that can no longer matter."""
        rows = await repository.calls_by_ids(session, [call.tool_call_id for call in open_calls])
        for call in open_calls:
            row = rows.get(call.tool_call_id)
            if row is not None and row.status == PENDING_APPROVAL:
                refused = self._call_row(call, None, "FAILED", _run_ended(), now)
                refused["tool_type"] = row.tool_type
                await repository.write_call_row(session, refused, replace=True)
        await repository.settle_approvals(session, [call.tool_call_id for call in open_calls], now)

    async def finish(self, status: str, output: str | None, error: tuple[str, str, str | None] | None) -> None:
        run = self.run
        open_calls = self._open_approvals()
        # The last step's store still under way: overtaken (its stages go with the finish, stored
        # once whichever commits first) where the writer allows it, else waited for.
        overtaken = None if open_calls else self._overtakable()
        if overtaken is None:
            await self._stored_in_background()
        else:
            self._pending_store, self._overtaken = None, overtaken
        now = utcnow()
        cap = self.runtime.settings.row_max_bytes
        values: dict[str, Any] = {
            "status": status,
            "output": bounded_text(output, cap),
            "steps": self.steps,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "finished_at": now,
            "checkpoint": None,
            "owner_id": None,
            "lease_expires_at": None,
        }
        if error is not None:
            code, message, detail = error
            values.update(
                error_code=code, error_message=bounded_text(message, cap), error_detail=bounded_text(detail, cap)
            )
        turns: list[dict[str, Any]] = []
        if run.session_id and output is not None:
            # One id for the pair, suffixed in order: history is read back sorted by id.
            turn = new_id("msg_")
            turns = [
                {
                    "id": f"{turn}{suffix}",
                    "agent_id": run.agent_id,
                    "session_id": run.session_id,
                    "run_id": run.id,
                    "role": role,
                    "content": bounded_text(content, cap),
                    "created_at": now,
                }
                for suffix, role, content in (("a", "user", run.input), ("b", "assistant", output))
            ]
        stages, self.stages = self.stages, []

        rows = repository.stage_rows(run.id, stages, cap)
        owner = self.runtime.replica_id
        if open_calls:
            async with self.session_factory() as session, session.begin():
                if not await write_with(session, run.id, owner, values, stages=rows, turns=turns):
                    raise LeaseLostError(run.id)
                await self._close_open_approvals(session, open_calls, now)
        elif overtaken is not None:
            also = repository.stage_rows(run.id, overtaken.stages, cap)
            if not await self.runtime.writer.write(
                run.id, owner, values, stages=[*also, *rows], turns=turns, overtaking=True
            ):
                raise LeaseLostError(run.id)
        elif not await self.runtime.writer.write(run.id, owner, values, stages=rows, turns=turns):
            raise LeaseLostError(run.id)
        # The detached row, as stored: the caller answers with it without reading it back.
        for key, value in values.items():
            setattr(run, key, value)
        self.finished = True
        self._export(stages)
        sink = self.runtime.sink
        if sink is not None:
            try:
                sink.finished(run, self.agent.name if self.agent else None)
            except Exception:
                logger.warning("trace export failed", exc_info=True)
        await self.runtime._event(run.id, "FINISHED", status=status)


def _run_ended() -> tuple[str, str, str | None]:
    return ("RUN_ENDED", "The run ended before a decision on this call; it was not run.", None)


def _interrupted() -> tuple[str, str, str | None]:
    return (
        INTERRUPTED,
        "The platform was interrupted while this call may have been running; it may or may not have "
        "taken effect, so it was not run again. Check before repeating it.",
        "a WRITE call is never repeated after an interruption",
    )


def _assistant_message(reply: ModelReply) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": reply.content,
        "tool_calls": [
            {"id": call.call_id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for call in reply.tool_calls
        ],
    }
