"""Pipelines: their immutable versions (the steps) and their runs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JsonType, UtcDateTime, utcnow


class Pipeline(Base):
    __tablename__ = "pipeline"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    space_id: Mapped[str] = mapped_column(ForeignKey("space.id"))
    name: Mapped[str] = mapped_column(String(200))
    # The version new runs get: the latest.
    version: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(String(16), default="ACTIVE")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)

    __table_args__ = (Index("ix_pipeline_space_id", "space_id", "id"),)


class PipelineVersion(Base):
    """One version of a pipeline's steps; never changed once written."""

    __tablename__ = "pipeline_version"

    pipeline_id: Mapped[str] = mapped_column(ForeignKey("pipeline.id"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    # [{name, agentId, skillVersions, input, inputSchema, outputSchema, final, optional}]
    steps: Mapped[list[dict[str, Any]]] = mapped_column(JsonType)
    created_by: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class PipelineRun(Base):
    """One invocation of a pipeline version: its input, each step's agent run, the output."""

    __tablename__ = "pipeline_run"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    pipeline_id: Mapped[str] = mapped_column(String(64))
    pipeline_version: Mapped[int] = mapped_column(Integer)
    space_id: Mapped[str] = mapped_column(String(64))
    principal_key_id: Mapped[str | None] = mapped_column(String(64))
    # RUNNING, SUCCEEDED or FAILED.
    status: Mapped[str] = mapped_column(String(16))
    input: Mapped[Any] = mapped_column(JsonType)
    output: Mapped[Any | None] = mapped_column(JsonType)
    error_code: Mapped[str | None] = mapped_column(String(64))
    error_message: Mapped[str | None] = mapped_column(Text)
    # The step that failed the run.
    error_step: Mapped[str | None] = mapped_column(String(64))
    # [{name, status, runId, output, error: {code, message}}], in order, for the steps reached.
    steps: Mapped[list[dict[str, Any]]] = mapped_column(JsonType, default=list)
    idempotency_key: Mapped[str | None] = mapped_column(String(200))
    request_hash: Mapped[str | None] = mapped_column(String(64))
    started_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # The replica executing the run and until when its lease holds (renewed by its heartbeat),
    # as for agent runs: a RUNNING run whose lease ran out lost its replica, and a live one
    # takes it over, continuing from its last completed step.
    owner_id: Mapped[str | None] = mapped_column(String(64))
    lease_expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # How often a replica took the run over after its owner was gone (bounded).
    takeovers: Mapped[int] = mapped_column(Integer, default=0)
    # The caller whose rights the steps run with ({keyId, role, spaceId}), to continue elsewhere.
    caller: Mapped[dict[str, Any] | None] = mapped_column(JsonType)

    __table_args__ = (
        UniqueConstraint("pipeline_id", "idempotency_key", name="uq_pipeline_run_pipeline_id_idempotency_key"),
        Index("ix_pipeline_run_pipeline", "pipeline_id", "id"),
        # The sweep for runs whose owner is gone.
        Index("ix_pipeline_run_status_lease", "status", "lease_expires_at"),
    )
