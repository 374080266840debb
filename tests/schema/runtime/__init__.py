"""Tests of the agent runtime's API; the operations, the app against the scripted model
server and the helpers they share live here."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from tests.conftest import GraphQLClient
from tests.support.openai_server import API_KEY, OpenAIServer

RUN_FIELDS = """
fragment RunFields on AgentRun {
  id status input output error { code message detail } steps promptTokens completionTokens
  model sessionId skillVersions { skillId version channel } promptWarnings delegationDepth
  startedAt finishedAt
  agent { id }
  toolCalls { id toolId status arguments result error { code message detail } traceId }
}
"""

INVOKE_AGENT = (
    """
mutation InvokeAgent($input: InvokeAgentInput!) {
  invokeAgent(input: $input) {
    run { ...RunFields }
    userErrors { field code message }
  }
}
"""
    + RUN_FIELDS
)

AGENT_RUN = (
    """
query AgentRun($id: ID!) { agentRun(id: $id) { ...RunFields } }
"""
    + RUN_FIELDS
)

AGENT_RUNS = """
query AgentRuns($id: ID!) {
  agent(id: $id) { runs(first: 50) { totalCount edges { node { id status input output delegationDepth } } } }
}
"""

PREVIEW_PROMPT = """
query PreviewPrompt($agentId: ID!, $message: String!) {
  previewPrompt(agentId: $agentId, message: $message) {
    systemPrompt
    sections { kind source text truncated }
    tokenEstimate
    warnings
    tools
  }
}
"""

CREATE_AGENT = """
mutation CreateAgent($input: CreateAgentInput!) {
  createAgent(input: $input) {
    agent { id name model systemPrompt maxSteps outputFormat }
    userErrors { field code message }
  }
}
"""

CREATE_SKILL = """
mutation CreateSkill($input: CreateSkillInput!) {
  createSkill(input: $input) {
    skill { id version status }
    userErrors { field code message }
  }
}
"""

SET_STATUS = """
mutation SetStatus($input: SetStatusInput!) {
  setStatus(input: $input) { node { id } userErrors { field code message } }
}
"""

CALLS_OF_RUN = """
query CallsOfRun($runId: ID!) {
  toolCalls(filter: {runId: $runId}, first: 100) {
    totalCount
    edges { node { id toolId status arguments result error { code message detail } traceId run { id status } } }
  }
}
"""

RUN_TIMEOUT_S = 20.0


@dataclass
class RuntimeApp:
    """A Quiver app whose model endpoint is the scripted server, and a client for it."""

    app: FastAPI
    http: httpx.AsyncClient
    settings: Settings

    def client(self, key: str) -> GraphQLClient:
        return GraphQLClient(http=self.http, key=key)


def runtime_settings(settings: Settings, server: OpenAIServer | None, **overrides: Any) -> Settings:
    """The session's settings (same database) with the model endpoint and ``overrides``."""
    values = settings.model_dump()
    if server is not None:
        values.update(openai_base_url=server.base_url, openai_api_key=API_KEY)
    values.update(overrides)
    return Settings(**values)


@asynccontextmanager
async def runtime_app(settings: Settings, server: OpenAIServer | None, **overrides: Any) -> AsyncIterator[RuntimeApp]:
    """An app of its own (engine, bus, runtime) over the session's database."""
    own_settings = runtime_settings(settings, server, **overrides)
    app = create_app(own_settings)
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://quiver.test") as http:
            yield RuntimeApp(app=app, http=http, settings=own_settings)
    finally:
        await app.state.services.close()


async def create_agent(gql: GraphQLClient, space_id: str, model: str, **fields: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "spaceId": space_id,
        "name": fields.pop("name", "Runtime test agent"),
        "model": model,
        "systemPrompt": fields.pop("systemPrompt", "You are a precise assistant. Use tools when they help."),
        **fields,
    }
    payload = (await gql.execute(CREATE_AGENT, {"input": values}))["createAgent"]
    assert payload["userErrors"] == [], payload["userErrors"]
    agent: dict[str, Any] = payload["agent"]
    return agent


async def create_skill(gql: GraphQLClient, name: str, prompt: str, space_id: str | None = None) -> dict[str, Any]:
    values: dict[str, Any] = {
        "name": name,
        "label": name.title(),
        "description": f"The {name} method.",
        "prompt": prompt,
    }
    if space_id is not None:
        values["spaceId"] = space_id
    payload = (await gql.execute(CREATE_SKILL, {"input": values}))["createSkill"]
    assert payload["userErrors"] == [], payload["userErrors"]
    skill: dict[str, Any] = payload["skill"]
    return skill


async def set_status(gql: GraphQLClient, identifier: str, status: str) -> None:
    payload = (await gql.execute(SET_STATUS, {"input": {"id": identifier, "status": status}}))["setStatus"]
    assert payload["userErrors"] == [], payload["userErrors"]


async def invoke_payload(gql: GraphQLClient, agent_id: str, message: str, **fields: Any) -> dict[str, Any]:
    """invokeAgent's payload: ``run`` and ``userErrors``."""
    payload: dict[str, Any] = (
        await gql.execute(INVOKE_AGENT, {"input": {"agentId": agent_id, "message": message, **fields}})
    )["invokeAgent"]
    return payload


async def invoke(gql: GraphQLClient, agent_id: str, message: str, **fields: Any) -> dict[str, Any]:
    """invokeAgent that must start; returns the run."""
    payload = await invoke_payload(gql, agent_id, message, **fields)
    assert payload["userErrors"] == [], payload["userErrors"]
    run: dict[str, Any] = payload["run"]
    return run


async def get_run(gql: GraphQLClient, run_id: str) -> dict[str, Any] | None:
    run: dict[str, Any] | None = (await gql.execute(AGENT_RUN, {"id": run_id}))["agentRun"]
    return run


async def wait_for_run(gql: GraphQLClient, run_id: str, timeout_s: float = RUN_TIMEOUT_S) -> dict[str, Any]:
    """Polls agentRun until the run has finished."""
    deadline = time.monotonic() + timeout_s
    while True:
        run = await get_run(gql, run_id)
        assert run is not None
        if run["finishedAt"] is not None:
            return run
        assert time.monotonic() < deadline, f"run {run_id} still {run['status']} after {timeout_s}s"
        await asyncio.sleep(0.05)


async def calls_of_run(gql: GraphQLClient, run_id: str) -> list[dict[str, Any]]:
    connection = (await gql.execute(CALLS_OF_RUN, {"runId": run_id}))["toolCalls"]
    nodes = [edge["node"] for edge in connection["edges"]]
    assert connection["totalCount"] == len(nodes)
    return nodes


def messages_of(request: dict[str, Any]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = request["messages"]
    return messages


def tool_messages(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tool messages of a model request, by tool_call_id, their content parsed."""
    return {
        message["tool_call_id"]: json.loads(message["content"])
        for message in messages_of(request)
        if message["role"] == "tool"
    }


def roles(request: dict[str, Any]) -> list[str]:
    return [message["role"] for message in messages_of(request)]


def function_names(request_or_tools: dict[str, Any] | list[dict[str, Any]]) -> list[str]:
    tools = request_or_tools.get("tools", []) if isinstance(request_or_tools, dict) else request_or_tools
    return [tool["function"]["name"] for tool in tools]
