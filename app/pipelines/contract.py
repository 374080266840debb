"""What passes between pipeline steps: input templates, JSON outputs, and the static check
that one step's declared output fits the next step's declared input.

Templates: ``{{ input }}`` (the pipeline's input), ``{{ prev.output }}`` (the output of the
step that ran last; the input for the first step) and ``{{ steps.<name>.output }}`` (an
earlier step's), each optionally followed by a path into the JSON (``{{ input.order.id }}``).
A placeholder becomes the JSON text of its value (a string is quoted), so what reaches a
model is always JSON.

Outputs: a step's agent must answer with JSON (one fenced ```json block is unwrapped). An
object with a ``final_answer`` key ends the pipeline at once, its value the pipeline's output.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
REFERENCE = re.compile(r"^(input|prev\.output|steps\.([A-Za-z0-9_-]+)\.output)((?:\.[A-Za-z0-9_-]+)*)$")
FENCED = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.DOTALL)
FINAL_ANSWER = "final_answer"


@dataclass(frozen=True)
class Reference:
    source: str  # "input", "prev" or a step name
    path: tuple[str, ...]


def references(template: str) -> list[Reference | str]:
    """Each placeholder of a template, parsed; a str for one that is not a valid reference."""
    found: list[Reference | str] = []
    for match in PLACEHOLDER.finditer(template):
        parsed = REFERENCE.match(match.group(1))
        if parsed is None:
            found.append(match.group(1))
            continue
        head = parsed.group(1)
        source = "input" if head == "input" else "prev" if head == "prev.output" else str(parsed.group(2))
        path = tuple(part for part in parsed.group(3).split(".") if part)
        found.append(Reference(source, path))
    return found


def _lookup(value: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


class RenderTooLongError(Exception):
    """A template's expansion passed its bound; ``length``: how far it had got when refused."""

    def __init__(self, length: int) -> None:
        super().__init__(length)
        self.length = length


def render(
    template: str, pipeline_input: Any, previous: Any, outputs: dict[str, Any], max_chars: int | None = None
) -> str:
    """The message for a step: every placeholder replaced by the JSON text of its value.

    ``max_chars``: raises RenderTooLongError as soon as the message passes it, so that a
    template repeating a large value is refused before it is expanded in memory (a few
    hundred placeholders of one 100,000-character input made ~11 MB). Each distinct value's
    JSON is computed once."""
    pieces: list[str] = []
    length = 0
    texts: dict[str, str] = {}

    def add(piece: str) -> None:
        nonlocal length
        length += len(piece)
        if max_chars is not None and length > max_chars:
            raise RenderTooLongError(length)
        pieces.append(piece)

    position = 0
    for match in PLACEHOLDER.finditer(template):
        add(template[position : match.start()])
        position = match.end()
        reference = match.group(1)
        text = texts.get(reference)
        if text is None:
            parsed = REFERENCE.match(reference)
            assert parsed is not None, "templates are checked when the pipeline is stored"
            head = parsed.group(1)
            if head == "input":
                value = pipeline_input
            elif head == "prev.output":
                value = previous
            else:
                value = outputs.get(str(parsed.group(2)))
            path = tuple(part for part in parsed.group(3).split(".") if part)
            text = texts[reference] = json.dumps(_lookup(value, path), ensure_ascii=False)
        add(text)
    add(template[position:])
    return "".join(pieces)


def parse_output(text: str | None) -> tuple[bool, Any]:
    """(True, value) when the agent's answer is JSON (optionally in one fenced block)."""
    if text is None:
        return False, None
    stripped = text.strip()
    fenced = FENCED.match(stripped)
    if fenced:
        stripped = fenced.group(1).strip()
    try:
        return True, json.loads(stripped)
    except ValueError:
        return False, None


def final_answer(output: Any) -> tuple[bool, Any]:
    """(True, answer) when a step's output says it holds the final answer."""
    if isinstance(output, dict) and FINAL_ANSWER in output:
        return True, output[FINAL_ANSWER]
    return False, None


# ---------------------------------------------------------------- schema compatibility

_NUMERIC = {"integer", "number"}


def _types(schema: dict[str, Any]) -> set[str] | None:
    declared = schema.get("type")
    if declared is None:
        if "const" in schema:
            return {_json_type(schema["const"])}
        if "enum" in schema and isinstance(schema["enum"], list):
            return {_json_type(value) for value in schema["enum"]}
        return None
    return {declared} if isinstance(declared, str) else set(declared)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _type_fits(produced: str, accepted: set[str]) -> bool:
    return produced in accepted or (produced == "integer" and "number" in accepted)


def incompatibility(produced: dict[str, Any] | None, accepted: dict[str, Any] | None, path: str = "") -> str | None:
    """Why a value valid under ``produced`` may be refused by ``accepted``; None when every
    such value is accepted as far as types, required properties, closed objects, enums and
    array items tell. Other keywords (lengths, patterns, bounds) are left to the check of
    each value at run time."""
    if not accepted:
        return None
    where = path or "the value"
    if produced is None:
        return None
    accepted_types = _types(accepted)
    produced_types = _types(produced)
    if accepted_types is not None:
        if produced_types is None:
            return f"{where} may be of any type, but must be {' or '.join(sorted(accepted_types))}"
        wrong = sorted(kind for kind in produced_types if not _type_fits(kind, accepted_types))
        if wrong:
            return f"{where} may be {' or '.join(wrong)}, but must be {' or '.join(sorted(accepted_types))}"
    if "const" in accepted and (
        produced.get("const", object()) != accepted["const"] and produced.get("enum") != [accepted["const"]]
    ):
        return f"{where} must be {json.dumps(accepted['const'])}"
    if isinstance(accepted.get("enum"), list):
        produced_values = [produced["const"]] if "const" in produced else produced.get("enum")
        if not isinstance(produced_values, list):
            return f"{where} must be one of {json.dumps(accepted['enum'])}"
        extra = [value for value in produced_values if value not in accepted["enum"]]
        if extra:
            return f"{where} may be {json.dumps(extra[0])}, which is not one of {json.dumps(accepted['enum'])}"
    kinds = produced_types or set()
    if "object" in kinds or "properties" in accepted or "required" in accepted:
        reason = _object_incompatibility(produced, accepted, path)
        if reason:
            return reason
    if "array" in kinds and isinstance(accepted.get("items"), dict):
        items = produced.get("items") if isinstance(produced.get("items"), dict) else {}
        return incompatibility(items, accepted["items"], f"{path}[]" if path else "[]")
    return None


def _object_incompatibility(produced: dict[str, Any], accepted: dict[str, Any], path: str) -> str | None:
    produced_properties: dict[str, Any] = produced.get("properties") or {}
    accepted_properties: dict[str, Any] = accepted.get("properties") or {}
    guaranteed = set(produced.get("required") or [])
    for name in accepted.get("required") or []:
        if name not in guaranteed:
            return f"property {_join(path, name)!r} is required but not guaranteed"
    if accepted.get("additionalProperties") is False:
        if produced.get("additionalProperties") is not False:
            return f"{path or 'the object'} may hold properties other than {sorted(accepted_properties)}"
        extra = sorted(set(produced_properties) - set(accepted_properties))
        if extra:
            return f"property {_join(path, extra[0])!r} is not accepted"
    for name, schema in accepted_properties.items():
        if name in produced_properties and isinstance(schema, dict):
            reason = incompatibility(produced_properties[name], schema, _join(path, name))
            if reason:
                return reason
    return None


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name
