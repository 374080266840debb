"""invokeAgent beyond the loop: async runs, idempotency keys, sessions, the run record."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from app.config import Settings
from app.principal import Role
from tests.conftest import GraphQLClient, Keys
from tests.schema.runtime import (
    AGENT_RUNS,
    RuntimeApp,
    create_agent,
    create_skill,
    get_run,
    invoke,
    invoke_payload,
    messages_of,
    runtime_app,
    set_status,
    wait_for_run,
)
from tests.schema.skills.operations import PUBLISH
from tests.support.openai_server import OpenAIServer, ScriptedModel, call, final, tool_calls
from tests.support.openai_server import openai_server as openai_server
from tests.support.processes import wait_until

HISTORY_TURNS = 2


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server, history_turns=HISTORY_TURNS) as app:
        yield app


@dataclass
class World:
    space_id: str
    gql: GraphQLClient
    model: ScriptedModel
    agent: dict[str, Any]


@pytest.fixture
async def world(quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer) -> World:
    space = await keys.space("alpha")
    gql = quiver.client(admin_key)
    model = openai_server.model()
    agent = await create_agent(gql, space.id, model.name, activatedToolIds=["bt_calculator"])
    return World(space.id, gql, model, agent)


class TestLargeBodies:
    async def test_a_long_run_with_a_large_message_does_not_hold_its_tenants_line(self, world: World) -> None:
        # QUIVER_HEAVY_REQUEST_BYTES: a large body waits for the tenant's earlier ones only while
        # it is read and parsed, not while a synchronous run it started waits on its model.
        gate = threading.Event()
        world.model.push(final("summarised").held_until(gate))
        running = asyncio.ensure_future(invoke(world.gql, world.agent["id"], "Summarise: " + "lorem " * 2_000))
        try:
            await wait_until(lambda: len(world.model.requests) == 1)
            padded = "query Pad($pad: String!) { __type(name: $pad) { name } }"
            answer = await asyncio.wait_for(world.gql.execute(padded, {"pad": "P" * 10_000}), 10)
            assert answer == {"__type": None}
        finally:
            gate.set()
        assert (await running)["output"] == "summarised"


class TestAsyncRuns:
    async def test_async_returns_a_running_run_that_finishes_later(self, world: World) -> None:
        gate = threading.Event()
        world.model.push(
            tool_calls(call("calculator", {"expression": "7 * 6"})).held_until(gate),
            final("42", prompt_tokens=5, completion_tokens=1),
        )

        started = await invoke(world.gql, world.agent["id"], "async please", **{"async": True})

        assert started["status"] == "RUNNING"
        assert started["output"] is None
        assert started["finishedAt"] is None
        assert started["error"] is None
        assert started["input"] == "async please"
        still = await get_run(world.gql, started["id"])
        assert still is not None
        assert still["status"] == "RUNNING"
        gate.set()
        finished = await wait_for_run(world.gql, started["id"])
        assert finished["status"] == "SUCCEEDED"
        assert finished["output"] == "42"
        assert finished["steps"] == 2
        assert [item["toolId"] for item in finished["toolCalls"]] == ["bt_calculator"]

    async def test_an_async_run_that_fails_is_recorded_failed(self, world: World) -> None:
        # Nothing scripted: the endpoint answers 418, which is not retried.
        started = await invoke(world.gql, world.agent["id"], "nobody answers", **{"async": True})

        finished = await wait_for_run(world.gql, started["id"])

        assert finished["status"] == "FAILED"
        assert finished["error"]["code"] == "MODEL_ERROR"

    async def test_runs_are_listed_on_the_agent(self, world: World) -> None:
        world.model.push(final("one"), final("two"))
        first = await invoke(world.gql, world.agent["id"], "first")
        second = await invoke(world.gql, world.agent["id"], "second")

        runs = (await world.gql.execute(AGENT_RUNS, {"id": world.agent["id"]}))["agent"]["runs"]

        assert runs["totalCount"] == 2
        assert [edge["node"]["id"] for edge in runs["edges"]] == [first["id"], second["id"]]
        assert [edge["node"]["output"] for edge in runs["edges"]] == ["one", "two"]

    async def test_a_run_cut_short_by_a_shutdown_is_continued_by_a_live_replica(
        self, world: World, settings: Settings, openai_server: OpenAIServer, admin_key: str
    ) -> None:
        gate = threading.Event()
        world.model.push(final("never delivered").held_until(gate))
        try:
            async with runtime_app(settings, openai_server) as doomed:
                started = await invoke(doomed.client(admin_key), world.agent["id"], "long job", **{"async": True})
                await wait_until(lambda: len(world.model.requests) == 1)
            # The replica is gone: it gave the run up instead of leaving it RUNNING for ever.
            released = await get_run(world.gql, started["id"])
        finally:
            gate.set()
        assert released is not None and released["status"] == "RUNNING" and released["finishedAt"] is None

        # The next sweep of a live replica continues it from its last completed step.
        world.model.push(final("done after the restart"))
        async with runtime_app(settings, openai_server) as survivor:
            await survivor.app.state.services.runtime.sweep()
            after = await wait_for_run(survivor.client(admin_key), started["id"])

        assert after["status"] == "SUCCEEDED", after
        assert after["output"] == "done after the restart"
        assert after["steps"] == 1
        assert len(world.model.requests) == 2
        assert world.model.requests[0]["messages"] == world.model.requests[1]["messages"]


class TestRunReach:
    async def test_a_run_is_invisible_outside_its_space(self, world: World, keys: Keys) -> None:
        world.model.push(final("private"))
        run = await invoke(world.gql, world.agent["id"], "secret")
        beta = await keys.space("beta")
        alpha_member = world.gql.as_key(await keys.for_space(world.space_id, Role.MEMBER))
        beta_member = world.gql.as_key(await keys.for_space(beta.id, Role.MEMBER))

        assert (await get_run(alpha_member, run["id"])) is not None
        assert (await get_run(beta_member, run["id"])) is None

    async def test_a_member_of_another_space_cannot_invoke(self, world: World, keys: Keys) -> None:
        beta = await keys.space("beta")
        beta_member = world.gql.as_key(await keys.for_space(beta.id, Role.MEMBER))

        payload = await invoke_payload(beta_member, world.agent["id"], "let me in")

        assert payload["run"] is None
        assert [error["code"] for error in payload["userErrors"]] == ["NOT_FOUND"]
        assert world.model.requests == []

    async def test_a_read_only_key_cannot_invoke(self, world: World, keys: Keys) -> None:
        viewer = world.gql.as_key(await keys.for_space(world.space_id, Role.VIEWER))

        payload = await invoke_payload(viewer, world.agent["id"], "read only")

        assert payload["run"] is None
        assert len(payload["userErrors"]) == 1
        assert world.model.requests == []


class TestIdempotencyKey:
    async def test_same_key_and_input_return_the_first_run_without_calling_the_model(self, world: World) -> None:
        world.model.push(final("only once"))

        first = await invoke(world.gql, world.agent["id"], "charge the card", idempotencyKey="order-17")
        again = await invoke(world.gql, world.agent["id"], "charge the card", idempotencyKey="order-17")

        assert again["id"] == first["id"]
        assert again["output"] == "only once"
        assert len(world.model.requests) == 1
        assert world.model.unscripted == 0

    async def test_same_key_with_other_input_is_a_conflict(self, world: World) -> None:
        world.model.push(final("first"))
        await invoke(world.gql, world.agent["id"], "charge 10", idempotencyKey="order-18")

        payload = await invoke_payload(world.gql, world.agent["id"], "charge 20", idempotencyKey="order-18")

        assert payload["run"] is None
        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [
            ("IDEMPOTENCY_CONFLICT", ["input", "idempotencyKey"])
        ]
        assert len(world.model.requests) == 1

    async def test_a_repeat_while_running_returns_the_running_run(self, world: World) -> None:
        gate = threading.Event()
        world.model.push(final("slow answer").held_until(gate))

        first = await invoke(world.gql, world.agent["id"], "slow", idempotencyKey="order-19", **{"async": True})
        again = await invoke(world.gql, world.agent["id"], "slow", idempotencyKey="order-19", **{"async": True})
        gate.set()
        finished = await wait_for_run(world.gql, first["id"])

        assert again["id"] == first["id"]
        assert finished["output"] == "slow answer"
        assert len(world.model.requests) == 1

    async def test_same_key_with_another_profile_is_a_conflict(self, world: World) -> None:
        world.model.push(final("for Ada"))
        await invoke(world.gql, world.agent["id"], "greet", idempotencyKey="greet-1", userProfile={"name": "Ada"})

        payload = await invoke_payload(
            world.gql, world.agent["id"], "greet", idempotencyKey="greet-1", userProfile={"name": "Bob"}
        )

        assert [error["code"] for error in payload["userErrors"]] == ["IDEMPOTENCY_CONFLICT"]
        assert len(world.model.requests) == 1

    async def test_keys_belong_to_one_agent(self, world: World) -> None:
        other = await create_agent(world.gql, world.space_id, world.model.name, name="Other")
        world.model.push(final("mine"), final("theirs"))

        mine = await invoke(world.gql, world.agent["id"], "same text", idempotencyKey="shared-key")
        theirs = await invoke(world.gql, other["id"], "same text", idempotencyKey="shared-key")

        assert mine["id"] != theirs["id"]
        assert (mine["output"], theirs["output"]) == ("mine", "theirs")

    async def test_concurrent_duplicates_make_one_run(self, world: World) -> None:
        world.model.push(final("once", delay_s=0.2))

        runs = await asyncio.gather(
            *(invoke(world.gql, world.agent["id"], "race", idempotencyKey="order-20") for _ in range(5))
        )

        assert len({run["id"] for run in runs}) == 1
        await wait_for_run(world.gql, runs[0]["id"])
        assert len(world.model.requests) == 1


def conversation(request: dict[str, Any]) -> list[tuple[str, str]]:
    """The (role, content) pairs a model request carries, the system prompt left out."""
    return [(message["role"], message["content"]) for message in messages_of(request) if message["role"] != "system"]


class TestSessions:
    async def test_a_session_carries_final_turns_but_not_tool_messages(self, world: World) -> None:
        world.model.push(
            tool_calls(call("calculator", {"expression": "19 * 3"})),
            final("57"),
            final("You asked about 19 * 3."),
        )

        await invoke(world.gql, world.agent["id"], "What is 19 * 3?", sessionId="s-1")
        second = await invoke(world.gql, world.agent["id"], "What did I ask?", sessionId="s-1")

        assert second["sessionId"] == "s-1"
        request = world.model.requests[2]
        # (The order of the turns is test_only_the_last_turns_are_sent_in_order's concern.)
        assert sorted(conversation(request)[:-1]) == [("assistant", "57"), ("user", "What is 19 * 3?")]
        assert conversation(request)[-1] == ("user", "What did I ask?")
        assert all("tool_calls" not in message for message in messages_of(request))

    async def test_only_the_last_turns_are_sent_in_order(self, world: World) -> None:
        turns = 9
        world.model.push(*(final(f"answer {number}") for number in range(1, turns + 1)))

        for number in range(1, turns + 1):
            await invoke(world.gql, world.agent["id"], f"question {number}", sessionId="s-long")

        last = world.model.requests[-1]
        kept = list(range(turns - HISTORY_TURNS, turns))
        expected: list[tuple[str, str]] = []
        for number in kept:
            expected += [("user", f"question {number}"), ("assistant", f"answer {number}")]
        assert conversation(last) == [*expected, ("user", f"question {turns}")]
        # Every request along the way had its turns in conversation order.
        for index, request in enumerate(world.model.requests):
            pairs = conversation(request)[:-1]
            first_kept = max(1, index + 1 - HISTORY_TURNS)
            assert pairs == [
                item
                for number in range(first_kept, index + 1)
                for item in (("user", f"question {number}"), ("assistant", f"answer {number}"))
            ], (index, pairs)

    async def test_sessions_and_agents_do_not_share_history(self, world: World) -> None:
        other = await create_agent(world.gql, world.space_id, world.model.name, name="Other")
        world.model.push(final("a1"), final("b1"), final("c1"), final("d1"))

        await invoke(world.gql, world.agent["id"], "in session a", sessionId="a")
        await invoke(world.gql, world.agent["id"], "in session b", sessionId="b")
        await invoke(world.gql, other["id"], "other agent, session a", sessionId="a")
        await invoke(world.gql, world.agent["id"], "no session")

        requests = world.model.requests
        assert conversation(requests[1]) == [("user", "in session b")]
        assert conversation(requests[2]) == [("user", "other agent, session a")]
        assert conversation(requests[3]) == [("user", "no session")]

    async def test_a_failed_run_adds_nothing_to_the_session(self, world: World) -> None:
        world.model.push(final("kept"))
        await invoke(world.gql, world.agent["id"], "first", sessionId="s-fail")
        failed = await invoke(world.gql, world.agent["id"], "this one fails", sessionId="s-fail")
        assert failed["status"] == "FAILED"
        world.model.push(final("third"))

        await invoke(world.gql, world.agent["id"], "third", sessionId="s-fail")

        last = conversation(world.model.requests[-1])
        assert sorted(last[:-1]) == [("assistant", "kept"), ("user", "first")]
        assert last[-1] == ("user", "third")


class TestForcedChannel:
    @pytest.mark.parametrize(
        "fields", [{"forceChannel": "CANDIDATE"}, {"skillChannel": "CANDIDATE"}], ids=["enum", "deprecated-string"]
    )
    async def test_a_run_can_be_served_the_candidate(self, world: World, fields: dict[str, Any]) -> None:
        skill = await create_skill(world.gql, "house-style", "# House style\n\nShort sentences.", world.space_id)
        published = await world.gql.execute(
            PUBLISH,
            {"input": {"skillId": skill["id"], "prompt": "# House style\n\nTiny sentences.", "canaryPercent": 0}},
        )
        assert published["publishSkillVersion"]["userErrors"] == []
        agent = await create_agent(world.gql, world.space_id, world.model.name, boundSkillIds=[skill["id"]], name="B")
        world.model.push(final("production"), final("candidate"))

        served = await invoke(world.gql, agent["id"], "write")
        forced = await invoke(world.gql, agent["id"], "write", **fields)

        assert [item["channel"] for item in served["skillVersions"]] == ["PRODUCTION"]
        assert [item["channel"] for item in forced["skillVersions"]] == ["CANDIDATE"]
        assert "Tiny sentences." in messages_of(world.model.requests[1])[0]["content"]


class TestRunRecord:
    async def test_a_run_records_the_skill_versions_it_injected(self, world: World) -> None:
        house = await create_skill(world.gql, "house-style", "# House style\n\nShort sentences.", world.space_id)
        retired = await create_skill(world.gql, "old-style", "# Old style\n\nLong sentences.", world.space_id)
        agent = await create_agent(
            world.gql, world.space_id, world.model.name, boundSkillIds=[house["id"], retired["id"]], name="Styled"
        )
        await set_status(world.gql, retired["id"], "DISABLED")
        world.model.push(final("styled"))

        run = await invoke(world.gql, agent["id"], "write")

        assert run["status"] == "SUCCEEDED"
        assert [(item["skillId"], item["version"]) for item in run["skillVersions"]] == [
            (house["id"], house["version"])
        ]
        assert run["skillVersions"][0]["channel"] == "PRODUCTION"
        assert any(retired["id"] in warning for warning in run["promptWarnings"])
        system = messages_of(world.model.requests[0])[0]["content"]
        assert "Short sentences." in system
        assert "Long sentences." not in system

    async def test_the_user_profile_is_the_last_section_of_the_system_prompt(self, world: World) -> None:
        world.model.push(final("Hello Ada"))

        await invoke(world.gql, world.agent["id"], "hello", userProfile={"name": "Ada", "plan": "gold"})

        system = messages_of(world.model.requests[0])[0]["content"]
        assert system.startswith(world.agent["systemPrompt"])
        profile = system[system.index("User profile:") :]
        assert '"name": "Ada"' in profile
        assert '"plan": "gold"' in profile

    @pytest.mark.parametrize(
        ("fields", "field"),
        [
            ({"userProfile": ["not", "an", "object"]}, ["input", "userProfile"]),
            ({"skillChannel": "BETA"}, ["input", "skillChannel"]),
            ({"forceChannel": "RETIRED"}, ["input", "forceChannel"]),
            ({"forceChannel": "CANDIDATE", "skillChannel": "PRODUCTION"}, ["input", "forceChannel"]),
        ],
        ids=["profile-not-object", "unknown-channel", "retired-channel", "channels-disagree"],
    )
    async def test_invalid_options_are_user_errors(
        self, world: World, fields: dict[str, Any], field: list[str]
    ) -> None:
        payload = await invoke_payload(world.gql, world.agent["id"], "hello", **fields)

        assert payload["run"] is None
        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [("INVALID", field)]
        assert world.model.requests == []

    async def test_delegation_depth_of_a_caller_run_is_zero(self, world: World) -> None:
        world.model.push(final("top"))

        run = await invoke(world.gql, world.agent["id"], "top level")

        assert run["delegationDepth"] == 0
        assert run["agent"] == {"id": world.agent["id"]}
