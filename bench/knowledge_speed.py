"""Speed of knowledge bases: ingest rate (chunks/s) and search latency (p50/p95) at 10k and 100k chunks.

Method. A fresh, migrated database per backend (a SQLite file; a throwaway PostgreSQL
database). Synthetic Markdown documents of 10 sections, one chunk each (~700
characters), words drawn with their real frequencies from the labelled set of
``knowledge_eval.py`` (5% of sections Chinese). Documents go through the real
pipeline: ``Ingestor.prepare`` (chunking, lexical tokens) then
``service.store_document`` in one transaction per document. Each chunk also stores
a vector (512 dimensions) under the local model's name, so hybrid search works on as
many vectors as chunks; the vectors are random (model inference at this scale would
take hours on 2 cores): inference speed is measured on its own, on real text.

Searches: random 2-5 word queries (10% Chinese) through ``KnowledgeSearch.search``,
top 5, lexical and hybrid interleaved; hybrid embeds each query with the real model
when the ``embeddings`` extra is installed. The first hybrid search after a write
loads the vectors into memory: reported apart ("cold"), not in the percentiles.
``--documents-first``: every search as ``searchKnowledge`` makes it (documents ranked by
document-level fusion: the candidates' documents looked up and the documents' leads searched).

    .venv/bin/python -m bench.knowledge_speed                 # 10k and 100k chunks, SQLite and PostgreSQL
    .venv/bin/python -m bench.knowledge_speed --quick         # 2k and 5k chunks, 40 queries
    .venv/bin/python -m bench.knowledge_speed --backends sqlite --sizes 10000
    .venv/bin/python -m bench.knowledge_speed --backends postgresql --sizes 100000 --documents-first
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import platform
import random
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import create_engine, create_session_factory
from app.errors import DomainError
from app.knowledge import repository, service
from app.knowledge.chunking import ChunkingOptions
from app.knowledge.embeddings import (
    LOCAL_DIMENSIONS,
    LOCAL_MODEL_NAME,
    EmbeddingProvider,
    Matrix,
    normalise_rows,
    to_bytes,
)
from app.knowledge.ingest import Ingestor, ToPrepare, ingest_many, reembed
from app.knowledge.search import HYBRID, LEXICAL, KnowledgeSearch
from app.migrate import upgrade_async
from app.principal import SYSTEM_PRINCIPAL
from bench.knowledge_eval import DATA, DEFAULT_POSTGRES, bench_knowledge_base, throwaway_database

SECTIONS_PER_DOCUMENT = 10
WORDS_PER_SECTION = 105
TOP_K = 5
Row = tuple[int, float]


class RandomEmbeddings:
    """Random unit vectors under the local model's name: the cost of vector search without inference."""

    model_name = LOCAL_MODEL_NAME
    is_english_only = True

    def __init__(self, seed: int) -> None:
        self.random = np.random.default_rng(seed)

    async def embed(self, texts: Sequence[str]) -> Matrix:
        return normalise_rows(self.random.standard_normal((len(texts), LOCAL_DIMENSIONS), dtype=np.float32))


class TextMaker:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        words: Counter[str] = Counter()
        chinese: list[str] = []
        with (DATA / "docs.jsonl").open(encoding="utf-8") as lines:
            for line in lines:
                document = json.loads(line)
                if document["lang"] == "zh":
                    chinese.extend(part for part in re.split("[。\n]", document["text"]) if len(part) > 8)
                else:
                    words.update(re.findall(r"[a-z]{3,14}", document["text"].lower()))
        self.vocabulary = list(words)
        self.weights = [words[word] for word in self.vocabulary]
        self.chinese = chinese
        # Queries use mid-frequency words, as people's queries do (not "the", not typos).
        ranked = [word for word, _ in words.most_common()]
        self.query_words = ranked[50:5000]

    def section(self) -> str:
        if self.random.random() < 0.05:
            return "。".join(self.random.sample(self.chinese, 6)) + "。"
        words = self.random.choices(self.vocabulary, self.weights, k=WORDS_PER_SECTION)
        return " ".join(words).capitalize() + "."

    def document(self, number: int) -> str:
        sections = [f"## Section {index}\n\n{self.section()}" for index in range(SECTIONS_PER_DOCUMENT)]
        return f"# Document {number}\n\n" + "\n\n".join(sections)

    def query(self) -> str:
        if self.random.random() < 0.1:
            sentence = self.random.choice(self.chinese)
            start = self.random.randrange(max(1, len(sentence) - 4))
            return sentence[start : start + self.random.randint(2, 4)]
        return " ".join(self.random.sample(self.query_words, self.random.randint(2, 5)))

    def long_query(self) -> str:
        """8-12 words: about the length of real requests (~88 characters), most words common."""
        if self.random.random() < 0.1:
            return self.random.choice(self.chinese)[:30]
        return " ".join(self.random.sample(self.query_words, self.random.randint(8, 12)))


@contextlib.contextmanager
def _lexical_query(function: Callable[..., Any] | None) -> Iterator[None]:
    """Search with ``function`` in place of ``repository.lexical_candidates`` (None: the real one)."""
    if function is None:
        yield
        return
    real = repository.lexical_candidates
    repository.lexical_candidates = function
    try:
        yield
    finally:
        repository.lexical_candidates = real


async def analyze(session_factory: async_sessionmaker[AsyncSession], backend: str) -> None:
    """What autovacuum would have done by now on PostgreSQL (the word statistics the query reads)."""
    if backend == "postgresql":
        async with session_factory() as session, session.begin():
            await session.execute(text("ANALYZE chunk"))


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _tsquery(tokens: Sequence[str], operator: str) -> str:
    return operator.join("'" + token.replace("\\", "").replace("'", "''") + "'" for token in tokens)


async def lexical_before_17(session: AsyncSession, kb_id: str, tokens: Sequence[str], limit: int) -> list[Row]:
    """PostgreSQL's lexical query before #17: ts_rank over every chunk matching an OR of the words."""
    statement = text(
        "SELECT c.id, ts_rank(c.search_vector, q, 1) AS score FROM chunk AS c, to_tsquery('simple', :query) AS q "
        "WHERE c.knowledge_base_id = :kb_id AND c.search_vector @@ q ORDER BY score DESC, c.id LIMIT :limit"
    )
    parameters = {"query": _tsquery(tokens, " | "), "kb_id": kb_id, "limit": limit}
    return [(int(chunk_id), float(score)) for chunk_id, score in (await session.execute(statement, parameters)).all()]


async def lexical_and_then_or(session: AsyncSession, kb_id: str, tokens: Sequence[str], limit: int) -> list[Row]:
    """The query of the first #17 change: the chunks holding every word ranked first, then (when
    too few) ts_rank over the first 2,000 chunks holding any word, in the order the index gives."""

    async def ranked(query: str, wanted: int) -> list[Row]:
        statement = text(
            "SELECT m.id, ts_rank(m.search_vector, q, 1) AS score FROM (SELECT c.id, c.search_vector "
            "FROM chunk AS c, to_tsquery('simple', :query) AS q WHERE c.knowledge_base_id = :kb_id "
            "AND c.search_vector @@ q LIMIT 2000) AS m, to_tsquery('simple', :query) AS q "
            "ORDER BY score DESC, m.id LIMIT :limit"
        )
        parameters = {"query": query, "kb_id": kb_id, "limit": wanted}
        return [
            (int(chunk_id), float(score)) for chunk_id, score in (await session.execute(statement, parameters)).all()
        ]

    found = await ranked(_tsquery(tokens, " & "), limit)
    if len(found) < limit and len(tokens) > 1:
        seen = {chunk_id for chunk_id, _ in found}
        extra = await ranked(_tsquery(tokens, " | "), limit + len(found))
        found += [(chunk_id, score) for chunk_id, score in extra if chunk_id not in seen][: limit - len(found)]
    return found


#: PostgreSQL lexical variants measured side by side: the current repository function and two baselines.
POSTGRES_BASELINES = {"lexical, before #17": lexical_before_17, "lexical, AND then OR": lexical_and_then_or}


async def measure_inference(sample: list[str]) -> str:
    """The local model's rate on passages as ingest embeds them, whole and cut to the
    default QUIVER_EMBEDDINGS_PASSAGE_CHARS, side by side (alternating halves of the sample)."""
    try:
        from app.knowledge.embeddings import LocalEmbeddings, passage_texts

        whole, cut = LocalEmbeddings(passage_chars=0), LocalEmbeddings()
        await whole.embed(sample[:8])  # load the model first
    except Exception as error:
        return f"local model not available ({error}); install the embeddings extra"
    spent = {"whole": 0.0, "cut": 0.0}
    half = max(1, len(sample) // 4)
    for start in range(0, len(sample), half):
        part = sample[start : start + half]
        for name, model in (("whole", whole), ("cut", cut)):
            started = time.perf_counter()
            await model.embed(passage_texts(model, part))
            spent[name] += time.perf_counter() - started
    return (
        f"{len(sample) / spent['whole']:.0f} chunks/s whole, {len(sample) / spent['cut']:.0f} chunks/s "
        f"cut to {cut.passage_chars} characters ({len(sample)} chunks of ~700 chars each way, "
        f"{whole.threads} worker threads)"
    )


async def measure_model_ingest(count: int) -> str:
    """Documents of the labelled set into a SQLite database with the local model, end to end
    (chunking, embedding, writing), two ways side by side on alternating quarters of the
    documents: one document at a time (prepare, then write, as before) and ``ingest_many``
    (documents prepared in groups, one embedding call per group, the next group embedded
    while the previous one is written)."""
    try:
        from app.knowledge.embeddings import LocalEmbeddings

        model = LocalEmbeddings()
        await model.embed(["load the model"])
    except Exception as error:
        return f"local model not available ({error}); install the embeddings extra"
    with (DATA / "docs.jsonl").open(encoding="utf-8") as lines:
        documents = [json.loads(line) for line in lines][:count]
    ingestor = Ingestor(ChunkingOptions(size=800, overlap=100), model)
    spent = {"one at a time": 0.0, "ingest_many": 0.0}
    written = {"one at a time": 0, "ingest_many": 0}
    async with throwaway_database("sqlite", "") as url:
        await upgrade_async(url)
        engine = create_engine(url)
        session_factory = create_session_factory(engine)
        try:
            kb = await bench_knowledge_base(session_factory, "ingest")
            quarter = max(1, len(documents) // 4)
            for number, start in enumerate(range(0, len(documents), quarter)):
                part = [
                    service.check_document_input(
                        service.DocumentInput(kb.id, document["title"], document["text"], document["id"])
                    )
                    for document in documents[start : start + quarter]
                ]
                way = ("one at a time", "ingest_many", "ingest_many", "one at a time")[number % 4]
                started = time.perf_counter()
                if way == "one at a time":
                    for data in part:
                        prepared = await ingestor.prepare(data)
                        async with session_factory() as session, session.begin():
                            await service.store_document(session, SYSTEM_PRINCIPAL, prepared)
                        written[way] += len(prepared.chunks)
                else:
                    async for _, stored in ingest_many(
                        session_factory, SYSTEM_PRINCIPAL, ingestor, [ToPrepare(data) for data in part]
                    ):
                        assert not isinstance(stored, DomainError), stored
                        written[way] += stored.document.chunk_count
                spent[way] += time.perf_counter() - started
            # A model change: every stored vector labelled as another model's, then ``reembed``
            # (what ``quiver kb reembed`` runs) gives them vectors of this one again.
            async with session_factory() as session, session.begin():
                await session.execute(text("UPDATE chunk SET embedding_model = 'bench:previous-model'"))
            started = time.perf_counter()
            reembedded = await reembed(session_factory, model, [kb.id])
            spent["reembed"] = time.perf_counter() - started
            written["reembed"] = reembedded.done
        finally:
            await engine.dispose()
    return (
        ", ".join(
            f"{way} {written[way] / spent[way]:.0f} chunks/s ({written[way]} chunks)" for way in spent if spent[way]
        )
        + f" ({len(documents)} documents, {model.threads} worker threads, load average {os.getloadavg()[0]:.2f})"
    )


async def query_embedder() -> EmbeddingProvider:
    try:
        from app.knowledge.embeddings import LocalEmbeddings

        model = LocalEmbeddings()
        await model.embed(["warm up"])
        return model
    except Exception:
        return RandomEmbeddings(7)


async def run_backend(backend: str, arguments: argparse.Namespace, embedder: EmbeddingProvider) -> None:
    maker = TextMaker(arguments.seed)
    options = ChunkingOptions(size=800, overlap=100)
    ingestor = Ingestor(options, None)
    vectors = RandomEmbeddings(arguments.seed)
    documents_first = arguments.documents_first
    async with throwaway_database(backend, arguments.postgres_url) as url:
        await upgrade_async(url)
        engine = create_engine(url)
        session_factory = create_session_factory(engine)
        try:
            kb = await bench_knowledge_base(session_factory, "bench")
            search = KnowledgeSearch(session_factory, embedder, timeout_s=120)
            chunks = 0
            documents = 0
            for size in arguments.sizes:
                started = time.perf_counter()
                added = 0
                while chunks < size:
                    data = service.DocumentInput(
                        kb.id, f"Document {documents}", maker.document(documents), f"doc-{documents}"
                    )
                    prepared = await ingestor.prepare(service.check_document_input(data))
                    matrix = await vectors.embed([chunk.text for chunk in prepared.chunks])
                    prepared = dataclasses.replace(
                        prepared, vectors=[to_bytes(row) for row in matrix], embedding_model=LOCAL_MODEL_NAME
                    )
                    async with session_factory() as session, session.begin():
                        await service.store_document(session, SYSTEM_PRINCIPAL, prepared)
                    chunks += len(prepared.chunks)
                    added += len(prepared.chunks)
                    documents += 1
                elapsed = time.perf_counter() - started
                rate = f"{added / elapsed:,.0f} chunks/s"
                print(f"| {backend} | {chunks:,} | ingest | {rate} | {added:,} chunks in {elapsed:.1f} s | |")

                await analyze(session_factory, backend)
                queries = [maker.query() for _ in range(arguments.queries)]
                long_queries = [maker.long_query() for _ in range(arguments.queries)]
                cold_started = time.perf_counter()
                await search.search([kb.id], queries[0], TOP_K, mode=HYBRID, documents_first=documents_first)
                cold = (time.perf_counter() - cold_started) * 1000
                variants: list[tuple[str, str, Callable[..., Any] | None]] = [
                    ("lexical", LEXICAL, None),
                    ("hybrid", HYBRID, None),
                ]
                if backend == "postgresql":
                    variants += [(name, LEXICAL, function) for name, function in POSTGRES_BASELINES.items()]
                for query in queries[: arguments.warmup]:
                    await search.search([kb.id], query, TOP_K, mode=LEXICAL, documents_first=documents_first)
                load_before = os.getloadavg()[0]
                for kind, chosen in (("2-5 words", queries), ("8-12 words", long_queries)):
                    timings: dict[str, list[float]] = {name: [] for name, _, _ in variants}
                    hit_counts: dict[str, list[int]] = {name: [] for name, _, _ in variants}
                    for number, query in enumerate(chosen):
                        # The starting variant rotates: none always runs first.
                        for name, mode, function in (
                            variants[number % len(variants) :] + variants[: number % len(variants)]
                        ):
                            with _lexical_query(function):
                                begun = time.perf_counter()
                                outcome = await search.search(
                                    [kb.id], query, TOP_K, mode=mode, documents_first=documents_first
                                )
                                timings[name].append((time.perf_counter() - begun) * 1000)
                            hit_counts[name].append(len(outcome.hits))
                    for name, _, _ in variants:
                        values = timings[name]
                        note = f"cold first search {cold:.0f} ms (loads {chunks:,} vectors)" if name == "hybrid" else ""
                        print(
                            f"| {backend} | {chunks:,} | search {name}, {kind} | "
                            f"p50 {statistics.median(values):.1f} ms, "
                            f"p95 {percentile(values, 0.95):.1f} ms | mean {statistics.fmean(values):.1f} ms, "
                            f"{statistics.fmean(hit_counts[name]):.1f} hits/query | {note} |"
                        )
                load_after = os.getloadavg()[0]
                print(
                    f"| {backend} | {chunks:,} | load average | {load_before:.2f} before, {load_after:.2f} after | | |"
                )
        finally:
            await engine.dispose()


async def main_async(arguments: argparse.Namespace) -> None:
    print("# knowledge_speed — ingest rate and search latency")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(
        f"data: synthetic documents of {SECTIONS_PER_DOCUMENT} sections of {WORDS_PER_SECTION} words "
        f"(one ~700-character chunk each), seed {arguments.seed}; sizes {arguments.sizes}"
    )
    print(
        f"search: {arguments.queries} queries per size and mode, top {TOP_K}, after {arguments.warmup} warm-up queries"
        f"{', documents first (searchKnowledge)' if arguments.documents_first else ''}"
    )
    maker = TextMaker(arguments.seed + 1)
    sample = [maker.section() for _ in range(arguments.inference_sample)]
    print(f"local model inference: {await measure_inference(sample)}")
    print(f"ingest with the local model: {await measure_model_ingest(arguments.ingest_documents)}")
    embedder = await query_embedder()
    print(f"query embeddings: {'random' if isinstance(embedder, RandomEmbeddings) else 'the local model'}")
    print()
    print("| backend | chunks | what | figure | detail | note |")
    print("|---|---:|---|---|---|---|")
    for backend in arguments.backends:
        if backend == "postgresql":
            try:
                import asyncpg
                from sqlalchemy.engine import make_url

                dsn = (
                    make_url(arguments.postgres_url).set(drivername="postgresql").render_as_string(hide_password=False)
                )
                connection = await asyncpg.connect(dsn, timeout=3)
                await connection.close()
            except Exception as error:
                print(f"| postgresql | | skipped | unreachable: {error} | | |")
                continue
        await run_backend(backend, arguments, embedder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--sizes", default=None, help="comma-separated chunk counts (default 10000,100000)")
    parser.add_argument("--queries", type=int, default=None, help="queries per size and mode (default 200)")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--inference-sample", type=int, default=None, help="chunks embedded to time the model")
    parser.add_argument(
        "--ingest-documents", type=int, default=None, help="labelled documents ingested with the model (default 160)"
    )
    parser.add_argument("--quick", action="store_true", help="2k and 5k chunks, 40 queries")
    parser.add_argument(
        "--documents-first", action="store_true", help="search as searchKnowledge does (documents ranked, leads)"
    )
    parser.add_argument("--seed", type=int, default=20241129)
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES)
    arguments = parser.parse_args()
    arguments.backends = [backend.strip() for backend in arguments.backends.split(",") if backend.strip()]
    default_sizes = "2000,5000" if arguments.quick else "10000,100000"
    arguments.sizes = sorted(int(size) for size in (arguments.sizes or default_sizes).split(","))
    arguments.queries = arguments.queries or (40 if arguments.quick else 200)
    arguments.inference_sample = arguments.inference_sample or (64 if arguments.quick else 256)
    arguments.ingest_documents = arguments.ingest_documents or (40 if arguments.quick else 160)
    asyncio.run(main_async(arguments))


if __name__ == "__main__":
    main()
