"""Reading OpenAPI documents into tool drafts (app.tools.openapi): names, schemas, bodies,
references and the bounds on what a document may cost."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.gateway.envelope import ToolFailure
from app.gateway.executors.request_mapping import prepare
from app.tools import openapi

BASE = "https://api.example.com/v1"


def document(paths: dict[str, Any], *, version: str = "3.0.3", **extra: Any) -> dict[str, Any]:
    return {"openapi": version, "info": {"title": "Test API", "version": "1"}, "paths": paths, **extra}


def read(spec: dict[str, Any] | str) -> list[openapi.Draft | openapi.Skip]:
    parsed = openapi.parse(spec if isinstance(spec, str) else json.dumps(spec))
    openapi.validate(parsed)
    return openapi.drafts(parsed, openapi.selected(parsed, None), BASE)


def only_draft(spec: dict[str, Any]) -> openapi.Draft:
    [result] = read(spec)
    assert isinstance(result, openapi.Draft), result
    return result


def ok(description: str = "ok") -> dict[str, Any]:
    return {"200": {"description": description}}


class TestNames:
    @pytest.mark.parametrize(
        ("operation_id", "method", "path", "expected"),
        [
            ("getPetById", "get", "/pets/{id}", "get_pet_by_id"),
            ("list-pets", "get", "/pets", "list_pets"),
            ("find pet by id", "get", "/pets/{id}", "find_pet_by_id"),
            ("HTTPStatusCheck", "get", "/s", "http_status_check"),
            (None, "get", "/users/{userId}/orders", "get_users_user_id_orders"),
            ("x" * 100, "post", "/x", "x" * 64),
            ("获取订单", "get", "/orders/{orderId}", "get_orders_order_id"),  # was "get"
            ("创建订单", "post", "/orders", "post_orders"),  # was "post"
            ("订单v2", "get", "/v2/orders", "v2"),
        ],
    )
    def test_snake_case_from_the_operation_id_else_method_and_path(
        self, operation_id: str | None, method: str, path: str, expected: str
    ) -> None:
        assert openapi.tool_name(openapi.Operation(method, path, operation_id)) == expected

    def test_duplicates_in_one_document_get_suffixes(self) -> None:
        spec = document(
            {
                "/a": {"get": {"operationId": "fetch", "responses": ok()}},
                "/b": {"get": {"operationId": "Fetch", "responses": ok()}},
            }
        )
        assert [result.name for result in read(spec) if isinstance(result, openapi.Draft)] == ["fetch", "fetch_2"]


class TestInputSchema:
    def test_parameters_under_their_own_names_and_the_body_flattened(self) -> None:
        spec = document(
            {
                "/orders/{orderId}": {
                    "parameters": [{"name": "orderId", "in": "path", "required": True, "schema": {"type": "string"}}],
                    "put": {
                        "operationId": "updateOrder",
                        "parameters": [
                            {"name": "dryRun", "in": "query", "schema": {"type": "boolean"}},
                            {"name": "X-Tenant", "in": "header", "required": True, "schema": {"type": "string"}},
                            {"name": "Authorization", "in": "header", "schema": {"type": "string"}},
                            {"name": "session", "in": "cookie", "schema": {"type": "string"}},
                        ],
                        "requestBody": {
                            "required": True,
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Order"}}},
                        },
                        "responses": ok(),
                    },
                }
            },
            components={
                "schemas": {
                    "Order": {
                        "type": "object",
                        "required": ["quantity"],
                        "properties": {
                            "id": {"type": "string", "readOnly": True},
                            "quantity": {"type": "integer", "minimum": 1},
                            "note": {"type": "string", "nullable": True},
                        },
                    }
                }
            },
        )
        draft = only_draft(spec)
        assert draft.input_schema == {
            "type": "object",
            "properties": {
                "orderId": {"type": "string"},
                "dryRun": {"type": "boolean"},
                "X-Tenant": {"type": "string"},
                "quantity": {"type": "integer", "minimum": 1},
                "note": {"type": ["string", "null"]},
            },
            "required": ["orderId", "X-Tenant", "quantity"],
        }
        assert draft.side_effect == "WRITE" and draft.endpoint == BASE + "/orders/{orderId}"
        assert draft.mapping["body"] == {
            "flatten": ["quantity", "note"],
            "contentType": "application/json",
            "required": True,
        }

    def test_a_body_that_cannot_be_flattened_goes_under_body(self) -> None:
        spec = document(
            {
                "/items": {
                    "post": {
                        "parameters": [{"name": "name", "in": "query", "schema": {"type": "string"}}],
                        "requestBody": {
                            "content": {
                                "application/json": {
                                    "schema": {"type": "object", "properties": {"name": {"type": "string"}}}
                                }
                            }
                        },
                        "responses": ok(),
                    }
                },
                "/list": {
                    "post": {
                        "requestBody": {
                            "required": True,
                            "content": {
                                "application/json": {"schema": {"type": "array", "items": {"type": "integer"}}}
                            },
                        },
                        "responses": ok(),
                    }
                },
            }
        )
        collides, array = read(spec)
        assert isinstance(collides, openapi.Draft) and isinstance(array, openapi.Draft)
        assert collides.input_schema["properties"]["body"] == {
            "type": "object",
            "properties": {"name": {"type": "string"}},
        }
        assert "body" not in collides.input_schema.get("required", [])
        assert array.input_schema["required"] == ["body"]
        assert array.mapping["body"]["argument"] == "body"

    def test_openapi_30_bounds_become_json_schema(self) -> None:
        spec = document(
            {
                "/n": {
                    "get": {
                        "parameters": [
                            {
                                "name": "n",
                                "in": "query",
                                "schema": {"type": "number", "minimum": 0, "exclusiveMinimum": True, "example": 3},
                            }
                        ],
                        "responses": ok(),
                    }
                }
            }
        )
        assert only_draft(spec).input_schema["properties"]["n"] == {"type": "number", "exclusiveMinimum": 0}

    def test_a_recursive_schema_stops_at_the_recursion(self) -> None:
        spec = document(
            {
                "/tree": {
                    "post": {
                        "requestBody": {
                            "required": True,
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}},
                        },
                        "responses": ok(),
                    }
                }
            },
            components={
                "schemas": {
                    "Node": {
                        "type": "object",
                        "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}},
                    }
                }
            },
        )
        children = only_draft(spec).input_schema["properties"]["children"]
        assert children == {"type": "array", "items": {"description": "(recursive: Node)"}}

    def test_a_schema_that_explodes_once_inlined_is_skipped(self) -> None:
        # Each level refers to the next one twice: 2^20 nodes if inlined naively.
        schemas = {
            f"L{level}": {
                "type": "object",
                "properties": {
                    "a": {"$ref": f"#/components/schemas/L{level + 1}"},
                    "b": {"$ref": f"#/components/schemas/L{level + 1}"},
                },
            }
            for level in range(20)
        }
        schemas["L20"] = {"type": "string"}
        spec = document(
            {
                "/big": {
                    "post": {
                        "requestBody": {
                            "required": True,
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/L0"}}},
                        },
                        "responses": ok(),
                    }
                }
            },
            components={"schemas": schemas},
        )
        [result] = read(spec)
        assert isinstance(result, openapi.Skip) and "nodes" in result.reason

    def test_unsupported_operations_are_skipped_with_the_reason(self) -> None:
        spec = document(
            {
                "/upload": {
                    "post": {
                        "operationId": "upload",
                        "requestBody": {
                            "required": True,
                            "content": {"multipart/form-data": {"schema": {"type": "object"}}},
                        },
                        "responses": ok(),
                    }
                },
                "/cookie": {
                    "get": {
                        "operationId": "needsCookie",
                        "parameters": [{"name": "sid", "in": "cookie", "required": True, "schema": {"type": "string"}}],
                        "responses": ok(),
                    }
                },
            }
        )
        reasons = {
            result.operation.operation_id: result.reason for result in read(spec) if isinstance(result, openapi.Skip)
        }
        assert "multipart/form-data" in reasons["upload"]
        assert "cookie" in reasons["needsCookie"]


class TestRefusedDocuments:
    def test_swagger_2(self) -> None:
        with pytest.raises(openapi.SpecError) as raised:
            openapi.parse('{"swagger": "2.0", "info": {}, "paths": {}}')
        assert raised.value.code == "UNSUPPORTED_VERSION" and raised.value.path == ["swagger"]

    def test_remote_and_dangling_references(self) -> None:
        spec = document(
            {
                "/a": {
                    "get": {
                        "parameters": [
                            {"$ref": "https://example.com/params.yaml#/limit"},
                            {"$ref": "#/components/parameters/none"},
                        ],
                        "responses": ok(),
                    }
                }
            }
        )
        with pytest.raises(openapi.InvalidSpecError) as raised:
            openapi.parse(json.dumps(spec))
        found = sorted((error.code, tuple(error.path)) for error in raised.value.errors)
        assert found == [
            ("INVALID_SPEC", ("paths", "/a", "get", "parameters", "1", "$ref")),
            ("REMOTE_REFERENCE", ("paths", "/a", "get", "parameters", "0", "$ref")),
        ]

    def test_yaml_aliases_size_and_depth(self) -> None:
        with pytest.raises(openapi.SpecError, match="aliases"):
            openapi.parse("openapi: 3.0.0\na: &x [1, 2]\nb: [*x, *x]\n")
        with pytest.raises(openapi.SpecError) as too_large:
            openapi.parse("openapi: 3.0.0\n# " + "x" * openapi.MAX_SPEC_BYTES)
        assert too_large.value.code == "TOO_LARGE"
        with pytest.raises(openapi.SpecError, match="nests deeper"):
            openapi.parse("[" * 100_000 + "]" * 100_000)

    def test_servers(self) -> None:
        parsed = openapi.parse(
            json.dumps(
                document(
                    {},
                    servers=[
                        {
                            "url": "https://{region}.example.com/{base}",
                            "variables": {"region": {"default": "eu"}, "base": {"default": "v2"}},
                        }
                    ],
                )
            )
        )
        assert openapi.base_url(parsed, None) == "https://eu.example.com/v2"
        assert openapi.base_url(parsed, "http://10.0.0.1:8080/") == "http://10.0.0.1:8080"
        with pytest.raises(openapi.SpecError) as raised:
            openapi.base_url(openapi.parse(json.dumps(document({}))), None)
        assert raised.value.code == "BASE_URL_REQUIRED"


class TestRequestMapping:
    MAPPING: dict[str, Any] = {
        "method": "GET",
        "path": "/pets/{petId}",
        "parameters": [
            {"argument": "petId", "in": "path", "name": "petId"},
            {"argument": "tags", "in": "query", "name": "tags"},
            {"argument": "fields", "in": "query", "name": "fields", "explode": False},
            {"argument": "verbose", "in": "query", "name": "verbose"},
            {"argument": "X-Trace", "in": "header", "name": "X-Trace"},
        ],
        "body": None,
    }

    def test_each_argument_goes_to_its_place(self) -> None:
        request = prepare(
            "https://api.example.com/v1/pets/{petId}",
            self.MAPPING,
            {"petId": "a/b c", "tags": ["x", "y"], "fields": ["id", "name"], "verbose": True, "X-Trace": 7},
        )
        assert request.method == "GET" and request.body is None
        assert request.url == "https://api.example.com/v1/pets/a%2Fb%20c"
        assert request.params == [("tags", "x"), ("tags", "y"), ("fields", "id,name"), ("verbose", "true")]
        assert request.headers == {"X-Trace": "7"}

    def test_without_a_mapping_the_arguments_are_posted(self) -> None:
        request = prepare("https://api.example.com/hook", None, {"a": 1})
        assert (request.method, request.url, request.body) == ("POST", "https://api.example.com/hook", b'{"a": 1}')

    def test_header_values_cannot_smuggle_lines(self) -> None:
        with pytest.raises(ToolFailure) as raised:
            prepare("https://x.example/{petId}", self.MAPPING, {"petId": "1", "X-Trace": "a\r\nHost: evil"})
        assert raised.value.error.code == "PARAM_INVALID"
