"""Skill matching without a database: lexical evidence, CJK, boundaries, the gate, embeddings,
re-rank against the scripted OpenAI-compatible server, routing."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.knowledge.embeddings import OpenAIEmbeddings, query_text
from app.skills import matching
from app.skills.matching import (
    EVERYDAY_TOPICS,
    FEATURES,
    RUNNER_UP_SHARE,
    Calibration,
    Candidate,
    EmbeddingCache,
    LexicalEvidence,
    LexicalIndex,
    Match,
    SkillDocument,
    SkillMatcher,
    _SemanticIndex,
    applies,
    ask_segments,
    cjk_trigrams,
    gate,
    gate_features,
    is_mostly_unspaced_request,
    latin_share,
    one_spelling,
    request_embedding_text,
    request_terms,
    semantic_form,
)
from app.skills.rerank import OpenAIReranker, parse_ranking
from app.skills.resolve import ResolvedSkill, canary_bucket
from app.skills.routing import route_skills
from tests.app.knowledge.support import running_embedding_server
from tests.support.openai_server import API_KEY, OpenAIServer, final, http_error, openai_server  # noqa: F401

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
    trigger_hints=("summarize this meeting", "会议纪要", "总结一下会议", "meeting notes"),
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
CATALOGUE = Path(__file__).resolve().parents[3] / "bench" / "data" / "skills" / "skills.json"


def catalogue() -> list[SkillDocument]:
    """The 102 skills of the benchmark: a realistic catalogue with close neighbours."""
    return [
        SkillDocument(
            skill_id=skill["name"],
            name=skill["name"],
            label=skill["label"],
            description=skill["description"],
            category=skill["category"],
            tags=tuple(skill["tags"]),
            trigger_hints=tuple(skill["triggerHints"]),
            boundary=skill["boundary"],
        )
        for skill in json.loads(CATALOGUE.read_text(encoding="utf-8"))
    ]


def evidence(query: str, documents: Sequence[SkillDocument] = DOCUMENTS) -> dict[str, Any]:
    return {
        document.skill_id: found
        for document, found in zip(documents, LexicalIndex(documents).score(query), strict=True)
    }


class TestLexical:
    async def test_english_request_ranks_the_right_skill_first(self) -> None:
        matches = await SkillMatcher().score_all(DOCUMENTS, "Could you draft an email to Alice about the invoice?")
        assert matches[0].skill_id == "sk_email"
        assert matches[0].hint == "draft an email" and "HINT" in matches[0].signals

    def test_unspaced_chinese_is_matched_by_character_bigrams(self) -> None:
        found = evidence("请帮我整理一下昨天的会议纪要")
        assert found["sk_meeting"].strength > found["sk_email"].strength
        assert found["sk_meeting"].hint == "会议纪要"

    @pytest.mark.parametrize(
        ("query", "hint"),
        [
            ("会议录音整理成会议纪要", "会议纪要"),
            ("after the meeting, write meeting notes", "meeting notes"),
        ],
    )
    def test_a_hint_is_found_word_for_word_after_one_of_its_words_appeared(self, query: str, hint: str) -> None:
        found = evidence(query)["sk_meeting"]
        assert found.hint == hint and found.hint_coverage == 1.0

    def test_names_no_skill_knows_do_not_make_a_request_look_unexplained(self) -> None:
        plain = evidence("draft an email about the invoice")["sk_email"]
        named = evidence("Draft an email to Priya Nair at Initech Leeds about invoice 4471")["sk_email"]
        assert named.coverage >= 0.9 * plain.coverage

    def test_chinese_three_characters_in_a_row_count_more_than_the_same_characters_scattered(self) -> None:
        minutes = SkillDocument(
            skill_id="sk_minutes",
            name="minutes",
            label="Minutes",
            description="把讨论整理成会议纪要和待办事项",
        )
        # The same bigrams (会议 议纪 纪要) either way; only the first has them three in a row.
        found = evidence("讨论写成会议纪要", [minutes, EMAIL])["sk_minutes"]
        scattered = evidence("讨论写成会议 议纪 纪要", [minutes, EMAIL])["sk_minutes"]
        assert found.raw > scattered.raw > 0
        assert {"会议纪", "议纪要"} <= set(cjk_trigrams("会议纪要"))
        # Trigrams holding a filler bigram say nothing: "帮我写" of "帮我写一封".
        assert "帮我写" not in cjk_trigrams("帮我写一封邮件")

    def test_no_shared_word_is_no_candidate(self) -> None:
        assert evidence("tomato soup recipe")["sk_email"].strength == 0

    async def test_a_distinctive_boundary_word_pushes_the_skill_below_its_neighbour(self) -> None:
        matches = await SkillMatcher().score_all(DOCUMENTS, "write the marketing newsletter email for our mailing list")
        by_id = {match.skill_id: match for match in matches}
        assert matches[0].skill_id == "sk_newsletter"
        assert by_id["sk_email"].boundary_factor < 1

    def test_an_everyday_boundary_word_pushes_nothing_down(self) -> None:
        triage = SkillDocument(
            skill_id="sk_triage",
            name="bug-triage",
            label="Bug triage",
            description="Triage a bug report: reproduce, severity, component.",
            boundary="Not for explaining what happened in an outage or listing errors.",
        )
        found = evidence("triage this bug: what happened, which errors show", [triage, *DOCUMENTS])
        assert found["sk_triage"].boundary_factor == 1.0

    async def test_a_negated_neighbour_loses_to_the_skill_wanted(self) -> None:
        matches = await SkillMatcher().score_all(
            DOCUMENTS, "Not a newsletter or a campaign: one email to our supplier Lisa Wong about the delay"
        )
        assert matches[0].skill_id == "sk_email"
        assert "newsletter" in request_terms("not a newsletter, an email").negated or any(
            term.startswith("newslett") for term in request_terms("not a newsletter, an email").negated
        )

    @pytest.mark.parametrize(
        ("text", "negated", "wanted"),
        [
            # A dash ends the negated stretch: what follows is the request.
            (
                "No money question here — just a polite email to our landlord Mr Okafor",
                {"money"},
                {"email", "landlord"},
            ),
            ("Not the newsletter -- an email to Lisa Wong in Leeds", {"newslett"}, {"email", "lisa", "leed"}),
            # "not X but Y", "not just X": Y is wanted.
            ("not a newsletter but an email to our supplier", {"newslett"}, {"email", "supplier"}),
            ("不是群发就给 Kevin 单独发一封邮件", {"群发"}, {"邮件", "kevin"}),
            ("不是 newsletter——就给 Kevin 单独发一封 email", {"newslett"}, {"email", "kevin"}),
        ],
    )
    def test_a_negation_ends_at_a_dash_or_a_turn_to_what_is_wanted(
        self, text: str, negated: set[str], wanted: set[str]
    ) -> None:
        terms = request_terms(text)
        assert negated <= terms.negated
        assert not wanted & terms.negated and wanted <= set(terms.distinct)

    async def test_a_request_opening_with_a_negation_still_finds_its_skill(self) -> None:
        # The whole request was one negated clause (no comma before the dash): no candidate at all.
        matches = await SkillMatcher().score_all(
            DOCUMENTS, "No newsletter this time — write one email to our supplier Lisa Wong about the delayed order"
        )
        assert matches and matches[0].skill_id == "sk_email"


class TestSpelling:
    @pytest.mark.parametrize(
        ("request_text", "hint"),
        [
            # The skill writes the American spelling, the request the British one, and the reverse.
            ("Could you summarise this meeting with the Leeds team?", "summarize this meeting"),
            ("which colour chart should I use", "which color chart should I use"),
            ("analyze the survey for the regional centre", "analyse the survey"),
        ],
    )
    def test_a_hint_in_the_other_spelling_is_found_word_for_word(self, request_text: str, hint: str) -> None:
        skill = SkillDocument(skill_id="sk_x", name="x", label="X", description="X.", trigger_hints=(hint,))
        found = evidence(request_text, [skill, EMAIL])["sk_x"]
        assert found.hint == hint and found.hint_coverage == 1.0

    async def test_reasons_show_the_word_as_the_request_wrote_it(self) -> None:
        chart = SkillDocument(
            skill_id="sk_chart", name="chart", label="Charts", description="Visualize data as charts."
        )
        matches = await SkillMatcher().score_all([chart, EMAIL], "how do I visualise monthly sales")
        assert matches[0].skill_id == "sk_chart" and "visualise" in matches[0].words

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            (
                "summarise the colour of the theatre centre, 5 kilometres",
                "summarize the color of the theater center, 5 kilometers",
            ),
            ("the organisation analysed and prioritised", "the organization analyzed and prioritized"),
            # No spelling variant: left as written (else "advertising" and "advertise" would part).
            ("advertising, exercise, surprise, enterprise, revise, raise, noise", None),
            ("our hour, four tours, your flour", None),
            ("数据可视化 PARIS Isen", None),
        ],
    )
    def test_one_spelling(self, text: str, expected: str | None) -> None:
        assert one_spelling(text) == (expected if expected is not None else text)


class TestLongRequests:
    """A request of the longest length allowed (4,000 characters): the lexical index reads it whole,
    as a short one; the matcher reads one over ``QUIVER_SKILL_REQUEST_CHARS`` by its sentences."""

    FILLER = "请帮我看看这个订单 and check the delivery status of the parcel please. " * 60

    def test_a_hint_at_the_very_end_of_a_long_request_is_found_word_for_word(self) -> None:
        query = (self.FILLER + "帮我写一封邮件")[-4000:]
        found = evidence(query)["sk_email"]
        assert found.hint == "帮我写一封邮件" and found.hint_coverage == 1.0
        english = self.FILLER[:3900] + " then write meeting notes"
        assert evidence(english)["sk_meeting"].hint == "meeting notes"

    def test_a_phrase_split_across_a_long_request_is_no_phrase(self) -> None:
        query = "meeting " + self.FILLER[:3000] + " notes"
        assert evidence(query)["sk_meeting"].hint_coverage < 1.0

    def test_repeated_words_are_read_alike_wherever_they_stand(self) -> None:
        once = request_terms("Send it to Visa today. Visa asked.")
        assert "visa" in once.names  # capitalised mid-sentence
        # The same word at the start of a sentence only: no name, however often it was read before.
        assert "visa" not in request_terms("Visa asked. " * 300).names
        assert "visa" in request_terms("Visa asked. " * 300 + "Ask Visa.").names
        long = request_terms("Draft an email to Ms. Wong about order 4471. " * 80)
        short = request_terms("Draft an email to Ms. Wong about order 4471.")
        assert (long.distinct, long.names, long.surface) == (short.distinct, short.names, short.surface)
        assert len(long.sequence) == 80 * len(short.sequence)

    async def test_the_catalogue_answers_a_long_request_as_its_meaningful_part(self) -> None:
        documents = catalogue()
        short = await SkillMatcher().match(documents, "I want a refund for this purchase", top_k=3)
        padded = await SkillMatcher().match(documents, "I want a refund for this purchase. " * 110, top_k=3)
        assert [match.skill_id for match in padded] == [match.skill_id for match in short]
        assert short[0].skill_id == "refund-request"

    async def test_without_a_model_a_long_everyday_message_matches_nothing(self) -> None:
        # Scored whole, the everyday words of a long message added up to some skill (57 % of the
        # benchmark's padded no-skill requests); read by its sentences, none of them asks for one.
        chatter = (
            "We got back from Lisbon on Sunday and the kids are still on holiday time. "
            "The weather was great, the hotel was fine, and Dana wants to go again next year. "
            "My sister called about the family dinner in March and the train tickets. "
            "Nothing urgent, just catching up on everything that happened while we were away. "
            "Anyway, what time does the Louvre open on Tuesdays in August?"
        )
        matcher = SkillMatcher()
        assert matcher.embeddings is None and len(chatter) > matcher.request_chars
        assert await matcher.match(catalogue(), chatter, top_k=5) == []

    async def test_without_a_model_the_ask_at_the_end_of_a_long_message_is_found(self) -> None:
        context = (
            "We got back from Lisbon on Sunday and the kids are still on holiday time. "
            "The weather was great, the hotel was fine, and Dana wants to go again next year. "
            "My sister called about the family dinner in March and the train tickets. "
        )
        ask = "Our Stripe account got a chargeback on order 20431 from Toronto, help me answer it."
        matches = await SkillMatcher().match(catalogue(), context + ask, top_k=5)
        assert matches and matches[0].skill_id == "chargeback-dispute"
        assert "in the part" in matches[0].reason


class TestDecision:
    async def test_a_clear_request_passes_the_gate_and_says_why(self) -> None:
        matches = await SkillMatcher().match(
            catalogue(), "Our Stripe account got a chargeback on order 20431 from Toronto, help me answer it", top_k=5
        )
        assert matches and matches[0].skill_id == "chargeback-dispute"
        assert 0 < matches[0].score <= 1 and "PHRASE" in matches[0].signals

    async def test_an_everyday_request_gets_nothing_unless_min_score_asks_for_the_raw_top_k(self) -> None:
        request = "What time does the Louvre open on Tuesdays, and can we buy tickets at the door in August?"
        matcher = SkillMatcher()
        assert await matcher.match(catalogue(), request, top_k=5) == []
        raw = await matcher.match(catalogue(), request, top_k=3, min_score=0.0)
        assert 0 < len(raw) <= 3 and raw == sorted(raw, key=lambda match: -match.score)

    def test_the_gate_reads_how_far_the_nearest_skill_stands_above_the_next(self) -> None:
        def candidate(skill: SkillDocument, similarity: float, gap: float, pair_margin: float) -> Candidate:
            features = dict.fromkeys(FEATURES, 0.0) | {
                "similarity": similarity,
                "similarity_gap": gap,
                "pair_margin": pair_margin,
            }
            return Candidate(0, skill, LexicalEvidence(), similarity, features=tuple(features.values()))

        pool = [candidate(EMAIL, 0.52, 0.11, 0.12), candidate(NEWSLETTER, 0.41, -0.11, 0.05)]
        assert gate_features(pool) == (0.12, 0.0, 0.0, 0.11)

    def test_past_the_gate_runners_up_come_back_down_to_a_share_of_the_best(self) -> None:
        passes = Calibration(candidate=(0.0,) * (len(FEATURES) + 1), gate=(10.0, 0.0, 0.0, 0.0, 0.0), threshold=0.5)
        probabilities = ((EMAIL, 0.8), (NEWSLETTER, 0.8 * RUNNER_UP_SHARE * 1.5), (MEETING, 0.004))
        pool = [
            Candidate(0, skill, LexicalEvidence(), features=(0.0,) * len(FEATURES), probability=probability)
            for skill, probability in probabilities
        ]
        assert [kept.document.skill_id for kept in gate(pool, passes)] == ["sk_email", "sk_newsletter"]
        refuses = Calibration(passes.candidate, gate=(-10.0, 0.0, 0.0, 0.0, 0.0), threshold=0.5)
        assert gate(pool, refuses) == []

    @pytest.mark.parametrize(
        ("text", "unspaced"),
        [
            ("我不想找银行做 chargeback\uff0c直接把 Ticketmaster 取消那场演出的 $140 退给我就好。", True),
            ("帮我写一封邮件", True),
            ("Meet 王总 on Friday about the contract renewal with Acme", False),
            ("refund order 20431, please", False),
            ("2024-03-01", False),
        ],
    )
    def test_a_request_is_read_as_chinese_by_characters_against_words(self, text: str, unspaced: bool) -> None:
        assert is_mostly_unspaced_request(text) is unspaced

    def test_a_chinese_request_is_gated_at_the_threshold_of_its_script(self) -> None:
        calibration = Calibration(
            candidate=(0.0,) * (len(FEATURES) + 1), gate=(0.0,) * 5, threshold=0.9, threshold_unspaced=0.4
        )
        pool = [Candidate(0, EMAIL, LexicalEvidence(), features=(0.0,) * len(FEATURES), probability=0.6)]
        # The gate's probability is 0.5 for any request here: over the Chinese cut, under the other.
        assert gate(pool, calibration, unspaced=True) == pool
        assert gate(pool, calibration, unspaced=False) == []
        assert Calibration(calibration.candidate, calibration.gate, 0.9).threshold_for(True) == 0.9

    def test_a_cut_request_is_gated_at_the_cut_threshold_of_its_script(self) -> None:
        calibration = Calibration(
            candidate=(0.0,) * (len(FEATURES) + 1),
            gate=(0.0,) * 5,
            threshold=0.4,
            threshold_unspaced=0.3,
            threshold_cut=0.45,
            threshold_cut_unspaced=0.6,
        )
        pool = [Candidate(0, EMAIL, LexicalEvidence(), features=(0.0,) * len(FEATURES), probability=0.6)]
        # The gate's probability is 0.5: under the cut threshold of a Chinese cut request only.
        assert gate(pool, calibration, unspaced=False, cut=True) == pool
        assert gate(pool, calibration, unspaced=True, cut=True) == []
        assert gate(pool, calibration, unspaced=True) == pool
        assert [calibration.threshold_for(u, c) for u in (False, True) for c in (False, True)] == [0.4, 0.45, 0.3, 0.6]
        # Without cut thresholds a cut request reads its script's short one.
        short = Calibration(calibration.candidate, calibration.gate, 0.4, 0.3)
        assert (short.threshold_for(False, True), short.threshold_for(True, True)) == (0.4, 0.3)

    @pytest.mark.parametrize(
        ("text", "share"),
        [("周末去 Tokyo 玩", 5 / 9), ("帮我写一封邮件", 0.0), ("refund order 20431", 1.0), ("2024-03-01", 0.0)],
    )
    def test_the_latin_share_counts_letters_against_chinese_characters(self, text: str, share: float) -> None:
        assert latin_share(text) == pytest.approx(share)

    def test_a_chinese_request_with_latin_letters_is_gated_towards_the_english_threshold(self) -> None:
        calibration = Calibration(
            candidate=(0.0,) * (len(FEATURES) + 1),
            gate=(0.0,) * 5,
            threshold=0.8,
            threshold_unspaced=0.4,
            threshold_cut_unspaced=0.6,
            mixed_slope=2.0,
        )
        pool = [Candidate(0, EMAIL, LexicalEvidence(), features=(0.0,) * len(FEATURES), probability=0.6)]
        # The gate's probability is 0.5: over the Chinese cut, under it once a quarter of the letters
        # are Latin (0.4 + 2 * 0.25 * 0.4 = 0.6); half of them reach the English threshold.
        assert gate(pool, calibration, unspaced=True, latin=0.1) == pool
        assert gate(pool, calibration, unspaced=True, latin=0.25) == []
        assert [calibration.threshold_for(True, False, share) for share in (0.0, 0.1, 0.25, 0.5, 0.9)] == [
            0.4,
            0.48,
            0.6,
            0.8,
            0.8,
        ]
        # A cut request moves from its own Chinese threshold; an English request is untouched.
        assert calibration.threshold_for(True, True, 0.25) == 0.7
        assert calibration.threshold_for(False, False, 0.9) == 0.8
        # Without a slope (the lexical calibration) the letters change nothing.
        assert replace(calibration, mixed_slope=0.0).threshold_for(True, False, 0.5) == 0.4

    async def test_the_index_is_built_once_per_catalogue(self) -> None:
        matcher = SkillMatcher()
        documents = catalogue()
        await matcher.score_all(documents, "refund my order")
        await matcher.score_all(list(documents), "track my parcel")
        assert len(matcher._catalogues) == 1
        await matcher.score_all(documents[:10], "track my parcel")
        assert len(matcher._catalogues) == 2


class HashingEmbeddings:
    """Deterministic character-trigram vectors: similar strings get similar vectors."""

    model_name = "test:hashing"

    def __init__(self, query_chars: int = 0) -> None:
        self.calls: list[int] = []
        self.batches: list[list[str]] = []
        self.query_chars = query_chars

    async def embed(self, texts: Sequence[str]) -> Any:
        self.calls.append(len(texts))
        self.batches.append(list(texts))
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


class TestSemantic:
    async def test_a_long_request_is_embedded_from_its_first_characters_and_read_whole(self) -> None:
        provider = HashingEmbeddings(query_chars=60)
        matcher = SkillMatcher(embeddings=EmbeddingCache(provider), request_chars=0)  # as knowledge search
        request = "Please look at the order of the parcel for the Berlin office. " * 60 + "then write meeting notes"
        await matcher.match(catalogue(), request, top_k=3)
        assert [len(text) for text in provider.batches[-1]] == [60]  # the request, embedded last
        assert evidence(request)["sk_meeting"].hint == "meeting notes"  # the lexical side reads it all
        assert query_text(provider, "short") == "short"
        assert query_text(HashingEmbeddings(), request) == request

    async def test_a_message_an_agent_takes_reaches_an_endpoint_without_a_cap_as_its_two_ends(self) -> None:
        # 32,000 characters (invokeAgent's and skillRouting's bound) went whole to an OpenAI-compatible
        # endpoint: up to 32,000 tokens of Chinese, which a real embedding model refuses.
        ask = "Please write meeting notes for the Berlin office."
        context = "我们上周搬进了新的办公室。The team had lunch on the terrace. "
        request = (context * 1_000)[: 32_000 - len(ask) - 1] + "\n" + ask
        assert len(request) == 32_000
        with running_embedding_server() as server:
            provider = OpenAIEmbeddings(model="concepts-1", base_url=server.base_url, api_key=None)
            try:
                found = await SkillMatcher(embeddings=EmbeddingCache(provider)).score_all(catalogue(), request)
            finally:
                await provider.close()
            sent = [text for body in server.state.requests for text in body["input"]]  # type: ignore[attr-defined]
        embedded = sent[-1]  # the request, embedded after the skills and the everyday topics
        assert max(len(text) for text in sent) == len(embedded) == 4_000 + 1
        assert embedded.endswith(ask) and embedded.startswith("我们上周")  # its two ends, joined by a space
        assert [(match.skill_id, match.hint) for match in found if match.hint] == [("meeting-summary", "meeting notes")]
        short = "Please write meeting notes."
        assert request_embedding_text(short, 4_000) == short  # a query (at most 4,000 characters) goes whole

    async def test_a_long_request_is_embedded_as_its_first_and_last_sentences_under_the_local_cap(self) -> None:
        provider = HashingEmbeddings(query_chars=1_000)  # a provider with a query cap: the local model
        matcher = SkillMatcher(embeddings=EmbeddingCache(provider), request_chars=100)
        request = "Write meeting notes for Ana. " + "Some context about the Berlin office move. " * 40 + "Due Friday."
        matches = await matcher.match(catalogue(), request, top_k=3, min_score=0.0)
        # One call, two segments: the opening sentence and the closing one (a fragment joins its neighbour).
        assert provider.batches[-1] == [
            "Write meeting notes for Ana. Some context about the Berlin office move.",
            "Some context about the Berlin office move. Due Friday.",
        ]
        assert matches and all("in the part" in match.reason for match in matches)

        await matcher.match(catalogue(), "draft an email to Ana about the move", top_k=3)
        assert provider.batches[-1] == ["draft an email to Ana about the move"]  # up to the cap: whole

    def test_ask_segments(self) -> None:
        assert ask_segments("") == []
        assert ask_segments("One sentence only, long enough to stand on its own.") == [
            "One sentence only, long enough to stand on its own."
        ]
        # Fragments shorter than the minimum join their neighbour, from the outside in.
        assert ask_segments("Hi. Tell me. " + "A middle sentence that is long enough. " * 3 + "Thanks! Bye.") == [
            "Hi. Tell me. A middle sentence that is long enough.",
            "A middle sentence that is long enough. Thanks! Bye.",
        ]
        chinese = "上个月我们把仓库搬到了太仓\uff0c新仓库的面积大了一倍。中间的话。客户问钱什么时候能退给她\uff1f"
        assert ask_segments(chinese) == [
            "上个月我们把仓库搬到了太仓\uff0c新仓库的面积大了一倍。",
            "中间的话。 客户问钱什么时候能退给她\uff1f",
        ]
        # A sentence too long for the model's budget is embedded from its two ends.
        assert len(matching._within("word " * 400, 500)) <= 500

    async def test_the_request_cap_leaves_providers_without_a_query_cap_alone(self) -> None:
        provider = HashingEmbeddings()  # e.g. an OpenAI-compatible endpoint: embeds what it gets
        matcher = SkillMatcher(embeddings=EmbeddingCache(provider), request_chars=40)
        request = "Write meeting notes for Ana. " * 10
        await matcher.match(catalogue(), request, top_k=3)
        assert provider.batches[-1] == [request.strip()]

    async def test_the_gate_reads_the_cut_threshold_for_a_request_the_model_sees_cut(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        provider = HashingEmbeddings(query_chars=1_000)
        matcher = SkillMatcher(embeddings=EmbeddingCache(provider), request_chars=40)
        # Every request's gate probability is 0.5 (zero weights): over the short cut, under the long one.
        calibration = Calibration((0.0,) * (len(FEATURES) + 1), (0.0,) * 5, threshold=0.4, threshold_cut=0.6)
        monkeypatch.setitem(matching.SEMANTIC_CALIBRATIONS, provider.model_name, calibration)
        short = "the Berlin office move on Friday"
        long = short + ", with context about the move and the boxes." * 3
        assert not matcher.is_cut(short) and matcher.is_cut(long)
        assert await matcher.match(catalogue(), short, top_k=3)
        assert await matcher.match(catalogue(), long, top_k=3) == []
        # Not cut: no embeddings, the first-N cut (request chars 0), or a provider without a query cap.
        assert not SkillMatcher(request_chars=40).is_cut(long)
        assert not SkillMatcher(embeddings=EmbeddingCache(provider), request_chars=0).is_cut(long)
        assert not SkillMatcher(embeddings=EmbeddingCache(HashingEmbeddings()), request_chars=40).is_cut(long)

    def test_request_embedding_text(self) -> None:
        assert request_embedding_text("abcdefghij", 10) == "abcdefghij"
        assert request_embedding_text("abcdefghijk", 5) == "abc jk"
        assert request_embedding_text("abcdefghijk", 1) == "a"
        assert request_embedding_text("abcdefghijk", 0) == "abcdefghijk"

    async def test_each_hint_is_embedded_on_its_own_once(self) -> None:
        provider = HashingEmbeddings()
        matcher = SkillMatcher(embeddings=EmbeddingCache(provider))

        first = await matcher.score_all(DOCUMENTS, "draft an email to the team")
        await matcher.score_all(DOCUMENTS, "summarize this meeting with Ana")
        await matcher.score_all(DOCUMENTS, "draft an email to the team")  # the request's vector is cached
        await matcher.score_all(DOCUMENTS, "summarize this meeting")  # a hint's own text: already embedded

        skill_texts = sum(len(document.semantic_texts()) for document in DOCUMENTS)
        assert provider.calls == [skill_texts, len(EVERYDAY_TOPICS), 1, 1]
        top = first[0]
        assert top.skill_id == "sk_email" and top.semantic is not None
        assert top.nearest_text == "draft an email" and "SEMANTIC" in top.signals

    @pytest.mark.parametrize(
        ("text", "embedded"),
        [
            ("请帮我总结一下会议", "总结会议"),
            ("帮我写一封邮件", "写一封邮件"),
            ("我想申请退款\uff0c能不能尽快\uff1f", "申请退款\uff0c尽快\uff1f"),
            ("好的。请把合同看一下", "好的。把合同看"),
            ("帮我", "帮我"),
            ("Please help me draft an email", "Please help me draft an email"),
        ],
    )
    def test_chinese_request_framing_is_not_embedded(self, text: str, embedded: str) -> None:
        assert semantic_form(text) == embedded

    async def test_request_and_hints_are_embedded_without_their_framing_and_reported_as_written(self) -> None:
        provider = HashingEmbeddings()
        seen: list[str] = []
        embed = provider.embed

        async def recording(texts: Sequence[str]) -> Any:
            seen.extend(texts)
            return await embed(texts)

        provider.embed = recording  # type: ignore[method-assign]
        matcher = SkillMatcher(embeddings=EmbeddingCache(provider))

        matches = await matcher.score_all(DOCUMENTS, "请帮我写一封邮件给王总")

        assert "写一封邮件" in seen and "帮我写一封邮件" not in seen and "写一封邮件给王总" in seen
        assert matches[0].skill_id == "sk_email" and matches[0].nearest_text == "帮我写一封邮件"

    def test_per_skill_reductions_agree_with_a_plain_loop(self) -> None:
        rng = np.random.default_rng(7)
        documents = [
            SkillDocument(skill_id=f"s{i}", name=f"s{i}", label=f"S {i}", description="d", trigger_hints=hints)
            for i, hints in enumerate([(), ("a",), ("a", "b", "c"), ("a", "b"), ()])
        ]
        rows = sum(len(document.semantic_texts()) for document in documents)
        index = _SemanticIndex.build(documents, list(rng.standard_normal((rows, 8)).astype(np.float32)))
        similarities = rng.standard_normal(rows).astype(np.float32)

        best, pair, best_rows = index.per_skill(similarities)

        for position in range(len(documents)):
            mine = sorted((float(similarities[row]), row) for row in np.flatnonzero(index.owners == position))[::-1]
            assert best[position] == pytest.approx(mine[0][0]) and best_rows[position] == mine[0][1]
            expected_pair = (mine[0][0] + mine[1][0]) / 2 if len(mine) > 1 else mine[0][0]
            assert pair[position] == pytest.approx(expected_pair)
            assert index.texts[mine[0][1]] in documents[position].semantic_texts()

    async def test_a_failing_provider_degrades_to_lexical(self) -> None:
        matcher = SkillMatcher(embeddings=EmbeddingCache(BrokenEmbeddings()))

        matches = await matcher.score_all(DOCUMENTS, "draft an email")

        assert matches[0].skill_id == "sk_email"
        assert matches[0].semantic is None and matches[0].nearest_text is None

    async def test_the_local_model_recognises_a_paraphrase_in_english_and_chinese(self) -> None:
        from app.knowledge.embeddings import LocalEmbeddings

        matcher = SkillMatcher(embeddings=EmbeddingCache(LocalEmbeddings()))

        english = await matcher.score_all(DOCUMENTS, "reply to the client's mail about the delayed shipment")
        chinese = await matcher.score_all(DOCUMENTS, "今天的会开完了 请把会上的决定和分工整理成一份记录")

        assert english[0].skill_id == "sk_email"
        assert english[0].lexical == 0 and english[0].semantic is not None and english[0].semantic > 0
        # The model is multilingual: a Chinese paraphrase sharing no hint is found by its meaning.
        assert chinese[0].skill_id == "sk_meeting" and chinese[0].lexical == 0
        assert chinese[0].semantic is not None and chinese[0].semantic > 0


@pytest.fixture(scope="module")
def matcher() -> SkillMatcher:
    """A matcher with the bundled local model (loaded once per process)."""
    from app.knowledge.embeddings import LocalEmbeddings

    return SkillMatcher(embeddings=EmbeddingCache(LocalEmbeddings()))


class TestGateWithTheLocalModel:
    """The calibrated gate of the bundled model on requests written for this test (not from the
    benchmark's sets): everyday requests get nothing, unless ``minScore`` asks for the raw top-k;
    long requests full of names that do have a skill get it."""

    @pytest.mark.parametrize(
        "request_text",
        [
            "Which beach near Nice is best for snorkelling with kids in July?",
            "How do I stop my sourdough from going flat after the second rise?",
            "我家仓鼠最近不怎么吃东西\uff0c是生病了吗\uff1f",
            "周末去苏州园林玩\uff0c拙政园和留园哪个更值得去\uff1f",
        ],
    )
    async def test_an_everyday_request_gets_nothing_by_default(self, matcher: SkillMatcher, request_text: str) -> None:
        assert await matcher.match(catalogue(), request_text, top_k=5) == []
        raw = await matcher.match(catalogue(), request_text, top_k=3, min_score=0.0)
        assert len(raw) == 3 and [match.score for match in raw] == sorted((match.score for match in raw), reverse=True)

    async def test_a_mixed_everyday_request_is_held_to_more_than_the_chinese_threshold(
        self, matcher: SkillMatcher
    ) -> None:
        request = "想读 Sherlock Holmes\uff0c看哪个中文译本比较好\uff1f"
        candidates = await matcher.candidates(catalogue(), request)
        probability = applies(candidates, matcher.calibration)
        # Over the Chinese threshold, under the one of a request half of whose letters are Latin.
        assert (
            matcher.calibration.threshold_for(True)
            <= probability
            < matcher.calibration.threshold_for(True, False, latin_share(request))
        )
        assert await matcher.match(catalogue(), request, top_k=5) == []

    @pytest.mark.parametrize(
        ("request_text", "skill_id"),
        [
            ("这个 Python function 的 unit test 帮我补一下\uff0cedge case 包括空 list 和 None。", "unit-tests"),
            (
                "用 kubectl describe 看到 pod 一直 Pending\uff0cnode 资源够的\uff0c为什么调度不上\uff1f",
                "kubernetes-troubleshooting",
            ),
            (
                "客户 Linda 在 Amazon 上买的 Kindle 坏了\uff0c还在 warranty 期内\uff0c帮她开个 repair claim。",
                "warranty-claim",
            ),
        ],
    )
    async def test_a_mixed_request_with_a_right_skill_still_finds_it(
        self, matcher: SkillMatcher, request_text: str, skill_id: str
    ) -> None:
        assert latin_share(request_text) >= 0.5
        matches = await matcher.match(catalogue(), request_text, top_k=5)
        assert matches and matches[0].skill_id == skill_id

    @pytest.mark.parametrize(
        ("request_text", "skill_id"),
        [
            (
                "Arjun from the Pune office sent me last week's call recording with Tata Steel; "
                "I need who agreed to what and by when.",
                "meeting-summary",
            ),
            ("客户上个月在我们天猫店买的扫地机器人寄回来了\uff0c钱什么时候退给她\uff1f", "refund-request"),
        ],
    )
    async def test_a_paraphrase_full_of_names_passes_the_gate(
        self, matcher: SkillMatcher, request_text: str, skill_id: str
    ) -> None:
        matches = await matcher.match(catalogue(), request_text, top_k=5)
        assert matches and matches[0].skill_id == skill_id and "SEMANTIC" in matches[0].signals


class TestLongRequestsWithTheLocalModel:
    """A request longer than the local model's cap (``QUIVER_SKILL_REQUEST_CHARS``, 300) is read as
    its first and last sentences, each scored as a short request: a paragraph of context, then the
    ask, finds the ask's skill; a long everyday message gets nothing."""

    async def test_a_long_request_whose_ask_is_its_last_sentence_gets_the_skill(self, matcher: SkillMatcher) -> None:
        request = (
            "We moved the Lisbon warehouse to the new site in Setúbal last month and the team there is still "
            "settling in. Marta Silva runs the floor now, with twelve pickers on two shifts, and the old scanners "
            "were replaced by handhelds from Zebra. Customers in Porto have been asking about delays since the "
            "move, and our courier, CTT, changed its pick-up window to 4 pm. Can you turn yesterday's call with "
            "Marta and the CTT account manager into notes of who agreed to what and by when?"
        )
        assert matcher.is_cut(request)
        matches = await matcher.match(catalogue(), request, top_k=5)
        found = next(match for match in matches if match.skill_id == "meeting-summary")
        assert "in the part \"Can you turn yesterday's call" in found.reason

    async def test_a_long_chinese_request_whose_ask_is_its_last_sentence_gets_the_skill(
        self, matcher: SkillMatcher
    ) -> None:
        request = (
            "上个月我们把华东仓从昆山搬到了太仓\uff0c新仓库的面积大了一倍\uff0c拣货员也从十个人加到了二十个人。"
            "搬家花了整整两周\uff0c期间老仓库的租约到期\uff0c房东同意我们多用了五天\uff0c押金也按时退了回来\uff0c"
            "新仓库的消防验收和电力增容都是在最后一周才办完的\uff0c员工宿舍和食堂也还在装修\uff0c"
            "大家暂时住在附近的酒店里\uff0c每天坐班车上下班\uff0c一来一回要一个小时。"
            "搬家期间有不少订单延误\uff0c客服那边接到了很多投诉\uff0c大部分是问包裹到哪了。"
            "物流合作方也从中通换成了顺丰\uff0c新的合同按件计费\uff0c比以前便宜了一些\uff0c但偏远地区的运费反而涨了\uff0c"
            "我们还在和他们谈。仓库的货架也全部换成了新的\uff0c原来的叉车卖给了隔壁的工厂。"
            "客户王女士买的空气净化器坏了\uff0c寄回来了\uff0c她问钱什么时候能退给她\uff1f"
        )
        assert matcher.is_cut(request)
        matches = await matcher.match(catalogue(), request, top_k=5)
        assert matches and matches[0].skill_id == "refund-request"
        assert "空气净化器" in matches[0].reason

    async def test_a_long_request_whose_ask_is_a_middle_sentence_naming_its_hint_gets_the_skill(
        self, matcher: SkillMatcher
    ) -> None:
        request = (
            "The payment service in the Frankfurt region went down on Saturday night for 52 minutes, and the "
            "on-call engineer, Jonas Weber, rolled back the release at 23:40. "
            "Customers in Vienna and Zurich saw failed card payments, and support logged 340 tickets. "
            "Please write a postmortem for the leadership review on Monday. "
            "Jonas is on leave from Tuesday, so the timeline from his notes has to be checked before then. "
            "The release itself was a routine dependency upgrade that passed every check in staging."
        )
        assert matcher.is_cut(request)
        matches = await matcher.match(catalogue(), request, top_k=5)
        assert matches and matches[0].skill_id == "incident-postmortem"
        assert matches[0].hint == "write a postmortem"
        assert "in the part 'Please write a postmortem" in matches[0].reason

    @pytest.mark.parametrize(
        "request_text",
        [
            "My sister is visiting from Melbourne next week with her two kids, who are seven and nine, and they "
            "have never seen snow. We live about two hours from the mountains, and the forecast says it will be "
            "cold but clear on Saturday and Sunday. My car is small, so we would probably rent something bigger "
            "for the trip, and the kids get carsick on winding roads. What should we pack for a day of sledding, "
            "and are there any good spots for beginners?",
            "这周末我们一家人打算去郊区露营\uff0c孩子们都很兴奋\uff0c已经把帐篷和睡袋拿出来晒了。"
            "我们上次露营还是去年秋天\uff0c那次下了一整夜的雨\uff0c帐篷漏水\uff0c大家都没睡好\uff0c所以这次特地买了一顶新的四季帐篷\uff0c"
            "还多带了一块防潮垫和一个小的户外电源\uff0c可以给手机和小灯充电\uff0c孩子们还准备了望远镜和星空图。"
            "天气预报说周六白天晴\uff0c晚上可能降到五度左右\uff0c山里风也比较大\uff0c我担心孩子晚上会冷\uff0c老人膝盖也不太好。"
            "营地离市区大概一个半小时车程\uff0c路上有一段山路比较绕\uff0c孩子容易晕车\uff0c我们打算早上七点出发\uff0c中午前到。"
            "下午带孩子去河边玩水捡石头\uff0c晚上围着篝火讲故事\uff0c第二天上午爬附近的一座小山再回家。"
            "附近有一条小河\uff0c可以钓鱼\uff0c也有烧烤区。晚上露营需要准备哪些保暖的东西\uff1f",
        ],
    )
    async def test_a_long_everyday_request_gets_nothing(self, matcher: SkillMatcher, request_text: str) -> None:
        assert matcher.is_cut(request_text)
        assert await matcher.match(catalogue(), request_text, top_k=5) == []
        raw = await matcher.match(catalogue(), request_text, top_k=3, min_score=0.0)
        assert len(raw) == 3 and all("in the part" in match.reason for match in raw)


def reranker_on(server: OpenAIServer, model: str) -> OpenAIReranker:
    return OpenAIReranker(model=model, base_url=server.base_url, api_key=API_KEY, timeout_s=10)


class TestRerank:
    async def test_the_model_reorders_and_explains(self, openai_server: OpenAIServer) -> None:  # noqa: F811
        model = openai_server.model("rerank")
        answer = {
            "ranking": [
                {"id": "sk_meeting", "score": 0.9, "reason": "The user wants a recap of a call."},
                {"id": "sk_email", "score": 0.2, "reason": "Mentions an email only in passing."},
            ]
        }
        model.push(final("```json\n" + json.dumps(answer) + "\n```"))
        matcher = SkillMatcher(reranker=reranker_on(openai_server, model.name))

        matches = await matcher.match(DOCUMENTS, "email me a summary of this meeting", top_k=3)

        assert [(match.skill_id, match.score) for match in matches] == [("sk_meeting", 0.9), ("sk_email", 0.2)]
        assert matches[0].model_reason == "The user wants a recap of a call." and "MODEL" in matches[0].signals
        sent = json.loads(model.requests[0]["messages"][1]["content"])
        assert sent["request"] == "email me a summary of this meeting"
        assert {skill["id"] for skill in sent["skills"]} <= {"sk_email", "sk_meeting", "sk_newsletter"}

    async def test_the_model_may_answer_that_none_applies(self, openai_server: OpenAIServer) -> None:  # noqa: F811
        model = openai_server.model("rerank")
        model.push(final(json.dumps({"ranking": []})))
        matcher = SkillMatcher(reranker=reranker_on(openai_server, model.name))

        assert await matcher.match(DOCUMENTS, "summarize this meeting", top_k=3) == []
        assert model.remaining == 0

    async def test_an_unusable_answer_falls_back_to_the_gate(self, openai_server: OpenAIServer) -> None:  # noqa: F811
        model = openai_server.model("rerank")
        model.push(final("I think the meeting one."))
        plain = await SkillMatcher().match(DOCUMENTS, "summarize this meeting", top_k=3)

        reranked = await SkillMatcher(reranker=reranker_on(openai_server, model.name)).match(
            DOCUMENTS, "summarize this meeting", top_k=3
        )

        assert plain and reranked == plain

    async def test_a_failing_endpoint_falls_back_to_the_gate(self, openai_server: OpenAIServer) -> None:  # noqa: F811
        model = openai_server.model("rerank")
        model.push(http_error(503))
        plain = await SkillMatcher().match(DOCUMENTS, "summarize this meeting", top_k=3)

        reranked = await SkillMatcher(reranker=reranker_on(openai_server, model.name)).match(
            DOCUMENTS, "summarize this meeting", top_k=3
        )

        assert plain and reranked == plain

    def test_parse_ignores_unknown_ids_and_clips_scores(self) -> None:
        candidates = [(EMAIL, _match("sk_email")), (MEETING, _match("sk_meeting"))]
        answer = json.dumps([{"id": "sk_other", "score": 1}, {"id": "sk_email", "score": 7, "reason": "x\ny"}])

        ranked = parse_ranking(answer, candidates)

        assert ranked is not None
        assert [(match.skill_id, match.score, match.reason) for match in ranked] == [("sk_email", 1.0, "x y")]


def _match(skill_id: str) -> Match:
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
        assert "no match" in decision.dropped[0].reason or "below the minimum" in decision.dropped[0].reason
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
