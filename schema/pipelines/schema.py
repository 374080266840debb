"""Operations of pipelines: create and change them (each change a new version), run them,
follow their runs."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Hashable
from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from app.errors import DomainError
from app.pipelines import repository
from app.pipelines.runner import PipelineRequest, pipeline_run_topic
from app.pipelines.service import StepSpec, create_pipeline, get_pipeline_for, update_pipeline
from schema.context import Info
from schema.errors import UserError
from schema.following import follow_run
from schema.pagination import AfterArgument, Connection, FirstArgument, empty_connection, paginate
from schema.pipelines.types import Pipeline, PipelineRun, PipelineRunEvent, PipelineRunStep

# A subscriber reads the run back this often when no event came: a lost FINISHED still ends it.
RECONCILE_S = 5.0


@strawberry.input(description="One step of a pipeline.")
class PipelineStepInput:
    name: str = strawberry.field(description="Unique in the pipeline: 1 to 64 letters, digits, _ or -.")
    agent_id: strawberry.ID = strawberry.field(description="An agent of the pipeline's space.")
    input: str | None = strawberry.field(
        default="{{ prev.output }}",
        description="The message template: {{ input }}, {{ prev.output }}, {{ steps.<name>.output }} (optionally with .path); default {{ prev.output }}.",
    )
    skill_versions: list[str] | None = strawberry.field(
        default=None,
        description="Skill versions to pin for the step, as skillId@version (global or the space's skills).",
    )
    input_schema: JSON | None = strawberry.field(
        default=None,
        description="JSON Schema the step's input value must fit (prev.output; the pipeline's input first).",
    )
    output_schema: JSON | None = strawberry.field(
        default=None,
        description="JSON Schema the step's JSON output must fit; must satisfy the next step's inputSchema.",
    )
    final: bool | None = strawberry.field(
        default=False, description="The pipeline ends here with this step's output; the last step must be final."
    )
    optional: bool | None = strawberry.field(
        default=False, description="A failure of this step does not fail the run: the next step runs."
    )

    def spec(self) -> StepSpec:
        """The step as the service checks it; a schema that is not an object is refused there."""
        return StepSpec(
            name=self.name,
            agent_id=str(self.agent_id),
            input=self.input if self.input is not None else "{{ prev.output }}",
            skill_versions=list(self.skill_versions or []),
            input_schema=self.input_schema,  # type: ignore[arg-type]
            output_schema=self.output_schema,  # type: ignore[arg-type]
            final=bool(self.final),
            optional=bool(self.optional),
        )


@strawberry.input(description="A new pipeline of a space (SPACE_ADMIN of the space, or ADMIN).")
class CreatePipelineInput:
    space_id: strawberry.ID = strawberry.field(description="The space.")
    name: str = strawberry.field(description="Unique in the space.")
    steps: list[PipelineStepInput] = strawberry.field(description="The steps, in order (at most 20).")


@strawberry.input(description="Change a pipeline: new steps make a new version; runs keep the version they ran.")
class UpdatePipelineInput:
    pipeline_id: strawberry.ID = strawberry.field(description="The pipeline.")
    name: str | None = strawberry.field(default=None, description="A new name (does not make a new version).")
    steps: list[PipelineStepInput] | None = strawberry.field(
        default=None, description="The new steps, checked like createPipeline's; the same steps make no new version."
    )


@strawberry.input(description="Run a pipeline on an input.")
class InvokePipelineInput:
    pipeline_id: strawberry.ID = strawberry.field(description="The pipeline (its current version runs).")
    input: JSON = strawberry.field(description="The pipeline's input: any JSON value, {{ input }} in templates.")
    idempotency_key: str | None = strawberry.field(
        default=None,
        description="Same key and same input within 24 h returns the first run; same key with other input is IDEMPOTENCY_CONFLICT.",
    )
    run_async: bool | None = strawberry.field(
        default=False, name="async", description="Return at once with a RUNNING run; follow it with pipelineRunEvents."
    )


@strawberry.type(description="Result of createPipeline and updatePipeline.")
class PipelinePayload:
    pipeline: Pipeline | None = strawberry.field(description="The pipeline; null when refused.")
    user_errors: list[UserError] = strawberry.field(description="Why it was refused, naming the steps concerned.")


@strawberry.type(description="Result of invokePipeline.")
class InvokePipelinePayload:
    pipeline_run: PipelineRun | None = strawberry.field(
        description="The run: finished, or RUNNING when `async` was set."
    )
    user_errors: list[UserError] = strawberry.field(description="Why the run could not start; empty on success.")


@strawberry.type
class PipelinesQuery:
    @strawberry.field(description="One pipeline by id; null when absent or outside the caller's reach.")
    async def pipeline(
        self, info: Info, id: Annotated[strawberry.ID, strawberry.argument(description="The pipeline's id.")]
    ) -> Pipeline | None:
        async with info.context.session() as session:
            row = await get_pipeline_for(session, info.context.principal, str(id))
        return Pipeline.from_row(row) if row else None

    @strawberry.field(description="The pipelines of a space, oldest first.")
    async def pipelines(
        self,
        info: Info,
        space_id: Annotated[strawberry.ID, strawberry.argument(description="The space.")],
        first: FirstArgument = 20,
        after: AfterArgument = None,
    ) -> Connection[Pipeline]:
        space = str(space_id)
        if not info.context.principal.can_read_space(space):
            return empty_connection(after)
        return await paginate(
            info,
            first,
            after,
            lambda session, request: repository.list_pipelines(session, space, request),
            lambda session: repository.count_pipelines(session, space),
            Pipeline.from_row,
            lambda row: row.id,
        )

    @strawberry.field(description="One pipeline run by id; null when absent or outside the caller's reach.")
    async def pipeline_run(
        self, info: Info, id: Annotated[strawberry.ID, strawberry.argument(description="The run's id.")]
    ) -> PipelineRun | None:
        async with info.context.session() as session:
            row = await repository.get_run(session, str(id))
        if row is None or not info.context.principal.can_read_space(row.space_id):
            return None
        return PipelineRun.from_row(row)


@strawberry.type
class PipelinesMutation:
    @strawberry.mutation(
        description="Create a pipeline (version 1). Refused with userErrors naming the steps when a step's outputSchema cannot satisfy the next step's inputSchema, an agent or pinned skill version is not in the space, a template names an unknown step, or the last step is not final."
    )
    async def create_pipeline(
        self, info: Info, input: Annotated[CreatePipelineInput, strawberry.argument(description="The pipeline.")]
    ) -> PipelinePayload:
        try:
            async with info.context.transaction() as session:
                row = await create_pipeline(
                    session,
                    info.context.principal,
                    str(input.space_id),
                    input.name,
                    [step.spec() for step in input.steps],
                )
        except DomainError as error:
            return PipelinePayload(pipeline=None, user_errors=[UserError.from_domain(error)])
        return PipelinePayload(pipeline=Pipeline.from_row(row), user_errors=[])

    @strawberry.mutation(
        description="Change a pipeline: new steps (checked like createPipeline's) make a new version; runs record the version they ran."
    )
    async def update_pipeline(
        self, info: Info, input: Annotated[UpdatePipelineInput, strawberry.argument(description="The change.")]
    ) -> PipelinePayload:
        steps = [step.spec() for step in input.steps] if input.steps is not None else None
        try:
            async with info.context.transaction() as session:
                row = await update_pipeline(session, info.context.principal, str(input.pipeline_id), input.name, steps)
        except DomainError as error:
            return PipelinePayload(pipeline=None, user_errors=[UserError.from_domain(error)])
        return PipelinePayload(pipeline=Pipeline.from_row(row), user_errors=[])

    @strawberry.mutation(
        description="Run a pipeline: each step is an agent run (see agentRunEvents), one after the other; a failing step fails the run naming the step, unless optional."
    )
    async def invoke_pipeline(
        self, info: Info, input: Annotated[InvokePipelineInput, strawberry.argument(description="The invocation.")]
    ) -> InvokePipelinePayload:
        request = PipelineRequest(
            pipeline_id=str(input.pipeline_id),
            input=input.input,
            idempotency_key=input.idempotency_key,
            run_async=bool(input.run_async),
        )
        try:
            row = await info.context.pipelines.invoke(info.context.principal, request)
        except DomainError as error:
            return InvokePipelinePayload(pipeline_run=None, user_errors=[UserError.from_domain(error)])
        return InvokePipelinePayload(pipeline_run=PipelineRun.from_row(row), user_errors=[])


@strawberry.type
class PipelinesSubscription:
    @strawberry.subscription(
        description="Live events of one pipeline run: STARTED (replayed first for a run under way, followed by STEP_STARTED and STEP_FINISHED of the steps that had started or finished before the subscription), STEP_STARTED, each step's run events (RUN_EVENT), STEP_FINISHED, RESUMED (a live replica took the run over), and FINISHED, after which it ends. A finished run yields FINISHED at once."
    )
    async def pipeline_run_events(
        self,
        info: Info,
        pipeline_run_id: Annotated[strawberry.ID, strawberry.argument(description="The pipeline run to follow.")],
    ) -> AsyncGenerator[PipelineRunEvent, None]:
        def marker(kind: str, run: PipelineRun, at: datetime) -> PipelineRunEvent:
            return PipelineRunEvent(
                kind=kind, pipeline_run=run, step=None, run_event_kind=None, tool_id=None, at=at, run_id=None
            )

        async def convert(event: dict[str, Any], run: PipelineRun) -> PipelineRunEvent:
            return _event(event, run)

        async for item in follow_run(
            info,
            topic=pipeline_run_topic(str(pipeline_run_id)),
            read=lambda session: repository.get_run(session, str(pipeline_run_id)),
            present=PipelineRun.from_row,
            marker=marker,
            convert=convert,
            not_found=f"Pipeline run {str(pipeline_run_id)!r} not found.",
            read_with="pipelineRun",
            reconcile_s=RECONCILE_S,
            replay=_steps_so_far,
            replayed_key=lambda event: (event["kind"], event.get("step")),
        ):
            yield item


async def _steps_so_far(run: PipelineRun) -> list[tuple[Hashable, PipelineRunEvent]]:
    """STEP_STARTED and STEP_FINISHED of each step the run's row says started or settled: a
    subscriber who arrives once the run is under way (its id is known only then) still learns
    which steps ran. The steps' own RUN_EVENTs are live only."""
    past: list[tuple[Hashable, PipelineRunEvent]] = []

    def event(kind: str, step: PipelineRunStep, at: datetime | None) -> None:
        past.append(
            (
                (kind, step.name),
                PipelineRunEvent(
                    kind=kind,
                    pipeline_run=run,
                    step=step.name,
                    run_event_kind=None,
                    tool_id=None,
                    at=at or run.started_at,
                    run_id=step.run_id,
                ),
            )
        )

    for step in run.steps:
        if step.run_id is not None:
            event("STEP_STARTED", step, step.started_at)
        if step.status in ("SUCCEEDED", "FAILED"):
            event("STEP_FINISHED", step, step.finished_at)
    return past


def _event(event: dict[str, Any], run: PipelineRun) -> PipelineRunEvent:
    inner = event.get("run_event") or {}
    return PipelineRunEvent(
        kind=event["kind"],
        pipeline_run=run,
        step=event.get("step"),
        run_event_kind=inner.get("kind"),
        tool_id=inner.get("tool_id"),
        at=datetime.fromisoformat(event["at"]),
        run_id=event.get("run_id"),
    )
