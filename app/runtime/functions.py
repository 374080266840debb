"""Tools as function definitions for the model, with a reversible name mapping."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.tools.models import ToolDefinition

FUNCTION_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class NamedTool(Protocol):
    """What naming and schemas need of a tool (an ORM row, or a listing of its columns)."""

    @property
    def tool_id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def input_schema(self) -> dict[str, Any]: ...

    @property
    def static_arguments(self) -> dict[str, Any]: ...


@dataclass
class FunctionSet:
    """The functions offered to the model and which tool each name stands for."""

    definitions: list[dict[str, Any]] = field(default_factory=list)
    tool_by_name: dict[str, str] = field(default_factory=dict)

    def tool_id(self, function_name: str) -> str:
        """The tool a function name maps back to (an unknown name is passed through as is)."""
        return self.tool_by_name.get(function_name, function_name)


def model_schema(tool: NamedTool) -> dict[str, Any]:
    """The input schema without the static arguments the platform fills in.

    A new dict whose top level (and ``properties``, ``required``) may differ from the tool's;
    nested values are shared with it, never changed (a deep copy costs more than the rest of
    building a large listing).
    """
    schema = dict(tool.input_schema or {"type": "object"})
    static = set(tool.static_arguments or {})
    if static:
        properties = schema.get("properties")
        if isinstance(properties, dict):
            schema["properties"] = {key: value for key, value in properties.items() if key not in static}
        if isinstance(schema.get("required"), list):
            schema["required"] = [key for key in schema["required"] if key not in static]
    return schema


def function_name(tool: NamedTool, taken: set[str]) -> str:
    """The tool's own name when it is a valid, unused function name; otherwise a stable alias."""
    if FUNCTION_NAME.match(tool.name) and tool.name not in taken:
        return tool.name
    digest = hashlib.sha256(tool.tool_id.encode()).hexdigest()[:8]
    base = re.sub(r"[^a-zA-Z0-9_-]", "_", tool.name)[: 64 - len(digest) - 4] or "tool"
    alias = f"{base}_{digest}"
    counter = 1
    while alias in taken:
        # Astronomically rare: another tool's own name is exactly this alias.
        counter += 1
        alias = f"{base}_{digest}{counter}"
    return alias


def build_function_set(tools: list[ToolDefinition]) -> FunctionSet:
    functions = FunctionSet()
    for tool in sorted(tools, key=lambda item: item.tool_id):
        name = function_name(tool, set(functions.tool_by_name))
        functions.tool_by_name[name] = tool.tool_id
        functions.definitions.append(
            {
                "type": "function",
                "function": {"name": name, "description": tool.description, "parameters": model_schema(tool)},
            }
        )
    return functions
