"""Retrieval quality of knowledge search: recall@5 and MRR@10 for lexical, vector and hybrid.

The labelled set ships in ``bench/data/knowledge``: ``docs.jsonl`` (documents built from
text found offline: Python standard library docstrings, man pages, licence texts, and
Chinese documents written for the set; see ``build_corpus.py``) and ``queries.json``
(queries with the ids of the documents that answer them, their language — en, zh or
mixed — and a fixed ``split``: ``tuning`` or ``held-out``). ``fresh_queries.json`` holds the
``fresh`` split (``--split fresh``): 95 queries written later, from the documents as a user would
ask, by someone who had not read the search code; never used for tuning — nothing but
``--split fresh`` reads the file and the script refuses it with ``--tune``. Report its figures;
never change search to move them.

Every document goes through the real pipeline (``Ingestor.prepare`` with the local
multilingual model, then ``service.store_document``) into a fresh, migrated database;
every query goes through ``KnowledgeSearch.search`` in each mode. A query's ranking is the
order in which documents first appear among its top 50 passages; the headline is what a
caller of ``searchKnowledge(topK: 5)`` gets: the documents of its 5 passages (each
document's best passage first; ``--score-order``: the passages in score order). ``--tune`` chooses the
fusion's constant and vector weight on the tuning half (from the lexical and vector
lists of each query) and prints the held-out figures with them; the headline table is
held-out, with the module's constants.

    .venv/bin/python -m bench.knowledge_eval                     # SQLite, all three modes
    .venv/bin/python -m bench.knowledge_eval --tune              # choose the fusion on the tuning half
    .venv/bin/python -m bench.knowledge_eval --tune-leads        # the leads' weight, tuning half only
    .venv/bin/python -m bench.knowledge_eval --backend postgresql
    .venv/bin/python -m bench.knowledge_eval --lexical-only      # without the embeddings extra
    .venv/bin/python -m bench.knowledge_eval --split fresh       # the fresh split, measurement only

Needs the ``embeddings`` extra (``pip install -e '.[embeddings]'``) unless ``--lexical-only``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import create_engine, create_session_factory
from app.errors import DomainError
from app.knowledge import service
from app.knowledge.chunking import ChunkingOptions
from app.knowledge.embeddings import EmbeddingProvider, LocalEmbeddings
from app.knowledge.ingest import Ingestor, ToPrepare, ingest_many
from app.knowledge.models import KnowledgeBase
from app.knowledge.search import (
    DOCUMENT_DECAY,
    FUSION_DEPTH,
    HYBRID,
    LEAD_FOR_UNSPACED,
    LEAD_WEIGHT,
    LEAD_WEIGHT_LEXICAL,
    LEXICAL,
    LEXICAL_WEIGHT,
    RRF_K,
    VECTOR,
    VECTOR_WEIGHT,
    KnowledgeSearch,
    by_document,
    fuse,
    fuse_documents,
    uses_lead,
)
from app.knowledge.tokens import is_mostly_unspaced
from app.migrate import upgrade_async
from app.principal import SYSTEM_PRINCIPAL
from app.spaces import service as spaces_service
from bench.common import FRESH, add_split_argument, refuse_tuning_on_fresh

DATA = Path(__file__).resolve().parent / "data" / "knowledge"
# The options that tune or study a set: refused with --split fresh (see the docstring).
TUNING_OPTIONS = ("--tune", "--tune-leads")
PASSAGES_PER_QUERY = 50
RECALL_AT = 5
MRR_AT = 10
DEFAULT_POSTGRES = os.environ.get("QUIVER_BENCH_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")


@dataclass
class Query:
    text: str
    relevant: set[str]
    language: str
    split: str
    kind: str


def load_set(split: str = "held-out") -> tuple[list[dict[str, Any]], list[Query]]:
    """The documents and the queries: the tuning and held-out halves (``queries.json``), or, for
    ``split="fresh"``, only the fresh split (``fresh_queries.json``, which nothing else reads)."""
    with (DATA / "docs.jsonl").open(encoding="utf-8") as lines:
        documents = [json.loads(line) for line in lines]
    source = "fresh_queries.json" if split == FRESH else "queries.json"
    queries = [
        Query(item["query"], set(item["relevant"]), item["lang"], item["split"], item["kind"])
        for item in json.loads((DATA / source).read_text(encoding="utf-8"))
    ]
    if any((query.split == FRESH) != (split == FRESH) for query in queries):
        raise SystemExit(f"{source}: the fresh split and the tuned halves must stay in their own files")
    return documents, queries


@asynccontextmanager
async def throwaway_database(backend: str, postgres_url: str) -> AsyncIterator[str]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as directory:
            yield f"sqlite+aiosqlite:///{directory}/eval.db"
        return
    import secrets

    import asyncpg
    from sqlalchemy.engine import make_url

    admin = make_url(postgres_url)
    dsn = admin.set(drivername="postgresql").render_as_string(hide_password=False)
    name = f"quiver_bench_{os.getpid()}_{secrets.token_hex(3)}"
    connection = await asyncpg.connect(dsn)
    await connection.execute(f'CREATE DATABASE "{name}"')
    await connection.close()
    try:
        yield admin.set(database=name).render_as_string(hide_password=False)
    finally:
        connection = await asyncpg.connect(dsn)
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await connection.close()


async def bench_knowledge_base(session_factory: async_sessionmaker[AsyncSession], name: str) -> KnowledgeBase:
    """A space and a knowledge base, both called ``name``, in a throwaway database."""
    async with session_factory() as session, session.begin():
        space = await spaces_service.create_space(session, SYSTEM_PRINCIPAL, name, name.title())
        return await service.create_knowledge_base(
            session, SYSTEM_PRINCIPAL, space_id=space.id, name=name, label=name.title(), description=None
        )


def document_ranking(hits: list[Any]) -> list[str]:
    ranking: list[str] = []
    for hit in hits:
        if hit.source not in ranking:
            ranking.append(hit.source)
    return ranking


def scores(ranking: list[str], relevant: set[str]) -> tuple[float, float]:
    recall = len(relevant & set(ranking[:RECALL_AT])) / len(relevant)
    reciprocal = next((1 / rank for rank, doc in enumerate(ranking[:MRR_AT], start=1) if doc in relevant), 0.0)
    return recall, reciprocal


def use_cjk_trigrams() -> None:
    """For ``--cjk-ngrams 23``: index and query runs of Chinese (Japanese…) characters by their
    character 3-grams as well as their 2-grams (a measurement; the app indexes 2-grams)."""
    from app.knowledge import tokens

    def bigrams_and_trigrams(run: str) -> list[str]:
        return [run[i : i + 2] for i in range(len(run) - 1)] + [run[i : i + 3] for i in range(len(run) - 2)]

    tokens._bigrams = bigrams_and_trigrams


async def run(arguments: argparse.Namespace) -> None:
    if arguments.cjk_ngrams == "23":
        use_cjk_trigrams()
    split = arguments.split
    documents, queries = load_set(split)
    embedder: EmbeddingProvider | None = (
        None if arguments.lexical_only else LocalEmbeddings(passage_chars=arguments.passage_chars)
    )
    options = ChunkingOptions(size=arguments.chunk_size, overlap=arguments.chunk_overlap)
    ingestor = Ingestor(options, embedder)
    modes = [LEXICAL] if embedder is None else [LEXICAL, VECTOR, HYBRID]

    print("# knowledge_eval — retrieval quality of knowledge search")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(
        f"backend: {arguments.backend}; chunks: {options.size} chars, overlap {options.overlap}; "
        f"CJK character {' and '.join(arguments.cjk_ngrams)}-grams"
    )
    print(
        f"embeddings: {embedder.model_name if embedder else 'none (lexical only)'}; "
        f"passages embedded from their first {getattr(embedder, 'passage_chars', 0) or 'all'} characters; "
        f"RRF k = {RRF_K}, weights lexical {LEXICAL_WEIGHT} / vector {VECTOR_WEIGHT}, depth {FUSION_DEPTH}; "
        f"documents (searchKnowledge): passages' scores decayed by {DOCUMENT_DECAY}, the same fusion, "
        f"documents' leads weight {LEAD_WEIGHT} ({LEAD_WEIGHT_LEXICAL} without vectors; "
        f"{'every query' if LEAD_FOR_UNSPACED else 'queries not mostly CJK'})"
    )
    languages = ", ".join(
        f"{sum(1 for query in queries if query.language == lang)} {lang}" for lang in ("en", "zh", "mixed")
    )
    print(
        f"set: {len(documents)} documents ({sum(1 for doc in documents if doc['lang'] == 'zh')} Chinese), "
        f"{len(queries)} queries ({languages}; {sum(1 for q in queries if q.split == split)} {split}); "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"metrics: document recall@{RECALL_AT} and MRR@{MRR_AT}; a query's document ranking is the order of "
        f"first appearance among its top {PASSAGES_PER_QUERY} passages"
    )

    async with throwaway_database(arguments.backend, arguments.postgres_url) as url:
        await upgrade_async(url)
        engine = create_engine(url)
        session_factory = create_session_factory(engine)
        try:
            kb = await bench_knowledge_base(session_factory, "eval")
            started = time.perf_counter()
            chunks = 0
            source_of: dict[str, str] = {}
            items = [
                ToPrepare(
                    service.check_document_input(
                        service.DocumentInput(kb.id, document["title"], document["text"], document["id"])
                    )
                )
                for document in documents
            ]
            async for item, stored in ingest_many(session_factory, SYSTEM_PRINCIPAL, ingestor, items):
                if isinstance(stored, DomainError):
                    raise SystemExit(f"{item.data.title}: {stored.message}")
                chunks += stored.document.chunk_count
                source_of[stored.document.id] = str(stored.document.source)
            elapsed = time.perf_counter() - started
            print(f"ingest: {chunks} chunks in {elapsed:.1f} s ({chunks / elapsed:.0f} chunks/s, embedding included)")
            if arguments.backend == "postgresql":
                # What autovacuum does as the table grows: the lexical query reads these word statistics.
                async with session_factory() as session, session.begin():
                    await session.execute(text("ANALYZE chunk"))
            print()

            search = KnowledgeSearch(session_factory, embedder, timeout_s=60)
            if arguments.tune_leads:
                await tune_leads(search, kb.id, queries, source_of)
                return
            rankings: dict[str, dict[int, list[str]]] = {mode: {} for mode in modes}
            # What searchKnowledge(topK: 5) returns: the documents of its 5 passages.
            api_rankings: dict[str, dict[int, list[str]]] = {mode: {} for mode in modes}
            chunk_lists: dict[str, dict[int, list[tuple[int, float]]]] = {mode: {} for mode in modes}
            documents_of_chunk: dict[int, str] = {}
            # Raw candidate lists as searchKnowledge(topK: 5) sees them, for --tune's document-level grid.
            raw: dict[int, tuple[list[tuple[int, float]], list[tuple[int, float]], dict[int, str]]] = {}
            for mode in modes:
                for number, query in enumerate(queries):
                    outcome = await search.search([kb.id], query.text, PASSAGES_PER_QUERY, mode=mode)
                    rankings[mode][number] = document_ranking(outcome.hits)
                    chunk_lists[mode][number] = [(hit.chunk_id, hit.score) for hit in outcome.hits]
                    documents_of_chunk.update({hit.chunk_id: str(hit.source) for hit in outcome.hits})
                    api = await search.search(
                        [kb.id], query.text, RECALL_AT, mode=mode, documents_first=not arguments.score_order
                    )
                    api_rankings[mode][number] = document_ranking(api.hits)
                    if arguments.tune and mode == HYBRID:
                        found = await search.candidates([kb.id], query.text, 40, with_documents=True)
                        of = found.document_of
                        raw[number] = (found.lexical, found.vector, {c: source_of[d] for c, d in of.items()})
                    if arguments.verbose and mode == modes[-1] and query.split == split:
                        print(
                            f"  [{mode}] {query.text!r}: {rankings[mode][number][:5]} (want {sorted(query.relevant)})"
                        )
        finally:
            await engine.dispose()

    report(queries, rankings, chunk_lists, documents_of_chunk, tune=arguments.tune and VECTOR in modes, split=split)
    if arguments.tune and raw:
        tune_documents(queries, raw)
    order = "score order" if arguments.score_order else "each document's best passage first"
    table(
        f"{split}, the documents of searchKnowledge(topK: {RECALL_AT})'s passages ({order}) (headline)",
        queries,
        api_rankings,
        split,
    )
    gains(queries, api_rankings, split)
    if split == FRESH:
        return
    table(
        f"tuning, the documents of searchKnowledge(topK: {RECALL_AT})'s passages ({order})",
        queries,
        api_rankings,
        "tuning",
    )


LANGUAGES = ("en", "zh", "mixed")
KINDS = ("direct", "long", "colloquial", "cross-lingual", "mixed", "near-miss")


def mean_scores(queries: list[Query], ranked: dict[int, list[str]], numbers: list[int]) -> tuple[float, float, int]:
    """Mean recall@5 and MRR@10 over ``numbers`` (and how many queries that is)."""
    if not numbers:
        return 0.0, 0.0, 0
    measured = [scores(ranked[number], queries[number].relevant) for number in numbers]
    return (
        sum(recall for recall, _ in measured) / len(measured),
        sum(reciprocal for _, reciprocal in measured) / len(measured),
        len(measured),
    )


def table(title: str, queries: list[Query], ranked_by_mode: dict[str, dict[int, list[str]]], split: str) -> None:
    """recall@5 per mode: overall (with MRR@10), per language and per kind; the query counts below."""
    chosen = [number for number, query in enumerate(queries) if query.split == split]
    groups = [("all", chosen)]
    groups += [(lang, [n for n in chosen if queries[n].language == lang]) for lang in LANGUAGES]
    groups += [(kind, [n for n in chosen if queries[n].kind == kind]) for kind in KINDS]
    print(f"\n### {title}\n")
    print("| mode | MRR@10 all | " + " | ".join(f"r@{RECALL_AT} {name}" for name, _ in groups) + " |")
    print("|---|---:|" + "---:|" * len(groups))
    for mode, ranked in ranked_by_mode.items():
        cells = [f"{mean_scores(queries, ranked, numbers)[0]:.3f}" for _, numbers in groups]
        print(f"| {mode} | {mean_scores(queries, ranked, chosen)[1]:.3f} | " + " | ".join(cells) + " |")
    print("| queries | | " + " | ".join(str(len(numbers)) for _, numbers in groups) + " |")


def report(
    queries: list[Query],
    rankings: dict[str, dict[int, list[str]]],
    chunk_lists: dict[str, dict[int, list[tuple[int, float]]]],
    documents_of_chunk: dict[int, str],
    *,
    tune: bool,
    split: str = "held-out",
) -> None:
    def fused(k: int, weight: float, depth: int, numbers: list[int]) -> dict[int, list[str]]:
        ranked: dict[int, list[str]] = {}
        for number in numbers:
            order = fuse(
                chunk_lists[LEXICAL][number], chunk_lists[VECTOR][number], k=k, vector_weight=weight, depth=depth
            )
            documents: list[str] = []
            for chunk_id, *_ in order:
                if documents_of_chunk[chunk_id] not in documents:
                    documents.append(documents_of_chunk[chunk_id])
            ranked[number] = documents
        return ranked

    def choose(numbers: list[int]) -> tuple[int, float, int]:
        def objective(choice: tuple[int, float, int]) -> float:
            ranked = fused(*choice, numbers)
            return sum(sum(scores(ranked[number], queries[number].relevant)) for number in numbers)

        # max() keeps the first of equal choices: the grid runs from small k, weight and depth up.
        return max(TUNING_GRID, key=objective)

    if tune:
        every = list(range(len(queries)))
        tuning = [number for number in every if queries[number].split == "tuning"]
        single = choose(tuning)
        unspaced = [number for number in tuning if is_mostly_unspaced(queries[number].text)]
        spaced = [number for number in tuning if not is_mostly_unspaced(queries[number].text)]
        per_script = (choose(spaced), choose(unspaced))
        print(
            f"\nfusion chosen on the tuning half ({len(tuning)} queries; grid: RRF k x vector weight x depth, "
            f"{len(TUNING_GRID)} choices, objective recall@{RECALL_AT} + MRR@{MRR_AT}):"
        )
        print(f"- one setting for every query: k = {single[0]}, vector weight {single[1]}, depth {single[2]}")
        print(
            f"- by script: spaced queries k = {per_script[0][0]}, weight {per_script[0][1]}, depth {per_script[0][2]} "
            f"({len(spaced)} tuning queries); mostly CJK queries k = {per_script[1][0]}, weight {per_script[1][1]}, "
            f"depth {per_script[1][2]} ({len(unspaced)})"
        )
        by_script = {
            number: ranking
            for choice, chosen in ((per_script[0], False), (per_script[1], True))
            for number, ranking in fused(
                *choice, [n for n in every if is_mostly_unspaced(queries[n].text) == chosen]
            ).items()
        }
        table(
            "held-out, fusion chosen on the tuning half (offline fusion of the lexical and vector lists)",
            queries,
            {
                "hybrid, constants in search.py": fused(RRF_K, VECTOR_WEIGHT, FUSION_DEPTH, every),
                "hybrid, one tuned setting": fused(*single, every),
                "hybrid, tuned by script": by_script,
            },
            "held-out",
        )

    table(
        f"{split}, documents in order of first appearance among the top {PASSAGES_PER_QUERY} passages",
        queries,
        rankings,
        split,
    )
    gains(queries, rankings, split)
    if split != FRESH:
        table(f"tuning, documents among the top {PASSAGES_PER_QUERY} passages", queries, rankings, "tuning")


DECAYS = (0.0, 0.1, 0.2, 0.3, 0.35, 0.5)
DOCUMENT_GRID = [
    (decay, k, weight, depth)
    for decay in (0.0, 0.2, 0.35, 0.5)
    for k in (1, 2, 5, 10, 20, 60)
    for weight in (0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
    for depth in (5, 10, 20, 40)
]


def tune_documents(
    queries: list[Query],
    raw: dict[int, tuple[list[tuple[int, float]], list[tuple[int, float]], dict[int, str]]],
) -> None:
    """searchKnowledge's document-level fusion (``fuse_documents``) chosen on the tuning half from
    each query's raw lexical and vector candidates (40 of each, as for topK 5): the decay, with the
    passages' fusion constants (what search.py does), and, for comparison, decay, k, vector weight
    and depth together (576 choices); held-out figures of both printed."""

    def ranked(choice: tuple[float, int, float, int], numbers: list[int]) -> dict[int, list[str]]:
        decay, k, weight, depth = choice
        out: dict[int, list[str]] = {}
        for number in numbers:
            lexical, vector, source = raw[number]
            documents = fuse_documents(lexical, vector, source, decay=decay, k=k, vector_weight=weight, depth=depth)
            # As KnowledgeSearch orders them: equal document scores keep the order of their best passages.
            order = by_document(fuse(lexical, vector), documents, source)
            out[number] = list(dict.fromkeys(source[chunk_id] for chunk_id, *_ in order if chunk_id in source))
        return out

    def objective(choice: tuple[float, int, float, int], numbers: list[int]) -> float:
        order = ranked(choice, numbers)
        return sum(sum(scores(order[number], queries[number].relevant)) for number in numbers)

    tuning = [number for number in raw if queries[number].split == "tuning"]
    decays = [(decay, RRF_K, VECTOR_WEIGHT, FUSION_DEPTH) for decay in DECAYS]
    by_decay = {choice: objective(choice, tuning) for choice in decays}
    decay = max(decays, key=by_decay.__getitem__)
    grid = max(DOCUMENT_GRID, key=lambda choice: objective(choice, tuning))
    print(
        "\ndocument-level fusion on the tuning half (objective recall@5 + MRR@10): decay "
        + ", ".join(f"{choice[0]}: {value:.2f}" for choice, value in by_decay.items())
        + f" with the passages' k = {RRF_K}, vector weight {VECTOR_WEIGHT}, depth {FUSION_DEPTH} -> decay {decay[0]}; "
        f"all four chosen together ({len(DOCUMENT_GRID)} choices): decay {grid[0]}, k = {grid[1]}, vector weight "
        f"{grid[2]}, depth {grid[3]} (objective {objective(grid, tuning):.2f})"
    )
    every = sorted(raw)
    table(
        "held-out, documents ranked by document-level fusion (offline, from the raw candidates)",
        queries,
        {
            f"decay {DOCUMENT_DECAY} (search.py), passage constants": ranked(
                (DOCUMENT_DECAY, RRF_K, VECTOR_WEIGHT, FUSION_DEPTH), every
            ),
            f"decay {decay[0]} (tuned), passage constants": ranked(decay, every),
            f"all four tuned: {grid}": ranked(grid, every),
        },
        "held-out",
    )


LEAD_GRID = [
    (weight, for_unspaced) for for_unspaced in (False, True) for weight in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
]


async def tune_leads(search: KnowledgeSearch, kb_id: str, queries: list[Query], source_of: dict[str, str]) -> None:
    """The documents' leads as a third list of searchKnowledge's document-level fusion: its weight,
    and whether mostly CJK queries use it, chosen on the tuning half from each tuning query's raw
    lexical, vector and lead candidates (40 of each, as for topK 5), through search.py's own
    ``fuse_documents`` / ``by_document``. Reads and prints the tuning half only."""
    tuning = [number for number, query in enumerate(queries) if query.split == "tuning"]
    raw: dict[int, Any] = {}
    for number in tuning:
        found = await search.candidates([kb_id], queries[number].text, 40, with_documents=True, with_leads=True)
        raw[number] = (found.lexical, found.vector, found.lead, {c: source_of[d] for c, d in found.document_of.items()})

    def ranked(choice: tuple[float, bool], number: int, mode: str) -> list[str]:
        weight, for_unspaced = choice
        lexical, vector, lead, source = raw[number]
        vector = [] if mode == LEXICAL else vector
        lead = lead if uses_lead(queries[number].text, for_unspaced=for_unspaced, weight=weight) else []
        documents = fuse_documents(lexical, vector, source, lead=lead, lead_weight=weight)
        order = by_document(fuse(lexical, vector, lead=lead, lead_weight=weight), documents, source)
        return list(dict.fromkeys(source[chunk_id] for chunk_id, *_ in order if chunk_id in source))

    groups = [("all", tuning)] + [(lang, [n for n in tuning if queries[n].language == lang]) for lang in LANGUAGES]
    groups += [(kind, [n for n in tuning if queries[n].kind == kind]) for kind in KINDS]
    for mode in (HYBRID, LEXICAL):
        print(f"\n### tuning half, {mode}: documents' leads as a third list (searchKnowledge topK 5)\n")
        print("| lead weight | CJK queries too | objective | " + " | ".join(f"r@5 {g}" for g, _ in groups) + " |")
        print("|---:|---|---:|" + "---:|" * len(groups))
        objectives = {}
        for choice in LEAD_GRID:
            orders = {number: ranked(choice, number, mode) for number in tuning}
            objectives[choice] = sum(sum(scores(orders[n], queries[n].relevant)) for n in tuning)
            cells = [f"{mean_scores(queries, orders, numbers)[0]:.3f}" for _, numbers in groups]
            print(
                f"| {choice[0]} | {'yes' if choice[1] else 'no'} | {objectives[choice]:.2f} | "
                + " | ".join(cells)
                + " |"
            )
        best = max(LEAD_GRID, key=objectives.__getitem__)
        print(
            f"\n{mode}: chosen lead weight {best[0]}, CJK queries {'too' if best[1] else 'not'} "
            f"(objective {objectives[best]:.2f})"
        )


def gains(queries: list[Query], rankings: dict[str, dict[int, list[str]]], split: str = "held-out") -> None:
    if LEXICAL in rankings and HYBRID in rankings:
        held_out = [number for number, query in enumerate(queries) if query.split == split]
        for name, numbers in [("all", held_out)] + [
            (lang, [n for n in held_out if queries[n].language == lang]) for lang in LANGUAGES
        ]:
            gain = (
                mean_scores(queries, rankings[HYBRID], numbers)[0] - mean_scores(queries, rankings[LEXICAL], numbers)[0]
            )
            print(f"hybrid - lexical, {split} {name}: {100 * gain:+.1f} points")


TUNING_GRID = [
    (k, weight, depth)
    for k in (1, 2, 5, 10, 20, 60)
    for weight in (0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
    for depth in (10, 20, 30, 50)
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES, help="server for the throwaway database")
    parser.add_argument("--lexical-only", action="store_true", help="skip the local embedding model")
    parser.add_argument("--chunk-size", type=int, default=800)
    parser.add_argument("--chunk-overlap", type=int, default=100)
    parser.add_argument(
        "--cjk-ngrams", choices=["2", "23"], default="2", help="character n-grams of CJK runs (measurement)"
    )
    parser.add_argument(
        "--passage-chars", type=int, default=350, help="characters of a passage the local model embeds (0: all)"
    )
    parser.add_argument(
        "--score-order",
        action="store_true",
        help="searchKnowledge's passages in score order (as before #17's documents-first order), for comparison",
    )
    parser.add_argument("--verbose", action="store_true", help="print each held-out query's top documents (last mode)")
    parser.add_argument(
        "--tune", action="store_true", help="choose the fusion's k and vector weight on the tuning half"
    )
    parser.add_argument(
        "--tune-leads",
        action="store_true",
        help="choose the documents' leads' weight on the tuning half (prints nothing of the held-out half)",
    )
    add_split_argument(parser, TUNING_OPTIONS)
    arguments = parser.parse_args()
    refuse_tuning_on_fresh(parser, arguments, TUNING_OPTIONS)
    asyncio.run(run(arguments))


if __name__ == "__main__":
    main()
