"""GraphQL types of the knowledge domain."""

from __future__ import annotations

from datetime import datetime

import strawberry

from app.knowledge import repository
from app.knowledge.models import Document as DocumentRow
from app.knowledge.models import KnowledgeBase as KnowledgeBaseRow
from app.knowledge.search import SearchHit
from schema import visibility
from schema.context import Info
from schema.node import Node
from schema.pagination import AfterArgument, Connection, FirstArgument, make_connection, page_request
from schema.refs import SpaceRef


@strawberry.type(description="A collection of documents an agent consults, owned by one space.")
class KnowledgeBase(Node):
    id: strawberry.ID = strawberry.field(description="Knowledge base id, kb_….")
    name: str = strawberry.field(description="Machine name, unique in its space.")
    label: str = strawberry.field(description="Display name for people.")
    description: str | None = strawberry.field(description="What the knowledge base holds.")
    created_at: datetime = strawberry.field(description="When the knowledge base was created.")
    row: strawberry.Private[KnowledgeBaseRow]

    @classmethod
    def from_row(cls, row: KnowledgeBaseRow) -> KnowledgeBase:
        return cls(
            id=strawberry.ID(row.id),
            name=row.name,
            label=row.label,
            description=row.description,
            created_at=row.created_at,
            row=row,
        )

    @strawberry.field(description="The space that owns it.")
    async def space(self, info: Info) -> SpaceRef:
        from schema.spaces.types import space_of

        return await space_of(info, self.row.space_id)

    @strawberry.field(description="Number of documents in it.")
    async def document_count(self, info: Info) -> int:
        return await info.context.loaders.document_count_by_knowledge_base_id.load(self.row.id)

    @strawberry.field(description="Its documents, oldest first.")
    async def documents(
        self, info: Info, first: FirstArgument = 50, after: AfterArgument = None
    ) -> Connection[Document]:
        request = page_request(first, after)
        async with info.context.session() as session:
            page = await repository.list_documents(session, self.row.id, request)

        async def total() -> int:
            async with info.context.session() as session:
                return await repository.count_documents(session, self.row.id)

        return make_connection(
            page, [Document.from_row(row) for row in page.items], [row.id for row in page.items], total
        )


@strawberry.type(description="One document of a knowledge base.")
class Document(Node):
    id: strawberry.ID = strawberry.field(description="Document id, doc_….")
    title: str = strawberry.field(description="Title, shown in citations.")
    source: str | None = strawberry.field(description="Where it came from (a path or URL), shown in citations.")
    chunk_count: int = strawberry.field(description="Number of searchable chunks it was split into.")
    created_at: datetime = strawberry.field(description="When it was added.")
    row: strawberry.Private[DocumentRow]

    @classmethod
    def from_row(cls, row: DocumentRow) -> Document:
        return cls(
            id=strawberry.ID(row.id),
            title=row.title,
            source=row.source,
            chunk_count=row.chunk_count,
            created_at=row.created_at,
            row=row,
        )

    @strawberry.field(description="The knowledge base it belongs to.")
    async def knowledge_base(self, info: Info) -> KnowledgeBase:
        row = await info.context.loaders.knowledge_base_by_id.load(self.row.knowledge_base_id)
        assert row is not None  # knowledge_base_id is a foreign key
        if not visibility.in_readable_space(info, row):
            raise visibility.refuse("knowledge base")
        return KnowledgeBase.from_row(row)


@strawberry.type(description="A passage found by a knowledge search.")
class KnowledgeHit:
    document: Document = strawberry.field(description="The document the passage comes from.")
    text: str = strawberry.field(description="The matching chunk text.")
    score: float = strawberry.field(
        description="Relevance; higher is better. Reciprocal rank fusion of the lexical and vector rankings."
    )
    heading_path: list[str] = strawberry.field(
        description="Headings above the passage in its document, outermost first (empty when it has none)."
    )
    chunk_index: int = strawberry.field(description="Position of the passage in its document, from 0.")
    source: str | None = strawberry.field(description="Where the document came from (a path or URL), for citations.")
    knowledge_base_id: strawberry.ID = strawberry.field(description="The knowledge base the passage belongs to.")

    @classmethod
    def from_hit(cls, hit: SearchHit) -> KnowledgeHit:
        return cls(
            document=Document.from_row(hit.document),
            text=hit.text,
            score=hit.score,
            heading_path=list(hit.heading_path),
            chunk_index=hit.chunk_index,
            source=hit.source,
            knowledge_base_id=strawberry.ID(hit.knowledge_base_id),
        )


async def knowledge_base_connection(
    info: Info, space_id: str | None, first: int | None, after: str | None
) -> Connection[KnowledgeBase]:
    request = page_request(first, after)
    async with info.context.session() as session:
        page = await repository.list_knowledge_bases(session, space_id, request)

    async def total() -> int:
        async with info.context.session() as session:
            return await repository.count_knowledge_bases(session, space_id)

    return make_connection(
        page, [KnowledgeBase.from_row(row) for row in page.items], [row.id for row in page.items], total
    )
