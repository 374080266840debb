"""A run's trace: one stage per thing the run did, in order, with its timing and the
details that explain the outcome (the design's debug snapshots).

Stages are PROMPT, SKILL_ROUTING, KNOWLEDGE, MODEL_CALL, TOOL_CALL and APPROVAL. Their
details are plain JSON, bounded (long texts are cut with a marker and their size, long
lists keep their ends) and scrubbed: secret-looking keys at any depth are redacted,
also inside the JSON text of a model's tool-call arguments, and the platform's own
secret values (model and embedding API keys, the admin token, the encryption key) are
replaced wherever they appear in a string. Tool credentials never reach a run: the
gateway adds them to the outgoing request only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.ids import new_id

PROMPT = "PROMPT"
SKILL_ROUTING = "SKILL_ROUTING"
KNOWLEDGE = "KNOWLEDGE"
MODEL_CALL = "MODEL_CALL"
TOOL_CALL = "TOOL_CALL"
APPROVAL = "APPROVAL"
STAGE_KINDS = (PROMPT, SKILL_ROUTING, KNOWLEDGE, MODEL_CALL, TOOL_CALL, APPROVAL)

REDACTED = "[redacted]"
# The same rule the gateway's call log applies to argument names.
SECRET_KEY = re.compile(r"(password|passwd|secret|token|api[_-]?key|authorization)", re.IGNORECASE)
# Bounds of one stage's details: a model call's messages are the large part.
TEXT_CAP = 4_000
MESSAGES_CAP_CHARS = 48_000
LIST_CAP = 50
DICT_CAP = 200
DEPTH_CAP = 20
MIN_SECRET_LENGTH = 6


@dataclass
class Stage:
    kind: str
    started_at: datetime
    finished_at: datetime
    detail: dict[str, Any]
    step: int | None = None
    id: str = field(default_factory=lambda: new_id("stg_"))

    @property
    def duration_ms(self) -> float:
        return round((self.finished_at - self.started_at).total_seconds() * 1000, 3)


class ScrubbedMessages:
    """A run's scrubbed copy of its messages, kept between model calls: a conversation only
    grows, and each message object is scrubbed (and measured) once instead of at every call."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[dict[str, Any], dict[str, Any], int]] = {}

    def get(self, message: dict[str, Any]) -> tuple[dict[str, Any], int] | None:
        entry = self._by_id.get(id(message))
        # The message itself is held, so its id cannot be reused by another object meanwhile.
        if entry is None or entry[0] is not message:
            return None
        return entry[1], entry[2]

    def put(self, message: dict[str, Any], scrubbed: dict[str, Any], size: int) -> None:
        self._by_id[id(message)] = (message, scrubbed, size)


class Scrubber:
    """Makes a value fit for a trace: no secrets, bounded size."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        # Longest first, so a secret containing another is replaced whole.
        self._secrets = sorted(
            {secret for secret in secrets if secret and len(secret) >= MIN_SECRET_LENGTH}, key=len, reverse=True
        )

    def text(self, value: str, cap: int = TEXT_CAP) -> str:
        for secret in self._secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        if len(value) > cap:
            return f"{value[:cap]}[…cut: {len(value)} characters]"
        return value

    def value(self, value: Any, cap: int = TEXT_CAP, depth: int = 0) -> Any:
        """Any JSON value: secret-looking keys redacted at any depth, strings cut at ``cap``,
        lists, objects and nesting bounded."""
        if depth > DEPTH_CAP and isinstance(value, dict | list | tuple):
            return "[…nested deeper than the trace keeps]"
        if isinstance(value, dict):
            scrubbed = {
                str(key): REDACTED if SECRET_KEY.search(str(key)) else self.value(item, cap, depth + 1)
                for key, item in list(value.items())[:DICT_CAP]
            }
            if len(value) > DICT_CAP:
                scrubbed["…"] = f"{len(value) - DICT_CAP} more keys"
            return scrubbed
        if isinstance(value, list | tuple):
            items = [self.value(item, cap, depth + 1) for item in value[:LIST_CAP]]
            if len(value) > LIST_CAP:
                items.append(f"[…{len(value) - LIST_CAP} more]")
            return items
        if isinstance(value, str):
            return self.text(value, cap)
        if isinstance(value, float) and value != value:  # NaN is not JSON
            return None
        if value is None or isinstance(value, bool | int | float):
            return value
        return self.text(str(value), cap)

    def arguments_text(self, raw: str) -> Any:
        """A model's tool-call arguments (JSON text): parsed and scrubbed, or the text scrubbed."""
        try:
            parsed = json.loads(raw) if raw.strip() else {}
        except ValueError:
            return self.text(raw)
        return self.value(parsed)

    def message(self, message: dict[str, Any]) -> dict[str, Any]:
        scrubbed: dict[str, Any] = {"role": message.get("role")}
        content = message.get("content")
        if content is not None:
            scrubbed["content"] = self.value(content)
        if message.get("tool_call_id"):
            scrubbed["tool_call_id"] = message["tool_call_id"]
        calls = message.get("tool_calls")
        if calls:
            scrubbed["tool_calls"] = [
                {
                    "id": call.get("id"),
                    "name": (call.get("function") or {}).get("name"),
                    "arguments": self.arguments_text(str((call.get("function") or {}).get("arguments") or "")),
                }
                for call in calls
            ]
        return scrubbed

    def messages(
        self, messages: list[dict[str, Any]], kept: ScrubbedMessages | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        """The messages, each scrubbed, within MESSAGES_CAP_CHARS: the first (system) message
        and as many of the latest as fit; returns them and how many were left out. With
        ``kept``, messages scrubbed before (the same objects, unchanged) are taken from it."""
        scrubbed: list[dict[str, Any]] = []
        sizes: list[int] = []
        for message in messages:
            known = kept.get(message) if kept is not None else None
            if known is None:
                clean = self.message(message)
                known = (clean, len(json.dumps(clean, ensure_ascii=False, default=str)))
                if kept is not None:
                    kept.put(message, *known)
            scrubbed.append(known[0])
            sizes.append(known[1])
        if sum(sizes) <= MESSAGES_CAP_CHARS or len(scrubbed) <= 1:
            return scrubbed, 0
        kept_tail: list[dict[str, Any]] = []
        used = sizes[0]
        for message, size in zip(reversed(scrubbed[1:]), reversed(sizes[1:]), strict=True):
            if used + size > MESSAGES_CAP_CHARS:
                break
            kept_tail.append(message)
            used += size
        omitted = len(scrubbed) - 1 - len(kept_tail)
        return [scrubbed[0], *reversed(kept_tail)], omitted
