"""Levers for long, entity-rich requests, measured offline on the tuning half of the knowledge set.

The labelled set of ``knowledge_eval.py`` is ingested once (SQLite, the local model, the real
pipeline); each tuning query's lexical and vector candidates are read as ``searchKnowledge(topK:
5)`` sees them (``KnowledgeSearch.candidates``, 40 of each). Every variant below then ranks the
documents from those lists, or from lists it builds itself, with the document-level fusion of
``app/knowledge/search.py`` generalised to any number of lists (each list's documents by their
decayed passage scores, weighted reciprocal rank fusion with the shipped k, depth and decay), and
is scored by recall@5 on the tuning half only: per language and kind, and how many queries it wins
and loses against the shipped ranking. Nothing here reads the held-out half.

Lexical variants use a BM25 over the index text FTS5 holds (same tokens; k1 1.2, b 0.75 as FTS5),
so per-word weights and other fields can be tried; its "bm25 (Python)" row checks it against FTS5.

    .venv/bin/python -m bench.knowledge_levers               # ~2 minutes on 2 quiet cores
    .venv/bin/python -m bench.knowledge_levers --no-reembed  # without the passage-text variants
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import text

from app.db import create_engine, create_session_factory
from app.errors import DomainError
from app.knowledge import service
from app.knowledge.chunking import ChunkingOptions, markdown_sections
from app.knowledge.embeddings import LocalEmbeddings, from_bytes, passage_texts
from app.knowledge.ingest import Ingestor, ToPrepare, contextual_text, ingest_many
from app.knowledge.search import (
    DOCUMENT_DECAY,
    FUSION_DEPTH,
    MIN_VECTOR_SIMILARITY,
    RRF_K,
    VECTOR_WEIGHT,
    KnowledgeSearch,
    fuse,
)
from app.knowledge.tokens import index_tokens, is_mostly_unspaced, query_tokens
from app.migrate import upgrade_async
from app.principal import SYSTEM_PRINCIPAL
from bench.common import load_average
from bench.knowledge_eval import KINDS, LANGUAGES, RECALL_AT, Query, bench_knowledge_base, load_set, throwaway_database

DEPTH = 40  # candidates per list, as KnowledgeSearch asks for topK 5
Passages = list[tuple[int, float]]
#: A list to fuse: (chunk id or document id, score) pairs, whether they are documents, weight.
Ranked = tuple[Sequence[tuple[Any, float]], bool, float]


@dataclass
class Bm25:
    """Okapi BM25 over token lists (FTS5's constants by default)."""

    tokens: dict[Any, list[str]]
    k1: float = 1.2
    b: float = 0.75
    frequencies: dict[Any, Counter[str]] = field(init=False)
    postings: dict[str, list[Any]] = field(init=False)

    def __post_init__(self) -> None:
        self.frequencies = {key: Counter(words) for key, words in self.tokens.items()}
        self.average = sum(map(len, self.tokens.values())) / max(1, len(self.tokens))
        self.postings = defaultdict(list)
        for key, counts in self.frequencies.items():
            for word in counts:
                self.postings[word].append(key)

    def idf(self, word: str) -> float:
        holding = len(self.postings.get(word, ()))
        return math.log(1 + (len(self.tokens) - holding + 0.5) / (holding + 0.5))

    def search(
        self,
        words: Sequence[str],
        weights: dict[str, float] | None = None,
        *,
        k1: float | None = None,
        b: float | None = None,
        limit: int = DEPTH,
    ) -> list[tuple[Any, float]]:
        k1 = self.k1 if k1 is None else k1
        b = self.b if b is None else b
        scores: dict[Any, float] = defaultdict(float)
        for word in words:
            weight = self.idf(word) * (weights or {}).get(word, 1.0)
            for key in self.postings.get(word, ()):
                tf = self.frequencies[key][word]
                norm = 1 - b + b * len(self.tokens[key]) / self.average
                scores[key] += weight * tf * (k1 + 1) / (tf + k1 * norm)
        return sorted(scores.items(), key=lambda item: (-item[1], str(item[0])))[:limit]


@dataclass
class Lab:
    queries: list[Query]
    #: chunk id -> (document id, title, heading path, text)
    chunks: dict[int, tuple[str, str, list[str], str]]
    ids: npt.NDArray[np.int64]
    matrix: npt.NDArray[np.float32]
    documents: list[dict[str, object]]
    lexical: dict[int, Passages]
    vector: dict[int, Passages]
    embedder: LocalEmbeddings
    _embedded: dict[str, npt.NDArray[np.float32]] = field(default_factory=dict)

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._embedded]
        if missing:
            for line, row in zip(missing, asyncio.run(self.embedder.embed(missing)), strict=True):
                self._embedded[line] = row
        return np.vstack([self._embedded[t] for t in texts])

    def nearest(self, vector: npt.NDArray[np.float32], matrix: npt.NDArray[np.float32] | None = None) -> Passages:
        similarities = (self.matrix if matrix is None else matrix) @ vector
        best = np.argsort(-similarities, kind="stable")[:DEPTH]
        return [(int(self.ids[i]), float(similarities[i])) for i in best if similarities[i] >= MIN_VECTOR_SIMILARITY]


def rank_documents(
    lab: Lab, number: int, lists: Sequence[Ranked], tie: tuple[Passages, Passages] | None = None
) -> list[str]:
    """``fuse_documents`` for any number of lists; ties keep the order of the best fused passage."""
    scores: dict[str, float] = defaultdict(float)
    for found, are_documents, weight in lists:
        if are_documents:
            ranking = [str(key) for key, _ in found]
        else:
            totals: dict[str, list[float]] = defaultdict(list)
            for chunk_id, score in found:
                totals[lab.chunks[int(chunk_id)][0]].append(score)
            decayed = {
                d: sum(s * DOCUMENT_DECAY**j for j, s in enumerate(sorted(v, reverse=True))) for d, v in totals.items()
            }
            ranking = sorted(decayed, key=lambda d: (-decayed[d], d))
        for rank, document in enumerate(ranking[:FUSION_DEPTH], start=1):
            scores[document] += weight / (RRF_K + rank)
    lexical, vector = tie or (lab.lexical[number], lab.vector[number])
    place: dict[str, int] = {}
    for position, (chunk_id, *_) in enumerate(fuse(lexical, vector)):
        place.setdefault(lab.chunks[chunk_id][0], position)
    return sorted(scores, key=lambda d: (-scores[d], place.get(d, 1 << 30), d))


Variant = Callable[[Lab, int], list[str]]


def shipped(lab: Lab, number: int) -> list[str]:
    return rank_documents(lab, number, [(lab.lexical[number], False, 1.0), (lab.vector[number], False, VECTOR_WEIGHT)])


def with_lists(extra: Callable[[Lab, int], list[Ranked]], vector_weight: float = VECTOR_WEIGHT) -> Variant:
    def variant(lab: Lab, number: int) -> list[str]:
        base: list[Ranked] = [(lab.lexical[number], False, 1.0), (lab.vector[number], False, vector_weight)]
        return rank_documents(lab, number, base + extra(lab, number))

    return variant


def replacing(
    lexical: Callable[[Lab, int], Passages] | None = None, vector: Callable[[Lab, int], Passages] | None = None
) -> Variant:
    def variant(lab: Lab, number: int) -> list[str]:
        lists = (
            lexical(lab, number) if lexical else lab.lexical[number],
            vector(lab, number) if vector else lab.vector[number],
        )
        return rank_documents(lab, number, [(lists[0], False, 1.0), (lists[1], False, VECTOR_WEIGHT)], tie=lists)

    return variant


def reembedded(lab: Lab, texts: dict[int, str], words: Callable[[Lab, int], list[str]]) -> Variant:
    """Passages indexed and embedded from ``texts`` (chunk id -> text) instead of the shipped contextual text."""
    matrix = lab.embed(passage_texts(lab.embedder, [texts[int(cid)] for cid in lab.ids]))
    bm25 = Bm25({cid: index_tokens(t) for cid, t in texts.items()})
    return replacing(
        lexical=lambda lab, n: bm25.search(words(lab, n)),
        vector=lambda lab, n: lab.nearest(lab.embed([lab.queries[n].text[:1000]])[0], matrix),
    )


SENTENCE = re.compile(r"(?<=[.!?;])\s+")
CLAUSE = re.compile(r"(?<=[.!?;:,])\s+|\s+[\u2014\u2013-]\s+")


def pieces_rrf(split: Callable[[str], list[str]], weight: float) -> Variant:
    """The whole query's vector list plus one list per piece (weight shared among them)."""

    def extra(lab: Lab, number: int) -> list[Ranked]:
        parts = split(lab.queries[number].text)
        if len(parts) < 2:
            return []
        return [(lab.nearest(row), False, weight / len(parts)) for row in lab.embed(parts)]

    return with_lists(extra)


def windows(text_: str, size: int = 12, stride: int = 6) -> list[str]:
    words = text_.split()
    return (
        [" ".join(words[i : i + size]) for i in range(0, len(words) - size + stride, stride)]
        if len(words) > size
        else []
    )


def run(arguments: argparse.Namespace) -> None:
    lab = asyncio.run(collect())
    tuning = [n for n, q in enumerate(lab.queries) if q.split == "tuning"]
    bodies = {
        chunk_id: index_tokens(contextual_text(title, path, body))
        for chunk_id, (_, title, path, body) in lab.chunks.items()
    }
    chunk_bm25 = Bm25(bodies)
    known = set(chunk_bm25.postings)
    heading_words = {w for _, title, path, _ in lab.chunks.values() for w in index_tokens(title + " " + " ".join(path))}
    by_id = {str(d["id"]): d for d in lab.documents}

    def summary(document_id: str) -> str:
        sections = markdown_sections(str(by_id[document_id]["text"]))
        body = next((s.body for s in sections if s.body.strip()), "")
        return " ".join(body.split("\n\n")[0].split())[:600]

    def field_bm25(parts: str) -> Bm25:
        texts = {}
        for document_id, document in by_id.items():
            pieces = [str(document["title"])]
            if "headings" in parts:
                pieces += dict.fromkeys(h for s in markdown_sections(str(document["text"])) for h in s.heading_path)
            if "first" in parts:
                pieces.append(summary(document_id))
            if "all" in parts:
                pieces.append(str(document["text"]))
            texts[document_id] = index_tokens("\n".join(pieces))
        return Bm25(texts)

    fields = {name: field_bm25(name) for name in ("title+first", "title+headings+first", "all")}

    def words(lab: Lab, number: int) -> list[str]:
        return query_tokens(lab.queries[number].text)

    def known_words_only(text_: str) -> str:
        return " ".join(w for w in re.findall(r"[\w'\u2019-]+", text_) if any(t in known for t in index_tokens(w)))

    def without_names(text_: str) -> str:
        kept = [
            w
            for w in text_.split()
            if not (w[:1].isupper() and all(t not in known for t in index_tokens(w.split("'")[0])))
        ]
        return " ".join(kept)

    def long_query(lab: Lab, number: int) -> bool:
        return len(words(lab, number)) >= 10

    variants: dict[str, Variant] = {
        "shipped (FTS5 bm25 + vectors, document-level RRF)": shipped,
        "bm25 (Python) instead of FTS5, check": replacing(lexical=lambda lab, n: chunk_bm25.search(words(lab, n))),
        "(b) + title + first paragraph field, w 0.5": with_lists(
            lambda lab, n: [(fields["title+first"].search(words(lab, n)), True, 0.5)]
        ),
        "(b) + title + first paragraph field, w 1": with_lists(
            lambda lab, n: [(fields["title+first"].search(words(lab, n)), True, 1.0)]
        ),
        "(b) the same, w 1, queries not mostly CJK": with_lists(
            lambda lab, n: (
                []
                if is_mostly_unspaced(lab.queries[n].text)
                else [(fields["title+first"].search(words(lab, n)), True, 1.0)]
            )
        ),
        "(b) + title + headings + first paragraph, w 0.5": with_lists(
            lambda lab, n: [(fields["title+headings+first"].search(words(lab, n)), True, 0.5)]
        ),
        "(b) + title + headings + first paragraph, w 1": with_lists(
            lambda lab, n: [(fields["title+headings+first"].search(words(lab, n)), True, 1.0)]
        ),
        "(b) + whole-document bm25, w 0.5": with_lists(
            lambda lab, n: [(fields["all"].search(words(lab, n)), True, 0.5)]
        ),
        "(c) long: heading-vocabulary words 1, others 0.3": replacing(
            lexical=lambda lab, n: chunk_bm25.search(
                words(lab, n), {w: 1.0 if w in heading_words or not long_query(lab, n) else 0.3 for w in words(lab, n)}
            )
        ),
        "(c) long: heading-vocabulary words only": replacing(
            lexical=lambda lab, n: chunk_bm25.search(
                words(lab, n), {w: 1.0 if w in heading_words or not long_query(lab, n) else 0.0 for w in words(lab, n)}
            )
        ),
        "(c) bm25 k1 0.6 (query-term saturation)": replacing(
            lexical=lambda lab, n: chunk_bm25.search(words(lab, n), k1=0.6)
        ),
        "(c) bm25 k1 2.0, b 1.0": replacing(lexical=lambda lab, n: chunk_bm25.search(words(lab, n), k1=2.0, b=1.0)),
        "(c) long: lexical weight 0.5": lambda lab, n: rank_documents(
            lab, n, [(lab.lexical[n], False, 0.5 if long_query(lab, n) else 1.0), (lab.vector[n], False, VECTOR_WEIGHT)]
        ),
        "(d) + sentence vectors, RRF (weight 1 shared)": pieces_rrf(
            lambda t: [s for s in SENTENCE.split(t) if s.strip()], 1.0
        ),
        "(d) + sentence vectors, RRF (weight 2 shared)": pieces_rrf(
            lambda t: [s for s in SENTENCE.split(t) if s.strip()], 2.0
        ),
        "(d) + clause vectors (>= 3 words), RRF (weight 1)": pieces_rrf(
            lambda t: [c for c in CLAUSE.split(t) if len(c.split()) >= 3], 1.0
        ),
        "(d) + 12-word windows, RRF (weight 1)": pieces_rrf(windows, 1.0),
        "query vector without unknown capitalised words": replacing(
            vector=lambda lab, n: lab.nearest(lab.embed([without_names(lab.queries[n].text)])[0])
        ),
        "long: query vector of the index's known words only": replacing(
            vector=lambda lab, n: lab.nearest(
                lab.embed(
                    [known_words_only(lab.queries[n].text) if long_query(lab, n) else lab.queries[n].text[:1000]]
                )[0]
            )
        ),
    }
    passage_variants: dict[str, Callable[[str, str, list[str], str], str]] = {
        "(a) passages without title and headings": lambda d, title, path, body: body,
        "(a) passages with the title only": lambda d, title, path, body: f"{title}\n{body}",
        "(a) passages with title: first paragraph, headings": lambda d, title, path, body: contextual_text(
            f"{title}: {summary(d)[:120]}", path, body
        ),
    }
    for name, make in passage_variants.items() if not arguments.no_reembed else ():
        variants[name] = reembedded(lab, {cid: make(*chunk) for cid, chunk in lab.chunks.items()}, words)

    groups = [("all", tuning)] + [(g, [n for n in tuning if lab.queries[n].language == g]) for g in LANGUAGES]
    groups += [(g, [n for n in tuning if lab.queries[n].kind == g]) for g in KINDS]
    print(f"\n### tuning half, recall@{RECALL_AT} (load average {load_average():.2f})\n")
    names = [
        f"{name} ({'language' if place <= len(LANGUAGES) else 'kind'})" if name == "mixed" else name
        for place, (name, _) in enumerate(groups)
    ]
    print("| variant | " + " | ".join(names) + " | won / lost |")
    print("|---|" + "---:|" * (len(groups) + 1))
    base = {n: recall(shipped(lab, n), lab.queries[n]) for n in tuning}
    for name, variant in variants.items():
        got = {n: recall(variant(lab, n), lab.queries[n]) for n in tuning}
        cells = [f"{sum(got[n] for n in numbers) / max(1, len(numbers)):.3f}" for _, numbers in groups]
        won = sum(got[n] > base[n] for n in tuning)
        lost = sum(got[n] < base[n] for n in tuning)
        print(f"| {name} | " + " | ".join(cells) + f" | {won} / {lost} |", flush=True)
    print("| queries | " + " | ".join(str(len(numbers)) for _, numbers in groups) + " | |")


def recall(ranking: list[str], query: Query) -> float:
    return len(query.relevant & set(ranking[:RECALL_AT])) / len(query.relevant)


async def collect() -> Lab:
    documents, queries = load_set()
    embedder = LocalEmbeddings()
    async with throwaway_database("sqlite", "") as url:
        await upgrade_async(url)
        engine = create_engine(url)
        session_factory = create_session_factory(engine)
        try:
            kb = await bench_knowledge_base(session_factory, "levers")
            items = [
                ToPrepare(service.check_document_input(service.DocumentInput(kb.id, d["title"], d["text"], d["id"])))
                for d in documents
            ]
            async for item, stored in ingest_many(
                session_factory, SYSTEM_PRINCIPAL, Ingestor(ChunkingOptions(), embedder), items
            ):
                if isinstance(stored, DomainError):
                    raise SystemExit(f"{item.data.title}: {stored.message}")
            async with session_factory() as session:
                rows = (
                    await session.execute(
                        text(
                            "SELECT c.id, d.source, d.title, c.heading_path, c.text, c.embedding FROM chunk AS c "
                            "JOIN document AS d ON d.id = c.document_id ORDER BY c.id"
                        )
                    )
                ).all()
            search = KnowledgeSearch(session_factory, embedder, timeout_s=60)
            lexical: dict[int, Passages] = {}
            vector: dict[int, Passages] = {}
            for number, query in enumerate(queries):
                if query.split == "tuning":
                    found = await search.candidates([kb.id], query.text, DEPTH)
                    lexical[number], vector[number] = found.lexical, found.vector
        finally:
            await engine.dispose()
    chunks = {
        int(r[0]): (str(r[1]), str(r[2]), list(json.loads(r[3]) if isinstance(r[3], str) else r[3] or []), str(r[4]))
        for r in rows
    }
    ids = np.array([int(r[0]) for r in rows], dtype=np.int64)
    matrix = np.vstack([from_bytes(bytes(r[5])) for r in rows])
    return Lab(queries, chunks, ids, matrix, documents, lexical, vector, embedder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-reembed", action="store_true", help="skip the variants that embed every passage again")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
