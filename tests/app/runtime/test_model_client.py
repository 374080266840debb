"""The runtime's own chat-completions client: the openai SDK's wire format and error mapping,
on an httpx MockTransport (the agent-loop tests run it against a real HTTP server)."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
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
