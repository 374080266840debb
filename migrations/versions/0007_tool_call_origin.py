"""tool_call.origin: how each call arrived (GRAPHQL, AGENT or MCP)

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 10:00:00

Calls logged before the column existed came either from ``invokeTool`` or from an
agent run; the run id tells which.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tool_call", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("origin", sa.String(length=16), server_default=sa.text("'GRAPHQL'"), nullable=False)
        )
        batch_op.create_index("ix_tool_call_origin", ["origin", "id"], unique=False)
    op.execute("UPDATE tool_call SET origin = 'AGENT' WHERE run_id IS NOT NULL")


def downgrade() -> None:
    with op.batch_alter_table("tool_call", schema=None) as batch_op:
        batch_op.drop_index("ix_tool_call_origin")
        batch_op.drop_column("origin")
