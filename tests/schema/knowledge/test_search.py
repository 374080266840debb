"""searchKnowledge through the API: ranked cited passages, Chinese, space rules, arguments."""

from __future__ import annotations

from typing import Any

import pytest

from app.config import Settings
from app.main import create_app
from app.principal import Role
from tests.app.knowledge.support import POISON, running_embedding_server
from tests.conftest import GraphQLClient, Keys
from tests.schema.knowledge.operations import SEARCH_KNOWLEDGE, add_document, create_kb, search

POLICY = """# Travel policy

## Flights

Economy class for flights under six hours.

## Hotels

Hotels up to 150 euros a night.
"""


class TestSearchKnowledge:
    async def test_hits_carry_document_and_citation_fields(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))
        kb_id = await create_kb(gql, alpha.id)
        document = (await add_document(gql, kb_id, "Travel policy", POLICY, "travel.md"))["document"]

        hits = await search(member, alpha.id, "hotel price per night")

        assert len(hits) == 1
        hit = hits[0]
        assert hit["document"] == {"id": document["id"], "title": "Travel policy", "source": "travel.md"}
        assert hit["text"] == "Hotels up to 150 euros a night."
        assert hit["headingPath"] == ["Travel policy", "Hotels"]
        assert hit["chunkIndex"] == 1
        assert hit["source"] == "travel.md"
        assert hit["knowledgeBaseId"] == kb_id
        assert hit["score"] > 0

    async def test_chinese_queries(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        kb_id = await create_kb(gql, alpha.id)
        await add_document(gql, kb_id, "请假制度", "# 请假制度\n\n员工每年有二十五天带薪年假。", "leave.md")
        await add_document(gql, kb_id, "报销", "# 差旅报销\n\n出差费用凭发票报销。", "travel.md")

        assert [hit["document"]["title"] for hit in await search(gql, alpha.id, "带薪年假有几天")] == ["请假制度"]
        assert [hit["document"]["title"] for hit in await search(gql, alpha.id, "发票")] == ["报销"]

    async def test_top_k_and_knowledge_base_filter(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        first = await create_kb(gql, alpha.id, "first")
        second = await create_kb(gql, alpha.id, "second")
        for number in range(4):
            await add_document(gql, first, f"First {number}", f"Widget guide {number}: widgets {'and more ' * number}.")
        await add_document(gql, second, "Second", "Widget catalogue.")

        assert len(await search(gql, alpha.id, "widget", topK=2)) == 2
        only_second = await search(gql, alpha.id, "widget", knowledgeBaseIds=[second])
        assert [hit["document"]["title"] for hit in only_second] == ["Second"]
        assert await search(gql, alpha.id, "widget", knowledgeBaseIds=[]) == []

    async def test_each_documents_best_passage_comes_before_further_passages(
        self, gql: GraphQLClient, keys: Keys
    ) -> None:
        alpha = await keys.space("alpha")
        kb_id = await create_kb(gql, alpha.id)
        manual = "\n\n".join(
            f"## Widget {part}\n\nWidget {part}: the widget's {part}." for part in ("care", "fit", "use")
        )
        await add_document(gql, kb_id, "Manual", f"# Manual\n\n{manual}")
        filler = "The office kitchen has coffee, tea and a fridge that is cleaned on Fridays. " * 3
        # The widget is in a second paragraph: not in these documents' leads (title and first paragraph).
        await add_document(gql, kb_id, "Kitchen", f"{filler}\n\nKeep the widget away from the sink.")
        await add_document(
            gql, kb_id, "Parking", f"{filler.replace('kitchen', 'car park')}\n\nA widget opens the gate."
        )

        three = await search(gql, alpha.id, "widget", topK=3)
        five = await search(gql, alpha.id, "widget", topK=5)

        # Score order would be the manual's three passages: they hold the word more often.
        assert three[0]["document"]["title"] == "Manual"
        assert sorted(hit["document"]["title"] for hit in three) == ["Kitchen", "Manual", "Parking"]
        assert [hit["document"]["title"] for hit in five][3:] == ["Manual", "Manual"]
        assert len({hit["chunkIndex"] for hit in five if hit["document"]["title"] == "Manual"}) == 3
        # Each group is best first.
        assert three[1]["score"] >= three[2]["score"] and five[3]["score"] >= five[4]["score"]
        assert five[3]["score"] > three[1]["score"]  # a further passage of the manual outscores the others

    @pytest.mark.parametrize("top_k", [0, 51, -1])
    async def test_top_k_out_of_range_is_a_client_error(self, gql: GraphQLClient, keys: Keys, top_k: int) -> None:
        alpha = await keys.space("alpha")

        response = await gql.raw(SEARCH_KNOWLEDGE, {"spaceId": alpha.id, "query": "x", "topK": top_k})

        body = response.json()
        assert body["errors"][0]["message"] == "topK must be between 1 and 50."
        assert body["errors"][0]["extensions"]["code"] == "BAD_REQUEST"

    async def test_a_long_query_is_read_to_its_end_up_to_the_configured_limit(
        self, gql: GraphQLClient, keys: Keys
    ) -> None:
        # searchKnowledge refused queries over 2,000 characters with its own BAD_REQUEST, where
        # the README bounds it at QUIVER_MAX_QUERY_CHARS (4,000, TOO_LONG) and the lexical side
        # reads the whole text; the search itself read only the first 2,000 characters.
        alpha = await keys.space("alpha")
        kb_id = await create_kb(gql, alpha.id)
        await add_document(gql, kb_id, "请假制度", "# 请假制度\n\n员工每年有二十五天带薪年假。", "leave.md")
        await add_document(gql, kb_id, "报销", "# 差旅报销\n\n出差费用凭增值税发票报销。", "travel.md")
        preamble = "您好，我是上海浦东新区的王芳，最近工作很忙，" * 100  # noqa: RUF001 - 2,200 characters of nothing

        hits = await search(gql, alpha.id, f"{preamble}想问一下增值税发票怎么报销")

        assert [hit["document"]["title"] for hit in hits] == ["报销"]
        response = await gql.raw(SEARCH_KNOWLEDGE, {"spaceId": alpha.id, "query": "发票" * 2001})
        error = response.json()["errors"][0]
        assert error["extensions"]["code"] == "TOO_LONG"
        assert "at most 4000" in error["message"]

    async def test_blank_query_finds_nothing(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        kb_id = await create_kb(gql, alpha.id)
        await add_document(gql, kb_id, "Doc", "Anything.")

        assert await search(gql, alpha.id, "   ") == []


class TestSpaceRules:
    @pytest.fixture
    async def two_spaces(self, gql: GraphQLClient, keys: Keys) -> dict[str, Any]:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        alpha_kb = await create_kb(gql, alpha.id)
        beta_kb = await create_kb(gql, beta.id)
        await add_document(gql, alpha_kb, "Alpha plan", "The secret merger is codenamed bluebird.")
        await add_document(gql, beta_kb, "Beta notes", "Bluebird is a bird.")
        return {"alpha": alpha.id, "beta": beta.id, "alpha_kb": alpha_kb, "beta_kb": beta_kb}

    async def test_a_member_of_space_b_never_sees_space_a(
        self, gql: GraphQLClient, keys: Keys, two_spaces: dict[str, Any]
    ) -> None:
        beta_member = gql.as_key(await keys.for_space(two_spaces["beta"], Role.MEMBER))

        own = await search(beta_member, two_spaces["beta"], "bluebird merger")
        other_space = await search(beta_member, two_spaces["alpha"], "bluebird merger")
        smuggled = await search(
            beta_member, two_spaces["beta"], "bluebird merger", knowledgeBaseIds=[two_spaces["alpha_kb"]]
        )

        assert [hit["document"]["title"] for hit in own] == ["Beta notes"]
        assert other_space == []
        assert smuggled == []

    async def test_another_space_s_document_titles_are_no_way_in(
        self, gql: GraphQLClient, keys: Keys, two_spaces: dict[str, Any]
    ) -> None:
        # searchKnowledge also searches the documents' leads (title and first paragraph): scoped
        # to the space's knowledge bases exactly as the passages are.
        await add_document(gql, two_spaces["alpha_kb"], "Kestrel acquisition", "Terms of the deal.\n\nMore.")
        beta_member = gql.as_key(await keys.for_space(two_spaces["beta"], Role.MEMBER))

        own = await search(beta_member, two_spaces["beta"], "kestrel acquisition")
        smuggled = await search(
            beta_member, two_spaces["beta"], "kestrel acquisition", knowledgeBaseIds=[two_spaces["alpha_kb"]]
        )
        other_space = await search(beta_member, two_spaces["alpha"], "kestrel acquisition")

        assert own == smuggled == other_space == []
        admin_hits = await search(gql, two_spaces["alpha"], "kestrel acquisition")
        assert [hit["document"]["title"] for hit in admin_hits] == ["Kestrel acquisition"]

    async def test_admin_searches_the_space_it_names(self, gql: GraphQLClient, two_spaces: dict[str, Any]) -> None:
        hits = await search(gql, two_spaces["alpha"], "bluebird")
        assert [hit["document"]["title"] for hit in hits] == ["Alpha plan"]

    async def test_viewer_may_search_its_space(
        self, gql: GraphQLClient, keys: Keys, two_spaces: dict[str, Any]
    ) -> None:
        viewer = gql.as_key(await keys.for_space(two_spaces["alpha"], Role.VIEWER))
        assert [hit["document"]["title"] for hit in await search(viewer, two_spaces["alpha"], "merger")] == [
            "Alpha plan"
        ]


class TestSemanticThroughTheService:
    async def test_an_app_configured_for_openai_embeddings_ranks_by_meaning(
        self, settings: Settings, keys: Keys, admin_key: str
    ) -> None:
        import httpx

        with running_embedding_server() as server:
            embedded = settings.model_copy(
                update={
                    "embeddings": "openai",
                    "embeddings_model": "concepts-1",
                    "embeddings_base_url": server.base_url,
                }
            )
            app = create_app(embedded)
            try:
                transport = httpx.ASGITransport(app=app)
                async with httpx.AsyncClient(transport=transport, base_url="http://quiver.test") as http:
                    client = GraphQLClient(http=http, key=admin_key)
                    alpha = await keys.space("alpha")
                    kb_id = await create_kb(client, alpha.id)
                    await add_document(client, kb_id, "Pets", "The feline rested on the rug.")
                    await add_document(client, kb_id, "Garage", "A mechanic can mend your automobile.")

                    hits = await search(client, alpha.id, "cat sleeping on a mat")
                    refused = await add_document(client, kb_id, "Poisoned", f"This text carries a {POISON}.")
            finally:
                await app.state.services.close()
            inputs: list[Any] = [request["input"] for request in server.state.requests]
            # Two documents and one query embedded once each; the refused document was tried (and retried once).
            assert inputs[:3] == [
                ["Pets\nThe feline rested on the rug."],
                ["Garage\nA mechanic can mend your automobile."],
                ["cat sleeping on a mat"],
            ]
            assert all(POISON in text[0] for text in inputs[3:]) and len(inputs) > 3

        assert [hit["document"]["title"] for hit in hits] == ["Pets"]
        assert refused["document"] is None
        assert [(error["code"], error["field"]) for error in refused["userErrors"]] == [
            ("EMBEDDING_FAILED", ["input", "text"])
        ]
        assert "'Poisoned' could not be embedded" in refused["userErrors"][0]["message"]
