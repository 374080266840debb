"""Guards on the schema as a whole: committed SDL, the released contract, error masking, query limits."""

from __future__ import annotations

import json
import logging
import re
from functools import _lru_cache_wrapper
from pathlib import Path
from typing import Any, cast

import pytest
import strawberry
from cryptography.fernet import Fernet
from graphql import build_schema as build_sdl_schema
from graphql.utilities import find_breaking_changes

from app.config import Settings
from app.crypto import SecretBox
from app.principal import SYSTEM_PRINCIPAL
from schema.context import Context
from schema.errors import ClientError, MaskUnexpectedErrors
from schema.schema import build_schema, export_sdl
from tests.conftest import GraphQLClient

REPO_ROOT = Path(__file__).resolve().parents[2]
COMMITTED_SDL = REPO_ROOT / "schema" / "schema.graphql"
# One SDL per published release (docs/conventions.md, "Releases"): what clients may rely on.
RELEASES = REPO_ROOT / "schema" / "releases"

SECRET_DETAIL = "secret detail"


class TestCommittedSchema:
    def test_committed_sdl_matches_the_code(self) -> None:
        assert COMMITTED_SDL.read_text(encoding="utf-8") == export_sdl(), (
            "schema/schema.graphql is out of date: run `quiver export-schema` and commit the result"
        )

    def test_no_breaking_changes_since_the_last_release(self) -> None:
        released = build_sdl_schema(latest_release().read_text(encoding="utf-8"))
        exported = build_sdl_schema(export_sdl())

        changes = find_breaking_changes(released, exported)

        assert changes == [], "\n".join(f"{change.type.name}: {change.description}" for change in changes)

    def test_the_guard_sees_a_removed_field(self) -> None:
        """The check can fail: dropping a published field is reported."""
        released = build_sdl_schema(latest_release().read_text(encoding="utf-8"))
        sdl = export_sdl()
        # The first connection's totalCount and the description line above it.
        without_field, removed = re.subn(r'  """[^\n]*"""\n  totalCount: Int!\n', "", sdl, count=1)
        assert removed == 1

        changes = find_breaking_changes(released, build_sdl_schema(without_field))

        assert [change.type.name for change in changes] == ["FIELD_REMOVED"]


def latest_release() -> Path:
    """The SDL of the newest release, by semantic version (``schema/releases/<version>.graphql``)."""
    releases = sorted(RELEASES.glob("*.graphql"), key=lambda path: tuple(int(part) for part in path.stem.split(".")))
    assert releases, f"no released SDL in {RELEASES}"
    return releases[-1]


@strawberry.type
class FailingQuery:
    @strawberry.field
    def broken(self) -> str:
        raise RuntimeError(SECRET_DETAIL)

    @strawberry.field
    def refused(self) -> str:
        raise ClientError("That cursor means nothing here.", "INVALID_CURSOR")


class FailingSessionFactory:
    """Stands in for the database: every session attempt fails with a private message."""

    def __call__(self) -> Any:
        raise RuntimeError(f"{SECRET_DETAIL}: password=hunter2 host=db.internal")


def assert_masked(error: dict[str, Any]) -> None:
    assert error["message"] == "internal error"
    extensions = error["extensions"]
    assert extensions["code"] == "INTERNAL_ERROR"
    assert isinstance(extensions["traceId"], str) and len(extensions["traceId"]) >= 8


class TestErrorMasking:
    async def test_unexpected_exception_reaches_the_client_as_internal_error(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        schema = strawberry.Schema(query=FailingQuery, extensions=[MaskUnexpectedErrors])

        with caplog.at_level(logging.ERROR, logger="quiver.graphql"):
            result = await schema.execute("query Broken { broken }")

        assert result.data is None
        assert result.errors is not None and len(result.errors) == 1
        formatted = result.errors[0].formatted
        assert_masked(dict(formatted))
        assert formatted["path"] == ["broken"]
        assert SECRET_DETAIL not in json.dumps(formatted)
        trace_id = formatted["extensions"]["traceId"]
        logged = [record for record in caplog.records if trace_id in record.getMessage()]
        assert logged, "the log must keep the failure under the trace id the client saw"
        assert logged[0].exc_info is not None
        assert SECRET_DETAIL in str(logged[0].exc_info[1])

    async def test_each_failure_gets_its_own_trace_id(self) -> None:
        schema = strawberry.Schema(query=FailingQuery, extensions=[MaskUnexpectedErrors])

        first = await schema.execute("query Broken { broken }")
        second = await schema.execute("query Broken { broken }")

        assert first.errors and second.errors
        assert first.errors[0].formatted["extensions"]["traceId"] != second.errors[0].formatted["extensions"]["traceId"]

    async def test_client_errors_keep_their_message(self) -> None:
        schema = strawberry.Schema(query=FailingQuery, extensions=[MaskUnexpectedErrors])

        result = await schema.execute("query Refused { refused }")

        assert result.errors is not None
        assert result.errors[0].message == "That cursor means nothing here."

    async def test_the_service_schema_masks_an_unexpected_database_failure(self, app_and_services: Any) -> None:
        settings = Settings(admin_token=None)
        services = app_and_services.state.services
        context = Context(
            session_factory=FailingSessionFactory(),  # type: ignore[arg-type]
            settings=settings,
            secret_box=SecretBox(Fernet.generate_key()),
            gateway=services.gateway,
            knowledge=services.knowledge,
            ingestor=services.ingestor,
            runtime=services.runtime,
            pipelines=services.pipelines,
            mcp_pool=services.mcp_pool,
            bus=services.bus,
            egress=services.egress,
            viewer=SYSTEM_PRINCIPAL,
        )

        result = await build_schema(settings).execute(
            "query Spaces { spaces(first: 1) { totalCount } }", context_value=context
        )

        assert result.errors is not None and len(result.errors) == 1
        formatted = dict(result.errors[0].formatted)
        assert_masked(formatted)
        body = json.dumps(formatted)
        assert SECRET_DETAIL not in body
        assert "hunter2" not in body


def query_with_leaf_at_depth(depth: int) -> str:
    """A valid operation whose deepest field sits ``depth`` levels below the root field.

    Walks Space → visibleTools → edges → node (a Tool) → boundSpaces (Spaces) → …, one
    tool a page, so its cost stays within the cost limit whatever the depth.
    """
    cycle = ["visibleTools(first: 1)", "edges", "node", "boundSpaces"]
    chain = ["viewer", "space"]
    while len(chain) < depth:
        chain.append(cycle[(len(chain) - 2) % len(cycle)])
    chain = chain[:depth]
    return "query Deep { " + " { ".join(chain) + " { __typename" + " }" * len(chain) + " }"


def query_with_aliases(count: int) -> str:
    return "query Aliased { " + " ".join(f"alias{index}: __typename" for index in range(count)) + " }"


class TestQueryLimits:
    async def test_query_at_the_depth_limit_is_executed(self, gql: GraphQLClient, settings: Settings) -> None:
        data = await gql.execute(query_with_leaf_at_depth(settings.graphql_max_depth))

        assert data == {"viewer": {"space": None}}

    async def test_query_deeper_than_the_limit_is_rejected(self, gql: GraphQLClient, settings: Settings) -> None:
        response = await gql.raw(query_with_leaf_at_depth(settings.graphql_max_depth + 1))

        body = response.json()
        assert body.get("data") is None
        assert len(body["errors"]) == 1
        assert "exceeds maximum operation depth" in body["errors"][0]["message"]

    async def test_aliases_up_to_the_limit_are_executed(self, gql: GraphQLClient, settings: Settings) -> None:
        data = await gql.execute(query_with_aliases(settings.graphql_max_aliases))

        assert len(data) == settings.graphql_max_aliases

    async def test_more_aliases_than_the_limit_are_rejected(self, gql: GraphQLClient, settings: Settings) -> None:
        response = await gql.raw(query_with_aliases(settings.graphql_max_aliases + 1))

        body = response.json()
        assert body.get("data") is None
        assert len(body["errors"]) == 1
        assert "aliases" in body["errors"][0]["message"]

    async def test_more_tokens_than_the_limit_are_rejected(self, gql: GraphQLClient, settings: Settings) -> None:
        query = "query Long { " + " ".join(["__typename"] * settings.graphql_max_tokens) + " }"

        response = await gql.raw(query)

        body = response.json()
        assert body.get("data") is None
        assert len(body["errors"]) == 1
        assert "tokens" in body["errors"][0]["message"]

    async def test_a_repeated_document_is_validated_once_and_limits_still_hold(
        self, gql: GraphQLClient, settings: Settings
    ) -> None:
        from strawberry.extensions.validation_cache import _get_validate_cache

        # build_schema's ValidationCache(maxsize=256): an lru_cache'd validate function.
        cache = cast("_lru_cache_wrapper[object]", _get_validate_cache(256))
        query = query_with_leaf_at_depth(3)
        await gql.execute(query)
        before = cache.cache_info()
        await gql.execute(query)
        after = cache.cache_info()
        assert (after.hits, after.misses) == (before.hits + 1, before.misses)

        too_deep = query_with_leaf_at_depth(settings.graphql_max_depth + 1)
        for _ in range(2):  # the second answer comes from the cache: still refused
            body = (await gql.raw(too_deep)).json()
            assert body.get("data") is None
            assert "exceeds maximum operation depth" in body["errors"][0]["message"]
