"""GraphQL types of pipelines."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON

from app.pipelines import repository
from app.pipelines.models import Pipeline as PipelineRow
from app.pipelines.models import PipelineRun as PipelineRunRow
from app.pipelines.models import PipelineVersion as PipelineVersionRow
from schema import visibility
from schema.context import Info
from schema.pagination import AfterArgument, Connection, FirstArgument, paginate
from schema.refs import AgentRef, AgentRunRef, SpaceRef


async def _agent_run(info: Info, run_id: str | None) -> AgentRunRef | None:
    from schema.runtime.types import AgentRun

    if run_id is None:
        return None
    row = await info.context.loaders.run_by_id.load(run_id)
    return AgentRun.from_row(row) if row and visibility.in_readable_space(info, row) else None


@strawberry.type(description="One step of a pipeline: an agent run on an input made from a template.")
class PipelineStep:
    name: str = strawberry.field(description="The step's name, unique in the pipeline (letters, digits, _ and -).")
    agent_id: strawberry.ID = strawberry.field(
        description="The agent the step runs (an agent of the pipeline's space)."
    )
    skill_versions: list[str] = strawberry.field(
        description="Skill versions pinned for the step's runs, as skillId@version: each replaces the agent's binding of that skill, or is added."
    )
    input: str = strawberry.field(
        description="The message template: {{ input }}, {{ prev.output }} and {{ steps.<name>.output }}, each optionally with a path (.field), become the JSON text of their value."
    )
    input_schema: JSON | None = strawberry.field(
        description="JSON Schema the step's input value (prev.output; the pipeline's input for the first step) must fit."
    )
    output_schema: JSON | None = strawberry.field(
        description="JSON Schema the step's output (its agent's JSON answer) must fit; checked against the next step's inputSchema when the pipeline is stored."
    )
    final: bool = strawberry.field(description="The pipeline ends with this step's output as its answer.")
    optional: bool = strawberry.field(
        description="A failure of this step does not fail the pipeline run: the next step runs."
    )

    @strawberry.field(description="The agent; null if it no longer resolves or the caller may not see it.")
    async def agent(self, info: Info) -> AgentRef | None:
        from schema.agents.types import Agent

        row = await info.context.loaders.agent_by_id.load(str(self.agent_id))
        return Agent.from_row(row) if row and visibility.in_readable_space(info, row) else None

    @classmethod
    def of(cls, data: dict[str, Any]) -> PipelineStep:
        return cls(
            name=data["name"],
            agent_id=strawberry.ID(data["agentId"]),
            skill_versions=list(data.get("skillVersions") or []),
            input=data["input"],
            input_schema=data.get("inputSchema"),
            output_schema=data.get("outputSchema"),
            final=bool(data.get("final")),
            optional=bool(data.get("optional")),
        )


@strawberry.type(description="One version of a pipeline's steps; a change of the steps makes a new one.")
class PipelineVersion:
    version: int = strawberry.field(description="1, 2, 3 …")
    steps: list[PipelineStep] = strawberry.field(description="The steps, in order.")
    created_at: datetime = strawberry.field(description="When this version was stored.")
    created_by: str | None = strawberry.field(description="Id of the API key that stored it.")

    @classmethod
    def from_row(cls, row: PipelineVersionRow) -> PipelineVersion:
        return cls(
            version=row.version,
            steps=[PipelineStep.of(step) for step in row.steps],
            created_at=row.created_at,
            created_by=row.created_by,
        )


@strawberry.type(description="Agents chained into steps that pass JSON along and end on a final answer.")
class Pipeline:
    id: strawberry.ID = strawberry.field(description="Pipeline id, pl_….")
    name: str = strawberry.field(description="Unique in its space.")
    version: int = strawberry.field(description="The current version: the one new runs get.")
    created_at: datetime = strawberry.field(description="When the pipeline was created.")
    updated_at: datetime = strawberry.field(description="When it last changed.")
    space_id: strawberry.Private[str]

    @strawberry.field(description="The space the pipeline belongs to.")
    async def space(self, info: Info) -> SpaceRef:
        from schema.spaces.types import Space

        if not visibility.space_visible(info, self.space_id):
            raise visibility.refuse("space")
        row = await info.context.loaders.space_by_id.load(self.space_id)
        assert row is not None  # space_id is a foreign key
        return Space.from_row(row)

    @strawberry.field(description="Every version, oldest first.")
    async def versions(self, info: Info) -> list[PipelineVersion]:
        async with info.context.session() as session:
            found = await repository.versions_by_pipeline_ids(session, [str(self.id)])
        return [PipelineVersion.from_row(row) for row in found[str(self.id)]]

    @strawberry.field(description="The steps of the current version, in order.")
    async def steps(self, info: Info) -> list[PipelineStep]:
        async with info.context.session() as session:
            row = await repository.get_version(session, str(self.id), self.version)
        return [PipelineStep.of(step) for step in row.steps] if row else []

    @strawberry.field(description="The pipeline's runs, oldest first.")
    async def runs(self, info: Info, first: FirstArgument = 20, after: AfterArgument = None) -> Connection[PipelineRun]:
        pipeline_id = str(self.id)
        return await paginate(
            info,
            first,
            after,
            lambda session, request: repository.list_runs(session, pipeline_id, request),
            lambda session: repository.count_runs(session, pipeline_id),
            PipelineRun.from_row,
            lambda row: row.id,
        )

    @classmethod
    def from_row(cls, row: PipelineRow) -> Pipeline:
        return cls(
            id=strawberry.ID(row.id),
            name=row.name,
            version=row.version,
            created_at=row.created_at,
            updated_at=row.updated_at,
            space_id=row.space_id,
        )


@strawberry.type(description="Why a pipeline run, or one of its steps, failed.")
class PipelineRunError:
    code: str = strawberry.field(
        description="Stable code: the step's run's error code, or INPUT_INVALID, INPUT_TOO_LONG, OUTPUT_NOT_JSON, OUTPUT_INVALID, NO_FINAL_ANSWER, INTERRUPTED (a run that could not be continued after its replica died), INTERNAL_ERROR."
    )
    message: str = strawberry.field(description="What happened, naming the step.")
    step: str | None = strawberry.field(description="The step that failed the run.")


@strawberry.type(description="One step of a pipeline run.")
class PipelineRunStep:
    name: str = strawberry.field(description="The step's name.")
    status: str = strawberry.field(
        description="PENDING, RUNNING, SUCCEEDED, FAILED, or SKIPPED (the pipeline ended before it)."
    )
    output: JSON | None = strawberry.field(description="The step's JSON output, once it succeeded.")
    error: PipelineRunError | None = strawberry.field(description="Why the step failed.")
    run_id: strawberry.Private[str | None]
    started_at: strawberry.Private[datetime | None] = None
    finished_at: strawberry.Private[datetime | None] = None

    @strawberry.field(description="The step's agent run; null before it started.")
    async def run(self, info: Info) -> AgentRunRef | None:
        return await _agent_run(info, self.run_id)


@strawberry.type(description="One invocation of a pipeline: each step's agent run and the final answer.")
class PipelineRun:
    id: strawberry.ID = strawberry.field(description="Run id, plr_….")
    pipeline_id: strawberry.ID = strawberry.field(description="The pipeline run.")
    pipeline_version: int = strawberry.field(description="The version of the pipeline this run ran.")
    status: str = strawberry.field(description="RUNNING, SUCCEEDED or FAILED.")
    input: JSON = strawberry.field(description="The pipeline's input.")
    output: JSON | None = strawberry.field(
        description="The final answer: the final step's output, or the final_answer a step returned."
    )
    error: PipelineRunError | None = strawberry.field(description="Why the run failed, naming the step.")
    steps: list[PipelineRunStep] = strawberry.field(description="Every step of the version, in order.")
    started_at: datetime = strawberry.field(description="When the run started.")
    finished_at: datetime | None = strawberry.field(description="When it finished; null while RUNNING.")
    space_id: strawberry.Private[str]

    @classmethod
    def from_row(cls, row: PipelineRunRow) -> PipelineRun:
        error = (
            PipelineRunError(code=row.error_code, message=row.error_message or "", step=row.error_step)
            if row.error_code
            else None
        )
        return cls(
            id=strawberry.ID(row.id),
            pipeline_id=strawberry.ID(row.pipeline_id),
            pipeline_version=row.pipeline_version,
            status=row.status,
            input=row.input,
            output=row.output,
            error=error,
            steps=[
                PipelineRunStep(
                    name=step["name"],
                    status=step["status"],
                    output=step.get("output"),
                    error=PipelineRunError(
                        code=step["error"]["code"], message=step["error"]["message"], step=step["name"]
                    )
                    if step.get("error")
                    else None,
                    run_id=step.get("runId"),
                    started_at=_moment(step.get("startedAt")),
                    finished_at=_moment(step.get("finishedAt")),
                )
                for step in row.steps
            ],
            started_at=row.started_at,
            finished_at=row.finished_at,
            space_id=row.space_id,
        )


def _moment(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


@strawberry.type(description="Something that happened during a pipeline run, streamed live.")
class PipelineRunEvent:
    kind: str = strawberry.field(
        description="STARTED, STEP_STARTED (run: the step's agent run), STEP_FINISHED, RUN_EVENT (an event of the step's agent run: runEventKind), RESUMED (a live replica took the run over from one that died; step: the step it continues at), FINISHED."
    )
    pipeline_run: PipelineRun = strawberry.field(description="The pipeline run, as of this event.")
    step: str | None = strawberry.field(description="The step, for STEP_* and RUN_EVENT.")
    run_event_kind: str | None = strawberry.field(
        description="For RUN_EVENT: the agent run event's kind (MODEL_CALL, TOOL_CALL_STARTED … as agentRunEvents)."
    )
    tool_id: str | None = strawberry.field(description="For RUN_EVENT of a tool call: the tool.")
    at: datetime = strawberry.field(description="When it happened.")
    run_id: strawberry.Private[str | None]

    @strawberry.field(description="The step's agent run, for STEP_* and RUN_EVENT events.")
    async def run(self, info: Info) -> AgentRunRef | None:
        return await _agent_run(info, self.run_id)
