"""Quiver's MCP endpoints through the official SDK's client over streamable HTTP: listing and
paging, calls through the gateway (log row, event, origin), errors as isError, prompts,
list_changed after a binding change (both protocol eras) and keys that must be refused."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ToolsListChanged
from sqlalchemy import select

from app.gateway.models import ToolCall
from app.mcp_server import endpoint
from app.principal import Role
from tests.app.mcp_server.conftest import PAGE_SIZE, McpServer
from tests.conftest import GraphQLClient, Keys
from tests.schema.agents.test_agents import create_agent
from tests.schema.gateway import SessionFactory, call_log, fresh, set_tool_columns
from tests.schema.knowledge.operations import create_kb
from tests.schema.skills.operations import created_skill
from tests.schema.tools.operations import SET_SPACE_BINDINGS, create_tool


async def all_tools(client: Any) -> list[types.Tool]:
    """Every page of tools/list, following the cursor."""
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(1000):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools
    raise AssertionError("tools/list never ended")


async def bind(gql: GraphQLClient, tool_id: str, space_ids: list[str]) -> None:
    payload = (await gql.execute(SET_SPACE_BINDINGS, {"input": {"id": tool_id, "spaceIds": space_ids}}))[
        "setSpaceBindings"
    ]
    assert payload["userErrors"] == [], payload


async def custom_tool(gql: GraphQLClient, space_id: str, **fields: Any) -> dict[str, Any]:
    """A CUSTOM tool bound to one space (its endpoint is never called by these tests)."""
    return await create_tool(
        gql, fields.pop("name", fresh("mcp_tool")), endpoint="http://127.0.0.1:9/never", spaceIds=[space_id], **fields
    )


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


class TestListing:
    async def test_lists_what_the_space_sees_with_titles_schemas_and_hints(
        self, mcp_server: McpServer, gql: GraphQLClient, keys: Keys, session_factory: SessionFactory
    ) -> None:
        space, other = await keys.space("listing"), await keys.space("elsewhere")
        mine = await custom_tool(
            gql,
            space.id,
            label="Look up an order",
            sideEffect="WRITE",
            inputSchema={
                "type": "object",
                "properties": {"orderId": {"type": "string"}, "tenant": {"type": "string"}},
                "required": ["orderId", "tenant"],
            },
            outputSchema={"type": "object", "properties": {"status": {"type": "string"}}},
        )
        await set_tool_columns(session_factory, mine["id"], static_arguments={"tenant": "acme"})
        theirs = await custom_tool(gql, other.id)
        key = await keys.for_space(space.id, Role.VIEWER)
        async with mcp_server.client("spaces", space.id, key) as client:
            tools = {tool.name: tool for tool in await all_tools(client)}
        assert mine["name"] in tools and theirs["name"] not in tools
        assert {"calculator", "current_time", "search_knowledge"} <= set(tools)  # global builtins
        listed = tools[mine["name"]]
        assert listed.title == "Look up an order"
        assert listed.input_schema == {
            "type": "object",
            "properties": {"orderId": {"type": "string"}},
            "required": ["orderId"],
        }
        assert listed.output_schema == {"type": "object", "properties": {"status": {"type": "string"}}}
        assert listed.annotations is not None and listed.annotations.read_only_hint is False
        calculator = tools["calculator"].annotations
        assert calculator is not None and calculator.read_only_hint is True
        assert listed.meta == {"quiver/toolId": mine["id"], "quiver/toolType": "CUSTOM"}

    async def test_pages_through_every_visible_tool(
        self, mcp_server: McpServer, gql: GraphQLClient, keys: Keys
    ) -> None:
        space = await keys.space("paging")
        created = [await custom_tool(gql, space.id) for _ in range(PAGE_SIZE + 2)]
        visible = (
            await gql.execute(
                "query V($id: ID!) { space(id: $id) { visibleTools(first: 100) { edges { node { name } } } } }",
                {"id": space.id},
            )
        )["space"]["visibleTools"]["edges"]
        key = await keys.for_space(space.id, Role.MEMBER)
        async with mcp_server.client("spaces", space.id, key) as client:
            first = await client.list_tools()
            assert len(first.tools) == PAGE_SIZE and first.next_cursor is not None
            names = [tool.name for tool in await all_tools(client)]
            with pytest.raises(MCPError, match="Invalid cursor"):
                await client.list_tools(cursor="%%%not-a-cursor")
        assert len(names) == len(set(names)) == len(visible)
        assert {edge["node"]["name"] for edge in visible} == set(names)
        assert {tool["name"] for tool in created} <= set(names)


class TestCalls:
    async def test_a_call_goes_through_the_gateway_once(
        self, mcp_server: McpServer, gql: GraphQLClient, keys: Keys, session_factory: SessionFactory
    ) -> None:
        space = await keys.space("calls")
        key = await keys.for_space(space.id, Role.MEMBER)
        async with mcp_server.client("spaces", space.id, key) as client:
            result = await client.call_tool("calculator", {"expression": "6 * 7"})
        assert result.is_error is False
        assert result.structured_content is not None and result.structured_content["result"] == 42
        assert '"result": 42' in text_of(result)
        assert result.meta is not None
        call_id = result.meta["quiver/callId"]
        async with session_factory() as session:
            rows = (await session.scalars(select(ToolCall).where(ToolCall.space_id == space.id))).all()
        assert [(row.id, row.tool_id, row.origin, row.status) for row in rows] == [
            (call_id, "bt_calculator", "MCP", "SUCCESS")
        ]
        log = await call_log(gql, spaceId=space.id, origin="MCP")
        assert [node["id"] for node in log["nodes"]] == [call_id]

    async def test_an_idempotency_key_in_meta_replays_the_first_result(
        self, mcp_server: McpServer, gql: GraphQLClient, keys: Keys
    ) -> None:
        space = await keys.space("idempotent")
        key = await keys.for_space(space.id, Role.MEMBER)
        meta: Any = {"quiver/idempotencyKey": "order-7"}
        async with mcp_server.client("spaces", space.id, key) as client:
            first = await client.call_tool("calculator", {"expression": "2 + 3"}, meta=meta)
            again = await client.call_tool("calculator", {"expression": "2 + 3"}, meta=meta)
            conflict = await client.call_tool("calculator", {"expression": "2 + 4"}, meta=meta)
        assert first.structured_content == again.structured_content
        assert conflict.is_error is True and text_of(conflict).startswith("IDEMPOTENCY_CONFLICT: ")
        log = await call_log(gql, spaceId=space.id)
        assert [(node["idempotencyKey"], node["attempts"]) for node in log["nodes"][:2]] == [
            ("order-7", 1),
            ("order-7", 0),  # replayed, not executed again
        ]

    async def test_gateway_refusals_come_back_as_is_error(
        self, mcp_server: McpServer, gql: GraphQLClient, keys: Keys
    ) -> None:
        space = await keys.space("refusals")
        member = await keys.for_space(space.id, Role.MEMBER)
        viewer = await keys.for_space(space.id, Role.VIEWER)
        async with mcp_server.client("spaces", space.id, member) as client:
            invalid = await client.call_tool("calculator", {"expression": 7})
            unknown = await client.call_tool("no_such_tool", {})
        async with mcp_server.client("spaces", space.id, viewer) as client:
            denied = await client.call_tool("calculator", {"expression": "1"})
        for result, code in (
            (invalid, "PARAM_INVALID"),
            (unknown, "TOOL_NOT_AVAILABLE"),
            (denied, "PERMISSION_DENIED"),
        ):
            assert result.is_error is True
            assert text_of(result).startswith(f"{code}: ")
            assert result.meta is not None and result.meta["quiver/error"]["code"] == code
        log = await call_log(gql, spaceId=space.id)
        assert [(node["toolId"], node["error"]["code"]) for node in log["nodes"]] == [
            ("bt_calculator", "PARAM_INVALID"),
            ("unknown:no_such_tool", "TOOL_NOT_AVAILABLE"),
            ("bt_calculator", "PERMISSION_DENIED"),
        ]
        assert {node["origin"] for node in log["nodes"]} == {"MCP"}

    async def test_a_nul_in_a_name_or_a_key_is_refused_and_logged(
        self, mcp_server: McpServer, gql: GraphQLClient, keys: Keys
    ) -> None:
        # PostgreSQL text cannot hold U+0000: both were an INTERNAL_ERROR there, the row lost.
        space = await keys.space("nul")
        member = await keys.for_space(space.id, Role.MEMBER)
        meta: Any = {"quiver/idempotencyKey": "k\x00"}
        async with mcp_server.client("spaces", space.id, member) as client:
            unknown = await client.call_tool("calc\x00ulator", {})
            keyed = await client.call_tool("calculator", {"expression": "1"}, meta=meta)
        for result, code in ((unknown, "TOOL_NOT_AVAILABLE"), (keyed, "PARAM_INVALID")):
            assert result.is_error is True
            assert text_of(result).startswith(f"{code}: ")
        log = await call_log(gql, spaceId=space.id)
        assert [(node["toolId"], node["error"]["code"], node["idempotencyKey"]) for node in log["nodes"]] == [
            ("unknown:calc\ufffdulator", "TOOL_NOT_AVAILABLE", None),
            ("bt_calculator", "PARAM_INVALID", "k\ufffd"),
        ]

    async def test_a_huge_tool_name_is_echoed_only_as_a_short_prefix(
        self, mcp_server: McpServer, gql: GraphQLClient, keys: Keys
    ) -> None:
        space = await keys.space("hugename")
        member = await keys.for_space(space.id, Role.MEMBER)
        name = "x" * 100_000
        async with mcp_server.client("spaces", space.id, member) as client:
            unknown = await client.call_tool(name, {})
            await client.call_tool("y" * 100, {})  # the longest name logged whole
            with pytest.raises(MCPError) as prompt_error:
                await client.get_prompt(name)
        assert unknown.is_error is True
        assert text_of(unknown).startswith("TOOL_NOT_AVAILABLE: ")
        assert unknown.meta is not None
        error = unknown.meta["quiver/error"]
        assert error["code"] == "TOOL_NOT_AVAILABLE"
        echoed = json.dumps([text_of(unknown), error], ensure_ascii=False)
        assert "x" * 201 not in echoed, echoed[:300]
        assert "x" * 50 in echoed
        assert "x" * 201 not in str(prompt_error.value)
        log = await call_log(gql, spaceId=space.id)
        # Cut to 100 characters, the cut marked with an ellipsis (it was 100 x's: a name of its own).
        assert {(node["toolId"], node["error"]["code"]) for node in log["nodes"]} == {
            ("unknown:" + "x" * 99 + "…", "TOOL_NOT_AVAILABLE"),
            ("unknown:" + "y" * 100, "TOOL_NOT_AVAILABLE"),
        }
        assert len(log["nodes"]) == 2
        assert "x" * 201 not in json.dumps(log["nodes"])

    async def test_errors_echo_only_a_short_prefix_of_a_huge_method(self, mcp_server: McpServer, keys: Keys) -> None:
        # The SDK answered an unknown method with the whole method name in error.data.
        space = await keys.space("hugemethod")
        member = await keys.for_space(space.id, Role.MEMBER)
        url = mcp_server.url("spaces", space.id)
        headers = {
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {member}",
            "Mcp-Protocol-Version": "2025-11-25",
        }
        initialize = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"},
        }
        async with httpx.AsyncClient(trust_env=False) as http:
            opened = await http.post(
                url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize}, headers=headers
            )
            headers["Mcp-Session-Id"] = opened.headers["mcp-session-id"]
            await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
            answer = await http.post(
                url, json={"jsonrpc": "2.0", "id": 2, "method": "x" * 100_000, "params": {}}, headers=headers
            )
        assert answer.status_code == 200
        [line] = [line for line in answer.text.splitlines() if line.startswith("data: ")]
        error = json.loads(line.removeprefix("data: "))["error"]
        assert error["code"] == -32601
        assert error["data"] == "x" * 200 + "\u2026"


class TestAgentEndpoint:
    async def test_activated_tools_knowledge_search_and_skills_as_prompts(
        self, mcp_server: McpServer, gql: GraphQLClient, keys: Keys
    ) -> None:
        space = await keys.space("agentmcp")
        kb = await create_kb(gql, space.id)
        skill = await created_skill(gql, spaceId=space.id, name=fresh("triage").replace("_", "-"))
        payload = await create_agent(
            gql,
            space.id,
            activatedToolIds=["bt_calculator"],
            mountedKnowledgeBaseIds=[kb],
            boundSkillIds=[skill["id"]],
        )
        assert payload["userErrors"] == [], payload
        agent = payload["agent"]
        key = await keys.for_space(space.id, Role.MEMBER)
        async with mcp_server.client("agents", agent["id"], key) as client:
            names = sorted(tool.name for tool in await all_tools(client))
            prompts = (await client.list_prompts()).prompts
            got = await client.get_prompt(prompts[0].name)
            searched = await client.call_tool("search_knowledge", {"query": "refunds"})
        assert names == ["calculator", "search_knowledge"]
        assert [(prompt.name, prompt.description) for prompt in prompts] == [(skill["name"], skill["description"])]
        message = got.messages[0].content
        assert isinstance(message, types.TextContent) and message.text == skill["prompt"]
        assert got.meta is not None and got.meta["quiver/skillVersion"] == skill["version"]
        assert searched.is_error is False, text_of(searched)
        assert searched.structured_content is not None
        assert searched.structured_content["searchedKnowledgeBaseIds"] == [kb]
        log = await call_log(gql, agentId=agent["id"])
        assert [(node["toolId"], node["origin"]) for node in log["nodes"]] == [("bt_search_knowledge", "MCP")]


class TestListChanged:
    async def test_a_binding_change_reaches_a_handshake_session(
        self, mcp_server: McpServer, gql: GraphQLClient, keys: Keys
    ) -> None:
        space = await keys.space("changed")
        tool = await custom_tool(gql, (await keys.space("first_home")).id)
        key = await keys.for_space(space.id, Role.MEMBER)
        changed = asyncio.Event()

        async def on_message(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                changed.set()

        async with mcp_server.client("spaces", space.id, key, mode="legacy", message_handler=on_message) as client:
            assert client.server_capabilities.tools is not None
            assert client.server_capabilities.tools.list_changed is True
            assert tool["name"] not in {item.name for item in await all_tools(client)}
            await asyncio.sleep(0.3)  # the client's GET stream opens after initialization
            await bind(gql, tool["id"], [space.id])
            await asyncio.wait_for(changed.wait(), 10)
            assert tool["name"] in {item.name for item in await all_tools(client)}

    async def test_a_binding_change_reaches_a_listen_stream(
        self, mcp_server: McpServer, gql: GraphQLClient, keys: Keys
    ) -> None:
        space = await keys.space("listened")
        tool = await custom_tool(gql, (await keys.space("second_home")).id)
        key = await keys.for_space(space.id, Role.MEMBER)
        async with mcp_server.client("spaces", space.id, key) as client:
            assert client.protocol_version == "2026-07-28"
            assert tool["name"] not in {item.name for item in await all_tools(client)}
            async with client.listen(tools_list_changed=True) as subscription:
                await bind(gql, tool["id"], [space.id])
                event = await asyncio.wait_for(anext(aiter(subscription)), 10)
            assert isinstance(event, ToolsListChanged)
            assert tool["name"] in {item.name for item in await all_tools(client)}


class TestKeys:
    async def test_missing_invalid_and_foreign_keys_are_refused(
        self, mcp_server: McpServer, gql: GraphQLClient, keys: Keys
    ) -> None:
        space, other = await keys.space("guarded"), await keys.space("outsider")
        agent = (await create_agent(gql, space.id))["agent"]
        own = await keys.for_space(space.id, Role.MEMBER)
        foreign = await keys.for_space(other.id, Role.SPACE_ADMIN)
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "probe", "version": "1"},
            },
        }
        headers = {"Accept": "application/json, text/event-stream"}

        async def status(url: str, key: str | None) -> tuple[int, str]:
            auth = {"Authorization": f"Bearer {key}"} if key else {}
            async with httpx.AsyncClient(trust_env=False) as http:
                response = await http.post(url, json=initialize, headers={**headers, **auth})
            return response.status_code, response.text

        space_url, agent_url = mcp_server.url("spaces", space.id), mcp_server.url("agents", agent["id"])
        assert (await status(space_url, None))[0] == 401
        assert (await status(space_url, "not-a-key"))[0] == 401
        assert (await status(space_url, own))[0] == 200
        assert (await status(agent_url, own))[0] == 200
        missing_space = await status(mcp_server.url("spaces", "sp_does_not_exist"), foreign)
        foreign_space = await status(space_url, foreign)
        missing_agent = await status(mcp_server.url("agents", "ag_does_not_exist"), foreign)
        foreign_agent = await status(agent_url, foreign)
        assert missing_space[0] == foreign_space[0] == missing_agent[0] == foreign_agent[0] == 404
        # Nothing tells an existing endpoint from a missing one but the id echoed back.
        assert foreign_space[1].replace(space.id, "ID") == missing_space[1].replace("sp_does_not_exist", "ID")
        with pytest.raises(Exception):  # noqa: B017 - the SDK reports the 404 as its own error type
            async with mcp_server.client("spaces", space.id, foreign) as client:
                await client.list_tools()

    async def test_a_session_answers_only_its_own_key(self, mcp_server: McpServer, keys: Keys) -> None:
        space = await keys.space("sessions")
        own = await keys.for_space(space.id, Role.MEMBER)
        other = await keys.for_space(space.id, Role.MEMBER)
        async with httpx.AsyncClient(trust_env=False) as http:
            opened = await http.post(
                mcp_server.url("spaces", space.id),
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {},
                        "clientInfo": {"name": "probe", "version": "1"},
                    },
                },
                headers={"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {own}"},
            )
            session_id = opened.headers["mcp-session-id"]
            borrowed = await http.post(
                mcp_server.url("spaces", space.id),
                json={"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
                headers={
                    "Accept": "application/json, text/event-stream",
                    "Authorization": f"Bearer {other}",
                    "Mcp-Session-Id": session_id,
                    "Mcp-Protocol-Version": "2025-11-25",
                },
            )
        assert borrowed.status_code == 404

    async def test_sessions_per_key_are_bounded_and_freed_by_delete(
        self, mcp_server: McpServer, keys: Keys, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        space = await keys.space("bounded")
        key = await keys.for_space(space.id, Role.MEMBER)
        monkeypatch.setattr(endpoint, "MAX_SESSIONS_PER_KEY", 1)
        url = mcp_server.url("spaces", space.id)
        headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {key}"}
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "p", "version": "1"},
            },
        }
        async with httpx.AsyncClient(trust_env=False) as http:
            first = await http.post(url, json=initialize, headers=headers)
            assert first.status_code == 200
            refused = await http.post(url, json=initialize, headers=headers)
            assert refused.status_code == 429
            ended = await http.delete(
                url,
                headers={
                    **headers,
                    "Mcp-Session-Id": first.headers["mcp-session-id"],
                    "Mcp-Protocol-Version": "2025-11-25",
                },
            )
            assert ended.status_code < 300
            assert (await http.post(url, json=initialize, headers=headers)).status_code == 200
