"""documents' leads: their GIN index without a pending list

With GIN's default ``fastupdate``, new entries wait in a pending list until a VACUUM (or 4 MB
of them) moves them into the index, and every search reads the whole list meanwhile: at
100,000 chunks a leads' search read ~490 index pages, 10 to 12 ms of a 14 to 35 ms query. Leads are
written once per document (a tenth of the passages' writes), so they go straight into the
index instead; entries already pending are moved now.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06 03:50:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER INDEX ix_chunk_lead_vector SET (fastupdate = off)")
        op.execute("SELECT gin_clean_pending_list('ix_chunk_lead_vector'::regclass)")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER INDEX ix_chunk_lead_vector RESET (fastupdate)")
