"""A real OpenAI-compatible HTTP server for the agent loop, scripted per test.

Served by uvicorn on loopback and a free port in a background thread. Tests script it
through the Python API (the server runs in this process) or over HTTP:

    model = openai_server.model()          # a fresh model name with its own queue
    model.push(tool_calls(call("calculator", {"expression": "2 + 2"})), final("4"))
    ... create an agent with ``model=model.name`` and invoke it ...
    model.requests                          # every request body the server received

Scripts and recorded requests are kept per model name (the agent's ``model`` is passed
through to the endpoint), so tests never see each other's traffic, on either backend,
and a test with several agents gives each its own script.

Each request to ``POST /v1/chat/completions`` takes the next step of its model's queue:

- :func:`final`: an answer (``chunks`` split it into several deltas when streamed);
- :func:`tool_calls`: one or several (parallel) function calls, from :func:`call`;
- :func:`http_error`: an HTTP error status (500 by default);
- :func:`no_choices`: a 200 whose JSON body has no ``choices``;
- :func:`invalid_json`: a 200 ``application/json`` body that is not JSON;
- :func:`respond`: a function of the request body returning a step (e.g. to answer
  from the last tool message).

Every step takes ``delay_s`` (sleep before answering); ``step.held_until(event)`` holds
the reply until the test sets a ``threading.Event``. A request with ``"stream": true``
gets Server-Sent Events in the OpenAI format (``data: {chunk}`` lines, content and
tool-call deltas, a usage chunk when ``stream_options.include_usage``, ``data: [DONE]``).
A request for which nothing is scripted gets HTTP 418 and is counted in ``unscripted``.

HTTP control, for clients outside the process: ``POST /_script`` with
``{"model": ..., "steps": [step.as_json(), ...]}``, ``GET /_requests?model=...``.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
import time
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.support.threaded_server import serve_in_thread

# What the tests configure as QUIVER_OPENAI_API_KEY; the server records the header it gets.
API_KEY = "sk-test-quiver-9f2c41d7"
DEFAULT_PROMPT_TOKENS = 11
DEFAULT_COMPLETION_TOKENS = 7
GATE_TIMEOUT_S = 30.0


@dataclass
class ToolCallSpec:
    """One function call of a scripted reply; ``arguments`` is the raw JSON text sent."""

    name: str
    arguments: str
    id: str = field(default_factory=lambda: f"call_{secrets.token_hex(6)}")


@dataclass
class Step:
    """One scripted reply. Build it with the helpers below rather than by hand."""

    kind: str  # final | tool_calls | http_error | no_choices | invalid_json | respond
    content: str | None = None
    calls: list[ToolCallSpec] = field(default_factory=list)
    chunks: list[str] | None = None
    prompt_tokens: int = DEFAULT_PROMPT_TOKENS
    completion_tokens: int = DEFAULT_COMPLETION_TOKENS
    status: int = 200
    delay_s: float = 0.0
    responder: Callable[[dict[str, Any]], Step] | None = None
    # Held until the test opens it (or GATE_TIMEOUT_S passes): "answer only once I'm ready".
    gate: threading.Event | None = None

    def held_until(self, gate: threading.Event) -> Step:
        self.gate = gate
        return self

    def as_json(self) -> dict[str, Any]:
        """The step for ``POST /_script`` (respond() and gated steps only exist in-process)."""
        if self.responder is not None or self.gate is not None:
            raise ValueError("respond() and gated steps only exist in-process")
        data = asdict(self)
        data.pop("responder")
        data.pop("gate")
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Step:
        calls = [ToolCallSpec(**item) for item in data.pop("calls", [])]
        return cls(**data, calls=calls)


def call(name: str, arguments: dict[str, Any] | str | None = None, *, call_id: str | None = None) -> ToolCallSpec:
    """A function call; a ``str`` is sent verbatim (e.g. malformed JSON)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return ToolCallSpec(name=name, arguments=text, **({"id": call_id} if call_id else {}))


def final(
    content: str,
    *,
    chunks: list[str] | None = None,
    prompt_tokens: int = DEFAULT_PROMPT_TOKENS,
    completion_tokens: int = DEFAULT_COMPLETION_TOKENS,
    delay_s: float = 0.0,
) -> Step:
    if chunks is not None:
        assert "".join(chunks) == content, "the chunks must spell the content"
    return Step(
        "final",
        content=content,
        chunks=chunks,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        delay_s=delay_s,
    )


def tool_calls(
    *calls: ToolCallSpec,
    content: str | None = None,
    prompt_tokens: int = DEFAULT_PROMPT_TOKENS,
    completion_tokens: int = DEFAULT_COMPLETION_TOKENS,
    delay_s: float = 0.0,
) -> Step:
    assert calls, "at least one call"
    return Step(
        "tool_calls",
        content=content,
        calls=list(calls),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        delay_s=delay_s,
    )


def http_error(status: int = 500, *, delay_s: float = 0.0) -> Step:
    return Step("http_error", status=status, delay_s=delay_s)


def no_choices(*, delay_s: float = 0.0) -> Step:
    return Step("no_choices", delay_s=delay_s)


def invalid_json(*, delay_s: float = 0.0) -> Step:
    return Step("invalid_json", delay_s=delay_s)


def respond(responder: Callable[[dict[str, Any]], Step], *, delay_s: float = 0.0) -> Step:
    """A step decided from the request body, on the server's thread."""
    return Step("respond", responder=responder, delay_s=delay_s)


# ---------------------------------------------------------------- wire format


def _completion(model: str, step: Step) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": step.content}
    finish_reason = "stop"
    if step.calls:
        finish_reason = "tool_calls"
        message["tool_calls"] = [
            {"id": item.id, "type": "function", "function": {"name": item.name, "arguments": item.arguments}}
            for item in step.calls
        ]
    return {
        "id": f"chatcmpl-{secrets.token_hex(8)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": _usage(step),
    }


def _usage(step: Step) -> dict[str, int]:
    return {
        "prompt_tokens": step.prompt_tokens,
        "completion_tokens": step.completion_tokens,
        "total_tokens": step.prompt_tokens + step.completion_tokens,
    }


def _stream_chunks(model: str, step: Step, include_usage: bool) -> list[dict[str, Any]]:
    """The chunks OpenAI sends for ``step``: role, deltas, finish reason, then usage."""
    identifier = f"chatcmpl-{secrets.token_hex(8)}"
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": identifier,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}],
        }
        if include_usage:
            body["usage"] = None
        return body

    chunks = [chunk({"role": "assistant", "content": ""})]
    if step.content:
        for piece in step.chunks or [step.content]:
            chunks.append(chunk({"content": piece}))
    for index, item in enumerate(step.calls):
        # The id and name come first, the arguments in two fragments, as OpenAI does.
        chunks.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": item.id,
                            "type": "function",
                            "function": {"name": item.name, "arguments": ""},
                        }
                    ]
                }
            )
        )
        middle = len(item.arguments) // 2
        for fragment in (item.arguments[:middle], item.arguments[middle:]):
            if fragment:
                chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}))
    chunks.append(chunk({}, "tool_calls" if step.calls else "stop"))
    if include_usage:
        chunks.append(
            {
                "id": identifier,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [],
                "usage": _usage(step),
            }
        )
    return chunks


# ---------------------------------------------------------------- server


class ServerState:
    """Scripts and recordings per model; touched by the server thread and the tests."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.scripts: dict[str, deque[Step]] = defaultdict(deque)
        self.requests: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.headers: dict[str, list[dict[str, str]]] = defaultdict(list)
        self.unscripted: dict[str, int] = defaultdict(int)

    def push(self, model: str, steps: list[Step]) -> None:
        with self.lock:
            self.scripts[model].extend(steps)

    def take(self, model: str, body: dict[str, Any], headers: dict[str, str]) -> Step | None:
        with self.lock:
            self.requests[model].append(body)
            self.headers[model].append(headers)
            queue = self.scripts[model]
            if not queue:
                self.unscripted[model] += 1
                return None
            return queue.popleft()


def build_app(state: ServerState) -> Starlette:
    async def completions(request: Request) -> Response:
        raw = await request.body()
        try:
            body: dict[str, Any] = json.loads(raw)
        except ValueError:
            return JSONResponse({"error": {"message": "the request body is not JSON"}}, status_code=400)
        model = str(body.get("model", ""))
        headers = {"authorization": request.headers.get("authorization", "")}
        step = state.take(model, body, headers)
        if step is None:
            return JSONResponse(
                {"error": {"message": f"nothing scripted for model {model!r}", "type": "unscripted"}},
                status_code=418,
            )
        if step.gate is not None:
            await asyncio.to_thread(step.gate.wait, GATE_TIMEOUT_S)
        if step.delay_s:
            await asyncio.sleep(step.delay_s)
        if step.responder is not None:
            step = step.responder(body)
            if step.delay_s:
                await asyncio.sleep(step.delay_s)
        return _reply(model, body, step)

    async def script(request: Request) -> Response:
        data = await request.json()
        state.push(str(data["model"]), [Step.from_json(item) for item in data["steps"]])
        return JSONResponse({"queued": len(data["steps"])})

    async def recorded(request: Request) -> Response:
        model = request.query_params["model"]
        with state.lock:
            return JSONResponse({"requests": list(state.requests.get(model, [])), "left": len(state.scripts[model])})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", completions, methods=["POST"]),
            Route("/_script", script, methods=["POST"]),
            Route("/_requests", recorded, methods=["GET"]),
        ]
    )


def _reply(model: str, body: dict[str, Any], step: Step) -> Response:
    if step.kind == "http_error":
        return JSONResponse({"error": {"message": "scripted failure", "type": "server_error"}}, status_code=step.status)
    if step.kind == "no_choices":
        return JSONResponse({"id": "chatcmpl-broken", "object": "chat.completion", "model": model})
    if step.kind == "invalid_json":
        return Response(b'{"id": "chatcmpl-broken", "choices": [', media_type="application/json")
    if not body.get("stream"):
        return JSONResponse(_completion(model, step))
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

    async def events() -> AsyncIterator[bytes]:
        for chunk in _stream_chunks(model, step, include_usage):
            yield f"data: {json.dumps(chunk)}\n\n".encode()
        yield b"data: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream")


@dataclass
class ScriptedModel:
    """One model name on the server: its queue of steps and what it received."""

    server: OpenAIServer
    name: str

    def push(self, *steps: Step) -> ScriptedModel:
        self.server.state.push(self.name, list(steps))
        return self

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Request bodies received for this model, in order."""
        with self.server.state.lock:
            return list(self.server.state.requests.get(self.name, []))

    @property
    def headers(self) -> list[dict[str, str]]:
        with self.server.state.lock:
            return list(self.server.state.headers.get(self.name, []))

    @property
    def remaining(self) -> int:
        """Steps not consumed yet."""
        with self.server.state.lock:
            return len(self.server.state.scripts.get(self.name, ()))

    @property
    def unscripted(self) -> int:
        """Requests that found the queue empty."""
        with self.server.state.lock:
            return self.server.state.unscripted.get(self.name, 0)


@dataclass
class OpenAIServer:
    host: str
    port: int
    state: ServerState

    @property
    def base_url(self) -> str:
        """What QUIVER_OPENAI_BASE_URL is set to."""
        return f"http://{self.host}:{self.port}/v1"

    def model(self, prefix: str = "scripted") -> ScriptedModel:
        """A model name no other test uses."""
        return ScriptedModel(self, f"{prefix}-{secrets.token_hex(4)}")


@contextmanager
def running_openai_server(host: str = "127.0.0.1", *, start_timeout_s: float = 10.0) -> Iterator[OpenAIServer]:
    state = ServerState()
    with serve_in_thread(
        build_app(state),
        "/_requests?model=ping",
        name="OpenAI-compatible server",
        host=host,
        start_timeout_s=start_timeout_s,
    ) as port:
        yield OpenAIServer(host, port, state)


@pytest.fixture(scope="session")
def openai_server() -> Iterator[OpenAIServer]:
    """One server for the session; import this fixture into the modules that need it."""
    with running_openai_server() as server:
        yield server
