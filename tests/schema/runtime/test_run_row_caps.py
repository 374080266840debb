"""What the agent runtime stores is bounded like the call log (QUIVER_RUN_LOG_MAX_BYTES): a
run's output and error, each trace stage's details and the conversation turns are stored cut
past the cap, with a marker and their original size; values within it are stored whole."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import select

from app.config import Settings
from app.runtime.models import AgentRun, AgentSessionMessage, RunStage
from tests.conftest import Keys
from tests.schema.runtime import RuntimeApp, create_agent, invoke, runtime_app
from tests.support.openai_server import OpenAIServer, final
from tests.support.openai_server import openai_server as openai_server

CAP = 2_000
#: 6,000 characters, 12,000 bytes of UTF-8: past the cap as text and as JSON.
LONG_REPLY = "réponse " * 750


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server, run_log_max_bytes=CAP) as app:
        yield app


async def stored(session_factory: Any, run_id: str) -> tuple[AgentRun, list[RunStage], list[AgentSessionMessage]]:
    async with session_factory() as session:
        run = (await session.execute(select(AgentRun).where(AgentRun.id == run_id))).scalar_one()
        stages = list((await session.execute(select(RunStage).where(RunStage.run_id == run_id))).scalars())
        turns = list(
            (await session.execute(select(AgentSessionMessage).where(AgentSessionMessage.run_id == run_id))).scalars()
        )
    return run, stages, turns


class TestRunRowsAreBounded:
    async def test_a_long_answer_is_stored_cut_with_its_size_in_the_run_the_trace_and_the_session(
        self, quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer, session_factory: Any
    ) -> None:
        gql = quiver.client(admin_key)
        space = await keys.space("capped")
        model = openai_server.model("capped")
        agent = await create_agent(gql, space.id, model.name)
        model.push(final(LONG_REPLY))

        run = await invoke(gql, agent["id"], "Say it at length.", sessionId="capped-session")
        row, stages, turns = await stored(session_factory, run["id"])

        original_bytes = len(LONG_REPLY.encode())
        assert run["status"] == "SUCCEEDED"
        # The run's output: its first CAP bytes and the marker with the size.
        assert row.output is not None
        assert row.output.endswith(f" … [truncated: {original_bytes} bytes]")
        assert LONG_REPLY.startswith(row.output.split(" … [truncated: ")[0])
        assert len(row.output.encode()) <= CAP + 40
        # The conversation: the assistant's turn cut the same way, the user's short one whole.
        by_role = {turn.role: turn.content for turn in turns}
        assert by_role["user"] == "Say it at length."
        assert by_role["assistant"] == row.output
        # The trace: the model call's details (its reply, its messages) past the cap are the marker.
        details = {stage.kind: stage.detail for stage in stages}
        marker = details["MODEL_CALL"]["$truncated"]
        assert marker["originalBytes"] > CAP
        assert len(json.dumps(details["MODEL_CALL"], ensure_ascii=False).encode()) <= CAP + 100
        assert "$truncated" not in details["SKILL_ROUTING"]  # small details are stored as they were

    async def test_a_short_answer_is_stored_whole(
        self, quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer, session_factory: Any
    ) -> None:
        gql = quiver.client(admin_key)
        space = await keys.space("capped")
        model = openai_server.model("short")
        agent = await create_agent(gql, space.id, model.name, systemPrompt="Be brief.")
        model.push(final("Short and whole."))

        run = await invoke(gql, agent["id"], "Be brief.", sessionId="short-session")
        row, stages, turns = await stored(session_factory, run["id"])

        assert row.output == run["output"] == "Short and whole."
        assert {turn.content for turn in turns} == {"Be brief.", "Short and whole."}
        model_call = next(stage.detail for stage in stages if stage.kind == "MODEL_CALL")
        assert model_call["reply"] == "Short and whole."
