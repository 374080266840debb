"""GraphQL operations of the knowledge tests, and helpers that run them like a client."""

from __future__ import annotations

from typing import Any

from tests.conftest import GraphQLClient

ADD_DOCUMENT = """
mutation AddDocument($input: AddDocumentInput!) {
  addDocument(input: $input) {
    document { id title source chunkCount createdAt knowledgeBase { id documentCount } }
    outcome
    userErrors { field code message }
  }
}
"""

SEARCH_KNOWLEDGE = """
query SearchKnowledge($spaceId: ID!, $query: String!, $knowledgeBaseIds: [ID!], $topK: Int) {
  searchKnowledge(spaceId: $spaceId, query: $query, knowledgeBaseIds: $knowledgeBaseIds, topK: $topK) {
    document { id title source }
    text score headingPath chunkIndex source knowledgeBaseId
  }
}
"""

CREATE_KNOWLEDGE_BASE = """
mutation CreateKnowledgeBase($input: CreateKnowledgeBaseInput!) {
  createKnowledgeBase(input: $input) { knowledgeBase { id } userErrors { code } }
}
"""

DOCUMENTS = """
query Documents($id: ID!) {
  node(id: $id) {
    ... on KnowledgeBase { documentCount documents(first: 10) { totalCount edges { node { id title chunkCount } } } }
  }
}
"""


async def create_kb(client: GraphQLClient, space_id: str, name: str = "handbook") -> str:
    data = await client.execute(
        CREATE_KNOWLEDGE_BASE, {"input": {"spaceId": space_id, "name": name, "label": name.title()}}
    )
    payload = data["createKnowledgeBase"]
    assert payload["userErrors"] == [], payload
    return str(payload["knowledgeBase"]["id"])


async def add_document(
    client: GraphQLClient, kb_id: str, title: str, text: str, source: str | None = None
) -> dict[str, Any]:
    values: dict[str, Any] = {"knowledgeBaseId": kb_id, "title": title, "text": text}
    if source is not None:
        values["source"] = source
    payload: dict[str, Any] = (await client.execute(ADD_DOCUMENT, {"input": values}))["addDocument"]
    return payload


async def search(client: GraphQLClient, space_id: str, query: str, **arguments: Any) -> list[dict[str, Any]]:
    hits: list[dict[str, Any]] = (
        await client.execute(SEARCH_KNOWLEDGE, {"spaceId": space_id, "query": query, **arguments})
    )["searchKnowledge"]
    return hits
