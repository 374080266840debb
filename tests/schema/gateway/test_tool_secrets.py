"""A tool's stored credential is write-only and stays where it was given: it never follows an
endpoint (or a re-import) to another origin, and no envelope, call-log row or log line repeats it."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from app.logging import JsonFormatter, configure_logging
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import SessionFactory, call_log, fresh, http_tool, invoke, set_tool_columns
from tests.schema.tools.operations import (
    CREATE_TOOL,
    REGISTER_MCP_SERVER,
    UPDATE_TOOL,
    create_tool,
    create_tool_errors,
    tool_input,
)
from tests.support.http_tool_server import HEADER_SECRET, OAUTH_CLIENT_SECRET, ToolServer, running_tool_server
from tests.support.processes import HttpMcpServer, running_http_mcp_server

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


LEAKY_SECRET = "leaky-secret-5e0b1c9d7a"
ALL_LOGGERS = ("quiver", "app", "httpx", "httpcore")


def captured(caplog: pytest.LogCaptureFixture) -> str:
    """Everything logged, as the JSON lines the server writes."""
    return caplog.text + "\n".join(JsonFormatter().format(record) for record in caplog.records)


def capture_everything(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    for name in ALL_LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)


async def stored_call(gql: GraphQLClient, call_id: str) -> dict[str, Any]:
    [node] = [node for node in (await call_log(gql))["nodes"] if node["id"] == call_id]
    found: dict[str, Any] = node
    return found


class TestSecretsAreHeaderSafe:
    @pytest.mark.parametrize(
        "secret",
        ["ends-in-a-newline\n", "in\r\nside", "tab-at-the-end\t", " leading", "caf\u00e9-secret"],
        ids=["newline", "crlf", "trailing-tab", "leading-space", "non-ascii"],
    )
    @pytest.mark.parametrize(
        "auth",
        [{"type": "BEARER"}, {"type": "API_KEY", "headerName": "X-Api-Key"}, {"type": "HEADER", "headerName": "X-T"}],
        ids=["bearer", "api-key", "header"],
    )
    async def test_an_unsendable_secret_is_refused_at_creation(
        self, gql: GraphQLClient, secret: str, auth: dict[str, Any]
    ) -> None:
        [error] = await create_tool_errors(gql, fresh("bad_secret"), auth={**auth, "secret": secret})

        assert (error["code"], error["field"]) == ("INVALID_SECRET", ["input", "auth", "secret"])
        assert secret.strip() not in error["message"]

    async def test_a_secret_holding_a_nul_is_a_bad_request(self, gql: GraphQLClient) -> None:
        # Every string of a request holding U+0000 is refused before it runs (app.jsoncodec.loads_unicode).
        response = await gql.raw(
            CREATE_TOOL, {"input": tool_input(fresh("nul_secret"), auth={"type": "BEARER", "secret": "nul\x00byte"})}
        )

        assert response.status_code == 400
        assert response.json()["errors"][0]["extensions"]["code"] == "BAD_REQUEST"
        assert "nul\x00byte" not in response.text

    async def test_and_at_update_and_for_oauth_and_mcp_servers(self, gql: GraphQLClient) -> None:
        tool = await create_tool(gql, fresh("later"), auth={"type": "BEARER", "secret": "fine-secret-1"})
        updated = await update_tool(gql, tool["id"], auth={"type": "BEARER", "secret": "line\nbreak"})
        assert [(e["code"], e["field"]) for e in updated["userErrors"]] == [
            ("INVALID_SECRET", ["input", "auth", "secret"])
        ]
        oauth = {"type": "OAUTH_CLIENT_CREDENTIALS", "tokenUrl": "https://id.example.test/token", "clientId": "c\n1"}
        [error] = await create_tool_errors(gql, fresh("oauth"), auth={**oauth, "secret": "s3cret-value"})
        assert (error["code"], error["field"]) == ("INVALID_SECRET", ["input", "auth", "clientId"])
        # A form-encoded client secret may hold non-ASCII letters, never control characters.
        fine = {**oauth, "clientId": "c1", "secret": "s\u00e9cret-value"}
        assert (await create_tool(gql, fresh("oauth"), auth=fine))["authType"] == "OAUTH_CLIENT_CREDENTIALS"
        [error] = await create_tool_errors(gql, fresh("oauth"), auth={**fine, "secret": "s3cret\r\n"})
        assert error["code"] == "INVALID_SECRET"
        registered = (
            await gql.execute(
                REGISTER_MCP_SERVER,
                {
                    "input": {
                        "name": fresh("mcp"),
                        "transport": "STREAMABLE_HTTP",
                        "url": "https://mcp.example.test/mcp",
                        "auth": {"type": "BEARER", "secret": "mcp-secret\n"},
                    }
                },
            )
        )["registerMcpServer"]
        assert [(e["code"], e["field"]) for e in registered["userErrors"]] == [
            ("INVALID_SECRET", ["input", "auth", "secret"])
        ]


class TestSecretsAreNeverEchoed:
    @pytest.mark.parametrize(
        ("auth", "shown_as"),
        [
            ({"type": "BEARER", "secret": LEAKY_SECRET}, "authorization: Bearer [secret]"),
            ({"type": "API_KEY", "headerName": "X-Api-Key", "secret": LEAKY_SECRET}, "x-api-key: [secret]"),
        ],
        ids=["bearer", "api-key"],
    )
    async def test_an_upstream_reflecting_the_request_headers_in_its_error(
        self,
        gql: GraphQLClient,
        keys: Keys,
        tool_server: ToolServer,
        caplog: pytest.LogCaptureFixture,
        auth: dict[str, Any],
        shown_as: str,
    ) -> None:
        capture_everything(caplog)
        space = await keys.space("alpha")
        key = fresh("reflect")
        tool = await http_tool(gql, tool_server, f"/reflect500/{key}", auth=auth, maxRetries=0)

        envelope = await invoke(gql, space.id, tool["id"], {"q": "x"})

        # The credential was sent (and reflected) ...
        [received] = await tool_server.requests("reflect500", key)
        assert LEAKY_SECRET in json.dumps(received)
        # ... but neither the caller, nor the log row, nor a log line repeats it.
        assert envelope["error"]["code"] == "EXTERNAL_API_ERROR"
        assert shown_as in envelope["error"]["detail"]
        assert LEAKY_SECRET not in json.dumps(envelope)
        assert LEAKY_SECRET not in json.dumps(await stored_call(gql, envelope["call"]["id"]))
        assert LEAKY_SECRET not in captured(caplog)

    async def test_an_oauth_token_and_a_success_body_echoing_the_secret(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("echo")
        oauth = {
            "type": "OAUTH_CLIENT_CREDENTIALS",
            "tokenUrl": tool_server.url("/token"),
            "clientId": fresh("client"),
            "secret": OAUTH_CLIENT_SECRET,
        }
        reflecting = await http_tool(gql, tool_server, f"/reflect500/{key}", auth=oauth, maxRetries=0)
        echoing = await http_tool(
            gql,
            tool_server,
            f"/ok/{key}",
            auth={"type": "HEADER", "headerName": "X-Tool-Secret", "secret": LEAKY_SECRET},
        )

        failed = await invoke(gql, space.id, reflecting["id"], {})
        echoed = await invoke(gql, space.id, echoing["id"], {})

        [sent] = await tool_server.requests("reflect500", key)
        token = sent["headers"]["authorization"].removeprefix("Bearer ")
        assert token not in json.dumps(failed) and "authorization: Bearer [secret]" in failed["error"]["detail"]
        assert OAUTH_CLIENT_SECRET not in json.dumps(await stored_call(gql, failed["call"]["id"]))
        assert echoed["status"] == "SUCCESS" and echoed["data"]["headers"]["x-tool-secret"] == "[secret]"
        for envelope in (failed, echoed):
            assert LEAKY_SECRET not in json.dumps(await stored_call(gql, envelope["call"]["id"]))

    @pytest.mark.parametrize(
        "legacy", ["legacy-secret-8d1f\n", "l\u00e9gacy-secret-8d1f"], ids=["newline", "non-ascii"]
    )
    async def test_a_stored_unsendable_secret_is_never_sent_nor_echoed(
        self,
        gql: GraphQLClient,
        keys: Keys,
        tool_server: ToolServer,
        app_and_services: Any,
        session_factory: SessionFactory,
        caplog: pytest.LogCaptureFixture,
        legacy: str,
    ) -> None:
        capture_everything(caplog)
        space = await keys.space("alpha")
        key = fresh("legacy")
        tool = await http_tool(gql, tool_server, f"/ok/{key}", auth={"type": "BEARER", "secret": "placeholder"})
        # As stored before secrets were checked.
        box = app_and_services.state.services.secret_box
        sealed = box.encrypt(
            {"header_name": None, "secret": legacy, "token_url": None, "client_id": None, "scopes": []}
        )
        await set_tool_columns(session_factory, tool["id"], auth_config=sealed)

        envelope = await invoke(gql, space.id, tool["id"], {})

        assert envelope["error"]["code"] == "TOOL_NOT_AVAILABLE", envelope["error"]
        assert "give its auth again" in envelope["error"]["message"]
        assert await tool_server.requests("ok", key) == []
        for seen in (
            json.dumps(envelope),
            json.dumps(await stored_call(gql, envelope["call"]["id"])),
            captured(caplog),
        ):
            assert "legacy-secret-8d1f" not in seen and "gacy-secret-8d1f" not in seen


SYNC_MCP_SERVER = """
mutation Sync($id: ID!) {
  syncMcpServer(id: $id) { mcpServer { id lastError } userErrors { code message } }
}
"""


@pytest.fixture(scope="module")
def mcp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpMcpServer]:
    """The SDK-built MCP server, with the tools that repeat the request's headers."""
    with running_http_mcp_server(tmp_path_factory.mktemp("mcp-reflect")) as server:
        yield server


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    names = ("httpx", "httpx2", "httpcore", "mcp")
    handlers, level, levels = root.handlers[:], root.level, {name: logging.getLogger(name).level for name in names}
    yield
    root.handlers[:], root.level = handlers, level
    for name, saved in levels.items():
        logging.getLogger(name).setLevel(saved)


def server_logging_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    """Logging as `quiver serve` sets it up with QUIVER_LOG_LEVEL=DEBUG, captured."""
    configure_logging("DEBUG")
    logging.getLogger().addHandler(caplog.handler)


@pytest.mark.usefixtures("restore_logging")
class TestMcpSecretsAreNeverEchoed:
    """The MCP path (app/mcp) goes through the same scrubbing as CUSTOM tools: an MCP server
    repeating the credential it was sent, in a result or a tool error, shows ``[secret]``."""

    @pytest.mark.parametrize(
        ("auth", "header", "shown_as"),
        [
            (
                {"type": "BEARER", "secret": LEAKY_SECRET},
                ["Authorization", f"Bearer {LEAKY_SECRET}"],
                "Bearer [secret]",
            ),
            (
                {"type": "API_KEY", "headerName": "X-Api-Key", "secret": LEAKY_SECRET},
                ["X-Api-Key", LEAKY_SECRET],
                "[secret]",
            ),
        ],
        ids=["bearer", "api-key"],
    )
    async def test_results_and_tool_errors_repeating_the_credential(
        self,
        gql: GraphQLClient,
        keys: Keys,
        mcp_server: HttpMcpServer,
        caplog: pytest.LogCaptureFixture,
        tmp_path: Path,
        auth: dict[str, Any],
        header: list[str],
        shown_as: str,
    ) -> None:
        server_logging_at_debug(caplog)
        # The server answers only requests carrying the credential, so it was sent.
        mcp_server.set_state({"reflect": True, "require_header": header})
        mcp_server.ensure_running()
        space = await keys.space("alpha")
        registered = (
            await gql.execute(
                REGISTER_MCP_SERVER,
                {
                    "input": {
                        "name": fresh("reflect"),
                        "transport": "STREAMABLE_HTTP",
                        "url": mcp_server.url,
                        "auth": auth,
                    }
                },
            )
        )["registerMcpServer"]
        assert registered["userErrors"] == []
        server_id = registered["mcpServer"]["id"]
        synced = (await gql.execute(SYNC_MCP_SERVER, {"id": server_id}))["syncMcpServer"]
        assert synced["userErrors"] == [] and synced["mcpServer"]["lastError"] is None

        result = await invoke(gql, space.id, f"{server_id}__reflect_headers", {})
        error = await invoke(gql, space.id, f"{server_id}__reflect_headers_error", {})

        assert result["status"] == "SUCCESS", result["error"]
        assert result["data"]["headers"][header[0].lower()] == shown_as
        assert error["status"] == "FAILED" and error["error"]["code"] == "MCP_ERROR"
        assert f"{header[0].lower()}: {shown_as}" in json.dumps(error["error"])
        for envelope in (result, error):
            assert LEAKY_SECRET not in json.dumps(envelope)
            assert LEAKY_SECRET not in json.dumps(await stored_call(gql, envelope["call"]["id"]))
        assert LEAKY_SECRET not in captured(caplog)
