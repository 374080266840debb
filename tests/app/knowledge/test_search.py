"""Hybrid search: lexical on both backends (Chinese included), vectors, fusion, duplicates, failures."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.knowledge import repository
from app.knowledge import search as search_module
from app.knowledge.embeddings import EmbeddingError, Matrix
from app.knowledge.search import (
    LEXICAL_WEIGHT,
    RRF_K,
    VECTOR_WEIGHT,
    KnowledgeSearch,
    by_document,
    fuse,
    fuse_documents,
)
from tests.app.knowledge.support import ConceptEmbedder, add_document, ingestor, make_kb, make_space

SessionFactory = async_sessionmaker[AsyncSession]

ZH_LEAVE = "# 请假制度\n\n员工每年有二十五天带薪年假。病假需要在上午九点前通知经理。"
ZH_DATABASE = "# 数据库\n\n为经常查询的列建立索引，可以显著加快查询速度。"  # noqa: RUF001 - Chinese punctuation
ZH_TRAVEL = "# 差旅报销\n\n出差的交通和住宿费用凭发票报销，需在三十天内提交。"  # noqa: RUF001


async def titles(search: KnowledgeSearch, kb_ids: list[str], query: str, top_k: int = 5) -> list[str]:
    return [hit.title for hit in (await search.search(kb_ids, query, top_k)).hits]


class TestLexical:
    async def test_the_chunk_holding_every_word_is_found_past_a_crowd_of_partial_matches(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # PostgreSQL ranks at most POSTGRES_RANK_POOL chunks of an OR query: made tiny
        # here, the chunk with every query word must still come first (the AND pass).
        monkeypatch.setattr(repository, "POSTGRES_RANK_POOL", 2)
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        for number in range(6):
            await add_document(session_factory, kb.id, f"Noise {number}", f"The invoice number {number} was printed.")
        await add_document(session_factory, kb.id, "Target", "Approve the invoice before the quarterly audit closes.")

        found = await titles(KnowledgeSearch(session_factory), [kb.id], "invoice audit approve", 3)

        assert found[0] == "Target" and len(found) == 3

    async def test_the_fallback_pool_goes_to_chunks_not_found_yet(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # PostgreSQL: fewer than `limit` chunks found by the AND and rare-word passes, the chunks
        # holding any word fill up the rest; their pool (3 here) must not be spent on chunks
        # already found (the three holding every word, stored first), or only those come back.
        monkeypatch.setattr(repository, "POSTGRES_RANK_POOL", 3)
        common = repository.TermStats(rows=1000.0, frequency={"invoice": 0.5}, rare=0.0001)

        async def stats(*_: Any) -> repository.TermStats:
            return common

        monkeypatch.setattr(repository, "postgres_term_stats", stats)
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        for number in range(3):
            await add_document(session_factory, kb.id, f"Full {number}", f"Approve invoice {number} before the audit.")
        for number in range(4):
            await add_document(session_factory, kb.id, f"Noise {number}", f"The invoice number {number} was printed.")

        found = await titles(KnowledgeSearch(session_factory), [kb.id], "invoice audit approve", 5)

        assert sorted(found[:3]) == ["Full 0", "Full 1", "Full 2"]
        assert len(found) == 5 and all(title.startswith("Noise") for title in found[3:])

    async def test_best_match_first_with_citation_data(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "Cooking", "# Pasta\n\nBoil the pasta in salted water.", "cook.md")
        target = await add_document(
            session_factory,
            kb.id,
            "Databases",
            "# Storage\n\n## Indexes\n\nAn index on a column speeds up database lookups.",
            "db.md",
        )

        outcome = await KnowledgeSearch(session_factory).search([kb.id], "database index", 5)

        assert not outcome.is_partial
        (hit,) = outcome.hits
        assert hit.document_id == target.document.id
        assert (hit.title, hit.source, hit.heading_path, hit.chunk_index) == (
            "Databases",
            "db.md",
            ("Storage", "Indexes"),
            0,
        )
        assert hit.text == "An index on a column speeds up database lookups."
        assert hit.knowledge_base_id == kb.id
        assert hit.score == pytest.approx(LEXICAL_WEIGHT / (RRF_K + 1))
        assert (hit.lexical_rank, hit.vector_rank) == (1, None)

    async def test_more_matching_words_rank_higher(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "One", "Refund policy for customers.")
        await add_document(session_factory, kb.id, "Two", "Refund requests for damaged parcels must include photos.")

        assert await titles(KnowledgeSearch(session_factory), [kb.id], "refund damaged parcel") == ["Two", "One"]

    async def test_stemming_matches_other_word_forms(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "Deploys", "Deploying services requires approvals.")

        assert await titles(KnowledgeSearch(session_factory), [kb.id], "deployment approval") == ["Deploys"]

    async def test_section_headings_make_a_passage_findable(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(
            session_factory, kb.id, "Handbook", "# Handbook\n\n## Parental leave\n\nSixteen weeks, paid."
        )

        outcome = await KnowledgeSearch(session_factory).search([kb.id], "parental", 5)
        assert [hit.text for hit in outcome.hits] == ["Sixteen weeks, paid."]

    async def test_nothing_matches_gives_no_hits(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "Doc", "Some text.")

        search = KnowledgeSearch(session_factory)
        assert (await search.search([kb.id], "zebra", 5)).hits == []
        assert (await search.search([kb.id], "   ", 5)).hits == []
        assert (await search.search([kb.id], "?!", 5)).hits == []
        assert (await search.search([], "text", 5)).hits == []

    async def test_top_k_limits_the_hits(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        for number in range(8):
            await add_document(
                session_factory, kb.id, f"Doc {number}", f"Widget manual part {number}: widget {'x' * number}."
            )

        assert len((await KnowledgeSearch(session_factory).search([kb.id], "widget", 3)).hits) == 3

    async def test_query_syntax_characters_are_plain_text(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "Quotes", 'He said "NEAR" AND (OR) it\'s fine: a|b & c*.')

        search = KnowledgeSearch(session_factory)
        assert await titles(search, [kb.id], "NEAR\" AND (OR) it's a|b & c* -x ^y :") == ["Quotes"]


class TestChinese:
    @pytest.fixture
    async def kb_id(self, session_factory: SessionFactory) -> str:
        space = await make_space(session_factory, "zh")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "请假", ZH_LEAVE, "leave.md")
        await add_document(session_factory, kb.id, "数据库", ZH_DATABASE, "db.md")
        await add_document(session_factory, kb.id, "报销", ZH_TRAVEL, "travel.md")
        return kb.id

    @pytest.mark.parametrize(
        ("query", "expected"),
        [
            ("年假", "请假"),
            ("病假通知经理", "请假"),
            ("怎样加快查询速度", "数据库"),
            ("索引", "数据库"),
            ("住宿费用报销", "报销"),
            ("发票", "报销"),
        ],
    )
    async def test_unspaced_queries_find_their_passage(
        self, session_factory: SessionFactory, kb_id: str, query: str, expected: str
    ) -> None:
        found = await titles(KnowledgeSearch(session_factory), [kb_id], query)
        assert found[0] == expected

    async def test_a_single_character_query_matches(self, session_factory: SessionFactory, kb_id: str) -> None:
        assert "报销" in await titles(KnowledgeSearch(session_factory), [kb_id], "票")

    async def test_a_word_absent_from_every_document_finds_nothing_relevant(
        self, session_factory: SessionFactory, kb_id: str
    ) -> None:
        assert await titles(KnowledgeSearch(session_factory), [kb_id], "火箭发射") == []

    async def test_mixed_language_documents(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "mixed")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "Mixed", "使用SQLite数据库存储会话。")

        search = KnowledgeSearch(session_factory)
        assert await titles(search, [kb.id], "sqlite") == ["Mixed"]
        assert await titles(search, [kb.id], "会话存储") == ["Mixed"]


class TestScope:
    async def test_only_the_given_knowledge_bases_are_searched(self, session_factory: SessionFactory) -> None:
        alpha = await make_space(session_factory, "alpha")
        beta = await make_space(session_factory, "beta")
        alpha_kb = await make_kb(session_factory, alpha.id)
        beta_kb = await make_kb(session_factory, beta.id)
        await add_document(session_factory, alpha_kb.id, "Alpha secret", "The launch code is tangerine.")
        await add_document(session_factory, beta_kb.id, "Beta note", "Tangerine is a fruit.")

        search = KnowledgeSearch(session_factory)
        assert await titles(search, [beta_kb.id], "tangerine launch code") == ["Beta note"]
        assert set(await titles(search, [alpha_kb.id, beta_kb.id], "tangerine")) == {"Alpha secret", "Beta note"}


class TestNearDuplicates:
    async def test_the_same_passage_in_two_documents_appears_once(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        passage = "Expense reports are due on the fifth working day of each month, with receipts attached."
        await add_document(session_factory, kb.id, "Finance FAQ", passage, "faq.md")
        await add_document(session_factory, kb.id, "Finance FAQ (copy)", passage.replace("month,", "month;"), "copy.md")
        await add_document(session_factory, kb.id, "Other", "Expense limits differ per country.", "other.md")

        outcome = await KnowledgeSearch(session_factory).search([kb.id], "expense reports due", 5)

        assert len(outcome.hits) == 2
        assert outcome.hits[0].title in ("Finance FAQ", "Finance FAQ (copy)")
        assert outcome.hits[1].title == "Other"

    async def test_duplicates_do_not_eat_into_top_k(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        for copy in range(4):
            await add_document(
                session_factory, kb.id, f"Copy {copy}", "Badge access is revoked on the last day.", f"c{copy}.md"
            )
        await add_document(session_factory, kb.id, "Distinct", "Return your badge to security.", "d.md")

        outcome = await KnowledgeSearch(session_factory).search([kb.id], "badge", 2)
        found = [hit.title for hit in outcome.hits]
        assert len(found) == 2
        assert "Distinct" in found
        assert sum(title.startswith("Copy") for title in found) == 1


class TestNearDuplicatesAtScale:
    async def test_a_large_document_is_not_compared_passage_by_passage(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # searchKnowledge(topK: 50) over a KB of fewer than 50 documents reads 400 candidates, each compared
        # with every passage kept before it: 80,000 set intersections for one large document,
        # about a second of the loop that every other request waited behind.
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        sections = [
            f"## Section {index}\n\nBadge rule {index}: " + " ".join(f"w{index}x{word}" for word in range(60))
            for index in range(450)
        ]
        repeated = "## Lost badges\n\nA lost badge is reported to security the same day, and a new one is issued."
        await add_document(session_factory, kb.id, "Handbook", "\n\n".join([repeated, *sections, repeated]))
        compared: list[int] = []
        for name in ("jaccard", "_near_duplicate"):
            if hasattr(search_module, name):
                exact = getattr(search_module, name)

                def counting(first: frozenset[str], second: frozenset[str], exact: Any = exact) -> Any:
                    compared.append(1)
                    return exact(first, second)

                monkeypatch.setattr(search_module, name, counting)

        outcome = await KnowledgeSearch(session_factory).search(
            [kb.id], "badge lost security", 50, documents_first=True
        )

        assert len(outcome.hits) == 50
        assert sum("lost badge is reported" in hit.text for hit in outcome.hits) == 1  # its copy was dropped
        assert len(compared) < 1_000, len(compared)


class TestHybrid:
    async def test_vectors_find_a_passage_with_no_shared_word(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        embedder = ConceptEmbedder()
        using = ingestor(embedder)
        await add_document(session_factory, kb.id, "Pets", "The feline rested on the rug.", using=using)
        await add_document(session_factory, kb.id, "Garage", "A mechanic can mend your automobile.", using=using)

        lexical = KnowledgeSearch(session_factory)
        hybrid = KnowledgeSearch(session_factory, embedder)

        assert await titles(lexical, [kb.id], "cat sleeping on a mat") == []
        outcome = await hybrid.search([kb.id], "cat sleeping on a mat", 5)
        assert [hit.title for hit in outcome.hits] == ["Pets"]
        assert (outcome.hits[0].lexical_rank, outcome.hits[0].vector_rank) == (None, 1)
        assert await titles(hybrid, [kb.id], "car repair") == ["Garage"]

    async def test_a_passage_in_both_lists_beats_one_in_a_single_list(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        embedder = ConceptEmbedder()
        using = ingestor(embedder)
        await add_document(
            session_factory, kb.id, "Words only", "Kittens policy: the office allows no pets at all.", using=using
        )
        await add_document(session_factory, kb.id, "Both", "Kittens nap on the carpet.", using=using)
        await add_document(session_factory, kb.id, "Meaning only", "A feline dozes on a rug.", using=using)

        outcome = await KnowledgeSearch(session_factory, embedder).search([kb.id], "kittens sleeping on the carpet", 5)

        assert outcome.hits[0].title == "Both"
        assert outcome.hits[0].lexical_rank is not None and outcome.hits[0].vector_rank is not None
        assert outcome.hits[0].score == pytest.approx(
            LEXICAL_WEIGHT / (RRF_K + outcome.hits[0].lexical_rank)
            + VECTOR_WEIGHT / (RRF_K + outcome.hits[0].vector_rank)
        )

    async def test_an_english_only_model_is_not_asked_about_chinese_queries(
        self, session_factory: SessionFactory
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        embedder = ConceptEmbedder(is_english_only=True)
        await add_document(session_factory, kb.id, "数据库", ZH_DATABASE, using=ingestor(embedder))
        await add_document(session_factory, kb.id, "Pets", "The feline rested on the rug.", using=ingestor(embedder))
        search = KnowledgeSearch(session_factory, embedder)
        calls = embedder.calls

        chinese = await search.search([kb.id], "索引", 5)
        assert embedder.calls == calls  # the query was not embedded
        assert [hit.title for hit in chinese.hits] == ["数据库"]
        assert chinese.hits[0].vector_rank is None

        english = await search.search([kb.id], "cat sleeping on a mat", 5)
        assert embedder.calls == calls + 1
        assert [hit.title for hit in english.hits] == ["Pets"]

    async def test_vectors_of_another_model_are_ignored(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(
            session_factory, kb.id, "Pets", "The feline rested on the rug.", using=ingestor(ConceptEmbedder("test:old"))
        )

        search = KnowledgeSearch(session_factory, ConceptEmbedder("test:new"))
        assert await titles(search, [kb.id], "cat sleeping on a mat") == []

    async def test_new_documents_reach_the_vector_cache(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        embedder = ConceptEmbedder()
        using = ingestor(embedder)
        search = KnowledgeSearch(session_factory, embedder)
        await add_document(
            session_factory, kb.id, "Garage", "A mechanic can mend your automobile.", "g.md", using=using
        )
        assert await titles(search, [kb.id], "cat sleeping on a mat") == []

        await add_document(session_factory, kb.id, "Pets", "The feline rested on the rug.", "p.md", using=using)
        assert await titles(search, [kb.id], "cat sleeping on a mat") == ["Pets"]

        await add_document(session_factory, kb.id, "Pets", "Nothing about animals here.", "p.md", using=using)
        assert await titles(search, [kb.id], "cat sleeping on a mat") == []

    async def test_a_failing_query_embedding_falls_back_to_lexical(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "Doc", "Lexical words here.")

        class Broken(ConceptEmbedder):
            async def embed(self, texts: Sequence[str]) -> Matrix:
                raise EmbeddingError("endpoint down")

        outcome = await KnowledgeSearch(session_factory, Broken()).search([kb.id], "lexical words", 5)
        assert [hit.title for hit in outcome.hits] == ["Doc"]
        assert outcome.is_partial
        assert outcome.vector_error is not None and "endpoint down" in outcome.vector_error


@pytest.fixture
def without_leads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The passages' two lists alone (the documents' leads are tested in test_lead.py)."""
    monkeypatch.setattr(search_module, "LEAD_WEIGHT", 0.0)
    monkeypatch.setattr(search_module, "LEAD_WEIGHT_LEXICAL", 0.0)


class TestDocumentsFirst:
    @pytest.mark.usefixtures("without_leads")
    async def test_each_documents_best_passage_before_any_further_one(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        manual = "\n\n".join(f"## Widget {part}\n\nWidget {part}: the widget's {part}." for part in ("care", "fit"))
        await add_document(session_factory, kb.id, "Manual", f"# Manual\n\n{manual}")
        await add_document(session_factory, kb.id, "Kitchen", "Coffee, tea and a fridge. " * 4 + "A widget.")
        search = KnowledgeSearch(session_factory)

        by_score = (await search.search([kb.id], "widget", 3)).hits
        by_document = (await search.search([kb.id], "widget", 3, documents_first=True)).hits
        first_two = (await search.search([kb.id], "widget", 2, documents_first=True)).hits

        assert [hit.title for hit in by_score] == ["Manual", "Manual", "Kitchen"]
        assert [hit.title for hit in by_document] == ["Manual", "Kitchen", "Manual"]
        assert [hit.chunk_id for hit in by_document] == [
            by_score[0].chunk_id,
            by_score[2].chunk_id,
            by_score[1].chunk_id,
        ]
        assert [hit.score for hit in by_document] == [by_score[0].score, by_score[2].score, by_score[1].score]
        assert [hit.title for hit in first_two] == ["Manual", "Kitchen"]

    @pytest.mark.usefixtures("without_leads")
    async def test_documents_are_ranked_by_all_their_passages_not_their_best_one_alone(
        self, session_factory: SessionFactory
    ) -> None:
        # One passage of "Brief" outscores each passage of "Guide", but Guide answers in three
        # places: document-level fusion ranks Guide first; the passages keep their own scores.
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(
            session_factory,
            kb.id,
            "Brief",
            "Gasket torque for the front side: tighten the gasket bolts evenly, then check.",
        )
        guide = "\n\n".join(
            f"## {part}\n\nGasket torque for the {part} side: tighten the gasket bolts evenly, then check."
            for part in ("Left", "Right", "Top")
        )
        await add_document(session_factory, kb.id, "Guide", f"# Guide\n\n{guide}")
        search = KnowledgeSearch(session_factory)

        by_score = (await search.search([kb.id], "gasket torque", 4)).hits
        by_document = (await search.search([kb.id], "gasket torque", 2, documents_first=True)).hits

        assert by_score[0].title == "Brief" and [hit.title for hit in by_score[1:]] == ["Guide"] * 3
        assert [hit.title for hit in by_document] == ["Guide", "Brief"]
        assert by_document[0].score < by_document[1].score  # each passage keeps its own score
        assert by_document[0].chunk_id == by_score[1].chunk_id  # Guide's best passage stands for it

    async def test_documents_are_looked_up_within_each_knowledge_bases_own_search(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # One lookup per knowledge base, of its own candidates (bounded however many are searched),
        # under its own time limit: when it fails, that knowledge base is reported, the others answer.
        looked_up: list[list[int]] = []
        real = repository.documents_of_chunks
        space = await make_space(session_factory, "alpha")
        kbs = [await make_kb(session_factory, space.id, f"kb{number}") for number in range(3)]
        broken: set[str] = set()
        for number, kb in enumerate(kbs):
            for part in range(2):
                stored = await add_document(
                    session_factory, kb.id, f"Valve {number}.{part}", f"Valve seal {part} of unit {number}."
                )
                if number == 2:
                    broken.add(stored.document.id)

        async def spy(session: AsyncSession, chunk_ids: Sequence[int]) -> dict[int, str]:
            looked_up.append(list(chunk_ids))
            found = await real(session, chunk_ids)
            if broken & set(found.values()):
                raise RuntimeError("lookup failed")
            return found

        monkeypatch.setattr(repository, "documents_of_chunks", spy)
        search = KnowledgeSearch(session_factory)
        outcome = await search.search([kb.id for kb in kbs], "valve seal", 6, documents_first=True)

        assert sorted(len(ids) for ids in looked_up) == [2, 2, 2]
        assert outcome.failures == {kbs[2].id: "search failed (RuntimeError)"}
        assert sorted(hit.title for hit in outcome.hits) == ["Valve 0.0", "Valve 0.1", "Valve 1.0", "Valve 1.1"]
        looked_up.clear()
        await search.search([kb.id for kb in kbs[:2]], "valve seal", 6)  # passages in score order: no lookup
        assert looked_up == []


class TestFuseDocuments:
    DOCUMENTS = {1: "a", 2: "a", 3: "b", 4: "c", 5: "d"}

    def test_a_document_scores_its_best_passage_plus_a_decayed_share_of_the_others(self) -> None:
        # a: 1.0 + 0.5 x 0.9 = 1.45 beats b: 1.2 with decay 0.5; with decay 0, b's better passage wins.
        lexical = [(1, 1.0), (2, 0.9), (3, 1.2)]
        with_decay = fuse_documents(lexical, [], self.DOCUMENTS, decay=0.5, k=1, vector_weight=1.0)
        best_only = fuse_documents(lexical, [], self.DOCUMENTS, decay=0.0, k=1, vector_weight=1.0)
        assert with_decay == {"a": pytest.approx(1 / 2), "b": pytest.approx(1 / 3)}
        assert best_only == {"b": pytest.approx(1 / 2), "a": pytest.approx(1 / 3)}

    def test_the_vector_ranking_weighs_more_and_ranks_past_the_depth_add_nothing(self) -> None:
        lexical = [(3, 9.0), (4, 8.0), (5, 7.0)]
        vector = [(5, 0.9), (1, 0.8)]
        fused = fuse_documents(lexical, vector, self.DOCUMENTS, k=1, lexical_weight=1.0, vector_weight=2.0, depth=2)
        # d: lexical rank 3 (beyond depth 2, nothing) + vector rank 1; b: lexical rank 1 only.
        assert fused["d"] == pytest.approx(2.0 / 2)
        assert fused["b"] == pytest.approx(1.0 / 2)
        assert fused["a"] == pytest.approx(2.0 / 3)
        assert fused["c"] == pytest.approx(1.0 / 3)

    def test_passages_are_reordered_best_of_each_document_first_ties_by_passage_order(self) -> None:
        fused = fuse([(1, 5.0), (3, 4.0), (2, 3.0), (4, 2.0), (5, 1.0)], [])
        order = by_document(fused, {"a": 0.1, "b": 0.2, "c": 0.2, "d": 0.2}, self.DOCUMENTS)
        # b, c and d tie: the order of their best passages (3, 4, 5); then a; then a's second passage.
        assert [chunk_id for chunk_id, *_ in order] == [3, 4, 5, 1, 2]

    def test_passages_of_unknown_chunks_are_skipped(self) -> None:
        assert fuse_documents([(99, 5.0), (3, 1.0)], [(98, 0.9)], self.DOCUMENTS, k=1) == {"b": pytest.approx(1 / 2)}


class TestWarmUp:
    async def test_loads_the_model_once_before_any_search(self, session_factory: SessionFactory) -> None:
        embedder = ConceptEmbedder()
        await KnowledgeSearch(session_factory, embedder).warm_up()
        assert embedder.calls == 1

    async def test_a_provider_that_is_down_does_not_stop_the_start(
        self, session_factory: SessionFactory, caplog: pytest.LogCaptureFixture
    ) -> None:
        class Down(ConceptEmbedder):
            async def embed(self, texts: Sequence[str]) -> Matrix:
                raise EmbeddingError("connection refused")

        await KnowledgeSearch(session_factory, Down()).warm_up()
        assert "not ready" in caplog.text

    async def test_without_a_provider_there_is_nothing_to_load(self, session_factory: SessionFactory) -> None:
        await KnowledgeSearch(session_factory).warm_up()


class TestPartialFailure:
    async def test_one_failing_knowledge_base_leaves_the_others_answering(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        space = await make_space(session_factory, "alpha")
        good = await make_kb(session_factory, space.id, "good")
        bad = await make_kb(session_factory, space.id, "bad")
        await add_document(session_factory, good.id, "Good", "Shared keyword apple.")
        await add_document(session_factory, bad.id, "Bad", "Shared keyword apple.")
        real = repository.lexical_candidates

        async def failing(session: AsyncSession, kb_id: str, tokens: list[str], limit: int) -> list[tuple[int, float]]:
            if kb_id == bad.id:
                raise OSError("index corrupted")
            return await real(session, kb_id, tokens, limit)

        monkeypatch.setattr(repository, "lexical_candidates", failing)
        outcome = await KnowledgeSearch(session_factory).search([good.id, bad.id], "apple", 5)

        assert [hit.title for hit in outcome.hits] == ["Good"]
        assert outcome.is_partial
        assert outcome.failures == {bad.id: "search failed (OSError)"}

    async def test_a_slow_knowledge_base_times_out_alone(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        space = await make_space(session_factory, "alpha")
        fast = await make_kb(session_factory, space.id, "fast")
        slow = await make_kb(session_factory, space.id, "slow")
        await add_document(session_factory, fast.id, "Fast", "Banana bread recipe.")
        real = repository.lexical_candidates

        async def slow_one(session: AsyncSession, kb_id: str, tokens: list[str], limit: int) -> list[tuple[int, float]]:
            if kb_id == slow.id:
                await asyncio.sleep(5)
            return await real(session, kb_id, tokens, limit)

        monkeypatch.setattr(repository, "lexical_candidates", slow_one)
        outcome = await KnowledgeSearch(session_factory, timeout_s=0.3).search([fast.id, slow.id], "banana", 5)

        assert [hit.title for hit in outcome.hits] == ["Fast"]
        assert outcome.failures == {slow.id: "timed out"}

    async def test_knowledge_bases_are_searched_concurrently(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kbs = [await make_kb(session_factory, space.id, f"kb{number}") for number in range(3)]
        running = {"now": 0, "most": 0}
        real = repository.lexical_candidates

        async def tracked(session: AsyncSession, kb_id: str, tokens: list[str], limit: int) -> list[tuple[int, float]]:
            running["now"] += 1
            running["most"] = max(running["most"], running["now"])
            await asyncio.sleep(0.05)
            running["now"] -= 1
            return await real(session, kb_id, tokens, limit)

        monkeypatch.setattr(repository, "lexical_candidates", tracked)
        await KnowledgeSearch(session_factory).search([kb.id for kb in kbs], "anything", 5)

        assert running["most"] == 3


class TestFuse:
    def test_reciprocal_rank_fusion(self) -> None:
        fused = fuse([(1, 9.0), (2, 5.0), (3, 1.0)], [(3, 0.9), (4, 0.8)], k=60, vector_weight=1.0)
        scores = {chunk_id: score for chunk_id, score, *_ in fused}
        assert scores[3] == pytest.approx(1 / 63 + 1 / 61)
        assert scores[1] == pytest.approx(1 / 61)
        # 2 (lexical rank 2) and 4 (vector rank 2) tie: the lexical one goes first.
        assert [chunk_id for chunk_id, *_ in fused] == [3, 1, 2, 4]

    def test_the_weights_favour_one_list(self) -> None:
        lexical, vector = [(1, 9.0), (2, 5.0)], [(2, 0.9), (3, 0.8)]
        assert [chunk_id for chunk_id, *_ in fuse(lexical, vector, k=10, vector_weight=3.0)][:2] == [2, 3]
        assert [chunk_id for chunk_id, *_ in fuse(lexical, vector, k=10, vector_weight=0.5)][:2] == [2, 1]

    def test_ranks_beyond_the_depth_add_nothing(self) -> None:
        lexical = [(chunk_id, 100.0 - chunk_id) for chunk_id in range(1, 31)]  # chunk 25 is 25th
        vector = [(25, 0.9), (40, 0.8)]
        fused = {
            chunk_id: (score, lexical_rank)
            for chunk_id, score, lexical_rank, _ in fuse(lexical, vector, k=5, vector_weight=2.0, depth=20)
        }
        # Chunk 25: its vector rank counts, its lexical rank (25 > 20) does not; it keeps the rank.
        assert fused[25][0] == pytest.approx(2.0 / 6) and fused[25][1] == 25
        assert fused[21][0] == 0.0 and fused[20][0] == pytest.approx(1 / 25)
        assert len(fused) == 31

    def test_ties_prefer_the_lexical_list(self) -> None:
        fused = fuse([(7, 1.0)], [(8, 1.0)], vector_weight=1.0)
        assert [(chunk_id, lexical, vector) for chunk_id, _, lexical, vector in fused] == [(7, 1, None), (8, None, 1)]

    def test_candidates_from_several_knowledge_bases_merge_by_raw_score(self) -> None:
        fused = fuse([(1, 2.0), (5, 7.0), (2, 1.0)], [])
        assert [chunk_id for chunk_id, *_ in fused] == [5, 1, 2]
