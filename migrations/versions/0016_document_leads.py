"""documents' leads: a lexical index of each document's title and first paragraph

A third list for knowledge search's document-level fusion (``app.knowledge.lead``). Like the
passages' index of migration 0003 it is made by hand, per backend, outside the ORM metadata,
and keyed by the document's first chunk (position 0), so that it is written, replaced and
deleted with the document's chunks:

- SQLite: ``chunk_lead_fts``, an FTS5 table keyed by that chunk's id (its rowid), with a
  trigger removing the entry when the chunk goes.
- PostgreSQL: ``chunk.lead_vector tsvector`` (null on every other chunk), kept in the row as
  ``search_vector`` is (migration 0014), with a GIN index.

Existing documents are backfilled from what is stored: the title and the first chunk's text
(the same ``lead_index_text`` ingest uses), in batches of BATCH documents.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-06 03:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.knowledge.lead import lead_index_text

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500
FIRST_CHUNKS = sa.text(
    "SELECT c.id, d.title, c.text FROM chunk AS c JOIN document AS d ON d.id = c.document_id "
    "WHERE c.position = 0 AND c.id > :after ORDER BY c.id LIMIT :batch"
)


def upgrade() -> None:
    bind = op.get_bind()
    postgresql = bind.dialect.name == "postgresql"
    if postgresql:
        op.execute("ALTER TABLE chunk ADD COLUMN lead_vector tsvector")
        op.execute("ALTER TABLE chunk ALTER COLUMN lead_vector SET STORAGE MAIN")
        write = sa.text("UPDATE chunk SET lead_vector = to_tsvector('simple', :body) WHERE id = :id")
    else:
        op.execute("CREATE VIRTUAL TABLE chunk_lead_fts USING fts5(body, tokenize = 'ascii')")
        op.execute(
            "CREATE TRIGGER chunk_lead_fts_delete AFTER DELETE ON chunk BEGIN "
            "DELETE FROM chunk_lead_fts WHERE rowid = old.id; END"
        )
        write = sa.text("INSERT INTO chunk_lead_fts (rowid, body) VALUES (:id, :body)")
    after = 0
    while True:
        rows = bind.execute(FIRST_CHUNKS, {"after": after, "batch": BATCH}).all()
        if not rows:
            break
        bind.execute(write, [{"id": chunk_id, "body": lead_index_text(title, body)} for chunk_id, title, body in rows])
        after = rows[-1][0]
    if postgresql:
        # Built once the rows are written: faster than updating the index row by row.
        op.execute("CREATE INDEX ix_chunk_lead_vector ON chunk USING gin (lead_vector)")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_chunk_lead_vector")
        op.execute("ALTER TABLE chunk DROP COLUMN IF EXISTS lead_vector")
    else:
        op.execute("DROP TRIGGER IF EXISTS chunk_lead_fts_delete")
        op.execute("DROP TABLE IF EXISTS chunk_lead_fts")
