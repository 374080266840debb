"""Optional re-rank of skill matches by an OpenAI-compatible chat model.

Off unless ``QUIVER_SKILL_RERANK_MODEL`` is set (with ``QUIVER_OPENAI_BASE_URL`` /
``QUIVER_OPENAI_API_KEY``). The model sees the request and the shortlist (label,
description, hints, boundary) — the best candidates of stage one, including those under
the gate — and answers JSON: a score 0..1 and a one-line reason per skill that applies,
or an empty ranking when none does (then ``matchSkills`` returns nothing). Any failure
(timeout, refusal, unparsable answer) falls back to the calibrated gate: re-ranking can
only improve a match, never break ``matchSkills``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.skills.matching import Match, SkillDocument, with_model_reason

if TYPE_CHECKING:
    from openai import AsyncOpenAI

logger = logging.getLogger("quiver.skills")

INSTRUCTIONS = (
    "You route a user's request to skills (methodologies an AI agent can follow). "
    "For each candidate skill, decide whether it applies to the request. A skill whose "
    "boundary excludes the request does not apply. Answer with JSON only, no prose: "
    '{"ranking": [{"id": "<skill id>", "score": <0..1>, "reason": "<one short line>"}]} '
    "listing only the skills that apply, best first. When none applies, answer "
    '{"ranking": []}.'
)
MAX_REASON_CHARS = 200


def _describe(document: SkillDocument) -> dict[str, Any]:
    described: dict[str, Any] = {"id": document.skill_id, "label": document.label, "description": document.description}
    if document.trigger_hints:
        described["triggerHints"] = list(document.trigger_hints)
    if document.boundary:
        described["boundary"] = document.boundary
    return described


def parse_ranking(content: str, candidates: Sequence[tuple[SkillDocument, Match]]) -> list[Match] | None:
    """The model's answer as matches; None when it is not the JSON asked for."""
    text = content.strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1)
    try:
        answer = json.loads(text)
    except json.JSONDecodeError:
        return None
    items = answer.get("ranking") if isinstance(answer, dict) else answer
    if not isinstance(items, list):
        return None
    by_id = {match.skill_id: match for _, match in candidates}
    ranked: list[Match] = []
    for item in items:
        if not isinstance(item, dict) or item.get("id") not in by_id:
            continue
        try:
            score = min(max(float(item.get("score", 0.0)), 0.0), 1.0)
        except (TypeError, ValueError):
            continue
        reason = " ".join(str(item.get("reason") or "").split())[:MAX_REASON_CHARS]
        match = by_id.pop(item["id"])
        ranked.append(with_model_reason(match, score, reason or None))
    ranked.sort(key=lambda match: -match.score)
    return ranked


class OpenAIReranker:
    """Chat-completions re-rank through the openai SDK (any OpenAI-compatible server)."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None,
        api_key: str | None,
        timeout_s: float = 10.0,
        client: AsyncOpenAI | None = None,
    ) -> None:
        from openai import AsyncOpenAI

        self.model = model
        # The SDK insists on a key; OpenAI-compatible local servers often need none.
        self._client = client or AsyncOpenAI(
            base_url=base_url, api_key=api_key or "unused", max_retries=0, timeout=timeout_s
        )

    async def rerank(self, query: str, candidates: Sequence[tuple[SkillDocument, Match]]) -> list[Match] | None:
        from openai import OpenAIError

        payload = {"request": query, "skills": [_describe(document) for document, _ in candidates]}
        try:
            response = await self._client.chat.completions.create(
                model=self.model,
                temperature=0,
                messages=[
                    {"role": "system", "content": INSTRUCTIONS},
                    {"role": "user", "content": json.dumps(payload, ensure_ascii=False)},
                ],
            )
        except OpenAIError:
            logger.warning("skill re-rank failed; the calibrated gate decides", exc_info=True)
            return None
        content = response.choices[0].message.content if response.choices else None
        ranked = parse_ranking(content or "", candidates)
        if ranked is None:
            logger.warning("skill re-rank answer was not the JSON asked for; the calibrated gate decides")
        return ranked

    async def close(self) -> None:
        await self._client.close()
