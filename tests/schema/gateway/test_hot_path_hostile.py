"""Hostile and odd requests to ``POST /graphql`` answered the same by an app with the GraphQL hot
path (schema/gateway/hot_path.py) and one without it (``QUIVER_GRAPHQL_HOT_PATH=false``), both
on one database: same status, same JSON but for ids and times, never a 500."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.config import Settings
from app.gateway.models import ToolCall
from app.main import create_app
from app.spaces.models import SYSTEM_SPACE_ID
from tests.support.hot_path import normalised

SHORT = (
    "mutation($input: InvokeToolInput!) { invokeTool(input: $input) { status data error { code message } traceId } }"
)
NAMED = "mutation Call($input: InvokeToolInput!) { invokeTool(input: $input) { status } }"
VARYING = ("traceId", "latencyMs", "id")
CALCULATOR = "bt_calculator"


def tool_input(**more: Any) -> dict[str, Any]:
    return {"spaceId": SYSTEM_SPACE_ID, "toolId": CALCULATOR, "arguments": {"expression": "6 * 7"}, **more}


def body(query: str = SHORT, **fields: Any) -> bytes:
    return json.dumps({"query": query, **fields}).encode()


def called(arguments: bytes, tool: bytes = CALCULATOR.encode()) -> bytes:
    """A body written by hand, for what ``json.dumps`` will not write."""
    return (
        b'{"query": '
        + json.dumps(SHORT).encode()
        + b', "variables": {"input": {"spaceId": "'
        + SYSTEM_SPACE_ID.encode()
        + b'", "toolId": "'
        + tool
        + b'", "arguments": '
        + arguments
        + b"}}}"
    )


JSON = "application/json"
CASES: dict[str, tuple[bytes, str | None]] = {
    "plain": (body(variables={"input": tool_input()}), JSON),
    "inline-literal": (
        body(
            f'mutation {{ invokeTool(input: {{spaceId: "{SYSTEM_SPACE_ID}", toolId: "{CALCULATOR}", '
            'arguments: {expression: "1+1"}}) { status data } }'
        ),
        JSON,
    ),
    "an-id-as-a-number": (body(variables={"input": tool_input(spaceId=5)}), JSON),
    "arguments-a-string": (body(variables={"input": tool_input(arguments="6 * 7")}), JSON),
    "arguments-a-list": (body(variables={"input": tool_input(arguments=[1, 2])}), JSON),
    "arguments-null": (body(variables={"input": tool_input(arguments=None)}), JSON),
    "a-required-field-missing": (body(variables={"input": {"toolId": CALCULATOR, "arguments": {}}}), JSON),
    "an-unknown-field": (body(variables={"input": tool_input(nope=1)}), JSON),
    "null-where-non-null": (body(variables={"input": tool_input(spaceId=None)}), JSON),
    "input-null": (body(variables={"input": None}), JSON),
    "no-variables": (body(), JSON),
    "variables-a-list": (body(variables=[1]), JSON),
    "extra-variables": (body(variables={"input": tool_input(), "other": 1}), JSON),
    "aliases-and-typename": (
        body(
            "mutation($input: InvokeToolInput!) { a: invokeTool(input: $input) { s: status t: __typename "
            "error { __typename } } }",
            variables={"input": tool_input()},
        ),
        JSON,
    ),
    "a-fragment": (
        body(
            "mutation($input: InvokeToolInput!) { invokeTool(input: $input) { ...F } } "
            "fragment F on ToolResult { status }",
            variables={"input": tool_input()},
        ),
        JSON,
    ),
    "two-mutations": (
        body(
            "mutation($input: InvokeToolInput!) { a: invokeTool(input: $input) { status } "
            "b: invokeTool(input: $input) { status } }",
            variables={"input": tool_input()},
        ),
        JSON,
    ),
    "operation-name-matches": (body(NAMED, operationName="Call", variables={"input": tool_input()}), JSON),
    "operation-name-does-not-match": (body(NAMED, operationName="Other", variables={"input": tool_input()}), JSON),
    "operation-name-empty": (body(NAMED, operationName="", variables={"input": tool_input()}), JSON),
    "operation-name-a-number": (body(operationName=1, variables={"input": tool_input()}), JSON),
    "query-a-number": (json.dumps({"query": 1}).encode(), JSON),
    "chinese-and-emoji": (body(variables={"input": tool_input(arguments={"expression": "六 * 7 🚀"})}), JSON),
    "deep-arguments": (called(b'{"a": ' * 60 + b"1" + b"}" * 60), JSON),
    "too-deep-arguments": (called(b'{"a": ' * 2000 + b"1" + b"}" * 2000), JSON),
    "a-long-integer": (called(b'{"expression": 123456789012345678901234567890}'), JSON),
    "nan": (called(b'{"expression": NaN}'), JSON),
    "a-lone-surrogate": (called(b'{"expression": "\\ud800"}'), JSON),
    "a-lone-surrogate-in-the-tool-id": (called(b"{}", tool=b"bt_\\udc00"), JSON),
    "a-surrogate-pair": (called(b'{"expression": "\\ud83d\\ude80"}'), JSON),
    "not-utf8": (called(b'{"expression": "\xff\xfe"}'), JSON),
    "a-nul-in-the-tool-id": (body(variables={"input": tool_input(toolId="bt_calc\u0000ulator")}), JSON),
    "a-nul-in-the-space-id": (body(variables={"input": tool_input(spaceId="sp_\u0000")}), JSON),
    "a-nul-in-the-arguments": (body(variables={"input": tool_input(arguments={"expression": "1\u0000+1"})}), JSON),
    "a-nul-in-a-key": (body(variables={"input": tool_input(arguments={"ex\u0000": "1"})}), JSON),
    "a-nul-in-the-idempotency-key": (body(variables={"input": tool_input(idempotencyKey="k\u0000")}), JSON),
    "a-nul-in-a-literal": (
        body(
            f'mutation {{ invokeTool(input: {{spaceId: "{SYSTEM_SPACE_ID}", toolId: "bt_\\u0000", '
            "arguments: {}}) { status } }"
        ),
        JSON,
    ),
    "a-nul-in-a-literal-with-braces": (
        body('query { tool(id: "bt_\\u{0}") { id } node(id: "ct_\\u{00}") { id } }'),
        JSON,
    ),
    "a-tool-id-10k-long": (body(variables={"input": tool_input(toolId="x" * 10_000)}), JSON),
    "an-unknown-tool": (body(variables={"input": tool_input(toolId="ct_nothing_here")}), JSON),
    "batch": (json.dumps([{"query": SHORT, "variables": {"input": tool_input()}}]).encode(), JSON),
    "json-null": (b"null", JSON),
    "empty": (b"", JSON),
    "charset": (body(variables={"input": tool_input()}), "application/json; charset=utf-8"),
    "text-plain": (body(variables={"input": tool_input()}), "text/plain"),
    "no-content-type": (body(variables={"input": tool_input()}), None),
    "application-graphql": (SHORT.encode(), "application/graphql"),
}


@pytest.fixture(scope="module")
async def generic_app(settings: Settings) -> AsyncIterator[Any]:
    app = create_app(settings.model_copy(update={"graphql_hot_path": False}))
    assert app.state.hot_path is None
    yield app
    await app.state.services.close()


@pytest.fixture
async def generic_http(generic_app: Any) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=generic_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://quiver.test") as client:
        yield client


async def post(client: httpx.AsyncClient, content: bytes, content_type: str | None, key: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"}
    if content_type is not None:
        headers["Content-Type"] = content_type
    return await client.post("/graphql", content=content, headers=headers)


def answer(response: httpx.Response) -> Any:
    try:
        return normalised(response.json(), VARYING)
    except json.JSONDecodeError:
        return response.text


@pytest.mark.parametrize("case", list(CASES))
async def test_the_same_answer_with_and_without_the_hot_path(
    http: httpx.AsyncClient, generic_http: httpx.AsyncClient, app_and_services: Any, admin_key: str, case: str
) -> None:
    assert app_and_services.state.hot_path is not None
    content, content_type = CASES[case]

    hot = await post(http, content, content_type, admin_key)
    generic = await post(generic_http, content, content_type, admin_key)

    assert hot.status_code < 500, hot.text
    assert (hot.status_code, answer(hot)) == (generic.status_code, answer(generic))
    assert hot.headers["content-type"] == generic.headers["content-type"]


async def test_a_long_integer_keeps_its_digits_on_the_hot_path(http: httpx.AsyncClient, admin_key: str) -> None:
    response = await post(http, CASES["a-long-integer"][0], JSON, admin_key)

    error = response.json()["data"]["invokeTool"]["error"]
    assert error["code"] == "PARAM_INVALID"
    assert "123456789012345678901234567890 is not of type 'string'" in error["message"]


@pytest.mark.parametrize(
    "case",
    [
        "not-utf8",
        "a-lone-surrogate",
        "a-lone-surrogate-in-the-tool-id",
        # PostgreSQL text cannot hold U+0000: an INTERNAL_ERROR and a lost call-log row there.
        "a-nul-in-the-tool-id",
        "a-nul-in-the-space-id",
        "a-nul-in-the-arguments",
        "a-nul-in-a-key",
        "a-nul-in-the-idempotency-key",
    ],
)
async def test_a_body_that_is_not_unicode_is_a_bad_request_and_calls_nothing(
    http: httpx.AsyncClient, admin_key: str, session_factory: Any, case: str
) -> None:
    response = await post(http, CASES[case][0], JSON, admin_key)

    assert response.status_code == 400
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_REQUEST"
    async with session_factory() as session:
        assert await session.scalar(select(func.count()).select_from(ToolCall)) == 0


async def test_a_surrogate_pair_is_one_character(http: httpx.AsyncClient, admin_key: str) -> None:
    response = await post(http, CASES["a-surrogate-pair"][0], JSON, admin_key)

    assert response.json()["data"]["invokeTool"]["error"]["code"] == "PARAM_INVALID"


@pytest.mark.parametrize("case", ["a-nul-in-a-literal", "a-nul-in-a-literal-with-braces"])
async def test_a_nul_in_a_literal_is_a_validation_error_and_calls_nothing(
    http: httpx.AsyncClient, admin_key: str, session_factory: Any, case: str
) -> None:
    response = await post(http, CASES[case][0], JSON, admin_key)

    body = response.json()
    assert (response.status_code, body["data"]) == (200, None)
    assert {error["extensions"]["code"] for error in body["errors"]} == {"BAD_REQUEST"}
    async with session_factory() as session:
        assert await session.scalar(select(func.count()).select_from(ToolCall)) == 0
