"""Levers for long requests against the three-list fusion (passages, vectors, leads), tuning half only.

``knowledge_levers.py`` measured its levers against the two-list fusion before the documents'
leads. This script measures the levers left after the leads (#17, fourth round) against what
ships now: each tuning query's lexical, vector and lead candidates as ``searchKnowledge(topK: 5)``
reads them (``KnowledgeSearch.candidates``, 40 of each), ranked into documents by
``app/knowledge/search.py``'s own ``fuse_documents`` and ``by_document``. A variant replaces one
list (the lexical and lead lists are asked of the same FTS5 tables, with a query built otherwise:
a word repeated in an FTS5 OR query counts that many times in bm25, which is how a word gets an
integer weight) or adds a document-level list (entering the fusion by its rank, as the leads do).
It is scored by recall@5 on the tuning half only, per language and kind, and by how many of the
tuning queries it wins and loses against what ships. Nothing here reads the held-out half or the
fresh split.

    .venv/bin/python -m bench.knowledge_levers_leads      # ~1 minute on 2 quiet cores
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import re
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.db import create_engine, create_session_factory
from app.errors import DomainError
from app.knowledge import service
from app.knowledge.chunking import ChunkingOptions
from app.knowledge.embeddings import LocalEmbeddings, from_bytes, query_text
from app.knowledge.ingest import Ingestor, ToPrepare, contextual_text, ingest_many
from app.knowledge.lead import lead_text
from app.knowledge.models import FTS_TABLE, LEAD_FTS_TABLE
from app.knowledge.search import (
    FUSION_DEPTH,
    LEAD_WEIGHT,
    MIN_VECTOR_SIMILARITY,
    RRF_K,
    VECTOR_WEIGHT,
    KnowledgeSearch,
    by_document,
    fuse,
    fuse_documents,
    uses_lead,
)
from app.knowledge.tokens import is_mostly_unspaced, query_token_sequence, query_tokens
from app.migrate import upgrade_async
from app.principal import SYSTEM_PRINCIPAL
from bench.common import load_average
from bench.knowledge_eval import KINDS, LANGUAGES, RECALL_AT, Query, bench_knowledge_base, load_set, throwaway_database

DEPTH = 40  # candidates per list, as KnowledgeSearch asks for topK 5
Passages = list[tuple[int, float]]
Weighted = list[tuple[str, int]]


@dataclass
class Lab:
    queries: list[Query]
    tuning: list[int]
    #: chunk id -> (document source, which the labels name; position)
    chunks: dict[int, tuple[str, int]]
    ids: npt.NDArray[np.int64]
    matrix: npt.NDArray[np.float32]
    #: document id -> (title, first chunk's text)
    firsts: dict[str, tuple[str, str]]
    lexical: dict[int, Passages]
    vector: dict[int, Passages]
    lead: dict[int, Passages]
    query_vectors: dict[int, npt.NDArray[np.float32]]
    fts: sqlite3.Connection
    embedder: LocalEmbeddings
    #: chunk id -> the text ingest indexes and embeds (title, headings, chunk: ``contextual_text``)
    texts: dict[int, str] = field(default_factory=dict)
    _embedded: dict[str, npt.NDArray[np.float32]] = field(default_factory=dict)

    @property
    def document_of(self) -> dict[int, str]:
        return {chunk_id: document for chunk_id, (document, _) in self.chunks.items()}

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        missing = [line for line in dict.fromkeys(texts) if line not in self._embedded]
        if missing:
            for line, row in zip(missing, asyncio.run(self.embedder.embed(missing)), strict=True):
                self._embedded[line] = row
        return np.vstack([self._embedded[line] for line in texts])

    def nearest(
        self, similarities: npt.NDArray[np.float32], threshold: npt.NDArray[np.float32] | None = None
    ) -> Passages:
        """The first DEPTH passages by ``similarities`` (cosine at least MIN_VECTOR_SIMILARITY, by
        ``threshold`` when given: the plain cosine when the ranking score is another)."""
        floor = similarities if threshold is None else threshold
        best = np.argsort(-similarities, kind="stable")[:DEPTH]
        return [(int(self.ids[i]), float(similarities[i])) for i in best if floor[i] >= MIN_VECTOR_SIMILARITY]

    def search_fts(self, weighted: Weighted, table: str = FTS_TABLE, limit: int = DEPTH) -> Passages:
        """bm25 over one FTS5 table, each word counted ``weight`` times (repeated in the OR query)."""
        terms = [
            term
            for word, weight in weighted
            for term in ['"' + word.replace('"', '""') + '"' if " " not in word else _phrase(word)] * weight
        ]
        if not terms:
            return []
        rows = self.fts.execute(
            f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ? ORDER BY 2 LIMIT ?",
            (" OR ".join(terms), limit),
        ).fetchall()
        return [(int(rowid), -float(score)) for rowid, score in rows]


def _phrase(words: str) -> str:
    return " + ".join('"' + word.replace('"', '""') + '"' for word in words.split())


def ranking(
    lab: Lab,
    number: int,
    *,
    lexical: Passages | None = None,
    vector: Passages | None = None,
    lead: Passages | None = None,
    documents: Sequence[tuple[Sequence[tuple[str, float]], float]] = (),
    vector_weight: float = VECTOR_WEIGHT,
    lead_weight: float = LEAD_WEIGHT,
) -> list[str]:
    """Documents as searchKnowledge ranks them (``fuse_documents`` / ``by_document``), with the given
    lists instead of the shipped ones and ``documents``: extra (document id, score) lists, each
    with its weight, entering the fusion by rank. Documents only such a list holds come after."""
    query = lab.queries[number].text
    lexical = lab.lexical[number] if lexical is None else lexical
    vector = lab.vector[number] if vector is None else vector
    if lead is None:
        lead = lab.lead[number] if uses_lead(query, weight=lead_weight) else []
    document_of = lab.document_of
    scores = fuse_documents(
        lexical, vector, document_of, lead=lead, vector_weight=vector_weight, lead_weight=lead_weight
    )
    for found, weight in documents:
        ordered = sorted(found, key=lambda item: (-item[1], item[0]))
        for rank, (document, _) in enumerate(ordered[:FUSION_DEPTH], start=1):
            scores[document] = scores.get(document, 0.0) + weight / (RRF_K + rank)
    passages = fuse(lexical, vector, lead=lead, lead_weight=lead_weight, vector_weight=vector_weight)
    order = by_document(passages, scores, document_of)
    ranked = list(dict.fromkeys(document_of[chunk_id] for chunk_id, *_ in order if chunk_id in document_of))
    others = sorted((d for d in scores if d not in ranked), key=lambda d: -scores[d])
    return sorted(ranked + others, key=lambda d: -scores.get(d, 0.0))


Variant = Callable[[Lab, int], list[str]]
ASK_START = re.compile(r"\s*(how|which|what|where|when|whether|who|why|can|should|may)\b", re.IGNORECASE)
CLAUSES = re.compile(r"(?<=[;?.!])\s+|;\s*")
SUBJECT_VERB = re.compile(
    r"\b(wants?|needs?|must|asks?|is writing|has to|would like|keeps)\b\s*(to\s+)?", re.IGNORECASE
)
WITH_DIGITS = re.compile(r"\S*\d\S*")
NUMBER = re.compile(r"(?<![\w])[-+]?\d[\d.,]*(?:\s*%)?(?![\w])")


def run(arguments: argparse.Namespace) -> None:
    lab = asyncio.run(collect())
    print(f"# knowledge_levers_leads — tuning half only ({len(lab.tuning)} queries)")
    df = dict(lab.fts.execute("SELECT term, doc FROM temp.passage_words"))
    documents = sorted(lab.firsts)
    rows_of: dict[str, list[int]] = defaultdict(list)
    for row, chunk_id in enumerate(lab.ids):
        rows_of[lab.chunks[int(chunk_id)][0]].append(row)
    index_of = {lab.chunks[int(c)]: row for row, c in enumerate(lab.ids)}
    before = np.array([index_of.get((d, p - 1), -1) for d, p in (lab.chunks[int(c)] for c in lab.ids)])
    after = np.array([index_of.get((d, p + 1), -1) for d, p in (lab.chunks[int(c)] for c in lab.ids)])
    chunk_count = len(lab.chunks)

    def idf(word: str) -> float:
        holding = df.get(word, 0)
        return math.log(1 + (chunk_count - holding + 0.5) / (holding + 0.5))

    def spaced(number: int) -> bool:
        return not is_mostly_unspaced(lab.queries[number].text)

    def words(number: int) -> list[str]:
        return query_tokens(lab.queries[number].text)

    def lexical_query(weigh: Callable[[int], Weighted | None]) -> Variant:
        """The passages' and the leads' lexical lists from a reweighted query (queries not mostly CJK)."""

        def variant(lab: Lab, number: int) -> list[str]:
            weighted = weigh(number) if spaced(number) else None
            if weighted is None:
                return ranking(lab, number)
            lead = (
                lab.search_fts(weighted, LEAD_FTS_TABLE)
                if uses_lead(lab.queries[number].text, weight=LEAD_WEIGHT)
                else []
            )
            return ranking(lab, number, lexical=lab.search_fts(weighted), lead=lead)

        return variant

    def rarer_doubled(threshold: float) -> Callable[[int], Weighted]:
        return lambda number: [(word, 2 if idf(word) >= threshold else 1) for word in words(number)]

    def rarest_known(cap: int) -> Callable[[int], Weighted]:
        def weigh(number: int) -> Weighted:
            known = sorted((w for w in words(number) if df.get(w, 0)), key=lambda w: df[w])
            kept = set(known[:cap])
            return [(w, 1) for w in words(number) if w in kept or not df.get(w, 0)]

        return weigh

    def ask_part(ask: int, context: int) -> Callable[[int], Weighted | None]:
        def weigh(number: int) -> Weighted | None:
            parts = [part for part in CLAUSES.split(lab.queries[number].text) if part.strip()]
            asking = [part for part in parts if "?" in part or ASK_START.match(part)]
            if len(parts) < 2 or not asking:
                return None
            asked = {word for part in asking for word in query_tokens(part)}
            return [(w, ask if w in asked else context) for w in words(number)]

        return weigh

    def adjacent_pairs(number: int) -> Weighted:
        sequence = query_token_sequence(lab.queries[number].text)
        pairs = dict.fromkeys(f"{a} {b}" for a, b in itertools.pairwise(sequence) if a != b)
        return [(w, 1) for w in words(number)] + [(pair, 1) for pair in pairs]

    bodies = {int(rowid): body.split() for rowid, body in lab.fts.execute(f"SELECT rowid, body FROM {FTS_TABLE}")}

    def feedback(source: str, passages: int = 3, added: int = 5) -> Callable[[int], Weighted]:
        """Pseudo-relevance feedback (RM3-like): the ``added`` words of most tf x idf in the first
        ``passages`` passages of the lexical list, or of the first 3 documents as shipped (their
        lexical and vector passages), added to the query, whose own words count twice."""

        def weigh(number: int) -> Weighted:
            if source == "lexical":
                chosen = [chunk_id for chunk_id, _ in lab.lexical[number][:passages]]
            else:
                top = set(ranking(lab, number)[:3])
                chosen = [c for c, _ in lab.lexical[number] + lab.vector[number] if lab.chunks[c][0] in top]
            weight: dict[str, float] = defaultdict(float)
            for chunk_id in dict.fromkeys(chosen):
                body = bodies[chunk_id]
                for word in body:
                    weight[word] += idf(word) / len(body)
            own = words(number)
            extra = [w for w in sorted(weight, key=lambda w: -weight[w]) if w not in own and df.get(w, 0) > 1]
            return [(w, 2) for w in own] + [(w, 1) for w in extra if not w.isdigit()][:added]

        return weigh

    def unknown_share(number: int) -> float:
        own = words(number)
        return sum(1 for w in own if not df.get(w, 0)) / max(1, len(own))

    def by_unknown_words(power: float) -> Variant:
        """The vector list's weight times (1 - the share of query words no chunk holds: names,
        places, hosts) ** power, for queries not mostly CJK."""

        def variant(lab: Lab, number: int) -> list[str]:
            if not spaced(number):
                return ranking(lab, number)
            return ranking(lab, number, vector_weight=VECTOR_WEIGHT * (1 - unknown_share(number)) ** power)

        return variant

    def similarities(number: int) -> npt.NDArray[np.float32]:
        return lab.matrix @ lab.query_vectors[number]

    def query_vector_of(rewrite: Callable[[str], str | None]) -> Variant:
        def variant(lab: Lab, number: int) -> list[str]:
            rewritten = rewrite(lab.queries[number].text) if spaced(number) else None
            if rewritten is None or rewritten == lab.queries[number].text:
                return ranking(lab, number)
            vector = lab.embed([query_text(lab.embedder, rewritten)])[0]
            return ranking(lab, number, vector=lab.nearest(lab.matrix @ vector))

        return variant

    def predicate(share: float | None) -> Variant:
        """The query's vector from what follows its subject ("X from the Y team wants to …"),
        alone (``share`` None) or added to the whole query's vector at ``share``."""

        def variant(lab: Lab, number: int) -> list[str]:
            query = lab.queries[number].text
            found = SUBJECT_VERB.search(query) if spaced(number) else None
            if found is None or found.start() == 0:
                return ranking(lab, number)
            part = lab.embed([query_text(lab.embedder, query[found.end() :])])[0]
            vector = part if share is None else lab.query_vectors[number] + share * part
            return ranking(lab, number, vector=lab.nearest(lab.matrix @ (vector / np.linalg.norm(vector))))

        return variant

    def neighbours(share: float, how: str) -> Variant:
        """Each passage's cosine plus ``share`` x its neighbours' (the max or mean of the passage
        before and after it in its document), over every passage."""

        def variant(lab: Lab, number: int) -> list[str]:
            plain = similarities(number)
            previous = np.where(before >= 0, plain[before], 0.0)
            following = np.where(after >= 0, plain[after], 0.0)
            around = np.maximum(previous, following) if how == "max" else (previous + following) / 2
            return ranking(
                lab, number, vector=lab.nearest((plain + share * around).astype(np.float32), threshold=plain)
            )

        return variant

    chunk_at = {place: chunk_id for chunk_id, place in lab.chunks.items()}

    def lexical_neighbours(share: float) -> Variant:
        """Each matching passage's bm25 plus ``share`` x its better neighbour's (the passage before
        or after it in its document), over every match (queries not mostly CJK)."""

        def variant(lab: Lab, number: int) -> list[str]:
            if not spaced(number):
                return ranking(lab, number)
            matches = dict(lab.search_fts([(w, 1) for w in words(number)], limit=len(lab.chunks)))
            scored = []
            for chunk_id, score in matches.items():
                document, position = lab.chunks[chunk_id]
                around = [matches.get(chunk_at.get((document, position + step), -1), 0.0) for step in (-1, 1)]
                scored.append((chunk_id, score + share * max(around)))
            return ranking(lab, number, lexical=sorted(scored, key=lambda item: (-item[1], item[0]))[:DEPTH])

        return variant

    lead_vectors = lab.embed([lead_text(*lab.firsts[d])[:350] for d in documents])
    title_vectors = lab.embed([lab.firsts[d][0] for d in documents])

    def document_vectors(matrix: npt.NDArray[np.float32], weight: float) -> Variant:
        def variant(lab: Lab, number: int) -> list[str]:
            scores = matrix @ lab.query_vectors[number]
            found = [(documents[i], float(scores[i])) for i in np.argsort(-scores)[:FUSION_DEPTH]]
            return ranking(lab, number, documents=[(found, weight)])

        return variant

    def gated(source: str, weight: float) -> Variant:
        """The documents of one list's first FUSION_DEPTH, re-ranked by their best passage's cosine
        (over all their passages), as one more document-level list."""

        def variant(lab: Lab, number: int) -> list[str]:
            plain = similarities(number)
            found = lab.lexical[number] if source == "lexical" else lab.lead[number]
            if source == "lead" and not uses_lead(lab.queries[number].text, weight=LEAD_WEIGHT):
                found = []
            ordered = list(dict.fromkeys(lab.chunks[c][0] for c, _ in sorted(found, key=lambda item: -item[1])))
            scored = [(d, float(plain[rows_of[d]].max())) for d in ordered[:FUSION_DEPTH]]
            return ranking(lab, number, documents=[(scored, weight)])

        return variant

    def deeper(lexical_depth: int, vector_depth: int) -> Variant:
        def variant(lab: Lab, number: int) -> list[str]:
            plain = similarities(number)
            best = np.argsort(-plain, kind="stable")[:vector_depth]
            vector = [(int(lab.ids[i]), float(plain[i])) for i in best if plain[i] >= MIN_VECTOR_SIMILARITY]
            lexical = lab.search_fts([(w, 1) for w in words(number)], limit=lexical_depth)
            return ranking(lab, number, lexical=lexical, vector=vector)

        return variant

    def long_weights(vector_weight: float, lead_weight: float) -> Variant:
        def variant(lab: Lab, number: int) -> list[str]:
            if spaced(number) and len(words(number)) >= 10:
                return ranking(lab, number, vector_weight=vector_weight, lead_weight=lead_weight)
            return ranking(lab, number)

        return variant

    variants: dict[str, Variant] = {
        "shipped (passages, vectors and leads fused by document)": lambda lab, n: ranking(lab, n),
        "document vector: title + lead (350 chars), weight 0.5": document_vectors(lead_vectors, 0.5),
        "document vector: title + lead (350 chars), weight 1": document_vectors(lead_vectors, 1.0),
        "document vector: title, weight 0.5": document_vectors(title_vectors, 0.5),
        "document vector: title, weight 1": document_vectors(title_vectors, 1.0),
        "query words with idf >= 4 counted twice": lexical_query(rarer_doubled(4.0)),
        "query words with idf >= 5 counted twice": lexical_query(rarer_doubled(5.0)),
        "query words with idf >= 6 counted twice": lexical_query(rarer_doubled(6.0)),
        "only the 8 rarest known query words": lexical_query(rarest_known(8)),
        "only the 12 rarest known query words": lexical_query(rarest_known(12)),
        "ask part (question clause) counted twice": lexical_query(ask_part(2, 1)),
        "ask part counted three times": lexical_query(ask_part(3, 1)),
        "context clauses counted twice (control)": lexical_query(ask_part(1, 2)),
        "adjacent query words also as phrases": lexical_query(adjacent_pairs),
        "RM3: 5 words of the first 3 lexical passages added": lexical_query(feedback("lexical")),
        "RM3: 5 words of the first 3 documents added": lexical_query(feedback("documents")),
        "query vector of what follows the subject": predicate(None),
        "query vector + 0.5 x what follows the subject": predicate(0.5),
        "query vector with numbers denoised": query_vector_of(lambda q: NUMBER.sub(" <NUMBER> ", q)),
        "query vector without words holding digits": query_vector_of(
            lambda q: " ".join(WITH_DIGITS.sub(" ", q).split())
        ),
        "passage cosine + 0.1 x best neighbour's": neighbours(0.1, "max"),
        "passage cosine + 0.25 x best neighbour's": neighbours(0.25, "max"),
        "passage cosine + 0.25 x neighbours' mean": neighbours(0.25, "mean"),
        "passage bm25 + 0.25 x better neighbour's": lexical_neighbours(0.25),
        "passage bm25 + 0.5 x better neighbour's": lexical_neighbours(0.5),
        "lead list's documents re-ranked by cosine, weight 0.5": gated("lead", 0.5),
        "lexical list's documents re-ranked by cosine, weight 0.5": gated("lexical", 0.5),
        "vector weight x (1 - share of words no chunk holds)": by_unknown_words(1.0),
        "vector weight x (1 - share of words no chunk holds) ** 2": by_unknown_words(2.0),
        "80 lexical and 80 vector passages": deeper(80, 80),
        "long (>= 10 words): vector weight 1.5, lead 1": long_weights(1.5, 1.0),
        "long (>= 10 words): vector weight 2, lead 1": long_weights(2.0, 1.0),
    }
    groups = [("all", lab.tuning)] + [(g, [n for n in lab.tuning if lab.queries[n].language == g]) for g in LANGUAGES]
    groups += [(g, [n for n in lab.tuning if lab.queries[n].kind == g]) for g in KINDS]
    print(f"\n### tuning half, recall@{RECALL_AT} of searchKnowledge(topK: 5) (load average {load_average():.2f})\n")
    names = [
        f"{name} ({'language' if place <= len(LANGUAGES) else 'kind'})" if name == "mixed" else name
        for place, (name, _) in enumerate(groups)
    ]
    print("| variant | " + " | ".join(names) + " | won / lost |")
    print("|---|" + "---:|" * (len(groups) + 1))
    base = {n: recall(ranking(lab, n), lab.queries[n]) for n in lab.tuning}
    for name, variant in variants.items():
        got = {n: recall(variant(lab, n), lab.queries[n]) for n in lab.tuning}
        cells = [f"{sum(got[n] for n in numbers) / max(1, len(numbers)):.3f}" for _, numbers in groups]
        won = sum(got[n] > base[n] for n in lab.tuning)
        lost = sum(got[n] < base[n] for n in lab.tuning)
        print(f"| {name} | " + " | ".join(cells) + f" | {won} / {lost} |", flush=True)
    print("| queries | " + " | ".join(str(len(numbers)) for _, numbers in groups) + " | |")


def recall(ranked: list[str], query: Query) -> float:
    return len(query.relevant & set(ranked[:RECALL_AT])) / len(query.relevant)


async def collect() -> Lab:
    documents, queries = load_set()
    tuning = [number for number, query in enumerate(queries) if query.split == "tuning"]
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
                            "SELECT c.id, d.source, c.position, d.title, c.text, c.embedding, c.heading_path "
                            "FROM chunk AS c JOIN document AS d ON d.id = c.document_id ORDER BY c.id"
                        )
                    )
                ).all()
            search = KnowledgeSearch(session_factory, embedder, timeout_s=60)
            lexical: dict[int, Passages] = {}
            vector: dict[int, Passages] = {}
            lead: dict[int, Passages] = {}
            query_vectors: dict[int, npt.NDArray[np.float32]] = {}
            for number in tuning:
                query = queries[number].text
                found = await search.candidates([kb.id], query, DEPTH, with_documents=True, with_leads=True)
                lexical[number], vector[number], lead[number] = found.lexical, found.vector, found.lead
                query_vectors[number] = (await embedder.embed([query_text(embedder, query)]))[0]
            # The FTS5 tables, copied whole into memory for reweighted queries (one knowledge base:
            # no scoping needed), before the temporary directory goes.
            fts = sqlite3.connect(":memory:")
            with sqlite3.connect(str(make_url(url).database)) as source_db:
                source_db.backup(fts)
        finally:
            await engine.dispose()
    fts.execute(f"CREATE VIRTUAL TABLE temp.passage_words USING fts5vocab(main, {FTS_TABLE}, 'row')")
    chunks = {int(r[0]): (str(r[1]), int(r[2])) for r in rows}
    firsts = {str(r[1]): (str(r[3]), str(r[4])) for r in rows if int(r[2]) == 0}
    ids = np.array([int(r[0]) for r in rows], dtype=np.int64)
    matrix = np.vstack([from_bytes(bytes(r[5])) for r in rows])
    texts = {int(r[0]): contextual_text(str(r[3]), json.loads(r[6] or "[]"), str(r[4])) for r in rows}
    return Lab(queries, tuning, chunks, ids, matrix, firsts, lexical, vector, lead, query_vectors, fts, embedder, texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    run(parser.parse_args())


if __name__ == "__main__":
    main()
