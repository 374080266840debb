"""Tools as function definitions: valid names kept, others aliased reversibly and uniquely,
static arguments left out of the schema the model sees."""

from __future__ import annotations

import copy
import hashlib
from typing import Any

from app.runtime.functions import FUNCTION_NAME, build_function_set, model_schema
from app.tools.models import ToolDefinition


def tool(tool_id: str, name: str, **columns: Any) -> ToolDefinition:
    return ToolDefinition(
        tool_id=tool_id,
        name=name,
        description=columns.pop("description", f"The {name} tool."),
        input_schema=columns.pop("input_schema", {"type": "object", "properties": {}}),
        static_arguments=columns.pop("static_arguments", {}),
        **columns,
    )


def names_of(definitions: list[dict[str, Any]]) -> list[str]:
    return [definition["function"]["name"] for definition in definitions]


class TestFunctionNames:
    def test_valid_unique_names_are_kept(self) -> None:
        functions = build_function_set([tool("bt_calculator", "calculator"), tool("ct_1", "order-lookup_v2")])

        assert sorted(names_of(functions.definitions)) == ["calculator", "order-lookup_v2"]
        assert functions.tool_id("calculator") == "bt_calculator"
        assert functions.tool_id("order-lookup_v2") == "ct_1"

    def test_a_name_over_64_characters_gets_a_valid_alias_that_maps_back(self) -> None:
        long_name = "summarise_the_quarterly_financial_report_of_every_subsidiary_company_in_europe"
        assert len(long_name) > 64
        functions = build_function_set([tool("ct_long", long_name)])

        (name,) = names_of(functions.definitions)
        assert FUNCTION_NAME.match(name)
        assert len(name) <= 64
        assert name.startswith(long_name[:40])
        assert functions.tool_id(name) == "ct_long"

    def test_invalid_characters_get_a_valid_alias_that_maps_back(self) -> None:
        odd = [tool("ct_a", "get weather!"), tool("ct_b", "météo.paris"), tool("ct_c", "")]
        functions = build_function_set(odd)

        names = names_of(functions.definitions)
        assert all(FUNCTION_NAME.match(name) for name in names), names
        assert len(set(names)) == 3
        assert {functions.tool_id(name) for name in names} == {"ct_a", "ct_b", "ct_c"}

    def test_colliding_names_get_distinct_functions_for_each_tool(self) -> None:
        tools = [
            tool("bt_calculator", "calculator"),
            tool("ct_0001", "calculator"),
            tool("mcp_math__calculator", "calculator"),
        ]
        functions = build_function_set(tools)

        names = names_of(functions.definitions)
        assert len(set(names)) == 3
        assert all(FUNCTION_NAME.match(name) for name in names)
        assert sorted(functions.tool_id(name) for name in names) == sorted(item.tool_id for item in tools)
        assert functions.tool_by_name == {name: functions.tool_id(name) for name in names}

    def test_names_are_stable_whatever_the_order_of_the_tools(self) -> None:
        tools = [tool("ct_b", "lookup"), tool("ct_a", "lookup"), tool("ct_c", "x" * 80)]

        first = build_function_set(tools)
        second = build_function_set(list(reversed(tools)))

        assert first.tool_by_name == second.tool_by_name
        # The lowest tool id keeps the plain name.
        assert first.tool_id("lookup") == "ct_a"

    def test_an_alias_never_takes_a_name_already_given(self) -> None:
        # The alias "lookup_<digest of ct_c>" is also the literal name of an earlier tool.
        alias = "lookup_" + hashlib.sha256(b"ct_c").hexdigest()[:8]
        tools = [tool("ct_a", alias), tool("ct_b", "lookup"), tool("ct_c", "lookup")]

        functions = build_function_set(tools)

        names = names_of(functions.definitions)
        assert len(set(names)) == 3, names
        assert sorted(functions.tool_by_name.values()) == ["ct_a", "ct_b", "ct_c"]

    def test_an_unknown_name_maps_to_itself(self) -> None:
        functions = build_function_set([tool("bt_calculator", "calculator")])

        assert functions.tool_id("no_such_function") == "no_such_function"

    def test_definitions_carry_description_and_schema(self) -> None:
        schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
        functions = build_function_set([tool("ct_1", "search", description="Find things.", input_schema=schema)])

        assert functions.definitions == [
            {"type": "function", "function": {"name": "search", "description": "Find things.", "parameters": schema}}
        ]


class TestModelSchema:
    SCHEMA: dict[str, Any] = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "tenant": {"type": "string"},
            "apiVersion": {"type": "string"},
        },
        "required": ["city", "tenant"],
        "additionalProperties": False,
    }

    def test_static_arguments_leave_properties_and_required(self) -> None:
        definition = tool("ct_1", "weather", input_schema=copy.deepcopy(self.SCHEMA))
        definition.static_arguments = {"tenant": "acme", "apiVersion": "v2"}

        schema = model_schema(definition)

        assert schema == {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        }
        # The tool's own schema is untouched: the gateway still validates against it.
        assert definition.input_schema == self.SCHEMA

    def test_without_static_arguments_the_schema_is_a_copy(self) -> None:
        definition = tool("ct_1", "weather", input_schema=copy.deepcopy(self.SCHEMA))

        schema = model_schema(definition)

        assert schema == self.SCHEMA
        assert schema is not definition.input_schema

    def test_static_arguments_reach_the_function_definitions(self) -> None:
        definition = tool("ct_1", "weather", input_schema=copy.deepcopy(self.SCHEMA), static_arguments={"tenant": "x"})

        functions = build_function_set([definition])

        parameters = functions.definitions[0]["function"]["parameters"]
        assert set(parameters["properties"]) == {"city", "apiVersion"}
        assert parameters["required"] == ["city"]

    def test_a_missing_schema_becomes_an_empty_object(self) -> None:
        definition = tool("ct_1", "ping")
        definition.input_schema = None  # type: ignore[assignment]

        assert model_schema(definition) == {"type": "object"}
