"""A document's *lead*: its title and the first paragraph of its first chunk.

Indexed on its own (SQLite: the FTS5 table ``chunk_lead_fts``; PostgreSQL: the tsvector column
``chunk.lead_vector``), keyed by the document's first chunk, so it is written, replaced and
deleted with the document's chunks. Searched as a third, document-level list of the fusion
(``search.LEAD_WEIGHT``): a long request naming what a tool or module is for often shares
words with the document's title and opening sentence that no single passage ranks for
(bench/README.md, ``knowledge_eval.py``). Built only from what is stored (the title and the
first chunk's text), so migration 0016 backfills exactly what ingest writes.
"""

from __future__ import annotations

from app.knowledge.tokens import index_text

#: How much of the first paragraph the lead holds; the title (at most 500 characters) comes on top.
LEAD_PARAGRAPH_CHARS = 600


def lead_text(title: str, first_chunk_text: str) -> str:
    """The title, a newline, the first paragraph of ``first_chunk_text`` (whitespace collapsed,
    at most LEAD_PARAGRAPH_CHARS characters)."""
    paragraph = " ".join(first_chunk_text.strip().split("\n\n", 1)[0].split())[:LEAD_PARAGRAPH_CHARS]
    return f"{title.strip()}\n{paragraph}" if paragraph else title.strip()


def lead_index_text(title: str, first_chunk_text: str) -> str:
    """``lead_text`` as the lexical index holds it (``tokens.index_text``)."""
    return index_text(lead_text(title, first_chunk_text))
