"""bt_search_knowledge through the gateway: invokeTool for a caller, execute(agent_id=…) for an agent."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.knowledge import repository
from app.principal import Principal, Role
from tests.app.knowledge.support import make_agent
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import invoke
from tests.schema.knowledge.operations import add_document, create_kb

SessionFactory = async_sessionmaker[AsyncSession]
TOOL = "bt_search_knowledge"

POLICY = "# Travel policy\n\n## Hotels\n\nHotels up to 150 euros a night.\n\n## Flights\n\nEconomy under six hours."


class TestInvokeTool:
    async def test_returns_hits_with_citation_data(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))
        kb_id = await create_kb(gql, alpha.id)
        document = (await add_document(gql, kb_id, "Travel policy", POLICY, "policies/travel.md"))["document"]

        envelope = await invoke(member, alpha.id, TOOL, {"query": "hotel price per night", "topK": 3})

        assert envelope["status"] == "SUCCESS", envelope["error"]
        data = envelope["data"]
        assert data["partial"] is False
        assert data["failed"] == []
        assert data["searchedKnowledgeBaseIds"] == [kb_id]
        (hit,) = data["hits"]
        assert hit == {
            "citation": 1,
            "knowledgeBaseId": kb_id,
            "documentId": document["id"],
            "title": "Travel policy",
            "source": "policies/travel.md",
            "headingPath": ["Travel policy", "Hotels"],
            "chunkIndex": 0,
            "text": "Hotels up to 150 euros a night.",
            "score": hit["score"],
        }
        assert hit["score"] > 0
        assert envelope["call"]["status"] == "SUCCESS"

    async def test_searches_only_the_callers_space(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        await add_document(gql, await create_kb(gql, alpha.id), "Alpha", "Bluebird merger plan.")
        beta_kb = await create_kb(gql, beta.id)
        await add_document(gql, beta_kb, "Beta", "Bluebird sightings.")
        beta_member = gql.as_key(await keys.for_space(beta.id, Role.MEMBER))

        envelope = await invoke(beta_member, beta.id, TOOL, {"query": "bluebird merger"})

        assert [hit["title"] for hit in envelope["data"]["hits"]] == ["Beta"]
        assert envelope["data"]["searchedKnowledgeBaseIds"] == [beta_kb]

    async def test_knowledge_base_ids_of_another_space_are_refused_by_name(
        self, gql: GraphQLClient, keys: Keys
    ) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        alpha_kb = await create_kb(gql, alpha.id)
        beta_kb = await create_kb(gql, beta.id)

        envelope = await invoke(gql, beta.id, TOOL, {"query": "x", "knowledgeBaseIds": [beta_kb, alpha_kb]})

        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "PARAM_INVALID"
        assert envelope["error"]["message"] == f"Knowledge bases not available to this space: {alpha_kb}."

    async def test_arguments_are_validated_by_the_gateway(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")

        envelope = await invoke(gql, alpha.id, TOOL, {"query": "x", "topK": 500})

        assert envelope["error"]["code"] == "PARAM_INVALID"

    async def test_one_failing_knowledge_base_makes_the_result_partial(
        self, gql: GraphQLClient, keys: Keys, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        alpha = await keys.space("alpha")
        good = await create_kb(gql, alpha.id, "good")
        bad = await create_kb(gql, alpha.id, "bad")
        await add_document(gql, good, "Good", "Apple pie recipe.")
        await add_document(gql, bad, "Bad", "Apple crumble recipe.")
        real = repository.lexical_candidates

        async def failing(session: AsyncSession, kb_id: str, tokens: list[str], limit: int) -> list[tuple[int, float]]:
            if kb_id == bad:
                raise OSError("index corrupted")
            return await real(session, kb_id, tokens, limit)

        monkeypatch.setattr(repository, "lexical_candidates", failing)
        envelope = await invoke(gql, alpha.id, TOOL, {"query": "apple recipe"})

        assert envelope["status"] == "SUCCESS"
        assert envelope["data"]["partial"] is True
        assert envelope["data"]["failed"] == [{"knowledgeBaseId": bad, "error": "search failed (OSError)"}]
        assert [hit["title"] for hit in envelope["data"]["hits"]] == ["Good"]


class TestCalledByAnAgent:
    async def _execute(self, app_and_services: Any, space_id: str, agent_id: str, arguments: dict[str, Any]) -> Any:
        principal = Principal(key_id="agent-test", role=Role.MEMBER, space_id=space_id)
        return await app_and_services.state.services.gateway.execute(
            principal, space_id, TOOL, arguments, agent_id=agent_id
        )

    async def test_limited_to_the_agents_mounted_knowledge_bases(
        self, gql: GraphQLClient, keys: Keys, session_factory: SessionFactory, app_and_services: Any
    ) -> None:
        alpha = await keys.space("alpha")
        mounted = await create_kb(gql, alpha.id, "mounted")
        unmounted = await create_kb(gql, alpha.id, "unmounted")
        await add_document(gql, mounted, "Mounted", "Quarterly revenue figures.")
        await add_document(gql, unmounted, "Unmounted", "Quarterly revenue secrets.")
        agent = await make_agent(session_factory, alpha.id, [mounted])

        result = await self._execute(app_and_services, alpha.id, agent.id, {"query": "quarterly revenue"})

        assert result.status == "SUCCESS", result.error
        assert [hit["title"] for hit in result.data["hits"]] == ["Mounted"]
        assert result.data["searchedKnowledgeBaseIds"] == [mounted]

    async def test_asking_for_an_unmounted_knowledge_base_is_refused(
        self, gql: GraphQLClient, keys: Keys, session_factory: SessionFactory, app_and_services: Any
    ) -> None:
        alpha = await keys.space("alpha")
        mounted = await create_kb(gql, alpha.id, "mounted")
        unmounted = await create_kb(gql, alpha.id, "unmounted")
        agent = await make_agent(session_factory, alpha.id, [mounted])

        result = await self._execute(
            app_and_services, alpha.id, agent.id, {"query": "revenue", "knowledgeBaseIds": [unmounted]}
        )

        assert result.status == "FAILED"
        assert result.error.code == "PARAM_INVALID"
        assert result.error.message == f"Knowledge bases not available to this agent: {unmounted}."

    async def test_an_agent_without_knowledge_bases_finds_nothing(
        self, gql: GraphQLClient, keys: Keys, session_factory: SessionFactory, app_and_services: Any
    ) -> None:
        alpha = await keys.space("alpha")
        await add_document(gql, await create_kb(gql, alpha.id), "Doc", "Revenue.")
        agent = await make_agent(session_factory, alpha.id, [])

        result = await self._execute(app_and_services, alpha.id, agent.id, {"query": "revenue"})

        assert result.status == "SUCCESS"
        assert result.data["hits"] == []
        assert result.data["searchedKnowledgeBaseIds"] == []

    async def test_an_agent_of_another_space_is_refused(
        self, gql: GraphQLClient, keys: Keys, session_factory: SessionFactory, app_and_services: Any
    ) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        beta_kb = await create_kb(gql, beta.id)
        agent = await make_agent(session_factory, beta.id, [beta_kb])

        result = await self._execute(app_and_services, alpha.id, agent.id, {"query": "revenue"})

        assert result.status == "FAILED"
        assert result.error.code == "PERMISSION_DENIED"
