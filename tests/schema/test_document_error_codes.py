"""A document refused before execution carries a code a client can act on (``extensions.code``):
it does not parse, does not validate, or goes past a limit of the validation. graphql-core's own
budget for comparing fields answered a bare "Validation aborted." for 800 copies of one field."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import httpx
import pytest
from graphql import GraphQLError, parse, validate
from graphql.validation.validate import ValidationAbortedError
from starlette.testclient import TestClient

from app.config import Settings
from app.main import create_app
from schema import limits
from schema.errors import code_document_errors
from schema.schema import build_schema
from tests.conftest import GraphQLClient

TRANSPORT_WS = "graphql-transport-ws"


def only_error(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert body["data"] is None
    [error] = body["errors"]
    return error  # type: ignore[no-any-return]


async def test_a_document_that_does_not_parse_is_graphql_parse_failed(gql: GraphQLClient) -> None:
    error = only_error(await gql.raw("{ spaces { "))
    assert error["extensions"] == {"code": "GRAPHQL_PARSE_FAILED"}
    assert error["message"].startswith("Syntax Error")


async def test_an_unknown_field_is_graphql_validation_failed(gql: GraphQLClient) -> None:
    error = only_error(await gql.raw("{ noSuchField }"))
    assert error["extensions"] == {"code": "GRAPHQL_VALIDATION_FAILED"}
    assert "noSuchField" in error["message"]


async def test_too_many_copies_of_a_field_are_query_too_complex_with_advice(gql: GraphQLClient) -> None:
    error = only_error(await gql.raw("{ " + " ".join(["__typename"] * 800) + " }"))
    assert error["extensions"] == {"code": "QUERY_TOO_COMPLEX"}
    assert "Select fewer fields" in error["message"]


async def test_the_limits_of_the_validation_each_have_their_code(gql: GraphQLClient) -> None:
    settings = Settings()
    aliases = " ".join(f"a{i}: __typename" for i in range(settings.graphql_max_aliases + 1))
    assert only_error(await gql.raw("{ " + aliases + " }"))["extensions"] == {"code": "TOO_MANY_ALIASES"}

    deep = "{ " + "tools { edges { node { mcpServer { " * 4 + "id" + " } } } }" * 4 + " }"
    errors = (await gql.raw(deep)).json()["errors"]
    assert {"code": "QUERY_TOO_DEEP"} in [error.get("extensions") for error in errors]

    tokens = "{ " + " ".join(["__typename"] * (settings.graphql_max_tokens + 1)) + " }"
    error = only_error(await gql.raw(tokens))
    assert error["extensions"] == {"code": "QUERY_TOO_LARGE"}


async def test_a_valid_document_and_coded_errors_are_left_as_they_are(gql: GraphQLClient) -> None:
    response = await gql.raw("{ __typename }")
    assert response.json() == {"data": {"__typename": "Query"}}
    # A limit that already had its code keeps it.
    error = only_error(await gql.raw('{ spaces(first: 1, after: "not-a-cursor") { totalCount } }'))
    assert error["extensions"]["code"] != "GRAPHQL_VALIDATION_FAILED"


async def subscribe_once(settings: Settings, admin_key: str, query: str) -> dict[str, Any]:
    """The first answer to ``subscribe`` over graphql-transport-ws."""

    def run() -> dict[str, Any]:
        app = create_app(settings)
        with TestClient(app) as client, client.websocket_connect("/graphql", subprotocols=[TRANSPORT_WS]) as ws:
            ws.send_json({"type": "connection_init", "payload": {"Authorization": f"Bearer {admin_key}"}})
            assert ws.receive_json()["type"] == "connection_ack"
            ws.send_json({"id": "1", "type": "subscribe", "payload": {"query": query}})
            return ws.receive_json()  # type: ignore[no-any-return]

    return await asyncio.to_thread(run)


async def test_a_subscription_that_does_not_validate_is_coded_over_websockets(
    settings: Settings, admin_key: str
) -> None:
    answer = await subscribe_once(settings, admin_key, "subscription { noSuchField }")

    assert answer["type"] == "error"
    assert [error["extensions"]["code"] for error in answer["payload"]] == ["GRAPHQL_VALIDATION_FAILED"]


def _aliases(count: int) -> str:
    """``count`` aliases, named afresh each time (a document validated before is not looked up again)."""
    prefix = "a" + secrets.token_hex(3)
    return " ".join(f"{prefix}{i}: __typename" for i in range(count))


def _too_deep(depth: int) -> str:
    return "{ " + "tools { edges { node { mcpServer { " * depth + _aliases(1) + " } } } }" * depth + " }"


def test_the_shape_limits_code_their_refusals_where_they_make_them() -> None:
    """The code comes with the refusal from the rule itself (graphql-core's validate only), not
    from reading its message afterwards."""
    graphql_schema = build_schema(Settings())._schema
    rule = limits.shape_limit_rule(max_depth=2, max_aliases=1)

    [too_many] = validate(graphql_schema, parse("{ " + _aliases(2) + " }"), [rule])
    [too_deep] = validate(graphql_schema, parse(_too_deep(1)), [rule])

    assert (too_many.extensions, too_many.message) == ({"code": "TOO_MANY_ALIASES"}, "2 aliases found. Allowed: 1")
    assert (too_deep.extensions, too_deep.message) == (
        {"code": "QUERY_TOO_DEEP"},
        "'anonymous' exceeds maximum operation depth of 2",
    )


async def test_reworded_limits_keep_their_codes_over_http_and_websockets(
    gql: GraphQLClient, settings: Settings, admin_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were the codes read from the messages, other wording would make them GRAPHQL_VALIDATION_FAILED."""
    monkeypatch.setattr(limits, "TOO_DEEP_MESSAGE", "Operation {name} nests past {max_depth} levels.")
    monkeypatch.setattr(limits, "TOO_MANY_ALIASES_MESSAGE", "Renamed {aliases} fields; {max_aliases} may be.")
    max_aliases = Settings().graphql_max_aliases

    aliased = only_error(await gql.raw("{ " + _aliases(max_aliases + 1) + " }"))
    assert aliased == {
        "message": f"Renamed {max_aliases + 1} fields; {max_aliases} may be.",
        "extensions": {"code": "TOO_MANY_ALIASES"},
    }
    deep = [error for error in (await gql.raw(_too_deep(4))).json()["errors"] if "nests past" in error["message"]]
    assert [error["extensions"] for error in deep] == [{"code": "QUERY_TOO_DEEP"}]

    subscription = 'subscription { approvalRequests(spaceId: "sp_x") { ' + _aliases(max_aliases + 1) + " } }"
    answer = await subscribe_once(settings, admin_key, subscription)
    assert answer["type"] == "error"
    assert answer["payload"] == [
        {
            "message": f"Renamed {max_aliases + 1} fields; {max_aliases} may be.",
            "extensions": {"code": "TOO_MANY_ALIASES"},
        }
    ]


@pytest.mark.parametrize("message", ["Validation aborted.", "Validation stopped: the budget is spent."])
def test_graphql_cores_aborted_validation_is_too_complex_whatever_its_words(message: str) -> None:
    errors: list[GraphQLError] = [ValidationAbortedError(message)]
    code_document_errors(errors)
    assert errors[0].extensions == {"code": "QUERY_TOO_COMPLEX"}
