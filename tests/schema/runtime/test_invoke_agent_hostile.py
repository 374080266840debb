"""Hostile and odd invokeAgent requests answered the same by an app with the GraphQL hot path
(schema/gateway/hot_path.py) and one with ``QUIVER_GRAPHQL_HOT_PATH=false``, both over one
database and one scripted model: same status, same JSON but for ids and times, never a 500."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.principal import Role
from tests.conftest import Keys
from tests.schema.runtime import RuntimeApp, create_agent, runtime_app
from tests.support.hot_path import normalised
from tests.support.openai_server import OpenAIServer, ScriptedModel, final
from tests.support.openai_server import openai_server as openai_server

SHORT = (
    "mutation($input: InvokeAgentInput!) { invokeAgent(input: $input) { "
    "run { id status output error { code message } } userErrors { field code message } } }"
)
VARYING = frozenset({"id", "runId", "startedAt", "finishedAt", "traceId"})
AGENT = "<agent>"  # replaced by the test's agent id


def body(query: str = SHORT, **fields: Any) -> bytes:
    return json.dumps({"query": query, **fields}).encode()


def agent_input(**more: Any) -> dict[str, Any]:
    return {"agentId": AGENT, "message": "What is 6 * 7?", **more}


def by_hand(message: bytes, more: bytes = b"") -> bytes:
    """A body written by hand, for what ``json.dumps`` will not write."""
    return (
        b'{"query": '
        + json.dumps(SHORT).encode()
        + b', "variables": {"input": {"agentId": "'
        + AGENT.encode()
        + b'", "message": '
        + message
        + more
        + b"}}}"
    )


CASES: dict[str, bytes] = {
    "plain": body(variables={"input": agent_input()}),
    "inline-literal": body(
        f'mutation {{ invokeAgent(input: {{agentId: "{AGENT}", message: "hi"}}) {{ run {{ status output }} }} }}'
    ),
    "an-id-as-a-number": body(variables={"input": agent_input(agentId=7)}),
    "message-missing": body(variables={"input": {"agentId": AGENT}}),
    "message-null": body(variables={"input": agent_input(message=None)}),
    "message-a-number": body(variables={"input": agent_input(message=5)}),
    "an-unknown-field": body(variables={"input": agent_input(nope=True)}),
    "async-a-string": body(variables={"input": agent_input(**{"async": "yes"})}),
    "an-enum": body(variables={"input": agent_input(forceChannel="CANDIDATE")}),
    "an-unknown-enum": body(variables={"input": agent_input(forceChannel="NOPE")}),
    "aliases-and-typename": body(
        "mutation($input: InvokeAgentInput!) { a: invokeAgent(input: $input) { t: __typename "
        "r: run { s: status o: output __typename } } }",
        variables={"input": agent_input()},
    ),
    "a-fragment": body(
        "mutation($input: InvokeAgentInput!) { invokeAgent(input: $input) { run { ...R } } } "
        "fragment R on AgentRun { status output }",
        variables={"input": agent_input()},
    ),
    "two-mutations": body(
        "mutation($input: InvokeAgentInput!) { a: invokeAgent(input: $input) { run { status } } "
        "b: invokeAgent(input: $input) { run { status } } }",
        variables={"input": agent_input()},
    ),
    "operation-name-does-not-match": body(
        "mutation Run($input: InvokeAgentInput!) { invokeAgent(input: $input) { run { status } } }",
        operationName="Other",
        variables={"input": agent_input()},
    ),
    "chinese-and-emoji": body(variables={"input": agent_input(message="六乘以七是多少\uff1f🚀 不是报销 — just math")}),
    "a-long-message": body(variables={"input": agent_input(message="not — " * 10_000)}),
    "a-deep-profile": body(variables={"input": agent_input(userProfile=json.loads('{"a": ' * 55 + "1" + "}" * 55))}),
    "a-long-integer-in-the-profile": by_hand(b'"hi"', b', "userProfile": {"n": 123456789012345678901234567890}'),
    "a-lone-surrogate": by_hand(b'"hi \\ud800"'),
    "a-nul": by_hand(b'"hi \\u0000"'),
    "not-utf8": by_hand(b'"hi \xff"'),
    "an-unknown-agent": body(variables={"input": agent_input(agentId="ag_nothing_here")}),
    "an-agent-id-10k-long": body(variables={"input": agent_input(agentId="ag_" + "x" * 10_000)}),
    "a-session-id-10k-long": body(variables={"input": agent_input(sessionId="s" * 10_000)}),
    "an-idempotency-key-10k-long": body(variables={"input": agent_input(idempotencyKey="k" * 10_000)}),
    "batch": json.dumps([{"query": SHORT, "variables": {"input": agent_input()}}]).encode(),
}


@pytest.fixture(scope="module")
async def hot(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server) as app:
        assert app.app.state.hot_path is not None
        yield app


@pytest.fixture(scope="module")
async def generic(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server, graphql_hot_path=False) as app:
        assert app.app.state.hot_path is None
        yield app


async def post(app: RuntimeApp, content: bytes, key: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    return await app.http.post("/graphql", content=content, headers=headers)


def answer(response: httpx.Response) -> Any:
    return normalised(response.json(), VARYING)


@pytest.mark.parametrize("viewer", ["admin", "viewer-of-another-space"])
@pytest.mark.parametrize("case", list(CASES))
async def test_the_same_answer_with_and_without_the_hot_path(
    hot: RuntimeApp,
    generic: RuntimeApp,
    keys: Keys,
    admin_key: str,
    openai_server: OpenAIServer,
    case: str,
    viewer: str,
) -> None:
    model: ScriptedModel = openai_server.model()
    model.push(*[final("42") for _ in range(4)])
    space = await keys.space("alpha")
    agent = await create_agent(hot.client(admin_key), space.id, model.name)
    key = admin_key
    if viewer != "admin":
        key = await keys.for_space((await keys.space("beta")).id, Role.VIEWER)
    content = CASES[case].replace(AGENT.encode(), str(agent["id"]).encode())

    hot_answer = await post(hot, content, key)
    generic_answer = await post(generic, content, key)

    assert hot_answer.status_code < 500, hot_answer.text
    assert (hot_answer.status_code, answer(hot_answer)) == (generic_answer.status_code, answer(generic_answer))
    assert hot_answer.headers["content-type"] == generic_answer.headers["content-type"]
