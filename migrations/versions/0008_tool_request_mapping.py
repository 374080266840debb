"""tool_definition: request mapping and import origin (importOpenApi)

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tool_definition", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "request_mapping",
                sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
                nullable=True,
            )
        )
        batch_op.add_column(sa.Column("import_source", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("import_key", sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tool_definition", schema=None) as batch_op:
        batch_op.drop_column("import_key")
        batch_op.drop_column("import_source")
        batch_op.drop_column("request_mapping")
