"""Skill matching without a database: lexical scoring, CJK, boundaries, fusion, re-rank, routing."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import httpx2
import numpy as np
import pytest
from fastapi import FastAPI, Request
from openai import AsyncOpenAI

from app.skills.matching import EmbeddingCache, LexicalIndex, SkillDocument, SkillMatcher, rescale_similarity
from app.skills.rerank import OpenAIReranker, parse_ranking
from app.skills.resolve import ResolvedSkill, canary_bucket
from app.skills.routing import route_skills

EMAIL = SkillDocument(
    skill_id="sk_email",
    name="email-draft",
    label="Email drafting",
    description="Draft clear, professional emails with one call to action.",
    tags=("email", "writing"),
    trigger_hints=("draft an email", "follow-up email", "帮我写一封邮件"),
    boundary="Not for bulk marketing campaigns or newsletters.",
)
MEETING = SkillDocument(
    skill_id="sk_meeting",
    name="meeting-summary",
    label="Meeting summary",
    description="Summarise meetings into decisions and action items.",
    tags=("meetings",),
    trigger_hints=("summarize this meeting", "会议纪要", "总结一下会议"),
)
NEWSLETTER = SkillDocument(
    skill_id="sk_newsletter",
    name="newsletter",
    label="Marketing newsletter",
    description="Plan and write marketing newsletters and campaign emails for a mailing list.",
    tags=("marketing",),
    trigger_hints=("newsletter", "营销邮件"),
)
DOCUMENTS = [EMAIL, MEETING, NEWSLETTER]


def scores(query: str) -> dict[str, float]:
    return {
        document.skill_id: score.score
        for document, score in zip(DOCUMENTS, LexicalIndex(DOCUMENTS).score(query), strict=True)
    }


class TestLexical:
    def test_english_request_scores_the_right_skill_highest(self) -> None:
        result = scores("Could you draft an email to Alice about the invoice?")
        assert max(result, key=lambda key: result[key]) == "sk_email"
        assert 0 < result["sk_email"] < 1

    def test_unspaced_chinese_is_matched_by_character_bigrams(self) -> None:
        result = scores("请帮我把今天的会议整理成会议纪要")
        assert max(result, key=lambda key: result[key]) == "sk_meeting"
        assert result["sk_email"] == 0

    def test_stems_meet_inflections(self) -> None:
        assert scores("summarizing meetings")["sk_meeting"] > 0

    def test_a_whole_trigger_hint_is_worth_more_than_its_words_apart(self) -> None:
        index = LexicalIndex(DOCUMENTS)
        phrase = index.score("please draft an email")[0]
        scattered = index.score("email the draft")[0]
        assert phrase.hint == "draft an email"
        assert phrase.score > scattered.score

    def test_no_shared_word_scores_zero(self) -> None:
        assert scores("what's the weather on Mars") == {"sk_email": 0, "sk_meeting": 0, "sk_newsletter": 0}


class TestBoundary:
    async def test_a_request_inside_the_boundary_is_pushed_below_the_right_skill(self) -> None:
        matches = await SkillMatcher().score_all(DOCUMENTS, "write the marketing newsletter email for our mailing list")

        by_id = {match.skill_id: match for match in matches}
        assert matches[0].skill_id == "sk_newsletter"
        assert by_id["sk_email"].boundary_factor < 1
        assert "boundary" in by_id["sk_email"].reason
        assert "marketing" in by_id["sk_email"].reason

    async def test_words_the_skill_also_claims_do_not_count_as_boundary(self) -> None:
        matches = await SkillMatcher().score_all([EMAIL], "draft an email to my manager")
        assert matches[0].boundary_factor == 1.0


class HashingEmbeddings:
    """A real (if crude) embedding: hashed character trigrams, L2-normalised. Deterministic, offline."""

    model_name = "test:hashing-trigrams"

    def __init__(self) -> None:
        self.calls: list[int] = []

    async def embed(self, texts: Sequence[str]) -> Any:
        self.calls.append(len(texts))
        rows = np.zeros((len(texts), 256), dtype=np.float32)
        for row, text in enumerate(texts):
            folded = f"  {text.casefold()}  "
            for index in range(len(folded) - 2):
                rows[row, hash(folded[index : index + 3]) % 256] += 1
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        norms[norms == 0] = 1
        return rows / norms


class BrokenEmbeddings:
    model_name = "test:broken"

    async def embed(self, texts: Sequence[str]) -> Any:
        raise RuntimeError("provider down")


class TestFusion:
    async def test_semantic_part_is_fused_and_skill_vectors_are_cached(self) -> None:
        provider = HashingEmbeddings()
        matcher = SkillMatcher(embeddings=EmbeddingCache(provider))

        first = await matcher.score_all(DOCUMENTS, "draft an email to the team")
        await matcher.score_all(DOCUMENTS, "summarize this meeting")

        top = first[0]
        assert top.skill_id == "sk_email"
        assert top.semantic is not None and 0 <= top.semantic <= 1
        assert top.score == pytest.approx(
            round((0.6 * top.lexical + 0.4 * top.semantic) * top.boundary_factor, 4), abs=1e-3
        )
        assert provider.calls == [3, 1, 1]  # skill texts once, then only the queries

    async def test_a_failing_provider_degrades_to_lexical(self) -> None:
        matcher = SkillMatcher(embeddings=EmbeddingCache(BrokenEmbeddings()))

        matches = await matcher.score_all(DOCUMENTS, "draft an email")

        assert matches[0].skill_id == "sk_email"
        assert matches[0].semantic is None
        assert matches[0].score == matches[0].lexical

    def test_similarity_rescaling_is_clipped(self) -> None:
        assert rescale_similarity(-0.3) == 0
        assert rescale_similarity(0.99) == 1
        assert 0 < rescale_similarity(0.4) < 1

    async def test_the_local_model_recognises_a_paraphrase_in_english_and_chinese(self) -> None:
        from app.knowledge.embeddings import LocalEmbeddings

        matcher = SkillMatcher(embeddings=EmbeddingCache(LocalEmbeddings()))

        english = await matcher.score_all(DOCUMENTS, "reply to the client's mail about the delayed shipment")
        chinese = await matcher.score_all(DOCUMENTS, "开完会了 把大家定下来的事情和分工记一下")

        assert english[0].skill_id == "sk_email"
        assert english[0].lexical == 0 and english[0].semantic is not None and english[0].semantic > 0
        # The model is multilingual: a Chinese paraphrase sharing no hint is found by its meaning.
        assert chinese[0].skill_id == "sk_meeting"
        assert chinese[0].semantic is not None and chinese[0].semantic > 0


def scripted_openai(content: str, seen: list[dict[str, Any]]) -> AsyncOpenAI:
    """An OpenAI client talking HTTP to a scripted chat-completions server (in-process ASGI)."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def completions(request: Request) -> dict[str, Any]:
        seen.append(await request.json())
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "rerank-test",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        }

    # The openai SDK runs on httpx2 (an httpx fork): its client and transport, then.
    client = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app))
    return AsyncOpenAI(base_url="http://rerank.test/v1", api_key="k", http_client=client)


class TestRerank:
    async def test_the_model_reorders_and_explains(self) -> None:
        answer = {
            "ranking": [
                {"id": "sk_meeting", "score": 0.9, "reason": "The user wants a recap of a call."},
                {"id": "sk_email", "score": 0.2, "reason": "Mentions an email only in passing."},
            ]
        }
        seen: list[dict[str, Any]] = []
        reranker = OpenAIReranker(
            model="rerank-test",
            base_url=None,
            api_key=None,
            client=scripted_openai("```json\n" + json.dumps(answer) + "\n```", seen),
        )
        matcher = SkillMatcher(reranker=reranker)

        matches = await matcher.match(DOCUMENTS, "email me a summary of this meeting", top_k=3, min_score=0.0)

        assert [(match.skill_id, match.score) for match in matches] == [("sk_meeting", 0.9), ("sk_email", 0.2)]
        assert matches[0].reason == "The user wants a recap of a call."
        sent = json.loads(seen[0]["messages"][1]["content"])
        assert sent["request"] == "email me a summary of this meeting"
        assert {skill["id"] for skill in sent["skills"]} <= {"sk_email", "sk_meeting", "sk_newsletter"}
        assert seen[0]["model"] == "rerank-test"

    async def test_an_unusable_answer_keeps_the_fused_order(self) -> None:
        reranker = OpenAIReranker(
            model="m", base_url=None, api_key=None, client=scripted_openai("I think the meeting one.", [])
        )
        plain = await SkillMatcher().match(DOCUMENTS, "summarize this meeting", top_k=3, min_score=0.1)

        reranked = await SkillMatcher(reranker=reranker).match(
            DOCUMENTS, "summarize this meeting", top_k=3, min_score=0.1
        )

        assert reranked == plain

    async def test_an_unreachable_endpoint_keeps_the_fused_order(self) -> None:
        reranker = OpenAIReranker(model="m", base_url="http://127.0.0.1:9/v1", api_key=None, timeout_s=1)
        plain = await SkillMatcher().match(DOCUMENTS, "summarize this meeting", top_k=3, min_score=0.1)

        assert (
            await SkillMatcher(reranker=reranker).match(DOCUMENTS, "summarize this meeting", top_k=3, min_score=0.1)
            == plain
        )

    def test_parse_ignores_unknown_ids_and_clips_scores(self) -> None:
        candidates = [(EMAIL, _match("sk_email")), (MEETING, _match("sk_meeting"))]
        answer = json.dumps([{"id": "sk_other", "score": 1}, {"id": "sk_email", "score": 7, "reason": "x\ny"}])

        ranked = parse_ranking(answer, candidates)

        assert ranked is not None
        assert [(match.skill_id, match.score, match.reason) for match in ranked] == [("sk_email", 1.0, "x y")]


def _match(skill_id: str) -> Any:
    from app.skills.matching import Match

    return Match(skill_id=skill_id, score=0.5, lexical=0.5, semantic=None, boundary_factor=1.0, reason="r")


def resolved(document: SkillDocument, prompt_chars: int = 100) -> ResolvedSkill:
    return ResolvedSkill(
        skill_id=document.skill_id,
        name=document.name,
        label=document.label,
        version="1.0.0",
        channel="PRODUCTION",
        prompt="x" * prompt_chars,
        is_pinned=False,
        reason="production",
        description=document.description,
        tags=document.tags,
        trigger_hints=document.trigger_hints,
        boundary=document.boundary,
    )


class TestRouting:
    async def test_under_the_limit_all_are_chosen_unscored(self) -> None:
        skills = [resolved(document) for document in DOCUMENTS]

        decision = await route_skills(skills, "anything", limit=3)

        assert not decision.is_routed
        assert [routed.skill.skill_id for routed in decision.chosen] == ["sk_email", "sk_meeting", "sk_newsletter"]
        assert decision.saved_chars == 0

    async def test_over_the_limit_the_best_are_chosen_in_bound_order(self) -> None:
        skills = [resolved(document) for document in DOCUMENTS]

        decision = await route_skills(skills, "summarize this meeting and draft an email", limit=2, min_score=0.1)

        assert decision.is_routed
        assert [routed.skill.skill_id for routed in decision.chosen] == ["sk_email", "sk_meeting"]
        assert [routed.skill.skill_id for routed in decision.dropped] == ["sk_newsletter"]
        assert "below the minimum" in decision.dropped[0].reason
        assert decision.saved_chars == 100 and decision.injected_chars == 200

    async def test_over_the_limit_the_surplus_match_is_dropped_for_rank(self) -> None:
        skills = [resolved(document) for document in DOCUMENTS]

        decision = await route_skills(skills, "summarize this meeting and draft an email", limit=1, min_score=0.1)

        assert len(decision.chosen) == 1
        assert any("only the best 1" in routed.reason for routed in decision.dropped)


class TestCanaryBucket:
    def test_stable_and_roughly_uniform(self) -> None:
        buckets = [canary_bucket(f"session-{index}", "sku_x") for index in range(10_000)]

        assert buckets[:50] == [canary_bucket(f"session-{index}", "sku_x") for index in range(50)]
        assert all(0 <= bucket < 100 for bucket in buckets)
        share = sum(1 for bucket in buckets if bucket < 10) / len(buckets)
        assert 0.08 < share < 0.12

    def test_independent_per_skill(self) -> None:
        first = [canary_bucket(f"s{index}", "sku_a") < 50 for index in range(1000)]
        second = [canary_bucket(f"s{index}", "sku_b") < 50 for index in range(1000)]
        assert first != second
