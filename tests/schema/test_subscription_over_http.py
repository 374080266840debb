"""A subscription sent over plain HTTP gets a GraphQL error naming the WebSocket transport,
never an internal error (it used to resolve the generator as a null: INTERNAL_ERROR)."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import GraphQLClient

SUBSCRIPTIONS = [
    "subscription Calls { toolCalls { id } }",
    'subscription Events { agentRunEvents(runId: "run_missing") { kind } }',
]


def assert_refused(response: httpx.Response) -> None:
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data"] is None
    [error] = body["errors"]
    assert error["extensions"] == {"code": "SUBSCRIPTION_OVER_HTTP"}
    assert "graphql-transport-ws" in error["message"]
    assert "internal" not in error["message"].lower()


class TestSubscriptionOverHttp:
    @pytest.mark.parametrize("query", SUBSCRIPTIONS)
    async def test_post_gets_a_clear_graphql_error(self, gql: GraphQLClient, query: str) -> None:
        assert_refused(await gql.raw(query))

    async def test_get_gets_the_same_error(self, http: httpx.AsyncClient, admin_key: str) -> None:
        response = await http.get(
            "/graphql",
            params={"query": SUBSCRIPTIONS[0]},
            headers={"Authorization": f"Bearer {admin_key}", "Accept": "application/json"},
        )

        assert_refused(response)

    async def test_named_subscription_in_a_document_with_a_query(self, gql: GraphQLClient) -> None:
        document = "query Who { viewer { role } } subscription Calls { toolCalls { id } }"
        response = await gql.http.post(
            "/graphql",
            json={"query": document, "operationName": "Calls"},
            headers={"Authorization": f"Bearer {gql.key}"},
        )

        assert_refused(response)

        # The query of the same document still runs.
        answered = await gql.http.post(
            "/graphql",
            json={"query": document, "operationName": "Who"},
            headers={"Authorization": f"Bearer {gql.key}"},
        )
        assert answered.json() == {"data": {"viewer": {"role": "ADMIN"}}}

    async def test_mutation_over_get_is_still_refused_as_before(self, http: httpx.AsyncClient, admin_key: str) -> None:
        response = await http.get(
            "/graphql",
            params={"query": 'mutation { createSpace(input: {name: "x", label: "X"}) { userErrors { code } } }'},
            headers={"Authorization": f"Bearer {admin_key}", "Accept": "application/json"},
        )

        assert response.status_code == 400
