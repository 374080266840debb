# ruff: noqa: RUF001 - Chinese text keeps its own punctuation
"""Retrieval as issue #17 asks for it: Chinese through the hybrid search with the real local
model, rare words over common ones, PostgreSQL and SQLite agreeing on the best passages, and
many documents ingested in groups (``ingest_many``) stored exactly as one at a time."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Iterator

import numpy as np
import pytest
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import create_engine, create_session_factory
from app.errors import DomainError
from app.knowledge import repository, service
from app.knowledge.embeddings import LocalEmbeddings, from_bytes
from app.knowledge.ingest import ToPrepare, ingest_many
from app.knowledge.models import Chunk
from app.knowledge.search import LEXICAL, KnowledgeSearch
from app.migrate import upgrade
from app.principal import SYSTEM_PRINCIPAL
from tests.app.knowledge.support import ConceptEmbedder, add_document, ingestor, make_kb, make_space
from tests.databases import postgres_database, sqlite_database

SessionFactory = async_sessionmaker[AsyncSession]

ZH_DOCUMENTS = {
    "请假制度": "# 请假制度\n\n## 病假\n\n因病不能上班的员工应在当天上午九点前通知直属经理。"
    "连续病假超过两天需要提供医院出具的诊断证明。\n\n## 年假\n\n员工每年享有十天带薪年假，需要提前三个工作日申请。",
    "差旅报销": "# 差旅报销\n\n出差乘坐高铁二等座或飞机经济舱。一线城市住宿标准为每晚六百元以内，"
    "出差结束后三十天内提交报销单并上传发票。",
    "办公室无线网络": "# 办公室无线网络\n\n员工使用名为 Corp 的无线网络，用域账号登录。"
    "来访客户请连接 Guest 网络，密码每周一更换，贴在前台。",
    "手冲咖啡": "# 手冲咖啡入门\n\n手冲咖啡的水温一般在九十到九十四度之间。咖啡豆最好现磨，"
    "磨得太细会萃取过度，喝起来发苦。",
}


@pytest.fixture(scope="module")
def local_model() -> LocalEmbeddings:
    """One model per module: loading it takes seconds."""
    return LocalEmbeddings()


class TestChineseHybrid:
    async def test_a_colloquial_chinese_question_finds_the_chinese_policy_through_its_meaning(
        self, session_factory: SessionFactory, local_model: LocalEmbeddings
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        using = ingestor(local_model)
        for title, body in ZH_DOCUMENTS.items():
            await add_document(session_factory, kb.id, title, body, using=using)
        await add_document(session_factory, kb.id, "Expenses", "Hotel nights are refunded up to 600 yuan.", using=using)
        question = "孩子发烧了我得请两天假，要不要交医院开的证明？"

        outcome = await KnowledgeSearch(session_factory, local_model).search([kb.id], question, 3)

        assert outcome.hits[0].title == "请假制度"
        # Found by both rankings: the model (multilingual) is used for Chinese queries too.
        assert outcome.hits[0].vector_rank is not None and outcome.hits[0].lexical_rank is not None
        assert outcome.vector_error is None

    async def test_an_english_question_finds_a_chinese_document(
        self, session_factory: SessionFactory, local_model: LocalEmbeddings
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        using = ingestor(local_model)
        for title, body in ZH_DOCUMENTS.items():
            await add_document(session_factory, kb.id, title, body, using=using)

        question = "What is the password of the guest Wi-Fi for visitors, and where can they find it?"
        lexical = await KnowledgeSearch(session_factory, local_model).search([kb.id], question, 3, mode=LEXICAL)
        hybrid = await KnowledgeSearch(session_factory, local_model).search([kb.id], question, 3)

        assert [hit.title for hit in lexical.hits][:1] != ["手冲咖啡"]
        assert hybrid.hits[0].title == "办公室无线网络"
        assert hybrid.hits[0].vector_rank == 1


class TestRareWords:
    async def test_a_rare_word_outweighs_a_common_word_repeated(self, session_factory: SessionFactory) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        for number in range(12):
            await add_document(
                session_factory, kb.id, f"Report {number}", f"Report {number}: the report of the report, reported."
            )
        await add_document(session_factory, kb.id, "Airships", "Zeppelin hangar maintenance checklist.")
        await _refresh_statistics(session_factory)

        found = (await KnowledgeSearch(session_factory).search([kb.id], "zeppelin report", 3)).hits

        assert found[0].title == "Airships"
        assert len(found) == 3


async def _refresh_statistics(session_factory: SessionFactory) -> None:
    """On PostgreSQL: what autovacuum does as a table grows (ANALYZE), and a fresh read of it."""
    async with session_factory() as session, session.begin():
        if session.get_bind().dialect.name == "postgresql":
            await session.execute(text("ANALYZE chunk"))
    repository._term_stats.clear()


# ------------------------------------------------------------------ both backends at once

AGREEMENT_DOCUMENTS = [
    ("Backups", "Full database backups run every night at 02:00 and are kept for thirty days."),
    ("Restores", "To restore a database, stop the service, copy the backup file and replay the logs."),
    ("Leave", "Employees get twenty-five days of paid leave; sick leave needs a note after two days."),
    ("Travel", "Book flights in economy class; hotel nights in capital cities are refunded up to 200 euros."),
    ("Laptops", "New employees collect their laptop and badge at the front desk on their first day."),
    ("Passwords", "Passwords must have twelve characters and are changed every ninety days."),
    ("Incidents", "An incident on a core service must be acknowledged by the on-call engineer within 15 minutes."),
    ("Deploys", "Deploys go to five percent of servers first; a rising error rate rolls them back."),
    ("请假", "因病不能上班的员工应在当天上午九点前通知直属经理，连续病假超过两天需要医院证明。"),
    ("报销", "出差结束后三十天内在财务系统提交报销单，并上传发票照片。"),
] + [
    (f"Filler {number}", f"Filler page {number} about the office, the database and the service.")
    for number in range(20)
]

AGREEMENT_QUERIES = {
    "how long are database backups kept": "Backups",
    "restore a database from a backup file": "Restores",
    "sick leave note": "Leave",
    "hotel refund for a business trip to a capital city": "Travel",
    "where do new employees get their laptop on the first day": "Laptops",
    "how often must passwords change": "Passwords",
    "on-call engineer acknowledges a core service incident": "Incidents",
    "error rate rollback after a deploy": "Deploys",
    "病假需要医院证明吗": "请假",
    "出差报销单什么时候提交": "报销",
}


@pytest.fixture(scope="module")
def both_backends() -> Iterator[dict[str, str]]:
    with (
        tempfile.TemporaryDirectory() as directory,
        sqlite_database(directory) as sqlite_url,
        postgres_database() as postgres_url,
    ):
        for url in (sqlite_url, postgres_url):
            upgrade(url)
        yield {"sqlite": sqlite_url, "postgresql": postgres_url}


@pytest.fixture
async def rankings(both_backends: dict[str, str]) -> AsyncIterator[dict[str, dict[str, list[str]]]]:
    """Each backend's top 3 titles per query, after the same documents went into both."""
    found: dict[str, dict[str, list[str]]] = {}
    for backend, url in both_backends.items():
        engine = create_engine(url)
        session_factory = create_session_factory(engine)
        try:
            space = await make_space(session_factory, "agree")
            kb = await make_kb(session_factory, space.id)
            for title, body in AGREEMENT_DOCUMENTS:
                await add_document(session_factory, kb.id, title, body)
            await _refresh_statistics(session_factory)
            search = KnowledgeSearch(session_factory)
            found[backend] = {
                query: [hit.title for hit in (await search.search([kb.id], query, 3)).hits]
                for query in AGREEMENT_QUERIES
            }
        finally:
            await engine.dispose()
    yield found


class TestBackendsAgree:
    async def test_postgresql_and_sqlite_put_the_same_passage_first_and_mostly_the_same_next(
        self, rankings: dict[str, dict[str, list[str]]]
    ) -> None:
        for query, expected in AGREEMENT_QUERIES.items():
            assert rankings["sqlite"][query][0] == expected, query
            assert rankings["postgresql"][query][0] == expected, query
        overlaps = [
            len(set(rankings["sqlite"][query]) & set(rankings["postgresql"][query])) for query in AGREEMENT_QUERIES
        ]
        assert sum(overlaps) >= 2 * len(AGREEMENT_QUERIES), overlaps


# ------------------------------------------------------------------ ingest in groups


class TestIngestMany:
    async def test_many_documents_in_small_groups_are_stored_as_one_at_a_time_would(
        self, session_factory: SessionFactory
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        embedder = ConceptEmbedder()
        using = ingestor(embedder, size=200, overlap=0)
        bodies = {
            f"doc-{number}": "\n\n".join(
                f"## Part {part}\n\nThe cat {number} sleeps on rug {part}; a mechanic fixes car {number * 10 + part}."
                for part in range(6)
            )
            for number in range(30)
        }
        bodies["doc-empty"] = "   \n\n  "
        items = [
            ToPrepare(service.DocumentInput(kb.id, f"Title {source}", body, source)) for source, body in bodies.items()
        ]

        outcomes = [
            (item.data.source, result)
            async for item, result in ingest_many(session_factory, SYSTEM_PRINCIPAL, using, items, batch_chars=900)
        ]

        assert [source for source, _ in outcomes] == list(bodies)
        failures = {source: result for source, result in outcomes if isinstance(result, DomainError)}
        assert list(failures) == ["doc-empty"] and failures["doc-empty"].code == "EMPTY_DOCUMENT"
        async with session_factory() as session:
            for source, result in outcomes:
                if isinstance(result, DomainError):
                    continue
                assert source is not None and result.outcome == "CREATED"
                alone = await using.prepare(service.DocumentInput(kb.id, f"Title {source}", bodies[source], source))
                stored = (
                    await session.scalars(
                        select(Chunk).where(Chunk.document_id == result.document.id).order_by(Chunk.position)
                    )
                ).all()
                assert [chunk.text for chunk in stored] == [draft.text for draft in alone.chunks]
                assert alone.vectors is not None and result.document.chunk_count == len(stored) > 1
                for chunk, vector in zip(stored, alone.vectors, strict=True):
                    assert chunk.embedding is not None
                    assert np.allclose(from_bytes(chunk.embedding), from_bytes(vector))

    async def test_a_document_that_fails_to_store_does_not_stop_the_others(
        self, session_factory: SessionFactory
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        archived = await make_kb(session_factory, space.id, "archived")
        async with session_factory() as session, session.begin():
            await session.execute(
                text("UPDATE knowledge_base SET status = 'ARCHIVED' WHERE id = :id"), {"id": archived.id}
            )
        items = [
            ToPrepare(service.DocumentInput(kb.id, "First", "Kittens nap.", "one")),
            ToPrepare(service.DocumentInput(archived.id, "Lost", "Cars need repair.", "two")),
            ToPrepare(service.DocumentInput(kb.id, "Third", "Felines doze on carpets.", "three")),
        ]

        results = [result async for _, result in ingest_many(session_factory, SYSTEM_PRINCIPAL, ingestor(), items)]

        assert [getattr(result, "outcome", None) for result in results] == ["CREATED", None, "CREATED"]
        assert isinstance(results[1], DomainError) and results[1].code == "NOT_FOUND"


class TestWordsNotInTheIndex:
    async def test_names_missing_from_every_chunk_do_not_hide_the_words_that_match(
        self, session_factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # A tiny pool: on PostgreSQL the rarest words by the statistics are then words no
        # chunk holds (names, typos): the chunks holding the query's other words must still come.
        monkeypatch.setattr(repository, "POSTGRES_RANK_POOL", 1)
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        for number in range(20):
            await add_document(session_factory, kb.id, f"Report {number}", f"Weekly report {number} of the team.")
        await add_document(session_factory, kb.id, "Invoices", "Invoices are approved by the finance team.")
        await _refresh_statistics(session_factory)

        query = "Priyanka from Zanzibar asks who approves invoices for Globex"
        found = (await KnowledgeSearch(session_factory).search([kb.id], query, 3)).hits

        assert [hit.title for hit in found][:1] == ["Invoices"]
