"""Every operation the console sends fits under the default QUIVER_GRAPHQL_MAX_COST.

The default cost limit bounds the heaviest query one tenant may make the others wait behind
(bench/noisy_neighbour.py), so it is kept as low as the console allows: a console page that
asked for more would be refused with QUERY_TOO_COSTLY. Each operation is costed as the server
costs it, with every page size at its largest (100), whatever the page sends today.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from graphql import OperationDefinitionNode, parse

from app.config import Settings
from schema.limits import PAGE_ARGUMENTS, operation_cost
from schema.pagination import MAX_FIRST
from schema.schema import build_schema
from tests.support.processes import REPOSITORY_ROOT

OPERATIONS = sorted((REPOSITORY_ROOT / "console" / "src" / "operations").glob("*.graphql"))


def operations(path: Path) -> list[tuple[str, OperationDefinitionNode]]:
    document = parse(path.read_text(encoding="utf-8"))
    return [
        (definition.name.value, definition)
        for definition in document.definitions
        if isinstance(definition, OperationDefinitionNode) and definition.name is not None
    ]


def test_the_console_sends_operations() -> None:
    names = [name for path in OPERATIONS for name, _ in operations(path)]
    assert "McpServers" in names and "McpServerTools" in names and "AgentDetail" in names


@pytest.mark.parametrize("path", OPERATIONS, ids=lambda path: path.stem)
def test_every_console_operation_fits_under_the_default_cost_limit(path: Path) -> None:
    schema = build_schema()._schema
    limit = Settings().graphql_max_cost
    document = parse(path.read_text(encoding="utf-8"))
    for name, operation in operations(path):
        variables = {
            variable.variable.name.value: MAX_FIRST
            for variable in operation.variable_definitions or ()
            if variable.variable.name.value in PAGE_ARGUMENTS
        }
        cost = operation_cost(schema, document, name, variables)
        assert cost <= limit, f"{name} costs {cost} with pages of {MAX_FIRST}, over the default limit of {limit}"


def test_the_mcp_servers_page_loads_each_servers_tools_on_its_own() -> None:
    """The page of 20 servers with every server's 100 tools cost about 16,800; the list alone
    and one server's page of tools each cost a fraction of the default limit."""
    schema = build_schema()._schema
    document = parse((REPOSITORY_ROOT / "console" / "src" / "operations" / "mcp.graphql").read_text(encoding="utf-8"))
    limit = Settings().graphql_max_cost

    servers = operation_cost(schema, document, "McpServers", {"first": 20})
    tools = operation_cost(schema, document, "McpServerTools", {})

    assert servers * 4 <= limit
    assert tools * 4 <= limit
