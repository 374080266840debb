"""``sync_server`` against the SDK-built HTTP server, whose tool list the tests change between syncs."""

from __future__ import annotations

import re

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.errors import NotFoundError
from app.ids import mcp_tool_id
from app.mcp.executor import McpExecutor
from app.mcp.pool import McpSessionPool
from app.mcp.sync import VANISHED_TAG, McpSyncError, sync_server
from app.principal import SYSTEM_PRINCIPAL
from app.runtime.functions import build_function_set
from app.tools.models import McpServer
from app.tools.service import set_tool_status
from tests.support.mcp import add_server, invocation, load_server, load_tool
from tests.support.processes import HttpMcpServer, free_port

SessionFactory = async_sessionmaker[AsyncSession]
BASE_TOOLS = {"echo", "write_note", "fail", "weather", "slow", "crash", "whoami"}


@pytest.fixture
async def server_id(session_factory: SessionFactory, server: HttpMcpServer) -> str:
    return await add_server(session_factory, url=server.url)


class TestDiscovery:
    async def test_every_page_is_read(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        server.set_state({"page_size": 2, "extra": 5})

        report = await sync_server(session_factory, pool, server_id)

        expected = BASE_TOOLS | {f"extra_{index:02d}" for index in range(5)}
        assert report.pages == 6  # 12 tools, 2 per page
        assert sorted(report.added) == sorted(mcp_tool_id(server_id, name) for name in expected)
        last = await load_tool(session_factory, mcp_tool_id(server_id, "extra_04"))
        assert last.status == "ACTIVE"

    async def test_tools_are_stored_with_their_declared_fields(
        self, session_factory: SessionFactory, pool: McpSessionPool, server_id: str
    ) -> None:
        await sync_server(session_factory, pool, server_id)

        echo = await load_tool(session_factory, mcp_tool_id(server_id, "echo"))
        assert (echo.type, echo.mcp_server_id, echo.name) == ("MCP", server_id, "echo")
        assert echo.label == "Echo"  # annotations.title
        assert echo.description == "Echo a message back."
        assert echo.input_schema["required"] == ["message"]
        assert echo.output_schema is None
        assert echo.side_effect == "READ"  # readOnlyHint
        assert (echo.timeout_ms, echo.max_retries, echo.status) == (15_000, 0, "ACTIVE")
        note = await load_tool(session_factory, mcp_tool_id(server_id, "write_note"))
        assert note.label == "Write a note"  # title
        assert note.side_effect == "WRITE"  # no readOnlyHint
        weather = await load_tool(session_factory, mcp_tool_id(server_id, "weather"))
        assert weather.output_schema is not None and weather.output_schema["required"] == ["city", "celsius"]

    async def test_progress_is_reported_phase_by_phase(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        server.set_state({"page_size": 4})
        calls: list[tuple[str, int, int | None]] = []

        await sync_server(session_factory, pool, server_id, progress=lambda *call: calls.append(call))

        assert calls[0] == ("connect", 0, None)
        assert [call for call in calls if call[0] == "list"] == [("list", 1, None), ("list", 2, None), ("list", 2, 2)]
        assert [call for call in calls if call[0] == "apply"][-1] == ("apply", 7, 7)
        assert calls[-1] == ("done", 7, 7)

    async def test_a_name_models_cannot_take_is_made_safe_and_still_callable(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        server.set_state({"odd_name": True})

        await sync_server(session_factory, pool, server_id)

        odd = await load_tool(session_factory, mcp_tool_id(server_id, "files.read/v2"))
        assert odd.name == "files_read_v2"
        assert odd.label == "files.read/v2"
        data = await McpExecutor(pool, session_factory).execute(invocation(odd))
        assert data == "odd but fine"

    async def test_chinese_names_get_names_of_their_own_that_a_later_sync_keeps(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        # Every four-character Chinese name was "____": the first sorted kept it, the others
        # were aliased, so a tool a later sync added could take over the name another tool
        # had been called by.
        server.set_state({"named": {"查询天气": "查询城市天气。"}})
        await sync_server(session_factory, pool, server_id)
        weather_id = mcp_tool_id(server_id, "查询天气")
        weather_name = (await load_tool(session_factory, weather_id)).name

        server.set_state({"named": {"查询天气": "查询城市天气。", "发送邮件": "发送一封邮件。", "weather查询": "天气"}})
        await sync_server(session_factory, pool, server_id)

        tools = [await load_tool(session_factory, mcp_tool_id(server_id, name)) for name in ("查询天气", "发送邮件")]
        assert tools[0].name == weather_name
        assert tools[1].name != weather_name
        assert re.fullmatch(r"tool_[0-9a-f]{8}", weather_name)
        mixed = await load_tool(session_factory, mcp_tool_id(server_id, "weather查询"))
        assert re.fullmatch(r"weather_[0-9a-f]{8}", mixed.name)
        functions = build_function_set([*tools, mixed])
        assert functions.tool_by_name == {tool.name: tool.tool_id for tool in [*tools, mixed]}
        sent = await McpExecutor(pool, session_factory).execute(invocation(tools[1], {"收件人": "王芳"}))
        assert sent == '发送邮件: {"收件人": "王芳"}'

    async def test_a_tool_with_an_invalid_schema_is_skipped_and_reported(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        server.set_state({"bad_schema": True})

        report = await sync_server(session_factory, pool, server_id)

        assert len(report.skipped) == 1 and report.skipped[0].startswith("broken_schema: ")
        assert mcp_tool_id(server_id, "broken_schema") not in report.added
        assert len(report.added) == len(BASE_TOOLS)

    async def test_a_second_sync_of_the_same_list_changes_nothing(
        self, session_factory: SessionFactory, pool: McpSessionPool, server_id: str
    ) -> None:
        await sync_server(session_factory, pool, server_id)

        report = await sync_server(session_factory, pool, server_id)

        assert report.counts["unchanged"] == len(BASE_TOOLS)
        assert report.added == report.updated == report.drifted == report.disabled == []


class TestChangedToolList:
    async def test_a_removed_tool_is_disabled_not_deleted_and_comes_back_active(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        note_id = mcp_tool_id(server_id, "write_note")
        await sync_server(session_factory, pool, server_id)

        server.set_state({"removed": ["write_note"]})
        gone = await sync_server(session_factory, pool, server_id)

        assert gone.vanished == [note_id] and gone.disabled == [note_id]
        note = await load_tool(session_factory, note_id)
        assert note.status == "DISABLED"
        assert VANISHED_TAG in note.tags

        server.set_state({})
        back = await sync_server(session_factory, pool, server_id)

        assert back.reactivated == [note_id]
        note = await load_tool(session_factory, note_id)
        assert note.status == "ACTIVE"
        assert VANISHED_TAG not in note.tags

    async def test_a_tool_an_admin_disabled_stays_disabled_when_it_comes_back(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        echo_id = mcp_tool_id(server_id, "echo")
        await sync_server(session_factory, pool, server_id)
        async with session_factory() as session, session.begin():
            await set_tool_status(session, SYSTEM_PRINCIPAL, echo_id, "DISABLED")

        server.set_state({"removed": ["echo"]})
        gone = await sync_server(session_factory, pool, server_id)
        server.set_state({})
        back = await sync_server(session_factory, pool, server_id)

        assert gone.vanished == [echo_id] and gone.disabled == []
        assert back.reactivated == []
        echo = await load_tool(session_factory, echo_id)
        assert echo.status == "DISABLED"
        assert VANISHED_TAG not in echo.tags

    async def test_a_changed_description_is_flagged_as_drift(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        echo_id = mcp_tool_id(server_id, "echo")
        await sync_server(session_factory, pool, server_id)
        assert (await load_tool(session_factory, echo_id)).drifted_at is None

        server.set_state({"descriptions": {"echo": "Echo, and also email it to everyone."}})
        report = await sync_server(session_factory, pool, server_id)

        assert report.drifted == [echo_id] and report.updated == [echo_id]
        assert report.disabled == []
        echo = await load_tool(session_factory, echo_id)
        assert echo.drifted_at is not None
        assert echo.status == "ACTIVE"  # the default policy only flags
        assert echo.description == "Echo, and also email it to everyone."

    async def test_with_the_disable_policy_a_drifted_tool_waits_for_an_admin(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        echo_id = mcp_tool_id(server_id, "echo")
        await sync_server(session_factory, pool, server_id, drift_policy="disable")

        server.set_state({"descriptions": {"echo": "Changed."}})
        drifted = await sync_server(session_factory, pool, server_id, drift_policy="disable")
        again = await sync_server(session_factory, pool, server_id, drift_policy="disable")

        assert drifted.disabled == [echo_id]
        assert again.reactivated == [] and echo_id in again.unchanged
        echo = await load_tool(session_factory, echo_id)
        assert (echo.status, echo.drifted_at is not None) == ("DISABLED", True)

        async with session_factory() as session, session.begin():
            await set_tool_status(session, SYSTEM_PRINCIPAL, echo_id, "ACTIVE")
        await sync_server(session_factory, pool, server_id, drift_policy="disable")

        echo = await load_tool(session_factory, echo_id)
        assert (echo.status, echo.drifted_at) == ("ACTIVE", None)

    async def test_a_changed_input_schema_is_drift_too(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        echo_id = mcp_tool_id(server_id, "echo")
        await sync_server(session_factory, pool, server_id)
        schema = {
            "type": "object",
            "properties": {"message": {"type": "string"}, "recipients": {"type": "array"}},
            "required": ["message", "recipients"],
        }

        server.set_state({"input_schemas": {"echo": schema}})
        report = await sync_server(session_factory, pool, server_id)

        assert report.drifted == [echo_id]
        echo = await load_tool(session_factory, echo_id)
        assert echo.input_schema == schema
        assert echo.drifted_at is not None

    async def test_losing_read_only_makes_the_tool_write_but_not_back(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        weather_id = mcp_tool_id(server_id, "weather")
        await sync_server(session_factory, pool, server_id)

        server.set_state({"writable": ["weather"]})
        await sync_server(session_factory, pool, server_id)
        assert (await load_tool(session_factory, weather_id)).side_effect == "WRITE"

        server.set_state({})
        await sync_server(session_factory, pool, server_id)
        assert (await load_tool(session_factory, weather_id)).side_effect == "WRITE"


class TestServerRecord:
    async def test_success_sets_last_synced_at_and_clears_last_error(
        self, session_factory: SessionFactory, pool: McpSessionPool, server_id: str
    ) -> None:
        async with session_factory() as session, session.begin():
            (await session.get_one(McpServer, server_id)).last_error = "an earlier failure"

        await sync_server(session_factory, pool, server_id)

        server = await load_server(session_factory, server_id)
        assert server.last_synced_at is not None
        assert server.last_error is None

    async def test_an_unreachable_server_stores_last_error_and_raises(
        self, session_factory: SessionFactory, pool: McpSessionPool
    ) -> None:
        dead_id = await add_server(session_factory, url=f"http://127.0.0.1:{free_port()}/mcp")

        with pytest.raises(McpSyncError) as raised:
            await sync_server(session_factory, pool, dead_id)

        server = await load_server(session_factory, dead_id)
        assert server.last_error == raised.value.message
        assert "tools/list failed" in server.last_error
        assert server.last_synced_at is None

    async def test_an_unknown_server_is_not_found(self, session_factory: SessionFactory, pool: McpSessionPool) -> None:
        with pytest.raises(NotFoundError):
            await sync_server(session_factory, pool, "mcp_unknown")


class TestRefusedSchemas:
    """Schemas the platform will not serve (issue #11, items 1 and 5): never served, flagged with the reason."""

    REMOTE = {"type": "object", "properties": {"message": {"$ref": "http://127.0.0.1:9/enum"}}}

    async def test_a_new_tool_with_a_remote_ref_is_not_stored_and_the_reason_is_kept(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        server.set_state({"input_schemas": {"echo": self.REMOTE}})

        report = await sync_server(session_factory, pool, server_id)

        assert [entry.split(":")[0] for entry in report.refused] == ["echo"]
        assert "/properties/message/$ref" in report.refused[0]
        assert mcp_tool_id(server_id, "echo") not in report.added
        server_row = await load_server(session_factory, server_id)
        assert server_row.last_error is not None and server_row.last_error.startswith("Not served: echo: ")
        assert "/properties/message/$ref" in server_row.last_error

    async def test_a_stored_tool_whose_schema_turns_unsafe_is_disabled_keeps_its_schema_and_comes_back(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        await sync_server(session_factory, pool, server_id)
        echo_id = mcp_tool_id(server_id, "echo")
        accepted = (await load_tool(session_factory, echo_id)).input_schema
        server.set_state({"input_schemas": {"echo": {"type": "object", "properties": {"m": {"pattern": "(a)\\1"}}}}})

        report = await sync_server(session_factory, pool, server_id)

        echo = await load_tool(session_factory, echo_id)
        assert (echo.status, echo.tags, echo.input_schema) == ("DISABLED", ["mcp:schema-refused"], accepted)
        assert echo_id in report.disabled and echo_id not in report.vanished

        server.set_state({})
        report = await sync_server(session_factory, pool, server_id)

        echo = await load_tool(session_factory, echo_id)
        assert (echo.status, echo.tags) == ("ACTIVE", [])
        assert echo_id in report.reactivated
        assert (await load_server(session_factory, server_id)).last_error is None

    async def test_a_tool_an_admin_disabled_stays_disabled_after_a_refusal(
        self, session_factory: SessionFactory, pool: McpSessionPool, server: HttpMcpServer, server_id: str
    ) -> None:
        await sync_server(session_factory, pool, server_id)
        echo_id = mcp_tool_id(server_id, "echo")
        async with session_factory() as session, session.begin():
            await set_tool_status(session, SYSTEM_PRINCIPAL, echo_id, "DISABLED")
        server.set_state({"input_schemas": {"echo": self.REMOTE}})
        await sync_server(session_factory, pool, server_id)
        server.set_state({})

        await sync_server(session_factory, pool, server_id)

        assert (await load_tool(session_factory, echo_id)).status == "DISABLED"
