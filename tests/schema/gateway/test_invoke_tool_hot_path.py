"""invokeTool's hot path (schema/gateway/hot_path.py): a known document is answered from its
compiled plan with the same status, headers and JSON as the generic GraphQL path — success,
failure envelopes, refusals, a resolver's exception — one call-log row per call; every
document or request it does not plan for takes the generic path and gets the generic answer."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.gateway.models import ToolCall
from app.gateway.service import ToolGateway
from app.principal import Role
from app.spaces.models import SYSTEM_SPACE_ID
from schema.gateway.hot_path import HotPath, Plan
from tests.conftest import Keys
from tests.support.hot_path import BothPaths, normalised
from tests.support.hot_path import same_answer as same_answer_but

CALCULATOR = "bt_calculator"
SHORT = "mutation($input: InvokeToolInput!) { invokeTool(input: $input) { status data error { code } traceId } }"
WITH_INPUT = "mutation($input: InvokeToolInput!) "
FULL = """
mutation Call($input: InvokeToolInput!) {
  result: invokeTool(input: $input) {
    __typename kind: status data error { __typename code message detail } traceId latencyMs
  }
}
"""


def hot_path_of(app: Any) -> HotPath:
    hot_path = app.state.hot_path
    assert isinstance(hot_path, HotPath)
    return hot_path


VARYING = ("traceId", "latencyMs", "id")


@pytest.fixture
def both(http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> BothPaths:
    return BothPaths(http, monkeypatch)


def same_answer(hot: httpx.Response, generic: httpx.Response) -> dict[str, Any]:
    return same_answer_but(hot, generic, VARYING)


def _normalised(value: Any) -> Any:
    return normalised(value, VARYING)


def call(query: str, arguments: Any, space_id: str = SYSTEM_SPACE_ID, tool_id: str = CALCULATOR, **more: Any) -> Any:
    return {
        "query": query,
        "variables": {"input": {"spaceId": space_id, "toolId": tool_id, "arguments": arguments, **more}},
    }


async def logged(session_factory: Any, trace_id: str) -> int:
    async with session_factory() as session:
        count = await session.scalar(select(func.count()).select_from(ToolCall).where(ToolCall.trace_id == trace_id))
    return int(count or 0)


class TestSameAnswers:
    @pytest.mark.parametrize("query", [SHORT, FULL], ids=["short", "full-with-aliases"])
    async def test_success(
        self, both: BothPaths, admin_key: str, app_and_services: Any, session_factory: Any, query: str
    ) -> None:
        hot, generic = await both.post(call(query, {"expression": "6 * 7"}), admin_key)

        answer = same_answer(hot, generic)
        envelope = next(iter(answer["data"].values()))
        assert envelope["status" if query == SHORT else "kind"] == "SUCCESS"
        assert hot_path_of(app_and_services).plan(query, None) is not None
        # Each answered call has its one row, under the trace id the caller got.
        for response in (hot, generic):
            trace_id = next(iter(response.json()["data"].values()))["traceId"]
            assert await logged(session_factory, trace_id) == 1

    async def test_a_failed_call_is_the_same_envelope(self, both: BothPaths, admin_key: str) -> None:
        hot, generic = await both.post(call(FULL, {"expression": "1 +"}), admin_key)

        envelope = same_answer(hot, generic)["data"]["result"]
        assert envelope["kind"] == "FAILED" and envelope["error"]["code"]

    async def test_arguments_outside_the_schema_are_the_same_param_invalid(
        self, both: BothPaths, admin_key: str
    ) -> None:
        hot, generic = await both.post(call(FULL, {"nope": 1}), admin_key)

        assert same_answer(hot, generic)["data"]["result"]["error"]["code"] == "PARAM_INVALID"

    async def test_an_unknown_tool_is_the_same_refusal(self, both: BothPaths, admin_key: str) -> None:
        hot, generic = await both.post(call(FULL, {}, tool_id="ct_nothing_here"), admin_key)

        assert same_answer(hot, generic)["data"]["result"]["error"]["code"] == "TOOL_NOT_AVAILABLE"

    @pytest.mark.parametrize("role", [Role.VIEWER, Role.MEMBER], ids=["viewer", "member-of-another-space"])
    async def test_roles_and_spaces_are_checked_the_same(self, both: BothPaths, keys: Keys, role: Role) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        key = await keys.for_space(alpha.id if role is Role.VIEWER else beta.id, role)

        hot, generic = await both.post(call(FULL, {"expression": "1"}, space_id=alpha.id), key)

        refused = same_answer(hot, generic)["data"]["result"]
        assert refused["kind"] == "FAILED"
        assert refused["error"]["code"] in ("PERMISSION_DENIED", "TOOL_NOT_AVAILABLE")

    async def test_an_idempotency_key_replays_the_first_result(
        self, http: httpx.AsyncClient, admin_key: str, session_factory: Any
    ) -> None:
        body = call(SHORT, {"expression": "2 + 2"}, idempotencyKey="hot-path-replay")
        headers = {"Authorization": f"Bearer {admin_key}"}

        first = (await http.post("/graphql", json=body, headers=headers)).json()["data"]["invokeTool"]
        again = (await http.post("/graphql", json=body, headers=headers)).json()["data"]["invokeTool"]

        assert first["status"] == again["status"] == "SUCCESS"
        assert first["data"] == again["data"]

    @pytest.mark.parametrize(
        ("error", "code"),
        [(RuntimeError("database on fire: secret-ish detail"), "INTERNAL_ERROR"), (None, "BAD_REQUEST")],
        ids=["unexpected", "client-error"],
    )
    async def test_a_resolver_exception_is_logged_and_masked_the_same(
        self,
        both: BothPaths,
        admin_key: str,
        monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture,
        error: Exception | None,
        code: str,
    ) -> None:
        from schema.errors import ClientError

        raised = error if error is not None else ClientError("not like that")

        async def broken(*_: Any, **__: Any) -> Any:
            raise raised

        monkeypatch.setattr(ToolGateway, "execute", broken)
        with caplog.at_level("INFO", logger="quiver.graphql"):
            hot, generic = await both.post(call(FULL, {"expression": "1"}), admin_key)

        assert hot.status_code == generic.status_code == 200
        answers = [response.json() for response in (hot, generic)]
        for answer in answers:
            assert answer["data"] is None
            assert answer["errors"][0]["extensions"]["code"] == code
            assert answer["errors"][0]["path"] == ["result"]
            assert "secret-ish" not in json.dumps(answer)
        # Equal but for the masked error's own trace id.
        for answer in answers:
            answer["errors"][0]["extensions"].pop("traceId", None)
        assert answers[0] == answers[1]
        if error is not None:
            logged_ids = [record for record in caplog.records if "unexpected error" in record.getMessage()]
            assert len(logged_ids) == 2  # once per request, both ways


class TestWhatThePlanDoesNotTake:
    @pytest.mark.parametrize(
        "query",
        [
            "mutation($input: InvokeToolInput!) { invokeTool(input: $input) { status call { id } } }",
            WITH_INPUT + "{ invokeTool(input: $input) { ...E } } fragment E on ToolResult { status }",
            "mutation($input: InvokeToolInput!) { invokeTool(input: $input) { status @include(if: true) } }",
            WITH_INPUT + "{ a: invokeTool(input: $input) { status } b: invokeTool(input: $input) { status } }",
            "mutation($input: InvokeToolInput) { invokeTool(input: $input) { status } }",
            "mutation($input: InvokeToolInput!) { invokeTool(input: $input) { status nope } }",
            "query { invokeTool { status } }",
            "mutation($input: InvokeToolInput!) { invokeTool(input: $input) { status traceId traceId } }",
        ],
        ids=["resolver-field", "fragment", "directive", "two-roots", "nullable-variable", "invalid", "query", "merged"],
    )
    async def test_no_plan_and_the_generic_answer(
        self, both: BothPaths, admin_key: str, app_and_services: Any, query: str
    ) -> None:
        assert hot_path_of(app_and_services).plan(query, None) is None
        hot, generic = await both.post(call(query, {"expression": "1"}), admin_key)
        assert hot.status_code == generic.status_code
        assert _normalised(hot.json()) == _normalised(generic.json())

    @pytest.mark.parametrize(
        "variables",
        [
            {"input": {"spaceId": 1, "toolId": CALCULATOR, "arguments": {}}},
            {"input": {"spaceId": SYSTEM_SPACE_ID, "toolId": CALCULATOR}},
            {"input": {"spaceId": SYSTEM_SPACE_ID, "toolId": CALCULATOR, "arguments": None}},
            {"input": {"spaceId": SYSTEM_SPACE_ID, "toolId": CALCULATOR, "arguments": {}, "extra": 1}},
            {"input": {"spaceId": SYSTEM_SPACE_ID, "toolId": CALCULATOR, "arguments": {}, "idempotencyKey": 5}},
            {"input": None},
            {},
            None,
        ],
        ids=["int-id", "no-arguments", "null-arguments", "unknown-key", "int-key", "null-input", "no-input", "none"],
    )
    async def test_variables_graphql_would_coerce_or_refuse_take_the_generic_path(
        self, both: BothPaths, admin_key: str, app_and_services: Any, variables: Any
    ) -> None:
        hot_path = hot_path_of(app_and_services)
        plan = hot_path.plan(SHORT, None)
        assert isinstance(plan, Plan)
        assert hot_path.arguments(plan, variables) is None
        hot, generic = await both.post({"query": SHORT, "variables": variables}, admin_key)
        assert hot.status_code == generic.status_code
        assert _normalised(hot.json()) == _normalised(generic.json())

    async def test_an_operation_name_that_does_not_match_is_the_generic_error(
        self, both: BothPaths, admin_key: str
    ) -> None:
        body = {**call(FULL, {"expression": "1"}), "operationName": "Other"}
        hot, generic = await both.post(body, admin_key)
        assert hot.json() == generic.json()
        assert hot.json()["errors"]

    async def test_over_the_cost_limit_no_plan(self, app_and_services: Any) -> None:
        schema = hot_path_of(app_and_services).schema
        stingy = HotPath(schema, validation_rules=(), max_tokens=15_000, max_cost=1)
        generous = HotPath(schema, validation_rules=(), max_tokens=15_000, max_cost=1_000)
        assert stingy.plan(SHORT, None) is None
        assert generous.plan(SHORT, None) is not None

    async def test_over_the_token_limit_no_plan(self, app_and_services: Any) -> None:
        schema = hot_path_of(app_and_services).schema
        assert HotPath(schema, validation_rules=(), max_tokens=10, max_cost=1_000).plan(SHORT, None) is None

    async def test_not_plain_json_takes_the_generic_path(self, http: httpx.AsyncClient, admin_key: str) -> None:
        headers = {"Authorization": f"Bearer {admin_key}", "Content-Type": "application/json"}
        response = await http.post("/graphql", content=b'{"query": ' + json.dumps(SHORT).encode(), headers=headers)
        assert response.status_code == 400
        assert response.json()["errors"]


async def test_a_planned_call_does_not_reach_the_generic_executor(
    http: httpx.AsyncClient, admin_key: str, monkeypatch: pytest.MonkeyPatch, session_factory: Any
) -> None:
    from schema.schema import QuiverSchema

    async def generic(*_: Any, **__: Any) -> Any:
        raise AssertionError("the generic path ran")

    monkeypatch.setattr(QuiverSchema, "execute", generic)
    response = await http.post(
        "/graphql", json=call(SHORT, {"expression": "20 + 22"}), headers={"Authorization": f"Bearer {admin_key}"}
    )

    envelope = response.json()["data"]["invokeTool"]
    assert envelope["status"] == "SUCCESS"
    assert await logged(session_factory, envelope["traceId"]) == 1
