"""The gateway's result envelope and the failures executors raise."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.errors import echo

# Stable error codes, published in the description of the GraphQL type ToolError.
PARAM_INVALID = "PARAM_INVALID"
PERMISSION_DENIED = "PERMISSION_DENIED"
TOOL_NOT_AVAILABLE = "TOOL_NOT_AVAILABLE"
TIMEOUT = "TIMEOUT"
EXTERNAL_API_ERROR = "EXTERNAL_API_ERROR"
EXTERNAL_API_TIMEOUT = "EXTERNAL_API_TIMEOUT"
MCP_ERROR = "MCP_ERROR"
RATE_LIMITED = "RATE_LIMITED"
IDEMPOTENCY_CONFLICT = "IDEMPOTENCY_CONFLICT"
INTERNAL_ERROR = "INTERNAL_ERROR"
# Added by the gateway: a CUSTOM response larger than the limit.
RESPONSE_TOO_LARGE = "RESPONSE_TOO_LARGE"
# Added by the gateway: an endpoint that resolves to a forbidden network.
EGRESS_DENIED = "EGRESS_DENIED"

#: What the call log's tool id and idempotency key columns hold, in characters.
LOGGED_ID_CHARS = 200
#: How much of a name that names no tool the gateway's detail and the call log keep.
UNKNOWN_NAME_CHARS = 100


def logged_id(value: str, limit: int = LOGGED_ID_CHARS) -> str:
    """A caller's identifier (a tool id, an idempotency key) as the call log and the gateway's
    detail keep it: whole when it fits ``limit``; longer, cut with an ellipsis within it
    (:func:`app.errors.echo`); a NUL (which PostgreSQL text cannot hold: the row was lost) as U+FFFD."""
    kept = value if len(value) <= limit else echo(value, limit - 1)
    return kept.replace("\x00", "\ufffd")


def unknown_tool_id(name: str) -> str:
    """The tool id a call by a name no offered tool has (an MCP client's, a model's) goes to the
    gateway as, to be refused and logged: ``unknown:<name>``, the name as :func:`logged_id` keeps
    it within :data:`UNKNOWN_NAME_CHARS`."""
    return "unknown:" + logged_id(name, UNKNOWN_NAME_CHARS)


@dataclass(frozen=True)
class ToolError:
    code: str
    message: str
    detail: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "detail": self.detail}


class ToolFailure(Exception):  # noqa: N818 - a failure outcome, not a programming error
    """An executor's structured failure. ``retryable`` marks transient ones."""

    def __init__(self, code: str, message: str, detail: str | None = None, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.error = ToolError(code, message, detail)
        self.retryable = retryable


@dataclass
class ToolResult:
    """``{status, data, error{code, message, detail}, traceId, latencyMs}``."""

    status: str
    trace_id: str
    latency_ms: float
    data: Any = None
    error: ToolError | None = None
    call_id: str | None = None
    attempts: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "SUCCESS"

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "data": self.data,
            "error": self.error.as_dict() if self.error else None,
            "traceId": self.trace_id,
            "latencyMs": self.latency_ms,
        }

    @classmethod
    def from_dict(cls, envelope: dict[str, Any], *, call_id: str | None = None) -> ToolResult:
        error = envelope.get("error")
        return cls(
            status=envelope["status"],
            data=envelope.get("data"),
            error=ToolError(error["code"], error["message"], error.get("detail")) if error else None,
            trace_id=envelope["traceId"],
            latency_ms=float(envelope["latencyMs"]),
            call_id=call_id,
        )
