"""pipeline run leases: the replica executing a pipeline run, its lease, takeovers and caller

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01 21:55:00

A RUNNING pipeline run whose lease ran out lost its replica: a live replica takes it over
and continues it from its last completed step. Runs started before this revision have no
caller stored: they are FAILED with INTERRUPTED when taken over.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import app.db

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("pipeline_run") as batch_op:
        batch_op.add_column(sa.Column("owner_id", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("lease_expires_at", app.db.UtcDateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("takeovers", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("caller", JSON, nullable=True))
        batch_op.create_index("ix_pipeline_run_status_lease", ["status", "lease_expires_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("pipeline_run") as batch_op:
        batch_op.drop_index("ix_pipeline_run_status_lease")
        batch_op.drop_column("caller")
        batch_op.drop_column("takeovers")
        batch_op.drop_column("lease_expires_at")
        batch_op.drop_column("owner_id")
