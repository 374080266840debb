"""knowledge: chunks, lexical index, document sources

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 19:20:00.000000

The lexical index is made by hand, per backend, and kept out of the ORM metadata
(``app.knowledge.models.include_in_autogenerate`` leaves it out of comparisons):

- SQLite: ``chunk_fts``, an FTS5 table keyed by ``chunk.id`` (its rowid) holding the
  chunk's normalised tokens (``app.knowledge.tokens.index_text``), with a trigger that
  removes a chunk's entry when the chunk goes. The ``ascii`` tokenizer splits on ASCII
  punctuation and spaces only, so the tokens Python produced (CJK bigrams included)
  reach the index unchanged.
- PostgreSQL: ``chunk.search_vector tsvector`` (``to_tsvector('simple', tokens)``) with
  a GIN index.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import app.db

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("knowledge_base", schema=None) as batch_op:
        batch_op.add_column(sa.Column("content_version", sa.Integer(), server_default="0", nullable=False))

    with op.batch_alter_table("document", schema=None) as batch_op:
        batch_op.add_column(sa.Column("source_key", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("updated_at", app.db.UtcDateTime(timezone=True), nullable=True))
        batch_op.create_unique_constraint("uq_document_knowledge_base_source", ["knowledge_base_id", "source_key"])
    op.execute("UPDATE document SET updated_at = created_at")

    op.create_table(
        "chunk",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("document_id", sa.String(length=64), nullable=False),
        sa.Column("knowledge_base_id", sa.String(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column(
            "heading_path",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("embedding", sa.LargeBinary(), nullable=True),
        sa.Column("embedding_model", sa.String(length=200), nullable=True),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["document_id"], ["document.id"], name=op.f("fk_chunk_document_id_document"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["knowledge_base_id"], ["knowledge_base.id"], name=op.f("fk_chunk_knowledge_base_id_knowledge_base")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chunk")),
        sa.UniqueConstraint("document_id", "position", name="uq_chunk_document_position"),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("chunk", schema=None) as batch_op:
        batch_op.create_index("ix_chunk_knowledge_base_id", ["knowledge_base_id", "embedding_model"], unique=False)

    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("CREATE VIRTUAL TABLE chunk_fts USING fts5(body, tokenize = 'ascii')")
        op.execute(
            "CREATE TRIGGER chunk_fts_delete AFTER DELETE ON chunk BEGIN "
            "DELETE FROM chunk_fts WHERE rowid = old.id; END"
        )
    elif dialect == "postgresql":
        op.execute("ALTER TABLE chunk ADD COLUMN search_vector tsvector")
        op.execute("CREATE INDEX ix_chunk_search_vector ON chunk USING gin (search_vector)")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS chunk_fts_delete")
        op.execute("DROP TABLE IF EXISTS chunk_fts")
    elif dialect == "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_chunk_search_vector")

    with op.batch_alter_table("chunk", schema=None) as batch_op:
        batch_op.drop_index("ix_chunk_knowledge_base_id")
    op.drop_table("chunk")

    with op.batch_alter_table("document", schema=None) as batch_op:
        batch_op.drop_constraint("uq_document_knowledge_base_source", type_="unique")
        batch_op.drop_column("updated_at")
        batch_op.drop_column("source_key")

    with op.batch_alter_table("knowledge_base", schema=None) as batch_op:
        batch_op.drop_column("content_version")
