"""When a run's writes happen around its model calls (app/runtime/service.py, driver.py).

The run's insert: the prompt is assembled meanwhile, but the model is called only once the
row is stored; an insert that fails answers the caller with the failure and calls no model.

The finish and the last step's store, still under way when the final answer comes
(RunWriter.overtakes): on PostgreSQL the finish does not wait for it — whichever commits
first, every stage of the trace is stored once and the run's row is the finish's; elsewhere
the finish waits for it. Either way the caller is answered only once the finish is stored."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import select

from app.config import Settings
from app.runtime.model import ModelClient
from app.runtime.models import AgentRun as AgentRunRow
from app.runtime.models import RunStage
from app.runtime.prompt import PromptBuilder
from app.runtime.writer import RunWriter
from tests.conftest import Keys
from tests.schema.runtime import RuntimeApp, create_agent, invoke, runtime_app
from tests.support.openai_server import OpenAIServer, ScriptedModel, call, final, tool_calls
from tests.support.openai_server import openai_server as openai_server

#: The store of the last tool step of the scripted run (two steps with a READ call, then the answer).
LAST_STEP = 2


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server) as app:
        yield app


@dataclass
class Run:
    quiver: RuntimeApp
    model: ScriptedModel
    agent_id: str
    key: str

    async def invoke(self) -> dict[str, Any]:
        self.model.push(
            tool_calls(call("calculator", {"expression": "6 * 7"})),
            tool_calls(call("calculator", {"expression": "42 + 1"})),
            final("43"),
        )
        return await invoke(self.quiver.client(self.key), self.agent_id, "Compute twice.")


@pytest.fixture
async def run(quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer) -> Run:
    space = await keys.space("alpha")
    model = openai_server.model()
    agent = await create_agent(quiver.client(admin_key), space.id, model.name, activatedToolIds=["bt_calculator"])
    return Run(quiver, model, agent["id"], admin_key)


Hold = Callable[[str, dict[str, Any]], Awaitable[None]]


def record_writes(monkeypatch: pytest.MonkeyPatch, hold: Hold) -> list[str]:
    """The order in which the last step's store and the finish are sent and done; ``hold(kind,
    values)`` runs before each of them is sent."""
    order: list[str] = []
    original = RunWriter.write

    async def write(self: RunWriter, run_id: str, owner_id: str, values: dict[str, Any], **more: Any) -> bool:
        kind = "finish" if "finished_at" in values else "store" if values.get("steps") == LAST_STEP else None
        if kind is None:
            return await original(self, run_id, owner_id, values, **more)
        order.append(f"{kind} sent")
        await hold(kind, values)
        written = await original(self, run_id, owner_id, values, **more)
        order.append(f"{kind} done: {'written' if written else 'nothing'}")
        return written

    monkeypatch.setattr(RunWriter, "write", write)
    return order


async def settled(quiver: RuntimeApp, order: list[str]) -> None:
    """Until the last step's store is done, wherever it is."""
    for _ in range(500):
        if any(item.startswith("store done") for item in order):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the store never finished: {order}")


async def stored(quiver: RuntimeApp, run_id: str) -> tuple[AgentRunRow, Counter[str]]:
    async with quiver.app.state.services.session_factory() as session:
        row = await session.get(AgentRunRow, run_id)
        stages = (await session.scalars(select(RunStage).where(RunStage.run_id == run_id))).all()
    assert row is not None
    return row, Counter(stage.kind for stage in stages)


def overtakes(quiver: RuntimeApp) -> bool:
    writer: RunWriter = quiver.app.state.services.runtime.writer
    return writer.overtakes


async def test_a_slow_last_store_is_overtaken_where_the_writer_allows_it(
    run: Run, quiver: RuntimeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def hold(kind: str, values: dict[str, Any]) -> None:
        if kind == "store":
            await asyncio.sleep(0.5)  # still under way when the final answer comes

    order = record_writes(monkeypatch, hold)

    answer = await run.invoke()

    assert answer["status"] == "SUCCEEDED" and answer["output"] == "43" and answer["steps"] == 3
    row, stages = await stored(quiver, answer["id"])
    assert row.status == "SUCCEEDED" and row.finished_at is not None and row.steps == 3
    await settled(quiver, order)
    if overtakes(quiver):
        # The finish went first and carried the step's stages; the store then wrote nothing.
        assert order == ["store sent", "finish sent", "finish done: written", "store done: nothing"]
    else:
        assert order == ["store sent", "store done: written", "finish sent", "finish done: written"]
    row, stages_after = await stored(quiver, answer["id"])
    assert row.status == "SUCCEEDED" and row.checkpoint is None and row.output == "43"
    assert stages_after == stages
    assert stages["MODEL_CALL"] == 3 and stages["TOOL_CALL"] == 2


async def test_when_the_overtaken_store_commits_first_its_stages_are_not_stored_twice(
    run: Run, quiver: RuntimeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    store_done = asyncio.Event()
    finish_sent = asyncio.Event()

    async def hold(kind: str, values: dict[str, Any]) -> None:
        if kind == "store":
            # Sent once the finish is on its way (or, where the finish waits, at once).
            if overtakes(quiver):
                await asyncio.wait_for(finish_sent.wait(), 5)
        else:
            finish_sent.set()
            if overtakes(quiver):
                await asyncio.sleep(0.2)
                await asyncio.wait_for(store_done.wait(), 5)

    original = RunWriter.write

    async def marking(self: RunWriter, run_id: str, owner_id: str, values: dict[str, Any], **more: Any) -> bool:
        written = await original(self, run_id, owner_id, values, **more)
        if values.get("steps") == LAST_STEP and "finished_at" not in values:
            store_done.set()
        return written

    monkeypatch.setattr(RunWriter, "write", marking)
    order = record_writes(monkeypatch, hold)

    answer = await run.invoke()

    assert answer["status"] == "SUCCEEDED" and answer["output"] == "43"
    await settled(quiver, order)
    if overtakes(quiver):
        assert order == ["store sent", "finish sent", "store done: written", "finish done: written"]
    else:
        assert order == ["store sent", "store done: written", "finish sent", "finish done: written"]
    row, stages = await stored(quiver, answer["id"])
    assert row.status == "SUCCEEDED" and row.checkpoint is None and row.steps == 3
    assert stages["MODEL_CALL"] == 3 and stages["TOOL_CALL"] == 2


async def test_the_prompt_is_assembled_during_the_insert_and_the_model_called_after_it(
    run: Run, quiver: RuntimeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    create, build, complete = RunWriter.create, PromptBuilder.build, ModelClient.complete

    async def slow_create(self: RunWriter, row: dict[str, Any]) -> Any:
        await asyncio.sleep(0.2)
        created = await create(self, row)
        order.append("run stored")
        return created

    async def building(self: PromptBuilder, *args: Any, **more: Any) -> Any:
        order.append("prompt assembled")
        return await build(self, *args, **more)

    async def calling(self: ModelClient, **more: Any) -> Any:
        order.append("model called")
        return await complete(self, **more)

    monkeypatch.setattr(RunWriter, "create", slow_create)
    monkeypatch.setattr(PromptBuilder, "build", building)
    monkeypatch.setattr(ModelClient, "complete", calling)

    answer = await run.invoke()

    assert answer["status"] == "SUCCEEDED" and answer["output"] == "43"
    assert order[:3] == ["prompt assembled", "run stored", "model called"]
    assert order.count("prompt assembled") == 1


async def test_an_insert_that_fails_calls_no_model_and_answers_the_failure(
    run: Run, quiver: RuntimeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def failing(self: RunWriter, row: dict[str, Any]) -> Any:
        await asyncio.sleep(0.05)
        raise RuntimeError("the database is gone")

    monkeypatch.setattr(RunWriter, "create", failing)
    run.model.push(final("never"))

    body = await run.quiver.client(run.key).http.post(
        "/graphql",
        json={
            "query": "mutation($input: InvokeAgentInput!) { invokeAgent(input: $input) { run { id } } }",
            "variables": {"input": {"agentId": run.agent_id, "message": "Compute."}},
        },
        headers={"Authorization": f"Bearer {run.key}"},
    )

    answer = body.json()
    assert answer["data"] is None
    assert answer["errors"][0]["extensions"]["code"] == "INTERNAL_ERROR"
    assert run.model.requests == []
