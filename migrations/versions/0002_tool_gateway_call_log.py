"""tool gateway call log

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 19:06:40.902862
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import app.db

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "idempotency_record",
        sa.Column("space_id", sa.String(length=64), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("tool_id", sa.String(length=200), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column(
            "envelope", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"), nullable=True
        ),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("space_id", "key", name=op.f("pk_idempotency_record")),
    )
    with op.batch_alter_table("idempotency_record", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_idempotency_record_expires_at"), ["expires_at"], unique=False)

    op.create_table(
        "tool_call",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("tool_id", sa.String(length=200), nullable=False),
        sa.Column("tool_type", sa.String(length=16), nullable=True),
        sa.Column("space_id", sa.String(length=64), nullable=False),
        sa.Column("agent_id", sa.String(length=64), nullable=True),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.Column("principal_key_id", sa.String(length=64), nullable=True),
        sa.Column(
            "arguments", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"), nullable=False
        ),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column(
            "result", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"), nullable=True
        ),
        sa.Column("error_code", sa.String(length=64), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("error_detail", sa.Text(), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("trace_id", sa.String(length=64), nullable=False),
        sa.Column("idempotency_key", sa.String(length=200), nullable=True),
        sa.Column("started_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tool_call")),
    )
    with op.batch_alter_table("tool_call", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tool_call_agent_id"), ["agent_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_tool_call_run_id"), ["run_id"], unique=False)
        batch_op.create_index("ix_tool_call_space_id", ["space_id", "id"], unique=False)
        batch_op.create_index("ix_tool_call_tool_id_started_at", ["tool_id", "started_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_tool_call_trace_id"), ["trace_id"], unique=False)

    with op.batch_alter_table("tool_definition", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rate_limit", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("max_concurrency", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tool_definition", schema=None) as batch_op:
        batch_op.drop_column("max_concurrency")
        batch_op.drop_column("rate_limit")

    with op.batch_alter_table("tool_call", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tool_call_trace_id"))
        batch_op.drop_index("ix_tool_call_tool_id_started_at")
        batch_op.drop_index("ix_tool_call_space_id")
        batch_op.drop_index(batch_op.f("ix_tool_call_run_id"))
        batch_op.drop_index(batch_op.f("ix_tool_call_agent_id"))

    op.drop_table("tool_call")
    with op.batch_alter_table("idempotency_record", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_idempotency_record_expires_at"))

    op.drop_table("idempotency_record")
