"""Rules for pipelines: a pipeline is checked whole when it is stored, and every change
is a new version (runs record the version they ran).

Refused, with a userError naming the steps concerned:

- a step name that is not ``[A-Za-z0-9_-]`` or repeats, an empty pipeline, more than
  ``MAX_STEPS`` steps;
- an agent that is not an agent of the pipeline's space, a skill (pinned as
  ``skillId@version``) that is neither global nor the space's, or has no such version;
- a template placeholder other than ``input``, ``prev.output`` or ``steps.<earlier>.output``;
- a step's ``outputSchema`` that cannot satisfy the ``inputSchema`` of a step that may run
  next (the next one, or past optional steps that may fail);
- no step with ``final: true`` at the end, or a required final step with steps after it
  (they could never run).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.agents import repository as agents_repository
from app.db import lock_name
from app.errors import DomainError, ForbiddenError, NotFoundError
from app.ids import new_id
from app.pipelines import contract, repository
from app.pipelines.models import Pipeline, PipelineVersion
from app.principal import Principal
from app.skills import repository as skills_repository
from app.skills.versions import split_reference
from app.validation import SEMVER, check_json_schema, check_not_blank

MAX_STEPS = 20
MAX_PINS = 20
STEP_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass
class StepSpec:
    name: str
    agent_id: str
    input: str = "{{ prev.output }}"
    skill_versions: list[str] = field(default_factory=list)
    input_schema: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    final: bool = False
    optional: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "agentId": self.agent_id,
            "skillVersions": list(self.skill_versions),
            "input": self.input,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
            "final": self.final,
            "optional": self.optional,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StepSpec:
        return cls(
            name=data["name"],
            agent_id=data["agentId"],
            input=data["input"],
            skill_versions=list(data.get("skillVersions") or []),
            input_schema=data.get("inputSchema"),
            output_schema=data.get("outputSchema"),
            final=bool(data.get("final")),
            optional=bool(data.get("optional")),
        )


def _field(index: int, *rest: str) -> list[str]:
    return ["input", "steps", str(index), *rest]


async def check_steps(session: AsyncSession, space_id: str, steps: list[StepSpec]) -> list[StepSpec]:
    """The steps, every rule checked (see the module); DomainError naming the step(s) otherwise."""
    if not steps:
        raise DomainError("INVALID", "A pipeline has at least one step.", ["input", "steps"])
    if len(steps) > MAX_STEPS:
        raise DomainError("INVALID", f"A pipeline has at most {MAX_STEPS} steps.", ["input", "steps"])
    names: dict[str, int] = {}
    for index, step in enumerate(steps):
        if not STEP_NAME.match(step.name):
            raise DomainError("INVALID", "A step name is 1 to 64 letters, digits, '_' or '-'.", _field(index, "name"))
        if step.name in names:
            raise DomainError(
                "DUPLICATE",
                f"Steps {names[step.name] + 1} and {index + 1} are both named {step.name!r}.",
                _field(index, "name"),
            )
        names[step.name] = index
        for key, schema in (("inputSchema", step.input_schema), ("outputSchema", step.output_schema)):
            if schema is not None:
                await check_json_schema(schema, _field(index, key), require_object=False)
        _check_template(step, index, names)
        if len(step.skill_versions) > MAX_PINS:
            raise DomainError("INVALID", f"At most {MAX_PINS} pinned skill versions.", _field(index, "skillVersions"))
    await _check_agents(session, space_id, steps)
    await _check_skills(session, space_id, steps)
    _check_schemas(steps)
    _check_final(steps)
    return steps


def _check_template(step: StepSpec, index: int, earlier: dict[str, int]) -> None:
    check_not_blank(step.input, _field(index, "input"))
    for reference in contract.references(step.input):
        if isinstance(reference, str):
            raise DomainError(
                "INVALID_TEMPLATE",
                f"Step {step.name!r}: {{{{ {reference} }}}} is not input, prev.output or steps.<name>.output.",
                _field(index, "input"),
            )
        if reference.source not in ("input", "prev") and (
            reference.source not in earlier or earlier[reference.source] >= index
        ):
            raise DomainError(
                "INVALID_TEMPLATE",
                f"Step {step.name!r} uses the output of {reference.source!r}, which is not an earlier step.",
                _field(index, "input"),
            )


async def _check_agents(session: AsyncSession, space_id: str, steps: list[StepSpec]) -> None:
    agents = {agent.id: agent for agent in await agents_repository.agents_by_ids(session, [s.agent_id for s in steps])}
    for index, step in enumerate(steps):
        agent = agents.get(step.agent_id)
        if agent is None or agent.space_id != space_id:
            raise DomainError(
                "NOT_VISIBLE",
                f"Step {step.name!r}: agent {step.agent_id!r} is not an agent of space {space_id!r}.",
                _field(index, "agentId"),
            )


async def _check_skills(session: AsyncSession, space_id: str, steps: list[StepSpec]) -> None:
    wanted = [split_reference(pin)[0] for step in steps for pin in step.skill_versions]
    skills = {skill.skill_id: skill for skill in await skills_repository.skills_by_ids(session, wanted)}
    for index, step in enumerate(steps):
        for position, pin in enumerate(step.skill_versions):
            where = _field(index, "skillVersions", str(position))
            skill_id, version = split_reference(pin)
            skill = skills.get(skill_id)
            if skill is None or (skill.space_id is not None and skill.space_id != space_id):
                raise DomainError(
                    "NOT_VISIBLE", f"Step {step.name!r}: skill {skill_id!r} is not global or of the space.", where
                )
            if version is None or not SEMVER.match(version):
                raise DomainError("INVALID", f"Step {step.name!r}: pin a version as {skill_id}@1.2.0.", where)
            if await skills_repository.get_version(session, skill_id, version) is None:
                raise DomainError(
                    "NOT_FOUND", f"Step {step.name!r}: skill {skill_id!r} has no version {version}.", where
                )


def _check_schemas(steps: list[StepSpec]) -> None:
    """Every step that may run right before step k (k-1, and further back past optional ones)
    must declare an output that fits k's input."""
    for index in range(1, len(steps)):
        accepting = steps[index]
        for before in range(index - 1, -1, -1):
            producing = steps[before]
            reason = contract.incompatibility(producing.output_schema, accepting.input_schema)
            if reason is not None:
                raise DomainError(
                    "SCHEMA_INCOMPATIBLE",
                    f"The outputSchema of step {producing.name!r} cannot satisfy the inputSchema of step "
                    f"{accepting.name!r}: {reason}.",
                    _field(index, "inputSchema"),
                )
            if not producing.optional:
                break


def _check_final(steps: list[StepSpec]) -> None:
    if not steps[-1].final:
        raise DomainError(
            "NO_FINAL_STEP",
            f"The last step ({steps[-1].name!r}) must declare final: true: the pipeline ends on a final answer.",
            _field(len(steps) - 1, "final"),
        )
    for index, step in enumerate(steps[:-1]):
        if step.final and not step.optional:
            raise DomainError(
                "UNREACHABLE_STEP",
                f"Step {step.name!r} is final and required, so step {steps[index + 1].name!r} after it never runs.",
                _field(index + 1),
            )


async def get_pipeline_for(session: AsyncSession, principal: Principal, pipeline_id: str) -> Pipeline | None:
    pipeline = await repository.get_pipeline(session, pipeline_id)
    if pipeline is None or not principal.can_read_space(pipeline.space_id):
        return None
    return pipeline


async def create_pipeline(
    session: AsyncSession, principal: Principal, space_id: str, name: str, steps: list[StepSpec]
) -> Pipeline:
    if not principal.can_read_space(space_id):
        raise NotFoundError("Space", space_id, ["input", "spaceId"])
    if not principal.can_manage_space(space_id):
        raise ForbiddenError("Only a SPACE_ADMIN of the space or an ADMIN creates pipelines.", ["input", "spaceId"])
    name = check_not_blank(name, ["input", "name"])
    await _claim_name(session, space_id, name)
    checked = await check_steps(session, space_id, steps)
    pipeline = Pipeline(id=new_id("pl_"), space_id=space_id, name=name, version=1, status="ACTIVE")
    session.add(pipeline)
    await session.flush()
    session.add(
        PipelineVersion(
            pipeline_id=pipeline.id, version=1, steps=[step.as_json() for step in checked], created_by=principal.key_id
        )
    )
    await session.flush()
    return pipeline


async def _claim_name(session: AsyncSession, space_id: str, name: str, exclude_id: str | None = None) -> None:
    """The name free in the space, and kept free until this transaction ends (``lock_name``)."""
    await lock_name(session, "pipeline", f"{space_id}/{name}")
    if await repository.name_taken(session, space_id, name, exclude_id=exclude_id):
        raise DomainError("DUPLICATE", f"The space already has a pipeline named {name!r}.", ["input", "name"])


async def update_pipeline(
    session: AsyncSession, principal: Principal, pipeline_id: str, name: str | None, steps: list[StepSpec] | None
) -> Pipeline:
    """A new version with the given steps (the current ones when not given); renaming keeps the version."""
    pipeline = await get_pipeline_for(session, principal, pipeline_id)
    if pipeline is None:
        raise NotFoundError("Pipeline", pipeline_id, ["input", "pipelineId"])
    if not principal.can_manage_space(pipeline.space_id):
        raise ForbiddenError("Only a SPACE_ADMIN of the space or an ADMIN changes pipelines.", ["input", "pipelineId"])
    if name is not None:
        name = check_not_blank(name, ["input", "name"])
        await _claim_name(session, pipeline.space_id, name, exclude_id=pipeline.id)
        pipeline.name = name
    if steps is not None:
        checked = await check_steps(session, pipeline.space_id, steps)
        current = await repository.get_version(session, pipeline.id, pipeline.version)
        if current is None or current.steps != [step.as_json() for step in checked]:
            expected = pipeline.version
            if not await repository.bump_version(session, pipeline.id, expected):
                raise DomainError("CONFLICT", "The pipeline changed meanwhile; read it and retry.", ["input", "steps"])
            session.add(
                PipelineVersion(
                    pipeline_id=pipeline.id,
                    version=expected + 1,
                    steps=[step.as_json() for step in checked],
                    created_by=principal.key_id,
                )
            )
    await session.flush()
    refreshed = await repository.get_pipeline(session, pipeline.id)
    assert refreshed is not None
    return refreshed
