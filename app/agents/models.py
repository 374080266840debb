"""Agent manifests."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JsonType, UtcDateTime, utcnow


class Agent(Base):
    __tablename__ = "agent"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    space_id: Mapped[str] = mapped_column(ForeignKey("space.id"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    model: Mapped[str] = mapped_column(String(200))
    system_prompt: Mapped[str] = mapped_column(Text)
    max_steps: Mapped[int] = mapped_column(Integer, default=5)
    status: Mapped[str] = mapped_column(String(16), default="ACTIVE")
    mounted_kb_ids: Mapped[list[str]] = mapped_column(JsonType, default=list)
    activated_tool_ids: Mapped[list[str]] = mapped_column(JsonType, default=list)
    # Per activated tool, an approval policy overriding the tool's own: {tool_id: NEVER|ALWAYS|WRITE_ONLY}.
    tool_approvals: Mapped[dict[str, str]] = mapped_column(JsonType, default=dict)
    # Skill ids, optionally pinned to a version: "sk_email_draft@1.2.0".
    bound_skill_ids: Mapped[list[str]] = mapped_column(JsonType, default=list)
    # The OUTPUT_FORMAT section of the prompt: how answers must be shaped.
    output_format: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)
