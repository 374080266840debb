"""Skill matching: which skills fit a request, how well (0..1) and why.

Three signals, fused:

* **Lexical** — BM25F over a skill's name, label, description, tags, category and
  trigger hints, on the knowledge domain's token stream (NFKC, case-folded, Snowball
  stems for English, character bigrams for unspaced scripts such as Chinese, so
  ``帮我写一封邮件`` meets ``写邮件`` on ``邮件``). A trigger hint found in the request
  counts as a phrase match on top. The raw score is squashed to 0..1 by
  ``raw / (raw + LEXICAL_HALF_SCORE)``.
* **Semantic** (when an embedding provider is configured) — cosine similarity between
  the request and the skill's label, description, tags and hints, rescaled so that
  unrelated text lands near 0.
* **Boundary** — words of a skill's ``boundary`` that are not also in its positive
  fields ("bulk", "marketing", "退款") found in the request push the skill down.

Fusion is a weighted sum (lexical and semantic), then the boundary factor. An optional
re-rank by an OpenAI-compatible chat model (``app.skills.rerank``) may reorder the best
few and give each a one-line reason.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from app.knowledge.tokens import UNSPACED_RUN, index_tokens, query_tokens

if TYPE_CHECKING:
    from app.config import Settings
    from app.skills.models import SkillDefinition
    from app.skills.rerank import Reranker
    from app.skills.resolve import ResolvedSkill

logger = logging.getLogger("quiver.skills")

# BM25 parameters; skill fields are short, so length normalisation stays mild.
K1 = 1.2
B = 0.3
# Field weights: hints are written to be matched, labels and names say what it is.
FIELD_WEIGHTS: dict[str, float] = {
    "hints": 3.0,
    "label": 2.5,
    "name": 2.0,
    "tags": 1.5,
    "category": 1.0,
    "description": 1.0,
}
# A raw BM25F score of this size maps to 0.5.
LEXICAL_HALF_SCORE = 6.0
# How much a partial explanation of the request costs: score * coverage ** exponent.
COVERAGE_EXPONENT = 0.5
# A trigger hint wholly inside the request adds this to the raw score (scaled by its coverage).
HINT_PHRASE_BONUS = 6.0
# Cosine similarities at or below the floor mean "unrelated"; at the ceiling, "the same request".
SEMANTIC_FLOOR = 0.15
SEMANTIC_CEILING = 0.65
LEXICAL_WEIGHT = 0.6
SEMANTIC_WEIGHT = 0.4
# Default minimum scores (bench/skill_match_eval.py): the fused score runs lower for
# the same evidence, since the semantic part of a weak match is near 0.
LEXICAL_MIN_SCORE = 0.3
FUSED_MIN_SCORE = 0.25
# Models that only read English: their similarity between texts in other scripts is
# noise (all-MiniLM-L6-v2 rates two unrelated Chinese sentences 0.66), so requests
# written mostly in an unspaced script are matched lexically only.
ENGLISH_ONLY_MODELS = frozenset(["local:all-MiniLM-L6-v2"])
# A request that touches the boundary as strongly as the skill itself keeps this share of its score.
BOUNDARY_FLOOR = 0.3
# Request filler that says nothing about which skill applies: polite forms and pronouns
# (Chinese bigrams, as the tokenizer cuts them) and English words the shared tokenizer
# keeps on purpose for document search.
# fmt: off
_CHINESE_FILLER = (
    "请帮", "帮我", "帮忙", "麻烦", "一下", "我们", "你们", "可以", "一个", "这个", "那个",
    "我的", "你的", "的话", "能否", "请问", "谢谢", "我想", "想要", "需要", "给我", "我要",
    "怎么", "么办", "怎样", "如何", "是否", "什么", "用什", "为什", "有没", "没有", "写一",
    "一条", "一封", "一份", "一张", "一些", "这份", "这张", "这段", "这些", "那些", "应该",
    "多少", "大概", "一直", "看看", "一次", "的是",
)
_ENGLISH_FILLER = (
    "what", "what's", "how", "please", "help", "for", "with", "from", "not", "in", "if", "us", "can", "could",
    "would", "want", "need", "like", "make", "get", "give", "tell", "set", "let", "look", "one", "many", "much",
    "some", "good", "best", "new", "last", "time", "day", "right", "now", "way", "here's", "there", "will",
)
# fmt: on
FILLER = frozenset(term for word in (*_CHINESE_FILLER, *_ENGLISH_FILLER) for term in query_tokens(word))
# Words that say nothing about what a boundary excludes.
BOUNDARY_STOP_WORDS = FILLER | frozenset(
    index_tokens(
        "use used using skill skills request requests task tasks ask asking question questions "
        "anything something thing things instead without explicit user users rather must never other "
        "general generic any kind 不要 不能 用于 使用 请求 任务 问题 帮助 用户 其他"
    )
)


def request_terms(text: str) -> tuple[list[str], dict[str, str]]:
    """The request's search terms (filler dropped) and, for reasons, each term's first surface word."""
    # Numbers ("5 kg", "grade 5") say nothing about which skill applies.
    terms = [term for term in query_tokens(text) if term not in FILLER and not term.isdigit()]
    surface: dict[str, str] = {}
    for word in text.split():
        for term in query_tokens(word):
            surface.setdefault(term, word.strip(".,;:!?\"'()[]{}").casefold() if word.isascii() else term)
    return terms, surface


def is_mostly_unspaced(text: str) -> bool:
    """A third or more of the characters are Chinese, Japanese, Korean, Thai…"""
    letters = sum(1 for character in text if character.isalnum())
    return letters > 0 and sum(len(run) for run in UNSPACED_RUN.findall(text)) * 3 >= letters


def _contains_run(terms: list[str], run: list[str]) -> bool:
    width = len(run)
    return any(terms[index : index + width] == run for index in range(len(terms) - width + 1))


class Embeddings(Protocol):
    """What matching needs from an embedding provider (``app.knowledge.embeddings``)."""

    model_name: str

    async def embed(self, texts: Sequence[str]) -> Any:
        """One L2-normalised vector per text (a matrix, rows in order)."""
        ...


@dataclass(frozen=True)
class SkillDocument:
    """The parts of a skill that matching reads."""

    skill_id: str
    name: str
    label: str
    description: str
    category: str | None = None
    tags: tuple[str, ...] = ()
    trigger_hints: tuple[str, ...] = ()
    boundary: str | None = None

    @classmethod
    def from_row(cls, row: SkillDefinition) -> SkillDocument:
        return cls(
            skill_id=row.skill_id,
            name=row.name,
            label=row.label,
            description=row.description,
            category=row.category,
            tags=tuple(row.tags or ()),
            trigger_hints=tuple(row.trigger_hints or ()),
            boundary=row.boundary,
        )

    @classmethod
    def from_resolved(cls, skill: ResolvedSkill) -> SkillDocument:
        return cls(
            skill_id=skill.skill_id,
            name=skill.name,
            label=skill.label,
            description=skill.description,
            category=skill.category,
            tags=skill.tags,
            trigger_hints=skill.trigger_hints,
            boundary=skill.boundary,
        )

    def semantic_text(self) -> str:
        parts = [self.label, self.description, ", ".join(self.tags), "; ".join(self.trigger_hints)]
        return ". ".join(part for part in parts if part)


@dataclass(frozen=True)
class Match:
    """How well one skill fits one request."""

    skill_id: str
    #: Fused score, 0..1, higher is better.
    score: float
    lexical: float
    semantic: float | None
    #: 1.0 when the boundary is not touched; lower when it is.
    boundary_factor: float
    reason: str


@dataclass
class _Prepared:
    fields: dict[str, list[str]]
    lengths: dict[str, int]
    hints: list[tuple[str, list[str]]]
    boundary: frozenset[str]
    positive: frozenset[str]


@dataclass
class LexicalScore:
    raw: float = 0.0
    terms: list[str] = field(default_factory=list)
    hint: str | None = None
    hint_coverage: float = 0.0
    boundary_terms: list[str] = field(default_factory=list)
    boundary_weight: float = 0.0
    positive_weight: float = 0.0
    #: idf mass of every distinct request term (terms no skill knows count as rare).
    query_weight: float = 0.0

    @property
    def coverage(self) -> float:
        """Share of the request's informative words this skill explains."""
        return min(self.positive_weight / self.query_weight, 1.0) if self.query_weight else 0.0

    @property
    def score(self) -> float:
        if self.raw <= 0:
            return 0.0
        strength = self.raw / (self.raw + LEXICAL_HALF_SCORE)
        # A whole trigger hint is evidence enough; otherwise one shared word in a long
        # request ("book" in "book a table at a restaurant") must not look like a match.
        coverage = 1.0 if self.hint_coverage == 1.0 else self.coverage**COVERAGE_EXPONENT
        return strength * coverage


def _prepare(document: SkillDocument) -> _Prepared:
    fields = {
        "name": index_tokens(document.name.replace("-", " ")),
        "label": index_tokens(document.label),
        "description": index_tokens(document.description),
        "tags": index_tokens(" ".join(document.tags)),
        "category": index_tokens(document.category or ""),
        "hints": [token for hint in document.trigger_hints for token in index_tokens(hint) if token not in FILLER],
    }
    positive = frozenset(token for tokens in fields.values() for token in tokens)
    boundary = frozenset(index_tokens(document.boundary or "")) - positive - BOUNDARY_STOP_WORDS
    hints = []
    for hint in document.trigger_hints:
        terms = [token for token in query_tokens(hint) if token not in FILLER]
        # A phrase of several words that boils down to one ("why did they leave" → "leav")
        # is no phrase any more: its word counts like any other.
        if len(terms) >= 2 or (len(terms) == 1 and len(hint.split()) == 1):
            hints.append((hint, terms))
    return _Prepared(
        fields=fields,
        lengths={name: len(tokens) for name, tokens in fields.items()},
        hints=hints,
        boundary=boundary,
        positive=positive,
    )


class LexicalIndex:
    """BM25F over a fixed set of skills (the skills visible to one space, or one agent's)."""

    def __init__(self, documents: Sequence[SkillDocument]) -> None:
        self.documents = list(documents)
        self._prepared = [_prepare(document) for document in self.documents]
        count = len(self.documents)
        self._average = {
            name: (sum(item.lengths[name] for item in self._prepared) / count if count else 0.0)
            for name in FIELD_WEIGHTS
        }
        frequency: dict[str, int] = {}
        for item in self._prepared:
            for token in item.positive | item.boundary:
                frequency[token] = frequency.get(token, 0) + 1
        self._frequency = frequency
        self._count = count

    def idf(self, token: str) -> float:
        # Never below a floor: a word every skill shares still says a little.
        seen = self._frequency.get(token, 0)
        return max(math.log(1 + (self._count - seen + 0.5) / (seen + 0.5)), 0.1)

    def score(self, query: str) -> list[LexicalScore]:
        terms, surface = request_terms(query)
        return [self._score_one(item, terms, surface) for item in self._prepared]

    def _score_one(self, item: _Prepared, terms: list[str], surface: dict[str, str]) -> LexicalScore:
        result = LexicalScore()
        term_set = set(terms)
        result.query_weight = sum(self.idf(term) for term in term_set)
        for term in dict.fromkeys(terms):
            weighted = 0.0
            for name, weight in FIELD_WEIGHTS.items():
                frequency = item.fields[name].count(term)
                if not frequency:
                    continue
                average = self._average[name] or 1.0
                weighted += weight * frequency / (1 - B + B * item.lengths[name] / average)
            if weighted:
                idf = self.idf(term)
                result.raw += idf * weighted * (K1 + 1) / (weighted + K1)
                result.positive_weight += idf
                if surface.get(term, term) not in result.terms:
                    result.terms.append(surface.get(term, term))
            elif term in item.boundary:
                result.boundary_terms.append(surface.get(term, term))
                result.boundary_weight += self.idf(term)
        for hint, hint_terms in item.hints:
            if _contains_run(terms, hint_terms):
                coverage = 1.0
            else:
                shared = len(set(hint_terms) & term_set)
                # One shared word of a long hint is already counted above; reward phrases only.
                coverage = 0.5 * shared / len(hint_terms) if shared >= 2 else 0.0
            if coverage > result.hint_coverage:
                result.hint, result.hint_coverage = hint, coverage
        if result.hint is not None:
            result.raw += HINT_PHRASE_BONUS * result.hint_coverage**2
        return result


def boundary_factor(lexical: LexicalScore) -> float:
    """1.0 when the boundary is untouched; towards ``BOUNDARY_FLOOR`` as it dominates the match."""
    if not lexical.boundary_weight:
        return 1.0
    share = lexical.boundary_weight / (lexical.boundary_weight + lexical.positive_weight)
    return max(BOUNDARY_FLOOR, 1.0 - share)


def rescale_similarity(cosine: float) -> float:
    return min(max((cosine - SEMANTIC_FLOOR) / (SEMANTIC_CEILING - SEMANTIC_FLOOR), 0.0), 1.0)


def _reason(lexical: LexicalScore, semantic: float | None, factor: float) -> str:
    parts: list[str] = []
    if lexical.hint is not None:
        parts.append(f"trigger hint {lexical.hint!r}" + ("" if lexical.hint_coverage == 1 else " (in part)"))
    if lexical.terms:
        parts.append("words: " + ", ".join(lexical.terms[:6]))
    if semantic is not None and semantic > 0:
        parts.append(f"semantic similarity {semantic:.2f}")
    if not parts:
        parts.append("no shared words")
    reason = "; ".join(parts)
    if factor < 1.0:
        reason += f"; pushed down: the request touches its boundary ({', '.join(lexical.boundary_terms[:4])})"
    return reason


class EmbeddingCache:
    """Skill texts embedded once per process and model (an LRU keyed by the text's hash)."""

    def __init__(self, provider: Embeddings, capacity: int = 20_000) -> None:
        self.provider = provider
        self.capacity = capacity
        self._vectors: OrderedDict[str, Any] = OrderedDict()

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.provider.model_name}\x1f{text}".encode()).hexdigest()

    async def vectors(self, texts: Sequence[str]) -> list[Any]:
        keys = [self._key(text) for text in texts]
        missing = [index for index, key in enumerate(keys) if key not in self._vectors]
        if missing:
            fresh = await self.provider.embed([texts[index] for index in missing])
            for index, vector in zip(missing, fresh, strict=True):
                self._vectors[keys[index]] = vector
            while len(self._vectors) > self.capacity:
                self._vectors.popitem(last=False)
        for key in keys:
            self._vectors.move_to_end(key)
        return [self._vectors[key] for key in keys]


@dataclass
class SkillMatcher:
    """Scores skills against a request; embeddings and re-rank are optional."""

    embeddings: EmbeddingCache | None = None
    reranker: Reranker | None = None
    lexical_weight: float = LEXICAL_WEIGHT
    semantic_weight: float = SEMANTIC_WEIGHT

    async def score_all(
        self, documents: Sequence[SkillDocument], query: str, *, use_embeddings: bool = True
    ) -> list[Match]:
        """Every document scored, best first (ties by skill id). Never raises for provider failures."""
        if not documents or not query.strip():
            return []
        lexical = LexicalIndex(documents).score(query)
        semantic: list[float] | None = None
        if use_embeddings and self.can_embed(query):
            semantic = await self._semantic(documents, query)
        matches = []
        for index, document in enumerate(documents):
            lexical_score = lexical[index]
            similarity = semantic[index] if semantic is not None else None
            if similarity is None:
                fused = lexical_score.score
            else:
                fused = self.lexical_weight * lexical_score.score + self.semantic_weight * similarity
            factor = boundary_factor(lexical_score)
            matches.append(
                Match(
                    skill_id=document.skill_id,
                    score=round(min(max(fused * factor, 0.0), 1.0), 4),
                    lexical=round(lexical_score.score, 4),
                    semantic=round(similarity, 4) if similarity is not None else None,
                    boundary_factor=round(factor, 4),
                    reason=_reason(lexical_score, similarity, factor),
                )
            )
        matches.sort(key=lambda match: (-match.score, match.skill_id))
        return matches

    def can_embed(self, query: str) -> bool:
        if self.embeddings is None:
            return False
        return not (self.embeddings.provider.model_name in ENGLISH_ONLY_MODELS and is_mostly_unspaced(query))

    @property
    def default_min_score(self) -> float:
        return FUSED_MIN_SCORE if self.embeddings is not None else LEXICAL_MIN_SCORE

    async def _semantic(self, documents: Sequence[SkillDocument], query: str) -> list[float] | None:
        assert self.embeddings is not None
        try:
            vectors = await self.embeddings.vectors([document.semantic_text() for document in documents])
            query_vector = np.asarray((await self.embeddings.provider.embed([query]))[0], dtype=np.float32)
        except Exception:
            logger.warning("skill embeddings unavailable; matching is lexical only", exc_info=True)
            return None
        similarities = np.vstack(vectors).astype(np.float32) @ query_vector
        return [rescale_similarity(float(value)) for value in similarities]

    async def match(
        self,
        documents: Sequence[SkillDocument],
        query: str,
        *,
        top_k: int,
        min_score: float | None = None,
    ) -> list[Match]:
        """The best ``top_k`` at or above ``min_score`` (default: :attr:`default_min_score`).

        Re-ranked by the model when a reranker is configured.
        """
        if min_score is None:
            min_score = self.default_min_score
        matches = [match for match in await self.score_all(documents, query) if match.score >= min_score]
        if self.reranker is not None and matches:
            by_id = {document.skill_id: document for document in documents}
            shortlist = matches[: max(top_k * 2, 5)]
            reranked = await self.reranker.rerank(query, [(by_id[match.skill_id], match) for match in shortlist])
            if reranked is not None:
                matches = [match for match in reranked if match.score >= min_score]
        return matches[:top_k]


def documents_of(rows: Iterable[SkillDefinition]) -> list[SkillDocument]:
    return [SkillDocument.from_row(row) for row in rows]


_MATCHERS: dict[tuple[Any, ...], SkillMatcher] = {}


def matcher_for(settings: Settings) -> SkillMatcher:
    """One matcher per configuration and process: the embedding model loads once, on first use.

    Embeddings come from the knowledge domain's provider (``QUIVER_EMBEDDINGS``: none,
    local or openai) unless ``QUIVER_SKILL_MATCH_EMBEDDINGS=false``; re-rank from
    ``QUIVER_SKILL_RERANK_MODEL`` on the runtime's OpenAI-compatible endpoint.
    """
    from app.knowledge.embeddings import create_embedding_provider
    from app.skills.rerank import OpenAIReranker

    key = (
        settings.embeddings if settings.skill_match_embeddings else "none",
        settings.embeddings_model,
        settings.embeddings_base_url,
        settings.embeddings_api_key,
        settings.skill_rerank_model,
        settings.openai_base_url,
        settings.openai_api_key,
        settings.skill_rerank_timeout_s,
    )
    matcher = _MATCHERS.get(key)
    if matcher is None:
        provider = create_embedding_provider(settings) if settings.skill_match_embeddings else None
        reranker = (
            OpenAIReranker(
                model=settings.skill_rerank_model,
                base_url=settings.openai_base_url,
                api_key=settings.openai_api_key,
                timeout_s=settings.skill_rerank_timeout_s,
            )
            if settings.skill_rerank_model
            else None
        )
        matcher = SkillMatcher(embeddings=EmbeddingCache(provider) if provider else None, reranker=reranker)
        _MATCHERS[key] = matcher
    return matcher
