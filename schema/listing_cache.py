"""Answers of catalog listings, kept until the catalog changes.

A query whose every selected field is read from the catalog tables (``app.changes.WATCHED_TABLES``)
and the caller's key only — a page of ``tools``, of a space's ``visibleTools``, one ``tool``, with
any of their catalog fields, not ``stats`` — answers the same until a catalog commit. Its answer
(data without errors) is kept per caller and served again without executing it, until the
catalog's generation moves (every catalog commit in this process; on other replicas through the
change relay, ``app.changes.ChangeRelay``) or ``catalog_cache_ttl_s`` passes, whichever comes first.

What the key holds, so that no answer ever reaches anyone else: the API key's id, its role and
its space (everything ``Principal`` is), the document, the operation name and the variables.
Nothing is shared between keys, even keys of the same space.

Only fields listed in :data:`CACHEABLE` are looked at: a field added to a type later is not
cached until it is listed here (and a field that reads anything else — ``Tool.stats`` reads the
call log — must never be). A document with directives, interfaces or unions, or one that does
not name its fields plainly, is executed as usual. The entries are bounded by their size
(``QUIVER_LISTING_CACHE_MB``; 0 turns the cache off), which is the size of their JSON compressed
(zlib level 1: a page of tools shrinks several times, and a hit inflates it again in a fraction of
the time its decoding takes).
"""

from __future__ import annotations

import time
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import orjson
from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    parse,
)
from graphql.error import GraphQLError

from app import jsoncodec
from app.changes import FEED, ChangeFeed
from app.principal import Principal

Answer = TypeVar("Answer")

_CONNECTION = frozenset({"edges", "pageInfo", "totalCount"})
_TOOL_FIELDS = frozenset(
    {
        "id",
        "name",
        "label",
        "description",
        "inputSchema",
        "outputSchema",
        "type",
        "status",
        "endpoint",
        "authType",
        "sideEffect",
        "timeoutMs",
        "maxRetries",
        "tags",
        "group",
        "allowedRoles",
        "version",
        "owner",
        "createdAt",
        "updatedAt",
        "driftedAt",
        "requestMapping",
        "approval",
        "mcpServer",
        "boundSpaces",
        "viewerCanManage",
        "isGlobal",
    }
)

#: Per type, the fields whose values come from the catalog tables and the caller's key only.
CACHEABLE: dict[str, frozenset[str]] = {
    "Query": frozenset({"tools", "tool", "space"}),
    "ToolConnection": _CONNECTION,
    "ToolEdge": frozenset({"cursor", "node"}),
    "PageInfo": frozenset({"hasNextPage", "hasPreviousPage", "startCursor", "endCursor"}),
    "Tool": _TOOL_FIELDS,
    "Space": frozenset({"id", "name", "label", "isSystem", "createdAt", "visibleTools"}),
    "McpServer": frozenset(
        {
            "id",
            "name",
            "url",
            "command",
            "transport",
            "status",
            "authType",
            "lastSyncedAt",
            "lastError",
            "createdAt",
            "boundSpaces",
            "isGlobal",
            "tools",
        }
    ),
}

#: Documents looked at (cacheable or not), by text; cleared when full.
MAX_DOCUMENTS = 256
#: Longest document looked at; longer ones are executed as usual.
MAX_DOCUMENT_CHARS = 20_000
#: Most selections looked at in one document (each fragment counted once).
MAX_SELECTIONS = 2_000
#: The words a cacheable document must contain (a cheap test before parsing anything).
_ROOT_WORDS = ("tools", "tool(", "tool (", "visibleTools")


def _is_cacheable_document(schema: GraphQLSchema, document: DocumentNode, operation_name: str | None) -> bool:
    operations = [node for node in document.definitions if isinstance(node, OperationDefinitionNode)]
    if operation_name is not None:
        operations = [node for node in operations if node.name is not None and node.name.value == operation_name]
    if len(operations) != 1:
        return False
    operation = operations[0]
    if operation.operation is not OperationType.QUERY or operation.directives or schema.query_type is None:
        return False
    if any(variable.directives for variable in operation.variable_definitions or ()):
        return False
    fragments = {node.name.value: node for node in document.definitions if isinstance(node, FragmentDefinitionNode)}
    if any(fragment.directives for fragment in fragments.values()):
        return False
    return _Walk(fragments).selection_is_cacheable(schema.query_type, operation.selection_set)


class _Walk:
    """One look at a document: each fragment is looked at once (a fragment spread twice in each
    of ten fragments is not looked at a thousand times), and the whole look is bounded."""

    def __init__(self, fragments: dict[str, FragmentDefinitionNode]) -> None:
        self.fragments = fragments
        self.fragment_answers: dict[str, bool | None] = {}  # None: being looked at (a cycle)
        self.budget = MAX_SELECTIONS

    def selection_is_cacheable(self, parent: GraphQLObjectType, selection_set: SelectionSetNode) -> bool:
        allowed = CACHEABLE.get(parent.name, frozenset())
        for selection in selection_set.selections:
            self.budget -= 1
            if self.budget < 0 or selection.directives:
                return False
            if isinstance(selection, FieldNode):
                if not self._field_is_cacheable(parent, allowed, selection):
                    return False
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                if condition is not None and condition.name.value != parent.name:
                    return False
                if not self.selection_is_cacheable(parent, selection.selection_set):
                    return False
            elif isinstance(selection, FragmentSpreadNode):
                if not self._fragment_is_cacheable(parent, selection.name.value):
                    return False
            else:
                return False
        return True

    def _field_is_cacheable(self, parent: GraphQLObjectType, allowed: frozenset[str], selection: FieldNode) -> bool:
        name = selection.name.value
        if name == "__typename":
            return selection.selection_set is None
        field = parent.fields.get(name)
        if name not in allowed or field is None:
            return False
        field_type = field.type
        while isinstance(field_type, GraphQLNonNull | GraphQLList):
            field_type = field_type.of_type
        if selection.selection_set is None:
            return True
        return isinstance(field_type, GraphQLObjectType) and self.selection_is_cacheable(
            field_type, selection.selection_set
        )

    def _fragment_is_cacheable(self, parent: GraphQLObjectType, name: str) -> bool:
        fragment = self.fragments.get(name)
        if fragment is None or fragment.type_condition.name.value != parent.name:
            return False
        if name in self.fragment_answers:
            return bool(self.fragment_answers[name])  # None (a cycle): not cacheable
        self.fragment_answers[name] = None
        answer = self.selection_is_cacheable(parent, fragment.selection_set)
        self.fragment_answers[name] = answer
        return answer


class EncodedData(dict[str, Any]):
    """A kept answer's ``data``, with its JSON encoding (:func:`app.jsoncodec.dumps_bytes`): the
    HTTP response is written from the bytes (``app.main.GraphQLPost.encode_json``) instead of
    encoding the same page again on every hit. Anything else reads it as the plain dict it is."""

    __slots__ = ("encoded",)

    def __init__(self, data: dict[str, Any], encoded: bytes) -> None:
        super().__init__(data)
        self.encoded = encoded


class ListingCache:
    """Answers (``data`` dicts) of cacheable queries, per caller, for the current catalog generation."""

    def __init__(self, max_bytes: int, ttl_s: float, *, feed: ChangeFeed = FEED) -> None:
        self.max_bytes = max_bytes
        self.ttl_s = ttl_s
        self.feed = feed
        self.hits = 0
        self.misses = 0
        self._documents: dict[tuple[str, str | None], bool] = {}
        # key → (expires at, the answer's JSON compressed); all of one generation
        # (self._generation). Only the bytes are kept, so max_bytes bounds what the cache holds:
        # the answer's dicts and strings took about five times its JSON, uncounted (10,000 tools
        # listed in full: +54 MiB resident under a 32 MB bound), and the JSON itself several times
        # its zlib (+12 MiB). A hit inflates and decodes them again (zlib and orjson, well under
        # 1 ms a page).
        self._entries: OrderedDict[tuple[Any, ...], tuple[float, bytes]] = OrderedDict()
        self._generation = feed.generation
        self._bytes = 0

    @property
    def enabled(self) -> bool:
        return self.max_bytes > 0

    def key(
        self,
        schema: GraphQLSchema,
        query: str | None,
        operation_name: str | None,
        variables: dict[str, Any] | None,
        principal: Principal | None,
    ) -> tuple[Any, ...] | None:
        """The entry's key when this request may be answered from the cache; None otherwise."""
        if not self.enabled or principal is None or query is None or len(query) > MAX_DOCUMENT_CHARS:
            return None
        if not any(word in query for word in _ROOT_WORDS):
            return None
        cacheable = self._documents.get((query, operation_name))
        if cacheable is None:
            try:
                cacheable = _is_cacheable_document(schema, parse(query), operation_name)
            except GraphQLError:
                cacheable = False
            if len(self._documents) >= MAX_DOCUMENTS:
                self._documents.clear()
            self._documents[(query, operation_name)] = cacheable
        if not cacheable:
            return None
        try:
            encoded_variables = orjson.dumps(variables or {}, option=orjson.OPT_SORT_KEYS)
        except TypeError:
            return None
        return (principal.key_id, principal.role, principal.space_id, query, operation_name, encoded_variables)

    def get(self, key: tuple[Any, ...]) -> EncodedData | None:
        self._drop_if_changed()
        entry = self._entries.get(key)
        if entry is None or entry[0] <= time.monotonic():
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        encoded = zlib.decompress(entry[1])
        return EncodedData(jsoncodec.loads(encoded), encoded)

    def put(self, key: tuple[Any, ...], data: dict[str, Any], generation: int) -> EncodedData | None:
        """Keeps ``data``, read at ``generation`` (read before the data was); the kept answer, or
        None when it is not kept."""
        self._drop_if_changed()
        if generation != self._generation:
            return None  # read before the last change: maybe stale already
        try:
            encoded = jsoncodec.dumps_bytes(data)
        except (TypeError, ValueError):
            return None
        # Level 1: the fastest, and a page of tools still comes out 5-10 times smaller.
        compressed = zlib.compress(encoded, 1)
        size = len(compressed)
        if size > self.max_bytes:
            return None
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= len(old[1])
        while self._entries and self._bytes + size > self.max_bytes:
            _, (_, dropped) = self._entries.popitem(last=False)
            self._bytes -= len(dropped)
        self._entries[key] = (time.monotonic() + self.ttl_s, compressed)
        self._bytes += size
        return EncodedData(data, encoded)

    async def read_through(
        self,
        key: tuple[Any, ...],
        read: Callable[[], Awaitable[Answer]],
        data_of: Callable[[Answer], dict[str, Any] | None],
    ) -> EncodedData | Answer:
        """The kept answer of ``key``; else ``read()``'s answer, kept when ``data_of`` gives its
        data (None: not to be kept) and the catalog did not change while it was read (its
        generation is taken before reading), and then given as kept (encoded once)."""
        kept = self.get(key)
        if kept is not None:
            return kept
        generation = self.feed.generation
        answer = await read()
        data = data_of(answer)
        if data is not None:
            kept = self.put(key, data, generation)
            if kept is not None:
                return kept
        return answer

    def _drop_if_changed(self) -> None:
        if self.feed.generation != self._generation:
            self._entries.clear()
            self._bytes = 0
            self._generation = self.feed.generation

    def __len__(self) -> int:
        self._drop_if_changed()
        return len(self._entries)
