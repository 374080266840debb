"""run leases and checkpoints, tool-call approvals, run traces

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import app.db

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("agent_run", schema=None) as batch_op:
        batch_op.add_column(sa.Column("owner_id", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("lease_expires_at", app.db.UtcDateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("takeovers", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("checkpoint", JSON, nullable=True))
        batch_op.create_index("ix_agent_run_status_lease", ["status", "lease_expires_at"], unique=False)

    with op.batch_alter_table("agent", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tool_approvals", JSON, nullable=False, server_default="{}"))

    with op.batch_alter_table("tool_definition", schema=None) as batch_op:
        batch_op.add_column(sa.Column("approval", sa.String(length=16), nullable=False, server_default="NEVER"))

    op.create_table(
        "tool_call_approval",
        sa.Column("tool_call_id", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("space_id", sa.String(length=64), nullable=False),
        sa.Column("agent_id", sa.String(length=64), nullable=False),
        sa.Column("tool_id", sa.String(length=200), nullable=False),
        sa.Column("requested_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("decision", sa.String(length=16), nullable=True),
        sa.Column("decided_by", sa.String(length=64), nullable=True),
        sa.Column("decided_at", app.db.UtcDateTime(timezone=True), nullable=True),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("arguments", JSON, nullable=True),
        sa.Column("execution_started_at", app.db.UtcDateTime(timezone=True), nullable=True),
        sa.Column("settled_at", app.db.UtcDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("tool_call_id", name=op.f("pk_tool_call_approval")),
    )
    with op.batch_alter_table("tool_call_approval", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tool_call_approval_run_id"), ["run_id"], unique=False)
        batch_op.create_index("ix_tool_call_approval_open", ["space_id", "settled_at", "decision"], unique=False)

    op.create_table(
        "agent_run_stage",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("started_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("detail", JSON, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_run_stage")),
    )
    with op.batch_alter_table("agent_run_stage", schema=None) as batch_op:
        batch_op.create_index("ix_agent_run_stage_run", ["run_id", "started_at", "id"], unique=False)
        batch_op.create_index("ix_agent_run_stage_started_at", ["started_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("agent_run_stage", schema=None) as batch_op:
        batch_op.drop_index("ix_agent_run_stage_started_at")
        batch_op.drop_index("ix_agent_run_stage_run")
    op.drop_table("agent_run_stage")
    with op.batch_alter_table("tool_call_approval", schema=None) as batch_op:
        batch_op.drop_index("ix_tool_call_approval_open")
        batch_op.drop_index(batch_op.f("ix_tool_call_approval_run_id"))
    op.drop_table("tool_call_approval")
    with op.batch_alter_table("tool_definition", schema=None) as batch_op:
        batch_op.drop_column("approval")
    with op.batch_alter_table("agent", schema=None) as batch_op:
        batch_op.drop_column("tool_approvals")
    with op.batch_alter_table("agent_run", schema=None) as batch_op:
        batch_op.drop_index("ix_agent_run_status_lease")
        batch_op.drop_column("checkpoint")
        batch_op.drop_column("takeovers")
        batch_op.drop_column("lease_expires_at")
        batch_op.drop_column("owner_id")
