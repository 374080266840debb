"""A run's resumable state, stored on its row after every step (``agent_run.checkpoint``).

It holds everything a replica needs to continue the run where its last completed step
left it — the caller, the conversation as sent to the model, the functions offered and
the tool calls of the current step with the outcome of each one known so far — so a
run waiting for a person holds no task, connection or memory anywhere, and a run whose
replica died can be continued by another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.principal import Principal
from app.runtime.functions import FunctionSet

VERSION = 1


@dataclass
class PlannedCall:
    """One tool call the model asked for in the current step."""

    #: The model's id for the call (``call_…``), echoed in the tool message.
    call_id: str
    #: Quiver's id (``tc_…``), given before the call runs: its call-log row has this id.
    tool_call_id: str
    name: str
    tool_id: str
    #: The parsed arguments, or the raw text when the model sent malformed JSON.
    arguments: Any
    needs_approval: bool
    #: The envelope the model gets, once the outcome is known.
    envelope: dict[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "callId": self.call_id,
            "toolCallId": self.tool_call_id,
            "name": self.name,
            "toolId": self.tool_id,
            "arguments": self.arguments,
            "needsApproval": self.needs_approval,
            "envelope": self.envelope,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlannedCall:
        return cls(
            call_id=data["callId"],
            tool_call_id=data["toolCallId"],
            name=data["name"],
            tool_id=data["toolId"],
            arguments=data["arguments"],
            needs_approval=bool(data["needsApproval"]),
            envelope=data.get("envelope"),
        )


@dataclass
class Checkpoint:
    principal: Principal
    #: invokeAgent's userProfile and skillChannel: what building the prompt needs besides the row.
    user_profile: dict[str, Any] | None = None
    force_channel: str | None = None
    #: Skill versions pinned for this run (``skillId@version``, a pipeline step's): they replace
    #: the agent's binding of the same skill, or are added to its skills.
    skill_pins: list[str] | None = None
    #: The conversation as sent to the model; None until the prompt was built.
    messages: list[dict[str, Any]] | None = None
    functions: FunctionSet = field(default_factory=FunctionSet)
    #: The tool calls of the current step; empty between steps.
    pending: list[PlannedCall] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "principal": self.principal.as_json(),
            "userProfile": self.user_profile,
            "forceChannel": self.force_channel,
            "skillPins": self.skill_pins,
            "messages": self.messages,
            "functions": {"definitions": self.functions.definitions, "toolByName": self.functions.tool_by_name},
            "pending": [call.as_json() for call in self.pending],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Checkpoint:
        functions = data.get("functions") or {}
        return cls(
            principal=Principal.from_json(data["principal"]),
            user_profile=data.get("userProfile"),
            force_channel=data.get("forceChannel"),
            skill_pins=data.get("skillPins"),
            messages=data.get("messages"),
            functions=FunctionSet(
                definitions=list(functions.get("definitions") or []),
                tool_by_name=dict(functions.get("toolByName") or {}),
            ),
            pending=[PlannedCall.from_json(item) for item in data.get("pending") or []],
        )
