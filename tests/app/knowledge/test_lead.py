"""Documents' leads (title and first paragraph), indexed on their own on both backends: found by
their words, kept in step with their document, scoped to the knowledge base, bounded."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from sqlalchemy import delete, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.knowledge import repository
from app.knowledge import search as search_module
from app.knowledge.lead import LEAD_PARAGRAPH_CHARS, lead_text
from app.knowledge.models import Document
from app.knowledge.search import KnowledgeSearch
from app.knowledge.tokens import query_tokens
from tests.app.knowledge.support import add_document, make_kb, make_space

SessionFactory = async_sessionmaker[AsyncSession]

LSOF = """# lsof

lsof lists the open files of running processes, sockets included.

## Options

Use -i to select network connections by port, and +D to walk a directory.
"""


async def leads(session_factory: SessionFactory, kb_id: str, query: str) -> list[int]:
    async with session_factory() as session:
        return [chunk_id for chunk_id, _ in await repository.lead_candidates(session, kb_id, query_tokens(query), 10)]


async def first_chunk(session_factory: SessionFactory, document_id: str) -> int:
    async with session_factory() as session:
        return (await repository.chunks_of_document(session, document_id))[0].id


async def stored_leads(session_factory: SessionFactory) -> int:
    """Entries of the leads' index (FTS5 rows, or filled tsvectors)."""
    async with session_factory() as session:
        if session.get_bind().dialect.name == "sqlite":
            statement = text("SELECT count(*) FROM chunk_lead_fts")
        else:
            statement = text("SELECT count(*) FROM chunk WHERE lead_vector IS NOT NULL")
        return int((await session.execute(statement)).scalar_one())


class TestLeadText:
    def test_title_and_first_paragraph_whitespace_collapsed(self) -> None:
        assert lead_text("  Process tools ", "lsof  lists\nopen files.\n\nSecond paragraph.") == (
            "Process tools\nlsof lists open files."
        )
        assert lead_text("Only a title", "   ") == "Only a title"

    def test_the_paragraph_is_cut_to_its_bound(self) -> None:
        lead = lead_text("T" * 500, "word " * 5_000)
        assert len(lead) <= 500 + 1 + LEAD_PARAGRAPH_CHARS


class TestLeadIndex:
    async def test_a_document_is_found_by_its_title_and_first_paragraph_only(
        self, session_factory: SessionFactory
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        stored = await add_document(session_factory, kb.id, "Process inspector", LSOF, "lsof.md")
        await add_document(session_factory, kb.id, "Kitchen", "Coffee, tea and a fridge.", "kitchen.md")
        first = await first_chunk(session_factory, stored.document.id)

        assert await leads(session_factory, kb.id, "inspector") == [first]  # a title word
        assert await leads(session_factory, kb.id, "sockets of processes") == [first]  # first paragraph
        # A word of a later section: the passages find it, the lead does not hold it.
        assert await leads(session_factory, kb.id, "directory") == []
        async with session_factory() as session:
            assert await repository.lexical_candidates(session, kb.id, query_tokens("directory"), 10) != []

    async def test_a_replaced_document_s_lead_follows_it(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "Alpha handbook", "Welcome aboard.\n\nMore.", "h.md")
        assert await stored_leads(session_factory) == 1

        replaced = await add_document(session_factory, kb.id, "Bravo manual", "Farewell crew.\n\nMore.", "h.md")

        assert replaced.outcome == "REPLACED"
        assert await leads(session_factory, kb.id, "alpha handbook welcome") == []
        assert await leads(session_factory, kb.id, "bravo farewell") == [
            await first_chunk(session_factory, replaced.document.id)
        ]
        assert await stored_leads(session_factory) == 1

    async def test_a_deleted_document_takes_its_lead_with_it(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        gone = await add_document(session_factory, kb.id, "Process inspector", LSOF, "lsof.md")
        kept = await add_document(session_factory, kb.id, "Process list", "ps shows processes.", "ps.md")

        async with session_factory() as session, session.begin():
            await session.execute(delete(Document).where(Document.id == gone.document.id))

        assert await leads(session_factory, kb.id, "process") == [await first_chunk(session_factory, kept.document.id)]
        assert await stored_leads(session_factory) == 1

    async def test_the_lead_holds_only_the_start_of_a_long_first_paragraph(
        self, session_factory: SessionFactory
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        # One paragraph: "zebra" sits past the lead's bound but inside the first chunk.
        paragraph = "alpha " * 110 + "zebra " + "omega " * 5_000
        await add_document(session_factory, kb.id, "Long " * 90, paragraph, "long.md")

        assert await leads(session_factory, kb.id, "zebra") == []
        assert len(await leads(session_factory, kb.id, "alpha")) == 1
        async with session_factory() as session:
            assert await repository.lexical_candidates(session, kb.id, query_tokens("zebra"), 10) != []
            if session.get_bind().dialect.name == "sqlite":
                body = await session.scalar(text("SELECT body FROM chunk_lead_fts"))
            else:
                body = await session.scalar(text("SELECT lead_vector::text FROM chunk WHERE lead_vector IS NOT NULL"))
        assert body is not None and "omega" not in body and "zebra" not in body


class TestLeadInSearch:
    async def test_another_knowledge_base_s_leads_are_never_seen(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        alpha = await make_kb(session_factory, (await make_space(session_factory, "alpha")).id)
        beta = await make_kb(session_factory, (await make_space(session_factory, "beta")).id)
        await add_document(session_factory, alpha.id, "Kitchen", "Coffee, tea and a fridge.")
        await add_document(session_factory, beta.id, "Payroll calendar", "Quarterly payroll runs on the 25th.")
        searched: list[str] = []
        real = repository.lead_candidates

        async def spy(session: AsyncSession, kb_id: str, tokens: Sequence[str], limit: int) -> list[tuple[int, float]]:
            searched.append(kb_id)
            return await real(session, kb_id, tokens, limit)

        monkeypatch.setattr(repository, "lead_candidates", spy)
        search = KnowledgeSearch(session_factory)

        outcome = await search.search([alpha.id], "quarterly payroll calendar", 5, documents_first=True)

        assert searched == [alpha.id]  # the leads were searched, in alpha only
        assert outcome.hits == []
        assert await leads(session_factory, alpha.id, "quarterly payroll calendar") == []
        beta_hits = (await search.search([beta.id], "quarterly payroll calendar", 5, documents_first=True)).hits
        assert [hit.title for hit in beta_hits] == ["Payroll calendar"]

    async def test_a_document_found_by_its_lead_alone_comes_back_with_its_first_passage(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        stored = await add_document(session_factory, kb.id, "Process inspector", LSOF, "lsof.md")

        async def no_passages(
            session: AsyncSession, kb_id: str, tokens: Sequence[str], limit: int
        ) -> list[tuple[int, float]]:
            return []

        monkeypatch.setattr(repository, "lexical_candidates", no_passages)
        search = KnowledgeSearch(session_factory)

        (hit,) = (await search.search([kb.id], "process inspector", 5, documents_first=True)).hits
        assert (hit.document_id, hit.chunk_index) == (stored.document.id, 0)
        assert hit.score == pytest.approx(search_module.LEAD_WEIGHT_LEXICAL / (search_module.RRF_K + 1))
        # Passages in score order (the agent prompt's knowledge block) do not use the leads.
        assert (await search.search([kb.id], "process inspector", 5)).hits == []

    async def test_mostly_chinese_queries_do_not_search_the_leads(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        await add_document(session_factory, kb.id, "请假制度", "员工每年有二十五天带薪年假。")
        searched: list[str] = []
        real = repository.lead_candidates

        async def spy(session: AsyncSession, kb_id: str, tokens: Sequence[str], limit: int) -> list[tuple[int, float]]:
            searched.append(kb_id)
            return await real(session, kb_id, tokens, limit)

        monkeypatch.setattr(repository, "lead_candidates", spy)
        search = KnowledgeSearch(session_factory)

        hits = (await search.search([kb.id], "带薪年假有几天", 5, documents_first=True)).hits

        assert [hit.title for hit in hits] == ["请假制度"] and searched == []
        assert await leads(session_factory, kb.id, "带薪年假") != []  # indexed all the same
