"""Spaces (tenants) and API keys."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UtcDateTime, utcnow

SYSTEM_SPACE_ID = "sp_system"


class Space(Base):
    __tablename__ = "space"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(200))
    is_system: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class ApiKey(Base):
    """An API key; only the SHA-256 of the secret is kept."""

    __tablename__ = "api_key"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # Null for an admin key, which reaches every space.
    space_id: Mapped[str | None] = mapped_column(ForeignKey("space.id"), index=True)
    role: Mapped[str] = mapped_column(String(16))
    label: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # Refused from this moment on, like a revoked key; null: never expires.
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # Stamped at most once a minute per key and replica (see app.spaces.service.LAST_USED_RESOLUTION_S).
    last_used_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
