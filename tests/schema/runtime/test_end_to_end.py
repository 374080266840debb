"""End to end: an agent with a CUSTOM tool, an MCP tool (a real third-party server over
STDIO) and a knowledge base answers in several steps; every call appears once in the
`toolCalls` log and once on the `toolCalls` subscription."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from app.config import Settings
from app.gateway.service import TOOL_CALLS_TOPIC
from app.main import create_app
from tests.conftest import GraphQLClient, Keys
from tests.schema.runtime import runtime_settings
from tests.schema.runtime.test_run_events import (
    connect,
    invoke_over_http,
    post,
    receive_message,
    wait_for_subscribers,
)
from tests.support.http_tool_server import ToolServer, running_tool_server
from tests.support.mcp import TIME_SERVER_COMMAND
from tests.support.openai_server import OpenAIServer, call, final, respond, tool_calls
from tests.support.openai_server import openai_server as openai_server

SETUP = {
    "kb": """mutation KB($input: CreateKnowledgeBaseInput!) {
        createKnowledgeBase(input: $input) { knowledgeBase { id } userErrors { code message } } }""",
    "doc": """mutation Doc($input: AddDocumentInput!) {
        addDocument(input: $input) { document { id chunkCount } userErrors { code message } } }""",
    "tool": """mutation Tool($input: CreateToolInput!) {
        createTool(input: $input) { tool { id } userErrors { code message } } }""",
    "mcp": """mutation Mcp($input: RegisterMcpServerInput!) {
        registerMcpServer(input: $input) { mcpServer { id } userErrors { code message } } }""",
    "sync": """mutation Sync($id: ID!) { syncMcpServer(id: $id) { mcpServer { id } userErrors { code message } } }""",
    "agent": """mutation Agent($input: CreateAgentInput!) {
        createAgent(input: $input) { agent { id } userErrors { code message } } }""",
}
CALLS_SUBSCRIPTION = """
subscription Calls($agentId: ID!) { toolCalls(filter: {agentId: $agentId}) { id toolId status run { id } } }
"""
CALL_LOG = """
query Log($runId: ID!) { toolCalls(filter: {runId: $runId}) { totalCount edges { node { id toolId status } } } }
"""
POLICY = "Refunds are accepted within 30 days of delivery when the item is unused."


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


def _answer_from_tools(body: dict[str, Any]) -> Any:
    tool_results = [json.loads(message["content"]) for message in body["messages"] if message["role"] == "tool"]
    assert all(result["status"] == "SUCCESS" for result in tool_results), tool_results
    return final(f"Used {len(tool_results)} tool results.")


class TestAgentWithCustomMcpAndKnowledge:
    async def test_answers_in_several_steps_and_logs_and_streams_every_call_once(
        self,
        gql: GraphQLClient,
        keys: Keys,
        admin_key: str,
        settings: Settings,
        openai_server: OpenAIServer,
        tool_server: ToolServer,
    ) -> None:
        space = await keys.space("shop")
        endpoint_key = f"e2e-{secrets.token_hex(4)}"  # the tool server outlives one backend's run
        kb = await gql.execute(SETUP["kb"], {"input": {"spaceId": space.id, "name": "policies", "label": "Policies"}})
        kb_id = kb["createKnowledgeBase"]["knowledgeBase"]["id"]
        document = await gql.execute(
            SETUP["doc"],
            {"input": {"knowledgeBaseId": kb_id, "title": "Refund policy", "text": POLICY, "source": "policy.md"}},
        )
        assert document["addDocument"]["userErrors"] == []
        custom = await gql.execute(
            SETUP["tool"],
            {
                "input": {
                    "name": "order_lookup",
                    "label": "Order lookup",
                    "description": "Look up an order by id.",
                    "inputSchema": {
                        "type": "object",
                        "properties": {"orderId": {"type": "string"}},
                        "required": ["orderId"],
                    },
                    "endpoint": tool_server.url(f"/ok/{endpoint_key}"),
                    "spaceIds": [space.id],
                }
            },
        )
        custom_id = custom["createTool"]["tool"]["id"]
        server = await gql.execute(
            SETUP["mcp"], {"input": {"name": "clock", "transport": "STDIO", "command": TIME_SERVER_COMMAND}}
        )
        server_id = server["registerMcpServer"]["mcpServer"]["id"]
        assert (await gql.execute(SETUP["sync"], {"id": server_id}))["syncMcpServer"]["userErrors"] == []
        mcp_tool = f"{server_id}__get_current_time"
        model = openai_server.model("e2e")
        agent = await gql.execute(
            SETUP["agent"],
            {
                "input": {
                    "spaceId": space.id,
                    "name": "Shop assistant",
                    "model": model.name,
                    "systemPrompt": "You help shop customers.",
                    "activatedToolIds": ["bt_search_knowledge", custom_id, mcp_tool],
                    "mountedKnowledgeBaseIds": [kb_id],
                    "maxSteps": 5,
                }
            },
        )
        assert agent["createAgent"]["userErrors"] == []
        agent_id = agent["createAgent"]["agent"]["id"]
        model.push(
            tool_calls(call("search_knowledge", {"query": "refund within days"})),
            tool_calls(call("order_lookup", {"orderId": "A-17"}), call("get_current_time", {"timezone": "UTC"})),
            respond(_answer_from_tools),
        )

        run, streamed = await asyncio.to_thread(
            self._run_while_subscribed, runtime_settings(settings, openai_server), admin_key, agent_id
        )

        assert run["status"] == "SUCCEEDED", run
        assert run["output"] == "Used 3 tool results."
        # The knowledge base reached the model twice: in the prompt and through the search tool.
        first_request, second_request = model.requests[0], model.requests[1]
        assert "30 days" in first_request["messages"][0]["content"]
        search_result = next(m for m in second_request["messages"] if m["role"] == "tool")
        assert "30 days" in search_result["content"]
        assert [entry["body"] for entry in await tool_server.requests("ok", endpoint_key)] == [{"orderId": "A-17"}]

        log = (await gql.execute(CALL_LOG, {"runId": run["id"]}))["toolCalls"]
        logged = sorted((edge["node"]["id"], edge["node"]["toolId"]) for edge in log["edges"])
        assert log["totalCount"] == 3
        assert sorted(call_id for call_id, _ in logged) == sorted({call_id for call_id, _ in logged})
        assert {tool for _, tool in logged} == {"bt_search_knowledge", custom_id, mcp_tool}
        assert sorted((call["id"], call["toolId"]) for call in streamed) == logged
        assert all(call["run"]["id"] == run["id"] and call["status"] == "SUCCESS" for call in streamed)

    @staticmethod
    def _run_while_subscribed(
        settings: Settings, key: str, agent_id: str
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        with (
            TestClient(create_app(settings)) as client,
            client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws,
        ):
            connect(ws, key)
            ws.send_json(
                {
                    "id": "calls",
                    "type": "subscribe",
                    "payload": {"query": CALLS_SUBSCRIPTION, "variables": {"agentId": agent_id}},
                }
            )
            wait_for_subscribers(client, TOOL_CALLS_TOPIC)
            invoked = invoke_over_http(
                client, key, agent_id, "What is the refund policy for order A-17?", run_async=False
            )
            streamed = []
            for _ in range(3):
                message = receive_message(ws)
                assert message is not None and message["type"] == "next", message
                streamed.append(message["payload"]["data"]["toolCalls"])
            # Exactly once: nothing more arrives.
            assert receive_message(ws, timeout_s=0.5) is None
            run = post(
                client, key, "query R($id: ID!) { agentRun(id: $id) { id status output } }", {"id": invoked["id"]}
            )
            return run["agentRun"], streamed
