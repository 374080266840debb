"""The call log never costs a caller its envelope: results are JSON-safe before anyone sees
them, large values are stored cut (QUIVER_CALL_LOG_MAX_BYTES), and a row the database refuses
is retried, then stored reduced, and at worst lost loudly — the caller (or the agent run)
still gets its result. On SQLite and PostgreSQL, against a real upstream."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.gateway.call_log import DEFAULT_MAX_BYTES
from app.gateway.models import ToolCall
from app.principal import SYSTEM_PRINCIPAL
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import SessionFactory, call_log, fresh, http_tool
from tests.schema.runtime import RuntimeApp, create_agent, runtime_app
from tests.schema.runtime import invoke as invoke_agent
from tests.support.http_tool_server import ToolServer, running_tool_server
from tests.support.openai_server import OpenAIServer, call, final, tool_calls
from tests.support.openai_server import openai_server as openai_server

CALL_FIELDS = "id status arguments result error { code message detail } truncated"


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


STORED = "query C { toolCalls(first: 100) { edges { node { " + CALL_FIELDS + " } } } }"
INVOKE = (
    "mutation I($input: InvokeToolInput!) { invokeTool(input: $input) { status data error { code message detail } "
    "call { " + CALL_FIELDS + " } } }"
)


async def stored(gql: GraphQLClient, call_id: str) -> dict[str, Any]:
    edges = (await gql.execute(STORED))["toolCalls"]["edges"]
    [node] = [edge["node"] for edge in edges if edge["node"]["id"] == call_id]
    return node  # type: ignore[no-any-return]


async def invoke(gql: GraphQLClient, space_id: str, tool_id: str, arguments: Any) -> dict[str, Any]:
    call_input = {"spaceId": space_id, "toolId": tool_id, "arguments": arguments}
    return (await gql.execute(INVOKE, {"input": call_input}))["invokeTool"]  # type: ignore[no-any-return]


async def stored_bytes(session_factory: SessionFactory, call_id: str) -> int:
    """How much of the row is arguments, result, error message and detail, as stored."""
    async with session_factory() as session:
        row = await session.scalar(select(ToolCall).where(ToolCall.id == call_id))
    assert row is not None
    values = [json.dumps(row.arguments), json.dumps(row.result), row.error_message or "", row.error_detail or ""]
    return sum(len(value.encode()) for value in values)


class TestJsonSafeResults:
    async def test_nan_infinity_huge_integers_and_nul_from_an_upstream(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        tool = await http_tool(gql, tool_server, f"/not-json-safe/{fresh('nan')}")

        envelope = await invoke(gql, space.id, tool["id"], {})

        expected = {"mean": None, "max": None, "min": None, "id": "123456789012345678901", "name": "a\ufffdb", "n": 2}
        assert envelope["status"] == "SUCCESS", envelope["error"]
        assert envelope["data"] == expected
        assert envelope["call"]["result"] == expected  # the row was written, and reads back the same
        assert (await stored(gql, envelope["call"]["id"]))["truncated"] is False

    async def test_calculator_results_past_two_to_the_53_are_strings(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")

        envelope = await invoke(gql, space.id, "bt_calculator", {"expression": "9 ** 400"})

        assert envelope["status"] == "SUCCESS", envelope["error"]
        assert envelope["data"]["result"] == str(9**400)
        assert envelope["call"]["result"] == envelope["data"]
        small = await invoke(gql, space.id, "bt_calculator", {"expression": "2 ** 53 - 1"})
        assert small["data"]["result"] == 2**53 - 1


class TestLargeValuesAreStoredCut:
    async def test_a_large_argument_echoed_back_is_stored_cut_once_and_returned_whole(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, session_factory: SessionFactory
    ) -> None:
        space = await keys.space("alpha")
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('big')}")
        big = "x" * 900_000

        envelope = await invoke(gql, space.id, tool["id"], {"q": big})

        assert envelope["status"] == "SUCCESS", envelope["error"]
        assert envelope["data"]["received"] == {"q": big}
        row = await stored(gql, envelope["call"]["id"])
        assert row["truncated"] is True
        for value in (row["arguments"], row["result"]):
            assert value["$truncated"]["originalBytes"] > 900_000
            assert value["preview"].startswith('{"')
        assert await stored_bytes(session_factory, envelope["call"]["id"]) < 2 * DEFAULT_MAX_BYTES

    async def test_a_10_mb_argument_refused_by_the_schema_is_not_stored_three_times(
        self,
        gql: GraphQLClient,
        keys: Keys,
        tool_server: ToolServer,
        app_and_services: Any,
        session_factory: SessionFactory,
    ) -> None:
        space = await keys.space("alpha")
        schema = {"type": "object", "properties": {"q": {"type": "string", "maxLength": 10}}}
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('huge')}", inputSchema=schema)
        huge = "y" * (10 * 1024 * 1024)
        gateway = app_and_services.state.services.gateway

        # An agent's call (the GraphQL request limit does not bound what a model sends).
        result = await gateway.execute(SYSTEM_PRINCIPAL, space.id, tool["id"], {"q": huge}, agent_id="ag_big")

        assert result.error is not None and result.error.code == "PARAM_INVALID"
        assert huge in result.error.message  # the caller gets the whole envelope
        assert await stored_bytes(session_factory, result.call_id or "") < 4 * DEFAULT_MAX_BYTES
        row = await stored(gql, result.call_id or "")
        assert row["truncated"] is True and row["error"]["detail"].endswith(" bytes]")
        assert "[truncated: " in row["error"]["message"]


POISON = "poison-row"


@dataclass
class RowRefuser:
    """Makes the database refuse call-log rows whose arguments hold POISON, or of given tools
    (a CHECK constraint on PostgreSQL, a trigger on SQLite)."""

    engine: AsyncEngine
    installed: bool = False

    async def refuse(self, tool_ids: list[str]) -> None:
        ids = ", ".join(f"'{tool_id}'" for tool_id in tool_ids) or "''"
        async with self.engine.begin() as connection:
            if self.engine.dialect.name == "postgresql":
                statement = (
                    "ALTER TABLE tool_call ADD CONSTRAINT test_refuse CHECK "
                    f"(arguments::text NOT LIKE '%{POISON}%' AND tool_id NOT IN ({ids})) NOT VALID"
                )
            else:
                statement = (
                    "CREATE TRIGGER test_refuse BEFORE INSERT ON tool_call "
                    f"WHEN NEW.arguments LIKE '%{POISON}%' OR NEW.tool_id IN ({ids}) "
                    "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
                )
            await connection.execute(text(statement))
        self.installed = True

    async def remove(self) -> None:
        if not self.installed:
            return
        async with self.engine.begin() as connection:
            if self.engine.dialect.name == "postgresql":
                await connection.execute(text("ALTER TABLE tool_call DROP CONSTRAINT test_refuse"))
            else:
                await connection.execute(text("DROP TRIGGER test_refuse"))
        # SQLite connections that saw the trigger come and go re-read the schema.
        await self.engine.dispose()


@pytest.fixture
async def refuser(engine: AsyncEngine) -> AsyncIterator[RowRefuser]:
    refuser = RowRefuser(engine)
    try:
        yield refuser
    finally:
        await refuser.remove()


def logged(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [
        record.getMessage() for record in caplog.records if record.levelno == level and record.name == "quiver.gateway"
    ]


class TestRefusedRows:
    async def test_a_refused_row_is_stored_reduced_and_the_caller_keeps_its_envelope(
        self,
        gql: GraphQLClient,
        keys: Keys,
        tool_server: ToolServer,
        refuser: RowRefuser,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        caplog.set_level(logging.WARNING, logger="quiver.gateway")
        space = await keys.space("alpha")
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('refused')}")
        await refuser.refuse([])

        envelope = await invoke(gql, space.id, tool["id"], {"q": POISON})

        assert envelope["status"] == "SUCCESS", envelope["error"]
        assert envelope["data"]["received"] == {"q": POISON}
        row = envelope["call"]
        assert row["truncated"] is True and row["result"] is None and row["status"] == "SUCCESS"
        assert row["arguments"]["$truncated"]["omitted"] is True
        assert "refused" in row["arguments"]["$truncated"]["reason"]
        assert len(logged(caplog, logging.WARNING)) == 2  # the row and its retry
        assert logged(caplog, logging.ERROR) == ["call-log row written without its arguments and result"]

    async def test_a_row_that_cannot_be_written_at_all_is_lost_loudly_not_the_envelope(
        self,
        gql: GraphQLClient,
        keys: Keys,
        tool_server: ToolServer,
        refuser: RowRefuser,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        caplog.set_level(logging.WARNING, logger="quiver.gateway")
        space = await keys.space("alpha")
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('lost')}")
        await refuser.refuse([tool["id"]])

        envelope = await invoke(gql, space.id, tool["id"], {"q": "fine"})

        assert envelope["status"] == "SUCCESS", envelope["error"]
        assert envelope["data"]["received"] == {"q": "fine"}
        assert envelope["call"] is None
        [lost] = logged(caplog, logging.CRITICAL)
        assert lost.startswith("call-log row LOST")
        assert (await call_log(gql, toolId=tool["id"]))["totalCount"] == 0


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server) as app:
        yield app


class TestRefusedRowsInARun:
    async def test_a_run_whose_call_cannot_be_logged_still_succeeds(
        self,
        quiver: RuntimeApp,
        keys: Keys,
        admin_key: str,
        openai_server: OpenAIServer,
        tool_server: ToolServer,
        refuser: RowRefuser,
    ) -> None:
        space = await keys.space("alpha")
        gql = quiver.client(admin_key)
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('run')}", name="lookup")
        model = openai_server.model()
        agent = await create_agent(gql, space.id, model.name, maxSteps=3, activatedToolIds=[tool["id"]])
        model.push(tool_calls(call("lookup", {"q": "fine"}, call_id="call_1")), final("Looked it up."))
        await refuser.refuse([tool["id"]])

        run = await invoke_agent(gql, agent["id"], "Look it up.")

        assert run["status"] == "SUCCEEDED", run
        assert run["output"] == "Looked it up."
        [request] = [body for body in model.requests if len(body["messages"]) > 2]
        [tool_message] = [message for message in request["messages"] if message["role"] == "tool"]
        assert json.loads(tool_message["content"])["status"] == "SUCCESS"
