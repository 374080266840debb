"""The model client: chat completions against any OpenAI-compatible endpoint.

A lean client of its own on httpx rather than the openai SDK: the SDK walks every
message of every request through its TypedDict transform and builds pydantic models of
every reply, which cost the runtime about as much CPU per model call as the rest of a
step (bench/agent_overhead.py, bench/README.md). The wire format is the SDK's: the same
JSON body (``model``, ``messages``, ``tools`` when there are any, ``stream`` and
``stream_options`` when streaming), ``Authorization: Bearer``, the same timeout (each of
connect, write, read and pool), redirects followed, no retries of its own.

A non-streamed call to a plain ``http://`` endpoint (a model server or gateway inside the
deployment) takes the gateway's lean HTTP/1.1 client instead of httpx
(``app.gateway.executors.plain_http``: one write per request, the answer parsed by
httptools, an idle connection one ``list.pop``): httpx's request and response models and
its pool were about three quarters of the runtime's CPU per model call beyond the socket
itself (bench/agent_overhead.py). The same body and headers go out; the whole call is
bounded by the timeout; a redirect is followed by sending the request again the httpx
way; an endpoint reached through a proxy (``HTTP_PROXY`` and the like), ``https``, or a
key that cannot be a header value keep httpx.

Errors, as before: a time-out is ``MODEL_TIMEOUT``; an HTTP error status is
``MODEL_ERROR`` (its body in the detail), retryable for 5xx and 429; an unreachable
endpoint is ``MODEL_ERROR``; a reply that is not JSON, has no choices, no message, or
neither content nor tool calls is ``MODEL_BAD_RESPONSE``. The platform retries a
retryable failure once. Usage comes from the reply's ``usage`` (the last streamed chunk
carrying it when streaming).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from app import jsoncodec
from app.gateway.executors.plain_http import (
    NotPlainError,
    Origin,
    PlainHttpPool,
    ProtocolError,
    ResponseTooLargeError,
    encode_headers,
    plain_origin,
)
from app.gateway.redaction import json_safe
from app.scheduling import waiting_outside

MODEL_TIMEOUT = "MODEL_TIMEOUT"
MODEL_ERROR = "MODEL_ERROR"
MODEL_BAD_RESPONSE = "MODEL_BAD_RESPONSE"

#: The openai SDK's connection limits, kept.
CONNECTION_LIMITS = httpx.Limits(max_connections=1000, max_keepalive_connections=100)
#: What an error's detail keeps of the endpoint's answer.
DETAIL_CHARS = 500
#: A reply is read whatever its size, as httpx reads it.
MAX_REPLY_BYTES = sys.maxsize
USER_AGENT = "quiver-runtime"


@dataclass
class ToolCallRequest:
    """A function call the model asked for; ``arguments`` is the raw JSON text."""

    call_id: str
    name: str
    arguments: str


@dataclass
class ModelReply:
    content: str | None
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ModelError(Exception):
    """The model call failed; ``retryable`` for time-outs, 5xx and malformed replies."""

    def __init__(self, code: str, message: str, detail: str | None = None, *, retryable: bool) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.detail = detail
        self.retryable = retryable


DeltaCallback = Callable[[str], Awaitable[None]]


class ModelClient:
    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        timeout_s: float,
        transport: httpx.AsyncBaseTransport | None = None,
        plain_http: bool = True,
    ) -> None:
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._timeout_s = timeout_s
        headers = {
            "Authorization": f"Bearer {api_key or 'not-needed'}",
            "Accept": "application/json",
            "Content-Type": "application/json",
        }
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout_s),
            limits=CONNECTION_LIMITS,
            follow_redirects=True,
            transport=transport,
            headers={**headers, "User-Agent": USER_AGENT},
        )
        #: The lean way for non-streamed calls (see the module docstring), when this endpoint can take it.
        self._plain: tuple[PlainHttpPool, Origin, bytes] | None = None
        origin = plain_origin(self._url) if plain_http and transport is None else None
        # httpx's own transport for the URL, not a proxy's (from the environment).
        if origin is not None and self._client._transport_for_url(httpx.URL(self._url)) is self._client._transport:
            with contextlib.suppress(NotPlainError):
                self._plain = (PlainHttpPool(None, user_agent=USER_AGENT.encode()), origin, encode_headers(headers))

    async def close(self) -> None:
        if self._plain is not None:
            await self._plain[0].aclose()
        await self._client.aclose()

    async def complete(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        on_delta: DeltaCallback | None = None,
    ) -> ModelReply:
        """One chat completion, retried once when the failure is transient."""
        body: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            body["tools"] = tools
        if on_delta is not None:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        # Encoded once for both attempts (orjson; the standard library for what it refuses).
        content = jsoncodec.dumps_bytes(body)
        # The model's time is not the loop's: the request's place in its tenant's share is given up meanwhile.
        with waiting_outside():
            try:
                return await self._complete_once(content, on_delta)
            except ModelError as error:
                if not error.retryable:
                    raise
            return await self._complete_once(content, on_delta)

    async def _complete_once(self, content: bytes, on_delta: DeltaCallback | None) -> ModelReply:
        try:
            if on_delta is not None:
                return await self._stream(content, on_delta)
            answer = await self._post_plain(content) if self._plain is not None else None
            if answer is None:
                response = await self._client.post(self._url, content=content)
                answer = (response.status_code, response.content, response.text)
            status, body, text = answer
            if status >= 400:
                raise _status_error(status, text)
            try:
                data = jsoncodec.loads(body)
            except ValueError as error:
                raise ModelError(
                    MODEL_BAD_RESPONSE, "The model sent a malformed reply.", str(error)[:DETAIL_CHARS], retryable=True
                ) from None
        except httpx.TimeoutException:
            raise ModelError(MODEL_TIMEOUT, "The model did not answer in time.", retryable=True) from None
        except httpx.RequestError as error:
            # Unreachable, refused, reset, too many redirects: the SDK's APIConnectionError.
            raise ModelError(
                MODEL_ERROR, "The model endpoint could not be reached.", _transport_detail(error), retryable=True
            ) from None
        return _parse(json_safe(data))

    async def _post_plain(self, content: bytes) -> tuple[int, bytes, str] | None:
        """(status, body, its text) the lean way; None for a redirect (then the httpx way follows it)."""
        assert self._plain is not None
        pool, origin, head_lines = self._plain
        try:
            async with asyncio.timeout(self._timeout_s):
                status, body, _ = await pool.post(origin, head_lines, content, max_bytes=MAX_REPLY_BYTES)
        except TimeoutError:
            raise ModelError(MODEL_TIMEOUT, "The model did not answer in time.", retryable=True) from None
        except (OSError, ProtocolError, ResponseTooLargeError) as error:
            detail = (str(error) or type(error).__name__)[:DETAIL_CHARS]
            raise ModelError(MODEL_ERROR, "The model endpoint could not be reached.", detail, retryable=True) from None
        if 300 <= status < 400:
            return None
        return status, body, body.decode("utf-8", "replace")

    async def _stream(self, content: bytes, on_delta: DeltaCallback) -> ModelReply:
        text: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        reply = ModelReply(content=None)
        async with self._client.stream("POST", self._url, content=content) as response:
            if response.status_code >= 400:
                await response.aread()
                raise _status_error(response.status_code, response.text)
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue  # comments, event names, ids, blank separators
                payload = line[5:].strip()
                if not payload:
                    continue
                if payload.startswith("[DONE]"):
                    break
                try:
                    chunk = json_safe(jsoncodec.loads(payload))
                except ValueError as error:
                    raise ModelError(
                        MODEL_BAD_RESPONSE,
                        "The model sent a malformed reply.",
                        str(error)[:DETAIL_CHARS],
                        retryable=True,
                    ) from None
                if not isinstance(chunk, dict):
                    raise ModelError(MODEL_BAD_RESPONSE, "The model sent a malformed reply.", retryable=True)
                if chunk.get("error"):
                    # An error event in the middle of the stream: deltas went out already, not retried.
                    raise ModelError(
                        MODEL_ERROR,
                        "The model endpoint reported an error while streaming.",
                        _json_detail(chunk["error"]),
                        retryable=False,
                    )
                usage = chunk.get("usage")
                if isinstance(usage, dict):
                    reply.prompt_tokens, reply.completion_tokens = _usage(usage)
                choices = chunk.get("choices")
                if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
                    continue
                delta = choices[0].get("delta")
                if not isinstance(delta, dict):
                    continue
                piece = delta.get("content")
                if isinstance(piece, str) and piece:
                    text.append(piece)
                    await on_delta(piece)
                for call in delta.get("tool_calls") or []:
                    if not isinstance(call, dict):
                        continue
                    index = call.get("index")
                    slot = calls.setdefault(
                        index if isinstance(index, int) else len(calls), {"id": "", "name": "", "arguments": ""}
                    )
                    if isinstance(call.get("id"), str) and call["id"]:
                        slot["id"] = call["id"]
                    function = call.get("function")
                    if isinstance(function, dict):
                        slot["name"] += _text(function.get("name"))
                        slot["arguments"] += _arguments(function.get("arguments"))
        reply.content = "".join(text) or None
        reply.tool_calls = [
            ToolCallRequest(
                call_id=slot["id"] or f"call_{index}", name=slot["name"], arguments=_safe_arguments(slot["arguments"])
            )
            for index, slot in sorted(calls.items())
        ]
        if reply.content is None and not reply.tool_calls:
            raise ModelError(MODEL_BAD_RESPONSE, "The model sent an empty reply.", retryable=True)
        return reply


def _status_error(status: int, text: str) -> ModelError:
    """An HTTP error status; the detail holds the endpoint's ``error`` object (or its body)."""
    body: Any = text.strip()
    with contextlib.suppress(ValueError):
        body = json.loads(body)
    if isinstance(body, dict) and "error" in body:
        body = body["error"]
    return ModelError(
        MODEL_ERROR,
        f"The model endpoint answered with an error (HTTP {status}).",
        f"HTTP {status}: {_json_detail(body)}",
        retryable=status >= 500 or status == 429,
    )


def _json_detail(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)[:DETAIL_CHARS]
    except (TypeError, ValueError):
        return str(value)[:DETAIL_CHARS]


def _transport_detail(error: httpx.RequestError) -> str:
    return (str(error) or type(error).__name__)[:DETAIL_CHARS]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _arguments(value: Any) -> str:
    """Arguments as JSON text; an endpoint that sends them as an object gets them encoded."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _safe_arguments(text: str) -> str:
    """Arguments whose JSON escapes spell U+0000 or a lone surrogate (``"\\u0000"``), which neither
    PostgreSQL's text nor its JSONB holds (the run's trace and call log failed to be written), as
    the same JSON with U+FFFD in their place (:func:`json_safe`); anything else as sent."""
    if not jsoncodec.may_be_refused(text):
        return text
    try:
        parsed = json.loads(text)
    except ValueError:
        return text  # the gateway reports it as PARAM_INVALID
    return json.dumps(json_safe(parsed), ensure_ascii=False)


def _usage(usage: dict[str, Any]) -> tuple[int, int]:
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return (
        prompt if isinstance(prompt, int) and not isinstance(prompt, bool) else 0,
        completion if isinstance(completion, int) and not isinstance(completion, bool) else 0,
    )


def _parse(data: Any) -> ModelReply:
    choices = data.get("choices") if isinstance(data, dict) else None
    if not choices or not isinstance(choices, list):
        raise ModelError(MODEL_BAD_RESPONSE, "The model sent a reply without choices.", retryable=True)
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise ModelError(MODEL_BAD_RESPONSE, "The model sent a reply without a message.", retryable=True)
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise ModelError(
            MODEL_BAD_RESPONSE,
            "The model sent a reply whose content is not text.",
            type(content).__name__,
            retryable=True,
        )
    calls: list[ToolCallRequest] = []
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise ModelError(MODEL_BAD_RESPONSE, "The model sent malformed tool calls.", retryable=True)
    for call in raw_calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        calls.append(
            ToolCallRequest(
                call_id=_text(call.get("id")),
                name=_text(function.get("name")),
                arguments=_safe_arguments(_arguments(function.get("arguments"))),
            )
        )
    if content is None and not calls:
        raise ModelError(MODEL_BAD_RESPONSE, "The model sent an empty reply.", retryable=True)
    usage = data.get("usage")
    prompt_tokens, completion_tokens = _usage(usage) if isinstance(usage, dict) else (0, 0)
    return ModelReply(
        content=content, tool_calls=calls, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
    )
