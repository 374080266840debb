"""chunk storage on PostgreSQL: the tsvector inline, the embedding out of line

A chunk row holds its text (~700 bytes), its tsvector (~1.3 kB) and its embedding (2 kB):
over TOAST's 2 kB threshold, so PostgreSQL moved the tsvector out of line too, and every
ts_rank call of a search fetched it back from the TOAST table (17,000 buffer reads to score
1,100 candidates at 100k chunks). Now the embedding (read only when the vector index of a
knowledge base is loaded) always goes out of line, and the tsvector stays in the row.
Applies to rows written from now on; ``VACUUM FULL chunk`` rewrites the older ones.
SQLite keeps its FTS5 index in a table of its own: nothing to do there.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01 22:10:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "ALTER TABLE chunk ALTER COLUMN search_vector SET STORAGE MAIN, ALTER COLUMN embedding SET STORAGE EXTERNAL"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "ALTER TABLE chunk ALTER COLUMN search_vector SET STORAGE EXTENDED, "
            "ALTER COLUMN embedding SET STORAGE EXTENDED"
        )
