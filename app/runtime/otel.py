"""Runs as OpenTelemetry spans (GenAI semantic conventions), over OTLP/HTTP.

Enabled by ``OTEL_EXPORTER_OTLP_ENDPOINT`` (the collector's base URL; spans go to
``/v1/traces``). A run may be continued by another replica, or wait hours for an
approval, so no span is held open in memory: every stored trace stage becomes a span
with the stage's own start and end times once it is committed, and the run's root span
(``invoke_agent {agent}``) is exported when the run finishes. Trace and root span ids
are derived from the run id, so every replica's spans of one run form one trace.

Span names and attributes follow the GenAI conventions: ``invoke_agent``, ``chat
{model}`` (CLIENT) with ``gen_ai.usage.*`` and finish reasons, ``execute_tool {tool}``
with ``gen_ai.tool.*``; the other stages are INTERNAL ``quiver.*`` spans. Message
content is added (``gen_ai.input.messages`` / ``gen_ai.output.messages``, from the
already scrubbed trace) only with ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
from datetime import datetime
from typing import Any

from opentelemetry import trace as otel_trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator, RandomIdGenerator
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

from app.runtime import trace
from app.runtime.models import AgentRun

PROVIDER = "openai"

# The ids the next span gets, when a run's root span is started (see RunIdGenerator).
_forced_ids: contextvars.ContextVar[tuple[int, int] | None] = contextvars.ContextVar("quiver_otel_ids", default=None)


def run_trace_id(run_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"trace:{run_id}".encode()).digest()[:16], "big") or 1


def run_root_span_id(run_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"root:{run_id}".encode()).digest()[:8], "big") or 1


class RunIdGenerator(IdGenerator):
    """Random ids, except for a run's root span: its trace and span ids come from the run id."""

    def __init__(self) -> None:
        self._random = RandomIdGenerator()

    def generate_span_id(self) -> int:
        forced = _forced_ids.get()
        return forced[1] if forced else self._random.generate_span_id()

    def generate_trace_id(self) -> int:
        forced = _forced_ids.get()
        return forced[0] if forced else self._random.generate_trace_id()


def _ns(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000_000)


class OtelRunExporter:
    """A ``StageSink`` of the runtime: committed stages and finished runs become spans."""

    def __init__(self, exporter: SpanExporter, *, service_name: str = "quiver", capture_content: bool = False) -> None:
        self.provider = TracerProvider(
            resource=Resource.create({"service.name": service_name}), id_generator=RunIdGenerator()
        )
        self.provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=500))
        self.tracer = self.provider.get_tracer("quiver.runtime")
        self.capture_content = capture_content

    def _parent(self, run_id: str) -> Any:
        context = SpanContext(
            trace_id=run_trace_id(run_id),
            span_id=run_root_span_id(run_id),
            is_remote=False,
            trace_flags=TraceFlags(TraceFlags.SAMPLED),
        )
        return otel_trace.set_span_in_context(otel_trace.NonRecordingSpan(context))

    def stages(self, run: AgentRun, agent_name: str | None, stages: list[trace.Stage]) -> None:
        parent = self._parent(run.id)
        for stage in stages:
            name, kind, attributes = self._describe(run, agent_name, stage)
            span = self.tracer.start_span(
                name, context=parent, kind=kind, attributes=attributes, start_time=_ns(stage.started_at)
            )
            error = stage.detail.get("error") or (stage.detail.get("envelope") or {}).get("error")
            if isinstance(error, dict) and error.get("code"):
                span.set_attribute("error.type", str(error["code"]))
                span.set_status(Status(StatusCode.ERROR, str(error.get("message") or "")))
            span.end(end_time=_ns(stage.finished_at))

    def finished(self, run: AgentRun, agent_name: str | None) -> None:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.provider.name": PROVIDER,
            "gen_ai.system": PROVIDER,
            "gen_ai.agent.id": run.agent_id,
            "gen_ai.request.model": run.model,
            "gen_ai.usage.input_tokens": run.prompt_tokens or 0,
            "gen_ai.usage.output_tokens": run.completion_tokens or 0,
            "quiver.run.id": run.id,
            "quiver.run.status": run.status,
            "quiver.run.steps": run.steps,
            "quiver.space.id": run.space_id,
        }
        if agent_name:
            attributes["gen_ai.agent.name"] = agent_name
        if run.session_id:
            attributes["gen_ai.conversation.id"] = run.session_id
        token = _forced_ids.set((run_trace_id(run.id), run_root_span_id(run.id)))
        try:
            span = self.tracer.start_span(
                f"invoke_agent {agent_name or run.agent_id}",
                context=otel_trace.set_span_in_context(otel_trace.INVALID_SPAN),
                kind=SpanKind.INTERNAL,
                attributes=attributes,
                start_time=_ns(run.started_at),
            )
        finally:
            _forced_ids.reset(token)
        if run.error_code:
            span.set_attribute("error.type", run.error_code)
            span.set_status(Status(StatusCode.ERROR, run.error_message or ""))
        span.end(end_time=_ns(run.finished_at or run.started_at))

    def _describe(
        self, run: AgentRun, agent_name: str | None, stage: trace.Stage
    ) -> tuple[str, SpanKind, dict[str, Any]]:
        detail = stage.detail
        common: dict[str, Any] = {"quiver.run.id": run.id, "quiver.stage": stage.kind}
        if stage.step is not None:
            common["quiver.step"] = stage.step
        if stage.kind == trace.MODEL_CALL:
            model = str(detail.get("model") or run.model)
            attributes = {
                **common,
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": PROVIDER,
                "gen_ai.system": PROVIDER,
                "gen_ai.request.model": model,
                "gen_ai.usage.input_tokens": int(detail.get("promptTokens") or 0),
                "gen_ai.usage.output_tokens": int(detail.get("completionTokens") or 0),
                "gen_ai.response.finish_reasons": ["tool_calls" if detail.get("toolCalls") else "stop"],
            }
            if self.capture_content:
                attributes["gen_ai.input.messages"] = json.dumps(detail.get("messages"), ensure_ascii=False)
                attributes["gen_ai.output.messages"] = json.dumps(
                    [{"role": "assistant", "content": detail.get("reply"), "tool_calls": detail.get("toolCalls")}],
                    ensure_ascii=False,
                )
            return f"chat {model}", SpanKind.CLIENT, attributes
        if stage.kind == trace.TOOL_CALL:
            name = str(detail.get("function") or detail.get("toolId"))
            attributes = {
                **common,
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": str(detail.get("modelCallId") or ""),
                "gen_ai.tool.type": "function",
                "quiver.tool.id": str(detail.get("toolId")),
                "quiver.tool_call.id": str(detail.get("toolCallId")),
                "quiver.tool_call.status": str((detail.get("envelope") or {}).get("status")),
            }
            if self.capture_content:
                attributes["gen_ai.tool.call.arguments"] = json.dumps(detail.get("arguments"), ensure_ascii=False)
            return f"execute_tool {name}", SpanKind.INTERNAL, attributes
        if stage.kind == trace.APPROVAL:
            attributes = {
                **common,
                "quiver.tool_call.id": str(detail.get("toolCallId")),
                "quiver.approval.decision": str(detail.get("decision")),
            }
            return "quiver.approval", SpanKind.INTERNAL, attributes
        if stage.kind == trace.PROMPT:
            attributes = {
                **common,
                "quiver.prompt.chars": int(detail.get("chars") or 0),
                "quiver.prompt.token_estimate": int(detail.get("tokenEstimate") or 0),
                "quiver.prompt.warnings": len(detail.get("warnings") or []),
            }
            return "quiver.prompt", SpanKind.INTERNAL, attributes
        if stage.kind == trace.KNOWLEDGE:
            attributes = {
                **common,
                "quiver.knowledge.hits": len(detail.get("hits") or []),
                "quiver.knowledge.citations": int(detail.get("citations") or 0),
            }
            return "quiver.knowledge", SpanKind.INTERNAL, attributes
        attributes = {
            **common,
            "quiver.skills.chosen": [f"{item['skillId']}@{item['version']}" for item in detail.get("chosen") or []],
        }
        return "quiver.skill_routing", SpanKind.INTERNAL, attributes

    def shutdown(self) -> None:
        self.provider.shutdown()


def otlp_exporter(endpoint: str, service_name: str, *, capture_content: bool = False) -> OtelRunExporter:
    """The exporter for ``OTEL_EXPORTER_OTLP_ENDPOINT`` (OTLP over HTTP, protobuf)."""
    traces_url = endpoint.rstrip("/") + "/v1/traces"
    return OtelRunExporter(
        OTLPSpanExporter(endpoint=traces_url), service_name=service_name, capture_content=capture_content
    )
