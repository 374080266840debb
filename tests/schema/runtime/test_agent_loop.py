"""The agent loop through invokeAgent: model → tool calls through the gateway → tool
messages → final answer, against a real scripted OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest

from app.config import Settings
from app.runtime.functions import FUNCTION_NAME
from tests.app.tools.factories import custom_tool_row, insert_rows
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import fresh, http_tool, set_tool_columns
from tests.schema.runtime import (
    PREVIEW_PROMPT,
    RuntimeApp,
    calls_of_run,
    create_agent,
    function_names,
    invoke,
    invoke_payload,
    messages_of,
    roles,
    runtime_app,
    set_status,
    tool_messages,
)
from tests.support.http_tool_server import ToolServer, running_tool_server
from tests.support.openai_server import (
    API_KEY,
    OpenAIServer,
    ScriptedModel,
    call,
    final,
    http_error,
    invalid_json,
    no_choices,
    tool_calls,
)
from tests.support.openai_server import openai_server as openai_server

CITY_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server) as app:
        yield app


@dataclass
class World:
    space_id: str
    gql: GraphQLClient
    model: ScriptedModel
    weather: dict[str, Any]
    weather_key: str
    agent: dict[str, Any]


@pytest.fixture
async def world(
    quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer, tool_server: ToolServer
) -> World:
    """A space, a CUSTOM weather tool on the tool server, and an agent with it, the calculator and the clock."""
    space = await keys.space("alpha")
    gql = quiver.client(admin_key)
    weather_key = fresh("weather")
    weather = await http_tool(gql, tool_server, f"/ok/{weather_key}", name="weather", inputSchema=CITY_SCHEMA)
    model = openai_server.model()
    agent = await create_agent(
        gql,
        space.id,
        model.name,
        maxSteps=5,
        activatedToolIds=["bt_calculator", "bt_current_time", weather["id"]],
    )
    return World(space.id, gql, model, weather, weather_key, agent)


class TestToolLoop:
    async def test_tool_results_go_back_to_the_model_until_the_final_answer(
        self, world: World, tool_server: ToolServer
    ) -> None:
        world.model.push(
            tool_calls(
                call("calculator", {"expression": "6 * 7"}, call_id="call_calc"),
                prompt_tokens=100,
                completion_tokens=10,
            ),
            tool_calls(
                call("weather", {"city": "Paris"}, call_id="call_weather"), prompt_tokens=120, completion_tokens=12
            ),
            final("It is 42 and sunny in Paris.", prompt_tokens=150, completion_tokens=15),
        )

        run = await invoke(world.gql, world.agent["id"], "What is 6 * 7, and the weather in Paris?")

        assert run["status"] == "SUCCEEDED"
        assert run["output"] == "It is 42 and sunny in Paris."
        assert run["error"] is None
        assert run["steps"] == 3
        assert run["promptTokens"] == 370
        assert run["completionTokens"] == 37
        assert run["model"] == world.model.name
        assert run["input"] == "What is 6 * 7, and the weather in Paris?"
        assert datetime.fromisoformat(run["finishedAt"]) >= datetime.fromisoformat(run["startedAt"])
        assert [(item["toolId"], item["status"]) for item in run["toolCalls"]] == [
            ("bt_calculator", "SUCCESS"),
            (world.weather["id"], "SUCCESS"),
        ]
        assert world.model.remaining == 0

        first, second, third = world.model.requests
        assert all(request["model"] == world.model.name for request in world.model.requests)
        assert roles(first) == ["system", "user"]
        assert messages_of(first)[1]["content"] == "What is 6 * 7, and the weather in Paris?"
        assert sorted(function_names(first)) == ["calculator", "current_time", "weather"]
        # The model's own turn is echoed back, then the gateway's envelope as the tool message.
        assert roles(second) == ["system", "user", "assistant", "tool"]
        assistant = messages_of(second)[2]
        assert assistant["tool_calls"] == [
            {
                "id": "call_calc",
                "type": "function",
                "function": {"name": "calculator", "arguments": '{"expression": "6 * 7"}'},
            }
        ]
        calculator_envelope = tool_messages(second)["call_calc"]
        assert calculator_envelope["status"] == "SUCCESS"
        assert calculator_envelope["data"] == {"expression": "6 * 7", "result": 42}
        assert calculator_envelope["error"] is None
        assert calculator_envelope["traceId"] == run["toolCalls"][0]["traceId"]
        assert isinstance(calculator_envelope["latencyMs"], float)
        assert roles(third) == ["system", "user", "assistant", "tool", "assistant", "tool"]
        weather_envelope = tool_messages(third)["call_weather"]
        assert weather_envelope["status"] == "SUCCESS"
        assert weather_envelope["data"]["received"] == {"city": "Paris"}
        assert [entry["body"] for entry in await tool_server.requests("ok", world.weather_key)] == [{"city": "Paris"}]

    async def test_chinese_tool_results_reach_the_model_as_text_not_escapes(
        self, world: World, tool_server: ToolServer
    ) -> None:
        # The envelope went to the model as ASCII JSON: 臺北 as \\u81fa\\u5317, six characters
        # (and several tokens) for each one a Chinese-reading model reads as one.
        city = "臺北市信義區 😀「VIP」"
        world.model.push(
            tool_calls(call("weather", {"city": city}, call_id="call_zh")),
            final("臺北今天晴。"),
        )

        run = await invoke(world.gql, world.agent["id"], "臺北天气怎么样？")  # noqa: RUF001

        assert run["status"] == "SUCCEEDED"
        tool_message = next(message for message in messages_of(world.model.requests[1]) if message["role"] == "tool")
        assert f'"city": "{city}"' in tool_message["content"]
        assert "\\u" not in tool_message["content"]
        assert tool_messages(world.model.requests[1])["call_zh"]["data"]["received"] == {"city": city}

    async def test_the_configured_api_key_reaches_the_endpoint(self, world: World) -> None:
        world.model.push(final("hello"))

        await invoke(world.gql, world.agent["id"], "Hi")

        assert world.model.headers == [{"authorization": f"Bearer {API_KEY}"}]

    async def test_an_answer_without_tool_calls_ends_the_run_in_one_step(self, world: World) -> None:
        world.model.push(final("Nothing to compute.", prompt_tokens=9, completion_tokens=3))

        run = await invoke(world.gql, world.agent["id"], "Hello")

        assert (run["status"], run["output"], run["steps"]) == ("SUCCEEDED", "Nothing to compute.", 1)
        assert (run["promptTokens"], run["completionTokens"]) == (9, 3)
        assert run["toolCalls"] == []

    async def test_tool_calls_of_a_run_are_linked_to_it(self, world: World) -> None:
        world.model.push(tool_calls(call("calculator", {"expression": "2 + 2"})), final("4"))

        run = await invoke(world.gql, world.agent["id"], "2 + 2?")

        calls = await calls_of_run(world.gql, run["id"])
        assert [call_["id"] for call_ in calls] == [call_["id"] for call_ in run["toolCalls"]]
        assert calls[0]["run"] == {"id": run["id"], "status": "SUCCEEDED"}
        assert calls[0]["arguments"] == {"expression": "2 + 2"}


class TestParallelToolCalls:
    async def test_every_call_of_a_turn_runs_once_and_answers_its_own_id(self, world: World) -> None:
        world.model.push(
            tool_calls(
                call("calculator", {"expression": "1 + 1"}, call_id="call_a"),
                call("calculator", {"expression": "2 * 5"}, call_id="call_b"),
                call("current_time", {"timezone": "Europe/Paris"}, call_id="call_c"),
                call("weather", {"city": "Oslo"}, call_id="call_d"),
            ),
            final("done"),
        )

        run = await invoke(world.gql, world.agent["id"], "Several things at once")

        assert run["status"] == "SUCCEEDED"
        assert run["steps"] == 2
        calls = await calls_of_run(world.gql, run["id"])
        assert len(calls) == 4
        assert len({item["id"] for item in calls}) == 4
        assert sorted(item["toolId"] for item in calls) == sorted(
            ["bt_calculator", "bt_calculator", "bt_current_time", world.weather["id"]]
        )
        assert sorted(item["id"] for item in run["toolCalls"]) == sorted(item["id"] for item in calls)
        second = world.model.requests[1]
        assert roles(second) == ["system", "user", "assistant", "tool", "tool", "tool", "tool"]
        envelopes = tool_messages(second)
        assert set(envelopes) == {"call_a", "call_b", "call_c", "call_d"}
        assert envelopes["call_a"]["data"]["result"] == 2
        assert envelopes["call_b"]["data"]["result"] == 10
        assert envelopes["call_c"]["data"]["timezone"] == "Europe/Paris"
        assert envelopes["call_d"]["data"]["received"] == {"city": "Oslo"}
        trace_ids = {item["traceId"] for item in calls}
        assert {envelope["traceId"] for envelope in envelopes.values()} == trace_ids

    async def test_calls_of_a_turn_run_concurrently_within_the_bound(
        self,
        settings: Settings,
        openai_server: OpenAIServer,
        tool_server: ToolServer,
        keys: Keys,
        admin_key: str,
    ) -> None:
        async with runtime_app(settings, openai_server, tool_parallelism=2) as bounded:
            gql = bounded.client(admin_key)
            space = await keys.space("alpha")
            slow_key = fresh("slow")
            slow = await http_tool(
                gql,
                tool_server,
                f"/slow/{slow_key}?seconds=1.5",
                name="slow_lookup",
                inputSchema={"type": "object"},
            )
            model = openai_server.model()
            agent = await create_agent(gql, space.id, model.name, activatedToolIds=[slow["id"]])
            model.push(tool_calls(*(call("slow_lookup", {"n": index}) for index in range(4))), final("ok"))

            run = await invoke(gql, agent["id"], "four slow calls")

        assert run["status"] == "SUCCEEDED"
        assert [item["status"] for item in run["toolCalls"]] == ["SUCCESS"] * 4
        # Two at a time, as the tool server saw them: neither all four (unbounded) nor one (sequential).
        assert (await tool_server.state())["max_in_flight"][f"slow/{slow_key}"] == 2


class TestFailingTools:
    async def test_tool_failures_go_back_to_the_model_and_the_run_continues(self, world: World) -> None:
        world.model.push(
            tool_calls(
                call("calculator", {"expression": 5}, call_id="call_bad_args"),
                call("no_such_function", {"x": 1}, call_id="call_unknown"),
                call("calculator", '{"expression": "1 +', call_id="call_bad_json"),
                call("calculator", {"expression": "1 / 0"}, call_id="call_zero"),
            ),
            tool_calls(call("calculator", {"expression": "1 + 1"}, call_id="call_retry")),
            final("Recovered: 2"),
        )

        run = await invoke(world.gql, world.agent["id"], "Try hard")

        assert run["status"] == "SUCCEEDED"
        assert run["output"] == "Recovered: 2"
        assert run["steps"] == 3
        envelopes = tool_messages(world.model.requests[1])
        assert {key: envelope["status"] for key, envelope in envelopes.items()} == {
            "call_bad_args": "FAILED",
            "call_unknown": "FAILED",
            "call_bad_json": "FAILED",
            "call_zero": "FAILED",
        }
        assert envelopes["call_bad_args"]["error"]["code"] == "PARAM_INVALID"
        assert envelopes["call_unknown"]["error"]["code"] == "TOOL_NOT_AVAILABLE"
        assert envelopes["call_bad_json"]["error"]["code"] == "PARAM_INVALID"
        assert envelopes["call_zero"]["error"] == {
            "code": "PARAM_INVALID",
            "message": "Division by zero.",
            "detail": "/expression",
        }
        assert all(envelope["data"] is None and envelope["traceId"] for envelope in envelopes.values())
        assert tool_messages(world.model.requests[2])["call_retry"]["status"] == "SUCCESS"
        # Every attempt is in the call log, the unknown function included.
        calls = await calls_of_run(world.gql, run["id"])
        assert len(calls) == 5
        assert [item["status"] for item in calls].count("FAILED") == 4
        unknown = [item for item in calls if item["error"] and item["error"]["code"] == "TOOL_NOT_AVAILABLE"]
        assert len(unknown) == 1
        assert "no_such_function" in unknown[0]["toolId"]

    async def test_an_unknown_function_is_logged_by_its_name_cut_with_an_ellipsis(self, world: World) -> None:
        """A model's made-up function name: logged as ``unknown:`` and at most 100 characters of it,
        a cut marked "…" (as the MCP endpoint logs a client's); it was logged whole up to the
        column's 200 characters and cut there without a mark."""
        world.model.push(
            tool_calls(
                call("lookup_" + "n" * 5_000, {}, call_id="call_huge"),
                call("l" * 100, {}, call_id="call_edge"),
            ),
            final("ok"),
        )

        run = await invoke(world.gql, world.agent["id"], "made-up names")

        assert run["status"] == "SUCCEEDED"
        assert {key: envelope["error"]["code"] for key, envelope in tool_messages(world.model.requests[1]).items()} == {
            "call_huge": "TOOL_NOT_AVAILABLE",
            "call_edge": "TOOL_NOT_AVAILABLE",
        }
        logged = sorted(item["toolId"] for item in await calls_of_run(world.gql, run["id"]))
        assert logged == sorted(["unknown:lookup_" + "n" * 92 + "…", "unknown:" + "l" * 100])

    async def test_nul_characters_from_the_model_do_not_fail_the_run(self, world: World) -> None:
        """A model's function name, arguments and answer holding U+0000 (or, in arguments, a lone
        surrogate's escape): PostgreSQL text and JSONB cannot store them, and the run ended in an
        INTERNAL_ERROR there (UntranslatableCharacterError in the writer). They become U+FFFD."""
        world.model.push(
            tool_calls(
                call("look\x00up", {"q": "a\x00b", "lone": "\ud800"}, call_id="call_nul"),
                call("add", {"a": 1, "b": 2, "note\x00": "x\x00"}, call_id="call_nul_args"),
            ),
            final("done\x00 here"),
        )

        run = await invoke(world.gql, world.agent["id"], "nul characters")

        assert run["status"] == "SUCCEEDED", run
        assert "done" in run["output"]
        envelopes = tool_messages(world.model.requests[1])
        assert envelopes["call_nul"]["error"]["code"] == "TOOL_NOT_AVAILABLE"
        logged = sorted(item["toolId"] for item in await calls_of_run(world.gql, run["id"]))
        assert "unknown:look\ufffdup" in logged

    async def test_a_tool_outside_the_agent_is_refused_even_when_visible(self, world: World) -> None:
        # bt_search_knowledge is global but not activated on this agent.
        world.model.push(tool_calls(call("search_knowledge", {"query": "x"}, call_id="call_other")), final("ok"))

        run = await invoke(world.gql, world.agent["id"], "search")

        assert run["status"] == "SUCCEEDED"
        envelope = tool_messages(world.model.requests[1])["call_other"]
        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "TOOL_NOT_AVAILABLE"
        assert all(item["toolId"] != "bt_search_knowledge" for item in run["toolCalls"])


class TestMaxSteps:
    async def test_the_loop_stops_at_max_steps(self, world: World) -> None:
        agent = await create_agent(
            world.gql, world.space_id, world.model.name, maxSteps=2, activatedToolIds=["bt_calculator"]
        )
        world.model.push(
            tool_calls(call("calculator", {"expression": "1 + 1"})),
            tool_calls(call("calculator", {"expression": "2 + 2"})),
            final("never sent"),
        )

        run = await invoke(world.gql, agent["id"], "loop forever")

        assert run["status"] == "MAX_STEPS"
        assert run["steps"] == 2
        assert run["output"] is None
        assert len(world.model.requests) == 2
        assert world.model.remaining == 1
        assert run["promptTokens"] == 22


class TestModelFailures:
    async def test_a_5xx_is_retried_once(self, world: World) -> None:
        world.model.push(http_error(500), final("second time lucky"))

        run = await invoke(world.gql, world.agent["id"], "retry me")

        assert run["status"] == "SUCCEEDED"
        assert run["output"] == "second time lucky"
        assert run["steps"] == 1
        first, second = world.model.requests
        assert first == second

    async def test_two_5xx_fail_the_run_with_a_structured_error(self, world: World) -> None:
        world.model.push(http_error(500), http_error(503), final("a third attempt would get this"))

        payload = await invoke_payload(world.gql, world.agent["id"], "fail me")

        assert payload["userErrors"] == []
        run = payload["run"]
        assert run["status"] == "FAILED"
        assert run["output"] is None
        assert run["error"]["code"] == "MODEL_ERROR"
        assert "503" in run["error"]["message"]
        assert run["finishedAt"] is not None
        assert len(world.model.requests) == 2
        assert world.model.remaining == 1

    async def test_a_client_error_is_not_retried(self, world: World) -> None:
        world.model.push(http_error(400), final("not reached"))

        run = await invoke(world.gql, world.agent["id"], "bad request")

        assert run["status"] == "FAILED"
        assert run["error"]["code"] == "MODEL_ERROR"
        assert len(world.model.requests) == 1

    @pytest.mark.parametrize("malformed", [no_choices, invalid_json], ids=["no-choices", "invalid-json"])
    async def test_malformed_output_twice_fails_the_run(self, world: World, malformed: Any) -> None:
        world.model.push(malformed(), malformed())

        run = await invoke(world.gql, world.agent["id"], "garbage")

        assert run["status"] == "FAILED"
        assert run["error"]["code"] == "MODEL_BAD_RESPONSE"
        assert run["error"]["message"]
        assert len(world.model.requests) == 2

    async def test_malformed_output_once_is_retried(self, world: World) -> None:
        world.model.push(no_choices(), final("clean"))

        run = await invoke(world.gql, world.agent["id"], "garbage once")

        assert (run["status"], run["output"]) == ("SUCCEEDED", "clean")

    async def test_a_failure_after_tool_steps_keeps_their_record(self, world: World) -> None:
        world.model.push(
            tool_calls(call("calculator", {"expression": "3 * 3"}), prompt_tokens=40, completion_tokens=4),
            http_error(500),
            http_error(500),
        )

        run = await invoke(world.gql, world.agent["id"], "fail late")

        assert run["status"] == "FAILED"
        assert run["error"]["code"] == "MODEL_ERROR"
        assert run["steps"] == 2
        assert (run["promptTokens"], run["completionTokens"]) == (40, 4)
        assert [item["status"] for item in run["toolCalls"]] == ["SUCCESS"]

    async def test_slowness_beyond_the_timeout_fails_the_run(
        self,
        settings: Settings,
        openai_server: OpenAIServer,
        keys: Keys,
        admin_key: str,
    ) -> None:
        async with runtime_app(settings, openai_server, model_timeout_s=0.3) as impatient:
            gql = impatient.client(admin_key)
            space = await keys.space("alpha")
            model = openai_server.model()
            agent = await create_agent(gql, space.id, model.name)
            model.push(final("too late", delay_s=1.0), final("too late again", delay_s=1.0))

            run = await invoke(gql, agent["id"], "hurry")

            model.push(final("late", delay_s=1.0), final("in time"))
            recovered = await invoke(gql, agent["id"], "hurry once more")

        assert run["status"] == "FAILED"
        assert run["error"]["code"] == "MODEL_TIMEOUT"
        assert run["output"] is None
        elapsed = (datetime.fromisoformat(run["finishedAt"]) - datetime.fromisoformat(run["startedAt"])).total_seconds()
        assert elapsed < 1.5, elapsed
        assert (recovered["status"], recovered["output"]) == ("SUCCEEDED", "in time")
        assert len(model.requests) == 4


class TestModelNotConfigured:
    async def test_invoke_returns_a_user_error_not_a_fault(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")
        agent = await create_agent(gql, space.id, "any-model")

        response = await gql.raw(
            "mutation Invoke($input: InvokeAgentInput!) { invokeAgent(input: $input) "
            "{ run { id } userErrors { field code message } } }",
            {"input": {"agentId": agent["id"], "message": "hello"}},
        )

        assert response.status_code == 200
        body = response.json()
        assert "errors" not in body
        payload = body["data"]["invokeAgent"]
        assert payload["run"] is None
        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [
            ("MODEL_NOT_CONFIGURED", ["input", "agentId"])
        ]
        assert "QUIVER_OPENAI_BASE_URL" in payload["userErrors"][0]["message"]

    async def test_preview_still_works_without_a_model(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")
        agent = await create_agent(gql, space.id, "any-model", systemPrompt="Role text.")

        preview = (await gql.execute(PREVIEW_PROMPT, {"agentId": agent["id"], "message": "hi"}))["previewPrompt"]

        assert preview["systemPrompt"] == "Role text."


class TestInvokeRefusals:
    async def test_an_empty_message_is_refused(self, world: World) -> None:
        payload = await invoke_payload(world.gql, world.agent["id"], "   ")

        assert payload["run"] is None
        assert [error["field"] for error in payload["userErrors"]] == [["input", "message"]]
        assert world.model.requests == []

    async def test_an_unknown_agent_is_not_found(self, world: World) -> None:
        payload = await invoke_payload(world.gql, "ag_missing", "hello")

        assert payload["run"] is None
        assert [error["code"] for error in payload["userErrors"]] == ["NOT_FOUND"]

    async def test_a_disabled_agent_cannot_run(self, world: World) -> None:
        await set_status(world.gql, world.agent["id"], "DISABLED")

        payload = await invoke_payload(world.gql, world.agent["id"], "hello")

        assert payload["run"] is None
        assert [error["code"] for error in payload["userErrors"]] == ["AGENT_NOT_ACTIVE"]
        assert world.model.requests == []


class TestFunctionNames:
    async def test_tools_with_the_same_name_get_distinct_functions_that_reach_each_tool(
        self, world: World, session_factory: Any, tool_server: ToolServer
    ) -> None:
        key = fresh("twin")
        twin = custom_tool_row("calculator", endpoint=tool_server.url(f"/ok/{key}"), description="A second calculator.")
        await insert_rows(session_factory, tools=[twin])
        agent = await create_agent(
            world.gql, world.space_id, world.model.name, activatedToolIds=["bt_calculator", twin["tool_id"]]
        )
        preview = (await world.gql.execute(PREVIEW_PROMPT, {"agentId": agent["id"], "message": "x"}))["previewPrompt"]
        names = function_names(preview["tools"])
        assert len(names) == 2
        assert len(set(names)) == 2
        assert all(FUNCTION_NAME.match(name) for name in names)
        by_description = {tool["function"]["description"]: tool["function"]["name"] for tool in preview["tools"]}
        twin_name = by_description["A second calculator."]
        builtin_name = next(name for name in names if name != twin_name)
        world.model.push(
            tool_calls(
                call(builtin_name, {"expression": "20 + 22"}, call_id="call_builtin"),
                call(twin_name, {"expression": "x"}, call_id="call_twin"),
            ),
            final("both"),
        )

        run = await invoke(world.gql, agent["id"], "two calculators")

        assert sorted(item["toolId"] for item in run["toolCalls"]) == sorted(["bt_calculator", twin["tool_id"]])
        envelopes = tool_messages(world.model.requests[1])
        assert envelopes["call_builtin"]["data"]["result"] == 42
        assert envelopes["call_twin"]["data"]["received"] == {"expression": "x"}
        assert [entry["body"] for entry in await tool_server.requests("ok", key)] == [{"expression": "x"}]
        assert sorted(function_names(world.model.requests[0])) == sorted(names)

    async def test_static_arguments_are_filled_by_the_platform_not_the_model(
        self, world: World, session_factory: Any, tool_server: ToolServer
    ) -> None:
        key = fresh("static")
        schema = {
            "type": "object",
            "properties": {"city": {"type": "string"}, "region": {"type": "string"}},
            "required": ["city", "region"],
        }
        tool = await http_tool(world.gql, tool_server, f"/ok/{key}", name="regional_weather", inputSchema=schema)
        await set_tool_columns(session_factory, tool["id"], static_arguments={"region": "eu-west"})
        agent = await create_agent(world.gql, world.space_id, world.model.name, activatedToolIds=[tool["id"]])
        world.model.push(tool_calls(call("regional_weather", {"city": "Lyon"})), final("ok"))

        run = await invoke(world.gql, agent["id"], "weather in Lyon")

        assert run["status"] == "SUCCEEDED"
        (sent,) = world.model.requests[0]["tools"]
        assert sent["function"]["parameters"] == {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        }
        assert [entry["body"] for entry in await tool_server.requests("ok", key)] == [
            {"city": "Lyon", "region": "eu-west"}
        ]
        assert run["toolCalls"][0]["arguments"] == {"city": "Lyon"}
