"""The matcher each configuration gets: lexical matching, plus embeddings and re-rank when configured.

Built once per configuration and process (``matcher_for``), so the embedding cache is shared.
"""

from __future__ import annotations

from typing import Any

from app.config import Settings
from app.knowledge.embeddings import create_embedding_provider
from app.skills.matching import EmbeddingCache, SkillMatcher
from app.skills.rerank import OpenAIReranker

_MATCHERS: dict[tuple[Any, ...], SkillMatcher] = {}


def matcher_for(settings: Settings) -> SkillMatcher:
    """One matcher per configuration and process; the embedding model itself is loaded once
    per process (``app.knowledge.embeddings``), whichever asks first.

    Embeddings come from the knowledge domain's provider (``QUIVER_EMBEDDINGS``: none,
    local or openai) unless ``QUIVER_SKILL_MATCH_EMBEDDINGS=false``; re-rank from
    ``QUIVER_SKILL_RERANK_MODEL`` on the runtime's OpenAI-compatible endpoint.
    """
    key = (
        settings.embeddings if settings.skill_match_embeddings else "none",
        settings.embeddings_model,
        settings.embeddings_base_url,
        settings.embeddings_api_key,
        settings.skill_rerank_model,
        settings.openai_base_url,
        settings.openai_api_key,
        settings.skill_rerank_timeout_s,
        settings.skill_request_chars,
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
        matcher = SkillMatcher(
            embeddings=EmbeddingCache(provider) if provider else None,
            reranker=reranker,
            request_chars=settings.skill_request_chars,
        )
        _MATCHERS[key] = matcher
    return matcher
