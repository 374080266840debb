"""The agent runtime: invokeAgent, the tool-calling loop and agent-to-agent messages.

A run is driven by one replica at a time, which holds a lease on it (renewed by a
heartbeat) and stores its state after every step (``app.runtime.checkpoint``). So:

- a run whose replica died is continued by a live one — found at start-up and by a
  periodic sweep once the lease ran out — from its last completed step. A tool call
  that may have run when the replica died is never run again if it is WRITE: it is
  logged FAILED with ``INTERRUPTED`` and the model is told it may or may not have taken
  effect (READ calls are simply run again). After ``max_takeovers`` the run is FAILED
  with ``INTERRUPTED``, keeping its steps and tool calls;
- a tool call that needs a person's approval leaves the run WAITING_APPROVAL, released:
  no task, connection or memory holds it. The replica that records the decision (or the
  sweep, for decisions whose replica died and for approvals that time out) claims the
  run and continues it.

Events go to the bus for subscribers, but nothing of a run's bookkeeping depends on
them: a bus that fails is logged and the run goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.agents import repository as agents_repository
from app.agents.models import Agent
from app.changes import DEFAULT_TTL_S, GenerationCache
from app.db import utcnow
from app.errors import DomainError, ForbiddenError, NotFoundError
from app.events.bus import EventBus
from app.gateway.call_log import DEFAULT_MAX_BYTES, bounded_text
from app.gateway.envelope import PARAM_INVALID, PERMISSION_DENIED, ToolFailure
from app.gateway.executors.base import Invocation
from app.gateway.models import ToolCall
from app.gateway.service import TOOL_CALLS_TOPIC, ToolGateway, call_event
from app.ids import new_id
from app.principal import Principal
from app.runtime import repository, trace
from app.runtime.checkpoint import Checkpoint
from app.runtime.driver import (
    APPROVAL_EXPIRED,
    APPROVED,
    INTERRUPTED,
    REJECTED,
    RUNNING,
    LeaseLostError,
    RunDriver,
    StageSink,
    build_prompt,
    rejection_error,
    row_values,
)
from app.runtime.model import ModelClient
from app.runtime.models import AgentMessage, AgentRun, ToolCallApproval
from app.runtime.prompt import AssembledPrompt, PromptBuilder
from app.runtime.writer import Notification, RunWriter

logger = logging.getLogger("quiver.runtime")

DELEGATION_DEPTH_EXCEEDED = "DELEGATION_DEPTH_EXCEEDED"
DELEGATE_FAILED = "DELEGATE_FAILED"
IDEMPOTENCY_HOURS = 24

# Runs taken over or continued per sweep; the next sweep takes the rest.
SWEEP_BATCH = 20
TRACE_PRUNE_INTERVAL_S = 3600.0
MAX_COMMENT_CHARS = 2000
# A bus that does not answer in this time loses the event; the run does not wait for it.
EVENT_PUBLISH_TIMEOUT_S = 2.0
#: How long shutdown lets a cancelled task clean up before cancelling it again (see _cancelled).
CLOSE_GRACE_S = 5.0
# How long a duplicate synchronous invokeAgent waits for the first run before answering with it as it is.
DUPLICATE_WAIT_S = 600.0
# Longest agent id looked up (ids are far shorter): anything longer is not an agent.
MAX_AGENT_ID_CHARS = 200


def run_topic(run_id: str) -> str:
    return f"run:{run_id}"


def approvals_topic(space_id: str) -> str:
    """Where a space's approval requests and decisions are published (the approvalRequests subscription)."""
    return f"approvals:{space_id}"


def inbox_topic(agent_id: str) -> str:
    return f"inbox:{agent_id}"


class LeaseKeeper(Protocol):
    """Other work held on leases the way runs are (pipeline runs): renewed by this replica's
    heartbeat, and taken over by its sweep when their replica is gone."""

    async def renew_leases(self) -> None: ...

    async def sweep(self) -> None: ...


@dataclass
class RuntimeSettings:
    history_turns: int = 5
    tool_parallelism: int = 4
    #: Most tool calls of one model reply that run; the others are refused (QUIVER_MAX_TOOL_CALLS_PER_STEP).
    max_tool_calls_per_step: int = 64
    delegation_depth_limit: int = 3
    stream: bool = False
    #: How long a replica's lease on a run lasts without a heartbeat.
    lease_s: float = 30.0
    #: How long a call waits for a decision before it is refused.
    approval_timeout_s: float = 86_400.0
    #: How long trace stages are kept.
    trace_retention_days: float = 30.0
    #: Takeovers after which a run is failed instead of continued (a run that kills its replica).
    max_takeovers: int = 3
    #: Largest value stored (each, in bytes): a run's output and error, a stage's details, a
    #: conversation turn, an agent message; larger ones are stored cut with a marker and their size.
    row_max_bytes: int = DEFAULT_MAX_BYTES
    #: How long an agent read for invokeAgent is used without reading it again (any catalog
    #: commit drops it sooner): QUIVER_CATALOG_CACHE_TTL_S.
    catalog_ttl_s: float = DEFAULT_TTL_S


@dataclass
class InvokeRequest:
    agent_id: str
    message: str
    session_id: str | None = None
    idempotency_key: str | None = None
    run_async: bool = False
    user_profile: dict[str, Any] | None = None
    force_channel: str | None = None
    delegation_depth: int = 0
    parent_run_id: str | None = None
    #: ``skillId@version`` pins for this run (see Checkpoint.skill_pins).
    skill_pins: list[str] | None = None

    def fingerprint(self) -> str:
        canonical = json.dumps(
            {
                "message": self.message,
                "sessionId": self.session_id,
                "profile": self.user_profile,
                "skillChannel": self.force_channel,
                **({"skillPins": self.skill_pins} if self.skill_pins else {}),
            },
            sort_keys=True,
        )
        return hashlib.sha256(canonical.encode()).hexdigest()


async def _cancelled(tasks: list[asyncio.Task[Any]]) -> None:
    """Wait for cancelled ``tasks`` to end. One still running after ``CLOSE_GRACE_S`` dropped its
    cancellation (as Python 3.11's ``asyncio.wait_for`` does when what it awaited finished at that
    very moment) and is cancelled again, rather than waited for for ever; one cleaning up (giving
    its run up) has had the grace to finish first."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        _, pending = await asyncio.wait(pending, timeout=CLOSE_GRACE_S)
        for task in pending:
            logger.warning(
                "task %s still running %.0f s after it was cancelled; cancelling it again",
                task.get_name(),
                CLOSE_GRACE_S,
            )
            task.cancel()
    for task in tasks:
        if not task.cancelled():
            task.exception()  # retrieved: a task's failure on its way out was its own to log


class AgentRuntime:
    def __init__(
        self,
        *,
        session_factory: async_sessionmaker[AsyncSession],
        gateway: ToolGateway,
        bus: EventBus,
        prompt_builder: PromptBuilder,
        model_client: Callable[[], ModelClient | None],
        settings: RuntimeSettings,
        scrubber: trace.Scrubber | None = None,
        sink: StageSink | None = None,
    ) -> None:
        self.session_factory = session_factory
        #: A run's own writes (checkpoints, stages, its finish) go on a bare connection: no ORM session.
        self.engine: AsyncEngine = session_factory.kw["bind"]
        self.writer = RunWriter(self.engine)
        self.gateway = gateway
        self.bus = bus
        self.prompt_builder = prompt_builder
        self.model_client = model_client
        self.settings = settings
        self.scrubber = scrubber or trace.Scrubber()
        self.sink = sink
        #: This process, as the owner of the runs it drives.
        self.replica_id = new_id("rep_")
        self._background: set[asyncio.Task[Any]] = set()
        self._maintenance: list[asyncio.Task[None]] = []
        self._heartbeat: asyncio.Task[None] | None = None
        #: Runs this replica is driving now: the heartbeat renews exactly these leases.
        self._active: set[str] = set()
        self._last_prune = 0.0
        self._keepers: list[LeaseKeeper] = []
        #: Agents read by invokeAgent; shared by runs, never changed (a pinned run copies its agent).
        self._agents: GenerationCache[str, Agent | None] = GenerationCache(settings.catalog_ttl_s)

    def add_keeper(self, keeper: LeaseKeeper) -> None:
        """Renew ``keeper``'s leases with the heartbeat and run its sweep after each run sweep."""
        self._keepers.append(keeper)

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Heartbeat for this replica's leases, and the sweep that continues other runs
        (orphaned ones at once: a first sweep runs now)."""
        if self._maintenance:
            return
        self._ensure_heartbeat()
        self._maintenance = [asyncio.create_task(self._sweep_loop(), name="run-sweep")]

    def _ensure_heartbeat(self) -> None:
        """Leases are renewed whenever this replica drives runs, however it was started."""
        if self._heartbeat is None or self._heartbeat.done():
            self._heartbeat = asyncio.create_task(self._heartbeat_loop(), name="run-lease-heartbeat")

    async def close(self) -> None:
        heartbeat = [self._heartbeat] if self._heartbeat is not None else []
        for task in [*self._maintenance, *heartbeat]:
            task.cancel()
        for task in list(self._background):
            task.cancel()
        await _cancelled([*self._maintenance, *heartbeat, *self._background])
        self._maintenance = []
        self._heartbeat = None
        await self.writer.close()
        if self.sink is not None:
            self.sink.shutdown()

    def _spawn(self, work: Awaitable[object], name: str) -> None:
        task: asyncio.Task[object] = asyncio.ensure_future(work)
        task.set_name(name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _lease_until(self) -> datetime:
        return utcnow() + timedelta(seconds=self.settings.lease_s)

    async def _heartbeat_loop(self) -> None:
        interval = max(self.settings.lease_s / 3, 0.05)
        while True:
            await asyncio.sleep(interval)
            try:
                active = sorted(self._active)
                if active:
                    async with self.session_factory() as session, session.begin():
                        await repository.renew_leases(session, active, self.replica_id, self._lease_until())
            except Exception:
                logger.exception("run lease heartbeat failed; retrying")
            for keeper in self._keepers:
                try:
                    await keeper.renew_leases()
                except Exception:
                    logger.exception("lease heartbeat of %s failed; retrying", type(keeper).__name__)

    async def _sweep_loop(self) -> None:
        interval = max(self.settings.lease_s / 2, 0.1)
        while True:
            try:
                await self.sweep()
            except Exception:
                logger.exception("run sweep failed; retrying")
            await asyncio.sleep(interval)

    async def sweep(self) -> None:
        """Take over runs whose replica is gone, continue runs whose approvals were decided
        or timed out, and prune old traces."""
        now = utcnow()
        async with self.session_factory() as session:
            orphaned = await repository.orphaned_run_ids(session, now, SWEEP_BATCH)
            ready = await repository.runs_ready_to_continue(session, now, SWEEP_BATCH)
        for run_id in orphaned:
            async with self.session_factory() as session, session.begin():
                taken = await repository.take_over(session, run_id, self.replica_id, now, self._lease_until())
            if taken:
                logger.warning("taking over run %s: its replica is gone", run_id, extra={"run_id": run_id})
                self._active.add(run_id)
                self._spawn(self._continue(run_id, resumed=True), f"run-{run_id}")
        for run_id in ready:
            await self._claim_waiting(run_id)
        if time.monotonic() - self._last_prune > TRACE_PRUNE_INTERVAL_S or not self._last_prune:
            self._last_prune = time.monotonic()
            before = now - timedelta(days=self.settings.trace_retention_days)
            async with self.session_factory() as session, session.begin():
                pruned = await repository.prune_stages(session, before)
            if pruned:
                logger.info("pruned %d trace stages older than %s", pruned, before.isoformat())
        for keeper in self._keepers:
            try:
                await keeper.sweep()
            except Exception:
                logger.exception("sweep of %s failed; retrying", type(keeper).__name__)

    async def _claim_waiting(self, run_id: str) -> bool:
        """Continue a waiting run here, unless another replica does."""
        async with self.session_factory() as session, session.begin():
            claimed = await repository.claim_waiting(session, run_id, self.replica_id, self._lease_until())
        if claimed:
            self._active.add(run_id)
            self._spawn(self._continue(run_id, resumed=False), f"run-{run_id}")
        return claimed

    # ------------------------------------------------------------ invokeAgent

    async def invoke(self, principal: Principal, request: InvokeRequest) -> AgentRun:
        """Start (and, unless async, finish) a run. Raises DomainError for bad requests."""
        if not request.message.strip():
            raise DomainError("INVALID", "The message must not be empty.", ["input", "message"])
        agent = await self._agent(request.agent_id)
        if agent is None or not principal.can_read_space(agent.space_id):
            raise NotFoundError("Agent", request.agent_id, ["input", "agentId"])
        if not principal.can_invoke_in_space(agent.space_id):
            raise ForbiddenError("This key may not invoke agents.", ["input", "agentId"])
        if agent.status != "ACTIVE":
            raise DomainError(
                "AGENT_NOT_ACTIVE", f"Agent {agent.id!r} is {agent.status.lower()}.", ["input", "agentId"]
            )
        client = self.model_client()
        if client is None:
            raise DomainError(
                "MODEL_NOT_CONFIGURED",
                "No model endpoint is configured: set QUIVER_OPENAI_BASE_URL (and QUIVER_OPENAI_API_KEY).",
                ["input", "agentId"],
            )
        run, is_new, notifications, prompt = await self._create_run(principal, agent, request)
        if not is_new:
            if request.run_async or run.status != RUNNING:
                return run
            # The same request again, synchronously: answer with the first run once it is done
            # (on whichever replica continues it, after a crash too).
            return await self._await_settled(run.id)
        if request.run_async:
            self._spawn(self._drive(run.id, agent, client, fresh=True, notifications=notifications), f"run-{run.id}")
            return run
        finished = await self._drive(
            run.id, agent, client, fresh=True, run=run, notifications=notifications, prompt=prompt
        )
        if finished is None:
            # Waiting for approval, or taken over: as the database has it now.
            async with self.session_factory() as session:
                finished = await repository.get_run(session, run.id)
        assert finished is not None
        return finished

    async def _agent(self, agent_id: str) -> Agent | None:
        """The agent as stored, from the cache of agents (dropped on any catalog commit, here or
        through the bus on another replica, and after the TTL: like the gateway's tools)."""
        if len(agent_id) > MAX_AGENT_ID_CHARS:
            return None

        async def load() -> Agent | None:
            async with self.session_factory() as session:
                return await agents_repository.get_agent(session, agent_id)

        return await self._agents.get_or_load(agent_id, load)

    async def _create_run(
        self, principal: Principal, agent: Agent, request: InvokeRequest
    ) -> tuple[AgentRun, bool, list[Notification] | None, asyncio.Future[AssembledPrompt] | None]:
        """The new run (and the agent's pending notifications, read with its insert), or the run
        an earlier request with the same idempotency key started. A synchronous run's prompt is
        assembled meanwhile (it reads, never writes; the model is called after the insert)."""
        fingerprint = request.fingerprint() if request.idempotency_key else None
        checkpoint = Checkpoint(
            principal=principal,
            user_profile=request.user_profile,
            force_channel=request.force_channel,
            skill_pins=request.skill_pins,
        )
        run = AgentRun(
            id=new_id("run_"),
            agent_id=agent.id,
            space_id=agent.space_id,
            session_id=request.session_id,
            parent_run_id=request.parent_run_id,
            delegation_depth=request.delegation_depth,
            principal_key_id=principal.key_id,
            status=RUNNING,
            input=request.message,
            steps=0,
            prompt_tokens=0,
            completion_tokens=0,
            model=agent.model,
            skill_versions=[],
            prompt_warnings=[],
            idempotency_key=request.idempotency_key,
            request_hash=fingerprint,
            started_at=utcnow(),
            owner_id=self.replica_id,
            lease_expires_at=self._lease_until(),
            takeovers=0,
            checkpoint=checkpoint.as_json(),
        )
        if not request.idempotency_key:
            row = {column.key: getattr(run, column.key) for column in AgentRun.__table__.columns}
            prompt = None if request.run_async else asyncio.ensure_future(build_prompt(self, agent, run, checkpoint))
            if prompt is not None:
                # Raised where the run awaits it; never "never retrieved" (a run cancelled before that).
                prompt.add_done_callback(lambda task: task.cancelled() or task.exception())
            try:
                notifications = await self.writer.create(row)
            except BaseException:
                if prompt is not None:
                    prompt.cancel()
                    await asyncio.gather(prompt, return_exceptions=True)
                raise
            self._active.add(run.id)
            self._ensure_heartbeat()
            return run, True, notifications, prompt
        for _ in range(3):
            existing = await self._existing_run(agent.id, request.idempotency_key, fingerprint)
            if existing is not None:
                return existing, False, None, None
            async with self.session_factory() as session:
                session.add(run)
                try:
                    await session.commit()
                except IntegrityError:
                    # A concurrent duplicate won the key: go back and read its run.
                    await session.rollback()
                    continue
            self._active.add(run.id)
            self._ensure_heartbeat()
            return run, True, None, None
        raise DomainError(
            "CONFLICT", "The idempotency key is being used concurrently; retry.", ["input", "idempotencyKey"]
        )

    async def _existing_run(self, agent_id: str, key: str, fingerprint: str | None) -> AgentRun | None:
        async with self.session_factory() as session, session.begin():
            existing = await repository.run_by_idempotency_key(session, agent_id, key)
            if existing is None:
                return None
            age = utcnow() - existing.started_at
            if age.total_seconds() > IDEMPOTENCY_HOURS * 3600:
                await repository.forget_idempotency_key(session, existing.id)
                return None
            if existing.request_hash != fingerprint:
                raise DomainError(
                    "IDEMPOTENCY_CONFLICT",
                    "This idempotency key was already used with another input.",
                    ["input", "idempotencyKey"],
                )
            return existing

    async def _await_settled(self, run_id: str) -> AgentRun:
        """The run once it is no longer RUNNING (finished or waiting for approval), polled from
        the database so it never depends on the bus; as it is after DUPLICATE_WAIT_S."""
        deadline = time.monotonic() + DUPLICATE_WAIT_S
        pause = 0.05
        while True:
            async with self.session_factory() as session:
                run = await repository.get_run(session, run_id)
            assert run is not None
            if run.status != RUNNING or time.monotonic() > deadline:
                return run
            await asyncio.sleep(pause)
            pause = min(pause * 2, 1.0)

    # ------------------------------------------------------------ driving a run

    async def _continue(self, run_id: str, *, resumed: bool) -> None:
        """Drive a run this replica just claimed: taken over from a dead replica (``resumed``)
        or continued after an approval decision."""
        try:
            async with self.session_factory() as session:
                run = await repository.get_run(session, run_id)
                agent = await agents_repository.get_agent(session, run.agent_id) if run else None
            if run is None:
                return
            if run.checkpoint is None or agent is None:
                # Started before runs kept their state, or its agent is gone: nothing to continue from.
                await self._finish_orphan(run, "The run was interrupted and cannot be continued.")
                return
            if resumed and run.takeovers > self.settings.max_takeovers:
                await self._finish_orphan(
                    run, f"The run was interrupted {run.takeovers} times; it is not continued again."
                )
                return
            client = self.model_client()
            if client is None:
                await self._finish_orphan(run, "This replica has no model endpoint configured to continue the run.")
                return
            if resumed:
                await self._event(run_id, "RESUMED", takeovers=run.takeovers)
            await self._drive(run_id, agent, client, fresh=False)
        finally:
            self._active.discard(run_id)

    async def _finish_orphan(self, run: AgentRun, message: str) -> None:
        driver = RunDriver(self, run, None, None, Checkpoint.from_json(run.checkpoint) if run.checkpoint else None)
        with contextlib.suppress(LeaseLostError):
            await driver.finish("FAILED", None, (INTERRUPTED, message, f"takeovers {run.takeovers}"))

    async def _drive(
        self,
        run_id: str,
        agent: Agent,
        client: ModelClient,
        *,
        fresh: bool,
        run: AgentRun | None = None,
        notifications: list[Notification] | None = None,
        prompt: asyncio.Future[AssembledPrompt] | None = None,
    ) -> AgentRun | None:
        """Drive the run (``run``: its row as just written, not read again; ``notifications``: its
        agent's, read when it was created); returns the row as finished, or None when the run did
        not finish here (waiting, taken over, cancelled)."""
        self._active.add(run_id)
        self._ensure_heartbeat()
        try:
            if run is None:
                async with self.session_factory() as session:
                    run = await repository.get_run(session, run_id)
            assert run is not None and run.checkpoint is not None
            driver = RunDriver(self, run, agent, client, Checkpoint.from_json(run.checkpoint))
            driver.notifications = notifications
            driver.prompt = prompt
            await driver.drive(fresh=fresh)
            return run if driver.finished else None
        finally:
            self._active.discard(run_id)

    async def release(self, run_id: str) -> None:
        """Give a run up so that the next sweep (here or elsewhere) continues it."""
        async with self.session_factory() as session, session.begin():
            await repository.renew_leases(session, [run_id], self.replica_id, utcnow() - timedelta(seconds=1))

    # ------------------------------------------------------------ approvals

    async def decide(
        self,
        principal: Principal,
        tool_call_id: str,
        *,
        approve: bool,
        comment: str | None,
        arguments: Any = None,
        arguments_given: bool = False,
    ) -> tuple[ToolCall, AgentRun]:
        """Record a person's decision on a call waiting for approval, then continue its run
        (here, unless another replica is quicker). Raises DomainError for refused decisions."""
        field = ["input", "toolCallId"]
        if comment is not None and len(comment) > MAX_COMMENT_CHARS:
            raise DomainError(
                "TOO_LONG",
                f"At most {MAX_COMMENT_CHARS} characters.",
                ["input", "comment" if approve else "reason"],
            )
        async with self.session_factory() as session:
            approval = await repository.get_approval(session, tool_call_id)
            run = await repository.get_run(session, approval.run_id) if approval else None
        if approval is None or run is None or not principal.can_read_space(approval.space_id):
            raise NotFoundError("ToolCall", tool_call_id, field)
        if not principal.can_manage_space(approval.space_id):
            raise ForbiddenError("Only a SPACE_ADMIN of the call's space or an ADMIN decides on approvals.", field)
        now = utcnow()
        self._check_open(approval, run, now)
        if approve and arguments_given:
            if not isinstance(arguments, dict):
                raise DomainError(PARAM_INVALID, "Arguments must be a JSON object.", ["input", "arguments"])
            assert run.checkpoint is not None  # an open approval belongs to an unfinished run
            refused = await self.gateway.check_arguments(
                Checkpoint.from_json(run.checkpoint).principal, approval.space_id, approval.tool_id, arguments
            )
            if refused is not None:
                raise DomainError(refused.error.code, refused.error.message, ["input", "arguments"])
        async with self.session_factory() as session, session.begin():
            decided = await repository.decide_approval(
                session,
                tool_call_id,
                decision=APPROVED if approve else REJECTED,
                decided_by=principal.key_id,
                decided_at=now,
                comment=comment,
                arguments=arguments if approve and arguments_given else None,
                require_open_at=now,
            )
            # Rejected, the call will not run: its row says so with the decision (the run tells
            # the model when it takes the decision up), so that the answer shows the call as stored.
            rejected = decided and not approve
            if rejected:
                await repository.refuse_waiting_call(session, tool_call_id, rejection_error(comment), now)
        if not decided:
            async with self.session_factory() as session:
                current = await repository.get_approval(session, tool_call_id)
            assert current is not None
            self._check_open(current, run, utcnow())
        await self.publish_approval(
            approval.space_id, "DECIDED", call_id=tool_call_id, tool_id=approval.tool_id, run_id=run.id
        )
        # The run publishes APPROVAL_DECIDED when it takes the decision up. It may still be settling
        # its other calls (then its driver sees the decision when it releases the run); once
        # released, exactly one replica claims it.
        async with self.session_factory() as session:
            call = await repository.calls_by_ids(session, [tool_call_id])
        if rejected and tool_call_id in call:
            await self.publish_call(row_values(call[tool_call_id]))
        await self._claim_waiting(run.id)
        async with self.session_factory() as session:
            call = await repository.calls_by_ids(session, [tool_call_id])
            latest = await repository.get_run(session, run.id)
        assert latest is not None
        return call[tool_call_id], latest

    @staticmethod
    def _check_open(approval: ToolCallApproval, run: AgentRun, now: datetime) -> None:
        field = ["input", "toolCallId"]
        if approval.decision is not None:
            raise DomainError("ALREADY_DECIDED", f"This call was already decided: {approval.decision.lower()}.", field)
        if run.finished_at is not None:
            raise DomainError("RUN_FINISHED", "The run this call belongs to has ended.", field)
        if approval.expires_at <= now:
            raise DomainError(APPROVAL_EXPIRED, "The time to decide on this call has run out.", field)

    # ------------------------------------------------------------ events

    async def _event(self, run_id: str, kind: str, **fields: Any) -> None:
        """Publish a run event; a bus that fails (or hangs) costs the subscribers an event, never the run."""
        try:
            async with asyncio.timeout(EVENT_PUBLISH_TIMEOUT_S):
                await self.bus.publish(
                    run_topic(run_id), {"kind": kind, "run_id": run_id, "at": utcnow().isoformat(), **fields}
                )
        except Exception:
            logger.warning("run event %s of %s not published", kind, run_id, exc_info=True)

    async def publish_approval(self, space_id: str, kind: str, *, call_id: str, tool_id: str, run_id: str) -> None:
        """Tell the space's approvers a call was put to them (REQUESTED), decided (DECIDED) or
        refused for want of a decision (EXPIRED). Like run events: a bus that fails costs the
        subscribers an event (they reconcile with pendingApprovals), never the run or the decision."""
        event = {
            "kind": kind,
            "space_id": space_id,
            "call_id": call_id,
            "tool_id": tool_id,
            "run_id": run_id,
            "at": utcnow().isoformat(),
        }
        try:
            async with asyncio.timeout(EVENT_PUBLISH_TIMEOUT_S):
                await self.bus.publish(approvals_topic(space_id), event)
        except Exception:
            logger.warning("approval event %s of %s not published", kind, call_id, exc_info=True)

    async def publish_call(self, row: dict[str, Any]) -> None:
        try:
            async with asyncio.timeout(EVENT_PUBLISH_TIMEOUT_S):
                await self.bus.publish(TOOL_CALLS_TOPIC, call_event(row))
        except Exception:
            logger.warning("tool call event of %s not published", row.get("id"), exc_info=True)

    def _delta_publisher(self, run_id: str) -> Callable[[str], Any]:
        async def publish(delta: str) -> None:
            await self._event(run_id, "MESSAGE_DELTA", delta=delta)

        return publish

    # ------------------------------------------------------------ bt_send_message

    async def send_message(self, invocation: Invocation) -> dict[str, Any]:
        arguments = invocation.arguments
        target_id, kind, content = str(arguments["to"]), str(arguments["type"]), str(arguments["content"])
        async with self.session_factory() as session:
            target = await agents_repository.get_agent(session, target_id)
        if target is None or target.space_id != invocation.space_id:
            raise ToolFailure(
                PERMISSION_DENIED,
                "Messages can only be sent to agents of the same space.",
                f"{target_id} is not an agent of {invocation.space_id}",
            )
        if target_id == invocation.agent_id:
            raise ToolFailure(PARAM_INVALID, "An agent cannot send a message to itself.", "/to")
        if kind == "request" and invocation.delegation_depth + 1 > self.settings.delegation_depth_limit:
            raise ToolFailure(
                DELEGATION_DEPTH_EXCEEDED,
                f"Delegation is limited to {self.settings.delegation_depth_limit} levels; answer without delegating.",
                f"depth {invocation.delegation_depth + 1}",
            )
        message = AgentMessage(
            id=new_id("msg_"),
            space_id=invocation.space_id,
            from_agent_id=invocation.agent_id,
            to_agent_id=target_id,
            from_run_id=invocation.run_id,
            type=kind,
            content=bounded_text(content, self.settings.row_max_bytes),
            status="PENDING",
            created_at=utcnow(),
        )
        async with self.session_factory() as session, session.begin():
            session.add(message)
        with contextlib.suppress(Exception):
            async with asyncio.timeout(EVENT_PUBLISH_TIMEOUT_S):
                await self.bus.publish(
                    inbox_topic(target_id),
                    {"id": message.id, "from": message.from_agent_id, "type": kind, "content": content},
                )
        if kind == "notify":
            return {"messageId": message.id, "status": "DELIVERED_ON_NEXT_RUN"}
        return await self._delegate(invocation, message, content)

    async def _delegate(self, invocation: Invocation, message: AgentMessage, content: str) -> dict[str, Any]:
        """The other agent runs on the whole ``content`` (the stored message may be cut)."""
        try:
            run = await self.invoke(
                invocation.principal,
                InvokeRequest(
                    agent_id=message.to_agent_id,
                    message=content,
                    delegation_depth=invocation.delegation_depth + 1,
                    parent_run_id=invocation.run_id,
                ),
            )
        except DomainError as error:
            await self._answer(message.id, "FAILED", None, None)
            raise ToolFailure(DELEGATE_FAILED, f"The other agent could not run: {error.message}", error.code) from None
        answered = run.status == "SUCCEEDED"
        await self._answer(message.id, "ANSWERED" if answered else "FAILED", run.output, run.id)
        if not answered:
            raise ToolFailure(
                DELEGATE_FAILED,
                "The other agent did not produce an answer.",
                f"run {run.id} ended {run.status}: {run.error_code or ''}",
            )
        return {"messageId": message.id, "runId": run.id, "answer": run.output}

    async def _answer(self, message_id: str, status: str, reply: str | None, run_id: str | None) -> None:
        async with self.session_factory() as session, session.begin():
            stored = await repository.get_message(session, message_id)
            if stored is not None:
                stored.status = status
                stored.reply = bounded_text(reply, self.settings.row_max_bytes)
                stored.reply_run_id = run_id
                stored.delivered_at = utcnow()
