"""A tool's stored credential is write-only and stays where it was given: it never follows an
endpoint (or a re-import) to another origin, and no envelope, call-log row or log line repeats it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import fresh, http_tool, invoke
from tests.schema.tools.operations import UPDATE_TOOL
from tests.support.http_tool_server import HEADER_SECRET, ToolServer, running_tool_server

SECRET_HEADER = {"type": "HEADER", "headerName": "X-Tool-Secret", "secret": HEADER_SECRET}


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


@pytest.fixture(scope="module")
def other_server() -> Iterator[ToolServer]:
    """A second server: same host, another port, so another origin."""
    with running_tool_server() as server:
        yield server


async def update_tool(gql: GraphQLClient, tool_id: str, **fields: Any) -> dict[str, Any]:
    payload: dict[str, Any] = (await gql.execute(UPDATE_TOOL, {"input": {"id": tool_id, **fields}}))["updateTool"]
    return payload


async def secrets_seen(server: ToolServer, endpoint: str, key: str) -> list[str | None]:
    return [entry["headers"].get("x-tool-secret") for entry in await server.requests(endpoint, key)]


class TestSecretStaysWithItsOrigin:
    async def test_moving_the_endpoint_elsewhere_without_the_auth_is_refused(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, other_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("move")
        tool = await http_tool(gql, tool_server, f"/ok/{key}", auth=SECRET_HEADER)

        moved = await update_tool(gql, tool["id"], endpoint=other_server.url(f"/ok/{key}"))

        assert moved["tool"] is None
        [error] = moved["userErrors"]
        assert (error["code"], error["field"]) == ("SECRET_WOULD_MOVE", ["input", "endpoint"])
        assert "HEADER credential" in error["message"] and "give auth again" in error["message"]
        assert HEADER_SECRET not in error["message"]
        # Nothing changed: the call still goes where the credential was given.
        envelope = await invoke(gql, space.id, tool["id"], {"q": "x"})
        assert envelope["status"] == "SUCCESS", envelope["error"]
        assert await secrets_seen(other_server, "ok", key) == []
        assert await secrets_seen(tool_server, "ok", key) == [HEADER_SECRET]

    @pytest.mark.parametrize(
        "change",
        [
            lambda url: url.replace("http://", "https://"),  # scheme
            lambda url: url.replace("127.0.0.1", "localhost"),  # host
            lambda url: url.replace(f":{urlsplit(url).port}/", f":{(urlsplit(url).port or 0) % 60000 + 1}/"),  # port
        ],
        ids=["scheme", "host", "port"],
    )
    async def test_every_part_of_the_origin_counts(
        self, gql: GraphQLClient, tool_server: ToolServer, change: Any
    ) -> None:
        path = f"/ok/{fresh('part')}"
        tool = await http_tool(gql, tool_server, path, auth=SECRET_HEADER)
        url = tool_server.url(path)

        moved = await update_tool(gql, tool["id"], endpoint=change(url))

        assert [error["code"] for error in moved["userErrors"]] == ["SECRET_WOULD_MOVE"]

    async def test_the_same_origin_or_the_auth_given_again_is_accepted(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, other_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("stay")
        tool = await http_tool(gql, tool_server, f"/ok/{key}", auth=SECRET_HEADER)

        # Another path (and a query) on the same origin.
        same = await update_tool(gql, tool["id"], endpoint=tool_server.url(f"/ok/{key}?v=2"))
        assert same["userErrors"] == []
        # Elsewhere with a new credential: that one goes there.
        new_secret = {**SECRET_HEADER, "secret": "a-new-secret-for-the-new-host"}
        elsewhere = await update_tool(gql, tool["id"], endpoint=other_server.url(f"/ok/{key}"), auth=new_secret)
        assert elsewhere["userErrors"] == []
        assert (await invoke(gql, space.id, tool["id"], {}))["status"] == "SUCCESS"
        assert await secrets_seen(other_server, "ok", key) == ["a-new-secret-for-the-new-host"]
        # Elsewhere with the credential dropped: nothing is sent.
        dropped = await update_tool(gql, tool["id"], endpoint=tool_server.url(f"/ok/{key}"), auth={"type": "NONE"})
        assert dropped["userErrors"] == [] and dropped["tool"]["authType"] == "NONE"
        assert (await invoke(gql, space.id, tool["id"], {}))["status"] == "SUCCESS"
        assert await secrets_seen(tool_server, "ok", key) == [None]

    async def test_a_tool_without_a_credential_moves_freely(
        self, gql: GraphQLClient, tool_server: ToolServer, other_server: ToolServer
    ) -> None:
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('free')}")
        moved = await update_tool(gql, tool["id"], endpoint=other_server.url("/ok/free"))
        assert moved["userErrors"] == [] and moved["tool"]["endpoint"] == other_server.url("/ok/free")

    async def test_an_oauth_token_url_changes_only_with_the_client_secret(
        self, gql: GraphQLClient, tool_server: ToolServer, other_server: ToolServer
    ) -> None:
        auth = {
            "type": "OAUTH_CLIENT_CREDENTIALS",
            "tokenUrl": tool_server.url("/token"),
            "clientId": fresh("client"),
            "secret": "oauth-secret-1",
        }
        tool = await http_tool(gql, tool_server, f"/oauth/protected/{fresh('oauth')}", auth=auth)
        without_secret = {key: value for key, value in auth.items() if key != "secret"}

        moved = await update_tool(gql, tool["id"], auth={**without_secret, "tokenUrl": other_server.url("/token")})

        assert [(error["code"], error["field"]) for error in moved["userErrors"]] == [
            ("INVALID_AUTH", ["input", "auth", "secret"])
        ]
        # The endpoint of an OAuth tool receives the token the secret buys: it stays too.
        endpoint_moved = await update_tool(gql, tool["id"], endpoint=other_server.url("/oauth/protected/x"))
        assert [error["code"] for error in endpoint_moved["userErrors"]] == ["SECRET_WOULD_MOVE"]
