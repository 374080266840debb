"""Skills and their immutable versions."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JsonType, UtcDateTime, utcnow


class SkillDefinition(Base):
    __tablename__ = "skill_definition"

    skill_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    # Null: a global skill.
    space_id: Mapped[str | None] = mapped_column(ForeignKey("space.id"), index=True)
    name: Mapped[str] = mapped_column(String(64), index=True)
    label: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text)
    # The PRODUCTION version's prompt, kept here for listing and matching.
    prompt: Mapped[str] = mapped_column(Text)
    category: Mapped[str | None] = mapped_column(String(100))
    tags: Mapped[list[str]] = mapped_column(JsonType, default=list)
    trigger_hints: Mapped[list[str]] = mapped_column(JsonType, default=list)
    boundary: Mapped[str | None] = mapped_column(Text)
    # Tool ids the skill orchestrates.
    tools: Mapped[list[str]] = mapped_column(JsonType, default=list)
    type: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default="ACTIVE")
    version: Mapped[str] = mapped_column(String(32), default="1.0.0")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)


class SkillVersion(Base):
    __tablename__ = "skill_version"

    skill_id: Mapped[str] = mapped_column(
        ForeignKey("skill_definition.skill_id"), primary_key=True
    )
    version: Mapped[str] = mapped_column(String(32), primary_key=True)
    channel: Mapped[str] = mapped_column(String(16))
    prompt: Mapped[str] = mapped_column(Text)
    created_by: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
