"""The builtin catalog, declared as code. Loaded (idempotently) at every start.

A tool declared ``"visibility": "restricted"`` gets one binding row to the system
space when it is first loaded; later loads never touch its bindings again, so an
admin's re-assignment stands.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

BUILTIN_TOOLS: list[dict[str, Any]] = [
    {
        "tool_id": "bt_search_knowledge",
        "name": "search_knowledge",
        "label": "Search knowledge",
        "description": (
            "Search the knowledge bases mounted on this agent and return the most relevant "
            "passages with citation data (document, title, source, heading path, score). "
            "Use it before answering questions about the organisation's own documents, "
            "policies or products. Do not use it for general world knowledge or arithmetic."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 2000,
                    "description": "What to look for, in natural language.",
                },
                "topK": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 50,
                    "default": 5,
                    "description": "How many passages to return.",
                },
                "knowledgeBaseIds": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Limit the search to these knowledge bases.",
                },
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        "side_effect": "READ",
        "timeout_ms": 5000,
        "tags": ["knowledge", "retrieval"],
        "group": "knowledge",
        "visibility": "global",
    },
    {
        "tool_id": "bt_current_time",
        "name": "current_time",
        "label": "Current time",
        "description": (
            "Return the current date and time, in UTC or in the given IANA time zone "
            "(e.g. Europe/Paris). Use it whenever the answer depends on today's date or "
            "the time of day; never guess the date."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "timezone": {
                    "type": "string",
                    "maxLength": 64,
                    "description": "IANA time zone name; UTC when omitted.",
                },
            },
            "additionalProperties": False,
        },
        "side_effect": "READ",
        "timeout_ms": 1000,
        "tags": ["time", "utility"],
        "group": "utility",
        "visibility": "global",
    },
    {
        "tool_id": "bt_calculator",
        "name": "calculator",
        "label": "Calculator",
        "description": (
            "Evaluate an arithmetic expression exactly (+ - * / // % **, parentheses, "
            "abs, round, min, max, sqrt). Use it for any arithmetic beyond the trivial "
            "instead of computing in your head. It does not solve equations or convert units."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "expression": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 500,
                    "description": "The expression, e.g. (1250 * 1.2) / 3.",
                },
            },
            "required": ["expression"],
            "additionalProperties": False,
        },
        "side_effect": "READ",
        "timeout_ms": 1000,
        "tags": ["math", "utility"],
        "group": "utility",
        "visibility": "global",
    },
    {
        "tool_id": "bt_send_message",
        "name": "send_message",
        "label": "Send message to agent",
        "description": (
            "Send a message to another agent of the same space. type 'request' asks the "
            "agent to do something and returns its answer; type 'notify' only delivers the "
            "message, which the recipient sees at the start of its next run. Use it to "
            "delegate work another agent is built for; do not message yourself."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "to": {"type": "string", "description": "Id of the receiving agent (ag_...)."},
                "type": {
                    "type": "string",
                    "enum": ["request", "notify"],
                    "description": "request waits for an answer; notify does not.",
                },
                "content": {"type": "string", "minLength": 1, "maxLength": 8000, "description": "The message text."},
            },
            "required": ["to", "type", "content"],
            "additionalProperties": False,
        },
        "side_effect": "WRITE",
        "timeout_ms": 120_000,
        "tags": ["agents", "messaging"],
        "group": "collaboration",
        # Agents talking to agents is opt-in per space: an admin assigns it.
        "visibility": "restricted",
    },
]


@cache
def builtin_skills() -> list[dict[str, Any]]:
    """Builtin skills: metadata from ``skills/index.json``, prompt from ``skills/<name>.md``."""
    folder = resources.files("app.catalog").joinpath("skills")
    declared: list[dict[str, Any]] = json.loads(folder.joinpath("index.json").read_text("utf-8"))
    for skill in declared:
        skill["prompt"] = folder.joinpath(f"{skill['name']}.md").read_text("utf-8").strip()
    return declared
