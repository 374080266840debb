"""api keys: expiry and last use

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 15:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.db

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.add_column(sa.Column("expires_at", app.db.UtcDateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("last_used_at", app.db.UtcDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.drop_column("last_used_at")
        batch_op.drop_column("expires_at")
