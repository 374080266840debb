"""Queries and mutations of the knowledge domain."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import strawberry

from app.errors import DomainError
from app.knowledge import service
from app.knowledge.ingest import add_document
from app.knowledge.search import MAX_TOP_K
from app.knowledge.tool import DEFAULT_TOP_K
from schema.context import Info
from schema.errors import ClientError, UserError
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
    knowledge_base: KnowledgeBase | None = strawberry.field(
        description="The knowledge base; null when the mutation failed."
    )
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
        return KnowledgeBasePayload(knowledge_base=KnowledgeBase.from_row(row) if row else None, user_errors=errors)


@strawberry.enum(description="What addDocument did with the document.")
class DocumentOutcome(Enum):
    CREATED = strawberry.enum_value("CREATED", description="A new document was added.")
    REPLACED = strawberry.enum_value(
        "REPLACED", description="A document with the same source existed: its chunks were replaced."
    )
    UNCHANGED = strawberry.enum_value(
        "UNCHANGED", description="The same source with the same content was already there: nothing changed."
    )


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
    outcome: DocumentOutcome | None = strawberry.field(
        default=None, description="Created, replaced or unchanged; null when the mutation failed."
    )
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


@strawberry.type
class KnowledgeSearchQuery:
    @strawberry.field(
        description=(
            "Passages of the space's knowledge bases that match the query: the best passage of each document "
            "first (best first), then further passages of those documents (best first)."
        )
    )
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
        principal = info.context.principal
        limit = DEFAULT_TOP_K if top_k is None else top_k
        if not 1 <= limit <= MAX_TOP_K:
            raise ClientError(f"topK must be between 1 and {MAX_TOP_K}.")
        requested = None if knowledge_base_ids is None else [str(kb_id) for kb_id in knowledge_base_ids]
        async with info.context.session() as session:
            kbs = await service.searchable_knowledge_bases(session, principal, str(space_id), requested)
        if not kbs or not query.strip():
            return []
        outcome = await info.context.knowledge.search([kb.id for kb in kbs], query, limit, documents_first=True)
        if outcome.failures:
            # A list cannot say "partial": fail loudly rather than return silently fewer passages.
            raise RuntimeError(f"knowledge search failed in {sorted(outcome.failures)}: {outcome.failures}")
        return [KnowledgeHit.from_hit(hit) for hit in outcome.hits]


@strawberry.type
class KnowledgeDocumentMutation:
    @strawberry.mutation(
        description=(
            "Add a document to a knowledge base (SPACE_ADMIN of its space, or ADMIN): chunked, indexed and, "
            "with an embedding provider, embedded. The same source again replaces that document's chunks."
        )
    )
    async def add_document(
        self,
        info: Info,
        input: Annotated[AddDocumentInput, strawberry.argument(description="The document.")],
    ) -> DocumentPayload:
        data = service.DocumentInput(str(input.knowledge_base_id), input.title, input.text, input.source)
        try:
            stored = await add_document(
                info.context.session_factory, info.context.principal, info.context.ingestor, data
            )
        except DomainError as error:
            return DocumentPayload(document=None, user_errors=[UserError.from_domain(error)])
        return DocumentPayload(
            document=Document.from_row(stored.document), outcome=DocumentOutcome[stored.outcome], user_errors=[]
        )
