"""The prompt context hook: an agent's best knowledge passages as a numbered, cited block.

The runtime's prompt builder calls it with the agent and the user's message; the block
it returns fits ``budget_chars`` and each passage carries a number the model can cite.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.knowledge import repository
from app.knowledge.ingest import HEADING_SEPARATOR
from app.knowledge.search import KnowledgeSearch, SearchHit

HEADER = "Knowledge base passages (cite them by number, e.g. [1]):"
ELLIPSIS = "…"
MIN_PASSAGE_CHARS = 80


@dataclass(frozen=True)
class Citation:
    number: int
    knowledge_base_id: str
    document_id: str
    title: str
    source: str | None
    heading_path: tuple[str, ...]
    chunk_index: int
    score: float


@dataclass
class KnowledgeContext:
    #: The block for the prompt; empty when nothing relevant was found.
    text: str
    citations: list[Citation] = field(default_factory=list)
    #: Knowledge base id → why it could not be searched.
    failures: dict[str, str] = field(default_factory=dict)
    #: Every hit of the search, in rank order, cited or not (a run's trace shows them).
    hits: list[SearchHit] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.text)


def citation_label(hit: SearchHit) -> str:
    """Title, headings and source: ``Title > Heading > Subheading (source)`` with ``HEADING_SEPARATOR``.

    A first heading repeating the title is left out.
    """
    headings = list(hit.heading_path)
    if headings and headings[0].casefold() == hit.title.casefold():
        headings = headings[1:]
    label = HEADING_SEPARATOR.join([hit.title, *headings])
    return f"{label} ({hit.source})" if hit.source else label


def format_context(hits: list[SearchHit], budget_chars: int) -> KnowledgeContext:
    """Passages in rank order, numbered from 1, as many as fit in ``budget_chars``.

    A passage that does not fit is skipped (a shorter one after it may still fit);
    when not even the first fits, it is cut short and marked with an ellipsis.
    """
    lines = [HEADER]
    used = len(HEADER)
    citations: list[Citation] = []
    for hit in hits:
        number = len(citations) + 1
        heading = f"[{number}] {citation_label(hit)}"
        entry = f"{heading}\n{hit.text.strip()}"
        cost = 2 + len(entry)  # the blank line before it
        if used + cost > budget_chars:
            room = budget_chars - used - 2 - len(heading) - 1 - len(ELLIPSIS)
            if citations or room < MIN_PASSAGE_CHARS:
                continue
            entry = f"{heading}\n{hit.text.strip()[:room].rstrip()}{ELLIPSIS}"
            cost = 2 + len(entry)
        lines.append(entry)
        used += cost
        citations.append(
            Citation(
                number=number,
                knowledge_base_id=hit.knowledge_base_id,
                document_id=hit.document_id,
                title=hit.title,
                source=hit.source,
                heading_path=hit.heading_path,
                chunk_index=hit.chunk_index,
                score=hit.score,
            )
        )
    if not citations:
        return KnowledgeContext(text="")
    return KnowledgeContext(text="\n\n".join(lines), citations=citations)


async def knowledge_context(
    session_factory: async_sessionmaker[AsyncSession],
    space_id: str,
    kb_ids: Sequence[str],
    message: str,
    *,
    budget_chars: int,
    top_k: int = 6,
    search: KnowledgeSearch | None = None,
) -> KnowledgeContext:
    """The ACTIVE ones of ``kb_ids`` (an agent's mounted knowledge bases) in ``space_id``, searched for
    ``message``, formatted.

    ``search`` carries the embedding provider (``Services.knowledge``); without it the
    search is lexical only.
    """
    if not kb_ids or not message.strip() or budget_chars <= len(HEADER):
        return KnowledgeContext(text="")
    async with session_factory() as session:
        kbs = await repository.active_knowledge_bases(session, space_id, list(kb_ids))
    if not kbs:
        return KnowledgeContext(text="")
    searcher = search or KnowledgeSearch(session_factory)
    outcome = await searcher.search([kb.id for kb in kbs], message, top_k)
    context = format_context(outcome.hits, budget_chars)
    context.failures = dict(outcome.failures)
    context.hits = list(outcome.hits)
    return context


class KnowledgeContextProvider:
    """What the runtime's prompt builder asks for (``app.runtime.prompt.KnowledgeProvider``)."""

    def __init__(self, search: KnowledgeSearch, *, top_k: int = 6) -> None:
        self.search = search
        self.top_k = top_k

    async def context(self, space_id: str, kb_ids: Sequence[str], message: str, *, budget_chars: int) -> str | None:
        found = await self.gather(space_id, kb_ids, message, budget_chars=budget_chars)
        return found.text or None

    async def gather(
        self, space_id: str, kb_ids: Sequence[str], message: str, *, budget_chars: int
    ) -> KnowledgeContext:
        """The block with what explains it: every hit with its score, the citations, failures."""
        return await knowledge_context(
            self.search.session_factory,
            space_id,
            kb_ids,
            message,
            budget_chars=budget_chars,
            top_k=self.top_k,
            search=self.search,
        )
