"""What every executor receives and promises."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from app.gateway.redaction import NO_SECRETS, SecretScrubber
from app.principal import Principal
from app.tools.models import ToolDefinition


@dataclass(frozen=True)
class Invocation:
    """One attempt at running a tool. ``arguments`` already hold the static values."""

    tool: ToolDefinition
    arguments: dict[str, Any]
    principal: Principal
    space_id: str
    trace_id: str
    timeout_s: float
    attempt: int = 1
    agent_id: str | None = None
    run_id: str | None = None
    idempotency_key: str | None = None
    delegation_depth: int = 0


class Executor(Protocol):
    #: Upper bound of one attempt, whatever the tool's timeout_ms says.
    cap_seconds: float
    #: Error code when an attempt runs out of time.
    timeout_code: str
    #: Whether an attempt mostly waits on something outside the process (an endpoint, a server):
    #: then the request gives its place in its tenant's share up meanwhile (app.scheduling).
    waits_outside: bool

    def cap_for(self, tool_id: str) -> float:
        """The cap for one tool: ``cap_seconds`` unless the executor knows better."""
        ...

    async def execute(self, invocation: Invocation) -> Any:
        """Return the tool's data, or raise ToolFailure."""
        ...

    async def scrubber_for(self, tool: ToolDefinition) -> SecretScrubber:
        """Cuts the tool's secret values (and what they buy, e.g. an OAuth token) out of its outcome."""
        ...


class CappedExecutor:
    """The usual executor: one cap for every tool of its kind."""

    cap_seconds: float
    timeout_code: str
    waits_outside: bool = False

    def cap_for(self, tool_id: str) -> float:
        return self.cap_seconds

    async def scrubber_for(self, tool: ToolDefinition) -> SecretScrubber:
        return NO_SECRETS
