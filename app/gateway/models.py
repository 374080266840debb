"""The call log and idempotency records."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JsonType, UtcDateTime, utcnow


class ToolCall(Base):
    """One call through the gateway. No foreign keys: the audit log outlives what it names."""

    __tablename__ = "tool_call"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    tool_id: Mapped[str] = mapped_column(String(200))
    tool_type: Mapped[str | None] = mapped_column(String(16))
    space_id: Mapped[str] = mapped_column(String(64))
    agent_id: Mapped[str | None] = mapped_column(String(64), index=True)
    run_id: Mapped[str | None] = mapped_column(String(64), index=True)
    principal_key_id: Mapped[str | None] = mapped_column(String(64))
    arguments: Mapped[dict[str, Any]] = mapped_column(JsonType)
    status: Mapped[str] = mapped_column(String(16))
    result: Mapped[Any | None] = mapped_column(JsonType)
    error_code: Mapped[str | None] = mapped_column(String(64))
    error_message: Mapped[str | None] = mapped_column(Text)
    error_detail: Mapped[str | None] = mapped_column(Text)
    latency_ms: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer)
    trace_id: Mapped[str] = mapped_column(String(64), index=True)
    idempotency_key: Mapped[str | None] = mapped_column(String(200))
    # How the call arrived: GRAPHQL (invokeTool), AGENT (an agent run) or MCP (Quiver's MCP endpoint).
    origin: Mapped[str] = mapped_column(String(16), server_default=text("'GRAPHQL'"))
    started_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    finished_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)

    __table_args__ = (
        Index("ix_tool_call_space_id", "space_id", "id"),
        Index("ix_tool_call_tool_id_started_at", "tool_id", "started_at"),
        Index("ix_tool_call_origin", "origin", "id"),
        # The health report's catch-up reads closed hours of every space (app.reports.rollup).
        Index("ix_tool_call_started_at", "started_at"),
    )


#: Indexes made by hand in migration 0010 for the health report, one set per backend (SQLite's
#: on an expression of the stored text): not in the model, so autogenerate leaves them alone.
REPORT_INDEXES = frozenset({"ix_tool_call_report_groups", "ix_tool_call_report_latency", "ix_tool_call_report"})


class IdempotencyRecord(Base):
    """A caller's idempotency key: PENDING while the first call runs, then its envelope."""

    __tablename__ = "idempotency_record"

    space_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    tool_id: Mapped[str] = mapped_column(String(200))
    request_hash: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(16))
    envelope: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)
