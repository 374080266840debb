"""importOpenApi against real documents: a FastAPI app's own document, imported and then called
through the tools (path, query, header and body; GET and POST), re-imports, public examples,
refusals (Swagger 2.0, remote references, invalid documents) and the egress policy."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.principal import Role
from app.tools import openapi_import
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import invoke
from tests.support.openapi_app import running_pets_api

DOCUMENTS = Path(__file__).resolve().parents[2] / "app" / "tools" / "openapi_documents"

IMPORT = """
mutation Import($input: ImportOpenApiInput!) {
  importOpenApi(input: $input) {
    created { operationId method path tool { id name label sideEffect status inputSchema endpoint requestMapping
              tags group boundSpaces { id } } }
    updated { operationId method path tool { id name status tags } }
    disabled { operationId method path tool { id status tags } }
    skipped { operationId method path reason }
    userErrors { field code message }
  }
}
"""


@pytest.fixture(scope="module")
def pets_api() -> Iterator[tuple[str, str]]:
    with running_pets_api() as api:
        yield api


async def import_spec(gql: GraphQLClient, space_id: str, spec: str, **fields: Any) -> dict[str, Any]:
    payload: dict[str, Any] = (await gql.execute(IMPORT, {"input": {"spaceId": space_id, "spec": spec, **fields}}))[
        "importOpenApi"
    ]
    return payload


def by_operation(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["operationId"]: item for item in items}


class TestFastApiDocument:
    async def test_operations_become_tools_that_place_every_argument(
        self, gql: GraphQLClient, keys: Keys, pets_api: tuple[str, str]
    ) -> None:
        base, spec = pets_api
        space = await keys.space("pets")
        payload = await import_spec(gql, space.id, spec, baseUrl=base)
        assert payload["userErrors"] == []
        created = by_operation(payload["created"])
        assert sorted(created) == ["addNote", "createPet", "getPet", "listPets"]
        assert [(skip["operationId"], skip["method"]) for skip in payload["skipped"]] == [("uploadPhoto", "POST")]
        assert "multipart/form-data" in payload["skipped"][0]["reason"]
        get_pet = created["getPet"]["tool"]
        assert (get_pet["name"], get_pet["label"], get_pet["sideEffect"]) == ("get_pet", "Get a pet", "READ")
        assert created["createPet"]["tool"]["sideEffect"] == "WRITE"
        assert get_pet["boundSpaces"] == [{"id": space.id}]
        assert get_pet["endpoint"] == f"{base}/pets/{{pet_id}}"
        assert get_pet["requestMapping"]["method"] == "GET"
        assert set(get_pet["inputSchema"]["properties"]) == {"pet_id", "verbose", "x-request-id"}
        assert get_pet["inputSchema"]["required"] == ["pet_id"]
        assert "openapi" in get_pet["tags"] and get_pet["group"] == "Quiver test pets"

        def tool(operation_id: str) -> str:
            return str(created[operation_id]["tool"]["id"])

        got = await invoke(gql, space.id, tool("getPet"), {"pet_id": 7, "verbose": True, "x-request-id": "r-1"})
        assert got["status"] == "SUCCESS", got
        assert got["data"] == {"where": "getPet", "petId": 7, "verbose": True, "requestId": "r-1"}
        listed = await invoke(gql, space.id, tool("listPets"), {"limit": 2, "tag": ["a", "b"]})
        assert listed["data"] == {"where": "listPets", "limit": 2, "tags": ["a", "b"]}
        made = await invoke(gql, space.id, tool("createPet"), {"name": "Rex", "tag": "dog", "x-request-id": "r-2"})
        assert made["data"] == {"where": "createPet", "pet": {"name": "Rex", "tag": "dog"}, "requestId": "r-2"}
        noted = await invoke(gql, space.id, tool("addNote"), {"pet_id": 3, "text": "fed", "notify": True})
        assert noted["data"] == {
            "where": "addNote",
            "petId": 3,
            "note": {"text": "fed", "private": False},
            "notify": True,
        }
        # The gateway checks the imported schema before anything is sent.
        refused = await invoke(gql, space.id, tool("getPet"), {"verbose": True})
        assert refused["error"]["code"] == "PARAM_INVALID"
        # A header parameter holding what a header cannot carry (a Chinese name, a control
        # character) is the caller's mistake, said as such: it was INTERNAL_ERROR.
        for request_id in ("请求-张伟", "r\x7f1", "Zhang Wei 😀"):
            header = await invoke(gql, space.id, tool("getPet"), {"pet_id": 7, "x-request-id": request_id})
            assert header["status"] == "FAILED", header
            assert header["error"]["code"] == "PARAM_INVALID", header
            assert "'x-request-id' can hold only ASCII text" in header["error"]["message"]
            assert header["error"]["detail"] == "/x-request-id"
        spaced = await invoke(gql, space.id, tool("getPet"), {"pet_id": 7, "x-request-id": "r 1\tb"})
        assert spaced["data"]["requestId"] == "r 1\tb"
        # Chinese in path and query parameters travels percent-encoded, intact.
        zh = await invoke(gql, space.id, tool("listPets"), {"limit": 1, "tag": ["北京 朝阳&区", "😀"]})
        assert zh["data"] == {"where": "listPets", "limit": 1, "tags": ["北京 朝阳&区", "😀"]}

    async def test_a_re_import_updates_disables_and_brings_back(
        self, gql: GraphQLClient, keys: Keys, pets_api: tuple[str, str]
    ) -> None:
        base, spec = pets_api
        space = await keys.space("reimport")
        first = by_operation((await import_spec(gql, space.id, spec, baseUrl=base))["created"])
        document = json.loads(spec)
        del document["paths"]["/pets/{pet_id}/notes"]
        document["paths"]["/pets/{pet_id}"]["get"]["summary"] = "Fetch one pet"
        second = await import_spec(gql, space.id, json.dumps(document), baseUrl=base)
        assert second["userErrors"] == [] and second["created"] == []
        updated = by_operation(second["updated"])
        assert sorted(updated) == ["createPet", "getPet", "listPets"]
        assert {item["tool"]["id"] for item in updated.values()} < {item["tool"]["id"] for item in first.values()}
        assert [(item["operationId"], item["method"], item["path"]) for item in second["disabled"]] == [
            ("addNote", "POST", "/pets/{pet_id}/notes")
        ]
        assert second["disabled"][0]["tool"]["status"] == "DISABLED"
        note_tool = first["addNote"]["tool"]["id"]
        assert (await invoke(gql, space.id, note_tool, {"pet_id": 1, "text": "x"}))["error"]["code"] == (
            "TOOL_NOT_AVAILABLE"
        )
        third = await import_spec(gql, space.id, spec, baseUrl=base)
        back = by_operation(third["updated"])["addNote"]["tool"]
        assert (back["id"], back["status"]) == (note_tool, "ACTIVE")
        assert "openapi:vanished" not in back["tags"]

    async def test_include_picks_operations_by_id_or_tag(
        self, gql: GraphQLClient, keys: Keys, pets_api: tuple[str, str]
    ) -> None:
        base, spec = pets_api
        by_tag = await import_spec(gql, (await keys.space("tagged")).id, spec, baseUrl=base, include=["notes"])
        assert [item["operationId"] for item in by_tag["created"]] == ["addNote"]
        by_id = await import_spec(
            gql, (await keys.space("picked")).id, spec, baseUrl=base, include=["getPet", "listPets"]
        )
        assert sorted(item["operationId"] for item in by_id["created"]) == ["getPet", "listPets"]

    async def test_names_stay_unique_in_the_space(
        self, gql: GraphQLClient, keys: Keys, pets_api: tuple[str, str]
    ) -> None:
        base, spec = pets_api
        space = await keys.space("twice")
        document = json.loads(spec)
        document["info"]["title"] = "Another pets API"  # another document: new tools, not updates
        await import_spec(gql, space.id, spec, baseUrl=base)
        again = await import_spec(gql, space.id, json.dumps(document), baseUrl=base, include=["getPet"])
        assert [item["tool"]["name"] for item in again["created"]] == ["get_pet_2"]


class TestPublicDocuments:
    @pytest.mark.parametrize(
        ("file", "expected"),
        [
            ("petstore.yaml", {"listPets": "list_pets", "createPets": "create_pets", "showPetById": "show_pet_by_id"}),
            (
                "petstore-expanded.yaml",
                {
                    "findPets": "find_pets",
                    "addPet": "add_pet",
                    "find pet by id": "find_pet_by_id",
                    "deletePet": "delete_pet",
                },
            ),
            ("non-oauth-scopes.yaml", {None: "get_users"}),
            ("webhook-example.yaml", {}),
        ],
    )
    async def test_examples_import(
        self, gql: GraphQLClient, keys: Keys, file: str, expected: dict[str | None, str]
    ) -> None:
        space = await keys.space(file.split(".")[0].replace("-", "_"))
        payload = await import_spec(gql, space.id, (DOCUMENTS / file).read_text(), baseUrl="http://127.0.0.1:9/v1")
        assert payload["userErrors"] == [] and payload["skipped"] == []
        assert {item["operationId"]: item["tool"]["name"] for item in payload["created"]} == expected

    async def test_a_document_of_real_size_imports(self, gql: GraphQLClient, keys: Keys) -> None:
        # A real API's document is tens or hundreds of kilobytes: the spec field was cut at
        # QUIVER_MAX_TEXT_CHARS (10,000 characters), a TOO_LONG userError, the README saying 2 MiB.
        description = "查询订单的状态、金额与物流信息 (order status, amount and shipping) for a customer. " * 12
        paths = {
            f"/orders/{{orderId}}/part{index}": {
                "get": {
                    "operationId": f"getOrderPart{index}",
                    "summary": f"Order part {index}",
                    "description": description,
                    "parameters": [{"name": "orderId", "in": "path", "required": True, "schema": {"type": "string"}}],
                    "responses": {"200": {"description": "The part."}},
                }
            }
            for index in range(120)
        }
        spec = json.dumps({"openapi": "3.0.3", "info": {"title": "Orders", "version": "1"}, "paths": paths})
        assert len(spec) > 100_000
        space = await keys.space("big_api")
        payload = await import_spec(gql, space.id, spec, baseUrl="http://127.0.0.1:9/v1")
        assert payload["userErrors"] == [] and payload["skipped"] == []
        assert len(payload["created"]) == 120

    async def test_an_operation_whose_schema_cannot_be_served_is_skipped(self, gql: GraphQLClient, keys: Keys) -> None:
        # It was made a tool whose every call failed TOOL_NOT_AVAILABLE ("input schema refused"),
        # where createTool refuses the same schema.
        def operation(operation_id: str, pattern: str) -> dict[str, Any]:
            parameter = {"name": "q", "in": "query", "schema": {"type": "string", "pattern": pattern}}
            return {"operationId": operation_id, "parameters": [parameter], "responses": {"200": {"description": "ok"}}}

        paths = {"/twice": {"get": operation("twice", "(a)\\1")}, "/plain": {"get": operation("plain", "^[a-z]+$")}}
        spec = json.dumps({"openapi": "3.1.0", "info": {"title": "Patterns", "version": "1"}, "paths": paths})
        space = await keys.space("patterns")
        payload = await import_spec(gql, space.id, spec, baseUrl="http://127.0.0.1:9")
        assert payload["userErrors"] == []
        assert [item["operationId"] for item in payload["created"]] == ["plain"]
        [skipped] = payload["skipped"]
        assert skipped["operationId"] == "twice"
        assert skipped["reason"].startswith("its input schema cannot be served: the pattern ")
        assert "is not supported" in skipped["reason"]
        assert skipped["reason"].endswith("(at /properties/q/pattern)")

    async def test_the_expanded_petstore_body_is_flattened_and_its_array_query_kept(
        self, gql: GraphQLClient, keys: Keys
    ) -> None:
        space = await keys.space("expanded")
        spec = (DOCUMENTS / "petstore-expanded.yaml").read_text()
        created = by_operation((await import_spec(gql, space.id, spec, baseUrl="http://127.0.0.1:9"))["created"])
        add_pet = created["addPet"]["tool"]
        assert add_pet["inputSchema"] == {
            "type": "object",
            "properties": {"name": {"type": "string"}, "tag": {"type": "string"}},
            "required": ["name"],
        }
        assert add_pet["requestMapping"]["body"]["flatten"] == ["name", "tag"]
        find_pets = created["findPets"]["tool"]["inputSchema"]["properties"]
        assert find_pets["tags"] == {"type": "array", "items": {"type": "string"}, "description": "tags to filter by"}

    async def test_swagger_2_is_refused_clearly(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("swagger")
        spec = (DOCUMENTS / "petstore-swagger-2.0.json").read_text()
        payload = await import_spec(gql, space.id, spec)
        assert payload["created"] == []
        [error] = payload["userErrors"]
        assert error["code"] == "UNSUPPORTED_VERSION" and error["field"] == ["input", "spec", "swagger"]
        assert "convert the document to OpenAPI 3" in error["message"]


class TestRefusals:
    async def test_validation_errors_carry_their_json_path(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("invalid")
        spec = (DOCUMENTS / "petstore.yaml").read_text().replace("      operationId: showPetById\n", "", 1)
        spec = spec.replace("          in: path\n", "          in: somewhere\n", 1)
        payload = await import_spec(gql, space.id, spec, baseUrl="http://127.0.0.1:9")
        assert payload["created"] == [] and payload["userErrors"]
        fields = [error["field"] for error in payload["userErrors"]]
        assert all(field[:2] == ["input", "spec"] for field in fields)
        assert ["input", "spec", "paths", "/pets/{petId}", "get", "parameters", "0"] in [field[:7] for field in fields]
        assert {error["code"] for error in payload["userErrors"]} == {"INVALID_SPEC"}

    async def test_remote_references_are_never_fetched(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("remote")
        spec = (
            (DOCUMENTS / "petstore.yaml")
            .read_text()
            .replace('$ref: "#/components/schemas/Pet"\n', '$ref: "http://127.0.0.1:9/pet.yaml"\n', 1)
        )
        payload = await import_spec(gql, space.id, spec, baseUrl="http://127.0.0.1:9")
        [error] = payload["userErrors"]
        assert error["code"] == "REMOTE_REFERENCE"
        assert error["field"][:4] == ["input", "spec", "paths", "/pets/{petId}"] and error["field"][-1] == "$ref"

    async def test_text_that_is_no_document(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("garbage")
        for spec in ("", "not: [valid", "[1, 2]", "openapi: 2.5.0\ninfo: {}", "a: &x 1\nb: *x\n"):
            payload = await import_spec(gql, space.id, spec, baseUrl="http://127.0.0.1:9")
            assert payload["created"] == [], spec
            assert payload["userErrors"] and payload["userErrors"][0]["field"][:2] == ["input", "spec"], spec

    async def test_a_document_that_takes_too_long_to_read_is_refused(
        self, gql: GraphQLClient, keys: Keys, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        space = await keys.space("slow")
        # No child process starts, let alone reads a document, in 10 ms: the reader is killed.
        monkeypatch.setattr(openapi_import, "READ_TIMEOUT_S", 0.01)
        payload = await import_spec(gql, space.id, (DOCUMENTS / "petstore.yaml").read_text())
        [error] = payload["userErrors"]
        assert error["code"] == "TOO_LARGE" and "took longer" in error["message"]

    async def test_who_may_import(self, gql: GraphQLClient, keys: Keys) -> None:
        space, other = await keys.space("owner"), await keys.space("stranger")
        spec = (DOCUMENTS / "petstore.yaml").read_text()
        member = gql.as_key(await keys.for_space(space.id, Role.MEMBER))
        outsider = gql.as_key(await keys.for_space(other.id, Role.SPACE_ADMIN))
        space_admin = gql.as_key(await keys.for_space(space.id, Role.SPACE_ADMIN))
        assert (await import_spec(member, space.id, spec))["userErrors"][0]["code"] == "FORBIDDEN"
        assert (await import_spec(outsider, space.id, spec))["userErrors"][0]["code"] == "NOT_FOUND"
        assert (await import_spec(space_admin, space.id, spec, baseUrl="http://127.0.0.1:9"))["userErrors"] == []

    async def test_the_egress_policy_applies(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("egress")
        spec = (DOCUMENTS / "petstore.yaml").read_text()
        payload = await import_spec(gql, space.id, spec, baseUrl="http://127.0.0.2:8080")
        [error] = payload["userErrors"]
        assert (error["code"], error["field"]) == ("EGRESS_DENIED", ["input", "baseUrl"])
        relative = spec.replace("http://petstore.swagger.io/v1", "/v1")
        [error] = (await import_spec(gql, space.id, relative))["userErrors"]
        assert (error["code"], error["field"]) == ("BASE_URL_REQUIRED", ["input", "spec", "servers", "0", "url"])

    async def test_credentials_reach_every_imported_tool_and_stay_write_only(
        self, gql: GraphQLClient, keys: Keys, pets_api: tuple[str, str]
    ) -> None:
        base, spec = pets_api
        space = await keys.space("secret")
        auth = {"type": "API_KEY", "headerName": "X-Api-Key", "secret": "sk-import-123"}
        payload = await import_spec(gql, space.id, spec, baseUrl=base, auth=auth)
        assert payload["userErrors"] == []
        assert "sk-import-123" not in json.dumps(payload)
        tools = await gql.execute(
            'query T($id: ID!) { space(id: $id) { visibleTools(first: 50, filter: {tags: ["openapi"]}) '
            "{ edges { node { authType } } } } }",
            {"id": space.id},
        )
        types = {edge["node"]["authType"] for edge in tools["space"]["visibleTools"]["edges"]}
        assert types == {"API_KEY"}


class TestReimportKeepsCredentialsHome:
    async def test_a_re_import_to_another_origin_needs_the_auth_again(
        self, gql: GraphQLClient, keys: Keys, pets_api: tuple[str, str]
    ) -> None:
        base, spec = pets_api
        space = await keys.space("moving")
        auth = {"type": "API_KEY", "headerName": "X-Api-Key", "secret": "sk-import-stays"}
        assert (await import_spec(gql, space.id, spec, baseUrl=base, auth=auth))["userErrors"] == []
        elsewhere = base.replace("127.0.0.1", "localhost")

        refused = await import_spec(gql, space.id, spec, baseUrl=elsewhere)

        [error] = refused["userErrors"]
        assert (error["code"], error["field"]) == ("SECRET_WOULD_MOVE", ["input", "baseUrl"])
        assert "sk-import-stays" not in error["message"]
        assert refused["updated"] == [] and refused["created"] == []
        # The same origin (another path under it) or the auth given again: accepted.
        assert (await import_spec(gql, space.id, spec, baseUrl=base + "/"))["userErrors"] == []
        moved = await import_spec(gql, space.id, spec, baseUrl=elsewhere, auth=auth)
        assert moved["userErrors"] == [] and len(moved["updated"]) == 4
