"""Pipelines end to end against the scripted model server: registration checks, runs with
JSON between steps, early ends, failing and optional steps, versions, pinned skills,
idempotency, permissions and pipelineRunEvents."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update
from starlette.testclient import TestClient

from app.config import Settings
from app.db import utcnow
from app.ids import new_id
from app.main import create_app
from app.pipelines import runner as runner_module
from app.pipelines.models import PipelineRun as PipelineRunRow
from app.pipelines.runner import PipelineRunner, pipeline_run_topic
from app.principal import Role
from app.runtime.service import run_topic
from tests.conftest import GraphQLClient, Keys
from tests.schema.runtime import RuntimeApp, create_agent, create_skill, messages_of, runtime_app, runtime_settings
from tests.schema.runtime.test_run_events import connect, post, receive_message, wait_for_subscribers
from tests.support.openai_server import OpenAIServer, ScriptedModel, final
from tests.support.openai_server import openai_server as openai_server
from tests.support.processes import wait_until

PIPELINE_FIELDS = """
fragment PipelineFields on Pipeline {
  id name version space { id }
  steps { name agentId skillVersions input inputSchema outputSchema final optional agent { id } }
  versions { version steps { name } }
}
"""

CREATE = (
    """
mutation CreatePipeline($input: CreatePipelineInput!) {
  createPipeline(input: $input) { pipeline { ...PipelineFields } userErrors { field code message } }
}
"""
    + PIPELINE_FIELDS
)

UPDATE = (
    """
mutation UpdatePipeline($input: UpdatePipelineInput!) {
  updatePipeline(input: $input) { pipeline { ...PipelineFields } userErrors { field code message } }
}
"""
    + PIPELINE_FIELDS
)

RUN_FIELDS = """
fragment PipelineRunFields on PipelineRun {
  id pipelineId pipelineVersion status input output startedAt finishedAt
  error { code message step }
  steps {
    name status output error { code message step }
    run { id status input output skillVersions { skillId version } }
  }
}
"""

INVOKE = (
    """
mutation InvokePipeline($input: InvokePipelineInput!) {
  invokePipeline(input: $input) { pipelineRun { ...PipelineRunFields } userErrors { field code message } }
}
"""
    + RUN_FIELDS
)

PIPELINE_RUN = "query PipelineRun($id: ID!) { pipelineRun(id: $id) { ...PipelineRunFields } }" + RUN_FIELDS

EVENTS = """
subscription PipelineRunEvents($id: ID!) {
  pipelineRunEvents(pipelineRunId: $id) { kind step runEventKind at run { id } pipelineRun { id status output } }
}
"""

ORDER = {"type": "object", "properties": {"order": {"type": "string"}}, "required": ["order"]}


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server) as app:
        yield app


@dataclass
class World:
    space_id: str
    gql: GraphQLClient
    extract_model: ScriptedModel
    draft_model: ScriptedModel
    extract: str
    draft: str


@pytest.fixture
async def world(quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer) -> World:
    space = await keys.space("pipes")
    gql = quiver.client(admin_key)
    extract_model, draft_model = openai_server.model(), openai_server.model()
    extract = await create_agent(gql, space.id, extract_model.name, name="Extractor", systemPrompt="Extract the order.")
    draft = await create_agent(gql, space.id, draft_model.name, name="Drafter", systemPrompt="Draft the reply.")
    return World(space.id, gql, extract_model, draft_model, extract["id"], draft["id"])


def two_steps(world: World, **second: Any) -> list[dict[str, Any]]:
    return [
        {
            "name": "extract",
            "agentId": world.extract,
            "input": "Find the order in: {{ input.text }}",
            "outputSchema": ORDER,
        },
        {
            "name": "draft",
            "agentId": world.draft,
            "input": "Order {{ steps.extract.output.order }}; all of it: {{ prev.output }}; asked: {{ input }}",
            "inputSchema": ORDER,
            "final": True,
            **second,
        },
    ]


async def create(gql: GraphQLClient, space_id: str, steps: list[dict[str, Any]], name: str = "reply") -> dict[str, Any]:
    payload: dict[str, Any] = (
        await gql.execute(CREATE, {"input": {"spaceId": space_id, "name": name, "steps": steps}})
    )["createPipeline"]
    return payload


async def created(gql: GraphQLClient, space_id: str, steps: list[dict[str, Any]]) -> dict[str, Any]:
    payload = await create(gql, space_id, steps)
    assert payload["userErrors"] == [], payload["userErrors"]
    pipeline: dict[str, Any] = payload["pipeline"]
    return pipeline


async def invoke(gql: GraphQLClient, pipeline_id: str, value: Any, **fields: Any) -> dict[str, Any]:
    payload: dict[str, Any] = (
        await gql.execute(INVOKE, {"input": {"pipelineId": pipeline_id, "input": value, **fields}})
    )["invokePipeline"]
    return payload


async def ran(gql: GraphQLClient, pipeline_id: str, value: Any, **fields: Any) -> dict[str, Any]:
    payload = await invoke(gql, pipeline_id, value, **fields)
    assert payload["userErrors"] == [], payload["userErrors"]
    run: dict[str, Any] = payload["pipelineRun"]
    return run


def user_message(request: dict[str, Any]) -> str:
    return str([message for message in messages_of(request) if message["role"] == "user"][-1]["content"])


class TestRegistration:
    async def test_a_pipeline_is_stored_as_version_1(self, world: World) -> None:
        pipeline = await created(world.gql, world.space_id, two_steps(world))
        assert pipeline["version"] == 1
        assert pipeline["space"] == {"id": world.space_id}
        assert [step["name"] for step in pipeline["steps"]] == ["extract", "draft"]
        assert pipeline["steps"][0]["agent"] == {"id": world.extract}
        assert pipeline["steps"][1]["final"] is True
        assert pipeline["versions"] == [{"version": 1, "steps": [{"name": "extract"}, {"name": "draft"}]}]

    async def test_an_output_schema_that_cannot_satisfy_the_next_input_schema_names_both_steps(
        self, world: World
    ) -> None:
        steps = two_steps(world)
        steps[0]["outputSchema"] = {"type": "object", "properties": {"order": {"type": "integer"}}}
        payload = await create(world.gql, world.space_id, steps)
        assert payload["pipeline"] is None
        (error,) = payload["userErrors"]
        assert error["code"] == "SCHEMA_INCOMPATIBLE"
        assert error["field"] == ["input", "steps", "1", "inputSchema"]
        assert "'extract'" in error["message"] and "'draft'" in error["message"]
        assert "order" in error["message"]

    async def test_wrong_types_and_closed_objects_are_incompatible_too(self, world: World) -> None:
        for produced in (
            {"type": "string"},
            {"type": "object", "properties": {"order": {"type": "string"}}, "required": ["order"]},
        ):
            steps = two_steps(world)
            steps[0]["outputSchema"] = produced
            steps[1]["inputSchema"] = {**ORDER, "additionalProperties": False}
            payload = await create(world.gql, world.space_id, steps)
            assert [error["code"] for error in payload["userErrors"]] == ["SCHEMA_INCOMPATIBLE"], produced

    async def test_an_optional_step_is_skipped_over_in_the_check(self, world: World) -> None:
        steps = two_steps(world)
        steps.insert(
            1,
            {"name": "enrich", "agentId": world.extract, "outputSchema": ORDER, "optional": True},
        )
        steps[0]["outputSchema"] = {"type": "array"}
        steps[1]["inputSchema"] = {"type": "array"}
        payload = await create(world.gql, world.space_id, steps)
        (error,) = payload["userErrors"]
        # extract may be followed by draft directly, when enrich fails.
        assert "'extract'" in error["message"] and "'draft'" in error["message"]

    async def test_agents_and_skills_must_exist_in_the_space(self, world: World, keys: Keys) -> None:
        other = await keys.space("elsewhere")
        foreign = await create_agent(world.gql, other.id, "m", name="Foreign")
        foreign_skill = await create_skill(world.gql, "foreign-skill", "do x", space_id=other.id)
        cases = [
            ({"agentId": foreign["id"]}, "NOT_VISIBLE", ["input", "steps", "1", "agentId"]),
            ({"agentId": "ag_missing"}, "NOT_VISIBLE", ["input", "steps", "1", "agentId"]),
            (
                {"skillVersions": [f"{foreign_skill['id']}@1.0.0"]},
                "NOT_VISIBLE",
                ["input", "steps", "1", "skillVersions", "0"],
            ),
            ({"skillVersions": ["sk_email_draft@9.9.9"]}, "NOT_FOUND", ["input", "steps", "1", "skillVersions", "0"]),
            ({"skillVersions": ["sk_email_draft"]}, "INVALID", ["input", "steps", "1", "skillVersions", "0"]),
        ]
        for change, code, field in cases:
            payload = await create(world.gql, world.space_id, two_steps(world, **change))
            assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [(code, field)], change
            assert "'draft'" in payload["userErrors"][0]["message"]

    async def test_the_last_step_must_be_final(self, world: World) -> None:
        payload = await create(world.gql, world.space_id, two_steps(world, final=False))
        assert [error["code"] for error in payload["userErrors"]] == ["NO_FINAL_STEP"]

    async def test_steps_after_a_required_final_step_are_refused(self, world: World) -> None:
        steps = two_steps(world)
        steps[0]["final"] = True
        payload = await create(world.gql, world.space_id, steps)
        assert [error["code"] for error in payload["userErrors"]] == ["UNREACHABLE_STEP"]

    async def test_templates_name_input_prev_or_earlier_steps(self, world: World) -> None:
        for template in ("{{ steps.draft.output }}", "{{ steps.nowhere.output }}", "{{ secrets }}"):
            steps = two_steps(world)
            steps[0]["input"] = template
            payload = await create(world.gql, world.space_id, steps)
            assert [error["code"] for error in payload["userErrors"]] == ["INVALID_TEMPLATE"], template

    async def test_duplicate_step_names_and_bad_schemas(self, world: World) -> None:
        steps = two_steps(world)
        steps[1]["name"] = "extract"
        assert [e["code"] for e in (await create(world.gql, world.space_id, steps))["userErrors"]] == ["DUPLICATE"]
        steps = two_steps(world)
        steps[0]["outputSchema"] = {"type": "nonsense"}
        errors = (await create(world.gql, world.space_id, steps))["userErrors"]
        assert errors[0]["field"] == ["input", "steps", "0", "outputSchema"]

    async def test_only_space_admins_create_pipelines(self, world: World, quiver: RuntimeApp, keys: Keys) -> None:
        member = quiver.client(await keys.for_space(world.space_id, Role.MEMBER))
        payload = await create(member, world.space_id, two_steps(world))
        assert [error["code"] for error in payload["userErrors"]] == ["FORBIDDEN"]
        other = await keys.space("other-admin")
        outsider = quiver.client(await keys.for_space(other.id, Role.SPACE_ADMIN))
        payload = await create(outsider, world.space_id, two_steps(world))
        assert [error["code"] for error in payload["userErrors"]] == ["NOT_FOUND"]


class TestRuns:
    async def test_json_flows_from_step_to_step_and_the_final_step_answers(self, world: World) -> None:
        pipeline = await created(world.gql, world.space_id, two_steps(world))
        world.extract_model.push(final('```json\n{"order": "A-7", "note": "rush"}\n```'))
        world.draft_model.push(final('{"email": "Your order A-7 ships today."}'))

        run = await ran(world.gql, pipeline["id"], {"text": "where is A-7?"})

        assert run["status"] == "SUCCEEDED"
        assert run["output"] == {"email": "Your order A-7 ships today."}
        assert run["pipelineVersion"] == 1
        assert run["error"] is None
        assert [step["name"] for step in run["steps"]] == ["extract", "draft"]
        assert [step["status"] for step in run["steps"]] == ["SUCCEEDED", "SUCCEEDED"]
        assert run["steps"][0]["output"] == {"order": "A-7", "note": "rush"}
        assert all(step["run"]["status"] == "SUCCEEDED" for step in run["steps"])
        assert user_message(world.extract_model.requests[0]) == 'Find the order in: "where is A-7?"'
        assert user_message(world.draft_model.requests[0]) == (
            'Order "A-7"; all of it: {"order": "A-7", "note": "rush"}; asked: {"text": "where is A-7?"}'
        )
        assert run["steps"][1]["run"]["input"] == user_message(world.draft_model.requests[0])

    async def test_a_long_text_as_the_whole_input_is_taken_like_the_same_text_in_an_object(self, world: World) -> None:
        # A JSON argument that is a bare string was cut at QUIVER_MAX_TEXT_CHARS (10,000), a TOO_LONG
        # userError, while the same text inside an object went through.
        email = "您好 我上周订的 A-7 还没到 (order A-7 has not arrived), please check. " * 300
        assert len(email) > 15_000
        steps = [{"name": "answer", "agentId": world.draft, "input": "{{ input }}", "final": True}]
        pipeline = await created(world.gql, world.space_id, steps)
        world.draft_model.push(final('{"email": "We are on it."}'))

        run = await ran(world.gql, pipeline["id"], email)

        assert run["status"] == "SUCCEEDED", run
        assert user_message(world.draft_model.requests[0]) == json.dumps(email, ensure_ascii=False)

    async def test_the_input_bound_counts_chinese_characters_once(self, world: World) -> None:
        # The bound (100,000 characters of JSON) was measured on ASCII-escaped JSON, where each
        # Chinese character is six (\\u5f20): a 20,000-character Chinese e-mail was TOO_LONG.
        email = "张伟您好，我在北京市朝阳区下的订单A-7还没有到，麻烦帮忙查一下物流。" * 600  # noqa: RUF001
        assert 20_000 < len(email) < 25_000
        steps = [{"name": "answer", "agentId": world.draft, "input": "{{ input.email }}", "final": True}]
        pipeline = await created(world.gql, world.space_id, steps)
        world.draft_model.push(final('{"reply": "已为您查询。"}'))

        run = await ran(world.gql, pipeline["id"], {"email": email})

        assert run["status"] == "SUCCEEDED", run
        assert user_message(world.draft_model.requests[0]) == json.dumps(email, ensure_ascii=False)
        payload = await invoke(world.gql, pipeline["id"], {"email": "长" * 100_000})
        assert [error["code"] for error in payload["userErrors"]] == ["TOO_LONG"]

    async def test_a_template_that_expands_past_the_prompt_bound_fails_its_step_input_too_long(
        self, world: World
    ) -> None:
        # 300 copies of a 36,000-character input: ~11 MB built in memory before the length check.
        steps = [{"name": "answer", "agentId": world.draft, "input": "{{ input.text }} " * 300, "final": True}]
        pipeline = await created(world.gql, world.space_id, steps)

        run = await ran(world.gql, pipeline["id"], {"text": "长" * 36_000})

        assert run["status"] == "FAILED", run
        assert (run["error"]["code"], run["error"]["step"]) == ("INPUT_TOO_LONG", "answer")
        assert run["steps"][0]["run"] is None
        assert world.draft_model.requests == []

    async def test_a_step_that_says_it_has_the_final_answer_ends_the_pipeline(self, world: World) -> None:
        pipeline = await created(world.gql, world.space_id, two_steps(world))
        world.extract_model.push(final('{"order": "A-7", "final_answer": "Nothing to draft: A-7 was cancelled."}'))

        run = await ran(world.gql, pipeline["id"], {"text": "A-7"})

        assert run["status"] == "SUCCEEDED"
        assert run["output"] == "Nothing to draft: A-7 was cancelled."
        assert [step["status"] for step in run["steps"]] == ["SUCCEEDED", "SKIPPED"]
        assert run["steps"][1]["run"] is None
        assert world.draft_model.requests == []

    async def test_a_failing_step_fails_the_run_naming_it(self, world: World) -> None:
        pipeline = await created(world.gql, world.space_id, two_steps(world))
        world.extract_model.push(final("The order is A-7."))

        run = await ran(world.gql, pipeline["id"], {"text": "A-7"})

        assert run["status"] == "FAILED"
        assert run["error"]["code"] == "OUTPUT_NOT_JSON"
        assert run["error"]["step"] == "extract"
        assert "'extract'" in run["error"]["message"]
        assert [step["status"] for step in run["steps"]] == ["FAILED", "PENDING"]
        assert run["steps"][0]["run"]["status"] == "SUCCEEDED"
        assert world.draft_model.requests == []

    async def test_an_output_outside_its_schema_or_a_failed_agent_run_fails_the_step(self, world: World) -> None:
        pipeline = await created(world.gql, world.space_id, two_steps(world))
        world.extract_model.push(final('{"order": 7}'))
        run = await ran(world.gql, pipeline["id"], {"text": "A-7"})
        assert (run["error"]["code"], run["error"]["step"]) == ("OUTPUT_INVALID", "extract")
        # Nothing scripted: the model endpoint answers 418 and the step's agent run fails.
        run = await ran(world.gql, pipeline["id"], {"text": "A-7"})
        assert (run["error"]["code"], run["error"]["step"]) == ("MODEL_ERROR", "extract")
        assert run["steps"][0]["run"]["status"] == "FAILED"

    async def test_an_optional_step_that_fails_lets_the_next_one_run(self, world: World) -> None:
        steps = two_steps(world)
        steps.insert(1, {"name": "enrich", "agentId": world.extract, "outputSchema": ORDER, "optional": True})
        pipeline = await created(world.gql, world.space_id, steps)
        world.extract_model.push(final('{"order": "A-7"}'), final("not json"))
        world.draft_model.push(final('{"email": "ok"}'))

        run = await ran(world.gql, pipeline["id"], {"text": "A-7"})

        assert run["status"] == "SUCCEEDED"
        assert [step["status"] for step in run["steps"]] == ["SUCCEEDED", "FAILED", "SUCCEEDED"]
        assert run["steps"][1]["error"]["code"] == "OUTPUT_NOT_JSON"
        # prev.output skips the failed optional step.
        assert '"order": "A-7"' in user_message(world.draft_model.requests[0])

    async def test_an_input_outside_the_first_input_schema_is_refused(self, world: World) -> None:
        steps = two_steps(world)
        steps[0]["inputSchema"] = {"type": "object", "required": ["text"]}
        pipeline = await created(world.gql, world.space_id, steps)
        payload = await invoke(world.gql, pipeline["id"], {"txt": "typo"})
        assert payload["pipelineRun"] is None
        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [
            ("INPUT_INVALID", ["input", "input"])
        ]

    async def test_pinned_skill_versions_reach_the_step_s_prompt(self, world: World) -> None:
        steps = two_steps(world)
        steps[0]["skillVersions"] = ["sk_email_draft@1.0.0"]
        pipeline = await created(world.gql, world.space_id, steps)
        world.extract_model.push(final('{"order": "A-7"}'))
        world.draft_model.push(final('{"email": "ok"}'))

        run = await ran(world.gql, pipeline["id"], {"text": "A-7"})

        assert run["steps"][0]["run"]["skillVersions"] == [{"skillId": "sk_email_draft", "version": "1.0.0"}]
        assert run["steps"][1]["run"]["skillVersions"] == []
        skill = await world.gql.execute('query S { skill(id: "sk_email_draft") { prompt } }')
        first_line = skill["skill"]["prompt"].strip().splitlines()[0]
        assert first_line in messages_of(world.extract_model.requests[0])[0]["content"]
        assert first_line not in messages_of(world.draft_model.requests[0])[0]["content"]

    async def test_the_same_idempotency_key_returns_the_first_run(self, world: World) -> None:
        pipeline = await created(world.gql, world.space_id, two_steps(world))
        world.extract_model.push(final('{"order": "A-7"}'))
        world.draft_model.push(final('{"email": "once"}'))
        first = await ran(world.gql, pipeline["id"], {"text": "A-7"}, idempotencyKey="k-1")
        again = await ran(world.gql, pipeline["id"], {"text": "A-7"}, idempotencyKey="k-1")
        assert again["id"] == first["id"]
        assert len(world.extract_model.requests) == 1
        conflict = await invoke(world.gql, pipeline["id"], {"text": "B-8"}, idempotencyKey="k-1")
        assert [error["code"] for error in conflict["userErrors"]] == ["IDEMPOTENCY_CONFLICT"]

    async def test_viewers_do_not_run_pipelines_and_other_spaces_do_not_see_them(
        self, world: World, quiver: RuntimeApp, keys: Keys
    ) -> None:
        pipeline = await created(world.gql, world.space_id, two_steps(world))
        viewer = quiver.client(await keys.for_space(world.space_id, Role.VIEWER))
        payload = await invoke(viewer, pipeline["id"], {"text": "x"})
        assert [error["code"] for error in payload["userErrors"]] == ["FORBIDDEN"]
        other = await keys.space("pipes-other")
        outsider = quiver.client(await keys.for_space(other.id, Role.MEMBER))
        payload = await invoke(outsider, pipeline["id"], {"text": "x"})
        assert [error["code"] for error in payload["userErrors"]] == ["NOT_FOUND"]
        assert (await outsider.execute("query P($id: ID!) { pipeline(id: $id) { id } }", {"id": pipeline["id"]}))[
            "pipeline"
        ] is None


#: Only how long a test waits before calling a task hung (no timing is asserted).
HANG_GUARD_S = 10.0


async def settled(gql: GraphQLClient, run_id: str, timeout_s: float = 30.0) -> dict[str, Any]:
    """The pipeline run once it finished (polled through the API)."""
    deadline = time.monotonic() + timeout_s
    while True:
        run: dict[str, Any] = (await gql.execute(PIPELINE_RUN, {"id": run_id}))["pipelineRun"]
        if run["finishedAt"] is not None:
            return run
        assert time.monotonic() < deadline, f"pipeline run not finished in {timeout_s}s: {run}"
        await asyncio.sleep(0.05)


async def set_pipeline_run(quiver: RuntimeApp, run_id: str, **columns: Any) -> None:
    async with quiver.app.state.services.session_factory() as session, session.begin():
        await session.execute(update(PipelineRunRow).where(PipelineRunRow.id == run_id).values(**columns))


class TestTakeover:
    async def test_a_run_given_up_at_shutdown_is_continued_from_its_last_completed_step(
        self, world: World, quiver: RuntimeApp, settings: Settings, openai_server: OpenAIServer, admin_key: str
    ) -> None:
        pipeline = await created(world.gql, world.space_id, two_steps(world))
        gate = threading.Event()
        world.extract_model.push(final('{"order": "A-7"}'))
        world.draft_model.push(final('{"email": "lost"}').held_until(gate))
        try:
            async with runtime_app(settings, openai_server) as doomed:
                started = await ran(doomed.client(admin_key), pipeline["id"], {"text": "A-7"}, **{"async": True})
                await wait_until(lambda: len(world.draft_model.requests) == 1)
        finally:
            gate.set()
        given_up = (await world.gql.execute(PIPELINE_RUN, {"id": started["id"]}))["pipelineRun"]
        assert given_up["status"] == "RUNNING"
        assert [step["status"] for step in given_up["steps"]] == ["SUCCEEDED", "RUNNING"]

        world.draft_model.push(final('{"email": "continued"}'))
        await quiver.app.state.services.runtime.sweep()  # a live replica: the step's run, then the pipeline run
        run = await settled(world.gql, started["id"])

        assert run["status"] == "SUCCEEDED", run
        assert run["output"] == {"email": "continued"}
        assert [step["status"] for step in run["steps"]] == ["SUCCEEDED", "SUCCEEDED"]
        # The extract step kept its output and its run; the draft step kept its run, continued.
        assert [step["run"]["id"] for step in run["steps"]] == [step["run"]["id"] for step in given_up["steps"]]
        assert run["steps"][0]["output"] == {"order": "A-7"}
        assert len(world.extract_model.requests) == 1
        assert len(world.draft_model.requests) == 2
        again = await ran(world.gql, pipeline["id"], {"text": "A-7"})
        assert again["id"] != run["id"]  # no idempotency key: a new run

    async def test_a_pipeline_task_cancelled_as_its_step_run_sends_an_event_ends(
        self, world: World, settings: Settings, openai_server: OpenAIServer, admin_key: str
    ) -> None:
        """Shutdown cancels the task following a step run just as an event of that run arrives
        (Python 3.11's asyncio.wait_for returned the event and dropped the cancellation: the task
        went on following a run nobody drove, and the shutdown waited for it for ever)."""
        pipeline = await created(world.gql, world.space_id, two_steps(world))
        gate = threading.Event()
        world.extract_model.push(final('{"order": "A-7"}'))
        world.draft_model.push(final('{"email": "never"}').held_until(gate))
        try:
            async with runtime_app(settings, openai_server) as doomed:
                services = doomed.app.state.services
                started = await ran(doomed.client(admin_key), pipeline["id"], {"text": "A-7"}, **{"async": True})
                await wait_until(lambda: len(world.draft_model.requests) == 1)
                running = (await world.gql.execute(PIPELINE_RUN, {"id": started["id"]}))["pipelineRun"]
                topic = run_topic(running["steps"][1]["run"]["id"])
                assert services.bus.subscriber_count(topic) == 1
                (task,) = [
                    task for task in services.runtime._background if task.get_name() == f"pipeline-{started['id']}"
                ]

                await services.bus.publish(topic, {"kind": "NOTE"})  # delivered here, before any await
                task.cancel()
                ended, _ = await asyncio.wait([task], timeout=HANG_GUARD_S)

                assert ended == {task}, "the cancelled pipeline task went on"
                assert task.cancelled()
        finally:
            gate.set()
        given_up = (await world.gql.execute(PIPELINE_RUN, {"id": started["id"]}))["pipelineRun"]
        assert given_up["status"] == "RUNNING"  # given up, for a live replica to continue
        assert [step["status"] for step in given_up["steps"]] == ["SUCCEEDED", "RUNNING"]

    async def test_a_step_event_after_quiet_reconcile_periods_is_still_forwarded(
        self, world: World, quiver: RuntimeApp, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # The step run's events were waited for with a time-out that cancelled the iterator
        # mid-wait, which ended it: after one quiet period, no event of the step was forwarded.
        monkeypatch.setattr(runner_module, "RECONCILE_S", 0.05)
        bus = quiver.app.state.services.bus
        pipeline = await created(world.gql, world.space_id, two_steps(world))
        gate = threading.Event()
        world.extract_model.push(final('{"order": "A-7"}'))
        world.draft_model.push(final('{"email": "sent"}').held_until(gate))
        try:
            started = await ran(world.gql, pipeline["id"], {"text": "A-7"}, **{"async": True})
            await wait_until(lambda: len(world.draft_model.requests) == 1)
            running = (await world.gql.execute(PIPELINE_RUN, {"id": started["id"]}))["pipelineRun"]
            step_run_id = running["steps"][1]["run"]["id"]
            async with bus.subscribe(pipeline_run_topic(started["id"])) as subscription:
                await asyncio.sleep(0.3)  # six quiet reconcile periods
                await bus.publish(run_topic(step_run_id), {"kind": "NOTE"})
                async with asyncio.timeout(HANG_GUARD_S):
                    async for event in subscription:
                        if event["kind"] == "RUN_EVENT" and event["run_event"]["kind"] == "NOTE":
                            break
                assert event["step"] == "draft"
                assert event["run_id"] == step_run_id
        finally:
            gate.set()
        run = await settled(world.gql, started["id"])
        assert run["status"] == "SUCCEEDED", run
        assert run["output"] == {"email": "sent"}

    async def test_a_run_that_cannot_be_continued_is_failed_interrupted(self, world: World, quiver: RuntimeApp) -> None:
        pipeline = await created(world.gql, world.space_id, two_steps(world))
        world.extract_model.push(final('{"order": "A-7"}'))
        world.draft_model.push(final('{"email": "first"}'))
        done = await ran(world.gql, pipeline["id"], {"text": "A-7"})
        # Started before runs kept their caller; taken over as often as a run may be already.
        max_takeovers = quiver.app.state.services.runtime.settings.max_takeovers
        orphans = []
        for columns in ({"caller": None}, {"takeovers": max_takeovers}):
            orphan = new_id("plr_")
            async with quiver.app.state.services.session_factory() as session, session.begin():
                session.add(
                    PipelineRunRow(
                        id=orphan,
                        pipeline_id=pipeline["id"],
                        pipeline_version=1,
                        space_id=world.space_id,
                        status="RUNNING",
                        input={"text": "A-7"},
                        steps=[{"name": "extract", "status": "PENDING"}, {"name": "draft", "status": "PENDING"}],
                        started_at=utcnow(),
                        lease_expires_at=utcnow() - timedelta(seconds=1),
                        caller={"keyId": "system", "role": "ADMIN", "spaceId": None},
                        takeovers=0,
                    )
                )
            await set_pipeline_run(quiver, orphan, **columns)
            orphans.append(orphan)

        await quiver.app.state.services.runtime.sweep()

        for orphan in orphans:
            run = await settled(world.gql, orphan)
            assert run["status"] == "FAILED"
            assert run["error"]["code"] == "INTERRUPTED"
        assert len(world.extract_model.requests) == 1
        assert (await world.gql.execute(PIPELINE_RUN, {"id": done["id"]}))["pipelineRun"]["status"] == "SUCCEEDED"


class TestVersions:
    async def test_a_change_is_a_new_version_and_runs_record_theirs(self, world: World) -> None:
        pipeline = await created(world.gql, world.space_id, two_steps(world))
        world.extract_model.push(final('{"order": "A-7"}'), final('{"order": "A-8"}'))
        world.draft_model.push(final('{"email": "v1"}'), final('{"email": "v2"}'))
        first = await ran(world.gql, pipeline["id"], {"text": "A-7"})

        same = (await world.gql.execute(UPDATE, {"input": {"pipelineId": pipeline["id"], "steps": two_steps(world)}}))[
            "updatePipeline"
        ]
        assert same["userErrors"] == [] and same["pipeline"]["version"] == 1
        changed = two_steps(world, input="Write to the customer about {{ prev.output.order }}.")
        updated = (await world.gql.execute(UPDATE, {"input": {"pipelineId": pipeline["id"], "steps": changed}}))[
            "updatePipeline"
        ]
        assert updated["userErrors"] == []
        assert updated["pipeline"]["version"] == 2
        assert [version["version"] for version in updated["pipeline"]["versions"]] == [1, 2]
        second = await ran(world.gql, pipeline["id"], {"text": "A-8"})

        assert (first["pipelineVersion"], second["pipelineVersion"]) == (1, 2)
        assert user_message(world.draft_model.requests[1]) == 'Write to the customer about "A-8".'
        refused = two_steps(world, agentId="ag_missing")
        payload = (await world.gql.execute(UPDATE, {"input": {"pipelineId": pipeline["id"], "steps": refused}}))[
            "updatePipeline"
        ]
        assert [error["code"] for error in payload["userErrors"]] == ["NOT_VISIBLE"]
        reread = await world.gql.execute(PIPELINE_RUN, {"id": first["id"]})
        assert reread["pipelineRun"]["pipelineVersion"] == 1


def follow(
    settings: Settings, key: str, pipeline_id: str, gate: threading.Event, *, after_step: str | None = None
) -> list[dict[str, Any]]:
    """Every event of an async run of the pipeline, subscribed as soon as its id is known or,
    with ``after_step``, only once that step has succeeded (a late subscriber)."""
    with (
        TestClient(create_app(settings)) as client,
        client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
    ):
        connect(ws, key)
        payload = post(
            client, key, INVOKE, {"input": {"pipelineId": pipeline_id, "input": {"text": "A-7"}, "async": True}}
        )
        run = payload["invokePipeline"]["pipelineRun"]
        assert run["status"] == "RUNNING", payload
        for _ in range(600):
            if after_step is None:
                break
            steps = post(client, key, PIPELINE_RUN, {"id": run["id"]})["pipelineRun"]["steps"]
            if any(step["name"] == after_step and step["status"] == "SUCCEEDED" for step in steps):
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"step {after_step} did not succeed")
        ws.send_json({"id": "p", "type": "subscribe", "payload": {"query": EVENTS, "variables": {"id": run["id"]}}})
        wait_for_subscribers(client, pipeline_run_topic(run["id"]))
        gate.set()
        events: list[dict[str, Any]] = []
        while True:
            message = receive_message(ws)
            assert message is not None, f"no FINISHED after {[event['kind'] for event in events]}"
            if message["type"] == "complete":
                return events
            assert message["type"] == "next" and "errors" not in message["payload"], message
            events.append(message["payload"]["data"]["pipelineRunEvents"])


async def followed_from_the_start(
    world: World, settings: Settings, openai_server: OpenAIServer, admin_key: str
) -> list[dict[str, Any]]:
    """Every event of a two-step run, subscribed before its first step's model answers."""
    pipeline = await created(world.gql, world.space_id, two_steps(world))
    gate = threading.Event()
    world.extract_model.push(final('{"order": "A-7"}').held_until(gate))
    world.draft_model.push(final('{"email": "done"}'))
    return await asyncio.to_thread(follow, runtime_settings(settings, openai_server), admin_key, pipeline["id"], gate)


class TestPipelineRunEvents:
    async def test_steps_and_their_runs_events_stream_in_order(
        self, world: World, settings: Settings, openai_server: OpenAIServer, admin_key: str
    ) -> None:
        events = await followed_from_the_start(world, settings, openai_server, admin_key)

        kinds = [(event["kind"], event["step"], event["runEventKind"]) for event in events]
        steps = [kind for kind in kinds if kind[0] in ("STEP_STARTED", "STEP_FINISHED")]
        assert steps == [
            ("STEP_STARTED", "extract", None),
            ("STEP_FINISHED", "extract", None),
            ("STEP_STARTED", "draft", None),
            ("STEP_FINISHED", "draft", None),
        ]
        assert kinds[-1] == ("FINISHED", None, None)
        draft_events = [kind[2] for kind in kinds if kind[0] == "RUN_EVENT" and kind[1] == "draft"]
        assert draft_events[-1] == "FINISHED" and "MODEL_CALL" in draft_events
        assert events[-1]["pipelineRun"]["status"] == "SUCCEEDED"
        assert events[-1]["pipelineRun"]["output"] == {"email": "done"}
        started = [event for event in events if event["kind"] == "STEP_STARTED"]
        assert all(event["run"] is not None for event in started)

    async def test_a_steps_first_run_events_arrive_however_slow_its_bookkeeping(
        self,
        world: World,
        settings: Settings,
        openai_server: OpenAIServer,
        admin_key: str,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        # The step run starts before the pipeline stores the step and announces it: its first model
        # call is over by then. Its events must still reach the pipeline's subscribers (they were
        # forwarded only from a subscription opened after the store, and the first ones were lost).
        slow_store = PipelineRunner._store_steps

        async def store_slowly(self: PipelineRunner, run_id: str, state: list[dict[str, Any]]) -> None:
            await asyncio.sleep(0.3)
            await slow_store(self, run_id, state)

        monkeypatch.setattr(PipelineRunner, "_store_steps", store_slowly)
        events = await followed_from_the_start(world, settings, openai_server, admin_key)

        for step in ("extract", "draft"):
            kinds = [
                event["runEventKind"] for event in events if event["kind"] == "RUN_EVENT" and event["step"] == step
            ]
            assert kinds[0] == "STARTED" and "MODEL_CALL" in kinds and kinds[-1] == "FINISHED", (step, kinds)
            started = next(
                index for index, event in enumerate(events) if event["kind"] == "STEP_STARTED" and event["step"] == step
            )
            first = next(
                index for index, event in enumerate(events) if event["kind"] == "RUN_EVENT" and event["step"] == step
            )
            assert started < first

    async def test_a_late_subscriber_learns_the_steps_already_run_once_each(
        self, world: World, settings: Settings, openai_server: OpenAIServer, admin_key: str
    ) -> None:
        pipeline = await created(world.gql, world.space_id, two_steps(world))
        gate = threading.Event()
        world.extract_model.push(final('{"order": "A-7"}'))
        world.draft_model.push(final('{"email": "done"}').held_until(gate))

        events = await asyncio.to_thread(
            follow, runtime_settings(settings, openai_server), admin_key, pipeline["id"], gate, after_step="extract"
        )

        kinds = [(event["kind"], event["step"]) for event in events if event["kind"] != "RUN_EVENT"]
        assert kinds == [
            ("STARTED", None),
            ("STEP_STARTED", "extract"),
            ("STEP_FINISHED", "extract"),
            ("STEP_STARTED", "draft"),
            ("STEP_FINISHED", "draft"),
            ("FINISHED", None),
        ]
        extract_started = events[1]
        assert extract_started["run"] is not None and extract_started["run"]["id"].startswith("run_")
        assert extract_started["at"] < events[2]["at"] <= events[3]["at"]
