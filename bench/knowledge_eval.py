"""Retrieval quality of knowledge search: recall@5 and MRR@10 for lexical, vector and hybrid.

The labelled set ships in ``bench/data/knowledge``: ``docs.jsonl`` (documents built from
text found offline: Python standard library docstrings, man pages, licence texts, and
Chinese documents written for the set; see ``build_corpus.py``) and ``queries.json``
(queries with the ids of the documents that answer them, their language — en, zh or
mixed — and a fixed ``split``: ``tuning`` or ``held-out``).

Every document goes through the real pipeline (``Ingestor.prepare`` with the local
multilingual model, then ``service.store_document``) into a fresh, migrated database;
every query goes through ``KnowledgeSearch.search`` in each mode. A query's ranking is the
order in which documents first appear among its top 50 passages. ``--tune`` chooses the
fusion's constant and vector weight on the tuning half (from the lexical and vector
lists of each query) and prints the held-out figures with them; the headline table is
held-out, with the module's constants.

    .venv/bin/python -m bench.knowledge_eval                     # SQLite, all three modes
    .venv/bin/python -m bench.knowledge_eval --tune              # choose the fusion on the tuning half
    .venv/bin/python -m bench.knowledge_eval --backend postgresql
    .venv/bin/python -m bench.knowledge_eval --lexical-only      # without the embeddings extra

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

from app.db import create_engine, create_session_factory
from app.knowledge import service
from app.knowledge.chunking import ChunkingOptions
from app.knowledge.embeddings import EmbeddingProvider, LocalEmbeddings
from app.knowledge.ingest import Ingestor
from app.knowledge.search import HYBRID, LEXICAL, LEXICAL_WEIGHT, RRF_K, VECTOR, VECTOR_WEIGHT, KnowledgeSearch, fuse
from app.migrate import upgrade_async
from app.principal import SYSTEM_PRINCIPAL
from app.spaces import service as spaces_service

DATA = Path(__file__).resolve().parent / "data" / "knowledge"
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


def load_set() -> tuple[list[dict[str, Any]], list[Query]]:
    with (DATA / "docs.jsonl").open(encoding="utf-8") as lines:
        documents = [json.loads(line) for line in lines]
    queries = [
        Query(item["query"], set(item["relevant"]), item["lang"], item["split"])
        for item in json.loads((DATA / "queries.json").read_text(encoding="utf-8"))
    ]
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


async def run(arguments: argparse.Namespace) -> None:
    documents, queries = load_set()
    embedder: EmbeddingProvider | None = None if arguments.lexical_only else LocalEmbeddings()
    options = ChunkingOptions(size=arguments.chunk_size, overlap=arguments.chunk_overlap)
    ingestor = Ingestor(options, embedder)
    modes = [LEXICAL] if embedder is None else [LEXICAL, VECTOR, HYBRID]

    print("# knowledge_eval — retrieval quality of knowledge search")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"backend: {arguments.backend}; chunks: {options.size} chars, overlap {options.overlap}")
    print(
        f"embeddings: {embedder.model_name if embedder else 'none (lexical only)'}; "
        f"RRF k = {RRF_K}, weights lexical {LEXICAL_WEIGHT} / vector {VECTOR_WEIGHT}"
    )
    languages = ", ".join(
        f"{sum(1 for query in queries if query.language == lang)} {lang}" for lang in ("en", "zh", "mixed")
    )
    print(
        f"set: {len(documents)} documents ({sum(1 for doc in documents if doc['lang'] == 'zh')} Chinese), "
        f"{len(queries)} queries ({languages}; {sum(1 for q in queries if q.split == 'held-out')} held-out); "
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
            async with session_factory() as session, session.begin():
                space = await spaces_service.create_space(session, SYSTEM_PRINCIPAL, "bench", "Bench")
                kb = await service.create_knowledge_base(
                    session, SYSTEM_PRINCIPAL, space_id=space.id, name="eval", label="Eval", description=None
                )
            started = time.perf_counter()
            chunks = 0
            for document in documents:
                data = service.check_document_input(
                    service.DocumentInput(kb.id, document["title"], document["text"], document["id"])
                )
                prepared = await ingestor.prepare(data)
                async with session_factory() as session, session.begin():
                    await service.store_document(session, SYSTEM_PRINCIPAL, prepared)
                chunks += len(prepared.chunks)
            elapsed = time.perf_counter() - started
            print(f"ingest: {chunks} chunks in {elapsed:.1f} s ({chunks / elapsed:.0f} chunks/s, embedding included)")
            print()

            search = KnowledgeSearch(session_factory, embedder, timeout_s=60)
            rankings: dict[str, dict[int, list[str]]] = {mode: {} for mode in modes}
            chunk_lists: dict[str, dict[int, list[tuple[int, float]]]] = {mode: {} for mode in modes}
            documents_of_chunk: dict[int, str] = {}
            for mode in modes:
                for number, query in enumerate(queries):
                    outcome = await search.search([kb.id], query.text, PASSAGES_PER_QUERY, mode=mode)
                    rankings[mode][number] = document_ranking(outcome.hits)
                    chunk_lists[mode][number] = [(hit.chunk_id, hit.score) for hit in outcome.hits]
                    documents_of_chunk.update({hit.chunk_id: str(hit.source) for hit in outcome.hits})
                    if arguments.verbose and mode == modes[-1] and query.split == "held-out":
                        print(
                            f"  [{mode}] {query.text!r}: {rankings[mode][number][:5]} (want {sorted(query.relevant)})"
                        )
        finally:
            await engine.dispose()

    def table(title: str, ranked: dict[str, dict[int, list[str]]], split: str) -> None:
        print(f"\n### {title}\n")
        print(
            f"| mode | recall@{RECALL_AT} all | MRR@{MRR_AT} all | recall@{RECALL_AT} en | recall@{RECALL_AT} zh "
            f"| recall@{RECALL_AT} mixed | queries (en / zh / mixed) |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        for mode, by_query in ranked.items():
            chosen = [(number, query) for number, query in enumerate(queries) if query.split == split]
            measured = {number: scores(by_query[number], query.relevant) for number, query in chosen}

            def mean(language: str | None, part: int, measured: dict[int, tuple[float, float]] = measured) -> float:
                values = [
                    value[part]
                    for number, value in measured.items()
                    if language is None or queries[number].language == language
                ]
                return sum(values) / len(values) if values else 0.0

            counts = " / ".join(
                str(sum(1 for _, query in chosen if query.language == lang)) for lang in ("en", "zh", "mixed")
            )
            print(
                f"| {mode} | {mean(None, 0):.3f} | {mean(None, 1):.3f} | {mean('en', 0):.3f} | {mean('zh', 0):.3f} "
                f"| {mean('mixed', 0):.3f} | {counts} |"
            )

    def fused(k: int, weight: float) -> dict[int, list[str]]:
        ranked: dict[int, list[str]] = {}
        for number in range(len(queries)):
            order = fuse(chunk_lists[LEXICAL][number], chunk_lists[VECTOR][number], k=k, vector_weight=weight)
            documents: list[str] = []
            for chunk_id, *_ in order:
                if documents_of_chunk[chunk_id] not in documents:
                    documents.append(documents_of_chunk[chunk_id])
            ranked[number] = documents
        return ranked

    if arguments.tune and VECTOR in modes:
        tuning = [(number, query) for number, query in enumerate(queries) if query.split == "tuning"]
        grid = [(k, weight) for k in (5, 10, 20, 30, 60) for weight in (0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)]

        def objective(choice: tuple[int, float]) -> float:
            ranked = fused(*choice)
            return sum(sum(scores(ranked[number], query.relevant)) for number, query in tuning)

        best = max(grid, key=objective)
        print(f"\nfusion chosen on the tuning half: RRF k = {best[0]}, vector weight {best[1]} (lexical 1.0)")
        table("held-out, fusion chosen on the tuning half", {"hybrid (tuned)": fused(*best)}, "held-out")

    table("held-out (headline)", rankings, "held-out")
    table("tuning", rankings, "tuning")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES, help="server for the throwaway database")
    parser.add_argument("--lexical-only", action="store_true", help="skip the local embedding model")
    parser.add_argument("--chunk-size", type=int, default=800)
    parser.add_argument("--chunk-overlap", type=int, default=100)
    parser.add_argument("--verbose", action="store_true", help="print each held-out query's top documents (last mode)")
    parser.add_argument(
        "--tune", action="store_true", help="choose the fusion's k and vector weight on the tuning half"
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
