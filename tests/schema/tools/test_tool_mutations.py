"""createTool, updateTool, setSpaceBindings, registerMcpServer and setStatus on tools,
through HTTP like a client."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.crypto import SecretBox
from app.principal import Role
from app.tools.models import McpServer, ToolDefinition
from tests.app.tools.factories import insert_rows, mcp_server_row, mcp_tool_row
from tests.conftest import TEST_SECRET_KEY, GraphQLClient, Keys
from tests.schema.tools.operations import (
    CREATE_TOOL,
    GET_TOOL,
    REGISTER_MCP_SERVER,
    SET_STATUS,
    TOOL_FIELDS,
    UPDATE_TOOL,
    create_tool,
    create_tool_errors,
    get_tool,
    set_bindings,
    tool_input,
    visible_tool_ids,
)

SessionFactory = async_sessionmaker[AsyncSession]
SECRET = "s3cr3t-value"


def codes(errors: list[dict[str, Any]]) -> list[tuple[str, list[str] | None]]:
    return [(error["code"], error["field"]) for error in errors]


async def update_tool(gql: GraphQLClient, tool_id: str, **changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = (await gql.execute(UPDATE_TOOL, {"input": {"id": tool_id, **changes}}))["updateTool"]
    return payload


async def tool_ids_named(session_factory: SessionFactory, name: str) -> list[str]:
    async with session_factory() as session:
        rows = await session.scalars(select(ToolDefinition.tool_id).where(ToolDefinition.name == name))
        return list(rows.all())


@pytest.fixture
async def spaces(keys: Keys) -> dict[str, str]:
    return {name: (await keys.space(name)).id for name in ("alpha", "beta", "gamma")}


@pytest.fixture
async def mcp_server(session_factory: SessionFactory) -> dict[str, Any]:
    """A global MCP server with two discovered tools (discovery itself comes later)."""
    server = mcp_server_row("weather-mcp")
    tools = [mcp_tool_row(server["id"], "forecast"), mcp_tool_row(server["id"], "alerts")]
    await insert_rows(session_factory, servers=[server], tools=tools)
    return {"id": server["id"], "tool_ids": [tool["tool_id"] for tool in tools]}


class TestCreateToolByAdmin:
    async def test_without_space_ids_the_tool_is_global(self, gql: GraphQLClient, spaces: dict[str, str]) -> None:
        tool = await create_tool(gql, "lookup_order")

        assert tool["id"].startswith("ct_")
        assert (tool["type"], tool["status"], tool["isGlobal"], tool["boundSpaces"]) == (
            "CUSTOM",
            "ACTIVE",
            True,
            [],
        )
        assert tool["mcpServer"] is None
        for space_id in spaces.values():
            assert tool["id"] in await visible_tool_ids(gql, space_id)

    async def test_with_space_ids_the_tool_is_bound_to_those_spaces(
        self, gql: GraphQLClient, spaces: dict[str, str]
    ) -> None:
        tool = await create_tool(gql, "lookup_order", spaceIds=[spaces["alpha"], spaces["beta"]])

        assert tool["isGlobal"] is False
        assert sorted(space["id"] for space in tool["boundSpaces"]) == sorted([spaces["alpha"], spaces["beta"]])
        assert tool["id"] in await visible_tool_ids(gql, spaces["alpha"])
        assert tool["id"] in await visible_tool_ids(gql, spaces["beta"])
        assert tool["id"] not in await visible_tool_ids(gql, spaces["gamma"])

    async def test_input_fields_are_stored(self, gql: GraphQLClient) -> None:
        tool = await create_tool(
            gql,
            "refund",
            outputSchema={"type": "object"},
            sideEffect="WRITE",
            timeoutMs=2500,
            maxRetries=0,
            tags=["billing", "orders"],
            group="finance",
            allowedRoles=["SPACE_ADMIN"],
            version="2.1.0",
            owner="payments-team",
        )

        stored = await get_tool(gql, tool["id"])
        assert stored is not None
        expected = {
            "name": "refund",
            "label": "Refund",
            "description": "Does refund.",
            "inputSchema": tool_input("refund")["inputSchema"],
            "outputSchema": {"type": "object"},
            "endpoint": "https://tools.example.test/refund",
            "authType": "NONE",
            "sideEffect": "WRITE",
            "timeoutMs": 2500,
            "maxRetries": 0,
            "tags": ["billing", "orders"],
            "group": "finance",
            "allowedRoles": ["SPACE_ADMIN"],
            "version": "2.1.0",
            "owner": "payments-team",
        }
        assert {key: stored[key] for key in expected} == expected

    async def test_unknown_space_id_is_not_found_naming_it(
        self, gql: GraphQLClient, session_factory: SessionFactory, spaces: dict[str, str]
    ) -> None:
        errors = await create_tool_errors(gql, "lookup_order", spaceIds=[spaces["alpha"], "sp_missing"])

        assert codes(errors) == [("NOT_FOUND", ["input", "spaceIds"])]
        assert "sp_missing" in errors[0]["message"]
        assert await tool_ids_named(session_factory, "lookup_order") == []


class TestCreateToolBySpaceAdmin:
    async def test_tool_is_bound_to_its_own_space(self, gql: GraphQLClient, keys: Keys, spaces: dict[str, str]) -> None:
        space_admin = gql.as_key(await keys.for_space(spaces["alpha"], Role.SPACE_ADMIN))

        tool = await create_tool(space_admin, "crm_lookup")

        assert tool["isGlobal"] is False
        assert [space["id"] for space in tool["boundSpaces"]] == [spaces["alpha"]]
        assert tool["id"] in await visible_tool_ids(gql, spaces["alpha"])
        assert tool["id"] not in await visible_tool_ids(gql, spaces["beta"])

    async def test_space_ids_of_its_own_space_are_accepted(
        self, gql: GraphQLClient, keys: Keys, spaces: dict[str, str]
    ) -> None:
        space_admin = gql.as_key(await keys.for_space(spaces["alpha"], Role.SPACE_ADMIN))

        tool = await create_tool(space_admin, "crm_lookup", spaceIds=[spaces["alpha"]])

        assert [space["id"] for space in tool["boundSpaces"]] == [spaces["alpha"]]

    async def test_space_ids_of_another_space_are_not_found(
        self,
        gql: GraphQLClient,
        keys: Keys,
        spaces: dict[str, str],
        session_factory: SessionFactory,
    ) -> None:
        space_admin = gql.as_key(await keys.for_space(spaces["alpha"], Role.SPACE_ADMIN))

        errors = await create_tool_errors(space_admin, "crm_lookup", spaceIds=[spaces["beta"]])

        assert codes(errors) == [("NOT_FOUND", ["input", "spaceIds"])]
        assert spaces["beta"] in errors[0]["message"]
        assert await tool_ids_named(session_factory, "crm_lookup") == []

    @pytest.mark.parametrize("role", [Role.MEMBER, Role.VIEWER])
    async def test_member_and_viewer_keys_are_forbidden(
        self,
        gql: GraphQLClient,
        keys: Keys,
        spaces: dict[str, str],
        session_factory: SessionFactory,
        role: Role,
    ) -> None:
        member = gql.as_key(await keys.for_space(spaces["alpha"], role))

        errors = await create_tool_errors(member, "crm_lookup")

        assert [error["code"] for error in errors] == ["FORBIDDEN"]
        assert await tool_ids_named(session_factory, "crm_lookup") == []


class TestCreateToolInputErrors:
    async def test_input_schema_invalid_against_the_2020_12_meta_schema(
        self, gql: GraphQLClient, session_factory: SessionFactory
    ) -> None:
        errors = await create_tool_errors(gql, "bad_schema", inputSchema={"type": 12})

        assert codes(errors) == [("INVALID_SCHEMA", ["input", "inputSchema"])]
        assert await tool_ids_named(session_factory, "bad_schema") == []

    @pytest.mark.parametrize(
        "schema",
        [{"type": "string"}, {"type": "array", "items": {}}, {"properties": {"q": {}}}, [1, 2]],
        ids=["string", "array", "no-type", "not-a-json-object"],
    )
    async def test_input_schema_that_is_not_an_object_schema(self, gql: GraphQLClient, schema: Any) -> None:
        errors = await create_tool_errors(gql, "bad_schema", inputSchema=schema)

        assert codes(errors) == [("INVALID_SCHEMA", ["input", "inputSchema"])]

    async def test_schema_size_counts_chinese_characters_once(self, gql: GraphQLClient) -> None:
        # The bound (100,000 characters of JSON) was measured on ASCII-escaped JSON, where each
        # Chinese character is six: 20,000 characters of Chinese descriptions were refused.
        cities = {
            f"城市{index}": {"type": "string", "description": "中国城市的名称与行政区划说明" * 3}
            for index in range(450)
        }
        schema = {"type": "object", "properties": cities}
        assert 20_000 < len(json.dumps(schema, ensure_ascii=False)) < 100_000

        tool = await create_tool(gql, "cities", inputSchema=schema)

        assert set(tool["inputSchema"]["properties"]) == set(cities)
        bigger = {"type": "object", "properties": {"说明": {"description": "长" * 100_000}}}
        errors = await create_tool_errors(gql, "too_big", inputSchema=bigger)
        assert codes(errors) == [("INVALID_SCHEMA", ["input", "inputSchema"])]

    async def test_output_schema_invalid(self, gql: GraphQLClient) -> None:
        errors = await create_tool_errors(gql, "bad_output", outputSchema={"type": 12})

        assert codes(errors) == [("INVALID_SCHEMA", ["input", "outputSchema"])]

    @pytest.mark.parametrize(
        "name",
        ["", "has space", "dotted.name", "x" * 65, "émoji", "semi;colon", "slash/name"],
        ids=["empty", "space", "dot", "too-long", "non-ascii", "semicolon", "slash"],
    )
    async def test_name_outside_the_pattern(self, gql: GraphQLClient, name: str) -> None:
        errors = await create_tool_errors(gql, name)

        assert codes(errors) == [("INVALID_NAME", ["input", "name"])]

    @pytest.mark.parametrize("name", ["x" * 64, "A-b_9", "0"], ids=["64-chars", "mixed", "one-digit"])
    async def test_names_inside_the_pattern_are_accepted(self, gql: GraphQLClient, name: str) -> None:
        tool = await create_tool(gql, name)

        assert tool["name"] == name

    @pytest.mark.parametrize(
        "endpoint",
        ["ftp://files.example.test/x", "not a url", "http://", "/relative/path", "javascript:alert(1)"],
    )
    async def test_endpoint_that_is_not_an_http_url(self, gql: GraphQLClient, endpoint: str) -> None:
        errors = await create_tool_errors(gql, "bad_endpoint", endpoint=endpoint)

        assert codes(errors) == [("INVALID_URL", ["input", "endpoint"])]

    @pytest.mark.parametrize(
        ("auth", "missing"),
        [
            ({"type": "BEARER"}, "secret"),
            ({"type": "BEARER", "secret": ""}, "secret"),
            ({"type": "API_KEY", "secret": "k"}, "headerName"),
            ({"type": "API_KEY", "headerName": "X-Api-Key"}, "secret"),
            ({"type": "HEADER", "headerName": "X-Token"}, "secret"),
            (
                {"type": "OAUTH_CLIENT_CREDENTIALS", "clientId": "c", "secret": "s"},
                "tokenUrl",
            ),
            (
                {"type": "OAUTH_CLIENT_CREDENTIALS", "tokenUrl": "https://id.example.test/token", "secret": "s"},
                "clientId",
            ),
        ],
        ids=["bearer", "bearer-empty", "api-key-header", "api-key-secret", "header", "oauth-url", "oauth-client"],
    )
    async def test_auth_config_missing_a_required_part(
        self, gql: GraphQLClient, auth: dict[str, Any], missing: str
    ) -> None:
        errors = await create_tool_errors(gql, "needs_auth", auth=auth)

        assert codes(errors) == [("INVALID_AUTH", ["input", "auth", missing])]

    @pytest.mark.parametrize(
        "header",
        [
            "Host",
            "host",
            "Content-Length",
            "Transfer-Encoding",
            "Connection",
            "Proxy-Authorization",
            "TE",
            "Upgrade",
            "Idempotency-Key",
            "X-Quiver-Trace-Id",
            "Bad Header",
            "X-Ünïcode",
            "X\r\nInjected: 1",
        ],
    )
    async def test_reserved_or_malformed_header_names_are_refused(self, gql: GraphQLClient, header: str) -> None:
        for auth_type in ("API_KEY", "HEADER"):
            errors = await create_tool_errors(
                gql, "reserved_header", auth={"type": auth_type, "headerName": header, "secret": "s"}
            )

            assert codes(errors) == [("INVALID_AUTH", ["input", "auth", "headerName"])]

    async def test_update_tool_refuses_a_reserved_header_too(self, gql: GraphQLClient) -> None:
        tool = await create_tool(gql, "header_update")

        payload = (
            await gql.execute(
                UPDATE_TOOL,
                {"input": {"id": tool["id"], "auth": {"type": "HEADER", "headerName": "Host", "secret": "s"}}},
            )
        )["updateTool"]

        assert codes(payload["userErrors"]) == [("INVALID_AUTH", ["input", "auth", "headerName"])]


class TestToolNameUniqueness:
    async def test_name_of_a_global_tool_is_taken_everywhere(self, gql: GraphQLClient, spaces: dict[str, str]) -> None:
        await create_tool(gql, "lookup")

        assert codes(await create_tool_errors(gql, "lookup")) == [("DUPLICATE", ["input", "name"])]
        errors = await create_tool_errors(gql, "lookup", spaceIds=[spaces["beta"]])
        assert codes(errors) == [("DUPLICATE", ["input", "name"])]

    async def test_name_of_a_global_builtin_is_taken(self, gql: GraphQLClient) -> None:
        errors = await create_tool_errors(gql, "calculator")

        assert codes(errors) == [("DUPLICATE", ["input", "name"])]

    async def test_name_used_in_the_same_space_is_taken(
        self, gql: GraphQLClient, keys: Keys, spaces: dict[str, str]
    ) -> None:
        await create_tool(gql, "lookup", spaceIds=[spaces["alpha"]])
        space_admin = gql.as_key(await keys.for_space(spaces["alpha"], Role.SPACE_ADMIN))

        errors = await create_tool_errors(space_admin, "lookup")

        assert codes(errors) == [("DUPLICATE", ["input", "name"])]

    async def test_name_bound_to_another_space_only_is_free(
        self, gql: GraphQLClient, keys: Keys, spaces: dict[str, str]
    ) -> None:
        first = await create_tool(gql, "lookup", spaceIds=[spaces["alpha"]])
        space_admin = gql.as_key(await keys.for_space(spaces["beta"], Role.SPACE_ADMIN))

        second = await create_tool(space_admin, "lookup")
        third = await create_tool(gql, "lookup", spaceIds=[spaces["gamma"]])

        assert len({first["id"], second["id"], third["id"]}) == 3

    async def test_restricted_builtin_name_is_free_outside_the_system_space(
        self, gql: GraphQLClient, spaces: dict[str, str]
    ) -> None:
        tool = await create_tool(gql, "send_message", spaceIds=[spaces["alpha"]])

        assert tool["name"] == "send_message"

    async def test_a_global_tool_clashes_with_a_name_bound_to_some_space(
        self, gql: GraphQLClient, spaces: dict[str, str]
    ) -> None:
        await create_tool(gql, "lookup", spaceIds=[spaces["alpha"]])

        errors = await create_tool_errors(gql, "lookup")

        assert codes(errors) == [("DUPLICATE", ["input", "name"])]

    async def test_name_of_an_archived_tool_can_be_reused(self, gql: GraphQLClient) -> None:
        old = await create_tool(gql, "lookup")
        archived = (await gql.execute(SET_STATUS, {"input": {"id": old["id"], "status": "ARCHIVED"}}))["setStatus"]
        assert archived["userErrors"] == []

        new = await create_tool(gql, "lookup")

        assert new["id"] != old["id"]


class TestSecretsAreWriteOnly:
    async def test_bearer_secret_is_never_returned_and_stored_encrypted(
        self,
        gql: GraphQLClient,
        keys: Keys,
        spaces: dict[str, str],
        session_factory: SessionFactory,
    ) -> None:
        response = await gql.raw(
            CREATE_TOOL,
            {"input": tool_input("secured", auth={"type": "BEARER", "secret": SECRET}, spaceIds=[spaces["alpha"]])},
        )
        assert SECRET not in response.text
        tool = response.json()["data"]["createTool"]["tool"]
        assert tool["authType"] == "BEARER"

        member = await keys.for_space(spaces["alpha"], Role.MEMBER)
        reads = [
            (GET_TOOL, {"id": tool["id"]}, None),
            (GET_TOOL, {"id": tool["id"]}, member),
            ("query Node($id: ID!) { node(id: $id) { id ...ToolFields } }" + TOOL_FIELDS, {"id": tool["id"]}, None),
            (
                "query Tools { tools(first: 100) { edges { node { ...ToolFields } } } }" + TOOL_FIELDS,
                {},
                None,
            ),
            (
                "query Visible($id: ID!) { space(id: $id) { visibleTools(first: 100) "
                "{ edges { node { ...ToolFields } } } } }" + TOOL_FIELDS,
                {"id": spaces["alpha"]},
                member,
            ),
        ]
        for query, variables, key in reads:
            response = await gql.raw(query, variables, key=key)
            assert response.status_code == 200
            assert "errors" not in response.json(), response.text
            assert tool["id"] in response.text
            assert SECRET not in response.text

        async with session_factory() as session:
            row = await session.get(ToolDefinition, tool["id"])
        assert row is not None and row.auth_config is not None
        assert SECRET not in row.auth_config
        assert SecretBox(TEST_SECRET_KEY.encode()).decrypt(row.auth_config)["secret"] == SECRET

    async def test_secret_given_on_update_is_not_echoed(
        self, gql: GraphQLClient, session_factory: SessionFactory
    ) -> None:
        tool = await create_tool(gql, "secured")

        response = await gql.raw(
            UPDATE_TOOL,
            {"input": {"id": tool["id"], "auth": {"type": "API_KEY", "headerName": "X-Key", "secret": SECRET}}},
        )

        assert SECRET not in response.text
        assert response.json()["data"]["updateTool"]["tool"]["authType"] == "API_KEY"
        async with session_factory() as session:
            row = await session.get(ToolDefinition, tool["id"])
        assert row is not None and row.auth_config is not None
        assert SECRET not in row.auth_config
        assert SecretBox(TEST_SECRET_KEY.encode()).decrypt(row.auth_config)["secret"] == SECRET

    async def test_mcp_server_secret_is_never_returned_and_stored_encrypted(
        self, gql: GraphQLClient, session_factory: SessionFactory
    ) -> None:
        response = await gql.raw(
            REGISTER_MCP_SERVER,
            {
                "input": {
                    "name": "secured-mcp",
                    "transport": "STREAMABLE_HTTP",
                    "url": "https://mcp.example.test/mcp",
                    "auth": {"type": "BEARER", "secret": SECRET},
                }
            },
        )

        assert SECRET not in response.text
        server = response.json()["data"]["registerMcpServer"]["mcpServer"]
        assert server["authType"] == "BEARER"
        async with session_factory() as session:
            row = await session.get(McpServer, server["id"])
        assert row is not None and row.auth_config is not None
        assert SECRET not in row.auth_config
        assert SecretBox(TEST_SECRET_KEY.encode()).decrypt(row.auth_config)["secret"] == SECRET


class TestUpdateTool:
    async def test_fields_of_a_custom_tool_change(self, gql: GraphQLClient) -> None:
        tool = await create_tool(gql, "lookup")
        changes = {
            "label": "Order lookup",
            "description": "Looks an order up by number.",
            "inputSchema": {"type": "object", "properties": {"number": {"type": "integer"}}},
            "outputSchema": {"type": "object"},
            "endpoint": "https://orders.example.test/lookup",
            "sideEffect": "WRITE",
            "timeoutMs": 1234,
            "maxRetries": 3,
            "tags": ["orders"],
            "group": "commerce",
            "allowedRoles": ["MEMBER"],
            "version": "1.1.0",
            "owner": "orders-team",
        }

        payload = await update_tool(gql, tool["id"], **changes)

        assert payload["userErrors"] == []
        stored = await get_tool(gql, tool["id"])
        assert stored is not None
        assert {key: stored[key] for key in changes} == changes
        assert stored["name"] == "lookup"

    async def test_omitted_fields_stay_as_they_are(self, gql: GraphQLClient) -> None:
        tool = await create_tool(gql, "lookup", tags=["keep"], group="kept")

        await update_tool(gql, tool["id"], timeoutMs=999)

        stored = await get_tool(gql, tool["id"])
        assert stored is not None
        assert (stored["tags"], stored["group"], stored["label"], stored["timeoutMs"]) == (
            ["keep"],
            "kept",
            tool["label"],
            999,
        )

    async def test_invalid_values_are_refused_and_nothing_changes(self, gql: GraphQLClient) -> None:
        tool = await create_tool(gql, "lookup")

        bad_schema = await update_tool(gql, tool["id"], inputSchema={"type": 12}, timeoutMs=777)
        bad_timeout = await update_tool(gql, tool["id"], timeoutMs=0)

        assert codes(bad_schema["userErrors"]) == [("INVALID_SCHEMA", ["input", "inputSchema"])]
        assert codes(bad_timeout["userErrors"]) == [("OUT_OF_RANGE", ["input", "timeoutMs"])]
        stored = await get_tool(gql, tool["id"])
        assert stored is not None
        assert stored["timeoutMs"] == tool["timeoutMs"]
        assert stored["inputSchema"] == tool["inputSchema"]

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("description", "A new description."),
            ("label", "New label"),
            ("inputSchema", {"type": "object"}),
            ("endpoint", "https://elsewhere.example.test/"),
        ],
    )
    async def test_builtin_tool_rejects_declared_fields_as_read_only(
        self, gql: GraphQLClient, field: str, value: Any
    ) -> None:
        before = await get_tool(gql, "bt_calculator")

        payload = await update_tool(gql, "bt_calculator", **{field: value})

        assert payload["tool"] is None
        assert codes(payload["userErrors"]) == [("READ_ONLY", ["input", field])]
        assert await get_tool(gql, "bt_calculator") == before

    async def test_builtin_tool_accepts_timeout_and_tags(self, gql: GraphQLClient) -> None:
        payload = await update_tool(gql, "bt_calculator", timeoutMs=3000, tags=["math", "money"])

        assert payload["userErrors"] == []
        stored = await get_tool(gql, "bt_calculator")
        assert stored is not None
        assert (stored["timeoutMs"], stored["tags"], stored["type"]) == (3000, ["math", "money"], "BUILTIN")

    async def test_mcp_tool_rejects_declared_fields_as_read_only(
        self, gql: GraphQLClient, mcp_server: dict[str, Any]
    ) -> None:
        payload = await update_tool(gql, mcp_server["tool_ids"][0], description="Changed.")

        assert codes(payload["userErrors"]) == [("READ_ONLY", ["input", "description"])]

    async def test_space_admin_updates_a_tool_of_its_own_space(
        self, gql: GraphQLClient, keys: Keys, spaces: dict[str, str]
    ) -> None:
        space_admin = gql.as_key(await keys.for_space(spaces["alpha"], Role.SPACE_ADMIN))
        tool = await create_tool(space_admin, "crm_lookup")

        payload = await update_tool(space_admin, tool["id"], description="Better words.")

        assert payload["userErrors"] == []
        assert payload["tool"]["description"] == "Better words."

    async def test_space_admin_cannot_see_a_tool_of_another_space(
        self, gql: GraphQLClient, keys: Keys, spaces: dict[str, str]
    ) -> None:
        other = gql.as_key(await keys.for_space(spaces["beta"], Role.SPACE_ADMIN))
        tool = await create_tool(other, "crm_lookup")
        space_admin = gql.as_key(await keys.for_space(spaces["alpha"], Role.SPACE_ADMIN))

        payload = await update_tool(space_admin, tool["id"], description="Hijacked.")

        assert codes(payload["userErrors"]) == [("NOT_FOUND", ["input", "id"])]
        stored = await get_tool(gql, tool["id"])
        assert stored is not None and stored["description"] == tool["description"]

    @pytest.mark.parametrize("target", ["admin_global", "builtin", "other_space_bound_here"])
    async def test_space_admin_cannot_change_a_visible_tool_it_does_not_own(
        self, gql: GraphQLClient, keys: Keys, spaces: dict[str, str], target: str
    ) -> None:
        if target == "admin_global":
            tool_id = (await create_tool(gql, "shared"))["id"]
        elif target == "builtin":
            tool_id = "bt_calculator"
        else:
            other = gql.as_key(await keys.for_space(spaces["beta"], Role.SPACE_ADMIN))
            tool_id = (await create_tool(other, "shared"))["id"]
            await set_bindings(gql, tool_id, [spaces["alpha"], spaces["beta"]])
        space_admin = gql.as_key(await keys.for_space(spaces["alpha"], Role.SPACE_ADMIN))
        before = await get_tool(gql, tool_id)

        payload = await update_tool(space_admin, tool_id, timeoutMs=4321)

        assert payload["tool"] is None
        assert codes(payload["userErrors"]) == [("FORBIDDEN", ["input", "id"])]
        assert await get_tool(gql, tool_id) == before

    async def test_member_cannot_change_a_tool_of_its_space(
        self, gql: GraphQLClient, keys: Keys, spaces: dict[str, str]
    ) -> None:
        space_admin = gql.as_key(await keys.for_space(spaces["alpha"], Role.SPACE_ADMIN))
        tool = await create_tool(space_admin, "crm_lookup")
        member = gql.as_key(await keys.for_space(spaces["alpha"], Role.MEMBER))

        payload = await update_tool(member, tool["id"], timeoutMs=4321)

        assert codes(payload["userErrors"]) == [("FORBIDDEN", ["input", "id"])]

    async def test_unknown_tool_is_not_found(self, gql: GraphQLClient) -> None:
        payload = await update_tool(gql, "ct_doesnotexist", timeoutMs=1000)

        assert codes(payload["userErrors"]) == [("NOT_FOUND", ["input", "id"])]
        assert "ct_doesnotexist" in payload["userErrors"][0]["message"]


def bound_ids(tool_or_server: dict[str, Any]) -> list[str]:
    return sorted(space["id"] for space in tool_or_server["boundSpaces"])


class TestSetSpaceBindings:
    async def test_space_admin_is_forbidden(self, gql: GraphQLClient, keys: Keys, spaces: dict[str, str]) -> None:
        space_admin = gql.as_key(await keys.for_space(spaces["alpha"], Role.SPACE_ADMIN))
        tool = await create_tool(space_admin, "crm_lookup")

        payload = await set_bindings(space_admin, tool["id"], [spaces["alpha"], spaces["beta"]])

        assert payload["tool"] is None and payload["mcpServer"] is None
        assert [error["code"] for error in payload["userErrors"]] == ["FORBIDDEN"]
        stored = await get_tool(gql, tool["id"])
        assert stored is not None and bound_ids(stored) == [spaces["alpha"]]

    async def test_replaces_every_binding(self, gql: GraphQLClient, spaces: dict[str, str]) -> None:
        tool = await create_tool(gql, "lookup", spaceIds=[spaces["alpha"], spaces["beta"]])

        payload = await set_bindings(gql, tool["id"], [spaces["gamma"]])

        assert payload["userErrors"] == []
        assert bound_ids(payload["tool"]) == [spaces["gamma"]]
        assert tool["id"] not in await visible_tool_ids(gql, spaces["alpha"])
        assert tool["id"] not in await visible_tool_ids(gql, spaces["beta"])
        assert tool["id"] in await visible_tool_ids(gql, spaces["gamma"])

    async def test_binds_a_global_tool(self, gql: GraphQLClient, spaces: dict[str, str]) -> None:
        tool = await create_tool(gql, "lookup")

        payload = await set_bindings(gql, tool["id"], [spaces["alpha"], spaces["beta"]])

        assert payload["tool"]["isGlobal"] is False
        assert bound_ids(payload["tool"]) == sorted([spaces["alpha"], spaces["beta"]])
        assert tool["id"] not in await visible_tool_ids(gql, spaces["gamma"])

    async def test_repeated_space_ids_bind_once(self, gql: GraphQLClient, spaces: dict[str, str]) -> None:
        tool = await create_tool(gql, "lookup")

        payload = await set_bindings(gql, tool["id"], [spaces["alpha"], spaces["alpha"]])

        assert payload["userErrors"] == []
        assert bound_ids(payload["tool"]) == [spaces["alpha"]]

    async def test_empty_list_makes_tool_global(self, gql: GraphQLClient, spaces: dict[str, str]) -> None:
        tool = await create_tool(gql, "lookup", spaceIds=[spaces["alpha"]])

        payload = await set_bindings(gql, tool["id"], [])

        assert payload["userErrors"] == []
        assert (payload["tool"]["isGlobal"], payload["tool"]["boundSpaces"]) == (True, [])
        stored = await get_tool(gql, tool["id"])
        assert stored is not None and (stored["isGlobal"], stored["boundSpaces"]) == (True, [])
        for space_id in spaces.values():
            assert tool["id"] in await visible_tool_ids(gql, space_id)

    async def test_unknown_space_is_not_found_and_nothing_changes(
        self, gql: GraphQLClient, spaces: dict[str, str]
    ) -> None:
        tool = await create_tool(gql, "lookup", spaceIds=[spaces["alpha"], spaces["beta"]])

        payload = await set_bindings(gql, tool["id"], [spaces["gamma"], "sp_nowhere"])

        assert payload["tool"] is None
        assert codes(payload["userErrors"]) == [("NOT_FOUND", ["input", "spaceIds"])]
        assert "sp_nowhere" in payload["userErrors"][0]["message"]
        stored = await get_tool(gql, tool["id"])
        assert stored is not None
        assert bound_ids(stored) == sorted([spaces["alpha"], spaces["beta"]])
        assert tool["id"] not in await visible_tool_ids(gql, spaces["gamma"])

    async def test_unknown_space_on_a_global_tool_leaves_it_global(
        self, gql: GraphQLClient, spaces: dict[str, str]
    ) -> None:
        tool = await create_tool(gql, "lookup")

        payload = await set_bindings(gql, tool["id"], ["sp_nowhere"])

        assert codes(payload["userErrors"]) == [("NOT_FOUND", ["input", "spaceIds"])]
        stored = await get_tool(gql, tool["id"])
        assert stored is not None and stored["isGlobal"] is True

    async def test_unknown_tool_is_not_found(self, gql: GraphQLClient, spaces: dict[str, str]) -> None:
        payload = await set_bindings(gql, "ct_doesnotexist", [spaces["alpha"]])

        assert codes(payload["userErrors"]) == [("NOT_FOUND", ["input", "id"])]

    async def test_mcp_tool_inherits_and_cannot_be_bound(
        self, gql: GraphQLClient, spaces: dict[str, str], mcp_server: dict[str, Any]
    ) -> None:
        tool_id = mcp_server["tool_ids"][0]

        payload = await set_bindings(gql, tool_id, [spaces["alpha"]])

        assert payload["tool"] is None
        assert codes(payload["userErrors"]) == [("INHERITED", ["input", "id"])]
        assert mcp_server["id"] in payload["userErrors"][0]["message"]
        assert tool_id in await visible_tool_ids(gql, spaces["beta"])

    async def test_binding_a_server_restricts_its_tools(
        self, gql: GraphQLClient, spaces: dict[str, str], mcp_server: dict[str, Any]
    ) -> None:
        for space_id in spaces.values():
            assert set(mcp_server["tool_ids"]) <= set(await visible_tool_ids(gql, space_id))

        payload = await set_bindings(gql, mcp_server["id"], [spaces["alpha"]])

        assert payload["userErrors"] == []
        assert payload["tool"] is None
        assert payload["mcpServer"]["id"] == mcp_server["id"]
        assert payload["mcpServer"]["isGlobal"] is False
        assert bound_ids(payload["mcpServer"]) == [spaces["alpha"]]
        assert set(mcp_server["tool_ids"]) <= set(await visible_tool_ids(gql, spaces["alpha"]))
        for space in ("beta", "gamma"):
            assert not set(mcp_server["tool_ids"]) & set(await visible_tool_ids(gql, spaces[space]))
        for tool_id in mcp_server["tool_ids"]:
            tool = await get_tool(gql, tool_id)
            assert tool is not None
            assert (tool["boundSpaces"], tool["isGlobal"]) == ([], False)
            assert bound_ids(tool["mcpServer"]) == [spaces["alpha"]]

    async def test_empty_list_makes_a_server_global_again(
        self, gql: GraphQLClient, spaces: dict[str, str], mcp_server: dict[str, Any]
    ) -> None:
        await set_bindings(gql, mcp_server["id"], [spaces["alpha"]])

        payload = await set_bindings(gql, mcp_server["id"], [])

        assert (payload["mcpServer"]["isGlobal"], payload["mcpServer"]["boundSpaces"]) == (True, [])
        assert set(mcp_server["tool_ids"]) <= set(await visible_tool_ids(gql, spaces["beta"]))
        tool = await get_tool(gql, mcp_server["tool_ids"][0])
        assert tool is not None and tool["isGlobal"] is True

    async def test_unknown_server_is_not_found(self, gql: GraphQLClient, spaces: dict[str, str]) -> None:
        payload = await set_bindings(gql, "mcp_doesnotexist", [spaces["alpha"]])

        assert codes(payload["userErrors"]) == [("NOT_FOUND", ["input", "id"])]


def server_input(name: str, **overrides: Any) -> dict[str, Any]:
    return {
        "name": name,
        "transport": "STREAMABLE_HTTP",
        "url": "https://mcp.example.test/mcp",
        **overrides,
    }


async def register(gql: GraphQLClient, data: dict[str, Any]) -> dict[str, Any]:
    payload: dict[str, Any] = (await gql.execute(REGISTER_MCP_SERVER, {"input": data}))["registerMcpServer"]
    return payload


class TestRegisterMcpServer:
    async def test_streamable_http_server_with_url_is_registered_global(self, gql: GraphQLClient) -> None:
        payload = await register(gql, server_input("docs-mcp"))

        assert payload["userErrors"] == []
        server = payload["mcpServer"]
        assert server["id"].startswith("mcp_") and "__" not in server["id"]
        assert (server["name"], server["transport"], server["url"], server["status"]) == (
            "docs-mcp",
            "STREAMABLE_HTTP",
            "https://mcp.example.test/mcp",
            "ACTIVE",
        )
        assert (server["isGlobal"], server["boundSpaces"], server["tools"]["totalCount"]) == (True, [], 0)

    async def test_server_with_space_ids_is_bound(self, gql: GraphQLClient, spaces: dict[str, str]) -> None:
        payload = await register(gql, server_input("docs-mcp", spaceIds=[spaces["beta"]]))

        assert payload["mcpServer"]["isGlobal"] is False
        assert bound_ids(payload["mcpServer"]) == [spaces["beta"]]

    async def test_streamable_http_requires_a_url(self, gql: GraphQLClient) -> None:
        payload = await register(gql, server_input("docs-mcp", url=None))

        assert payload["mcpServer"] is None
        assert codes(payload["userErrors"]) == [("REQUIRED", ["input", "url"])]

    async def test_invalid_url_is_refused(self, gql: GraphQLClient) -> None:
        payload = await register(gql, server_input("docs-mcp", url="file:///etc/passwd"))

        assert codes(payload["userErrors"]) == [("INVALID_URL", ["input", "url"])]

    async def test_stdio_requires_a_command(self, gql: GraphQLClient) -> None:
        payload = await register(gql, server_input("local-mcp", transport="STDIO", url=None))

        assert payload["mcpServer"] is None
        assert codes(payload["userErrors"]) == [("REQUIRED", ["input", "command"])]

    async def test_stdio_server_with_a_command_is_registered(self, gql: GraphQLClient) -> None:
        payload = await register(
            gql,
            server_input("local-mcp", transport="STDIO", url=None, command=["python", "-m", "server"]),
        )

        assert payload["userErrors"] == []
        assert (payload["mcpServer"]["command"], payload["mcpServer"]["url"]) == (
            ["python", "-m", "server"],
            None,
        )

    async def test_duplicate_name_is_refused(self, gql: GraphQLClient, session_factory: SessionFactory) -> None:
        await register(gql, server_input("docs-mcp"))

        payload = await register(gql, server_input("docs-mcp", url="https://other.example.test/mcp"))

        assert codes(payload["userErrors"]) == [("DUPLICATE", ["input", "name"])]
        async with session_factory() as session:
            names = (await session.scalars(select(McpServer.name))).all()
        assert names == ["docs-mcp"]

    @pytest.mark.parametrize("role", [Role.SPACE_ADMIN, Role.MEMBER])
    async def test_only_admins_register(
        self,
        gql: GraphQLClient,
        keys: Keys,
        spaces: dict[str, str],
        session_factory: SessionFactory,
        role: Role,
    ) -> None:
        caller = gql.as_key(await keys.for_space(spaces["alpha"], role))

        payload = await register(caller, server_input("docs-mcp"))

        assert payload["mcpServer"] is None
        assert [error["code"] for error in payload["userErrors"]] == ["FORBIDDEN"]
        async with session_factory() as session:
            assert (await session.scalars(select(McpServer.id))).all() == []


async def set_status(gql: GraphQLClient, node_id: str, status: str) -> dict[str, Any]:
    payload: dict[str, Any] = (await gql.execute(SET_STATUS, {"input": {"id": node_id, "status": status}}))["setStatus"]
    return payload


class TestSetStatusOnTool:
    async def test_disabled_tool_leaves_visible_tools_but_stays_readable(
        self, gql: GraphQLClient, keys: Keys, spaces: dict[str, str]
    ) -> None:
        tool = await create_tool(gql, "lookup")

        payload = await set_status(gql, tool["id"], "DISABLED")

        assert payload["userErrors"] == []
        assert payload["node"] == {"id": tool["id"], "status": "DISABLED"}
        assert tool["id"] not in await visible_tool_ids(gql, spaces["alpha"])
        assert tool["id"] in await visible_tool_ids(gql, spaces["alpha"], include_inactive=True)
        stored = await get_tool(gql, tool["id"])
        assert stored is not None and stored["status"] == "DISABLED"
        member = gql.as_key(await keys.for_space(spaces["alpha"], Role.MEMBER))
        seen_by_member = await get_tool(member, tool["id"])
        assert seen_by_member is not None and seen_by_member["status"] == "DISABLED"

    async def test_archived_tool_leaves_visible_tools(self, gql: GraphQLClient, spaces: dict[str, str]) -> None:
        tool = await create_tool(gql, "lookup")

        await set_status(gql, tool["id"], "ARCHIVED")

        assert tool["id"] not in await visible_tool_ids(gql, spaces["alpha"])
        assert tool["id"] in await visible_tool_ids(gql, spaces["alpha"], include_inactive=True)

    async def test_reactivated_tool_comes_back(self, gql: GraphQLClient, spaces: dict[str, str]) -> None:
        tool = await create_tool(gql, "lookup")
        await set_status(gql, tool["id"], "DISABLED")

        await set_status(gql, tool["id"], "ACTIVE")

        assert tool["id"] in await visible_tool_ids(gql, spaces["alpha"])

    async def test_disabled_server_hides_its_tools(
        self, gql: GraphQLClient, spaces: dict[str, str], mcp_server: dict[str, Any]
    ) -> None:
        payload = await set_status(gql, mcp_server["id"], "DISABLED")

        assert payload["userErrors"] == []
        assert not set(mcp_server["tool_ids"]) & set(await visible_tool_ids(gql, spaces["alpha"]))
        assert set(mcp_server["tool_ids"]) <= set(await visible_tool_ids(gql, spaces["alpha"], include_inactive=True))

    async def test_space_admin_cannot_disable_a_global_tool(
        self, gql: GraphQLClient, keys: Keys, spaces: dict[str, str]
    ) -> None:
        tool = await create_tool(gql, "lookup")
        space_admin = gql.as_key(await keys.for_space(spaces["alpha"], Role.SPACE_ADMIN))

        payload = await set_status(space_admin, tool["id"], "DISABLED")

        assert codes(payload["userErrors"]) == [("FORBIDDEN", ["input", "id"])]
        assert tool["id"] in await visible_tool_ids(gql, spaces["alpha"])


class TestNameUniquenessAfterCreation:
    """A model must never see two functions of the same name in one space."""

    async def test_rebinding_onto_a_space_with_the_same_name_is_refused(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha, beta = await keys.space("alpha"), await keys.space("beta")
        create = """
        mutation Create($input: CreateToolInput!) { createTool(input: $input) { tool { id } userErrors { code } } }
        """
        schema = {"type": "object"}
        base = {
            "name": "lookup",
            "label": "Lookup",
            "description": "d",
            "inputSchema": schema,
            "endpoint": "https://tools.example.invalid/x",
        }
        await gql.execute(create, {"input": {**base, "spaceIds": [alpha.id]}})
        beta_tool = (await gql.execute(create, {"input": {**base, "spaceIds": [beta.id]}}))["createTool"]["tool"]["id"]
        rebind = """
        mutation Rebind($input: SetBindingsInput!) {
          setSpaceBindings(input: $input) { tool { id } userErrors { field code } }
        }
        """
        for space_ids in ([alpha.id], []):
            payload = (await gql.execute(rebind, {"input": {"id": beta_tool, "spaceIds": space_ids}}))[
                "setSpaceBindings"
            ]
            assert payload["userErrors"] == [{"field": ["input", "spaceIds"], "code": "DUPLICATE"}]

    async def test_reactivating_an_archived_tool_whose_name_was_taken_is_refused(
        self, gql: GraphQLClient, keys: Keys
    ) -> None:
        alpha = await keys.space("alpha")
        create = """
        mutation Create($input: CreateToolInput!) { createTool(input: $input) { tool { id } userErrors { code } } }
        """
        base = {
            "name": "lookup",
            "label": "Lookup",
            "description": "d",
            "inputSchema": {"type": "object"},
            "endpoint": "https://tools.example.invalid/x",
            "spaceIds": [alpha.id],
        }
        old = (await gql.execute(create, {"input": base}))["createTool"]["tool"]["id"]
        status = """
        mutation Status($input: SetStatusInput!) { setStatus(input: $input) { userErrors { code } } }
        """
        assert (await gql.execute(status, {"input": {"id": old, "status": "ARCHIVED"}}))["setStatus"][
            "userErrors"
        ] == []
        assert (await gql.execute(create, {"input": base}))["createTool"]["userErrors"] == []
        payload = (await gql.execute(status, {"input": {"id": old, "status": "ACTIVE"}}))["setStatus"]
        assert payload["userErrors"] == [{"code": "DUPLICATE"}]


class TestUnicodeSearch:
    async def test_search_folds_case_beyond_ascii(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        create = """
        mutation Create($input: CreateToolInput!) { createTool(input: $input) { tool { id } userErrors { code } } }
        """
        tool = (
            await gql.execute(
                create,
                {
                    "input": {
                        "name": "cafe_orders",
                        "label": "Café Orders",
                        "description": "d",
                        "inputSchema": {"type": "object"},
                        "endpoint": "https://tools.example.invalid/x",
                        "spaceIds": [alpha.id],
                    }
                },
            )
        )["createTool"]["tool"]["id"]
        query = """
        query Search($id: ID!, $term: String!) {
          space(id: $id) { visibleTools(filter: {search: $term}) { edges { node { id } } } }
        }
        """
        data = await gql.execute(query, {"id": alpha.id, "term": "CAFÉ"})
        assert [edge["node"]["id"] for edge in data["space"]["visibleTools"]["edges"]] == [tool]
