"""pipelines: versions of their steps, and their runs

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 19:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import app.db

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "pipeline",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("space_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["space_id"], ["space.id"], name=op.f("fk_pipeline_space_id_space")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pipeline")),
    )
    op.create_index("ix_pipeline_space_id", "pipeline", ["space_id", "id"])
    op.create_table(
        "pipeline_version",
        sa.Column("pipeline_id", sa.String(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("steps", JSON, nullable=False),
        sa.Column("created_by", sa.String(length=64), nullable=True),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["pipeline_id"], ["pipeline.id"], name=op.f("fk_pipeline_version_pipeline_id_pipeline")
        ),
        sa.PrimaryKeyConstraint("pipeline_id", "version", name=op.f("pk_pipeline_version")),
    )
    op.create_table(
        "pipeline_run",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("pipeline_id", sa.String(length=64), nullable=False),
        sa.Column("pipeline_version", sa.Integer(), nullable=False),
        sa.Column("space_id", sa.String(length=64), nullable=False),
        sa.Column("principal_key_id", sa.String(length=64), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("input", JSON, nullable=False),
        sa.Column("output", JSON, nullable=True),
        sa.Column("error_code", sa.String(length=64), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("error_step", sa.String(length=64), nullable=True),
        sa.Column("steps", JSON, nullable=False),
        sa.Column("idempotency_key", sa.String(length=200), nullable=True),
        sa.Column("request_hash", sa.String(length=64), nullable=True),
        sa.Column("started_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", app.db.UtcDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pipeline_run")),
        sa.UniqueConstraint("pipeline_id", "idempotency_key", name="uq_pipeline_run_pipeline_id_idempotency_key"),
    )
    op.create_index("ix_pipeline_run_pipeline", "pipeline_run", ["pipeline_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_pipeline_run_pipeline", table_name="pipeline_run")
    op.drop_table("pipeline_run")
    op.drop_table("pipeline_version")
    op.drop_index("ix_pipeline_space_id", table_name="pipeline")
    op.drop_table("pipeline")
