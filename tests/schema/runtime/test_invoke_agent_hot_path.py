"""invokeAgent's hot path (schema/gateway/hot_path.py): a known document is answered from its
compiled plan with the same status, headers and JSON as the generic GraphQL path — a finished
run, a failed one, an async one, userErrors from the resolver and from the text limits, a
null where the schema has none — with the run and its calls stored before the answer; every
document or variable the plan does not take goes the generic way and gets the generic answer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.config import Settings
from app.gateway.models import ToolCall
from app.runtime.models import AgentRun as AgentRunRow
from schema.gateway.hot_path import HotPath, Plan
from schema.runtime.types import AgentRun
from tests.conftest import Keys
from tests.schema.runtime import RuntimeApp, create_agent, runtime_app
from tests.support.hot_path import BothPaths, normalised
from tests.support.hot_path import same_answer as same_answer_but
from tests.support.openai_server import OpenAIServer, ScriptedModel, call, final, http_error, tool_calls
from tests.support.openai_server import openai_server as openai_server

PROMPT_LIMIT = 200

SHORT = """
mutation Invoke($input: InvokeAgentInput!) {
  invokeAgent(input: $input) {
    run { id status output steps error { code message detail } }
    userErrors { field code message }
  }
}
"""
FULL = """
mutation($input: InvokeAgentInput!) {
  answer: invokeAgent(input: $input) {
    __typename
    userErrors { __typename field code message }
    run {
      __typename runId: id status input output steps promptTokens completionTokens model sessionId
      skillVersions { skillId version channel } promptWarnings delegationDepth startedAt finishedAt
      error { __typename code message detail }
    }
  }
}
"""
#: Fields that differ from one run to the next: ids and times.
VARYING = frozenset({"id", "runId", "startedAt", "finishedAt", "traceId"})


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server, max_prompt_chars=PROMPT_LIMIT) as app:
        yield app


@pytest.fixture
async def agent_id(quiver: RuntimeApp, keys: Keys, admin_key: str, model: ScriptedModel) -> str:
    space = await keys.space("alpha")
    agent = await create_agent(quiver.client(admin_key), space.id, model.name, activatedToolIds=["bt_calculator"])
    return str(agent["id"])


@pytest.fixture
def model(openai_server: OpenAIServer) -> ScriptedModel:
    return openai_server.model()


def hot_path_of(quiver: RuntimeApp) -> HotPath:
    hot_path = quiver.app.state.hot_path
    assert isinstance(hot_path, HotPath)
    return hot_path


class Both(BothPaths):
    """Both paths, with the test's admin key."""

    def __init__(self, http: httpx.AsyncClient, key: str, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__(http, monkeypatch)
        self.key = key

    async def post(self, body: Any, key: str | None = None) -> tuple[httpx.Response, httpx.Response]:
        return await super().post(body, key or self.key)


@pytest.fixture
def both(quiver: RuntimeApp, admin_key: str, monkeypatch: pytest.MonkeyPatch) -> Both:
    return Both(quiver.http, admin_key, monkeypatch)


def same_answer(hot: httpx.Response, generic: httpx.Response) -> dict[str, Any]:
    return same_answer_but(hot, generic, VARYING)


def _normalised(value: Any) -> Any:
    return normalised(value, VARYING)


def invocation(query: str, agent_id: Any, message: Any = "What is 6 * 7?", **more: Any) -> dict[str, Any]:
    return {"query": query, "variables": {"input": {"agentId": agent_id, "message": message, **more}}}


async def stored(quiver: RuntimeApp, run_id: str) -> tuple[AgentRunRow, list[ToolCall]]:
    async with quiver.app.state.services.session_factory() as session:
        run = await session.get(AgentRunRow, run_id)
        calls = list((await session.scalars(select(ToolCall).where(ToolCall.run_id == run_id))).all())
    assert run is not None
    return run, calls


class TestSameAnswers:
    @pytest.mark.parametrize("query", [SHORT, FULL], ids=["short", "full-with-aliases"])
    async def test_a_run_with_a_tool_call(
        self, both: Both, quiver: RuntimeApp, model: ScriptedModel, agent_id: str, query: str
    ) -> None:
        for _ in range(2):
            model.push(tool_calls(call("calculator", {"expression": "6 * 7"})), final("42"))

        hot, generic = await both.post(invocation(query, agent_id))

        payload = next(iter(same_answer(hot, generic)["data"].values()))
        assert payload["userErrors"] == []
        assert payload["run"]["status"] == "SUCCEEDED"
        assert payload["run"]["output"] == "42"
        assert payload["run"]["steps"] == 2
        assert hot_path_of(quiver).plan(query, None) is not None
        # Answered only once the run's finish and its call's row were stored.
        for response in (hot, generic):
            run_id = next(iter(response.json()["data"].values()))["run"]["id" if query == SHORT else "runId"]
            run, calls = await stored(quiver, run_id)
            assert run.status == "SUCCEEDED" and run.output == "42" and run.finished_at is not None
            assert [(row.tool_id, row.status) for row in calls] == [("bt_calculator", "SUCCESS")]

    async def test_a_failed_run_is_the_same_error(self, both: Both, model: ScriptedModel, agent_id: str) -> None:
        model.push(http_error(400), http_error(400))

        hot, generic = await both.post(invocation(FULL, agent_id))

        run = same_answer(hot, generic)["data"]["answer"]["run"]
        assert run["status"] == "FAILED"
        assert run["error"]["__typename"] == "ToolError" and run["error"]["code"] == "MODEL_ERROR"

    async def test_an_async_run_is_the_same_running_run(
        self, both: Both, quiver: RuntimeApp, model: ScriptedModel, agent_id: str
    ) -> None:
        model.push(final("later"), final("later"))

        hot, generic = await both.post(invocation(FULL, agent_id, **{"async": True}))

        run = same_answer(hot, generic)["data"]["answer"]["run"]
        assert run["status"] == "RUNNING" and run["finishedAt"] is None
        # The run's row was there before the answer.
        row, _ = await stored(quiver, hot.json()["data"]["answer"]["run"]["runId"])
        assert row.input == "What is 6 * 7?"

    @pytest.mark.parametrize(
        ("more", "code"),
        [
            ({"agentId": "ag_nothing_here"}, "NOT_FOUND"),
            ({"message": "   "}, "INVALID"),
            ({"message": "x" * (PROMPT_LIMIT + 1)}, "TOO_LONG"),
            ({"skillChannel": "RETIRED"}, "INVALID"),
            ({"userProfile": ["not", "an", "object"]}, "INVALID"),
        ],
        ids=["unknown-agent", "empty-message", "text-limit", "bad-channel", "profile-not-an-object"],
    )
    async def test_user_errors_are_the_same(
        self, both: Both, model: ScriptedModel, agent_id: str, more: dict[str, Any], code: str
    ) -> None:
        body = invocation(SHORT, agent_id)
        body["variables"]["input"].update(more)

        hot, generic = await both.post(body)

        payload = same_answer(hot, generic)["data"]["invokeAgent"]
        assert payload["run"] is None
        assert [error["code"] for error in payload["userErrors"]] == [code]
        assert model.requests == []  # no run was started either way

    async def test_a_profile_and_a_session_are_taken_as_they_are(
        self, both: Both, model: ScriptedModel, agent_id: str
    ) -> None:
        model.push(final("hello Ada"), final("hello Ada"))
        body = invocation(FULL, agent_id, userProfile={"name": "Ada", "tags": [1, {"x": None}]}, sessionId="s-1")

        hot, generic = await both.post(body)

        run = same_answer(hot, generic)["data"]["answer"]["run"]
        assert run["sessionId"] == "s-1" and run["output"] == "hello Ada"
        prompts = [request["messages"][0]["content"] for request in model.requests]
        assert len(prompts) == 2 and all("Ada" in prompt for prompt in prompts)

    async def test_a_null_in_a_non_null_field_nulls_the_run_with_the_same_error(
        self, both: Both, model: ScriptedModel, agent_id: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        original = AgentRun.from_row

        def broken(row: Any) -> Any:
            run = original(row)
            run.status = None  # type: ignore[assignment]
            return run

        monkeypatch.setattr(AgentRun, "from_row", staticmethod(broken))
        model.push(final("x"), final("x"))

        hot, generic = await both.post(invocation(FULL, agent_id))

        answers = [response.json() for response in (hot, generic)]
        for answer in answers:
            assert answer["data"]["answer"]["run"] is None
            assert answer["data"]["answer"]["userErrors"] == []
            assert answer["errors"][0]["path"] == ["answer", "run", "status"]
            assert answer["errors"][0]["extensions"]["code"] == "INTERNAL_ERROR"
            answer["errors"][0]["extensions"].pop("traceId")
        assert answers[0] == answers[1]


class TestWhatThePlanDoesNotTake:
    @pytest.mark.parametrize(
        "query",
        [
            "mutation($input: InvokeAgentInput!) { invokeAgent(input: $input) { run { id toolCalls { id } } } }",
            "mutation($input: InvokeAgentInput!) { invokeAgent(input: $input) { run { ...R } } }"
            " fragment R on AgentRun { id }",
            "mutation($input: InvokeAgentInput!) { invokeAgent(input: $input) { run { id agent { id } } } }",
            "mutation($input: InvokeAgentInput) { invokeAgent(input: $input) { run { id } } }",
            "mutation($input: InvokeToolInput!) { invokeAgent(input: $input) { run { id } } }",
        ],
        ids=["resolver-list", "fragment", "resolver-object", "nullable-variable", "wrong-input-type"],
    )
    async def test_no_plan_and_the_generic_answer(
        self, both: Both, quiver: RuntimeApp, model: ScriptedModel, agent_id: str, query: str
    ) -> None:
        model.push(final("one"), final("two"))
        assert hot_path_of(quiver).plan(query, None) is None
        hot, generic = await both.post(invocation(query, agent_id))
        assert hot.status_code == generic.status_code
        assert _normalised(hot.json()) == _normalised(generic.json())

    @pytest.mark.parametrize(
        "value",
        [
            {"agentId": 7, "message": "hi"},
            {"agentId": "ag_x"},
            {"agentId": "ag_x", "message": None},
            {"agentId": "ag_x", "message": "hi", "extra": 1},
            {"agentId": "ag_x", "message": "hi", "async": "yes"},
            {"agentId": "ag_x", "message": "hi", "forceChannel": "CANDIDATE"},
            {"agentId": "ag_x", "message": 5},
            None,
        ],
        ids=["int-id", "no-message", "null-message", "unknown-key", "string-bool", "enum", "int-message", "null"],
    )
    async def test_variables_graphql_would_coerce_or_refuse_take_the_generic_path(
        self, quiver: RuntimeApp, value: Any
    ) -> None:
        hot_path = hot_path_of(quiver)
        plan = hot_path.plan(SHORT, None)
        assert isinstance(plan, Plan)
        assert hot_path.arguments(plan, {"input": value}) is None

    async def test_absent_fields_take_their_defaults(self, quiver: RuntimeApp) -> None:
        hot_path = hot_path_of(quiver)
        plan = hot_path.plan(SHORT, None)
        assert isinstance(plan, Plan)
        value = hot_path.arguments(plan, {"input": {"agentId": "ag_x", "message": "hi", "sessionId": None}})
        assert value is not None
        assert (value.agent_id, value.message, value.session_id, value.run_async) == ("ag_x", "hi", None, False)
        assert (value.user_profile, value.force_channel, value.skill_channel) == (None, None, None)


async def test_a_planned_run_does_not_reach_the_generic_executor(
    quiver: RuntimeApp, admin_key: str, model: ScriptedModel, agent_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from schema.schema import QuiverSchema

    async def generic(*_: Any, **__: Any) -> Any:
        raise AssertionError("the generic path ran")

    monkeypatch.setattr(QuiverSchema, "execute", generic)
    model.push(tool_calls(call("calculator", {"expression": "20 + 22"})), final("42"))

    response = await quiver.http.post(
        "/graphql", json=invocation(SHORT, agent_id), headers={"Authorization": f"Bearer {admin_key}"}
    )

    run = response.json()["data"]["invokeAgent"]["run"]
    assert run["status"] == "SUCCEEDED" and run["output"] == "42"
    row, calls = await stored(quiver, run["id"])
    assert row.status == "SUCCEEDED"
    assert [item.status for item in calls] == ["SUCCESS"]
