"""invokeTool: the envelope, one logged row per call, visibility and roles at execute time,
argument validation, static arguments and the builtin tools."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from app.principal import Role
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import (
    INVOKE_TOOL,
    SessionFactory,
    call_log,
    fresh,
    http_tool,
    invoke,
    problems,
    set_tool_columns,
)
from tests.schema.tools.operations import SET_STATUS, set_bindings
from tests.support.http_tool_server import ToolServer, running_tool_server

TRACE_ID = re.compile(r"^[0-9a-f]{32}$")


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


class TestEnvelope:
    async def test_success_carries_data_trace_id_latency_and_its_logged_row(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, caplog: pytest.LogCaptureFixture
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("envelope")
        tool = await http_tool(gql, tool_server, f"/ok/{key}")

        with caplog.at_level(logging.INFO, logger="quiver.gateway"):
            envelope = await invoke(gql, space.id, tool["id"], {"q": "hello"})

        assert envelope["status"] == "SUCCESS"
        assert envelope["error"] is None
        assert envelope["data"]["received"] == {"q": "hello"}
        assert TRACE_ID.match(envelope["traceId"])
        assert envelope["latencyMs"] > 0
        call = envelope["call"]
        assert call["id"].startswith("tc_")
        assert call == {
            **call,
            "toolId": tool["id"],
            "arguments": {"q": "hello"},
            "status": "SUCCESS",
            "result": envelope["data"],
            "error": None,
            "attempts": 1,
            "traceId": envelope["traceId"],
            "latencyMs": envelope["latencyMs"],
            "idempotencyKey": None,
            "space": {"id": space.id},
            "tool": {"id": tool["id"]},
        }
        # One id finds the call in the table, the log, the client's envelope and the remote service.
        log = await call_log(gql, toolId=tool["id"])
        assert log["totalCount"] == 1
        assert [node["traceId"] for node in log["nodes"]] == [envelope["traceId"]]
        assert [node["id"] for node in log["nodes"]] == [call["id"]]
        assert envelope["data"]["headers"]["x-quiver-trace-id"] == envelope["traceId"]
        traced = [record for record in caplog.records if getattr(record, "trace_id", None) == envelope["traceId"]]
        assert traced and all(getattr(record, "call_id", call["id"]) == call["id"] for record in traced)

    async def test_failure_comes_back_in_the_envelope_and_is_logged_once(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")

        envelope = await invoke(gql, space.id, "bt_calculator", {"expression": 42})

        assert envelope["status"] == "FAILED"
        assert envelope["data"] is None
        assert envelope["error"]["code"] == "PARAM_INVALID"
        assert envelope["error"]["message"]
        assert envelope["call"]["status"] == "FAILED"
        assert envelope["call"]["error"] == envelope["error"]
        assert envelope["call"]["traceId"] == envelope["traceId"]
        log = await call_log(gql, toolId="bt_calculator")
        assert log["totalCount"] == 1
        assert log["nodes"][0]["traceId"] == envelope["traceId"]

    async def test_every_invocation_writes_exactly_one_row(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")

        envelopes = [
            await invoke(gql, space.id, "bt_calculator", {"expression": f"{number} + 1"}) for number in range(4)
        ]
        envelopes.append(await invoke(gql, space.id, "bt_calculator", {}))

        log = await call_log(gql, toolId="bt_calculator")
        assert log["totalCount"] == 5
        assert [node["traceId"] for node in log["nodes"]] == [envelope["traceId"] for envelope in envelopes]
        assert [node["status"] for node in log["nodes"]] == ["SUCCESS"] * 4 + ["FAILED"]
        assert len({envelope["traceId"] for envelope in envelopes}) == 5

    async def test_overlong_identifiers_still_get_an_envelope_and_a_row(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('long')}", sideEffect="WRITE")

        responses = [
            await gql.raw(INVOKE_TOOL, {"input": {"spaceId": space.id, "toolId": "ct_" + "x" * 300, "arguments": {}}}),
            await gql.raw(
                INVOKE_TOOL,
                {"input": {"spaceId": space.id, "toolId": tool["id"], "arguments": {}, "idempotencyKey": "k" * 300}},
            ),
        ]

        bodies = [response.json() for response in responses]
        assert [body.get("errors") for body in bodies] == [None, None]
        refused = bodies[0]["data"]["invokeTool"]
        assert refused["error"]["code"] == "TOOL_NOT_AVAILABLE"
        assert bodies[1]["data"]["invokeTool"]["status"] in ("SUCCESS", "FAILED")
        log = await call_log(gql)
        assert log["totalCount"] == 2
        # Kept within the column's 200 characters, the cut marked with an ellipsis (it was not).
        cut_id = "ct_" + "x" * 196 + "…"
        assert refused["error"]["detail"].startswith(f"{cut_id} does not exist")
        assert {(node["toolId"], node["idempotencyKey"]) for node in log["nodes"]} == {
            (cut_id, None),
            (tool["id"], "k" * 199 + "…"),
        }


class TestVisibilityAtExecuteTime:
    async def test_tool_bound_to_another_space_is_not_available_even_to_an_admin(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        alpha, beta = await keys.space("alpha"), await keys.space("beta")
        key = fresh("bound")
        tool = await http_tool(gql, tool_server, f"/ok/{key}")
        assert (await invoke(gql, beta.id, tool["id"], {}))["status"] == "SUCCESS"

        await set_bindings(gql, tool["id"], [alpha.id])
        refused = await invoke(gql, beta.id, tool["id"], {})

        assert refused["status"] == "FAILED"
        assert refused["error"]["code"] == "TOOL_NOT_AVAILABLE"
        assert (await invoke(gql, alpha.id, tool["id"], {}))["status"] == "SUCCESS"
        # The refused call never reached the endpoint: one call before re-binding, one in alpha.
        assert len(await tool_server.requests("ok", key)) == 2

    async def test_disabled_tool_is_not_available(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("disabled")
        tool = await http_tool(gql, tool_server, f"/ok/{key}")

        disabled = await gql.execute(SET_STATUS, {"input": {"id": tool["id"], "status": "DISABLED"}})
        assert disabled["setStatus"]["userErrors"] == []
        refused = await invoke(gql, space.id, tool["id"], {})
        await gql.execute(SET_STATUS, {"input": {"id": tool["id"], "status": "ACTIVE"}})
        again = await invoke(gql, space.id, tool["id"], {})

        assert refused["error"]["code"] == "TOOL_NOT_AVAILABLE"
        assert again["status"] == "SUCCESS"
        assert len(await tool_server.requests("ok", key)) == 1

    async def test_unknown_tool_is_not_available(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")

        envelope = await invoke(gql, space.id, "ct_does_not_exist", {})

        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "TOOL_NOT_AVAILABLE"

    async def test_space_key_cannot_call_into_another_space_and_nothing_is_logged_there(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        alpha, beta = await keys.space("alpha"), await keys.space("beta")
        key = fresh("cross")
        tool = await http_tool(gql, tool_server, f"/ok/{key}")
        member_of_alpha = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))

        envelope = await invoke(member_of_alpha, beta.id, tool["id"], {"q": "x"})

        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "TOOL_NOT_AVAILABLE"
        assert envelope["call"] is None
        assert (await call_log(gql, spaceId=beta.id))["totalCount"] == 0
        assert (await call_log(gql, toolId=tool["id"]))["totalCount"] == 0
        assert await tool_server.requests("ok", key) == []

    async def test_unknown_space_is_refused_without_a_row(self, gql: GraphQLClient) -> None:
        envelope = await invoke(gql, "sp_does_not_exist", "bt_calculator", {"expression": "1+1"})

        assert envelope["error"]["code"] == "TOOL_NOT_AVAILABLE"
        assert envelope["call"] is None
        assert (await call_log(gql))["totalCount"] == 0

    async def test_viewer_may_not_call_tools(self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer) -> None:
        space = await keys.space("alpha")
        key = fresh("viewer")
        tool = await http_tool(gql, tool_server, f"/ok/{key}")
        viewer = gql.as_key(await keys.for_space(space.id, Role.VIEWER))

        envelope = await invoke(viewer, space.id, tool["id"], {})

        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "PERMISSION_DENIED"
        assert envelope["call"]["status"] == "FAILED"
        assert await tool_server.requests("ok", key) == []

    async def test_role_outside_allowed_roles_is_denied(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("roles")
        tool = await http_tool(gql, tool_server, f"/ok/{key}", allowedRoles=["SPACE_ADMIN"], spaceIds=[space.id])
        member = gql.as_key(await keys.for_space(space.id, Role.MEMBER))
        space_admin = gql.as_key(await keys.for_space(space.id, Role.SPACE_ADMIN))

        denied = await invoke(member, space.id, tool["id"], {})
        allowed = await invoke(space_admin, space.id, tool["id"], {})

        assert denied["error"]["code"] == "PERMISSION_DENIED"
        assert allowed["status"] == "SUCCESS"
        assert len(await tool_server.requests("ok", key)) == 1


NESTED_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "customer": {
            "type": "object",
            "properties": {"age": {"type": "integer"}, "email": {"type": "string"}},
            "required": ["email"],
        },
    },
    "required": ["name"],
}


class TestParamValidation:
    async def test_missing_required_field_names_its_location(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("params")
        tool = await http_tool(gql, tool_server, f"/ok/{key}", inputSchema=NESTED_SCHEMA)

        envelope = await invoke(gql, space.id, tool["id"], {"customer": {"email": "a@example.test"}})

        assert envelope["status"] == "FAILED"
        [problem] = problems(envelope)
        assert problem["path"] in ("/", "/name")
        assert "'name' is a required property" in problem["message"]
        assert "name" in envelope["error"]["message"]
        assert await tool_server.requests("ok", key) == []

    async def test_wrong_type_in_a_nested_object_has_its_json_path(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("params")
        tool = await http_tool(gql, tool_server, f"/ok/{key}", inputSchema=NESTED_SCHEMA)

        envelope = await invoke(
            gql, space.id, tool["id"], {"name": "n", "customer": {"email": "a@example.test", "age": "old"}}
        )

        [problem] = problems(envelope)
        assert problem["path"] == "/customer/age"
        assert "integer" in problem["message"]
        assert "/customer/age" in envelope["error"]["message"]

    async def test_every_problem_is_reported(self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer) -> None:
        space = await keys.space("alpha")
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('params')}", inputSchema=NESTED_SCHEMA)

        envelope = await invoke(gql, space.id, tool["id"], {"customer": {"age": 1.5}})

        found = problems(envelope)
        assert len(found) == 3
        paths = sorted(problem["path"] for problem in found)
        assert "/customer/age" in paths
        messages = " ".join(problem["message"] for problem in found)
        assert "'name' is a required property" in messages
        assert "'email' is a required property" in messages
        assert envelope["call"]["error"]["code"] == "PARAM_INVALID"

    async def test_arguments_must_be_an_object(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")

        envelope = await invoke(gql, space.id, "bt_calculator", ["1 + 1"])

        assert envelope["error"]["code"] == "PARAM_INVALID"
        assert envelope["call"]["status"] == "FAILED"


STATIC_SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string"}, "channel": {"type": "string", "enum": ["ops"]}},
    "required": ["text", "channel"],
}


class TestStaticArguments:
    async def test_caller_cannot_override_a_static_argument(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, session_factory: SessionFactory
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("static")
        tool = await http_tool(gql, tool_server, f"/ok/{key}", inputSchema=STATIC_SCHEMA)
        await set_tool_columns(session_factory, tool["id"], static_arguments={"channel": "ops"})

        overridden = await invoke(gql, space.id, tool["id"], {"text": "hi", "channel": "other"})
        omitted = await invoke(gql, space.id, tool["id"], {"text": "hello"})

        assert overridden["status"] == "SUCCESS", overridden["error"]
        assert omitted["status"] == "SUCCESS", omitted["error"]
        received = [entry["body"] for entry in await tool_server.requests("ok", key)]
        assert received == [{"text": "hi", "channel": "ops"}, {"text": "hello", "channel": "ops"}]

    async def test_logged_arguments_leave_out_static_keys(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, session_factory: SessionFactory
    ) -> None:
        space = await keys.space("alpha")
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('static')}", inputSchema=STATIC_SCHEMA)
        await set_tool_columns(session_factory, tool["id"], static_arguments={"channel": "ops"})

        envelope = await invoke(gql, space.id, tool["id"], {"text": "hi", "channel": "other"})

        assert envelope["call"]["arguments"] == {"text": "hi"}
        [logged] = (await call_log(gql, toolId=tool["id"]))["nodes"]
        assert logged["arguments"] == {"text": "hi"}

    async def test_secret_looking_arguments_are_redacted_in_the_log_but_sent(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("redact")
        tool = await http_tool(gql, tool_server, f"/ok/{key}")

        envelope = await invoke(gql, space.id, tool["id"], {"q": "x", "password": "hunter2", "apiKey": "k-123"})

        assert envelope["call"]["arguments"] == {"q": "x", "password": "[redacted]", "apiKey": "[redacted]"}
        [received] = await tool_server.requests("ok", key)
        assert received["body"] == {"q": "x", "password": "hunter2", "apiKey": "k-123"}


class TestBuiltins:
    async def test_current_time_in_a_zone(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")

        envelope = await invoke(gql, space.id, "bt_current_time", {"timezone": "Asia/Tokyo"})

        assert envelope["status"] == "SUCCESS", envelope["error"]
        data = envelope["data"]
        assert data["timezone"] == "Asia/Tokyo"
        assert data["utcOffset"] == "+0900"
        moment = datetime.fromisoformat(data["iso"])
        assert moment.utcoffset() == timedelta(hours=9)
        assert abs(moment - datetime.now(UTC)) < timedelta(seconds=30)
        assert data["weekday"] == moment.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%A")

    async def test_current_time_defaults_to_utc(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")

        envelope = await invoke(gql, space.id, "bt_current_time", {})

        assert envelope["data"]["timezone"] == "UTC"
        assert datetime.fromisoformat(envelope["data"]["iso"]).utcoffset() == timedelta(0)

    @pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "../../etc/passwd"])
    async def test_unknown_zone_is_param_invalid(self, gql: GraphQLClient, keys: Keys, zone: str) -> None:
        space = await keys.space("alpha")

        envelope = await invoke(gql, space.id, "bt_current_time", {"timezone": zone})

        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "PARAM_INVALID"

    @pytest.mark.parametrize(
        ("expression", "result"),
        [("(1250 * 1.2) / 3", 500.0), ("2 ** 10 - 24", 1000), ("7 // 2 + 7 % 2", 4), ("sqrt(16) + abs(-1)", 5.0)],
    )
    async def test_calculator_arithmetic(self, gql: GraphQLClient, keys: Keys, expression: str, result: float) -> None:
        space = await keys.space("alpha")

        envelope = await invoke(gql, space.id, "bt_calculator", {"expression": expression})

        assert envelope["status"] == "SUCCESS", envelope["error"]
        assert envelope["data"] == {"expression": expression, "result": result}

    @pytest.mark.parametrize(
        "expression",
        [
            "9 ** 9 ** 9",
            "10 ** 100000",
            "__import__('os')",
            "__import__('os').system('true')",
            "().__class__.__bases__",
            "open('/etc/passwd')",
            "1 / 0",
        ],
    )
    async def test_calculator_refuses(self, gql: GraphQLClient, keys: Keys, expression: str) -> None:
        space = await keys.space("alpha")

        envelope = await invoke(gql, space.id, "bt_calculator", {"expression": expression})

        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "PARAM_INVALID"

    async def test_calculator_refuses_expressions_over_500_characters(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")
        expression = "+".join(["1"] * 251)  # 501 characters
        assert len(expression) == 501

        envelope = await invoke(gql, space.id, "bt_calculator", {"expression": expression})

        [problem] = problems(envelope)
        assert problem["path"] == "/expression"
        assert envelope["call"]["attempts"] == 0
