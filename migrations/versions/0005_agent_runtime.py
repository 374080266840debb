"""agent runtime

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29 19:19:00.916376
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import app.db

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "agent_message",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("space_id", sa.String(length=64), nullable=False),
        sa.Column("from_agent_id", sa.String(length=64), nullable=True),
        sa.Column("to_agent_id", sa.String(length=64), nullable=False),
        sa.Column("from_run_id", sa.String(length=64), nullable=True),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reply", sa.Text(), nullable=True),
        sa.Column("reply_run_id", sa.String(length=64), nullable=True),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("delivered_at", app.db.UtcDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_message")),
    )
    with op.batch_alter_table("agent_message", schema=None) as batch_op:
        batch_op.create_index("ix_agent_message_inbox", ["to_agent_id", "status", "id"], unique=False)

    op.create_table(
        "agent_run",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("agent_id", sa.String(length=64), nullable=False),
        sa.Column("space_id", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.String(length=200), nullable=True),
        sa.Column("parent_run_id", sa.String(length=64), nullable=True),
        sa.Column("delegation_depth", sa.Integer(), nullable=False),
        sa.Column("principal_key_id", sa.String(length=64), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("input", sa.Text(), nullable=False),
        sa.Column("output", sa.Text(), nullable=True),
        sa.Column("error_code", sa.String(length=64), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("error_detail", sa.Text(), nullable=True),
        sa.Column("steps", sa.Integer(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=True),
        sa.Column("completion_tokens", sa.Integer(), nullable=True),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column(
            "skill_versions",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "prompt_warnings",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("idempotency_key", sa.String(length=200), nullable=True),
        sa.Column("request_hash", sa.String(length=64), nullable=True),
        sa.Column("started_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", app.db.UtcDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_run")),
        sa.UniqueConstraint("agent_id", "idempotency_key", name="uq_agent_run_agent_id_idempotency_key"),
    )
    with op.batch_alter_table("agent_run", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_run_agent_id"), ["agent_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_agent_run_space_id"), ["space_id"], unique=False)

    op.create_table(
        "agent_session_message",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("agent_id", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.String(length=200), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_session_message")),
    )
    with op.batch_alter_table("agent_session_message", schema=None) as batch_op:
        batch_op.create_index("ix_agent_session_message_session", ["agent_id", "session_id", "id"], unique=False)

    with op.batch_alter_table("agent", schema=None) as batch_op:
        batch_op.add_column(sa.Column("output_format", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("agent", schema=None) as batch_op:
        batch_op.drop_column("output_format")

    with op.batch_alter_table("agent_session_message", schema=None) as batch_op:
        batch_op.drop_index("ix_agent_session_message_session")

    op.drop_table("agent_session_message")
    with op.batch_alter_table("agent_run", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_agent_run_space_id"))
        batch_op.drop_index(batch_op.f("ix_agent_run_agent_id"))

    op.drop_table("agent_run")
    with op.batch_alter_table("agent_message", schema=None) as batch_op:
        batch_op.drop_index("ix_agent_message_inbox")

    op.drop_table("agent_message")
