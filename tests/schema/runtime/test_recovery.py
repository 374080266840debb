"""Runs and their replicas, in process: a run given up by a replica that stops is continued
by the next sweep of another, WRITE calls that may have run are never repeated, runs with
nothing to continue from are FAILED with INTERRUPTED, and a replica that lost its lease
stops writing. (tests/test_run_recovery.py does the same with SIGKILLed processes.)"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.db import utcnow
from app.ids import new_id
from app.runtime.models import AgentRun
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import fresh, http_tool
from tests.schema.runtime import (
    RuntimeApp,
    create_agent,
    get_run,
    invoke,
    runtime_app,
    tool_messages,
    wait_for_run,
)
from tests.support.http_tool_server import ToolServer, running_tool_server
from tests.support.openai_server import OpenAIServer, call, final, tool_calls
from tests.support.openai_server import openai_server as openai_server
from tests.support.processes import wait_until

SessionFactory = async_sessionmaker[AsyncSession]


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server) as app:
        yield app


async def set_run(session_factory: SessionFactory, run_id: str, **columns: Any) -> None:
    async with session_factory() as session, session.begin():
        await session.execute(update(AgentRun).where(AgentRun.id == run_id).values(**columns))


class TestContinuedElsewhere:
    async def test_a_write_in_flight_when_its_replica_stopped_is_interrupted_not_repeated(
        self,
        keys: Keys,
        admin_key: str,
        settings: Settings,
        openai_server: OpenAIServer,
        tool_server: ToolServer,
    ) -> None:
        key = fresh("inflight")
        model = openai_server.model("inflight")
        model.push(
            tool_calls(
                call("record", {"ref": "a"}, call_id="call_write"),
                call("calculator", {"expression": "1 + 1"}, call_id="call_read"),
            )
        )
        async with runtime_app(settings, openai_server) as doomed:
            gql = doomed.client(admin_key)
            space = await keys.space("inflight")
            write = await http_tool(
                gql,
                tool_server,
                f"/count-write/{key}?seconds=5",
                name="record",
                sideEffect="WRITE",
                inputSchema={"type": "object", "properties": {"ref": {"type": "string"}}},
                spaceIds=[space.id],
            )
            agent = await create_agent(gql, space.id, model.name, activatedToolIds=[write["id"], "bt_calculator"])
            run = await invoke(gql, agent["id"], "record a", **{"async": True})
            for _ in range(400):
                if await tool_server.requests("count-write", key):
                    break
                await asyncio.sleep(0.025)
        # The replica stopped while the WRITE was under way: it gave the run up.
        model.push(final("recorded, maybe"))
        async with runtime_app(settings, openai_server) as survivor:
            await survivor.app.state.services.runtime.sweep()
            finished = await wait_for_run(survivor.client(admin_key), run["id"])

        assert finished["status"] == "SUCCEEDED"
        assert finished["steps"] == 2
        assert len(await tool_server.requests("count-write", key)) == 1
        calls = {item["toolId"]: item for item in finished["toolCalls"]}
        assert calls[write["id"]]["status"] == "FAILED"
        assert calls[write["id"]]["error"]["code"] == "INTERRUPTED"
        assert calls["bt_calculator"]["status"] == "SUCCESS"  # READ: run (again) after the takeover
        told = tool_messages(model.requests[-1])
        assert told["call_write"]["error"]["code"] == "INTERRUPTED"
        assert told["call_read"]["status"] == "SUCCESS"


class TestNothingToContinue:
    async def test_a_run_without_state_is_failed_interrupted_keeping_its_calls(
        self, quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer, session_factory: Any
    ) -> None:
        gql = quiver.client(admin_key)
        space = await keys.space("stateless")
        model = openai_server.model("stateless")
        agent = await create_agent(gql, space.id, model.name, activatedToolIds=["bt_calculator"])
        model.push(tool_calls(call("calculator", {"expression": "2 + 2"})), final("4"))
        run = await invoke(gql, agent["id"], "2 + 2?")
        # As a run of a replica that died before runs kept their state would look.
        await set_run(
            session_factory,
            run["id"],
            status="RUNNING",
            finished_at=None,
            output=None,
            checkpoint=None,
            owner_id="rep_gone",
            lease_expires_at=None,
        )

        await quiver.app.state.services.runtime.sweep()
        after = await wait_for_run(gql, run["id"])

        assert after["status"] == "FAILED"
        assert after["error"]["code"] == "INTERRUPTED"
        assert after["steps"] == 2
        assert [item["toolId"] for item in after["toolCalls"]] == ["bt_calculator"]

    async def test_a_run_taken_over_too_often_is_failed_interrupted(
        self,
        quiver: RuntimeApp,
        keys: Keys,
        admin_key: str,
        openai_server: OpenAIServer,
        session_factory: Any,
        settings: Settings,
    ) -> None:
        gql = quiver.client(admin_key)
        space = await keys.space("crashloop")
        model = openai_server.model("crashloop")
        agent = await create_agent(gql, space.id, model.name)
        gate = threading.Event()
        model.push(final("never").held_until(gate))
        try:
            async with runtime_app(settings, openai_server) as doomed:
                run = await invoke(doomed.client(admin_key), agent["id"], "loop", **{"async": True})
                await wait_until(lambda: len(model.requests) == 1)
        finally:
            gate.set()
        await set_run(session_factory, run["id"], takeovers=3)

        await quiver.app.state.services.runtime.sweep()
        after = await wait_for_run(gql, run["id"])

        assert after["status"] == "FAILED"
        assert after["error"]["code"] == "INTERRUPTED"
        assert "4 times" in after["error"]["message"]
        assert len(model.requests) == 1


class TestLeaseLost:
    async def test_a_replica_that_lost_its_lease_stops_writing(
        self, quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer, session_factory: Any
    ) -> None:
        gql: GraphQLClient = quiver.client(admin_key)
        space = await keys.space("lost")
        model = openai_server.model("lost")
        agent = await create_agent(gql, space.id, model.name)
        gate = threading.Event()
        model.push(final("too late").held_until(gate))
        run = await invoke(gql, agent["id"], "slow", **{"async": True})
        await wait_until(lambda: len(model.requests) == 1)
        # Another replica took it over meanwhile (this one missed its heartbeats).
        other = new_id("rep_")
        await set_run(session_factory, run["id"], owner_id=other, lease_expires_at=utcnow() + timedelta(minutes=5))

        gate.set()
        runtime = quiver.app.state.services.runtime
        for _ in range(400):
            if run["id"] not in runtime._active:
                break
            await asyncio.sleep(0.025)

        after = await get_run(gql, run["id"])
        assert after is not None
        assert after["status"] == "RUNNING"
        assert after["output"] is None
        assert run["id"] not in runtime._active
