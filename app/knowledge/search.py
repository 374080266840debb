"""Hybrid search: lexical (FTS5 bm25 / tsvector) and vector lists, fused by reciprocal rank.

Each knowledge base is searched on its own task and session, concurrently, with its
own timeout; a failing one is reported in ``SearchOutcome.failures`` and the others
still answer. Raw scores are comparable across knowledge bases (one FTS index, one
embedding model), so the per-base candidate lists are merged by raw score first and
then fused: a passage's score is ``Σ weight / (RRF_K + rank)`` over the lexical and
vector lists. ``searchKnowledge`` and ``bt_search_knowledge`` rank *documents*
(``documents_first``): each list's passages are grouped by document — a document scores
its best passage's raw score plus ``DOCUMENT_DECAY`` times its second's, and so on — and
the document lists are fused by rank the same way (``fuse_documents``), with a third list,
the documents whose *lead* (title and first paragraph, ``app.knowledge.lead``) matches the
query, standing for them by their first passage; each document's best passage then comes
first, in that order. Near-duplicate passages (the
same paragraph in two documents, two versions of one page) collapse into the best-ranked
one.

Stored vectors are held in memory per knowledge base and embedding model, keyed by
the knowledge base's ``content_version``: every document write bumps it, so a search
on any replica reloads the vectors it has not seen yet.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.knowledge import repository
from app.knowledge.embeddings import EmbeddingError, EmbeddingProvider, Matrix, from_bytes, query_text
from app.knowledge.models import Document
from app.knowledge.tokens import is_mostly_unspaced, jaccard, normalise, query_tokens, shingles

logger = logging.getLogger("quiver.knowledge")

#: The constant of reciprocal rank fusion (Cormack, Clarke & Büttcher, 2009) and the weight
#: of each list: chosen on the tuning half of bench/data/knowledge/queries.json
#: (``bench/knowledge_eval.py --tune``), reported on the held-out half.
RRF_K = 5
LEXICAL_WEIGHT = 1.0
VECTOR_WEIGHT = 2.0
#: Only the first this many of each list count in the fusion (deeper candidates score 0 from
#: that list); chosen with k and the weights.
FUSION_DEPTH = 20
#: Document-level fusion (``documents_first``): a document's raw score in one list is
#: Σ DOCUMENT_DECAY^j * (its j-th best passage's score), j = 0, 1, …; the two lists' document
#: rankings are then fused with the constants above. Chosen on the tuning half
#: (``bench/knowledge_eval.py --tune``).
DOCUMENT_DECAY = 0.2
#: Documents' leads (``app.knowledge.lead``: title and first paragraph, indexed on their own) as a
#: third list of ``documents_first`` searches: its weight beside the lexical and vector lists, its
#: weight when there is no vector list (lexical mode, no embedding provider, the query could not
#: be embedded), and whether mostly CJK queries use it (their lead matches are documents sharing
#: everyday bigrams). Chosen on the tuning half (``bench/knowledge_eval.py --tune-leads``).
LEAD_WEIGHT = 0.75
LEAD_WEIGHT_LEXICAL = 0.5
LEAD_FOR_UNSPACED = False
#: Below this cosine similarity a "nearest" vector is noise, not a match.
MIN_VECTOR_SIMILARITY = 0.15
#: Passages whose word 3-gram sets overlap this much are the same passage.
NEAR_DUPLICATE_JACCARD = 0.8
#: The near-duplicate check compared each candidate's shingles with every passage kept before
#: it: with topK 50 and fewer than 50 documents (one large one), 400 candidates and 80,000 set
#: intersections, about a second of the loop every other request waited behind. Each passage
#: now gets a MinHash of MINHASH_SIZE values; only the kept passages whose MinHashes agree on at
#: least MINHASH_CANDIDATE of them (far below the 0.8 Jaccard index sought: a pair at 0.8 falls
#: under it about once in 40,000) are compared exactly, as before.
MINHASH_SIZE = 32
MINHASH_CANDIDATE = 0.5
_MINHASH_RANDOM = np.random.default_rng(20261206)
_MINHASH_A = _MINHASH_RANDOM.integers(1, 2**63, MINHASH_SIZE, dtype=np.uint64) | np.uint64(1)
_MINHASH_B = _MINHASH_RANDOM.integers(0, 2**63, MINHASH_SIZE, dtype=np.uint64)
#: Work longer than this gives the loop a turn.
HYDRATE_SLICE_S = 0.005
MAX_TOP_K = 50
HYBRID, LEXICAL, VECTOR = "hybrid", "lexical", "vector"
#: The longest query read (a longer one is read from its start): QUIVER_MAX_QUERY_CHARS, which
#: also bounds searchKnowledge's argument; the agent prompt's query is the user's message.
MAX_QUERY_CHARS = 4000
#: With ``documents_first``, this many candidates per passage asked for are looked at (so that
#: enough distinct documents are among them); otherwise 4.
HYDRATE_WINDOW_DOCUMENTS_FIRST = 8


@dataclass(frozen=True)
class SearchHit:
    """One passage with what a citation needs."""

    chunk_id: int
    knowledge_base_id: str
    document: Document
    heading_path: tuple[str, ...]
    chunk_index: int
    text: str
    score: float
    lexical_rank: int | None
    vector_rank: int | None

    @property
    def document_id(self) -> str:
        return self.document.id

    @property
    def title(self) -> str:
        return self.document.title

    @property
    def source(self) -> str | None:
        return self.document.source


@dataclass
class SearchOutcome:
    hits: list[SearchHit]
    searched: list[str]
    #: Knowledge base id → why its search failed (the others still answered).
    failures: dict[str, str] = field(default_factory=dict)
    #: Set when the query could not be embedded: the hits are lexical only.
    vector_error: str | None = None

    @property
    def is_partial(self) -> bool:
        return bool(self.failures) or self.vector_error is not None


@dataclass
class Candidates:
    """(chunk id, raw score) lists, higher is better: bm25 / idf-weighted ts_rank, and cosine."""

    lexical: list[tuple[int, float]]
    vector: list[tuple[int, float]]
    #: Chunk id → document id, when asked for (``with_documents``).
    document_of: dict[int, str] = field(default_factory=dict)
    #: (first chunk id, raw score) of the documents whose lead matches, when asked for (``with_leads``).
    lead: list[tuple[int, float]] = field(default_factory=list)


@dataclass
class _VectorIndex:
    version: int
    ids: npt.NDArray[np.int64]
    matrix: Matrix


class KnowledgeSearch:
    """Searches knowledge bases; holds the embedding provider and the in-memory vector index."""

    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        embedder: EmbeddingProvider | None = None,
        *,
        timeout_s: float = 4.0,
        max_query_chars: int = MAX_QUERY_CHARS,
    ) -> None:
        self.session_factory = session_factory
        self.embedder = embedder
        self.timeout_s = timeout_s
        self.max_query_chars = max_query_chars
        self._vectors: dict[tuple[str, str], _VectorIndex] = {}
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    async def warm_up(self) -> None:
        """Load the embedding model now (a local one takes seconds); failures are only logged."""
        if self.embedder is None:
            return
        try:
            await self.embedder.embed(["warm up"])
        except EmbeddingError:
            logger.warning("the embedding provider is not ready; searches fall back to lexical", exc_info=True)

    async def search(
        self,
        kb_ids: Sequence[str],
        query: str,
        top_k: int = 5,
        *,
        mode: str = HYBRID,
        documents_first: bool = False,
    ) -> SearchOutcome:
        """Search ``kb_ids`` (already checked for access) for ``query``; best ``top_k`` passages.

        ``mode`` keeps one list only (``lexical`` or ``vector``), for evaluation; the
        default fuses both (or is lexical alone without an embedding provider).
        ``documents_first`` (``searchKnowledge``, ``bt_search_knowledge``): documents ranked by
        document-level fusion (``fuse_documents``), each one's best passage first in that order,
        then the documents' other passages in score order (see ``_documents_first``); otherwise
        the passages in score order. Either way a hit's ``score`` is its passage's fused score.
        """
        if mode not in (HYBRID, LEXICAL, VECTOR):
            raise ValueError(f"unknown search mode {mode!r}")
        top_k = max(1, min(top_k, MAX_TOP_K))
        query = query.strip()[: self.max_query_chars or None]
        outcome = SearchOutcome(hits=[], searched=list(kb_ids))
        if not kb_ids or not query:
            return outcome
        with_vectors = mode != LEXICAL and self.embedder is not None and self._vectors_help(query)
        lead_weight = LEAD_WEIGHT if with_vectors else LEAD_WEIGHT_LEXICAL
        candidates = await self.candidates(
            kb_ids,
            query,
            min(max(4 * top_k, 40), 200),
            mode=mode,
            outcome=outcome,
            with_documents=documents_first,
            with_leads=documents_first and mode != VECTOR and uses_lead(query, weight=lead_weight),
        )
        if outcome.vector_error is not None:
            lead_weight = LEAD_WEIGHT_LEXICAL
        fused = fuse(candidates.lexical, candidates.vector, lead=candidates.lead, lead_weight=lead_weight)
        if documents_first and fused:
            fused = by_document(
                fused,
                fuse_documents(
                    candidates.lexical,
                    candidates.vector,
                    candidates.document_of,
                    lead=candidates.lead,
                    lead_weight=lead_weight,
                ),
                candidates.document_of,
            )
        outcome.hits = await self._hydrate(fused, top_k, documents_first=documents_first)
        return outcome

    async def candidates(
        self,
        kb_ids: Sequence[str],
        query: str,
        depth: int,
        *,
        mode: str = HYBRID,
        outcome: SearchOutcome | None = None,
        with_documents: bool = False,
        with_leads: bool = False,
    ) -> Candidates:
        """The lexical and vector candidates of ``query`` (up to ``depth`` of each per knowledge
        base, raw scores, merged across ``kb_ids``); failures go to ``outcome``. With
        ``with_documents`` each knowledge base's search also looks up its candidates' documents
        (in its own session and time limit: at most 3 x ``depth`` ids per lookup); with
        ``with_leads`` it also searches the documents' leads (up to ``depth`` of them)."""
        outcome = outcome if outcome is not None else SearchOutcome(hits=[], searched=list(kb_ids))
        tokens = query_tokens(query) if mode != VECTOR else []
        query_vector: npt.NDArray[np.float32] | None = None
        if self.embedder is not None and (mode == VECTOR or (mode == HYBRID and self._vectors_help(query))):
            try:
                embedded = query_text(self.embedder, query)
                query_vector = (await asyncio.wait_for(self.embedder.embed([embedded]), self.timeout_s))[0]
            except (EmbeddingError, TimeoutError) as error:
                outcome.vector_error = f"the query could not be embedded ({error or 'timeout'}); lexical results only"
                logger.warning("knowledge search: %s", outcome.vector_error)
        results = await asyncio.gather(
            *(
                self._search_with_timeout(kb_id, tokens, query_vector, depth, with_documents, with_leads)
                for kb_id in kb_ids
            ),
            return_exceptions=True,
        )
        merged = Candidates([], [])
        for kb_id, result in zip(kb_ids, results, strict=True):
            if isinstance(result, BaseException):
                if not isinstance(result, Exception):
                    raise result
                outcome.failures[kb_id] = _describe(result)
                logger.warning("knowledge search failed in %s", kb_id, exc_info=result)
                continue
            merged.lexical.extend(result.lexical)
            merged.vector.extend(result.vector)
            merged.document_of.update(result.document_of)
            merged.lead.extend(result.lead)
        return merged

    def _vectors_help(self, query: str) -> bool:
        """An English-only model's vectors of a mostly Chinese (Japanese, Thai…) query are noise:
        the lexical ranking alone is better (see bench/knowledge_eval.py)."""
        return not (getattr(self.embedder, "is_english_only", False) and is_mostly_unspaced(query))

    async def _search_with_timeout(
        self,
        kb_id: str,
        tokens: list[str],
        query_vector: npt.NDArray[np.float32] | None,
        depth: int,
        with_documents: bool = False,
        with_leads: bool = False,
    ) -> Candidates:
        return await asyncio.wait_for(
            self._search_one(kb_id, tokens, query_vector, depth, with_documents, with_leads), self.timeout_s
        )

    async def _search_one(
        self,
        kb_id: str,
        tokens: list[str],
        query_vector: npt.NDArray[np.float32] | None,
        depth: int,
        with_documents: bool = False,
        with_leads: bool = False,
    ) -> Candidates:
        async with self.session_factory() as session:
            lexical = await repository.lexical_candidates(session, kb_id, tokens, depth)
            lead = await repository.lead_candidates(session, kb_id, tokens, depth) if with_leads else []
            vector: list[tuple[int, float]] = []
            if query_vector is not None and self.embedder is not None:
                index = await self._vector_index(session, kb_id, self.embedder.model_name)
                vector = _nearest(index, query_vector, depth)
            document_of: dict[int, str] = {}
            if with_documents and (lexical or vector or lead):
                document_of = await repository.documents_of_chunks(
                    session, list(dict.fromkeys(chunk_id for chunk_id, _ in lexical + vector + lead))
                )
        return Candidates(lexical, vector, document_of, lead)

    async def _vector_index(self, session: AsyncSession, kb_id: str, model: str) -> _VectorIndex:
        key = (kb_id, model)
        # The version is read before the vectors: a write in between makes the cache look
        # older than it is (one extra reload), never newer.
        version = await repository.content_version(session, kb_id)
        if version is None:
            raise LookupError(f"knowledge base {kb_id} no longer exists")
        cached = self._vectors.get(key)
        if cached is not None and cached.version == version:
            return cached
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            cached = self._vectors.get(key)
            if cached is not None and cached.version == version:
                return cached
            rows = await repository.stored_vectors(session, kb_id, model)
            if rows:
                ids = np.fromiter((chunk_id for chunk_id, _ in rows), dtype=np.int64, count=len(rows))
                matrix = np.vstack([from_bytes(blob) for _, blob in rows])
            else:
                ids = np.zeros(0, dtype=np.int64)
                matrix = np.zeros((0, 0), dtype=np.float32)
            index = _VectorIndex(version, ids, matrix)
            self._vectors[key] = index
            missing = await repository.count_chunks_without_vector(session, model, [kb_id])
            if missing:
                # Ingested without embeddings or with another model (QUIVER_EMBEDDINGS changed).
                logger.warning(
                    "knowledge base %s: %d chunk(s) have no vector of %s and are found by words only; "
                    "run `quiver kb reembed %s`",
                    kb_id,
                    missing,
                    model,
                    kb_id,
                )
            return index

    async def _hydrate(
        self, fused: list[tuple[int, float, int | None, int | None]], top_k: int, *, documents_first: bool = False
    ) -> list[SearchHit]:
        """Load the best candidates' rows, drop near-duplicates, keep ``top_k``."""
        window = fused[: top_k * (HYDRATE_WINDOW_DOCUMENTS_FIRST if documents_first else 4)]
        async with self.session_factory() as session:
            rows = await repository.chunks_with_documents(session, [chunk_id for chunk_id, *_ in window])
        hits: list[SearchHit] = []
        kept_shingles: list[frozenset[str]] = []
        kept_minhashes = np.empty((len(window), MINHASH_SIZE), dtype=np.uint64)
        kept_texts: set[str] = set()
        documents: set[str] = set()
        slice_started = time.perf_counter()
        for chunk_id, score, lexical_rank, vector_rank in window:
            if chunk_id not in rows:
                continue  # deleted since it was found
            if time.perf_counter() - slice_started > HYDRATE_SLICE_S:
                await asyncio.sleep(0)
                slice_started = time.perf_counter()
            chunk, document = rows[chunk_id]
            normalised = " ".join(normalise(chunk.text).split())
            signature = shingles(chunk.text)
            if normalised in kept_texts:
                continue
            minhash = _minhash(signature)
            agreeing = (kept_minhashes[: len(kept_shingles)] == minhash).mean(axis=1) >= MINHASH_CANDIDATE
            if any(_near_duplicate(signature, kept_shingles[index]) for index in np.flatnonzero(agreeing)):
                continue
            kept_minhashes[len(kept_shingles)] = minhash
            kept_texts.add(normalised)
            kept_shingles.append(signature)
            hits.append(
                SearchHit(
                    chunk_id=chunk.id,
                    knowledge_base_id=chunk.knowledge_base_id,
                    document=document,
                    heading_path=tuple(chunk.heading_path or ()),
                    chunk_index=chunk.position,
                    text=chunk.text,
                    score=score,
                    lexical_rank=lexical_rank,
                    vector_rank=vector_rank,
                )
            )
            documents.add(document.id)
            # Documents first: done once top_k documents have a passage (their best comes first).
            if len(documents if documents_first else hits) == top_k:
                break
        return _documents_first(hits, top_k) if documents_first else hits


def _minhash(signature: frozenset[str]) -> npt.NDArray[np.uint64]:
    """MINHASH_SIZE minima of the shingles' hashes under as many hash functions (the share of
    equal values between two estimates their Jaccard index). All zeros for no shingles: equal
    to another empty set's, as ``jaccard`` holds two empty sets alike."""
    if not signature:
        return np.zeros(MINHASH_SIZE, dtype=np.uint64)
    hashes = np.fromiter((hash(item) for item in signature), dtype=np.int64, count=len(signature)).view(np.uint64)
    with np.errstate(over="ignore"):
        mixed: npt.NDArray[np.uint64] = (hashes[:, None] * _MINHASH_A + _MINHASH_B).min(axis=0)
    return mixed


def _near_duplicate(first: frozenset[str], second: frozenset[str]) -> bool:
    """``jaccard(first, second) >= NEAR_DUPLICATE_JACCARD``, without building the union, and
    without intersecting sets whose sizes alone keep them apart (the Jaccard index is at most
    the smaller size over the larger): about a third of the time on a large document."""
    smaller, larger = sorted((len(first), len(second)))
    if smaller == 0:
        return jaccard(first, second) >= NEAR_DUPLICATE_JACCARD
    if smaller < NEAR_DUPLICATE_JACCARD * larger:
        return False
    shared = len(first & second) if len(first) <= len(second) else len(second & first)
    return shared >= NEAR_DUPLICATE_JACCARD * (len(first) + len(second) - shared)


def _documents_first(hits: list[SearchHit], top_k: int) -> list[SearchHit]:
    """The first ``top_k`` of: each document's first passage, in the order of ``hits`` (the
    documents' order), then the other passages in score order. ``searchKnowledge(topK: 5)``
    then names five documents when the candidates hold five, rather than, say, three passages
    of one document and two of another (bench/knowledge_eval.py, held-out half: 0.887 against
    0.836 in score order, before document-level fusion). Each hit keeps its own score, so a
    later passage may score above an earlier one."""
    seen: set[str] = set()
    first: list[SearchHit] = []
    rest: list[SearchHit] = []
    for hit in hits:
        (rest if hit.document_id in seen else first).append(hit)
        seen.add(hit.document_id)
    rest.sort(key=lambda hit: -hit.score)  # stable: equal scores keep their order
    return (first + rest)[:top_k]


def uses_lead(query: str, *, weight: float, for_unspaced: bool | None = None) -> bool:
    """Whether a ``documents_first`` search of ``query`` fuses the documents' leads (at ``weight``)."""
    for_unspaced = LEAD_FOR_UNSPACED if for_unspaced is None else for_unspaced
    return weight > 0 and (for_unspaced or not is_mostly_unspaced(query))


def fuse_documents(
    lexical: list[tuple[int, float]],
    vector: list[tuple[int, float]],
    document_of: Mapping[int, str],
    *,
    lead: Sequence[tuple[int, float]] = (),
    decay: float = DOCUMENT_DECAY,
    k: int = RRF_K,
    lexical_weight: float = LEXICAL_WEIGHT,
    vector_weight: float = VECTOR_WEIGHT,
    lead_weight: float = LEAD_WEIGHT,
    depth: int = FUSION_DEPTH,
) -> dict[str, float]:
    """Document id → fused score, from two (chunk id, raw score) lists (higher is better) and
    the documents' leads (``lead``: one first chunk per document), weighted ``lead_weight``.

    In each list a document scores Σ decay^j * s_j over its passages' raw scores s_0 ≥ s_1 ≥ …
    (its best passage, plus a little for each further one: a document that answers in two
    places beats one that matches once, all else equal), and the documents are ranked by it;
    then weighted reciprocal rank fusion of the two document rankings, with the passages'
    constants (a rank beyond ``depth`` adds nothing). Passages of chunks missing from
    ``document_of`` (deleted since) are skipped. On the labelled set this ranks documents better
    than the order of their best fused passage (bench/README.md, ``knowledge_eval.py``).
    """
    fused: dict[str, float] = {}
    for found, weight in ((lexical, lexical_weight), (vector, vector_weight), (lead, lead_weight)):
        for document_id, rank in _document_ranks(found, document_of, decay).items():
            fused[document_id] = fused.get(document_id, 0.0) + (weight / (k + rank) if rank <= depth else 0.0)
    return fused


def _document_ranks(
    candidates: Sequence[tuple[int, float]], document_of: Mapping[int, str], decay: float
) -> dict[str, int]:
    scores: dict[str, list[float]] = {}
    for chunk_id, score in candidates:
        if chunk_id in document_of:
            scores.setdefault(document_of[chunk_id], []).append(score)
    totals = {
        document_id: sum(score * decay**place for place, score in enumerate(sorted(found, reverse=True)))
        for document_id, found in scores.items()
    }
    ordered = sorted(totals, key=lambda document_id: (-totals[document_id], document_id))
    return {document_id: rank for rank, document_id in enumerate(ordered, start=1)}


def by_document(
    fused: list[tuple[int, float, int | None, int | None]],
    document_scores: Mapping[str, float],
    document_of: Mapping[int, str],
) -> list[tuple[int, float, int | None, int | None]]:
    """The fused passages reordered for ``documents_first``: each document's best passage, the
    documents in order of ``document_scores`` (ties: the order of their best passages), then the
    other passages in their order. ``fused`` is in passage score order."""
    best_position: dict[str, int] = {}
    for position, (chunk_id, *_) in enumerate(fused):
        if chunk_id in document_of:
            best_position.setdefault(document_of[chunk_id], position)
    documents = sorted(
        best_position, key=lambda document_id: (-document_scores.get(document_id, 0.0), best_position[document_id])
    )
    firsts = [fused[best_position[document_id]] for document_id in documents]
    chosen = set(best_position.values())
    return firsts + [item for position, item in enumerate(fused) if position not in chosen]


def _nearest(index: _VectorIndex, query: npt.NDArray[np.float32], depth: int) -> list[tuple[int, float]]:
    if index.ids.size == 0 or index.matrix.shape[1] != query.shape[0]:
        return []
    similarities = index.matrix @ query
    count = min(depth, similarities.shape[0])
    best = np.argpartition(-similarities, count - 1)[:count]
    best = best[np.argsort(-similarities[best], kind="stable")]
    return [
        (int(index.ids[position]), float(similarities[position]))
        for position in best
        if similarities[position] >= MIN_VECTOR_SIMILARITY
    ]


def fuse(
    lexical: list[tuple[int, float]],
    vector: list[tuple[int, float]],
    *,
    lead: Sequence[tuple[int, float]] = (),
    k: int = RRF_K,
    lexical_weight: float = LEXICAL_WEIGHT,
    vector_weight: float = VECTOR_WEIGHT,
    lead_weight: float = LEAD_WEIGHT,
    depth: int = FUSION_DEPTH,
) -> list[tuple[int, float, int | None, int | None]]:
    """Weighted reciprocal rank fusion of two (chunk id, raw score) lists, best first; the
    documents' leads (``lead``, their first chunks) add ``lead_weight`` / (k + rank) to those
    chunks (and bring in a first chunk neither list holds).

    Returns (chunk id, fused score, lexical rank, vector rank); ranks start at 1. A rank
    beyond ``depth`` adds nothing to the score (the candidate stays, ordered by the rest).
    Ties go to the better lexical rank, then the lower chunk id (stable order).
    """
    lexical_ranks = _ranks(lexical)
    vector_ranks = _ranks(vector)
    lead_ranks = _ranks(lead)
    fused: list[tuple[int, float, int | None, int | None]] = []
    for chunk_id in lexical_ranks.keys() | vector_ranks.keys() | lead_ranks.keys():
        lexical_rank = lexical_ranks.get(chunk_id)
        vector_rank = vector_ranks.get(chunk_id)
        lead_rank = lead_ranks.get(chunk_id)
        score = (
            (lexical_weight / (k + lexical_rank) if lexical_rank is not None and lexical_rank <= depth else 0.0)
            + (vector_weight / (k + vector_rank) if vector_rank is not None and vector_rank <= depth else 0.0)
            + (lead_weight / (k + lead_rank) if lead_rank is not None and lead_rank <= depth else 0.0)
        )
        fused.append((chunk_id, score, lexical_rank, vector_rank))
    fused.sort(key=lambda item: (-item[1], item[2] if item[2] is not None else 1 << 30, item[0]))
    return fused


def _ranks(candidates: Sequence[tuple[int, float]]) -> dict[int, int]:
    ordered = sorted(candidates, key=lambda item: (-item[1], item[0]))
    ranks: dict[int, int] = {}
    for chunk_id, _ in ordered:
        ranks.setdefault(chunk_id, len(ranks) + 1)
    return ranks


def _describe(error: Exception) -> str:
    """Safe to show to a caller (or a model): the details stay in the log."""
    if isinstance(error, TimeoutError):
        return "timed out"
    return f"search failed ({type(error).__name__})"
