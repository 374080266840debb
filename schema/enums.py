"""Enums of the contract, each value documented."""

from __future__ import annotations

from enum import Enum

import strawberry


@strawberry.enum(description="Lifecycle of a catalog object. Nothing is physically deleted.")
class Status(Enum):
    ACTIVE = strawberry.enum_value("ACTIVE", description="In use: listed, callable, injected.")
    DISABLED = strawberry.enum_value("DISABLED", description="Temporarily off: kept on agents, skipped at run time.")
    ARCHIVED = strawberry.enum_value("ARCHIVED", description="Retired: hidden from lists, kept for history and audit.")


@strawberry.enum(description="Where a tool runs.")
class ToolType(Enum):
    BUILTIN = strawberry.enum_value("BUILTIN", description="In-process, shipped with the platform.")
    CUSTOM = strawberry.enum_value(
        "CUSTOM", description="An HTTP endpoint the platform calls with its stored credentials."
    )
    MCP = strawberry.enum_value("MCP", description="Discovered from an MCP server.")


@strawberry.enum(description="What a tool does to the world; decides retries and idempotency.")
class SideEffect(Enum):
    READ = strawberry.enum_value("READ", description="Only reads: safe to retry.")
    WRITE = strawberry.enum_value("WRITE", description="Changes something: retried only with an idempotency key.")


@strawberry.enum(description="How the platform authenticates to a tool endpoint or MCP server.")
class AuthType(Enum):
    NONE = strawberry.enum_value("NONE", description="No credentials.")
    API_KEY = strawberry.enum_value("API_KEY", description="A secret sent in a named header.")
    HEADER = strawberry.enum_value("HEADER", description="Any named header carrying a secret value.")
    OAUTH_CLIENT_CREDENTIALS = strawberry.enum_value(
        "OAUTH_CLIENT_CREDENTIALS",
        description="An OAuth 2 client-credentials token fetched from tokenUrl and cached.",
    )
    BEARER = strawberry.enum_value("BEARER", description="A static bearer token.")


@strawberry.enum(description="How the platform talks to an MCP server.")
class McpTransport(Enum):
    STREAMABLE_HTTP = strawberry.enum_value("STREAMABLE_HTTP", description="Streamable HTTP at a URL.")
    SSE = strawberry.enum_value("SSE", description="The older HTTP + server-sent events transport.")
    STDIO = strawberry.enum_value("STDIO", description="A local process spoken to over stdin/stdout.")


@strawberry.enum(description="What an API key may do.")
class Role(Enum):
    ADMIN = strawberry.enum_value("ADMIN", description="Every space; bindings, MCP servers, spaces and global skills.")
    SPACE_ADMIN = strawberry.enum_value(
        "SPACE_ADMIN", description="Manages its own space's custom tools, skills, KBs and agents."
    )
    MEMBER = strawberry.enum_value("MEMBER", description="Reads its space and invokes agents and tools.")
    VIEWER = strawberry.enum_value("VIEWER", description="Reads its space.")


@strawberry.enum(description="Where an agent run stands.")
class RunStatus(Enum):
    QUEUED = strawberry.enum_value("QUEUED", description="Accepted, not started.")
    RUNNING = strawberry.enum_value("RUNNING", description="In progress.")
    SUCCEEDED = strawberry.enum_value("SUCCEEDED", description="Finished with a final answer.")
    FAILED = strawberry.enum_value("FAILED", description="Ended by an error; see `error`.")
    MAX_STEPS = strawberry.enum_value("MAX_STEPS", description="Stopped at maxSteps before a final answer.")
    WAITING_APPROVAL = strawberry.enum_value(
        "WAITING_APPROVAL",
        description="A tool call waits for a person's decision (pendingApprovals); nothing holds the run meanwhile.",
    )


@strawberry.enum(description="Outcome of one tool call.")
class CallStatus(Enum):
    SUCCESS = strawberry.enum_value("SUCCESS", description="The tool returned data.")
    FAILED = strawberry.enum_value("FAILED", description="The call failed; see `error`.")
    PENDING_APPROVAL = strawberry.enum_value(
        "PENDING_APPROVAL",
        description="Proposed by an agent, waiting for a person's decision (see `approval`); it has not run.",
    )


@strawberry.enum(description="When an agent's call of a tool waits for a person's approval before it runs.")
class ApprovalPolicy(Enum):
    NEVER = strawberry.enum_value("NEVER", description="Never: the call runs at once (the default).")
    ALWAYS = strawberry.enum_value("ALWAYS", description="Every call waits for approval.")
    WRITE_ONLY = strawberry.enum_value(
        "WRITE_ONLY", description="Calls wait for approval when the tool's side effect is WRITE."
    )


@strawberry.enum(description="A person's decision on a tool call that waited for approval.")
class ApprovalDecision(Enum):
    PENDING = strawberry.enum_value("PENDING", description="Not decided yet.")
    APPROVED = strawberry.enum_value("APPROVED", description="Approved: the call ran (or runs now).")
    REJECTED = strawberry.enum_value("REJECTED", description="Rejected: the call did not run; the model was told why.")
    EXPIRED = strawberry.enum_value(
        "EXPIRED", description="Nobody decided within QUIVER_APPROVAL_TIMEOUT_S: refused like a rejection."
    )


@strawberry.enum(description="What happened to a space's approval request (the approvalRequests subscription).")
class ApprovalEventKind(Enum):
    REQUESTED = strawberry.enum_value(
        "REQUESTED", description="An agent's call waits for a person's decision (it is in pendingApprovals)."
    )
    DECIDED = strawberry.enum_value(
        "DECIDED", description="A person approved or rejected it (approveToolCall / rejectToolCall)."
    )
    EXPIRED = strawberry.enum_value(
        "EXPIRED", description="Nobody decided within QUIVER_APPROVAL_TIMEOUT_S; its run took the refusal up."
    )


@strawberry.enum(description="What one stage of a run's trace was.")
class RunStageKind(Enum):
    PROMPT = strawberry.enum_value("PROMPT", description="Assembling the system prompt: sections, sizes, cuts.")
    SKILL_ROUTING = strawberry.enum_value(
        "SKILL_ROUTING", description="Choosing the skills and versions to inject: candidates, scores, canary buckets."
    )
    KNOWLEDGE = strawberry.enum_value(
        "KNOWLEDGE", description="Searching the mounted knowledge bases: queries, hits, citations, failures."
    )
    MODEL_CALL = strawberry.enum_value(
        "MODEL_CALL", description="One model call: messages sent, reply, tool calls asked for, tokens, latency."
    )
    TOOL_CALL = strawberry.enum_value("TOOL_CALL", description="One tool call: its arguments and the envelope.")
    APPROVAL = strawberry.enum_value(
        "APPROVAL", description="A person's decision on a tool call, and how long it took."
    )


@strawberry.enum(description="How a tool call reached the gateway.")
class ToolCallOrigin(Enum):
    GRAPHQL = strawberry.enum_value("GRAPHQL", description="The invokeTool mutation.")
    AGENT = strawberry.enum_value("AGENT", description="A tool call of an agent run (invokeAgent, bt_send_message).")
    MCP = strawberry.enum_value(
        "MCP", description="tools/call on Quiver's MCP endpoint (/mcp/spaces/{id} or /mcp/agents/{id})."
    )
