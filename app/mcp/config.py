"""What an MCP connection is made from (a snapshot of a server row) and how a request to a server fails."""

from __future__ import annotations

from dataclasses import dataclass

from app.tools.models import McpServer, ToolDefinition

MAX_DETAIL_CHARS = 4000

# McpCallError kinds.
EGRESS = "EGRESS"
UNREACHABLE = "UNREACHABLE"
CONNECTION_LOST = "CONNECTION_LOST"
TIMED_OUT = "TIMED_OUT"
REJECTED = "REJECTED"
BAD_RESULT = "BAD_RESULT"
RESULT_TOO_COSTLY = "RESULT_TOO_COSTLY"
TOO_LARGE = "TOO_LARGE"

#: The largest answer (one SSE event of a streamable HTTP session) read from an MCP server: a
#: CUSTOM tool's response is bounded the same (app.gateway.executors.http.MAX_RESPONSE_BYTES).
MAX_ANSWER_BYTES = 1024 * 1024


class McpCallError(Exception):
    """A request to an MCP server did not produce a result.

    ``kind`` is one of EGRESS, UNREACHABLE (no session could be made), CONNECTION_LOST
    (the connection broke or the server died mid-request), TIMED_OUT, REJECTED (a
    JSON-RPC error answer; the server message is in ``server_message``), BAD_RESULT
    (an answer the protocol or the tool's output schema does not allow), RESULT_TOO_COSTLY
    (a structured result that takes more work to check against the output schema than a
    check may take; the detail is ``{"steps": limit}``) or TOO_LARGE (an answer larger than
    ``MAX_ANSWER_BYTES``).
    ``detail`` is for developers and never holds credentials.
    """

    def __init__(self, kind: str, detail: str, *, server_message: str | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.server_message = server_message


@dataclass(frozen=True)
class McpServerConfig:
    """What a connection is made from: a snapshot of an ``mcp_server`` row.

    ``auth_config`` stays encrypted here; it is decrypted only to build headers.
    """

    server_id: str
    transport: str
    url: str | None
    command: tuple[str, ...]
    auth_type: str
    auth_config: str | None
    status: str

    @classmethod
    def from_row(cls, server: McpServer) -> McpServerConfig:
        return cls(
            server_id=server.id,
            transport=server.transport,
            url=server.url,
            command=tuple(server.command or ()),
            auth_type=server.auth_type,
            auth_config=server.auth_config,
            status=server.status,
        )

    @property
    def endpoint(self) -> tuple[str, str | None, tuple[str, ...], str, str | None]:
        """The fields that make a connection; a change means a new connection."""
        return (self.transport, self.url, self.command, self.auth_type, self.auth_config)


def server_tool_name(tool: ToolDefinition) -> str:
    """The name the MCP server knows the tool by: the part of the tool id after ``{serverId}__``.

    The tool id keeps the exact MCP name even when ``tool.name`` had to be made safe for models.
    """
    prefix = f"{tool.mcp_server_id}__"
    if tool.tool_id.startswith(prefix):
        return tool.tool_id[len(prefix) :]
    return tool.name


def describe_error(error: BaseException) -> str:
    """A one-line developer description; exception groups are unwrapped to their first leaf."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).strip()
    return f"{type(error).__name__}: {text}"[:MAX_DETAIL_CHARS] if text else type(error).__name__
