"""``bt_search_knowledge``: the builtin tool an agent (or a caller) searches knowledge bases with.

Called by an agent, it reaches only the agent's mounted knowledge bases; called
directly (``invokeTool``), every ACTIVE knowledge base of the space. The result
carries citation data per hit and says ``partial`` (and which bases failed) rather
than failing the whole call when one knowledge base cannot be searched.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.gateway.envelope import PARAM_INVALID, PERMISSION_DENIED, ToolFailure
from app.gateway.executors.base import Invocation
from app.knowledge import repository
from app.knowledge.search import KnowledgeSearch, SearchOutcome

TOOL_ID = "bt_search_knowledge"
DEFAULT_TOP_K = 5

# An agent's (space id, mounted knowledge base ids), or None when there is no such agent. The agents
# package sits above this one, so the composition root hands its look-up in.
MountedKnowledge = Callable[[AsyncSession, str], Awaitable[tuple[str, list[str]] | None]]


class SearchKnowledgeTool:
    """The builtin function; ``BuiltinExecutor.register(TOOL_ID, tool)``."""

    def __init__(self, search: KnowledgeSearch, mounted_knowledge: MountedKnowledge) -> None:
        self.search = search
        self.mounted_knowledge = mounted_knowledge

    async def __call__(self, invocation: Invocation) -> dict[str, Any]:
        arguments = invocation.arguments
        query = str(arguments.get("query") or "").strip()
        if not query:
            raise ToolFailure(PARAM_INVALID, "The query must not be empty.", "/query")
        top_k = int(arguments.get("topK") or DEFAULT_TOP_K)
        requested = arguments.get("knowledgeBaseIds")
        kb_ids = await self._knowledge_bases(invocation, None if requested is None else [str(kb) for kb in requested])
        outcome = await self.search.search(kb_ids, query, top_k, documents_first=True)
        return result_data(query, outcome)

    async def _knowledge_bases(self, invocation: Invocation, requested: list[str] | None) -> list[str]:
        async with self.search.session_factory() as session:
            allowed: list[str] | None = None
            if invocation.agent_id is not None:
                mounted = await self.mounted_knowledge(session, invocation.agent_id)
                if mounted is None or mounted[0] != invocation.space_id:
                    raise ToolFailure(
                        PERMISSION_DENIED,
                        "The calling agent does not belong to this space.",
                        f"agent {invocation.agent_id}",
                    )
                allowed = mounted[1]
            scope = allowed
            if requested is not None:
                scope = [kb for kb in requested if allowed is None or kb in allowed]
            kbs = await repository.active_knowledge_bases(session, invocation.space_id, scope)
        found = {kb.id for kb in kbs}
        if requested is not None:
            missing = [kb for kb in dict.fromkeys(requested) if kb not in found]
            if missing:
                who = "this agent" if invocation.agent_id else "this space"
                raise ToolFailure(
                    PARAM_INVALID,
                    f"Knowledge bases not available to {who}: {', '.join(missing)}.",
                    "/knowledgeBaseIds",
                )
        return [kb.id for kb in kbs]


def result_data(query: str, outcome: SearchOutcome) -> dict[str, Any]:
    return {
        "query": query,
        "hits": [
            {
                "citation": number,
                "knowledgeBaseId": hit.knowledge_base_id,
                "documentId": hit.document_id,
                "title": hit.title,
                "source": hit.source,
                "headingPath": list(hit.heading_path),
                "chunkIndex": hit.chunk_index,
                "text": hit.text,
                "score": round(hit.score, 6),
            }
            for number, hit in enumerate(outcome.hits, start=1)
        ],
        "searchedKnowledgeBaseIds": outcome.searched,
        "partial": outcome.is_partial,
        "failed": [{"knowledgeBaseId": kb_id, "error": error} for kb_id, error in outcome.failures.items()],
        "warnings": [outcome.vector_error] if outcome.vector_error else [],
    }
