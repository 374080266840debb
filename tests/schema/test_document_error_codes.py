"""A document refused before execution carries a code a client can act on (``extensions.code``):
it does not parse, does not validate, or goes past a limit of the validation. graphql-core's own
budget for comparing fields answered a bare "Validation aborted." for 800 copies of one field."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from starlette.testclient import TestClient

from app.config import Settings
from app.main import create_app
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


async def test_a_subscription_that_does_not_validate_is_coded_over_websockets(
    settings: Settings, admin_key: str
) -> None:
    def run() -> dict[str, Any]:
        app = create_app(settings)
        with TestClient(app) as client, client.websocket_connect("/graphql", subprotocols=[TRANSPORT_WS]) as ws:
            ws.send_json({"type": "connection_init", "payload": {"Authorization": f"Bearer {admin_key}"}})
            assert ws.receive_json()["type"] == "connection_ack"
            ws.send_json({"id": "1", "type": "subscribe", "payload": {"query": "subscription { noSuchField }"}})
            return ws.receive_json()  # type: ignore[no-any-return]

    answer = await asyncio.to_thread(run)

    assert answer["type"] == "error"
    assert [error["extensions"]["code"] for error in answer["payload"]] == ["GRAPHQL_VALIDATION_FAILED"]
