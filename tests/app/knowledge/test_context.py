"""The prompt context hook: an agent's best passages as a numbered, cited block within a budget."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.knowledge.context import HEADER, KnowledgeContextProvider, format_context, knowledge_context
from app.knowledge.search import KnowledgeSearch
from tests.app.knowledge.support import ConceptEmbedder, add_document, ingestor, make_agent, make_kb, make_space

SessionFactory = async_sessionmaker[AsyncSession]

POLICY = """# Travel policy

## Flights

Economy class for flights under six hours. Book through the travel portal.

## Hotels

Hotels up to 150 euros a night in most cities.
"""


class TestKnowledgeContext:
    async def test_numbered_cited_passages(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "Travel policy", POLICY, "policies/travel.md")
        agent = await make_agent(session_factory, space.id, [kb.id])

        context = await knowledge_context(
            session_factory, agent.space_id, agent.mounted_kb_ids, "Which class for flights?", budget_chars=2000
        )

        assert context.text == (
            f"{HEADER}\n\n"
            "[1] Travel policy › Flights (policies/travel.md)\n"  # noqa: RUF001 - the citation separator
            "Economy class for flights under six hours. Book through the travel portal."
        )
        (citation,) = context.citations
        assert (citation.number, citation.title, citation.source, citation.heading_path, citation.chunk_index) == (
            1,
            "Travel policy",
            "policies/travel.md",
            ("Travel policy", "Flights"),
            0,
        )
        assert citation.knowledge_base_id == kb.id

    async def test_only_mounted_knowledge_bases_are_used(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        mounted = await make_kb(session_factory, space.id, "mounted")
        other = await make_kb(session_factory, space.id, "other")
        await add_document(session_factory, mounted.id, "Mounted", "Hotel rules for staff.")
        await add_document(session_factory, other.id, "Not mounted", "Hotel secrets.")
        agent = await make_agent(session_factory, space.id, [mounted.id])

        context = await knowledge_context(
            session_factory, agent.space_id, agent.mounted_kb_ids, "hotel", budget_chars=2000
        )

        assert [citation.title for citation in context.citations] == ["Mounted"]

    async def test_a_mounted_knowledge_base_of_another_space_is_ignored(self, session_factory: SessionFactory) -> None:
        alpha = await make_space(session_factory, "alpha")
        beta = await make_space(session_factory, "beta")
        foreign = await make_kb(session_factory, beta.id)
        await add_document(session_factory, foreign.id, "Foreign", "Hotel secrets of beta.")
        agent = await make_agent(session_factory, alpha.id, [foreign.id])

        context = await knowledge_context(
            session_factory, agent.space_id, agent.mounted_kb_ids, "hotel", budget_chars=2000
        )

        assert not context
        assert context.citations == []

    async def test_no_mounted_knowledge_base_or_no_match_gives_an_empty_block(
        self, session_factory: SessionFactory
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "Doc", "Hotel rules.")

        unmounted = await make_agent(session_factory, space.id, [])
        mounted = await make_agent(session_factory, space.id, [kb.id])

        assert (
            await knowledge_context(
                session_factory, unmounted.space_id, unmounted.mounted_kb_ids, "hotel", budget_chars=2000
            )
        ).text == ""
        assert (
            await knowledge_context(
                session_factory, mounted.space_id, mounted.mounted_kb_ids, "submarine", budget_chars=2000
            )
        ).text == ""

    async def test_the_block_stays_within_the_budget(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        for number in range(10):
            await add_document(
                session_factory,
                kb.id,
                f"Expense note {number}",
                f"Expense rule {number}: " + "receipts needed. " * (5 + number),
            )
        agent = await make_agent(session_factory, space.id, [kb.id])

        for budget in (300, 700, 1500):
            context = await knowledge_context(
                session_factory, agent.space_id, agent.mounted_kb_ids, "expense receipts", budget_chars=budget, top_k=10
            )
            assert 0 < len(context.text) <= budget
            numbers = [citation.number for citation in context.citations]
            assert numbers == list(range(1, len(numbers) + 1))
            for number in numbers:
                assert f"[{number}] " in context.text

    async def test_uses_the_search_it_is_given(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        embedder = ConceptEmbedder()
        await add_document(session_factory, kb.id, "Pets", "The feline rested on the rug.", using=ingestor(embedder))
        agent = await make_agent(session_factory, space.id, [kb.id])

        lexical = await knowledge_context(
            session_factory, agent.space_id, agent.mounted_kb_ids, "cat sleeping on a mat", budget_chars=1000
        )
        hybrid = await knowledge_context(
            session_factory,
            agent.space_id,
            agent.mounted_kb_ids,
            "cat sleeping on a mat",
            budget_chars=1000,
            search=KnowledgeSearch(session_factory, embedder),
        )

        assert lexical.text == ""
        assert [citation.title for citation in hybrid.citations] == ["Pets"]

    async def test_the_runtime_provider_returns_the_text(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "Travel policy", POLICY, "travel.md")
        agent = await make_agent(session_factory, space.id, [kb.id])
        provider = KnowledgeContextProvider(KnowledgeSearch(session_factory))

        text = await provider.context(agent.space_id, agent.mounted_kb_ids, "hotel price per night", budget_chars=1000)

        assert text is not None and "[1] Travel policy › Hotels (travel.md)" in text  # noqa: RUF001
        assert await provider.context(agent.space_id, agent.mounted_kb_ids, "submarine", budget_chars=1000) is None


class TestFormat:
    def _hit(self, text: str, title: str = "Doc") -> object:
        from app.knowledge.models import Document
        from app.knowledge.search import SearchHit

        return SearchHit(
            chunk_id=1,
            knowledge_base_id="kb_1",
            document=Document(id="doc_1", title=title, source=None),
            heading_path=(),
            chunk_index=0,
            text=text,
            score=0.5,
            lexical_rank=1,
            vector_rank=None,
        )

    def test_a_passage_too_long_for_the_budget_is_cut_with_an_ellipsis(self) -> None:
        context = format_context([self._hit("word " * 500)], 400)  # type: ignore[list-item]
        assert len(context.text) <= 400
        assert context.text.endswith("…")
        assert [citation.number for citation in context.citations] == [1]

    def test_a_later_passage_that_does_not_fit_is_skipped_for_a_shorter_one(self) -> None:
        hits = [self._hit("short one", "A"), self._hit("long " * 200, "B"), self._hit("short two", "C")]
        context = format_context(hits, 300)  # type: ignore[arg-type]
        assert [(citation.number, citation.title) for citation in context.citations] == [(1, "A"), (2, "C")]
        assert "[2] C\nshort two" in context.text

    def test_a_budget_below_a_useful_passage_gives_nothing(self) -> None:
        assert format_context([self._hit("word " * 100)], len(HEADER) + 20).text == ""  # type: ignore[list-item]
