"""Tenants' JSON Schemas: nothing is ever retrieved, only local references, patterns on a
linear-time engine (issue #11, items 1 and 5)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from app import jsonschemas
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import SessionFactory, fresh, http_tool, invoke, problems, set_tool_columns
from tests.schema.tools.operations import UPDATE_TOOL, create_tool, create_tool_errors
from tests.support.http_tool_server import ToolServer, running_tool_server
from tests.support.threaded_server import serve_in_thread


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


@dataclass
class SchemaHost:
    """A real HTTP server offering a schema fragment; it counts every request it gets."""

    port: int
    hits: list[str] = field(default_factory=list)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture(scope="module")
def schema_host() -> Iterator[SchemaHost]:
    hits: list[str] = []

    async def enum(request: Request) -> JSONResponse:
        hits.append(request.url.path)
        return JSONResponse({"enum": ["remote-only-value"]})

    async def ready(_: Request) -> JSONResponse:
        return JSONResponse({})

    app = Starlette(routes=[Route("/enum", enum), Route("/ready", ready)])
    with serve_in_thread(app, "/ready", name="schema host") as port:
        yield SchemaHost(port, hits)


def object_schema(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def refused(errors: list[dict[str, Any]], field: list[str]) -> str:
    assert [(error["code"], error["field"]) for error in errors] == [("INVALID_SCHEMA", field)], errors
    message: str = errors[0]["message"]
    return message


class TestReferencesAtCreation:
    async def test_a_remote_ref_is_refused_with_its_path_and_nothing_is_fetched(
        self, gql: GraphQLClient, schema_host: SchemaHost
    ) -> None:
        schema_host.hits.clear()
        schema = object_schema(a={"$ref": schema_host.url("/enum")})

        errors = await create_tool_errors(gql, fresh("remote_ref"), inputSchema=schema)

        message = refused(errors, ["input", "inputSchema"])
        assert "/properties/a/$ref" in message
        assert "nothing is ever fetched" in message
        assert schema_host.hits == []

    @pytest.mark.parametrize(
        "reference",
        ["file:///etc/passwd", "#/$defs/missing", "other.json#/x", "urn:example:thing"],
        ids=["file", "dangling", "relative-document", "urn"],
    )
    async def test_file_dangling_and_other_documents_are_refused(self, gql: GraphQLClient, reference: str) -> None:
        errors = await create_tool_errors(gql, fresh("bad_ref"), inputSchema=object_schema(a={"$ref": reference}))

        assert "/properties/a/$ref" in refused(errors, ["input", "inputSchema"])

    @pytest.mark.parametrize(
        "schema",
        [
            {"type": "object", "$ref": "#"},
            {
                "type": "object",
                "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}},
                "properties": {"x": {"$ref": "#/$defs/a"}},
            },
            # A schema kept under a keyword jsonschema does not know is still reachable by $ref.
            {"type": "object", "loop": {"$ref": "#/loop"}, "properties": {"x": {"$ref": "#/loop"}}},
        ],
        ids=["self", "through-allOf", "unknown-keyword"],
    )
    async def test_a_reference_cycle_that_never_descends_is_refused(
        self, gql: GraphQLClient, schema: dict[str, Any]
    ) -> None:
        errors = await create_tool_errors(gql, fresh("cycle"), inputSchema=schema)

        assert "recursive $ref" in refused(errors, ["input", "inputSchema"])

    async def test_update_tool_refuses_a_remote_ref_too(self, gql: GraphQLClient, schema_host: SchemaHost) -> None:
        schema_host.hits.clear()
        tool = await create_tool(gql, fresh("updated"))

        payload = (
            await gql.execute(
                UPDATE_TOOL,
                {"input": {"id": tool["id"], "inputSchema": object_schema(a={"$ref": schema_host.url("/enum")})}},
            )
        )["updateTool"]

        assert "/properties/a/$ref" in refused(payload["userErrors"], ["input", "inputSchema"])
        assert schema_host.hits == []

    async def test_output_schemas_are_held_to_the_same_rules(self, gql: GraphQLClient) -> None:
        errors = await create_tool_errors(gql, fresh("out_ref"), outputSchema={"$ref": "https://example.com/s.json"})

        refused(errors, ["input", "outputSchema"])


class TestReferencesAtCall:
    async def test_local_refs_and_defs_validate_arguments(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")
        # A tree: recursion that descends into the value is fine.
        node = {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}
        schema = {
            "type": "object",
            "$defs": {"colour": {"enum": ["red", "green"]}, "node": node},
            "properties": {
                "a": {"$ref": "#/$defs/colour"},
                "b": {"$ref": "#/properties/a"},
                "tree": {"$ref": "#/$defs/node"},
            },
        }
        tool = await create_tool(gql, fresh("local_ref"), inputSchema=schema)

        envelope = await invoke(gql, space.id, tool["id"], {"a": "blue", "b": "red", "tree": {"children": [{}, 3]}})

        assert [(problem["path"], problem["message"]) for problem in problems(envelope)] == [
            ("/a", "'blue' is not one of ['red', 'green']"),
            ("/tree/children/1", "3 is not of type 'object'"),
        ]

    async def test_a_stored_remote_ref_is_never_fetched_and_the_tool_not_served(
        self, gql: GraphQLClient, keys: Keys, session_factory: SessionFactory, schema_host: SchemaHost
    ) -> None:
        """A schema stored before vetting existed: the call is refused with the reason, nothing is fetched."""
        schema_host.hits.clear()
        space = await keys.space("alpha")
        tool = await create_tool(gql, fresh("legacy"))
        await set_tool_columns(
            session_factory, tool["id"], input_schema=object_schema(a={"$ref": schema_host.url("/enum")})
        )

        envelope = await invoke(gql, space.id, tool["id"], {"a": "x"})

        assert envelope["status"] == "FAILED"
        assert envelope["error"]["code"] == "TOOL_NOT_AVAILABLE"
        assert "/properties/a/$ref" in envelope["error"]["detail"]
        assert schema_host.hits == []

    async def test_no_validator_retrieves_even_when_built_directly(self, schema_host: SchemaHost) -> None:
        schema_host.hits.clear()
        validator = jsonschemas.LinearTimeValidator(
            object_schema(a={"$ref": schema_host.url("/enum")}), registry=jsonschemas.NO_RETRIEVAL
        )

        with pytest.raises(Exception, match="Unresolvable"):
            await asyncio.to_thread(lambda: list(validator.iter_errors({"a": "x"})))
        assert schema_host.hits == []

    async def test_validators_are_compiled_once_per_schema(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")
        schema = object_schema(n={"type": "integer", "minimum": 7, "description": fresh("unique")})
        before = jsonschemas.compiled_cache_info()
        # Compiled when the first is stored (vetting it); the second and every call find it.
        first = await create_tool(gql, fresh("compiled_a"), inputSchema=schema)
        second = await create_tool(gql, fresh("compiled_b"), inputSchema=schema)

        for tool in (first, second, first, second):
            assert problems(await invoke(gql, space.id, tool["id"], {"n": 1}))

        after = jsonschemas.compiled_cache_info()
        assert after.misses - before.misses == 1


class TestPatterns:
    async def test_patterns_run_on_a_linear_time_engine(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        schema = object_schema(a={"type": "string", "pattern": "^(a+)+$"})
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('redos')}", inputSchema=schema)

        # Backtracking engines take seconds for 28 characters, doubling with each one more.
        envelope = await invoke(gql, space.id, tool["id"], {"a": "a" * 28 + "!"})

        assert [problem["path"] for problem in problems(envelope)] == ["/a"]
        assert (await invoke(gql, space.id, tool["id"], {"a": "a" * 100_000}))["status"] == "SUCCESS"

    async def test_digit_classes_follow_json_schema_not_python(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        """JSON Schema regexes are ECMA-262: \\d is [0-9]. Python's re also matches other scripts' digits."""
        space = await keys.space("alpha")
        schema = object_schema(a={"type": "string", "pattern": r"^\d+$"})
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('digits')}", inputSchema=schema)

        assert (await invoke(gql, space.id, tool["id"], {"a": "042"}))["status"] == "SUCCESS"
        assert [problem["path"] for problem in problems(await invoke(gql, space.id, tool["id"], {"a": "٣"}))] == ["/a"]

    @pytest.mark.parametrize(
        ("schema", "value", "path"),
        [
            (
                object_schema(
                    a={"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string", "pattern": r"^\d+$"}
                ),
                {"a": "٣"},
                "/a",
            ),
            (
                {
                    "$schema": "http://json-schema.org/draft-07/schema#",
                    "type": "object",
                    "properties": {"a": {"type": "string", "pattern": r"^\d+$"}, "next": {"$ref": "#"}},
                },
                {"next": {"a": "٣"}},
                "/next/a",
            ),
        ],
        ids=["in-a-subschema", "at-the-root-reached-again"],
    )
    async def test_a_schema_naming_its_dialect_is_still_checked_on_the_linear_time_engine(
        self, gql: GraphQLClient, keys: Keys, schema: dict[str, Any], value: dict[str, Any], path: str
    ) -> None:
        """jsonschema descends into a subschema naming ``$schema`` with that dialect's stock
        validator: Python's backtracking re (where \\d matches '٣') and no budget."""
        space = await keys.space("alpha")
        tool = await create_tool(gql, fresh("dialect"), inputSchema=schema)

        assert [problem["path"] for problem in problems(await invoke(gql, space.id, tool["id"], value))] == [path]

    async def test_pattern_properties_and_additional_properties_use_it_too(
        self, gql: GraphQLClient, keys: Keys
    ) -> None:
        space = await keys.space("alpha")
        schema = {
            "type": "object",
            "patternProperties": {"^(x+)+$": {"type": "integer"}},
            "additionalProperties": False,
        }
        tool = await create_tool(gql, fresh("pattern_props"), inputSchema=schema)

        envelope = await invoke(gql, space.id, tool["id"], {"xxx": "not a number", "x" * 28 + "!": 1})

        assert sorted(problem["path"] for problem in problems(envelope)) == ["/", "/xxx"]

    @pytest.mark.parametrize(
        ("schema", "where"),
        [
            (object_schema(a={"type": "string", "pattern": r"(a)\1"}), "/properties/a/pattern"),
            (object_schema(a={"type": "string", "pattern": "(?=a)a"}), "/properties/a/pattern"),
            ({"type": "object", "patternProperties": {"(?<!x)y": {}}}, "/patternProperties/(?<!x)y"),
            (
                {"type": "object", "patternProperties": {"^x": {}}, "unevaluatedProperties": False},
                "/patternProperties",
            ),
        ],
        ids=["back-reference", "look-ahead", "look-behind-key", "with-unevaluatedProperties"],
    )
    async def test_what_the_engine_cannot_run_is_refused_at_creation(
        self, gql: GraphQLClient, schema: dict[str, Any], where: str
    ) -> None:
        errors = await create_tool_errors(gql, fresh("unsupported"), inputSchema=schema)

        assert where in refused(errors, ["input", "inputSchema"])


def ladder(levels: int) -> dict[str, Any]:
    """``anyOf`` of two references to the next level, ``levels`` deep: 2^levels subschemas applied to one value."""
    definitions: dict[str, Any] = {
        f"l{level}": {"anyOf": [{"$ref": f"#/$defs/l{level + 1}"}, {"$ref": f"#/$defs/l{level + 1}"}]}
        for level in range(levels)
    }
    definitions[f"l{levels}"] = {"type": "null"}
    return {"type": "object", "$defs": definitions, "properties": {"a": {"$ref": "#/$defs/l0"}}}


def too_much_work(envelope: dict[str, Any]) -> None:
    assert envelope["status"] == "FAILED", envelope
    assert envelope["error"]["code"] == "PARAM_INVALID", envelope
    assert "too much work" in envelope["error"]["message"]
    assert json.loads(envelope["error"]["detail"]) == {"steps": jsonschemas.MAX_VALIDATION_STEPS}


class TestValidationWork:
    """A small schema or a small value can ask for far more work than its size: one tenant's
    call held the event loop, and every other tenant, for seconds to hours (18 levels of the
    ladder: 96 s for a 3-character argument; uniqueItems over 2,000 objects: 7.6 s)."""

    async def test_a_schema_applying_exponentially_many_subschemas_is_refused_at_creation(
        self, gql: GraphQLClient
    ) -> None:
        errors = await create_tool_errors(gql, fresh("ladder"), inputSchema=ladder(13))

        message = refused(errors, ["input", "inputSchema"])
        assert f"more than {jsonschemas.MAX_IN_PLACE_EXPANSION} subschemas" in message
        assert "/$defs/l" in message

    async def test_a_few_levels_of_the_same_shape_are_stored_and_checked(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")
        tool = await create_tool(gql, fresh("small_ladder"), inputSchema=ladder(4))

        assert [problem["path"] for problem in problems(await invoke(gql, space.id, tool["id"], {"a": "x"}))] == ["/a"]

    async def test_subschemas_multiplying_at_each_level_of_the_value_stop_at_the_budget(
        self, gql: GraphQLClient, keys: Keys
    ) -> None:
        """Each level applies the next one twice (allOf of two references that descend): cheap to
        store, 2^depth work for a value ``depth`` objects deep."""
        space = await keys.space("alpha")
        doubling = {"allOf": [{"$ref": "#/$defs/level"}, {"$ref": "#/$defs/level"}]}
        schema = {
            "type": "object",
            "$defs": {"twice": doubling, "level": {"properties": {"a": {"$ref": "#/$defs/twice"}}}},
            "$ref": "#/$defs/twice",
        }
        tool = await create_tool(gql, fresh("doubling"), inputSchema=schema)
        value: dict[str, Any] = {}
        for _ in range(17):
            value = {"a": value}

        too_much_work(await invoke(gql, space.id, tool["id"], value))

    async def test_patterns_times_keys_stop_at_the_budget(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")
        schema = {"type": "object", "patternProperties": {f"^p{index}$": {} for index in range(200)}}
        tool = await create_tool(gql, fresh("many_patterns"), inputSchema=schema)

        too_much_work(await invoke(gql, space.id, tool["id"], {f"k{index}": 0 for index in range(1_000)}))

    async def test_an_enum_times_items_stops_at_the_budget(self, gql: GraphQLClient, keys: Keys) -> None:
        space = await keys.space("alpha")
        schema = object_schema(a={"type": "array", "items": {"enum": list(range(2_000))}})
        tool = await create_tool(gql, fresh("big_enum"), inputSchema=schema)

        too_much_work(await invoke(gql, space.id, tool["id"], {"a": [1_999] * 100}))

    async def test_a_large_value_written_into_many_messages_stops_at_the_budget(
        self, gql: GraphQLClient, keys: Keys
    ) -> None:
        """jsonschema writes the value into each error's message: anyOf's 2,000 failing branches
        wrote a 200 KB argument 2,000 times (about 6 s, within 2,000 steps on the loop)."""
        space = await keys.space("alpha")
        schema = {"type": "object", "anyOf": [*({"type": "array"} for _ in range(2_000)), {"type": "object"}]}
        tool = await create_tool(gql, fresh("many_messages"), inputSchema=schema)

        too_much_work(await invoke(gql, space.id, tool["id"], {f"k{index}": "x" * 40 for index in range(4_000)}))

    async def test_unique_items_compares_as_json_does(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        """Items are hashed once each (jsonschema compared every pair); equal as JSON is equal:
        1 and 1.0, objects whatever their key order; true and 1 are not."""
        space = await keys.space("alpha")
        schema = object_schema(a={"type": "array", "uniqueItems": True})
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('unique')}", inputSchema=schema)
        distinct = [{"order": index, "customer": "张伟"} for index in range(20_000)]

        assert (await invoke(gql, space.id, tool["id"], {"a": distinct}))["status"] == "SUCCESS"
        assert (await invoke(gql, space.id, tool["id"], {"a": [1, True, [0], [False], {"k": 1}, {"k": True}]}))[
            "status"
        ] == "SUCCESS"
        for duplicated in (
            [*distinct, {"customer": "张伟", "order": 19_999.0}],
            [{"k": [1, {"x": None}]}, {"k": [1.0, {"x": None}]}],
            ["a", "b", "a"],
        ):
            assert [
                problem["path"] for problem in problems(await invoke(gql, space.id, tool["id"], {"a": duplicated}))
            ] == ["/a"]

    async def test_a_check_longer_than_the_loop_allows_is_finished_with_the_same_answer(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        """Past ON_LOOP_STEPS the check runs again on a worker thread: same errors, same success."""
        space = await keys.space("alpha")
        schema = object_schema(a={"type": "array", "items": {"type": "integer", "minimum": 0}})
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('long_check')}", inputSchema=schema)
        items = list(range(jsonschemas.ON_LOOP_STEPS * 2))

        assert (await invoke(gql, space.id, tool["id"], {"a": items}))["status"] == "SUCCESS"
        envelope = await invoke(gql, space.id, tool["id"], {"a": [*items, -1, "x"]})
        assert [problem["path"] for problem in problems(envelope)] == [f"/a/{len(items)}", f"/a/{len(items) + 1}"]
