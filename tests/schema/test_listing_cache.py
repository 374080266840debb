"""The listing cache (schema/listing_cache.py): a catalog listing asked again is answered without
executing it, per caller, until any catalog change; what reads anything else is never kept."""

from __future__ import annotations

import secrets
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from graphql import parse
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.types.graphql import OperationType

from app import jsoncodec
from app.changes import FEED, ChangeFeed
from app.principal import Principal, Role
from schema.listing_cache import CACHEABLE, EncodedData, ListingCache, _is_cacheable_document
from schema.schema import QuiverSchema, build_schema
from tests.app.tools.factories import custom_tool_row, insert_rows
from tests.conftest import GraphQLClient, Keys, StatementCounter
from tests.schema.tools.operations import UPDATE_TOOL, create_tool, set_bindings

LISTING = """
query Listing($after: String) {
  tools(first: 100, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges { cursor node { ...Row } }
  }
}
fragment Row on Tool {
  id name label isGlobal viewerCanManage boundSpaces { id name } mcpServer { id name }
}
"""

SPACE_LISTING = """
query SpaceListing($id: ID!) {
  space(id: $id) { id visibleTools(first: 100) { totalCount edges { node { id label } } } }
}
"""

WITH_STATS = """
query WithStats { tools(first: 100) { edges { node { id stats { calls } } } } }
"""


def _ids(data: dict[str, Any]) -> set[str]:
    return {edge["node"]["id"] for edge in data["tools"]["edges"]}


def _labels(data: dict[str, Any]) -> dict[str, str]:
    return {edge["node"]["id"]: edge["node"]["label"] for edge in data["tools"]["edges"]}


async def test_a_listing_asked_again_runs_no_sql(gql: GraphQLClient, count_queries: StatementCounter) -> None:
    await create_tool(gql, "cached_lookup")
    first = await gql.execute(LISTING)
    before = count_queries.count
    again = await gql.execute(LISTING)
    assert again == first
    assert count_queries.count == before  # answered from the cache: not one statement


async def test_a_kept_answer_is_written_from_its_encoding(gql: GraphQLClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """The response of a hit is the bytes encoded when the answer was kept: the same body as the
    executed answer's, without encoding the page again."""
    await create_tool(gql, "encoded_once")
    executed = await gql.raw(LISTING)
    encodings: list[object] = []
    real_dumps = jsoncodec.dumps_bytes

    def counting_dumps(value: Any) -> bytes:
        encodings.append(value)
        return real_dumps(value)

    monkeypatch.setattr(jsoncodec, "dumps_bytes", counting_dumps)
    again = await gql.raw(LISTING)
    assert again.status_code == 200 and again.content == executed.content
    assert orjson.loads(again.content) == {"data": orjson.loads(executed.content)["data"]}
    assert encodings == []  # nothing encoded for the hit


def test_a_kept_answer_reads_as_its_data() -> None:
    cache, feed = _cache()
    key = _key(cache, ADMIN)
    kept = cache.put(key, {"tools": {"totalCount": 3}}, feed.generation)
    assert isinstance(kept, EncodedData) and kept == {"tools": {"totalCount": 3}}
    assert kept.encoded == jsoncodec.dumps_bytes({"tools": {"totalCount": 3}})
    hit = cache.get(key)
    assert type(hit) is EncodedData and hit == kept and hit.encoded == kept.encoded


def test_the_cache_keeps_the_encoding_not_the_answers_objects() -> None:
    """Only the JSON is kept (what max_bytes counts): a hit is decoded afresh, so the executed
    answer's dicts and strings are not held, nor changed by what a caller does with a hit."""
    cache, feed = _cache()
    key = _key(cache, ADMIN)
    data = {"tools": {"totalCount": 3, "big": 2**70, "name": "订单"}}
    kept = cache.put(key, data, feed.generation)
    assert kept is not None
    data["tools"]["totalCount"] = 4
    first = cache.get(key)
    assert first == {"tools": {"totalCount": 3, "big": 2**70, "name": "订单"}}
    assert first is not None and first is not cache.get(key)


async def test_a_change_through_the_api_is_seen_by_the_next_listing(gql: GraphQLClient) -> None:
    tool = await create_tool(gql, "renamed_tool", label="Before")
    assert _labels(await gql.execute(LISTING))[tool["id"]] == "Before"
    updated = await gql.execute(UPDATE_TOOL, {"input": {"id": tool["id"], "label": "After"}})
    assert updated["updateTool"]["userErrors"] == []
    assert _labels(await gql.execute(LISTING))[tool["id"]] == "After"


async def test_rows_inserted_by_another_session_are_seen(gql: GraphQLClient, session_factory: Any) -> None:
    await gql.execute(LISTING)
    row = custom_tool_row("inserted_elsewhere")
    await insert_rows(session_factory, tools=[row])
    assert row["tool_id"] in _ids(await gql.execute(LISTING))


async def test_an_unbound_tool_leaves_the_space_listing_at_once(gql: GraphQLClient, keys: Keys) -> None:
    alpha, beta = (await keys.space("alpha")).id, (await keys.space("beta")).id
    member = gql.as_key(await keys.for_space(alpha, Role.MEMBER))
    tool = await create_tool(gql, "revoked_tool", spaceIds=[alpha])
    assert tool["id"] in _ids(await member.execute(LISTING))
    assert tool["id"] in _ids(await member.execute(LISTING))  # kept
    payload = await set_bindings(gql, tool["id"], [beta])
    assert payload["userErrors"] == []
    assert tool["id"] not in _ids(await member.execute(LISTING))


async def test_each_caller_gets_its_own_answer(gql: GraphQLClient, keys: Keys) -> None:
    alpha, beta = (await keys.space("alpha")).id, (await keys.space("beta")).id
    only_alpha = await create_tool(gql, "alpha_tool", spaceIds=[alpha])
    only_beta = await create_tool(gql, "beta_tool", spaceIds=[beta])
    alpha_admin = gql.as_key(await keys.for_space(alpha, Role.SPACE_ADMIN))
    alpha_viewer = gql.as_key(await keys.for_space(alpha, Role.VIEWER))
    beta_member = gql.as_key(await keys.for_space(beta, Role.MEMBER))

    everything = await gql.execute(LISTING)  # the admin's answer, kept first
    assert {only_alpha["id"], only_beta["id"]} <= _ids(everything)
    for _ in range(2):  # the second round comes from the cache
        seen_by_alpha = await alpha_admin.execute(LISTING)
        seen_by_viewer = await alpha_viewer.execute(LISTING)
        seen_by_beta = await beta_member.execute(LISTING)
        assert only_alpha["id"] in _ids(seen_by_alpha) and only_beta["id"] not in _ids(seen_by_alpha)
        assert only_beta["id"] in _ids(seen_by_beta) and only_alpha["id"] not in _ids(seen_by_beta)
        # Same space, another role: viewerCanManage differs, so the answers must not be shared.
        can_manage = {edge["node"]["id"]: edge["node"]["viewerCanManage"] for edge in seen_by_viewer["tools"]["edges"]}
        assert can_manage[only_alpha["id"]] is False
        alpha_rows = {edge["node"]["id"]: edge["node"] for edge in seen_by_alpha["tools"]["edges"]}
        assert alpha_rows[only_alpha["id"]]["boundSpaces"] == [{"id": alpha, "name": "alpha"}]
    # A space key asking for another space: null, and never the answer another caller got.
    other = await beta_member.execute(SPACE_LISTING, {"id": alpha})
    assert other["space"] is None
    own = await alpha_viewer.execute(SPACE_LISTING, {"id": alpha})
    assert only_alpha["id"] in {edge["node"]["id"] for edge in own["space"]["visibleTools"]["edges"]}


async def test_a_change_heard_from_another_replica_drops_every_answer(
    gql: GraphQLClient, count_queries: StatementCounter
) -> None:
    await gql.execute(LISTING)
    before = count_queries.count
    FEED.bump()  # what app.changes.ChangeRelay does when another replica commits a catalog change
    await gql.execute(LISTING)
    assert count_queries.count > before


async def test_call_statistics_are_never_kept(gql: GraphQLClient, count_queries: StatementCounter) -> None:
    await gql.execute(WITH_STATS)
    before = count_queries.count
    await gql.execute(WITH_STATS)
    assert count_queries.count > before


async def test_an_answer_with_errors_is_not_kept(gql: GraphQLClient, app_and_services: Any) -> None:
    cache: ListingCache = app_and_services.state.listing_cache
    for _ in range(2):
        hits = cache.hits
        response = await gql.raw(LISTING, {"after": "not a cursor"})
        assert response.json()["errors"][0]["extensions"]["code"] == "INVALID_CURSOR"
        assert cache.hits == hits


# ---------------------------------------------------------------- which documents are kept

SCHEMA = build_schema()


def _cacheable(document: str, operation_name: str | None = None) -> bool:
    return _is_cacheable_document(SCHEMA._schema, parse(document), operation_name)


@pytest.mark.parametrize(
    ("document", "cacheable"),
    [
        (LISTING, True),
        (SPACE_LISTING, True),
        ('{ tool(id: "x") { id name boundSpaces { id } } }', True),
        ("{ tools { edges { node { ... on Tool { id } } } } }", True),
        ("{ __typename tools { __typename } }", True),
        (WITH_STATS, False),  # the call log is not the catalog
        ("{ tools { edges { node { id @include(if: true) } } } }", False),  # directives: executed as usual
        ("query Q @skip(if: false) { tools { totalCount } }", False),
        ('mutation { setStatus(input: {id: "x", status: ACTIVE}) { userErrors { code } } }', False),
        ("{ tools { totalCount } viewer { keyId } }", False),  # a field outside the catalog
        ('{ space(id: "x") { skills { totalCount } } }', False),
        ('{ node(id: "x") { id } }', False),  # interfaces are not looked into
        ("{ tools { edges { node { ...F } } } } fragment F on Tool { ...G } fragment G on Tool { ...F }", False),
        ("{ tools { edges { node { ...Missing } } } }", False),
        ("{ tools { edges { node { nope } } } }", False),
        ("query A { tools { totalCount } } query B { tools { totalCount } }", False),  # which one?
    ],
)
def test_only_documents_reading_the_catalog_alone_are_kept(document: str, cacheable: bool) -> None:
    assert _cacheable(document) is cacheable


def test_each_fragment_is_looked_at_once() -> None:
    """Forty fragments each spreading the next twice: 2**40 spreads if each were followed."""
    fragments = "".join(f"fragment F{n} on Tool {{ id ...F{n + 1} ...F{n + 1} }} " for n in range(40))
    document = "{ tools { edges { node { ...F0 } } } } " + fragments + "fragment F40 on Tool { name }"
    assert _cacheable(document) is True


def test_a_document_too_large_to_look_at_is_executed_as_usual() -> None:
    fields = " ".join(f"a{n}: id" for n in range(2_500))
    assert _cacheable("{ tools { edges { node { " + fields + " } } } }") is False


def test_the_operation_named_is_the_one_looked_at() -> None:
    document = "query A { tools { totalCount } } query B { tools { edges { node { stats { calls } } } } }"
    assert _cacheable(document, "A") is True
    assert _cacheable(document, "B") is False


def test_every_field_listed_as_cacheable_exists() -> None:
    """A renamed or removed field must leave the list too (and a new one is not kept until listed)."""
    types = SCHEMA._schema.type_map
    for type_name, fields in CACHEABLE.items():
        assert set(fields) <= set(types[type_name].fields), type_name  # type: ignore[attr-defined]
    assert "stats" not in CACHEABLE["Tool"]


# ---------------------------------------------------------------- the cache itself

ADMIN = Principal(key_id="key_admin", role=Role.ADMIN, space_id=None)
VIEWER = Principal(key_id="key_viewer", role=Role.VIEWER, space_id="sp_alpha")
QUERY = "{ tools { totalCount } }"


def _cache(max_bytes: int = 1 << 20, ttl_s: float = 60.0) -> tuple[ListingCache, ChangeFeed]:
    feed = ChangeFeed()
    return ListingCache(max_bytes, ttl_s, feed=feed), feed


def _key(cache: ListingCache, principal: Principal | None, variables: dict[str, Any] | None = None) -> Any:
    assert isinstance(SCHEMA, QuiverSchema)
    return cache.key(SCHEMA._schema, QUERY, None, variables, principal)


def test_the_key_holds_the_caller_and_the_variables() -> None:
    cache, _ = _cache()
    assert _key(cache, ADMIN) != _key(cache, VIEWER)
    assert _key(cache, ADMIN, {"a": 1, "b": 2}) == _key(cache, ADMIN, {"b": 2, "a": 1})
    assert _key(cache, ADMIN, {"a": 1}) != _key(cache, ADMIN, {"a": 2})
    assert _key(cache, None) is None  # nobody: nothing kept


def test_an_answer_read_before_a_change_is_not_kept() -> None:
    cache, feed = _cache()
    key = _key(cache, ADMIN)
    generation = feed.generation
    feed.bump()  # committed while the answer was being read
    cache.put(key, {"tools": {"totalCount": 1}}, generation)
    assert cache.get(key) is None
    cache.put(key, {"tools": {"totalCount": 2}}, feed.generation)
    assert cache.get(key) == {"tools": {"totalCount": 2}}
    feed.bump()
    assert cache.get(key) is None and len(cache) == 0


def test_entries_expire_after_the_ttl() -> None:
    cache, feed = _cache(ttl_s=0.0)
    key = _key(cache, ADMIN)
    cache.put(key, {"tools": {"totalCount": 1}}, feed.generation)
    assert cache.get(key) is None


def test_the_size_bound_drops_the_oldest_answers() -> None:
    cache, feed = _cache(max_bytes=200)
    # Random text: it does not compress, so each answer takes over 60 of the 200 bytes.
    answers = {index: {"tools": {"edges": [{"cursor": secrets.token_hex(30), "index": index}]}} for index in range(4)}
    for index, answer in answers.items():
        cache.put(_key(cache, ADMIN, {"page": index}), answer, feed.generation)
    assert cache.get(_key(cache, ADMIN, {"page": 0})) is None
    assert cache.get(_key(cache, ADMIN, {"page": 3})) == answers[3]
    larger_than_all = {"tools": {"blob": secrets.token_hex(250)}}
    cache.put(_key(cache, ADMIN, {"page": 9}), larger_than_all, feed.generation)
    assert cache.get(_key(cache, ADMIN, {"page": 9})) is None
    assert cache.get(_key(cache, ADMIN, {"page": 3})) == answers[3]


def test_the_bound_counts_the_kept_json_compressed() -> None:
    """A listing's JSON repeats itself (the same keys, schemas and words in every tool): it is kept
    compressed, so a bound holds several times the pages its plain JSON would, and a hit still
    answers with the whole of it."""
    page = {
        "tools": {
            "edges": [
                {"cursor": f"c{index}", "node": {"id": f"tl_{index:06d}", "inputSchema": {"type": "object"}}}
                for index in range(100)
            ]
        }
    }
    plain = len(jsoncodec.dumps_bytes(page))
    cache, feed = _cache(max_bytes=plain)  # room for one plain copy
    for number in range(3):
        assert cache.put(_key(cache, ADMIN, {"page": number}), page, feed.generation) is not None
    assert len(cache) == 3 and cache._bytes * 3 < plain
    for number in range(3):
        hit = cache.get(_key(cache, ADMIN, {"page": number}))
        assert hit == page and hit is not None and hit.encoded == jsoncodec.dumps_bytes(page)


def test_a_size_of_zero_turns_it_off() -> None:
    cache, _ = _cache(max_bytes=0)
    assert _key(cache, ADMIN) is None


async def test_a_kept_answer_is_not_given_where_queries_are_refused() -> None:
    """A GET request may be refused queries (allowed_operation_types): the cache must not answer it."""
    schema = build_schema()
    assert isinstance(schema, QuiverSchema) and schema.listing_cache is not None
    cache = schema.listing_cache
    key = cache.key(schema._schema, QUERY, None, None, ADMIN)
    assert key is not None
    cache.put(key, {"tools": {"totalCount": 7}}, cache.feed.generation)
    context = SimpleNamespace(viewer=ADMIN)
    kept = await schema.execute(QUERY, context_value=context, allowed_operation_types={OperationType.QUERY})
    assert kept.data == {"tools": {"totalCount": 7}}
    with pytest.raises(InvalidOperationTypeError):
        await schema.execute(QUERY, context_value=context, allowed_operation_types={OperationType.MUTATION})
