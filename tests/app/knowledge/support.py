"""Knowledge test helpers: records through the services, a deterministic "concept" embedder,
and a real OpenAI-compatible embeddings server on loopback that serves the same vectors.

The concept embedder maps words to concepts (cat, feline and kitten are one concept), so
a passage and a query sharing no word can still be close: that is what a vector search
adds over a lexical one, and it is deterministic.
"""

from __future__ import annotations

import hashlib
import re
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import httpx
import numpy as np
import uvicorn
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from app.agents.models import Agent
from app.config import Settings
from app.ids import new_id
from app.knowledge import service
from app.knowledge.embeddings import Matrix, normalise_rows
from app.knowledge.ingest import Ingestor, chunking_options
from app.knowledge.models import KnowledgeBase
from app.knowledge.service import StoredDocument
from app.principal import SYSTEM_PRINCIPAL
from app.spaces import service as spaces_service
from app.spaces.models import Space

DIMENSIONS = 64
CONCEPTS = {
    "cat": "CAT",
    "cats": "CAT",
    "feline": "CAT",
    "felines": "CAT",
    "kitten": "CAT",
    "kittens": "CAT",
    "mat": "RUG",
    "rug": "RUG",
    "rugs": "RUG",
    "carpet": "RUG",
    "sleep": "REST",
    "sleeping": "REST",
    "rested": "REST",
    "rests": "REST",
    "nap": "REST",
    "dozes": "REST",
    "car": "CAR",
    "automobile": "CAR",
    "vehicle": "CAR",
    "repair": "FIX",
    "fix": "FIX",
    "mend": "FIX",
    "mechanic": "FIX",
}
# Never embedded: the server answers HTTP 500 for a text containing it.
POISON = "poison-pill"


def concept_vector(text: str) -> list[float]:
    vector = np.zeros(DIMENSIONS, dtype=np.float32)
    for word in re.findall(r"\w+", text.lower()):
        concept = CONCEPTS.get(word, word)
        slot = int.from_bytes(hashlib.sha256(concept.encode()).digest()[:4], "little") % DIMENSIONS
        # Concepts weigh more than other words, as content words would in a real model.
        vector[slot] += 3.0 if word in CONCEPTS else 0.2
    if not vector.any():
        vector[0] = 1.0
    return [float(value) for value in vector]


class ConceptEmbedder:
    """The in-process twin of the server below."""

    def __init__(self, model_name: str = "test:concepts", *, is_english_only: bool = False) -> None:
        self.model_name = model_name
        self.is_english_only = is_english_only
        self.calls = 0

    async def embed(self, texts: Sequence[str]) -> Matrix:
        self.calls += 1
        return normalise_rows([concept_vector(text) for text in texts])


@dataclass
class EmbeddingServerState:
    requests: list[dict[str, object]] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)


def build_embedding_app(state: EmbeddingServerState) -> Starlette:
    async def embeddings(request: Request) -> JSONResponse:
        body = await request.json()
        state.requests.append(body)
        state.authorizations.append(request.headers.get("authorization"))
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        if any(POISON in text for text in texts):
            return JSONResponse({"error": {"message": "poisoned input", "type": "server_error"}}, status_code=500)
        return JSONResponse(
            {
                "object": "list",
                "model": body["model"],
                # Out of order on purpose: clients must sort by index.
                "data": [
                    {"object": "embedding", "index": index, "embedding": concept_vector(text)}
                    for index, text in reversed(list(enumerate(texts)))
                ],
                "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
            }
        )

    async def health(_: Request) -> JSONResponse:
        return JSONResponse({"ok": True})

    return Starlette(routes=[Route("/v1/embeddings", embeddings, methods=["POST"]), Route("/_health", health)])


@dataclass
class EmbeddingServer:
    host: str
    port: int
    state: EmbeddingServerState

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"


@contextmanager
def running_embedding_server(host: str = "127.0.0.1") -> Iterator[EmbeddingServer]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, 0))
    port = listener.getsockname()[1]
    state = EmbeddingServerState()
    config = uvicorn.Config(
        build_embedding_app(state),
        log_config=None,
        access_log=False,
        lifespan="off",
        loop="asyncio",
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while True:
            if server.started:
                try:
                    if httpx.get(f"http://{host}:{port}/_health", timeout=1, trust_env=False).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the embeddings server did not start")
            time.sleep(0.02)
        yield EmbeddingServer(host, port, state)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        listener.close()


SessionFactory = async_sessionmaker[AsyncSession]


async def make_space(session_factory: SessionFactory, name: str) -> Space:
    async with session_factory() as session, session.begin():
        return await spaces_service.create_space(session, SYSTEM_PRINCIPAL, name, name.title())


async def make_kb(session_factory: SessionFactory, space_id: str, name: str = "handbook") -> KnowledgeBase:
    async with session_factory() as session, session.begin():
        return await service.create_knowledge_base(
            session, SYSTEM_PRINCIPAL, space_id=space_id, name=name, label=name.title(), description=None
        )


def ingestor(embedder: object | None = None, *, size: int = 800, overlap: int = 100) -> Ingestor:
    settings = Settings(chunk_size=size, chunk_overlap=overlap)
    return Ingestor(chunking_options(settings), embedder)  # type: ignore[arg-type]


async def add_document(
    session_factory: SessionFactory,
    kb_id: str,
    title: str,
    text: str,
    source: str | None = None,
    *,
    using: Ingestor | None = None,
) -> StoredDocument:
    data = service.check_document_input(service.DocumentInput(kb_id, title, text, source))
    prepared = await (using or ingestor()).prepare(data)
    async with session_factory() as session, session.begin():
        return await service.store_document(session, SYSTEM_PRINCIPAL, prepared)


async def make_agent(session_factory: SessionFactory, space_id: str, mounted_kb_ids: list[str]) -> Agent:
    """An agent row mounting ``mounted_kb_ids`` (straight into the table: the agent API is not under test)."""
    async with session_factory() as session, session.begin():
        agent = Agent(
            id=new_id("ag_"),
            space_id=space_id,
            name=f"agent-{new_id('')}",
            model="test-model",
            system_prompt="You answer from the knowledge bases.",
            mounted_kb_ids=mounted_kb_ids,
            activated_tool_ids=["bt_search_knowledge"],
            bound_skill_ids=[],
        )
        session.add(agent)
    return agent
