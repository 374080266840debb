"""A model reply asking for more tool calls than QUIVER_MAX_TOOL_CALLS_PER_STEP: the first ones
run, the others are refused (TOO_MANY_TOOL_CALLS, a FAILED row each) and the model is told so
for each of them. There was no cap: a reply asking for 5,000 calculator calls ran 5,000 calls
before the model's next turn (and as many for a CUSTOM tool's endpoint)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.config import Settings
from tests.conftest import Keys
from tests.schema.runtime import RuntimeApp, create_agent, invoke, runtime_app, tool_messages
from tests.support.openai_server import OpenAIServer, call, final, tool_calls
from tests.support.openai_server import openai_server as openai_server

CAP = 3


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server, max_tool_calls_per_step=CAP) as app:
        yield app


async def test_calls_past_the_cap_are_refused_and_the_model_told(
    quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer
) -> None:
    space = await keys.space("capped")
    gql = quiver.client(admin_key)
    model = openai_server.model()
    agent = await create_agent(gql, space.id, model.name, activatedToolIds=["bt_calculator"])
    asked = [call("calculator", {"expression": f"{index} + 1"}, call_id=f"call_{index}") for index in range(CAP + 2)]
    model.push(tool_calls(*asked), final("done"))

    run: dict[str, Any] = await invoke(gql, agent["id"], "add one to each")

    assert run["status"] == "SUCCEEDED", run
    by_expression = {entry["arguments"]["expression"]: entry for entry in run["toolCalls"]}
    assert len(by_expression) == CAP + 2
    ran = [by_expression[f"{index} + 1"] for index in range(CAP)]
    refused = [by_expression[f"{index} + 1"] for index in range(CAP, CAP + 2)]
    assert [entry["status"] for entry in ran] == ["SUCCESS"] * CAP
    assert [entry["result"]["result"] for entry in ran] == [1, 2, 3]
    assert [entry["status"] for entry in refused] == ["FAILED"] * 2
    assert {entry["error"]["code"] for entry in refused} == {"TOO_MANY_TOOL_CALLS"}
    assert refused[0]["error"]["message"] == (
        f"The model asked for {CAP + 2} tool calls in one step; the first {CAP} ran, this one did not."
    )
    told = tool_messages(model.requests[1])
    assert sorted(told) == [f"call_{index}" for index in range(CAP + 2)]
    assert told[f"call_{CAP}"]["error"]["code"] == "TOO_MANY_TOOL_CALLS"
    assert told["call_0"]["status"] == "SUCCESS"
