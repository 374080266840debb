"""Skills, their immutable versions, channel moves and usage counters."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import Date, ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JsonType, UtcDateTime, utcnow

PRODUCTION = "PRODUCTION"
CANDIDATE = "CANDIDATE"
RETIRED = "RETIRED"
LIVE_CHANNELS = (PRODUCTION, CANDIDATE)


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
    # The PRODUCTION version.
    version: Mapped[str] = mapped_column(String(32), default="1.0.0")
    # Share of sessions (0-100) served the CANDIDATE version while there is one.
    canary_percent: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    # SKILL.md front matter Quiver has no column for (license, compatibility, other
    # metadata keys), kept so an export gives back what was imported.
    skill_md_extra: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)


class SkillVersion(Base):
    __tablename__ = "skill_version"

    skill_id: Mapped[str] = mapped_column(ForeignKey("skill_definition.skill_id"), primary_key=True)
    version: Mapped[str] = mapped_column(String(32), primary_key=True)
    channel: Mapped[str] = mapped_column(String(16))
    prompt: Mapped[str] = mapped_column(Text)
    created_by: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)

    __table_args__ = (
        # One PRODUCTION and at most one CANDIDATE per skill, whatever races the services lose.
        Index(
            "uq_skill_version_live_channel",
            "skill_id",
            "channel",
            unique=True,
            sqlite_where=text("channel IN ('PRODUCTION', 'CANDIDATE')"),
            postgresql_where=text("channel IN ('PRODUCTION', 'CANDIDATE')"),
        ),
    )


class SkillChannelEvent(Base):
    """One move between channels: who, when, from which version to which."""

    __tablename__ = "skill_channel_event"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    skill_id: Mapped[str] = mapped_column(ForeignKey("skill_definition.skill_id"))
    # CREATED, PUBLISHED, CANDIDATE_PUBLISHED, PROMOTED, ROLLED_BACK, CANARY_CHANGED, IMPORTED.
    action: Mapped[str] = mapped_column(String(32))
    # PRODUCTION or CANDIDATE: the channel that moved.
    channel: Mapped[str] = mapped_column(String(16))
    from_version: Mapped[str | None] = mapped_column(String(32))
    to_version: Mapped[str | None] = mapped_column(String(32))
    canary_percent: Mapped[int | None] = mapped_column(Integer)
    # The API key (or "quiver" for the platform, "cli" for the command line).
    actor: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)

    __table_args__ = (Index("ix_skill_channel_event_skill_id", "skill_id", "id"),)


class SkillUsage(Base):
    """Counters per skill, version and UTC day: injections into runs, matches by matchSkills."""

    __tablename__ = "skill_usage"

    skill_id: Mapped[str] = mapped_column(ForeignKey("skill_definition.skill_id"), primary_key=True)
    version: Mapped[str] = mapped_column(String(32), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    injected_count: Mapped[int] = mapped_column(Integer, default=0)
    matched_count: Mapped[int] = mapped_column(Integer, default=0)
    last_injected_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    last_matched_at: Mapped[datetime | None] = mapped_column(UtcDateTime)

    __table_args__ = (Index("ix_skill_usage_day", "day"),)
