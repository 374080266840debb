"""previewPrompt: the builder's order, budget and warnings, and that it is exactly what
a run sends to the model."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from app.config import Settings
from app.principal import Role
from app.runtime.prompt import TRUNCATION_MARK
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import set_tool_columns
from tests.schema.runtime import (
    PREVIEW_PROMPT,
    RuntimeApp,
    create_agent,
    create_skill,
    invoke,
    invoke_payload,
    messages_of,
    runtime_app,
    set_status,
)
from tests.schema.tools.operations import create_tool
from tests.support.openai_server import OpenAIServer, ScriptedModel, final
from tests.support.openai_server import openai_server as openai_server

ROLE = "You are the support agent of Quiver Books. " * 3
TRIAGE = "# Triage\n\nSort every request by urgency first, then by customer tier."
TONE = "# Tone\n\nBe warm, brief and concrete."
OUTPUT_FORMAT = "Answer as a bulleted list of at most five items."


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server) as app:
        yield app


@dataclass
class World:
    space_id: str
    gql: GraphQLClient
    model: ScriptedModel
    triage: dict[str, Any]
    tone: dict[str, Any]


@pytest.fixture
async def world(quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer) -> World:
    space = await keys.space("alpha")
    gql = quiver.client(admin_key)
    triage = await create_skill(gql, "triage", TRIAGE, space.id)
    tone = await create_skill(gql, "tone", TONE, space.id)
    return World(space.id, gql, openai_server.model(), triage, tone)


async def preview(gql: GraphQLClient, agent_id: str, message: str) -> dict[str, Any]:
    result: dict[str, Any] = (await gql.execute(PREVIEW_PROMPT, {"agentId": agent_id, "message": message}))[
        "previewPrompt"
    ]
    return result


async def full_agent(world: World, gql: GraphQLClient | None = None, **fields: Any) -> dict[str, Any]:
    """Role, two skills, an output format and the calculator."""
    values: dict[str, Any] = {
        "systemPrompt": ROLE,
        "boundSkillIds": [world.triage["id"], world.tone["id"]],
        "outputFormat": OUTPUT_FORMAT,
        "activatedToolIds": ["bt_calculator"],
    }
    values.update(fields)
    return await create_agent(gql or world.gql, world.space_id, world.model.name, **values)


class TestPreviewPrompt:
    async def test_sections_come_in_builder_order(self, world: World) -> None:
        agent = await full_agent(world)

        result = await preview(world.gql, agent["id"], "My order is late.")

        assert [section["kind"] for section in result["sections"]] == ["ROLE", "SKILL", "SKILL", "OUTPUT_FORMAT"]
        assert [section["text"] for section in result["sections"]] == [ROLE.strip(), TRIAGE, TONE, OUTPUT_FORMAT]
        assert [section["source"] for section in result["sections"]][1:3] == [
            f"{world.triage['id']}@{world.triage['version']}",
            f"{world.tone['id']}@{world.tone['version']}",
        ]
        assert not any(section["truncated"] for section in result["sections"])
        assert result["systemPrompt"] == "\n\n".join([ROLE.strip(), TRIAGE, TONE, OUTPUT_FORMAT])
        assert result["warnings"] == []

    async def test_function_definitions_come_from_the_tools(self, world: World) -> None:
        agent = await full_agent(world)

        result = await preview(world.gql, agent["id"], "x")

        (calculator,) = result["tools"]
        assert calculator["type"] == "function"
        assert calculator["function"]["name"] == "calculator"
        assert calculator["function"]["description"].startswith("Evaluate an arithmetic expression")
        assert calculator["function"]["parameters"]["required"] == ["expression"]
        assert set(calculator["function"]["parameters"]["properties"]) == {"expression"}

    async def test_static_arguments_are_removed_from_the_schema(self, world: World, session_factory: Any) -> None:
        tool = await create_tool(
            world.gql,
            "crm_lookup",
            inputSchema={
                "type": "object",
                "properties": {
                    "customer": {"type": "string"},
                    "tenant": {"type": "string"},
                    "apiVersion": {"type": "string"},
                },
                "required": ["customer", "tenant"],
            },
        )
        await set_tool_columns(session_factory, tool["id"], static_arguments={"tenant": "acme", "apiVersion": "v2"})
        agent = await create_agent(world.gql, world.space_id, world.model.name, activatedToolIds=[tool["id"]])

        result = await preview(world.gql, agent["id"], "x")

        (function,) = result["tools"]
        assert function["function"]["name"] == "crm_lookup"
        assert function["function"]["parameters"] == {
            "type": "object",
            "properties": {"customer": {"type": "string"}},
            "required": ["customer"],
        }

    async def test_a_disabled_tool_is_not_offered(self, world: World) -> None:
        tool = await create_tool(world.gql, "crm_lookup")
        agent = await full_agent(world, activatedToolIds=["bt_calculator", tool["id"]])
        before = await preview(world.gql, agent["id"], "x")
        await set_status(world.gql, tool["id"], "DISABLED")

        after = await preview(world.gql, agent["id"], "x")

        assert sorted(item["function"]["name"] for item in before["tools"]) == ["calculator", "crm_lookup"]
        assert [item["function"]["name"] for item in after["tools"]] == ["calculator"]

    async def test_it_is_exactly_what_the_model_receives(self, world: World) -> None:
        agent = await full_agent(world)
        result = await preview(world.gql, agent["id"], "Where is my parcel?")
        world.model.push(final("On its way."))

        run = await invoke(world.gql, agent["id"], "Where is my parcel?")

        assert run["status"] == "SUCCEEDED"
        (request,) = world.model.requests
        system, user = messages_of(request)
        assert system == {"role": "system", "content": result["systemPrompt"]}
        assert user == {"role": "user", "content": "Where is my parcel?"}
        assert request["tools"] == result["tools"]
        assert [(item["skillId"], item["version"]) for item in run["skillVersions"]] == [
            (world.triage["id"], world.triage["version"]),
            (world.tone["id"], world.tone["version"]),
        ]
        assert run["promptWarnings"] == result["warnings"] == []

    async def test_an_agent_without_tools_sends_no_tools(self, world: World) -> None:
        agent = await create_agent(world.gql, world.space_id, world.model.name, systemPrompt="Just talk.")
        result = await preview(world.gql, agent["id"], "hi")
        world.model.push(final("hello"))

        await invoke(world.gql, agent["id"], "hi")

        assert result["tools"] == []
        assert "tools" not in world.model.requests[0]
        assert [section["kind"] for section in result["sections"]] == ["ROLE"]

    async def test_the_token_estimate_counts_four_ascii_characters_or_one_cjk_character_per_token(
        self, world: World
    ) -> None:
        agent = await full_agent(world)

        base = await preview(world.gql, agent["id"], "abcd")
        longer = (await preview(world.gql, agent["id"], "abcd" + "x" * 400))["tokenEstimate"]
        cjk = (await preview(world.gql, agent["id"], "abcd" + "日本語" * 100))["tokenEstimate"]

        # The system prompt and the function definitions count too.
        assert base["tokenEstimate"] > len(base["systemPrompt"]) // 4
        assert longer - base["tokenEstimate"] == 100
        assert cjk - base["tokenEstimate"] == 300

    async def test_a_disabled_skill_is_skipped_with_a_warning(self, world: World) -> None:
        agent = await full_agent(world)
        await set_status(world.gql, world.triage["id"], "DISABLED")

        result = await preview(world.gql, agent["id"], "x")

        assert [section["kind"] for section in result["sections"]] == ["ROLE", "SKILL", "OUTPUT_FORMAT"]
        assert result["sections"][1]["text"] == TONE
        assert TRIAGE not in result["systemPrompt"]
        assert len(result["warnings"]) == 1
        assert world.triage["id"] in result["warnings"][0]

    async def test_a_skill_over_the_per_skill_limit_is_kept_with_a_warning(
        self, world: World, settings: Settings, openai_server: OpenAIServer, admin_key: str
    ) -> None:
        long_prompt = "# Long\n\n" + "Check every figure twice. " * 30
        long_skill = await create_skill(world.gql, "long-method", long_prompt, world.space_id)
        agent = await create_agent(
            world.gql, world.space_id, world.model.name, systemPrompt="Role.", boundSkillIds=[long_skill["id"]]
        )

        async with runtime_app(settings, openai_server, skill_prompt_max_chars=200) as strict:
            result = await preview(strict.client(admin_key), agent["id"], "x")

        assert [section["kind"] for section in result["sections"]] == ["ROLE", "SKILL"]
        assert result["sections"][1]["text"] == long_prompt.strip()
        assert len(result["warnings"]) == 1
        assert long_skill["id"] in result["warnings"][0]
        assert "200" in result["warnings"][0]

    async def test_an_agent_out_of_reach_is_not_found(self, world: World, keys: Keys) -> None:
        agent = await full_agent(world)
        beta = await keys.space("beta")
        outsider = world.gql.as_key(await keys.for_space(beta.id, Role.MEMBER))

        response = await outsider.raw(PREVIEW_PROMPT, {"agentId": agent["id"], "message": "x"})

        body = response.json()
        assert body["data"] is None
        assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND"


class TestTheMessageBound:
    """previewPrompt takes every message invokeAgent takes (QUIVER_MAX_PROMPT_CHARS, one bound for
    both) and refuses a longer one, as invokeAgent does, before any work."""

    @staticmethod
    async def assert_one_bound(gql: GraphQLClient, agent_id: str, model: ScriptedModel, limit: int) -> None:
        longest = "Where is my parcel? " * (limit // 20) + "x" * (limit % 20)
        assert len(longest) == limit

        result = await preview(gql, agent_id, longest)
        model.push(final("On its way."))
        run = await invoke(gql, agent_id, longest)

        assert result["systemPrompt"]
        assert run["status"] == "SUCCEEDED"
        assert messages_of(model.requests[-1])[-1] == {"role": "user", "content": longest}

        sent = len(model.requests)
        too_long = longest + "x"
        # An unknown agent: the length is refused before the agent is even looked up.
        for agent in (agent_id, "ag_nothing_here"):
            response = await gql.raw(PREVIEW_PROMPT, {"agentId": agent, "message": too_long})
            body = response.json()
            assert body["data"] is None
            [error] = body["errors"]
            assert error["extensions"] == {"code": "TOO_LONG"}
            assert f"at most {limit} " in error["message"]
            payload = await invoke_payload(gql, agent, too_long)
            assert payload["run"] is None
            assert [(error["field"], error["code"]) for error in payload["userErrors"]] == [
                (["input", "message"], "TOO_LONG")
            ]
        assert len(model.requests) == sent  # nothing was sent to the model for them

    async def test_the_default_bound_is_the_prompt_bound_not_the_query_bound(
        self, world: World, settings: Settings
    ) -> None:
        """32,000 characters by default: previewPrompt refused anything over 4,000 before."""
        assert settings.max_prompt_chars == 32_000 > settings.max_query_chars
        agent = await full_agent(world)

        await self.assert_one_bound(world.gql, agent["id"], world.model, 32_000)

    async def test_the_bound_follows_the_setting(
        self, world: World, settings: Settings, openai_server: OpenAIServer, admin_key: str
    ) -> None:
        async with runtime_app(settings, openai_server, max_prompt_chars=300) as app:
            gql = app.client(admin_key)
            agent = await full_agent(world, gql)

            await self.assert_one_bound(gql, agent["id"], world.model, 300)


class TestPromptBudget:
    """ROLE 300 characters, one skill of 400, an output format of 300: 1004 with separators."""

    ROLE_TEXT = "R" * 300
    SKILL_TEXT = "# Skill\n\n" + "S" * 391
    FORMAT_TEXT = "F" * 300

    async def budget_preview(
        self, world: World, settings: Settings, openai_server: OpenAIServer, admin_key: str, budget: int
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        skill = await create_skill(world.gql, "budgeted", self.SKILL_TEXT, world.space_id)
        agent = await create_agent(
            world.gql,
            world.space_id,
            world.model.name,
            systemPrompt=self.ROLE_TEXT,
            boundSkillIds=[skill["id"]],
            outputFormat=self.FORMAT_TEXT,
        )
        async with runtime_app(settings, openai_server, prompt_budget_chars=budget) as tight:
            gql = tight.client(admin_key)
            result = await preview(gql, agent["id"], "x")
            world.model.push(final("ok"))
            run = await invoke(gql, agent["id"], "x")
        return result, run, skill

    async def test_a_tail_section_that_still_fits_in_part_is_truncated(
        self, world: World, settings: Settings, openai_server: OpenAIServer, admin_key: str
    ) -> None:
        result, run, _ = await self.budget_preview(world, settings, openai_server, admin_key, 950)

        kinds = [(section["kind"], section["truncated"]) for section in result["sections"]]
        assert kinds == [("ROLE", False), ("SKILL", False), ("OUTPUT_FORMAT", True)]
        format_section = result["sections"][2]
        assert format_section["text"].endswith(TRUNCATION_MARK)
        assert format_section["text"].startswith("F" * 100)
        assert len(result["systemPrompt"]) == 950
        assert len(result["warnings"]) == 1
        assert "OUTPUT_FORMAT" in result["warnings"][0]
        assert "950" in result["warnings"][0]
        assert run["promptWarnings"] == result["warnings"]
        assert messages_of(world.model.requests[-1])[0]["content"] == result["systemPrompt"]

    async def test_a_tail_section_that_cannot_fit_usefully_is_dropped(
        self, world: World, settings: Settings, openai_server: OpenAIServer, admin_key: str
    ) -> None:
        result, run, skill = await self.budget_preview(world, settings, openai_server, admin_key, 800)

        assert [(section["kind"], section["truncated"]) for section in result["sections"]] == [
            ("ROLE", False),
            ("SKILL", False),
        ]
        assert result["systemPrompt"] == self.ROLE_TEXT + "\n\n" + self.SKILL_TEXT
        assert len(result["warnings"]) == 1
        assert "OUTPUT_FORMAT" in result["warnings"][0]
        assert [item["skillId"] for item in run["skillVersions"]] == [skill["id"]]

    async def test_skills_go_before_the_role(
        self, world: World, settings: Settings, openai_server: OpenAIServer, admin_key: str
    ) -> None:
        result, run, _ = await self.budget_preview(world, settings, openai_server, admin_key, 350)

        assert [section["kind"] for section in result["sections"]] == ["ROLE"]
        assert result["systemPrompt"] == self.ROLE_TEXT
        assert len(result["warnings"]) == 2
        assert "OUTPUT_FORMAT" in result["warnings"][0]
        assert "SKILL" in result["warnings"][1]
        # A skill cut from the prompt was not injected: the run does not claim it.
        assert run["skillVersions"] == []

    async def test_the_role_is_truncated_last(
        self, world: World, settings: Settings, openai_server: OpenAIServer, admin_key: str
    ) -> None:
        result, _, _ = await self.budget_preview(world, settings, openai_server, admin_key, 200)

        assert [(section["kind"], section["truncated"]) for section in result["sections"]] == [("ROLE", True)]
        assert len(result["systemPrompt"]) <= 200
        assert result["systemPrompt"].startswith("R" * 100)
        assert any("ROLE" in warning for warning in result["warnings"])
