"""Relay connections: opaque cursors over the repositories' keyset pages."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any, Generic, TypeVar

import strawberry
from sqlalchemy.ext.asyncio import AsyncSession

from app.pagination import Page, PageRequest
from schema.errors import ClientError

MAX_FIRST = 100
CURSOR_PREFIX = "cursor:"

NodeType = TypeVar("NodeType")


#: What ``base64.urlsafe_b64encode`` does after ``b2a_base64``, made once (a page makes a cursor per edge).
_URLSAFE = bytes.maketrans(b"+/", b"-_")


def encode_cursor(key: str) -> str:
    """``base64.urlsafe_b64encode`` of ``cursor:{key}``, without its two Python-level calls."""
    return binascii.b2a_base64(f"{CURSOR_PREFIX}{key}".encode(), newline=False).translate(_URLSAFE).decode()


def decode_cursor(cursor: str) -> str:
    try:
        decoded = base64.urlsafe_b64decode(cursor.encode()).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise ClientError(f"Invalid cursor {cursor!r}.", "INVALID_CURSOR") from None
    if not decoded.startswith(CURSOR_PREFIX):
        raise ClientError(f"Invalid cursor {cursor!r}.", "INVALID_CURSOR")
    return decoded[len(CURSOR_PREFIX) :]


def page_request(first: int | None, after: str | None) -> PageRequest:
    """Decode connection arguments; ``first`` is capped at 100."""
    size = MAX_FIRST if first is None else first
    if size < 0:
        raise ClientError("`first` must not be negative.", "INVALID_ARGUMENT")
    return PageRequest(first=min(size, MAX_FIRST), after=decode_cursor(after) if after else None)


@strawberry.type(description="Where a page sits in the whole list (Relay PageInfo).")
class PageInfo:
    has_next_page: bool = strawberry.field(description="True when more items follow this page.")
    has_previous_page: bool = strawberry.field(
        description="True when items precede this page (this page was fetched with `after`)."
    )
    start_cursor: str | None = strawberry.field(description="Cursor of the first edge; null on an empty page.")
    end_cursor: str | None = strawberry.field(
        description="Cursor of the last edge; pass it as `after` to fetch the next page."
    )


@strawberry.type(description="One item of a connection with its cursor.")
class Edge(Generic[NodeType]):
    cursor: str = strawberry.field(description="Opaque position of this item; pass it as `after`.")
    node: NodeType = strawberry.field(description="The item.")


@strawberry.type(description="A page of a list that grows, with keyset pagination (Relay connection).")
class Connection(Generic[NodeType]):
    edges: list[Edge[NodeType]] = strawberry.field(description="The items of this page, in order.")
    page_info: PageInfo = strawberry.field(description="Cursors and whether more pages exist.")
    _count: strawberry.Private[Callable[[], Awaitable[int]]]

    @strawberry.field(description="Number of items in the whole list, across all pages.")
    async def total_count(self) -> int:
        return await self._count()


RowType = TypeVar("RowType")


def make_connection(
    page: Page[RowType],
    nodes: Sequence[NodeType],
    keys: Sequence[str],
    count: Callable[[], Awaitable[int]],
) -> Connection[NodeType]:
    edges = [Edge(cursor=encode_cursor(key), node=node) for key, node in zip(keys, nodes, strict=True)]
    return Connection(
        edges=edges,
        page_info=PageInfo(
            has_next_page=page.has_next_page,
            has_previous_page=page.has_previous_page,
            start_cursor=edges[0].cursor if edges else None,
            end_cursor=edges[-1].cursor if edges else None,
        ),
        _count=count,
    )


FirstArgument = Annotated[int | None, strawberry.argument(description="How many items to return (at most 100).")]
AfterArgument = Annotated[
    str | None,
    strawberry.argument(description="Return the items after this cursor (an edge's `cursor` or `endCursor`)."),
]


def empty_connection(after: str | None = None) -> Connection[NodeType]:
    """A connection with no items (e.g. a space outside the caller's reach)."""

    async def zero() -> int:
        return 0

    return make_connection(Page(items=[], has_next_page=False, has_previous_page=after is not None), [], [], zero)


async def paginate(
    info: Any,
    first: int | None,
    after: str | None,
    fetch: Callable[[AsyncSession, PageRequest], Awaitable[Page[RowType]]],
    count_rows: Callable[[AsyncSession], Awaitable[int]],
    to_node: Callable[[RowType], NodeType],
    key: Callable[[RowType], str],
) -> Connection[NodeType]:
    """One keyset page as a connection; ``totalCount`` is counted only when asked for.

    Each query runs in a session of its own: sibling fields resolve concurrently.
    """
    request = page_request(first, after)
    async with info.context.session() as session:
        page = await fetch(session, request)

    async def total() -> int:
        async with info.context.session() as session:
            return await count_rows(session)

    return make_connection(page, [to_node(row) for row in page.items], [key(row) for row in page.items], total)
