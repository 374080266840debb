"""CUSTOM tools against a real HTTP server on loopback: the POST, credentials, responses,
timeouts, retries and the egress policy."""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from app.logging import JsonFormatter
from app.principal import SYSTEM_PRINCIPAL
from app.scheduling import LOOP_SHARE
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import (
    TOOL_CALLS,
    SessionFactory,
    fresh,
    http_tool,
    invoke,
    set_tool_columns,
)
from tests.schema.tools.operations import (
    CREATE_TOOL,
    GET_TOOL,
    UPDATE_TOOL,
    create_tool_errors,
    tool_input,
)
from tests.support.http_tool_server import (
    API_KEY_SECRET,
    BEARER_SECRET,
    HEADER_SECRET,
    OAUTH_CLIENT_SECRET,
    ToolServer,
    running_tool_server,
)


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


@pytest.fixture(scope="module")
def blocked_server() -> Iterator[ToolServer]:
    """The same server on 127.0.0.2: loopback, but not in the test settings' allow-list."""
    with running_tool_server("127.0.0.2") as server:
        yield server


def oauth(server: ToolServer, client_id: str, secret: str = OAUTH_CLIENT_SECRET) -> dict[str, Any]:
    return {
        "type": "OAUTH_CLIENT_CREDENTIALS",
        "tokenUrl": server.url("/token"),
        "clientId": client_id,
        "secret": secret,
    }


class TestRequest:
    async def test_arguments_are_posted_as_json(self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer) -> None:
        space = await keys.space("alpha")
        key = fresh("post")
        tool = await http_tool(gql, tool_server, f"/ok/{key}")
        arguments = {"q": "café", "nested": {"list": [1, 2.5, None, True]}}

        envelope = await invoke(gql, space.id, tool["id"], arguments)

        assert envelope["status"] == "SUCCESS", envelope["error"]
        assert envelope["data"]["received"] == arguments
        [received] = await tool_server.requests("ok", key)
        assert received["body"] == arguments
        assert received["headers"]["content-type"] == "application/json"
        assert received["headers"]["x-quiver-trace-id"] == envelope["traceId"]
        assert "idempotency-key" not in received["headers"]
        assert "authorization" not in received["headers"]


class TestCredentials:
    @pytest.mark.parametrize(
        ("auth", "scheme", "header", "value"),
        [
            (
                {"type": "API_KEY", "headerName": "X-Api-Key", "secret": API_KEY_SECRET},
                "api-key",
                "x-api-key",
                API_KEY_SECRET,
            ),
            (
                {"type": "HEADER", "headerName": "X-Tool-Secret", "secret": HEADER_SECRET},
                "header",
                "x-tool-secret",
                HEADER_SECRET,
            ),
            ({"type": "BEARER", "secret": BEARER_SECRET}, "bearer", "authorization", f"Bearer {BEARER_SECRET}"),
        ],
    )
    async def test_static_credentials_are_sent(
        self,
        gql: GraphQLClient,
        keys: Keys,
        tool_server: ToolServer,
        auth: dict[str, Any],
        scheme: str,
        header: str,
        value: str,
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("auth")
        tool = await http_tool(gql, tool_server, f"/auth-check/{scheme}/{key}", auth=auth)
        assert tool["authType"] == auth["type"]

        envelope = await invoke(gql, space.id, tool["id"], {"q": "x"})

        assert envelope["status"] == "SUCCESS", envelope["error"]
        assert envelope["data"] == {"authorized": True, "scheme": scheme}
        [received] = await tool_server.requests(f"auth-check/{scheme}", key)
        assert received["headers"][header] == value

    async def test_wrong_credentials_are_an_external_api_error(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        tool = await http_tool(
            gql, tool_server, f"/auth-check/bearer/{fresh('auth')}", auth={"type": "BEARER", "secret": "wrong"}
        )

        envelope = await invoke(gql, space.id, tool["id"], {})

        assert envelope["error"]["code"] == "EXTERNAL_API_ERROR"
        assert "401" in envelope["error"]["detail"]

    async def test_oauth_token_is_fetched_once_and_cached(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        client_id = fresh("client")
        key = fresh("oauth")
        tool = await http_tool(gql, tool_server, f"/oauth/protected/{key}", auth=oauth(tool_server, client_id))

        envelopes = [await invoke(gql, space.id, tool["id"], {"n": number}) for number in range(3)]

        assert [envelope["status"] for envelope in envelopes] == ["SUCCESS"] * 3
        assert all(envelope["data"] == {"client": client_id} for envelope in envelopes)
        assert await tool_server.tokens_issued(client_id) == 1
        tokens = {entry["headers"]["authorization"] for entry in await tool_server.requests("oauth/protected", key)}
        assert len(tokens) == 1

    async def test_revoked_token_is_replaced_once_after_a_401(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        client_id = fresh("client")
        key = fresh("oauth")
        tool = await http_tool(gql, tool_server, f"/oauth/protected/{key}", auth=oauth(tool_server, client_id))
        assert (await invoke(gql, space.id, tool["id"], {}))["status"] == "SUCCESS"

        await tool_server.revoke_token(client_id)
        after_revocation = await invoke(gql, space.id, tool["id"], {})
        next_call = await invoke(gql, space.id, tool["id"], {})

        assert after_revocation["status"] == "SUCCESS", after_revocation["error"]
        assert after_revocation["call"]["attempts"] == 1
        assert next_call["status"] == "SUCCESS"
        assert await tool_server.tokens_issued(client_id) == 2
        seen = [entry["headers"]["authorization"] for entry in await tool_server.requests("oauth/protected", key)]
        # first call, the revoked token (401), the new token, the next call with the new token cached
        assert len(seen) == 4
        assert seen[0] == seen[1] != seen[2] == seen[3]
        # (the server is shared by the module's tests on every backend: this client's count only)
        assert (await tool_server.state())["rejected"].get(client_id) == 1

    async def test_refused_client_credentials_are_an_external_api_error(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        client_id = fresh("client")
        key = fresh("oauth")
        tool = await http_tool(
            gql, tool_server, f"/oauth/protected/{key}", auth=oauth(tool_server, client_id, secret="not-the-secret")
        )

        envelope = await invoke(gql, space.id, tool["id"], {})

        assert envelope["error"]["code"] == "EXTERNAL_API_ERROR"
        assert "401" in envelope["error"]["detail"]
        assert await tool_server.requests("oauth/protected", key) == []

    async def test_cached_token_is_not_lent_to_a_tool_with_another_secret(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        client_id = fresh("client")
        owner = await http_tool(
            gql, tool_server, f"/oauth/protected/{fresh('oauth')}", auth=oauth(tool_server, client_id)
        )
        assert (await invoke(gql, space.id, owner["id"], {}))["status"] == "SUCCESS"
        key = fresh("borrower")
        borrower = await http_tool(
            gql, tool_server, f"/ok/{key}", auth=oauth(tool_server, client_id, secret="not-the-secret")
        )

        envelope = await invoke(gql, space.id, borrower["id"], {})

        # The token endpoint refuses the borrower's secret: no token reaches its endpoint.
        assert await tool_server.requests("ok", key) == []
        assert envelope["error"] is not None
        assert envelope["error"]["code"] == "EXTERNAL_API_ERROR"

    async def test_secrets_never_leave_the_platform(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, caplog: pytest.LogCaptureFixture
    ) -> None:
        for logger_name in ("", "quiver", "httpx", "httpcore", "sqlalchemy.engine", "strawberry"):
            caplog.set_level(logging.DEBUG, logger=logger_name)
        space = await keys.space("alpha")
        client_id = fresh("client")
        key = fresh("secret")
        configurations = [
            ("auth-check/api-key", {"type": "API_KEY", "headerName": "X-Api-Key", "secret": API_KEY_SECRET}, "SUCCESS"),
            (
                "auth-check/header",
                {"type": "HEADER", "headerName": "X-Tool-Secret", "secret": HEADER_SECRET},
                "SUCCESS",
            ),
            ("auth-check/bearer", {"type": "BEARER", "secret": BEARER_SECRET}, "SUCCESS"),
            ("oauth/protected", oauth(tool_server, client_id), "SUCCESS"),
            # A failed call carries a detail: still without the secret.
            ("error500", {"type": "BEARER", "secret": BEARER_SECRET}, "FAILED"),
        ]
        responses: list[str] = []
        traces: list[str] = []
        for path, auth, status in configurations:
            created = await gql.raw(
                CREATE_TOOL,
                {
                    "input": tool_input(
                        fresh("secret_tool"), endpoint=tool_server.url(f"/{path}/{key}"), auth=auth, maxRetries=0
                    )
                },
            )
            responses.append(created.text)
            tool = created.json()["data"]["createTool"]["tool"]
            invoked = await invoke(gql, space.id, tool["id"], {"q": "x"})
            assert invoked["status"] == status, invoked["error"]
            responses.append(json.dumps(invoked))
            traces.append(invoked["traceId"])
            responses.append((await gql.raw(GET_TOOL, {"id": tool["id"]})).text)
            responses.append((await gql.raw(TOOL_CALLS, {"filter": {"toolId": tool["id"]}})).text)

        # The server did receive every credential, so the checks below are not vacuous.
        state = json.dumps(await tool_server.state())
        for secret in (API_KEY_SECRET, HEADER_SECRET, BEARER_SECRET):
            assert secret in state
        assert await tool_server.tokens_issued(client_id) == 1
        logged = [record.getMessage() for record in caplog.records]
        logged += [JsonFormatter().format(record) for record in caplog.records]
        logged.append(caplog.text)
        assert any(trace in line for trace in traces for line in logged), "the calls were not logged at all"
        for secret in (API_KEY_SECRET, HEADER_SECRET, BEARER_SECRET, OAUTH_CLIENT_SECRET):
            for response in responses:
                assert secret not in response
            for line in logged:
                assert secret not in line


class TestResponses:
    async def test_non_2xx_is_an_external_api_error_with_the_status(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        tool = await http_tool(gql, tool_server, f"/error500/{fresh('err')}", maxRetries=0)

        envelope = await invoke(gql, space.id, tool["id"], {})

        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "EXTERNAL_API_ERROR"
        assert "500" in envelope["error"]["detail"]
        assert "500" in envelope["error"]["message"]
        assert envelope["data"] is None

    async def test_non_json_body_comes_back_as_text(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        tool = await http_tool(gql, tool_server, f"/text/{fresh('text')}")

        envelope = await invoke(gql, space.id, tool["id"], {})

        assert envelope["status"] == "SUCCESS", envelope["error"]
        assert envelope["data"] == "plain text, not JSON"
        assert envelope["call"]["result"] == "plain text, not JSON"

    @pytest.mark.parametrize("endpoint", ["big", "big-stream"])
    async def test_response_over_one_megabyte_is_refused(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, endpoint: str
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("big")
        tool = await http_tool(gql, tool_server, f"/{endpoint}/{key}")

        envelope = await invoke(gql, space.id, tool["id"], {})

        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "RESPONSE_TOO_LARGE"
        assert envelope["call"]["result"] is None
        # Not a transient failure: not retried.
        assert envelope["call"]["attempts"] == 1
        assert len(await tool_server.requests(endpoint, key)) == 1

    async def test_redirect_is_not_followed(self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer) -> None:
        space = await keys.space("alpha")
        key = fresh("redirect")
        tool = await http_tool(gql, tool_server, f"/redirect/{key}")

        envelope = await invoke(gql, space.id, tool["id"], {})

        assert envelope["error"]["code"] == "EXTERNAL_API_ERROR"
        assert "302" in envelope["error"]["detail"]
        assert len(await tool_server.requests("redirect", key)) == 1
        assert await tool_server.requests("ok", key) == []

    async def test_slow_endpoint_times_out(self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer) -> None:
        space = await keys.space("alpha")
        tool = await http_tool(gql, tool_server, f"/slow/{fresh('slow')}?seconds=3", timeoutMs=300, maxRetries=0)

        envelope = await invoke(gql, space.id, tool["id"], {})

        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "EXTERNAL_API_TIMEOUT"
        assert 250 <= envelope["latencyMs"] < 2000
        assert envelope["call"]["attempts"] == 1

    async def test_unreachable_endpoint_is_an_external_api_error(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            closed_port = probe.getsockname()[1]
        tool = await create_tool_for_url(gql, f"http://127.0.0.1:{closed_port}/nothing", maxRetries=0)

        envelope = await invoke(gql, space.id, tool["id"], {})

        assert envelope["error"]["code"] == "EXTERNAL_API_ERROR"
        assert envelope["error"]["detail"]


async def create_tool_for_url(gql: GraphQLClient, url: str, **overrides: Any) -> dict[str, Any]:
    payload = await gql.execute(CREATE_TOOL, {"input": tool_input(fresh("url_tool"), endpoint=url, **overrides)})
    assert payload["createTool"]["userErrors"] == [], payload
    tool: dict[str, Any] = payload["createTool"]["tool"]
    return tool


class TestRetries:
    async def test_read_tool_is_retried_after_a_5xx(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("retry")
        tool = await http_tool(gql, tool_server, f"/fails-once/{key}", sideEffect="READ", maxRetries=1)

        envelope = await invoke(gql, space.id, tool["id"], {"q": "x"})

        assert envelope["status"] == "SUCCESS", envelope["error"]
        assert envelope["call"]["attempts"] == 2
        assert len(await tool_server.requests("fails-once", key)) == 2

    async def test_read_tool_gives_up_after_its_retries(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("retry")
        tool = await http_tool(gql, tool_server, f"/error500/{key}", sideEffect="READ", maxRetries=2)

        envelope = await invoke(gql, space.id, tool["id"], {})

        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "EXTERNAL_API_ERROR"
        assert envelope["call"]["attempts"] == 3
        assert len(await tool_server.requests("error500", key)) == 3

    async def test_read_tool_is_retried_after_a_timeout(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("retry")
        tool = await http_tool(gql, tool_server, f"/slow/{key}?seconds=2", timeoutMs=200, maxRetries=1)

        envelope = await invoke(gql, space.id, tool["id"], {})

        assert envelope["error"]["code"] == "EXTERNAL_API_TIMEOUT"
        assert envelope["call"]["attempts"] == 2
        assert len(await tool_server.requests("slow", key)) == 2

    async def test_client_errors_are_not_retried(self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer) -> None:
        space = await keys.space("alpha")
        key = fresh("retry")
        tool = await http_tool(gql, tool_server, f"/auth-check/bearer/{key}", maxRetries=3)

        envelope = await invoke(gql, space.id, tool["id"], {})

        assert envelope["error"]["code"] == "EXTERNAL_API_ERROR"
        assert envelope["call"]["attempts"] == 1
        assert len(await tool_server.requests("auth-check/bearer", key)) == 1

    async def test_write_tool_without_idempotency_key_is_not_retried(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("retry")
        tool = await http_tool(gql, tool_server, f"/fails-once/{key}", sideEffect="WRITE", maxRetries=2)

        envelope = await invoke(gql, space.id, tool["id"], {"q": "x"})

        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "EXTERNAL_API_ERROR"
        assert envelope["call"]["attempts"] == 1
        assert len(await tool_server.requests("fails-once", key)) == 1

    async def test_write_tool_with_idempotency_key_is_retried_with_the_key(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("retry")
        idempotency_key = fresh("idem")
        tool = await http_tool(gql, tool_server, f"/fails-once/{key}", sideEffect="WRITE", maxRetries=1)

        envelope = await invoke(gql, space.id, tool["id"], {"q": "x"}, idempotency_key=idempotency_key)

        assert envelope["status"] == "SUCCESS", envelope["error"]
        assert envelope["call"]["attempts"] == 2
        assert envelope["call"]["idempotencyKey"] == idempotency_key
        received = await tool_server.requests("fails-once", key)
        assert [entry["headers"].get("idempotency-key") for entry in received] == [idempotency_key] * 2
        assert [entry["body"] for entry in received] == [{"q": "x"}] * 2

    async def test_an_idempotency_key_a_header_cannot_carry_is_sent_percent_encoded(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        # A Chinese key (订单-7-张伟) went into the Idempotency-Key header as raw UTF-8 bytes, a
        # control character as itself: what the upstream read depended on its HTTP parser (some
        # refuse the request). The header holds printable ASCII only; the key itself is unchanged.
        space = await keys.space("alpha")
        key = fresh("zh-idem")
        tool = await http_tool(gql, tool_server, f"/ok/{key}", sideEffect="WRITE")
        sent = {"订单-7-张伟😀": "%E8%AE%A2%E5%8D%95-7-%E5%BC%A0%E4%BC%9F%F0%9F%98%80", "k\x01x y": "k%01x%20y"}
        for idempotency_key in sent:
            envelope = await invoke(gql, space.id, tool["id"], {"q": "x"}, idempotency_key=idempotency_key)
            assert envelope["status"] == "SUCCESS", envelope["error"]
            assert envelope["call"]["idempotencyKey"] == idempotency_key
        received = await tool_server.requests("ok", key)
        assert [entry["headers"].get("idempotency-key") for entry in received] == list(sent.values())


FORBIDDEN_URLS = [
    "http://127.0.0.2:8080/ok",
    "http://10.1.2.3/tool",
    "http://192.168.1.10/tool",
    "http://172.16.0.5/tool",
    "http://169.254.169.254/latest/meta-data",
    "http://100.100.100.200/latest",
    "http://[::1]:8080/tool",
    "http://[::ffff:127.0.0.2]/tool",
    "http://0.0.0.0:8080/tool",
]


class TestEgress:
    @pytest.mark.parametrize("url", FORBIDDEN_URLS)
    async def test_forbidden_network_is_refused_at_creation(self, gql: GraphQLClient, url: str) -> None:
        errors = await create_tool_errors(gql, fresh("egress"), endpoint=url)

        assert [error["code"] for error in errors] == ["EGRESS_DENIED"]
        assert errors[0]["field"] == ["input", "endpoint"]

    async def test_loopback_outside_the_allow_list_is_refused_at_creation_and_update(
        self, gql: GraphQLClient, tool_server: ToolServer, blocked_server: ToolServer
    ) -> None:
        key = fresh("egress")
        errors = await create_tool_errors(gql, fresh("egress"), endpoint=blocked_server.url(f"/ok/{key}"))
        tool = await http_tool(gql, tool_server, f"/ok/{key}")
        updated = (
            await gql.execute(UPDATE_TOOL, {"input": {"id": tool["id"], "endpoint": blocked_server.url(f"/ok/{key}")}})
        )["updateTool"]

        assert [error["code"] for error in errors] == ["EGRESS_DENIED"]
        assert [error["code"] for error in updated["userErrors"]] == ["EGRESS_DENIED"]

    async def test_endpoint_forced_in_the_database_is_refused_at_call_time(
        self,
        gql: GraphQLClient,
        keys: Keys,
        tool_server: ToolServer,
        blocked_server: ToolServer,
        session_factory: SessionFactory,
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("egress")
        tool = await http_tool(gql, tool_server, f"/ok/{key}")
        await set_tool_columns(session_factory, tool["id"], endpoint=blocked_server.url(f"/ok/{key}"))

        envelope = await invoke(gql, space.id, tool["id"], {})

        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "EGRESS_DENIED"
        assert "127.0.0.2" in envelope["error"]["detail"]
        assert envelope["call"]["attempts"] == 1
        assert await blocked_server.requests("ok", key) == []
        assert await tool_server.requests("ok", key) == []

    async def test_oauth_token_url_obeys_the_egress_policy(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, blocked_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        client_id = fresh("client")
        payload = (
            await gql.execute(
                CREATE_TOOL,
                {
                    "input": tool_input(
                        fresh("egress"),
                        endpoint=tool_server.url(f"/oauth/protected/{fresh('egress')}"),
                        auth=oauth(blocked_server, client_id),
                    )
                },
            )
        )["createTool"]
        if payload["tool"] is not None:
            envelope = await invoke(gql, space.id, payload["tool"]["id"], {})
            # The client secret was never sent to the forbidden host, and the call says why.
            assert await blocked_server.tokens_issued(client_id) == 0
            assert envelope["error"] is not None
            assert envelope["error"]["code"] == "EGRESS_DENIED"
        else:
            assert [error["code"] for error in payload["userErrors"]] == ["EGRESS_DENIED"]


class RecordedShare:
    """Stands in for a request's place in its tenant's share (app.scheduling.LOOP_SHARE)."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def pause(self) -> None:
        self.events.append("pause")

    def resume(self) -> None:
        self.events.append("resume")


class TestLoopShare:
    async def test_the_upstream_wait_gives_the_share_up_a_builtin_does_not(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, app_and_services: Any
    ) -> None:
        space = await keys.space("share")
        key = fresh("share")
        tool = await http_tool(gql, tool_server, f"/ok/{key}")
        gateway = app_and_services.state.services.gateway
        share = RecordedShare()
        token = LOOP_SHARE.set(share)
        try:
            custom = await gateway.execute(SYSTEM_PRINCIPAL, space.id, tool["id"], {"q": "one"})
            assert custom.status == "SUCCESS", custom.error
            assert share.events == ["pause", "resume"]
            builtin = await gateway.execute(SYSTEM_PRINCIPAL, space.id, "bt_calculator", {"expression": "1 + 1"})
            assert builtin.status == "SUCCESS"
            assert share.events == ["pause", "resume"]  # CPU-bound: it keeps counting
        finally:
            LOOP_SHARE.reset(token)
        assert len(await tool_server.requests("ok", key)) == 1
