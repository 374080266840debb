"""A third-party MCP server over STDIO: ``mcp-server-time`` from PyPI, run as a subprocess."""

from __future__ import annotations

import os
import signal

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.gateway.envelope import MCP_ERROR, ToolFailure
from app.ids import mcp_tool_id
from app.mcp.executor import McpExecutor
from app.mcp.pool import McpSessionPool
from app.mcp.sync import sync_server
from tests.support.mcp import TIME_SERVER_COMMAND, add_server, invocation, load_tool
from tests.support.processes import child_pids, wait_until

SessionFactory = async_sessionmaker[AsyncSession]
TIME_SERVER_MARKER = "mcp_server_time"


@pytest.fixture
async def server_id(session_factory: SessionFactory) -> str:
    return await add_server(session_factory, command=TIME_SERVER_COMMAND)


class TestTimeServerDiscovery:
    async def test_sync_stores_both_tools_with_their_schemas(
        self, session_factory: SessionFactory, pool: McpSessionPool, server_id: str
    ) -> None:
        report = await sync_server(session_factory, pool, server_id)

        current_id = mcp_tool_id(server_id, "get_current_time")
        convert_id = mcp_tool_id(server_id, "convert_time")
        assert sorted(report.added) == sorted([current_id, convert_id])
        current = await load_tool(session_factory, current_id)
        assert current.type == "MCP"
        assert current.name == "get_current_time"
        assert current.mcp_server_id == server_id
        assert current.status == "ACTIVE"
        assert current.side_effect == "READ"  # the server declares readOnlyHint
        assert current.input_schema["required"] == ["timezone"]
        assert current.output_schema is not None
        assert "datetime" in current.output_schema["properties"]
        convert = await load_tool(session_factory, convert_id)
        assert set(convert.input_schema["required"]) == {"source_timezone", "time", "target_timezone"}


class TestTimeServerCalls:
    async def test_get_current_time_returns_structured_data(
        self, session_factory: SessionFactory, pool: McpSessionPool, server_id: str
    ) -> None:
        await sync_server(session_factory, pool, server_id)
        tool = await load_tool(session_factory, mcp_tool_id(server_id, "get_current_time"))
        executor = McpExecutor(pool, session_factory)

        data = await executor.execute(invocation(tool, {"timezone": "Asia/Tokyo"}))

        assert data["timezone"] == "Asia/Tokyo"
        assert data["datetime"].endswith("+09:00")

    async def test_one_process_and_one_session_serve_every_call(
        self, session_factory: SessionFactory, pool: McpSessionPool, server_id: str
    ) -> None:
        await sync_server(session_factory, pool, server_id)
        tool = await load_tool(session_factory, mcp_tool_id(server_id, "get_current_time"))
        executor = McpExecutor(pool, session_factory)

        await executor.execute(invocation(tool, {"timezone": "UTC"}))
        session_after_first = pool.live_session(server_id)
        processes_after_first = child_pids(TIME_SERVER_MARKER)
        await executor.execute(invocation(tool, {"timezone": "Europe/Paris"}))
        await executor.execute(invocation(tool, {"timezone": "America/New_York"}))

        assert session_after_first is not None
        assert pool.live_session(server_id) is session_after_first
        assert pool.connect_count(server_id) == 1  # the sync's session served the calls too
        assert len(processes_after_first) == 1
        assert child_pids(TIME_SERVER_MARKER) == processes_after_first

    async def test_tool_error_is_mcp_error_with_the_servers_text(
        self, session_factory: SessionFactory, pool: McpSessionPool, server_id: str
    ) -> None:
        await sync_server(session_factory, pool, server_id)
        tool = await load_tool(session_factory, mcp_tool_id(server_id, "get_current_time"))
        executor = McpExecutor(pool, session_factory)

        with pytest.raises(ToolFailure) as failure:
            await executor.execute(invocation(tool, {"timezone": "Mars/Olympus_Mons"}))

        assert failure.value.error.code == MCP_ERROR
        assert "Invalid timezone" in failure.value.error.message
        assert failure.value.retryable is False
        # A tool error says nothing bad about the connection: it is kept.
        assert pool.live_session(server_id) is not None
        assert pool.connect_count(server_id) == 1

    async def test_a_killed_process_is_replaced_on_the_next_call(
        self, session_factory: SessionFactory, pool: McpSessionPool, server_id: str
    ) -> None:
        await sync_server(session_factory, pool, server_id)
        tool = await load_tool(session_factory, mcp_tool_id(server_id, "get_current_time"))
        executor = McpExecutor(pool, session_factory)
        (first_pid,) = child_pids(TIME_SERVER_MARKER)

        os.kill(first_pid, signal.SIGKILL)
        # The pool notices the end of the process's stdout and drops the session.
        await wait_until(lambda: pool.live_session(server_id) is None)
        data = await executor.execute(invocation(tool, {"timezone": "UTC"}))

        assert data["timezone"] == "UTC"
        assert pool.connect_count(server_id) == 2
        (second_pid,) = child_pids(TIME_SERVER_MARKER)
        assert second_pid != first_pid

    async def test_close_stops_the_process(
        self, session_factory: SessionFactory, pool: McpSessionPool, server_id: str
    ) -> None:
        await sync_server(session_factory, pool, server_id)
        assert len(child_pids(TIME_SERVER_MARKER)) == 1

        await pool.close()

        assert pool.live_session(server_id) is None
        assert child_pids(TIME_SERVER_MARKER) == set()
