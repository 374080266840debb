"""Running a pipeline: each step is an agent run (``AgentRuntime.invoke``, driven by the
``RunDriver`` like any run: leases, checkpoints, approvals), one after the other.

A step gets its input from its template, its agent answers with JSON, and that output is
checked against the step's ``outputSchema`` and passed on (``prev.output``,
``steps.<name>.output``). The pipeline ends at the first final step that succeeds, or
earlier when a step's output is an object with ``final_answer`` (its value is the
pipeline's output). A failing step fails the pipeline run, naming the step, unless it is
``optional``: then the next step runs with the same ``prev.output`` the failed one had.

The run's state (each step's status, run and output) is stored after every change, and
``pipeline-run:<id>`` carries STARTED, STEP_STARTED, STEP_FINISHED, each step run's own
events (RUN_EVENT), RESUMED and FINISHED.

A pipeline run is held like an agent run: the replica executing it holds a lease (renewed
by the runtime's heartbeat, ``AgentRuntime.add_keeper``). When that replica dies, a live
one — at start-up, then every half lease — takes the run over and continues it from its
last completed step: steps that SUCCEEDED (or FAILED) keep their outcome and are not run
again; the step under way keeps its agent run, which the runtime continues (or fails with
INTERRUPTED) like any run, and the pipeline goes on with its outcome. A step's agent run is
started with the idempotency key ``<pipeline run id>/<step>``, so a step whose replica died
just after starting its run finds that run instead of starting a second one. After
``max_takeovers`` the run is FAILED with INTERRUPTED. A replica that shuts down gives its
runs up at once. A step waiting for approval keeps its pipeline's task waiting (polling the
database), not a connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from app.db import utcnow
from app.errors import DomainError, ForbiddenError, NotFoundError
from app.events.bus import Subscription
from app.ids import new_id
from app.jsonschemas import UnsafeSchemaError, ValidationTooCostlyError, checked, compiled_validator
from app.pipelines import contract, repository
from app.pipelines.models import PipelineRun
from app.pipelines.service import StepSpec, get_pipeline_for
from app.principal import Principal
from app.runtime import repository as runs_repository
from app.runtime.models import AgentRun
from app.runtime.service import EVENT_PUBLISH_TIMEOUT_S, SWEEP_BATCH, AgentRuntime, InvokeRequest, run_topic

logger = logging.getLogger("quiver.pipelines")

RUNNING, SUCCEEDED, FAILED = "RUNNING", "SUCCEEDED", "FAILED"
PENDING, SKIPPED = "PENDING", "SKIPPED"
MAX_INPUT_CHARS = 100_000
IDEMPOTENCY_HOURS = 24
# How often a step's run is read back when no event says it finished (lost events).
RECONCILE_S = 1.0
# How long a duplicate synchronous invokePipeline waits for the first run before answering with it as it is.
DUPLICATE_WAIT_S = 600.0


def pipeline_run_topic(run_id: str) -> str:
    return f"pipeline-run:{run_id}"


@dataclass
class PipelineRequest:
    pipeline_id: str
    input: Any
    idempotency_key: str | None = None
    run_async: bool = False

    def fingerprint(self) -> str:
        return hashlib.sha256(json.dumps({"input": self.input}, sort_keys=True).encode()).hexdigest()


class StepFailedError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class LeaseLostError(Exception):
    """Another replica took the pipeline run over (or it finished): this one stops writing it."""


class PipelineRunner:
    """Starts, executes and takes over pipeline runs on the runtime of this replica (one per
    replica: its tasks, its bus, its leases)."""

    def __init__(self, runtime: AgentRuntime, *, max_message_chars: int) -> None:
        self.runtime = runtime
        self.session_factory = runtime.session_factory
        self.max_message_chars = max_message_chars
        #: Pipeline runs this replica executes now: the heartbeat renews exactly these leases.
        self._active: set[str] = set()
        runtime.add_keeper(self)

    async def invoke(self, principal: Principal, request: PipelineRequest) -> PipelineRun:
        field = ["input", "pipelineId"]
        async with self.session_factory() as session:
            pipeline = await get_pipeline_for(session, principal, request.pipeline_id)
            version = await repository.get_version(session, pipeline.id, pipeline.version) if pipeline else None
        if pipeline is None or version is None:
            raise NotFoundError("Pipeline", request.pipeline_id, field)
        if not principal.can_invoke_in_space(pipeline.space_id):
            raise ForbiddenError("This key may not run pipelines (or agents) of the space.", field)
        if self.runtime.model_client() is None:
            raise DomainError(
                "MODEL_NOT_CONFIGURED", "No model endpoint is configured: set QUIVER_OPENAI_BASE_URL.", field
            )
        # Characters as written (ensure_ascii=False): ASCII escapes counted each Chinese one six times.
        if len(json.dumps(request.input, ensure_ascii=False)) > MAX_INPUT_CHARS:
            raise DomainError(
                "TOO_LONG", f"The input is at most {MAX_INPUT_CHARS} characters of JSON.", ["input", "input"]
            )
        steps = [StepSpec.from_json(step) for step in version.steps]
        refusal = await _schema_error(steps[0].input_schema, request.input)
        if refusal is not None:
            raise DomainError(
                "INPUT_INVALID",
                f"The input does not fit step {steps[0].name!r}'s inputSchema: {refusal}",
                ["input", "input"],
            )
        run, is_new = await self._create(principal, request, pipeline.space_id, version.version, steps)
        if not is_new:
            # The same request again: the first run (once settled, when synchronous) — on whichever
            # replica executes it, also after a takeover.
            return run if request.run_async or run.status != RUNNING else await self._settled(run.id)
        if request.run_async:
            self.runtime._spawn(self._execute(run.id, principal, steps), f"pipeline-{run.id}")
            return run
        await self._execute(run.id, principal, steps)
        return await self._read(run.id)

    async def _create(
        self, principal: Principal, request: PipelineRequest, space_id: str, version: int, steps: list[StepSpec]
    ) -> tuple[PipelineRun, bool]:
        fingerprint = request.fingerprint() if request.idempotency_key else None
        for _ in range(3):
            if request.idempotency_key:
                async with self.session_factory() as session:
                    existing = await repository.run_by_idempotency_key(
                        session, request.pipeline_id, request.idempotency_key
                    )
                if existing is not None:
                    if utcnow() - existing.started_at <= timedelta(hours=IDEMPOTENCY_HOURS):
                        if existing.request_hash != fingerprint:
                            raise DomainError(
                                "IDEMPOTENCY_CONFLICT",
                                "This idempotency key was already used with another input.",
                                ["input", "idempotencyKey"],
                            )
                        return existing, False
                    async with self.session_factory() as session, session.begin():
                        await session.execute(
                            update(PipelineRun).where(PipelineRun.id == existing.id).values(idempotency_key=None)
                        )
            run = PipelineRun(
                id=new_id("plr_"),
                pipeline_id=request.pipeline_id,
                pipeline_version=version,
                space_id=space_id,
                principal_key_id=principal.key_id,
                status=RUNNING,
                input=request.input,
                steps=[{"name": step.name, "status": PENDING} for step in steps],
                idempotency_key=request.idempotency_key,
                request_hash=fingerprint,
                started_at=utcnow(),
                owner_id=self.runtime.replica_id,
                lease_expires_at=self.runtime._lease_until(),
                takeovers=0,
                caller=principal.as_json(),
            )
            async with self.session_factory() as session:
                session.add(run)
                try:
                    await session.commit()
                except IntegrityError:
                    await session.rollback()
                    continue
            self._active.add(run.id)
            self.runtime._ensure_heartbeat()
            return run, True
        raise DomainError(
            "CONFLICT", "The idempotency key is being used concurrently; retry.", ["input", "idempotencyKey"]
        )

    async def _read(self, run_id: str) -> PipelineRun:
        async with self.session_factory() as session:
            run = await repository.get_run(session, run_id)
        assert run is not None
        return run

    async def _settled(self, run_id: str) -> PipelineRun:
        """The run once it is no longer RUNNING; as it is after DUPLICATE_WAIT_S."""
        deadline = time.monotonic() + DUPLICATE_WAIT_S
        pause = 0.05
        while True:
            run = await self._read(run_id)
            if run.status != RUNNING or time.monotonic() > deadline:
                return run
            await asyncio.sleep(pause)
            pause = min(pause * 2, 1.0)

    # ------------------------------------------------------------ leases and takeovers

    async def renew_leases(self) -> None:
        active = sorted(self._active)
        if active:
            async with self.session_factory() as session, session.begin():
                await repository.renew_leases(session, active, self.runtime.replica_id, self.runtime._lease_until())

    async def sweep(self) -> None:
        """Take over the pipeline runs whose replica is gone and continue each one here."""
        now = utcnow()
        async with self.session_factory() as session:
            orphaned = await repository.orphaned_run_ids(session, now, SWEEP_BATCH)
        for run_id in orphaned:
            async with self.session_factory() as session, session.begin():
                taken = await repository.take_over(
                    session, run_id, self.runtime.replica_id, now, self.runtime._lease_until()
                )
            if taken:
                logger.warning("taking over pipeline run %s: its replica is gone", run_id, extra={"run_id": run_id})
                self._active.add(run_id)
                self.runtime._spawn(self._resume(run_id), f"pipeline-{run_id}")

    async def _resume(self, run_id: str) -> None:
        try:
            run = await self._read(run_id)
            async with self.session_factory() as session:
                version = await repository.get_version(session, run.pipeline_id, run.pipeline_version)
            refusal = None
            if run.caller is None or version is None:
                refusal = "The pipeline run was interrupted and cannot be continued; invoke it again."
            elif run.takeovers > self.runtime.settings.max_takeovers:
                refusal = f"The pipeline run was interrupted {run.takeovers} times; it is not continued again."
            if refusal is not None or version is None:
                with contextlib.suppress(LeaseLostError):
                    await self._finish(run_id, FAILED, None, ("INTERRUPTED", refusal or "", None))
                return
            steps = [StepSpec.from_json(step) for step in version.steps]
            under_way = next((item["name"] for item in run.steps if item["status"] in (PENDING, RUNNING)), None)
            await self._event(run_id, "RESUMED", step=under_way, takeovers=run.takeovers)
            await self._execute(run_id, Principal.from_json(run.caller or {}), steps)
        finally:
            self._active.discard(run_id)

    async def _release(self, run_id: str) -> None:
        """Give the run up so that the next sweep (here or elsewhere) continues it."""
        async with self.session_factory() as session, session.begin():
            await repository.update_owned_run(
                session, run_id, self.runtime.replica_id, lease_expires_at=utcnow() - timedelta(seconds=1)
            )

    # ------------------------------------------------------------ execution

    async def _execute(self, run_id: str, principal: Principal, steps: list[StepSpec]) -> None:
        self._active.add(run_id)
        self.runtime._ensure_heartbeat()
        try:
            await self._steps(run_id, principal, steps)
        except LeaseLostError:
            logger.warning("pipeline run %s was taken over by another replica; leaving it", run_id)
        except asyncio.CancelledError:
            # Shutdown (or the caller gone): give the run up at once, so that a live replica's next
            # sweep continues it from its last completed step.
            with contextlib.suppress(Exception):
                await asyncio.shield(self._release(run_id))
            raise
        except Exception:
            trace_id = secrets.token_hex(8)
            logger.exception("pipeline run crashed", extra={"pipeline_run_id": run_id, "trace_id": trace_id})
            with contextlib.suppress(Exception):
                await self._finish(
                    run_id,
                    FAILED,
                    None,
                    ("INTERNAL_ERROR", f"The run failed inside the platform (trace {trace_id}).", None),
                )
        finally:
            self._active.discard(run_id)

    async def _steps(self, run_id: str, principal: Principal, steps: list[StepSpec]) -> None:
        """Each step in order; a step settled before a takeover (SUCCEEDED or FAILED) keeps its
        outcome and is not run again."""
        run = await self._read(run_id)
        state: list[dict[str, Any]] = [dict(item) for item in run.steps]
        pipeline_input = run.input
        previous: Any = pipeline_input
        outputs: dict[str, Any] = {}
        if all(item["status"] == PENDING for item in state):
            await self._event(run_id, "STARTED")
        for index, step in enumerate(steps):
            entry = state[index]
            ran_here = entry["status"] not in (SUCCEEDED, FAILED)
            if ran_here:
                try:
                    output = await self._step(run_id, principal, step, entry, state, pipeline_input, previous, outputs)
                    entry.update(status=SUCCEEDED, output=output, finishedAt=utcnow().isoformat())
                except StepFailedError as failure:
                    entry.update(
                        status=FAILED,
                        error={"code": failure.code, "message": failure.message},
                        finishedAt=utcnow().isoformat(),
                    )
            if entry["status"] == FAILED:
                if ran_here:
                    await self._store_steps(run_id, state)
                    await self._event(run_id, "STEP_FINISHED", step=step.name, run_id=entry.get("runId"), status=FAILED)
                if step.optional:
                    outputs[step.name] = None
                    continue
                error = entry["error"]
                await self._finish(
                    run_id,
                    FAILED,
                    None,
                    (error["code"], f"Step {step.name!r} failed: {error['message']}", step.name),
                    state,
                )
                return
            output = entry.get("output")
            outputs[step.name] = output
            previous = output
            is_final, answer = contract.final_answer(output)
            if is_final or step.final:
                for later in state[index + 1 :]:
                    later["status"] = SKIPPED
            if ran_here:
                await self._store_steps(run_id, state)
                await self._event(run_id, "STEP_FINISHED", step=step.name, run_id=entry.get("runId"), status=SUCCEEDED)
            if is_final or step.final:
                await self._finish(run_id, SUCCEEDED, answer if is_final else output, None, state)
                return
        await self._finish(
            run_id,
            FAILED,
            None,
            ("NO_FINAL_ANSWER", "Every final step failed: the pipeline has no answer.", None),
            state,
        )

    async def _step(
        self,
        run_id: str,
        principal: Principal,
        step: StepSpec,
        entry: dict[str, Any],
        state: list[dict[str, Any]],
        pipeline_input: Any,
        previous: Any,
        outputs: dict[str, Any],
    ) -> Any:
        """The step's output: its agent run started (or, after a takeover, the one it had), followed
        to its end, its answer checked."""
        agent_run_id: str | None = entry.get("runId")
        started_here = agent_run_id is None
        if agent_run_id is None:
            refusal = await _schema_error(step.input_schema, previous)
            if refusal is not None:
                raise StepFailedError("INPUT_INVALID", f"its input does not fit its inputSchema: {refusal}")
            try:
                message = contract.render(
                    step.input, pipeline_input, previous, outputs, max_chars=self.max_message_chars
                )
            except contract.RenderTooLongError as error:
                # Refused while expanding, not after: the rest of the template is never built.
                raise StepFailedError(
                    "INPUT_TOO_LONG",
                    f"its input is over {self.max_message_chars} characters (refused at {error.length})",
                ) from None
            entry.update(status=RUNNING)
            try:
                started = await self.runtime.invoke(
                    principal,
                    InvokeRequest(
                        agent_id=step.agent_id,
                        message=message,
                        # A replica that dies right after starting the run: its successor finds that run.
                        idempotency_key=f"{run_id}/{step.name}",
                        run_async=True,
                        skill_pins=step.skill_versions or None,
                    ),
                )
            except DomainError as error:
                raise StepFailedError(error.code, error.message) from None
            agent_run_id = started.id
        # Listening before anything else is awaited: a step run started here was only scheduled,
        # so its first events (MODEL_CALL …) reach this step's subscribers, not just the later ones.
        async with self.runtime.bus.subscribe(run_topic(agent_run_id)) as subscription:
            if started_here:
                entry.update(runId=agent_run_id, startedAt=utcnow().isoformat())
                await self._store_steps(run_id, state)
                await self._event(run_id, "STEP_STARTED", step=step.name, run_id=agent_run_id)
            finished = await self._follow(run_id, step.name, agent_run_id, subscription)
        if finished.status != SUCCEEDED:
            code = finished.error_code or finished.status
            raise StepFailedError(
                code,
                f"its agent run {finished.id} ended {finished.status}"
                + (f": {finished.error_message}" if finished.error_message else ""),
            )
        is_json, output = contract.parse_output(finished.output)
        if not is_json:
            raise StepFailedError("OUTPUT_NOT_JSON", "its agent did not answer with JSON")
        refusal = await _schema_error(step.output_schema, output)
        if refusal is not None:
            raise StepFailedError("OUTPUT_INVALID", f"its output does not fit its outputSchema: {refusal}")
        return output

    async def _follow(self, run_id: str, step: str, agent_run_id: str, subscription: Subscription) -> AgentRun:
        """Forward the step run's events from ``subscription`` until it finished (read back from
        the database whenever no event came for a while: events may be lost). A run found
        finished in the database has its FINISHED event still on the way or queued: it is waited
        for, up to ``RECONCILE_S``, so that subscribers get the step run's events to the end."""
        loop = asyncio.get_running_loop()
        events = aiter(subscription)
        finished: AgentRun | None = None
        forwarded_finish = False
        give_up_at = 0.0
        # The next event, waited for across the reconcile periods. Not asyncio.wait_for: on
        # Python 3.11 it returns an event that arrived just as this task was cancelled and drops
        # the cancellation (a shutdown then waited for this loop for ever); and its time-out
        # cancelled the iterator mid-wait, which ended it (no event forwarded after a quiet second).
        upcoming: asyncio.Future[Any] | None = None
        try:
            while True:
                if finished is None:
                    async with self.session_factory() as session:
                        current = await runs_repository.get_run(session, agent_run_id)
                    assert current is not None
                    if current.finished_at is not None:
                        if forwarded_finish:
                            return current
                        finished, give_up_at = current, loop.time() + RECONCILE_S
                wait = RECONCILE_S
                if finished is not None:
                    wait = give_up_at - loop.time()
                    if wait <= 0:
                        return finished
                if upcoming is None:
                    upcoming = asyncio.ensure_future(anext(events))
                done, _ = await asyncio.wait((upcoming,), timeout=wait)
                if not done:
                    continue
                arrived, upcoming = upcoming, None
                try:
                    event = arrived.result()
                except StopAsyncIteration:
                    if finished is not None:
                        return finished
                    await asyncio.sleep(RECONCILE_S)
                    continue
                await self._event(run_id, "RUN_EVENT", step=step, run_id=agent_run_id, run_event=event)
                forwarded_finish = event.get("kind") == "FINISHED"
                if forwarded_finish and finished is not None:
                    return finished
        finally:
            if upcoming is not None:
                upcoming.cancel()

    async def _write(self, run_id: str, **values: Any) -> None:
        async with self.session_factory() as session, session.begin():
            if not await repository.update_owned_run(session, run_id, self.runtime.replica_id, **values):
                raise LeaseLostError(run_id)

    async def _store_steps(self, run_id: str, state: list[dict[str, Any]]) -> None:
        await self._write(run_id, steps=state)

    async def _finish(
        self,
        run_id: str,
        status: str,
        output: Any,
        error: tuple[str, str, str | None] | None,
        state: list[dict[str, Any]] | None = None,
    ) -> None:
        values: dict[str, Any] = {
            "status": status,
            "output": output,
            "finished_at": utcnow(),
            "lease_expires_at": None,
        }
        if state is not None:
            values["steps"] = state
        if error is not None:
            values.update(error_code=error[0], error_message=error[1], error_step=error[2])
        await self._write(run_id, **values)
        await self._event(run_id, "FINISHED", status=status)

    async def _event(self, pipeline_run_id: str, kind: str, /, **fields: Any) -> None:
        try:
            async with asyncio.timeout(EVENT_PUBLISH_TIMEOUT_S):
                await self.runtime.bus.publish(
                    pipeline_run_topic(pipeline_run_id),
                    {"kind": kind, "pipeline_run_id": pipeline_run_id, "at": utcnow().isoformat(), **fields},
                )
        except Exception:
            logger.warning("pipeline event %s of %s not published", kind, pipeline_run_id, exc_info=True)


async def _schema_error(schema: dict[str, Any] | None, value: Any) -> str | None:
    if not schema:
        return None
    try:
        errors = await checked(await compiled_validator(schema), value)
    except UnsafeSchemaError as problem:
        # Stored before a bound it now fails existed.
        return f"the schema cannot be served: {problem}"
    except ValidationTooCostlyError as costly:
        return f"the value takes too much work to check against the schema (more than {costly.limit} steps)"
    if not errors:
        return None
    error = errors[0]
    where = "/".join(str(part) for part in error.absolute_path)
    return f"{error.message[:300]}" + (f" (at /{where})" if where else "")
