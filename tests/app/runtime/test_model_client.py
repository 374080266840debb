"""The runtime's own chat-completions client: the openai SDK's wire format and error mapping,
on an httpx MockTransport (the agent-loop tests run it against a real HTTP server); and the
lean way for plain http:// endpoints, against a real endpoint on loopback: the same request
and reading as the httpx way, retries, time-out, redirects, and when httpx is kept."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from app.runtime.model import (
    MODEL_BAD_RESPONSE,
    MODEL_ERROR,
    MODEL_TIMEOUT,
    ModelClient,
    ModelError,
)
from tests.support.threaded_server import serve_in_thread

Handler = Callable[[httpx.Request], httpx.Response]
MESSAGES = [
    {"role": "system", "content": "You help."},
    {"role": "user", "content": "查一下订单 4711 的状态, please"},
]
TOOLS = [{"type": "function", "function": {"name": "lookup", "description": "d", "parameters": {"type": "object"}}}]


def completion(message: dict[str, Any], usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": usage if usage is not None else {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    }


class Recorder:
    """Answers each request with the next of ``replies`` (a response, or an exception to raise)."""

    def __init__(self, *replies: httpx.Response | Exception) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(request.content) for request in self.requests]


def client_for(recorder: Recorder, base_url: str = "http://model.test/v1/") -> ModelClient:
    return ModelClient(base_url=base_url, api_key="sk-test", timeout_s=5, transport=httpx.MockTransport(recorder))


async def test_sends_the_sdk_body_and_reads_text_tool_calls_and_usage() -> None:
    reply = completion(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "订单"}'}}
            ],
        }
    )
    recorder = Recorder(httpx.Response(200, json=reply))
    client = client_for(recorder)

    answer = await client.complete(model="m-1", messages=MESSAGES, tools=TOOLS)

    (request,) = recorder.requests
    assert str(request.url) == "http://model.test/v1/chat/completions"
    assert request.method == "POST"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.headers["content-type"] == "application/json"
    assert recorder.bodies() == [{"model": "m-1", "messages": MESSAGES, "tools": TOOLS}]
    assert answer.content is None
    assert [(call.call_id, call.name, json.loads(call.arguments)) for call in answer.tool_calls] == [
        ("call_1", "lookup", {"q": "订单"})
    ]
    assert (answer.prompt_tokens, answer.completion_tokens) == (12, 3)
    await client.close()


async def test_no_tools_key_without_functions_and_no_key_without_an_api_key() -> None:
    recorder = Recorder(httpx.Response(200, json=completion({"role": "assistant", "content": "fine"})))
    client = ModelClient(
        base_url="http://model.test/v1", api_key=None, timeout_s=5, transport=httpx.MockTransport(recorder)
    )

    answer = await client.complete(model="m", messages=MESSAGES, tools=[])

    assert recorder.bodies() == [{"model": "m", "messages": MESSAGES}]
    assert recorder.requests[0].headers["authorization"] == "Bearer not-needed"
    assert answer.content == "fine"
    assert answer.tool_calls == []


async def test_long_integers_in_messages_keep_their_digits() -> None:
    recorder = Recorder(httpx.Response(200, json=completion({"role": "assistant", "content": "ok"})))
    messages = [{"role": "tool", "tool_call_id": "c", "content": "x", "extra": 123456789012345678901234567890}]

    await client_for(recorder).complete(model="m", messages=messages, tools=[])

    assert recorder.bodies()[0]["messages"][0]["extra"] == 123456789012345678901234567890


async def test_arguments_sent_as_an_object_are_encoded_as_json_text() -> None:
    reply = completion(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": {"q": 1}}}],
        }
    )
    answer = await client_for(Recorder(httpx.Response(200, json=reply))).complete(
        model="m", messages=MESSAGES, tools=TOOLS
    )

    assert json.loads(answer.tool_calls[0].arguments) == {"q": 1}


async def test_a_reply_without_usage_counts_zero_tokens() -> None:
    reply = completion({"role": "assistant", "content": "hi"})
    reply.pop("usage")

    answer = await client_for(Recorder(httpx.Response(200, json=reply))).complete(
        model="m", messages=MESSAGES, tools=[]
    )

    assert (answer.content, answer.prompt_tokens, answer.completion_tokens) == ("hi", 0, 0)


@pytest.mark.parametrize("status", [500, 502, 429])
async def test_a_transient_status_is_retried_once_with_the_same_body(status: int) -> None:
    recorder = Recorder(
        httpx.Response(status, json={"error": {"message": "busy"}}),
        httpx.Response(200, json=completion({"role": "assistant", "content": "second"})),
    )

    answer = await client_for(recorder).complete(model="m", messages=MESSAGES, tools=TOOLS)

    assert answer.content == "second"
    first, second = recorder.requests
    assert first.content == second.content


async def test_two_transient_failures_raise_model_error_with_the_endpoints_error_object() -> None:
    recorder = Recorder(
        httpx.Response(500, json={"error": {"message": "first"}}),
        httpx.Response(503, json={"error": {"message": "down for maintenance"}}),
    )

    with pytest.raises(ModelError) as raised:
        await client_for(recorder).complete(model="m", messages=MESSAGES, tools=[])

    assert raised.value.code == MODEL_ERROR
    assert "HTTP 503" in raised.value.message
    assert raised.value.detail == 'HTTP 503: {"message": "down for maintenance"}'
    assert len(recorder.requests) == 2


async def test_a_client_error_is_not_retried_and_a_text_body_is_kept_as_detail() -> None:
    recorder = Recorder(httpx.Response(400, text="bad model name"), httpx.Response(200, json=completion({})))

    with pytest.raises(ModelError) as raised:
        await client_for(recorder).complete(model="m", messages=MESSAGES, tools=[])

    assert (raised.value.code, raised.value.retryable) == (MODEL_ERROR, False)
    assert raised.value.detail == 'HTTP 400: "bad model name"'
    assert len(recorder.requests) == 1


async def test_a_time_out_twice_is_model_timeout() -> None:
    recorder = Recorder(httpx.ReadTimeout("slow"), httpx.ReadTimeout("slow"))

    with pytest.raises(ModelError) as raised:
        await client_for(recorder).complete(model="m", messages=MESSAGES, tools=[])

    assert raised.value.code == MODEL_TIMEOUT
    assert len(recorder.requests) == 2


async def test_an_unreachable_endpoint_is_model_error_after_one_retry() -> None:
    recorder = Recorder(httpx.ConnectError("refused"), httpx.ConnectError("refused"))

    with pytest.raises(ModelError) as raised:
        await client_for(recorder).complete(model="m", messages=MESSAGES, tools=[])

    assert raised.value.code == MODEL_ERROR
    assert raised.value.message == "The model endpoint could not be reached."
    assert len(recorder.requests) == 2


async def test_a_real_refused_connection_is_model_error() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = ModelClient(base_url=f"http://127.0.0.1:{port}/v1", api_key="k", timeout_s=2)

    with pytest.raises(ModelError) as raised:
        await client.complete(model="m", messages=MESSAGES, tools=[])

    assert raised.value.code == MODEL_ERROR
    await client.close()


@pytest.mark.parametrize(
    "reply",
    [
        httpx.Response(200, text="<html>not json</html>"),
        httpx.Response(200, json={"id": "x", "object": "chat.completion"}),
        httpx.Response(200, json={"choices": [{"index": 0}]}),
        httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": None}}]}),
        httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": ["a", "list"]}}]}),
        httpx.Response(200, json=["not", "an", "object"]),
    ],
    ids=["not-json", "no-choices", "no-message", "empty", "content-not-text", "array"],
)
async def test_malformed_replies_are_model_bad_response_and_retried(reply: httpx.Response) -> None:
    recorder = Recorder(reply, httpx.Response(200, json=completion({"role": "assistant", "content": "clean"})))

    answer = await client_for(recorder).complete(model="m", messages=MESSAGES, tools=[])

    assert answer.content == "clean"
    assert len(recorder.requests) == 2


async def test_malformed_twice_raises_model_bad_response() -> None:
    recorder = Recorder(httpx.Response(200, text="nope"), httpx.Response(200, text="nope"))

    with pytest.raises(ModelError) as raised:
        await client_for(recorder).complete(model="m", messages=MESSAGES, tools=[])

    assert raised.value.code == MODEL_BAD_RESPONSE


def sse(*chunks: dict[str, Any] | str) -> httpx.Response:
    lines = []
    for chunk in chunks:
        lines.append(f"data: {chunk if isinstance(chunk, str) else json.dumps(chunk)}\n\n")
    return httpx.Response(200, text=": keep-alive\n\n" + "".join(lines), headers={"content-type": "text/event-stream"})


def delta(content: dict[str, Any]) -> dict[str, Any]:
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": content, "finish_reason": None}]}


async def test_streaming_hands_out_deltas_and_assembles_calls_and_usage() -> None:
    recorder = Recorder(
        sse(
            delta({"role": "assistant", "content": ""}),
            delta({"content": "正在"}),
            delta({"content": "查询"}),
            delta({"tool_calls": [{"index": 0, "id": "call_a", "function": {"name": "lookup", "arguments": ""}}]}),
            delta({"tool_calls": [{"index": 0, "function": {"arguments": '{"q": '}}]}),
            delta({"tool_calls": [{"index": 0, "function": {"arguments": '"x"}'}}]}),
            {"choices": [], "usage": {"prompt_tokens": 30, "completion_tokens": 9}},
            "[DONE]",
        )
    )
    deltas: list[str] = []

    async def on_delta(piece: str) -> None:
        deltas.append(piece)

    answer = await client_for(recorder).complete(model="m", messages=MESSAGES, tools=TOOLS, on_delta=on_delta)

    assert recorder.bodies()[0] == {
        "model": "m",
        "messages": MESSAGES,
        "tools": TOOLS,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    assert deltas == ["正在", "查询"]
    assert answer.content == "正在查询"
    assert [(call.call_id, call.name, call.arguments) for call in answer.tool_calls] == [
        ("call_a", "lookup", '{"q": "x"}')
    ]
    assert (answer.prompt_tokens, answer.completion_tokens) == (30, 9)


async def test_an_error_event_in_a_stream_is_model_error_and_not_retried() -> None:
    recorder = Recorder(
        sse(delta({"content": "half"}), {"error": {"message": "overloaded"}}),
        sse(delta({"content": "never"}), "[DONE]"),
    )

    async def on_delta(piece: str) -> None:
        return None

    with pytest.raises(ModelError) as raised:
        await client_for(recorder).complete(model="m", messages=MESSAGES, tools=[], on_delta=on_delta)

    assert (raised.value.code, raised.value.retryable) == (MODEL_ERROR, False)
    assert "overloaded" in (raised.value.detail or "")
    assert len(recorder.requests) == 1


async def test_a_streamed_error_status_is_model_error() -> None:
    recorder = Recorder(httpx.Response(401, json={"error": {"message": "bad key"}}))

    async def on_delta(piece: str) -> None:
        return None

    with pytest.raises(ModelError) as raised:
        await client_for(recorder).complete(model="m", messages=MESSAGES, tools=[], on_delta=on_delta)

    assert (raised.value.code, raised.value.retryable) == (MODEL_ERROR, False)
    assert "bad key" in (raised.value.detail or "")


# ---------------------------------------------------------------- the lean way (plain http://)


class WireServer:
    """A real endpoint on loopback: records each request's headers and body; answers from ``replies``
    (status, JSON body, extra headers, seconds to wait first)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        self.replies: list[tuple[int, Any, dict[str, str], float]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        reply: tuple[int, Any, dict[str, str], float] = (200, {}, {}, 0.0)
        if scope["path"] != "/ready":
            headers_in = {name.decode().lower(): value.decode() for name, value in scope["headers"]}
            self.requests.append((scope["path"], headers_in, body))
            reply = self.replies.pop(0)
        status, payload, headers, delay = reply
        if delay:
            await asyncio.sleep(delay)
        data = json.dumps(payload).encode()
        raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
        raw += [(name.encode(), value.encode()) for name, value in headers.items()]
        await send({"type": "http.response.start", "status": status, "headers": raw})
        await send({"type": "http.response.body", "body": data})


@pytest.fixture(scope="module")
def wire() -> Iterator[tuple[WireServer, str]]:
    server = WireServer()
    with serve_in_thread(server, "/ready", name="model wire server") as port:
        yield server, f"http://127.0.0.1:{port}/v1"


@pytest.fixture
def endpoint(wire: tuple[WireServer, str]) -> tuple[WireServer, str]:
    server, base_url = wire
    server.requests.clear()
    server.replies.clear()
    return server, base_url


def on_the_lean_way(client: ModelClient) -> bool:
    return client._plain is not None


async def test_a_plain_http_endpoint_gets_the_same_request_and_the_reply_is_read_alike(
    endpoint: tuple[WireServer, str],
) -> None:
    server, base_url = endpoint
    reply = completion(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"q": 1}'}}],
        }
    )
    server.replies += [(200, reply, {}, 0.0), (200, reply, {}, 0.0)]
    lean = ModelClient(base_url=base_url, api_key="sk-wire", timeout_s=5)
    httpx_way = ModelClient(base_url=base_url, api_key="sk-wire", timeout_s=5, plain_http=False)
    assert on_the_lean_way(lean) and not on_the_lean_way(httpx_way)

    answers = [await client.complete(model="m", messages=MESSAGES, tools=TOOLS) for client in (lean, httpx_way)]

    assert answers[0] == answers[1]
    assert [(call.name, call.arguments) for call in answers[0].tool_calls] == [("lookup", '{"q": 1}')]
    (path, lean_headers, lean_body), (_, httpx_headers, httpx_body) = server.requests
    assert path == "/v1/chat/completions"
    assert json.loads(lean_body) == json.loads(httpx_body) == {"model": "m", "messages": MESSAGES, "tools": TOOLS}
    for name in ("authorization", "content-type", "accept", "user-agent"):
        assert lean_headers[name] == httpx_headers[name], name
    assert lean_headers["authorization"] == "Bearer sk-wire"
    await lean.close()
    await httpx_way.close()


async def test_on_the_lean_way_a_5xx_is_retried_once_and_a_4xx_is_model_error(
    endpoint: tuple[WireServer, str],
) -> None:
    server, base_url = endpoint
    server.replies += [
        (503, {"error": {"message": "busy"}}, {}, 0.0),
        (200, completion({"role": "assistant", "content": "second"}), {}, 0.0),
        (400, {"error": {"message": "bad model name"}}, {}, 0.0),
    ]
    client = ModelClient(base_url=base_url, api_key="k", timeout_s=5)

    assert (await client.complete(model="m", messages=MESSAGES, tools=[])).content == "second"
    with pytest.raises(ModelError) as raised:
        await client.complete(model="m", messages=MESSAGES, tools=[])

    assert (raised.value.code, raised.value.retryable) == (MODEL_ERROR, False)
    assert raised.value.detail == 'HTTP 400: {"message": "bad model name"}'
    assert len(server.requests) == 3
    await client.close()


async def test_on_the_lean_way_a_slow_endpoint_is_model_timeout(endpoint: tuple[WireServer, str]) -> None:
    server, base_url = endpoint
    slow: tuple[int, Any, dict[str, str], float] = (200, completion({"role": "assistant", "content": "late"}), {}, 1.0)
    server.replies += [slow, slow]
    client = ModelClient(base_url=base_url, api_key="k", timeout_s=0.2)

    with pytest.raises(ModelError) as raised:
        await client.complete(model="m", messages=MESSAGES, tools=[])

    assert raised.value.code == MODEL_TIMEOUT
    assert len(server.requests) == 2  # retried once, as the httpx way
    await client.close()


async def test_on_the_lean_way_a_redirect_is_followed(endpoint: tuple[WireServer, str]) -> None:
    server, base_url = endpoint
    target = base_url.replace("/v1", "/moved/chat/completions")
    server.replies += [
        (307, {}, {"location": target}, 0.0),
        (307, {}, {"location": target}, 0.0),
        (200, completion({"role": "assistant", "content": "found"}), {}, 0.0),
    ]
    client = ModelClient(base_url=base_url, api_key="k", timeout_s=5)

    answer = await client.complete(model="m", messages=MESSAGES, tools=[])

    assert answer.content == "found"
    assert [path for path, _, _ in server.requests] == ["/v1/chat/completions"] * 2 + ["/moved/chat/completions"]
    assert len({body for _, _, body in server.requests}) == 1  # the same request each time
    await client.close()


def test_a_proxy_from_the_environment_or_https_keeps_httpx(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert not on_the_lean_way(ModelClient(base_url="https://api.example.com/v1", api_key="k", timeout_s=5))
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    assert not on_the_lean_way(ModelClient(base_url="http://model.internal/v1", api_key="k", timeout_s=5))
    monkeypatch.delenv("HTTP_PROXY")
    assert on_the_lean_way(ModelClient(base_url="http://model.internal/v1", api_key="k", timeout_s=5))
