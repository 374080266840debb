"""Every SQL statement about knowledge bases, documents, chunks and their lexical index."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Integer,
    LargeBinary,
    Select,
    String,
    Text,
    bindparam,
    column,
    delete,
    func,
    insert,
    literal_column,
    select,
    table,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import TSVECTOR
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import JsonType, UtcDateTime
from app.knowledge.models import (
    FTS_TABLE,
    LEAD_FTS_TABLE,
    LEAD_VECTOR_COLUMN,
    SEARCH_VECTOR_COLUMN,
    Chunk,
    Document,
    KnowledgeBase,
)
from app.pagination import Page, PageRequest, count, fetch_page


def _kb_statement(space_id: str | None) -> Select[KnowledgeBase]:
    statement = select(KnowledgeBase).where(KnowledgeBase.status != "ARCHIVED")
    if space_id is not None:
        statement = statement.where(KnowledgeBase.space_id == space_id)
    return statement


async def list_knowledge_bases(session: AsyncSession, space_id: str | None, page: PageRequest) -> Page[KnowledgeBase]:
    return await fetch_page(session, _kb_statement(space_id), KnowledgeBase.id, page)


async def count_knowledge_bases(session: AsyncSession, space_id: str | None) -> int:
    return await count(session, _kb_statement(space_id))


async def get_knowledge_base(session: AsyncSession, kb_id: str) -> KnowledgeBase | None:
    return await session.get(KnowledgeBase, kb_id)


async def knowledge_bases_by_ids(session: AsyncSession, kb_ids: Sequence[str]) -> list[KnowledgeBase]:
    if not kb_ids:
        return []
    statement = select(KnowledgeBase).where(KnowledgeBase.id.in_(kb_ids))
    return list((await session.scalars(statement)).all())


async def get_by_name(session: AsyncSession, space_id: str, name: str) -> KnowledgeBase | None:
    return await session.scalar(
        select(KnowledgeBase).where(KnowledgeBase.space_id == space_id, KnowledgeBase.name == name)
    )


async def document_counts(session: AsyncSession, kb_ids: Sequence[str]) -> dict[str, int]:
    if not kb_ids:
        return {}
    statement = (
        select(Document.knowledge_base_id, func.count())
        .where(Document.knowledge_base_id.in_(kb_ids))
        .group_by(Document.knowledge_base_id)
    )
    return {kb_id: int(total) for kb_id, total in (await session.execute(statement)).all()}


def _documents_statement(kb_id: str) -> Select[Document]:
    return select(Document).where(Document.knowledge_base_id == kb_id)


async def list_documents(session: AsyncSession, kb_id: str, page: PageRequest) -> Page[Document]:
    return await fetch_page(session, _documents_statement(kb_id), Document.id, page)


async def count_documents(session: AsyncSession, kb_id: str) -> int:
    return await count(session, _documents_statement(kb_id))


async def get_document(session: AsyncSession, document_id: str) -> Document | None:
    return await session.get(Document, document_id)


# ------------------------------------------------------------------ ingest


def _dialect(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


async def get_document_by_source(session: AsyncSession, kb_id: str, source_key: str) -> Document | None:
    return await session.scalar(
        select(Document).where(Document.knowledge_base_id == kb_id, Document.source_key == source_key)
    )


async def insert_document(session: AsyncSession, values: dict[str, Any]) -> Document | None:
    """Insert a new document; None when its source already exists in the knowledge base
    (a concurrent ingest of the same source won the race).

    ``ON CONFLICT DO NOTHING`` rather than a savepoint: with pysqlite's transaction
    handling a savepoint opened before any write would commit on release.
    """
    insert_for = sqlite_insert if _dialect(session) == "sqlite" else postgresql_insert
    statement = (
        insert_for(Document)
        .values(**values)
        .on_conflict_do_nothing(index_elements=[Document.knowledge_base_id, Document.source_key])
        .returning(Document.id)
    )
    document_id = await session.scalar(statement)
    if document_id is None:
        return None
    return await session.get(Document, document_id)


async def delete_chunks(session: AsyncSession, document_id: str) -> None:
    # On SQLite triggers (migrations 0003 and 0016) remove the chunks' FTS5 entries and the
    # document's lead with them; on PostgreSQL both live in the chunk rows.
    await session.execute(delete(Chunk).where(Chunk.document_id == document_id))


# The chunk table as PostgreSQL has it, tsvector included: for inserts only, outside the
# ORM metadata (Alembic must not see the column, see models.SEARCH_VECTOR_COLUMN).
_POSTGRES_CHUNK = table(
    "chunk",
    column("document_id", String),
    column("knowledge_base_id", String),
    column("position", Integer),
    column("heading_path", JsonType),
    column("text", Text),
    column("embedding", LargeBinary),
    column("embedding_model", String),
    column("created_at", UtcDateTime),
    column(SEARCH_VECTOR_COLUMN, TSVECTOR),
    column(LEAD_VECTOR_COLUMN, TSVECTOR),
)


async def insert_chunks(
    session: AsyncSession, rows: list[dict[str, Any]], index_texts: list[str], lead_index_text: str | None = None
) -> None:
    """Insert chunks with their lexical index entries (``index_texts``, one per row) and, keyed
    by the chunk at position 0, the document's lead (``lead.lead_index_text``)."""
    if not rows:
        return
    leads = [lead_index_text if row["position"] == 0 else None for row in rows]
    dialect = _dialect(session)
    if dialect == "sqlite":
        ids = (await session.scalars(insert(Chunk).returning(Chunk.id, sort_by_parameter_order=True), rows)).all()
        await session.execute(
            text(f"INSERT INTO {FTS_TABLE} (rowid, body) VALUES (:id, :body)"),
            [{"id": chunk_id, "body": body} for chunk_id, body in zip(ids, index_texts, strict=True)],
        )
        lead_rows = [{"id": chunk_id, "body": lead} for chunk_id, lead in zip(ids, leads, strict=True) if lead]
        if lead_rows:
            await session.execute(text(f"INSERT INTO {LEAD_FTS_TABLE} (rowid, body) VALUES (:id, :body)"), lead_rows)
    elif dialect == "postgresql":
        # The tsvectors go in with the row: one heap tuple and one round of index updates.
        statement = insert(_POSTGRES_CHUNK).values(
            {
                SEARCH_VECTOR_COLUMN: func.to_tsvector(literal_column("'simple'"), bindparam("index_text")),
                LEAD_VECTOR_COLUMN: func.to_tsvector(literal_column("'simple'"), bindparam("lead_text")),
            }
        )
        await session.execute(
            statement,
            [
                {**row, "index_text": body, "lead_text": lead or None}
                for row, body, lead in zip(rows, index_texts, leads, strict=True)
            ],
        )
    else:
        raise NotImplementedError(f"no lexical index for {dialect}")


async def bump_content_version(session: AsyncSession, kb_id: str) -> None:
    await session.execute(
        update(KnowledgeBase).where(KnowledgeBase.id == kb_id).values(content_version=KnowledgeBase.content_version + 1)
    )


# ------------------------------------------------------------------ search


async def active_knowledge_bases(
    session: AsyncSession, space_id: str, kb_ids: Sequence[str] | None = None
) -> list[KnowledgeBase]:
    """ACTIVE knowledge bases of one space, optionally only among ``kb_ids``, in id order."""
    statement = select(KnowledgeBase).where(KnowledgeBase.space_id == space_id, KnowledgeBase.status == "ACTIVE")
    if kb_ids is not None:
        if not kb_ids:
            return []
        statement = statement.where(KnowledgeBase.id.in_(kb_ids))
    return list((await session.scalars(statement.order_by(KnowledgeBase.id))).all())


def _fts5_query(tokens: Sequence[str]) -> str:
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in tokens)


def _tsquery(tokens: Sequence[str], operator: str) -> str:
    return operator.join("'" + token.replace("\\", "").replace("'", "''") + "'" for token in tokens)


#: PostgreSQL: how many chunks one query scores at most (see lexical_candidates).
POSTGRES_RANK_POOL = 1000
#: PostgreSQL: how many of a query's words (the rarest) are scored; the others still find chunks.
POSTGRES_SCORED_TERMS = 24
#: How long word frequencies read from PostgreSQL's statistics are used before being read again.
TERM_STATS_TTL_S = 300.0


@dataclass(frozen=True)
class TermStats:
    """How common each indexed word is: the ``most_common_elems`` PostgreSQL's ANALYZE keeps
    for the tsvector column (its autovacuum refreshes them as the table grows)."""

    rows: float
    #: word → share of chunks holding it, for the (up to 1,000) most common words.
    frequency: dict[str, float]
    #: The share assumed for any other word: half the least common listed one.
    rare: float

    def chunks_with(self, term: str) -> float:
        return self.frequency.get(term, self.rare) * self.rows

    def idf(self, term: str) -> float:
        """BM25's inverse document frequency (Robertson and Sparck Jones, plus one)."""
        holding = self.chunks_with(term)
        return math.log(1.0 + (self.rows - holding + 0.5) / (holding + 0.5))


_term_stats: dict[tuple[str, str], tuple[float, TermStats]] = {}


async def postgres_term_stats(session: AsyncSession, vector_column: str = SEARCH_VECTOR_COLUMN) -> TermStats:
    """The word statistics of one tsvector column of the chunk table (the passages', or the leads',
    which only first chunks hold: ``rows`` counts the rows that have one), read at most every
    TERM_STATS_TTL_S per database and column."""
    bind = session.get_bind()
    url = (bind.engine if isinstance(bind, Connection) else bind).url.render_as_string(hide_password=True)
    key = (url, vector_column)
    cached = _term_stats.get(key)
    now = time.monotonic()
    if cached is not None and now - cached[0] < TERM_STATS_TTL_S:
        return cached[1]
    rows = await session.scalar(text("SELECT reltuples FROM pg_class WHERE oid = 'chunk'::regclass"))
    listed = (
        await session.execute(
            text(
                "SELECT most_common_elems::text::text[], most_common_elem_freqs, null_frac FROM pg_stats "
                "WHERE schemaname = current_schema() AND tablename = 'chunk' AND attname = :column"
            ),
            {"column": vector_column},
        )
    ).first()
    frequency: dict[str, float] = {}
    rare = 0.0
    if listed is not None and listed[2] is not None:
        # The shares below are of the rows holding a tsvector (ANALYZE divides by those).
        rows = float(rows or 0.0) * (1.0 - float(listed[2]))
    if listed is not None and listed[0] is not None and listed[1] is not None:
        words, shares = list(listed[0]), [float(share) for share in listed[1]]
        # The shares end with the least and the greatest of them and the share of empty rows.
        frequency = dict(zip(words, shares[: len(words)], strict=True))
        rare = min(shares[: len(words)], default=0.0) / 2
    stats = TermStats(rows=max(float(rows or 0.0), 0.0), frequency=frequency, rare=rare)
    _term_stats[key] = (now, stats)
    return stats


def selective_terms(tokens: Sequence[str], stats: TermStats, pool: int) -> list[str]:
    """The rarest tokens whose chunks (estimated) add up to at most ``pool``; at least one."""
    chosen: list[str] = []
    total = 0.0
    for token in sorted(tokens, key=stats.chunks_with):
        holding = stats.chunks_with(token)
        if chosen and total + holding > pool:
            break
        chosen.append(token)
        total += holding
    return chosen


async def _lexical_postgres(
    session: AsyncSession, kb_id: str, tokens: Sequence[str], limit: int, vector_column: str = SEARCH_VECTOR_COLUMN
) -> list[tuple[int, float]]:
    """Two bounded candidate sets, then a BM25-like score over them only.

    ``ts_rank`` over every chunk matching an OR of the query's words reads most of a large
    table (common words match tens of thousands of chunks). Instead the candidates are the
    chunks holding every word (an AND query: few, and the best) together with those holding
    one of the query's *rarest* words — as many of the rarest as PostgreSQL's statistics say
    fit in POSTGRES_RANK_POOL chunks — each set capped at that pool. Each candidate is scored
    as the sum of idf(word) * ts_rank(chunk, word) (ts_rank of one word saturates with repeats and is
    normalised by the chunk's length), so rare words count more than common ones, as in
    SQLite's bm25. When these give fewer than ``limit`` chunks (the rarest words by the
    statistics may be in no chunk: names, typos), the chunks holding any word are scored
    too, again at most the pool of them. ``vector_column`` is the tsvector searched: the passages'
    (``search_vector``) or the documents' leads (``lead_vector``), each with its own statistics.
    """
    stats = await postgres_term_stats(session, vector_column)
    parameters: dict[str, Any] = {"kb_id": kb_id, "limit": limit, "pool": POSTGRES_RANK_POOL}
    parts: list[str] = []
    for number, token in enumerate(sorted(tokens, key=stats.chunks_with)[:POSTGRES_SCORED_TERMS]):
        parameters[f"w{number}"] = stats.idf(token)
        parameters[f"q{number}"] = _tsquery([token], "")
        parts.append(f"CAST(:w{number} AS float8) * ts_rank(c.{vector_column}, to_tsquery('simple', :q{number}), 1)")
    score = " + ".join(parts)
    # A plan made for these very words: the planner then parses each tsquery once and sees how
    # many chunks it matches. A cached generic plan (asyncpg prepares every statement, and after
    # five runs PostgreSQL may keep one) would parse the tsqueries again for every candidate row
    # (a 10-word query over 1,000 candidates: 80 ms instead of 15) and guess their selectivity.
    await session.execute(text("SET LOCAL plan_cache_mode = force_custom_plan"))
    selective = selective_terms(tokens, stats, POSTGRES_RANK_POOL)
    found = await _scored_candidates(
        session, score, parameters, [_tsquery(tokens, " & "), _tsquery(selective, " | ")], vector_column
    )
    if len(found) < limit:
        # The statistics only know the common words: a rare one may be in no chunk at all (a
        # name, a typo); or the capped sets overlapped. Then the chunks holding any word, still
        # at most the pool of them, spent on chunks not found yet.
        seen = [chunk_id for chunk_id, _ in found]
        more = await _scored_candidates(
            session, score, parameters, [_tsquery(tokens, " | ")], vector_column, exclude=seen
        )
        found = sorted(found + more, key=lambda row: (-row[1], row[0]))
    return found[:limit]


async def _scored_candidates(
    session: AsyncSession,
    score: str,
    parameters: dict[str, Any],
    matches: list[str],
    vector_column: str,
    exclude: Sequence[int] = (),
) -> list[tuple[int, float]]:
    """The chunks matching any of ``matches`` (tsqueries; each capped at the pool), scored;
    none of ``exclude`` (chunk ids), which take no place in the pool."""
    selects = []
    bound = dict(parameters)
    excluded = ""
    if exclude:
        bound["exclude"] = list(exclude)
        excluded = " AND NOT (c.id = ANY(:exclude))"
    for number, query in enumerate(dict.fromkeys(matches)):
        bound[f"match{number}"] = query
        selects.append(
            f"(SELECT c.id, {score} AS score FROM chunk AS c WHERE c.knowledge_base_id = :kb_id "
            f"AND c.{vector_column} @@ to_tsquery('simple', :match{number}){excluded} LIMIT :pool)"
        )
    statement = text(f"SELECT id, score FROM ({' UNION '.join(selects)}) AS m ORDER BY score DESC, id LIMIT :limit")
    rows = (await session.execute(statement, bound)).all()
    return [(int(chunk_id), float(found)) for chunk_id, found in rows]


async def lexical_candidates(
    session: AsyncSession, kb_id: str, tokens: Sequence[str], limit: int
) -> list[tuple[int, float]]:
    """(chunk id, score) of the chunks matching any token, best first; higher scores are better.

    SQLite ranks with FTS5's bm25 (negated: FTS5 returns lower-is-better); PostgreSQL with
    an idf-weighted ts_rank over bounded candidate sets (``_lexical_postgres``).
    """
    return await _ranked(session, kb_id, tokens, limit, FTS_TABLE, SEARCH_VECTOR_COLUMN)


async def lead_candidates(
    session: AsyncSession, kb_id: str, tokens: Sequence[str], limit: int
) -> list[tuple[int, float]]:
    """(first chunk id, score) of the documents of ``kb_id`` whose lead (``app.knowledge.lead``)
    matches any token, best first: one per document, scored as ``lexical_candidates`` scores
    passages (FTS5 bm25 over the leads / idf-weighted ts_rank over bounded candidate sets), and
    scoped to the knowledge base exactly as the passages are (``chunk.knowledge_base_id``)."""
    return await _ranked(session, kb_id, tokens, limit, LEAD_FTS_TABLE, LEAD_VECTOR_COLUMN)


async def _ranked(
    session: AsyncSession, kb_id: str, tokens: Sequence[str], limit: int, fts_table: str, vector_column: str
) -> list[tuple[int, float]]:
    """(chunk id, score) of ``kb_id``'s entries in one lexical index matching any token, best
    first: the FTS5 table ``fts_table`` on SQLite (bm25, negated: lower is better there), the
    tsvector column ``vector_column`` on PostgreSQL (``_lexical_postgres``)."""
    if not tokens:
        return []
    dialect = _dialect(session)
    if dialect == "sqlite":
        statement = text(
            f"SELECT c.id, bm25({fts_table}) AS score FROM {fts_table} "
            f"JOIN chunk AS c ON c.id = {fts_table}.rowid "
            f"WHERE {fts_table} MATCH :query AND c.knowledge_base_id = :kb_id "
            "ORDER BY score LIMIT :limit"
        )
        rows = (await session.execute(statement, {"query": _fts5_query(tokens), "kb_id": kb_id, "limit": limit})).all()
        return [(int(chunk_id), -float(score)) for chunk_id, score in rows]
    if dialect == "postgresql":
        return await _lexical_postgres(session, kb_id, tokens, limit, vector_column)
    raise NotImplementedError(f"no lexical index for {dialect}")


async def content_version(session: AsyncSession, kb_id: str) -> int | None:
    value = await session.scalar(select(KnowledgeBase.content_version).where(KnowledgeBase.id == kb_id))
    return None if value is None else int(value)


async def stored_vectors(session: AsyncSession, kb_id: str, model: str) -> list[tuple[int, bytes]]:
    statement = select(Chunk.id, Chunk.embedding).where(
        Chunk.knowledge_base_id == kb_id, Chunk.embedding_model == model, Chunk.embedding.is_not(None)
    )
    rows = (await session.execute(statement)).all()
    return [(int(chunk_id), bytes(blob)) for chunk_id, blob in rows if blob is not None]


@dataclass(frozen=True)
class ChunkToEmbed:
    id: int
    knowledge_base_id: str
    title: str
    heading_path: list[str]
    text: str


def _without_vector_of(model: str, kb_ids: Sequence[str] | None) -> list[Any]:
    conditions: list[Any] = [Chunk.embedding.is_(None) | Chunk.embedding_model.is_distinct_from(model)]
    if kb_ids is not None:
        conditions.append(Chunk.knowledge_base_id.in_(list(kb_ids)))
    return conditions


async def chunks_without_vector(
    session: AsyncSession, model: str, kb_ids: Sequence[str] | None, after_id: int, limit: int
) -> list[ChunkToEmbed]:
    """The next ``limit`` chunks (by id, after ``after_id``) with no vector of ``model``: never
    embedded, or embedded by another model. ``kb_ids`` None: every knowledge base."""
    statement = (
        select(Chunk.id, Chunk.knowledge_base_id, Document.title, Chunk.heading_path, Chunk.text)
        .join(Document, Document.id == Chunk.document_id)
        .where(Chunk.id > after_id, *_without_vector_of(model, kb_ids))
        .order_by(Chunk.id)
        .limit(limit)
    )
    return [
        ChunkToEmbed(int(chunk_id), kb_id, title, list(heading_path or []), body)
        for chunk_id, kb_id, title, heading_path, body in (await session.execute(statement)).all()
    ]


async def count_chunks_without_vector(session: AsyncSession, model: str, kb_ids: Sequence[str] | None) -> int:
    statement = select(func.count()).select_from(Chunk).where(*_without_vector_of(model, kb_ids))
    return int(await session.scalar(statement) or 0)


async def set_vectors(session: AsyncSession, model: str, vectors: Sequence[tuple[int, bytes]]) -> None:
    """Store ``(chunk id, vector)`` pairs as vectors of ``model`` (a chunk deleted since is skipped)."""
    if not vectors:
        return
    statement = (
        update(Chunk.__table__)  # type: ignore[arg-type]
        .where(Chunk.__table__.c.id == bindparam("chunk_id"))
        .values(embedding=bindparam("vector"), embedding_model=model)
    )
    await session.execute(statement, [{"chunk_id": chunk_id, "vector": vector} for chunk_id, vector in vectors])


async def documents_of_chunks(session: AsyncSession, chunk_ids: Sequence[int]) -> dict[int, str]:
    """Chunk id → its document's id (chunks deleted since are absent)."""
    if not chunk_ids:
        return {}
    statement = select(Chunk.id, Chunk.document_id).where(Chunk.id.in_(list(chunk_ids)))
    return {int(chunk_id): str(document_id) for chunk_id, document_id in (await session.execute(statement)).all()}


async def chunks_with_documents(session: AsyncSession, chunk_ids: Sequence[int]) -> dict[int, tuple[Chunk, Document]]:
    if not chunk_ids:
        return {}
    statement = select(Chunk, Document).join(Document, Document.id == Chunk.document_id).where(Chunk.id.in_(chunk_ids))
    return {chunk.id: (chunk, document) for chunk, document in (await session.execute(statement)).all()}


async def chunks_of_document(session: AsyncSession, document_id: str) -> list[Chunk]:
    statement = select(Chunk).where(Chunk.document_id == document_id).order_by(Chunk.position)
    return list((await session.scalars(statement)).all())
