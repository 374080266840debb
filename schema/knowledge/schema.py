"""Queries and mutations of the knowledge domain."""

from __future__ import annotations

from typing import Annotated

import strawberry

from app.knowledge import service
from schema.context import Info
from schema.errors import UserError
from schema.knowledge.types import Document, KnowledgeBase, KnowledgeHit, knowledge_base_connection
from schema.mutations import in_transaction
from schema.pagination import AfterArgument, Connection, FirstArgument, empty_connection


@strawberry.type
class KnowledgeQuery:
    @strawberry.field(description="Knowledge bases the caller can read, optionally of one space.")
    async def knowledge_bases(
        self,
        info: Info,
        space_id: Annotated[
            strawberry.ID | None, strawberry.argument(description="Only this space's knowledge bases.")
        ] = None,
        first: FirstArgument = 50,
        after: AfterArgument = None,
    ) -> Connection[KnowledgeBase]:
        principal = info.context.principal
        scope = str(space_id) if space_id else principal.reach
        if scope is not None and not principal.can_read_space(scope):
            return empty_connection(after)  # outside the caller's reach looks like an absent space
        return await knowledge_base_connection(info, scope, first, after)


@strawberry.input(description="A new knowledge base in a space.")
class CreateKnowledgeBaseInput:
    space_id: strawberry.ID = strawberry.field(description="The owning space.")
    name: str = strawberry.field(description="Machine name, unique in the space: ^[a-zA-Z0-9_-]{1,64}$.")
    label: str = strawberry.field(description="Display name for people.")
    description: str | None = strawberry.field(default=None, description="What it holds.")


@strawberry.type(description="Result of a mutation on a knowledge base.")
class KnowledgeBasePayload:
    knowledge_base: KnowledgeBase | None = strawberry.field(description="The knowledge base; null when the mutation failed.")
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


@strawberry.type
class KnowledgeMutation:
    @strawberry.mutation(description="Create a knowledge base (SPACE_ADMIN of the space, or ADMIN).")
    async def create_knowledge_base(
        self,
        info: Info,
        input: Annotated[CreateKnowledgeBaseInput, strawberry.argument(description="The new knowledge base.")],
    ) -> KnowledgeBasePayload:
        principal = info.context.principal
        row, errors = await in_transaction(
            info,
            lambda session: service.create_knowledge_base(
                session,
                principal,
                space_id=str(input.space_id),
                name=input.name,
                label=input.label,
                description=input.description,
            ),
        )
        return KnowledgeBasePayload(
            knowledge_base=KnowledgeBase.from_row(row) if row else None, user_errors=errors
        )


KNOWLEDGE_PENDING = "Documents and search arrive with the knowledge issue (issue #4)."


@strawberry.input(description="A document to add to a knowledge base.")
class AddDocumentInput:
    knowledge_base_id: strawberry.ID = strawberry.field(description="The knowledge base.")
    title: str = strawberry.field(description="Title, shown in citations.")
    text: str = strawberry.field(description="The document's text (Markdown or plain).")
    source: str | None = strawberry.field(
        default=None, description="Where it came from; adding the same source again replaces that document."
    )


@strawberry.type(description="Result of addDocument.")
class DocumentPayload:
    document: Document | None = strawberry.field(description="The document; null when the mutation failed.")
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


@strawberry.type
class KnowledgeSearchQuery:
    @strawberry.field(description="Passages of the space's knowledge bases that match the query, best first.")
    async def search_knowledge(
        self,
        info: Info,
        space_id: Annotated[strawberry.ID, strawberry.argument(description="The space to search in.")],
        query: Annotated[str, strawberry.argument(description="What to look for.")],
        knowledge_base_ids: Annotated[
            list[strawberry.ID] | None, strawberry.argument(description="Only these knowledge bases.")
        ] = None,
        top_k: Annotated[int | None, strawberry.argument(description="How many passages to return.")] = 5,
    ) -> list[KnowledgeHit]:
        # No documents are chunked until ingest lands (issue #4), so nothing matches.
        return []


@strawberry.type
class KnowledgeDocumentMutation:
    @strawberry.mutation(description="Add a document to a knowledge base (chunked and indexed for search).")
    async def add_document(
        self,
        info: Info,
        input: Annotated[AddDocumentInput, strawberry.argument(description="The document.")],
    ) -> DocumentPayload:
        return DocumentPayload(
            document=None,
            user_errors=[UserError(field=["input"], code="NOT_AVAILABLE", message=KNOWLEDGE_PENDING)],
        )
