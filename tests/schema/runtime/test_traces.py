"""AgentRun.trace: one stage per thing a run did, in order and timed, with no secret in it;
pruned after QUIVER_TRACE_RETENTION_DAYS; and, with OTEL_EXPORTER_OTLP_ENDPOINT, the same run
as OpenTelemetry spans (GenAI conventions) received by a real OTLP/HTTP receiver."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from sqlalchemy import update
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from app.config import Settings
from app.db import utcnow
from app.runtime.models import RunStage
from app.runtime.otel import run_root_span_id, run_trace_id
from tests.conftest import GraphQLClient, Keys
from tests.schema.runtime import RuntimeApp, create_agent, create_skill, invoke, runtime_app
from tests.support.openai_server import API_KEY, OpenAIServer, ScriptedModel, call, final, tool_calls
from tests.support.openai_server import openai_server as openai_server
from tests.support.threaded_server import serve_in_thread

TRACE = """
query Trace($id: ID!) {
  agentRun(id: $id) { id status trace { kind step startedAt finishedAt durationMs detail } }
}
"""
KB = """mutation KB($input: CreateKnowledgeBaseInput!) {
  createKnowledgeBase(input: $input) { knowledgeBase { id } userErrors { code message } } }"""
DOC = """mutation Doc($input: AddDocumentInput!) {
  addDocument(input: $input) { document { id } userErrors { code message } } }"""
POLICY = "Refunds are accepted within 30 days of delivery when the item is unused."
ARGUMENT_SECRET = "pw-7c1d0a99e2b14f"


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server) as app:
        yield app


@dataclass
class World:
    space_id: str
    gql: GraphQLClient
    model: ScriptedModel
    agent: dict[str, Any]
    kb_id: str


async def build_world(gql: GraphQLClient, keys: Keys, model: ScriptedModel) -> World:
    space = await keys.space("traced")
    kb = await gql.execute(KB, {"input": {"spaceId": space.id, "name": "policies", "label": "Policies"}})
    kb_id = kb["createKnowledgeBase"]["knowledgeBase"]["id"]
    added = await gql.execute(
        DOC, {"input": {"knowledgeBaseId": kb_id, "title": "Refund policy", "text": POLICY, "source": "policy.md"}}
    )
    assert added["addDocument"]["userErrors"] == []
    skill = await create_skill(gql, "refunds", "Check the refund policy before answering.", space.id)
    agent = await create_agent(
        gql,
        space.id,
        model.name,
        activatedToolIds=["bt_calculator"],
        boundSkillIds=[skill["id"]],
        mountedKnowledgeBaseIds=[kb_id],
    )
    return World(space.id, gql, model, agent, kb_id)


def script_run(model: ScriptedModel) -> None:
    """A tool call carrying a secret-looking argument, then an answer echoing the model's own API key."""
    model.push(
        tool_calls(
            call("calculator", {"expression": "30 - 12", "password": ARGUMENT_SECRET}, call_id="call_calc"),
            prompt_tokens=90,
            completion_tokens=9,
        ),
        final(f"Within 30 days: 18 left. (debug: {API_KEY})", prompt_tokens=120, completion_tokens=12),
    )


async def trace_of(gql: GraphQLClient, run_id: str) -> list[dict[str, Any]]:
    run = (await gql.execute(TRACE, {"id": run_id}))["agentRun"]
    stages: list[dict[str, Any]] = run["trace"]
    return stages


class TestTrace:
    async def test_every_stage_in_order_with_timings_and_details(
        self, quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer
    ) -> None:
        world = await build_world(quiver.client(admin_key), keys, openai_server.model("traced"))
        script_run(world.model)

        run = await invoke(world.gql, world.agent["id"], "Can I still get a refund after 12 days?")
        stages = await trace_of(world.gql, run["id"])

        assert [(stage["kind"], stage["step"]) for stage in stages] == [
            ("PROMPT", None),
            ("SKILL_ROUTING", None),
            ("KNOWLEDGE", None),
            ("MODEL_CALL", 1),
            ("TOOL_CALL", 1),
            ("MODEL_CALL", 2),
        ]
        starts = [datetime.fromisoformat(stage["startedAt"]) for stage in stages]
        assert starts == sorted(starts)
        for stage in stages:
            assert datetime.fromisoformat(stage["finishedAt"]) >= datetime.fromisoformat(stage["startedAt"])
            assert stage["durationMs"] >= 0
        prompt, routing, knowledge, first_call, tool, second_call = (stage["detail"] for stage in stages)
        assert [section["kind"] for section in prompt["sections"]] == ["ROLE", "SKILL", "KNOWLEDGE"]
        assert prompt["budgetChars"] > prompt["chars"] > 0
        assert prompt["functions"] == ["calculator"]
        [candidate] = routing["candidates"]
        assert candidate["chosen"] is True and candidate["version"] == "1.0.0"
        assert candidate["channel"] == "PRODUCTION"
        assert isinstance(candidate["canaryBucket"], int)
        assert knowledge["knowledgeBaseIds"] == [world.kb_id]
        assert knowledge["queries"] == ["Can I still get a refund after 12 days?"]
        assert knowledge["hits"][0]["title"] == "Refund policy"
        assert knowledge["hits"][0]["citation"] == 1
        assert knowledge["hits"][0]["score"] > 0
        assert [message["role"] for message in first_call["messages"]] == ["system", "user"]
        assert POLICY in first_call["messages"][0]["content"]
        assert first_call["toolCalls"][0]["name"] == "calculator"
        assert (first_call["promptTokens"], first_call["completionTokens"]) == (90, 9)
        assert first_call["latencyMs"] >= 0
        assert tool["toolId"] == "bt_calculator" and tool["modelCallId"] == "call_calc"
        assert tool["toolCallId"].startswith("tc_")
        assert tool["envelope"]["status"] in ("SUCCESS", "FAILED")
        assert [message["role"] for message in second_call["messages"]] == ["system", "user", "assistant", "tool"]
        assert second_call["reply"].startswith("Within 30 days")

    async def test_no_secret_enters_a_trace(
        self, quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer
    ) -> None:
        world = await build_world(quiver.client(admin_key), keys, openai_server.model("secrets"))
        script_run(world.model)

        run = await invoke(world.gql, world.agent["id"], "How long do refunds take?")
        text = json.dumps(await trace_of(world.gql, run["id"]))

        assert run["status"] == "SUCCEEDED"
        assert ARGUMENT_SECRET not in text
        assert API_KEY not in text
        assert "[redacted]" in text

    async def test_traces_older_than_the_retention_are_pruned_by_the_server(
        self,
        quiver: RuntimeApp,
        keys: Keys,
        admin_key: str,
        openai_server: OpenAIServer,
        settings: Settings,
        session_factory: Any,
    ) -> None:
        world = await build_world(quiver.client(admin_key), keys, openai_server.model("retention"))
        world.model.push(final("fresh"))
        recent = await invoke(world.gql, world.agent["id"], "recent")
        world.model.push(final("old"))
        old = await invoke(world.gql, world.agent["id"], "old")
        async with session_factory() as session, session.begin():
            await session.execute(
                update(RunStage).where(RunStage.run_id == old["id"]).values(started_at=utcnow() - timedelta(days=31))
            )

        async with runtime_app(settings, openai_server, trace_retention_days=30) as server:
            await server.app.state.services.runtime.sweep()

        assert await trace_of(world.gql, old["id"]) == []
        assert [stage["kind"] for stage in await trace_of(world.gql, recent["id"])] == [
            "PROMPT",
            "SKILL_ROUTING",
            "KNOWLEDGE",
            "MODEL_CALL",
        ]


# ---------------------------------------------------------------- OpenTelemetry


@dataclass
class OtlpReceiver:
    """A real OTLP/HTTP endpoint: decodes every ExportTraceServiceRequest it is sent."""

    port: int
    requests: list[ExportTraceServiceRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def spans(self) -> list[Any]:
        with self.lock:
            return [
                span
                for request in self.requests
                for resource in request.resource_spans
                for scope in resource.scope_spans
                for span in scope.spans
            ]

    def resources(self) -> list[Any]:
        with self.lock:
            return [resource.resource for request in self.requests for resource in request.resource_spans]


@pytest.fixture(scope="module")
def otlp_receiver() -> Iterator[OtlpReceiver]:
    received: list[ExportTraceServiceRequest] = []
    lock = threading.Lock()

    async def traces(request: Request) -> Response:
        assert request.headers.get("content-type") == "application/x-protobuf"
        message = ExportTraceServiceRequest()
        message.ParseFromString(await request.body())
        with lock:
            received.append(message)
        return Response(b"", media_type="application/x-protobuf")

    async def ready(_: Request) -> Response:
        return Response(b"ok")

    app = Starlette(routes=[Route("/v1/traces", traces, methods=["POST"]), Route("/ready", ready)])
    with serve_in_thread(app, "/ready", name="OTLP receiver") as port:
        yield OtlpReceiver(port, received, lock)


def attributes(span: Any) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for item in span.attributes:
        value = item.value
        kind = value.WhichOneof("value")
        if kind == "array_value":
            values[item.key] = [getattr(entry, entry.WhichOneof("value")) for entry in value.array_value.values]
        else:
            values[item.key] = getattr(value, kind)
    return values


class TestOpenTelemetry:
    async def test_a_run_is_exported_as_genai_spans_to_the_otlp_endpoint(
        self,
        keys: Keys,
        admin_key: str,
        settings: Settings,
        openai_server: OpenAIServer,
        otlp_receiver: OtlpReceiver,
    ) -> None:
        model = openai_server.model("otel")
        async with runtime_app(
            settings, openai_server, otel_endpoint=otlp_receiver.endpoint, otel_service_name="quiver-test"
        ) as traced:
            world = await build_world(traced.client(admin_key), keys, model)
            script_run(model)
            run = await invoke(world.gql, world.agent["id"], "Refund after 12 days?")
        # Closing the app flushed the exporter.
        trace_id = run_trace_id(run["id"]).to_bytes(16, "big")
        deadline = time.monotonic() + 10
        while len([span for span in otlp_receiver.spans() if span.trace_id == trace_id]) < 7:
            assert time.monotonic() < deadline, [span.name for span in otlp_receiver.spans()]
            await asyncio.sleep(0.05)
        received = sorted(
            (span for span in otlp_receiver.spans() if span.trace_id == trace_id),
            key=lambda span: span.start_time_unix_nano,
        )
        spans = {span.name: span for span in received}
        first_chat, second_chat = [span for span in received if span.name.startswith("chat ")]

        root = spans["invoke_agent Runtime test agent"]
        assert root.span_id == run_root_span_id(run["id"]).to_bytes(8, "big")
        assert root.parent_span_id == b""
        assert attributes(root)["gen_ai.operation.name"] == "invoke_agent"
        assert attributes(root)["gen_ai.agent.id"] == world.agent["id"]
        assert attributes(root)["gen_ai.usage.input_tokens"] == 210
        assert attributes(root)["quiver.run.status"] == "SUCCEEDED"
        chat = first_chat
        assert chat.name == f"chat {model.name}"
        assert chat.kind == chat.SPAN_KIND_CLIENT
        assert attributes(chat)["gen_ai.operation.name"] == "chat"
        assert attributes(chat)["gen_ai.request.model"] == model.name
        assert attributes(chat)["gen_ai.provider.name"] == "openai"
        assert attributes(chat)["gen_ai.usage.output_tokens"] == 9
        assert attributes(chat)["gen_ai.response.finish_reasons"] == ["tool_calls"]
        assert attributes(second_chat)["gen_ai.response.finish_reasons"] == ["stop"]
        tool = spans["execute_tool calculator"]
        assert attributes(tool)["gen_ai.operation.name"] == "execute_tool"
        assert attributes(tool)["gen_ai.tool.call.id"] == "call_calc"
        for name in ("quiver.prompt", "quiver.skill_routing", "quiver.knowledge"):
            assert spans[name].parent_span_id == root.span_id
        assert chat.parent_span_id == root.span_id and tool.parent_span_id == root.span_id
        assert first_chat.end_time_unix_nano <= tool.start_time_unix_nano <= second_chat.start_time_unix_nano
        assert root.end_time_unix_nano >= max(span.end_time_unix_nano for span in spans.values()) - 1_000_000
        service_names = {
            item.value.string_value
            for resource in otlp_receiver.resources()
            for item in resource.attributes
            if item.key == "service.name"
        }
        assert "quiver-test" in service_names
        everything = b"".join(request.SerializeToString() for request in otlp_receiver.requests)
        assert ARGUMENT_SECRET.encode() not in everything
        assert API_KEY.encode() not in everything
