"""Knowledge bases, their documents and the searchable chunks of each document.

The lexical indexes are not part of this metadata: migrations 0003 (passages) and 0016
(documents' leads) create them by hand (FTS5 virtual tables on SQLite, ``tsvector`` columns
with GIN indexes on PostgreSQL) and ``include_in_autogenerate`` tells Alembic's comparison to
leave them be.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JsonType, UtcDateTime, utcnow
from app.gateway.models import REPORT_INDEXES

#: SQLite makes only ``INTEGER PRIMARY KEY`` an alias of the rowid, which the FTS5 index keys on.
ChunkIdType = BigInteger().with_variant(Integer(), "sqlite")

#: Search-index objects made by hand in migration 0003, outside the ORM metadata.
FTS_TABLE = "chunk_fts"
SEARCH_VECTOR_COLUMN = "search_vector"
SEARCH_VECTOR_INDEX = "ix_chunk_search_vector"
#: The documents' leads (``app.knowledge.lead``), made by hand in migration 0016 and keyed by
#: each document's first chunk: an FTS5 table on SQLite, a tsvector column on PostgreSQL.
LEAD_FTS_TABLE = "chunk_lead_fts"
LEAD_VECTOR_COLUMN = "lead_vector"
LEAD_VECTOR_INDEX = "ix_chunk_lead_vector"


class KnowledgeBase(Base):
    __tablename__ = "knowledge_base"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    space_id: Mapped[str] = mapped_column(ForeignKey("space.id"), index=True)
    name: Mapped[str] = mapped_column(String(64))
    label: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="ACTIVE")
    # Bumped by every document write: search caches (stored vectors) compare it to stay fresh.
    content_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)

    __table_args__ = (UniqueConstraint("space_id", "name", name="uq_knowledge_base_space_name"),)


class Document(Base):
    __tablename__ = "document"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    knowledge_base_id: Mapped[str] = mapped_column(ForeignKey("knowledge_base.id"), index=True)
    title: Mapped[str] = mapped_column(String(500))
    source: Mapped[str | None] = mapped_column(Text)
    # sha256 of ``source``: one document per source and knowledge base (sources may be long).
    source_key: Mapped[str | None] = mapped_column(String(64))
    content_hash: Mapped[str | None] = mapped_column(String(64))
    chunk_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime | None] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)

    __table_args__ = (UniqueConstraint("knowledge_base_id", "source_key", name="uq_document_knowledge_base_source"),)


class Chunk(Base):
    """A searchable passage of a document, with what a citation needs."""

    __tablename__ = "chunk"

    id: Mapped[int] = mapped_column(ChunkIdType, primary_key=True, autoincrement=True)
    document_id: Mapped[str] = mapped_column(ForeignKey("document.id", ondelete="CASCADE"))
    # Denormalised from the document so a search filters chunks without a join.
    knowledge_base_id: Mapped[str] = mapped_column(ForeignKey("knowledge_base.id"))
    position: Mapped[int] = mapped_column(Integer)
    heading_path: Mapped[list[str]] = mapped_column(JsonType, default=list)
    text: Mapped[str] = mapped_column(Text)
    # float32 little-endian, L2-normalised; null without an embedding provider.
    embedding: Mapped[bytes | None] = mapped_column(LargeBinary)
    embedding_model: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)

    __table_args__ = (
        UniqueConstraint("document_id", "position", name="uq_chunk_document_position"),
        Index("ix_chunk_knowledge_base_id", "knowledge_base_id", "embedding_model"),
        # Ids must never be reused: the FTS5 index and the vector cache key on them.
        {"sqlite_autoincrement": True},
    )


FTS_TABLES = (FTS_TABLE, LEAD_FTS_TABLE)


def is_search_index_object(name: str | None, type_: str, table_name: str | None = None) -> bool:
    """True for the hand-made lexical indexes (see migrations 0003 and 0016), which autogenerate
    must ignore.

    FTS5 keeps its data in shadow tables named after the virtual table (``chunk_fts_data``, …).
    """
    if type_ == "table":
        return name is not None and any(name == table or name.startswith(table + "_") for table in FTS_TABLES)
    if type_ == "column":
        return table_name == Chunk.__tablename__ and name in (SEARCH_VECTOR_COLUMN, LEAD_VECTOR_COLUMN)
    if type_ == "index":
        return name in (SEARCH_VECTOR_INDEX, LEAD_VECTOR_INDEX)
    return False


def include_in_autogenerate(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    """Alembic ``include_object`` hook: skip the lexical index and the health report's indexes
    found in the database."""
    table_name = getattr(getattr(obj, "table", None), "name", None)
    if reflected and compare_to is None and type_ == "index" and name in REPORT_INDEXES:
        return False
    return not (reflected and compare_to is None and is_search_index_object(name, type_, table_name))
