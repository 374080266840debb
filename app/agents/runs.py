"""Agent runs, conversation history and the agent-to-agent inbox (tables)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index, Integer, String, Text, UniqueConstraint
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

    __table_args__ = (UniqueConstraint("agent_id", "idempotency_key", name="uq_agent_run_agent_id_idempotency_key"),)


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
