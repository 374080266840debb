"""The model client: the openai SDK against any OpenAI-compatible endpoint."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import openai
from openai import AsyncOpenAI

MODEL_TIMEOUT = "MODEL_TIMEOUT"
MODEL_ERROR = "MODEL_ERROR"
MODEL_BAD_RESPONSE = "MODEL_BAD_RESPONSE"


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
    def __init__(self, *, base_url: str, api_key: str | None, timeout_s: float) -> None:
        # The platform retries itself (once), so the SDK's own retries are off.
        self._client = AsyncOpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout_s, max_retries=0)

    async def close(self) -> None:
        await self._client.close()

    async def complete(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        on_delta: DeltaCallback | None = None,
    ) -> ModelReply:
        """One chat completion, retried once when the failure is transient."""
        try:
            return await self._complete_once(model, messages, tools, on_delta)
        except ModelError as error:
            if not error.retryable:
                raise
        return await self._complete_once(model, messages, tools, on_delta)

    async def _complete_once(
        self,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        on_delta: DeltaCallback | None,
    ) -> ModelReply:
        arguments: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            arguments["tools"] = tools
        try:
            if on_delta is not None:
                return await self._stream(arguments, on_delta)
            response = await self._client.chat.completions.create(**arguments)
        except openai.APITimeoutError:
            raise ModelError(MODEL_TIMEOUT, "The model did not answer in time.", retryable=True) from None
        except openai.APIStatusError as error:
            raise ModelError(
                MODEL_ERROR,
                f"The model endpoint answered with an error (HTTP {error.status_code}).",
                _detail(error),
                retryable=error.status_code >= 500 or error.status_code == 429,
            ) from None
        except openai.APIConnectionError as error:
            raise ModelError(
                MODEL_ERROR, "The model endpoint could not be reached.", str(error), retryable=True
            ) from None
        except (openai.APIResponseValidationError, ValueError, TypeError, KeyError) as error:
            raise ModelError(
                MODEL_BAD_RESPONSE, "The model sent a malformed reply.", str(error), retryable=True
            ) from None
        return _parse(response)

    async def _stream(self, arguments: dict[str, Any], on_delta: DeltaCallback) -> ModelReply:
        stream = await self._client.chat.completions.create(
            **arguments, stream=True, stream_options={"include_usage": True}
        )
        content: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        reply = ModelReply(content=None)
        async for chunk in stream:
            if chunk.usage is not None:
                reply.prompt_tokens = chunk.usage.prompt_tokens or 0
                reply.completion_tokens = chunk.usage.completion_tokens or 0
            if not chunk.choices:
                continue
            delta = chunk.choices[0].delta
            if delta.content:
                content.append(delta.content)
                await on_delta(delta.content)
            for call in delta.tool_calls or []:
                slot = calls.setdefault(call.index, {"id": "", "name": "", "arguments": ""})
                if call.id:
                    slot["id"] = call.id
                if call.function is not None:
                    slot["name"] += call.function.name or ""
                    slot["arguments"] += call.function.arguments or ""
        reply.content = "".join(content) or None
        reply.tool_calls = [
            ToolCallRequest(call_id=slot["id"] or f"call_{index}", name=slot["name"], arguments=slot["arguments"])
            for index, slot in sorted(calls.items())
        ]
        if reply.content is None and not reply.tool_calls:
            raise ModelError(MODEL_BAD_RESPONSE, "The model sent an empty reply.", retryable=True)
        return reply


def _detail(error: openai.APIStatusError) -> str:
    try:
        body = json.dumps(error.body)[:500]
    except (TypeError, ValueError):
        body = str(error.body)[:500]
    return f"HTTP {error.status_code}: {body}"


def _parse(response: Any) -> ModelReply:
    if not getattr(response, "choices", None):
        raise ModelError(MODEL_BAD_RESPONSE, "The model sent a reply without choices.", retryable=True)
    message = response.choices[0].message
    if message is None:
        raise ModelError(MODEL_BAD_RESPONSE, "The model sent a reply without a message.", retryable=True)
    calls = [
        ToolCallRequest(call_id=call.id, name=call.function.name, arguments=call.function.arguments or "")
        for call in (message.tool_calls or [])
        if getattr(call, "function", None) is not None
    ]
    if message.content is None and not calls:
        raise ModelError(MODEL_BAD_RESPONSE, "The model sent an empty reply.", retryable=True)
    usage = getattr(response, "usage", None)
    return ModelReply(
        content=message.content,
        tool_calls=calls,
        prompt_tokens=(usage.prompt_tokens or 0) if usage else 0,
        completion_tokens=(usage.completion_tokens or 0) if usage else 0,
    )
