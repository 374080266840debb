"""Agent runs, their approvals and traces, conversation history and the agent-to-agent inbox (tables)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JsonType, UtcDateTime, utcnow


class AgentRun(Base):
    """One invocation of an agent: input, output, status, usage, injected skill versions."""

    __tablename__ = "agent_run"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    agent_id: Mapped[str] = mapped_column(String(64), index=True)
    space_id: Mapped[str] = mapped_column(String(64), index=True)
    session_id: Mapped[str | None] = mapped_column(String(200))
    parent_run_id: Mapped[str | None] = mapped_column(String(64))
    delegation_depth: Mapped[int] = mapped_column(Integer, default=0)
    principal_key_id: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))
    input: Mapped[str] = mapped_column(Text)
    output: Mapped[str | None] = mapped_column(Text)
    error_code: Mapped[str | None] = mapped_column(String(64))
    error_message: Mapped[str | None] = mapped_column(Text)
    error_detail: Mapped[str | None] = mapped_column(Text)
    steps: Mapped[int] = mapped_column(Integer, default=0)
    prompt_tokens: Mapped[int | None] = mapped_column(Integer)
    completion_tokens: Mapped[int | None] = mapped_column(Integer)
    model: Mapped[str] = mapped_column(String(200))
    # [{"skillId", "version", "channel"}] injected into this run's prompt.
    skill_versions: Mapped[list[dict[str, Any]]] = mapped_column(JsonType, default=list)
    prompt_warnings: Mapped[list[str]] = mapped_column(JsonType, default=list)
    idempotency_key: Mapped[str | None] = mapped_column(String(200))
    request_hash: Mapped[str | None] = mapped_column(String(64))
    started_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # The replica executing the run and until when its lease holds (renewed by its
    # heartbeat). A RUNNING run whose lease ran out lost its replica: another takes it over.
    owner_id: Mapped[str | None] = mapped_column(String(64))
    lease_expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # How often a replica took the run over after its owner was gone (bounded).
    takeovers: Mapped[int] = mapped_column(Integer, default=0)
    # Everything needed to continue the run on any replica after its last completed step
    # (see app.runtime.checkpoint); null once the run has finished.
    checkpoint: Mapped[dict[str, Any] | None] = mapped_column(JsonType)

    __table_args__ = (
        UniqueConstraint("agent_id", "idempotency_key", name="uq_agent_run_agent_id_idempotency_key"),
        # The sweep for runs whose owner is gone.
        Index("ix_agent_run_status_lease", "status", "lease_expires_at"),
        # The health report reads a space's runs by start.
        Index("ix_agent_run_space_started", "space_id", "started_at"),
        # The health report's catch-up reads closed hours of every space (app.reports.rollup).
        Index("ix_agent_run_started_at", "started_at"),
    )


class ToolCallApproval(Base):
    """A person's decision on one tool call of a run, before the call may run.

    The call itself is the ``tool_call`` row with the same id (PENDING_APPROVAL until it ran
    or was refused); this row keeps the request, the decision and the edited arguments.
    """

    __tablename__ = "tool_call_approval"

    tool_call_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    run_id: Mapped[str] = mapped_column(String(64), index=True)
    space_id: Mapped[str] = mapped_column(String(64))
    agent_id: Mapped[str] = mapped_column(String(64))
    tool_id: Mapped[str] = mapped_column(String(200))
    requested_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # Null while waiting; APPROVED, REJECTED or EXPIRED.
    decision: Mapped[str | None] = mapped_column(String(16))
    decided_by: Mapped[str | None] = mapped_column(String(64))
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    comment: Mapped[str | None] = mapped_column(Text)
    # The approver's edited arguments, when given (they replace the proposed ones).
    arguments: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    # Set just before an approved call is handed to the gateway: once set, it may have run.
    execution_started_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # Set when the call's outcome (run, refused, expired) is recorded on the tool_call row.
    settled_at: Mapped[datetime | None] = mapped_column(UtcDateTime)

    __table_args__ = (Index("ix_tool_call_approval_open", "space_id", "settled_at", "decision"),)


class RunStage(Base):
    """One stage of a run's trace: what it did, how long it took, and the details that
    explain the outcome (no secrets; large values cut to a cap)."""

    __tablename__ = "agent_run_stage"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    run_id: Mapped[str] = mapped_column(String(64))
    # PROMPT, SKILL_ROUTING, KNOWLEDGE, MODEL_CALL, TOOL_CALL or APPROVAL.
    kind: Mapped[str] = mapped_column(String(16))
    step: Mapped[int | None] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(UtcDateTime)
    finished_at: Mapped[datetime] = mapped_column(UtcDateTime)
    duration_ms: Mapped[float] = mapped_column(Float)
    detail: Mapped[dict[str, Any]] = mapped_column(JsonType)

    __table_args__ = (
        Index("ix_agent_run_stage_run", "run_id", "started_at", "id"),
        # Retention: the prune deletes by age.
        Index("ix_agent_run_stage_started_at", "started_at"),
    )


class AgentSessionMessage(Base):
    """A final user or assistant turn of a conversation (tool intermediates are not kept)."""

    __tablename__ = "agent_session_message"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    agent_id: Mapped[str] = mapped_column(String(64))
    session_id: Mapped[str] = mapped_column(String(200))
    run_id: Mapped[str] = mapped_column(String(64))
    role: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)

    __table_args__ = (Index("ix_agent_session_message_session", "agent_id", "session_id", "id"),)


class AgentMessage(Base):
    """bt_send_message's inbox: one row per message between agents of a space."""

    __tablename__ = "agent_message"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    space_id: Mapped[str] = mapped_column(String(64))
    from_agent_id: Mapped[str | None] = mapped_column(String(64))
    to_agent_id: Mapped[str] = mapped_column(String(64))
    from_run_id: Mapped[str | None] = mapped_column(String(64))
    type: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text)
    # PENDING (notify, not yet shown) → DELIVERED; request: ANSWERED or FAILED.
    status: Mapped[str] = mapped_column(String(16))
    reply: Mapped[str | None] = mapped_column(Text)
    reply_run_id: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    delivered_at: Mapped[datetime | None] = mapped_column(UtcDateTime)

    __table_args__ = (Index("ix_agent_message_inbox", "to_agent_id", "status", "id"),)
