"""addDocument through the API: chunking, replacement by source, and every refusal named."""

from __future__ import annotations

import pytest

from app.principal import Role
from tests.conftest import GraphQLClient, Keys
from tests.schema.knowledge.operations import DOCUMENTS, add_document, create_kb, search

HANDBOOK = "# Handbook\n\n## Leave\n\nTwenty-five days of paid leave.\n\n## Expenses\n\nReceipts within thirty days."


class TestAddDocument:
    async def test_space_admin_adds_a_chunked_document(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))
        kb_id = await create_kb(gql, alpha.id)

        payload = await add_document(space_admin, kb_id, "Handbook", HANDBOOK, "handbook.md")

        assert payload["userErrors"] == []
        assert payload["outcome"] == "CREATED"
        document = payload["document"]
        assert document["id"].startswith("doc_")
        assert (document["title"], document["source"], document["chunkCount"]) == ("Handbook", "handbook.md", 2)
        assert document["knowledgeBase"] == {"id": kb_id, "documentCount": 1}

    async def test_same_source_replaces_instead_of_duplicating(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        kb_id = await create_kb(gql, alpha.id)
        first = await add_document(gql, kb_id, "Handbook", HANDBOOK, "handbook.md")

        second = await add_document(gql, kb_id, "Handbook", "# Handbook\n\nLeave is now thirty days.", "handbook.md")
        third = await add_document(gql, kb_id, "Handbook", "# Handbook\n\nLeave is now thirty days.", "handbook.md")

        assert (second["outcome"], third["outcome"]) == ("REPLACED", "UNCHANGED")
        assert second["document"]["id"] == third["document"]["id"] == first["document"]["id"]
        listed = await gql.execute(DOCUMENTS, {"id": kb_id})
        assert listed["node"]["documentCount"] == 1
        assert listed["node"]["documents"]["edges"] == [
            {"node": {"id": first["document"]["id"], "title": "Handbook", "chunkCount": 1}}
        ]
        hits = await search(gql, alpha.id, "leave days")
        assert [hit["text"] for hit in hits] == ["Leave is now thirty days."]

    async def test_blank_source_counts_as_none(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        kb_id = await create_kb(gql, alpha.id)

        payload = await add_document(gql, kb_id, "Note", "Text.", "   ")

        assert payload["document"]["source"] is None


class TestAddDocumentRefusals:
    @pytest.mark.parametrize(
        ("title", "text", "code", "field"),
        [
            ("Empty", "   \n\n ", "EMPTY_DOCUMENT", ["input", "text"]),
            ("", "Some text.", "INVALID", ["input", "title"]),
            ("T" * 501, "Some text.", "TOO_LONG", ["input", "title"]),
        ],
    )
    async def test_bad_input(
        self, gql: GraphQLClient, keys: Keys, title: str, text: str, code: str, field: list[str]
    ) -> None:
        alpha = await keys.space("alpha")
        kb_id = await create_kb(gql, alpha.id)

        payload = await add_document(gql, kb_id, title, text)

        assert payload["document"] is None
        assert payload["outcome"] is None
        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [(code, field)]

    async def test_empty_text_error_names_the_document(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        kb_id = await create_kb(gql, alpha.id)

        payload = await add_document(gql, kb_id, "Travel policy", "")

        assert payload["userErrors"][0]["message"] == "Document 'Travel policy' has no text."

    async def test_unknown_knowledge_base_is_named(self, gql: GraphQLClient) -> None:
        payload = await add_document(gql, "kb_doesnotexist", "Doc", "Text.")

        assert payload["document"] is None
        assert payload["userErrors"] == [
            {
                "field": ["input", "knowledgeBaseId"],
                "code": "NOT_FOUND",
                "message": "Knowledge base 'kb_doesnotexist' not found.",
            }
        ]

    async def test_knowledge_base_of_another_space_is_not_found(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        beta_kb = await create_kb(gql, beta.id)
        alpha_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))

        payload = await add_document(alpha_admin, beta_kb, "Doc", "Text.")

        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [
            ("NOT_FOUND", ["input", "knowledgeBaseId"])
        ]
        assert (await gql.execute(DOCUMENTS, {"id": beta_kb}))["node"]["documentCount"] == 0

    @pytest.mark.parametrize("role", [Role.MEMBER, Role.VIEWER])
    async def test_members_and_viewers_may_not_add(self, gql: GraphQLClient, keys: Keys, role: Role) -> None:
        alpha = await keys.space("alpha")
        kb_id = await create_kb(gql, alpha.id)
        client = gql.as_key(await keys.for_space(alpha.id, role))

        payload = await add_document(client, kb_id, "Doc", "Text.")

        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [
            ("FORBIDDEN", ["input", "knowledgeBaseId"])
        ]
        assert (await gql.execute(DOCUMENTS, {"id": kb_id}))["node"]["documentCount"] == 0
