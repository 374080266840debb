"""Tool.from_row sets a Tool's fields directly: the same object its dataclass constructor makes."""

from __future__ import annotations

import dataclasses
import inspect
from datetime import UTC, datetime
from typing import cast

import pytest

from app.tools.repository import TOOL_ROW_COLUMNS, ToolRecord, ToolRow
from schema.enums import ApprovalPolicy, AuthType, Role, SideEffect, Status, ToolType
from schema.tools.types import Tool

WHEN = datetime(2026, 12, 6, 6, 0, tzinfo=UTC)


def record(**values: object) -> ToolRow:
    columns: dict[str, object] = {column.name: None for column in TOOL_ROW_COLUMNS}
    columns.update(
        tool_id="ct_1",
        name="look_up",
        label="Look up",
        description="Looks a record up.",
        input_schema={"type": "object"},
        type="CUSTOM",
        status="ACTIVE",
        auth_type="NONE",
        side_effect="READ",
        timeout_ms=1000,
        max_retries=1,
        tags=["a"],
        allowed_roles=["ADMIN"],
        version="1.0.0",
        created_at=WHEN,
        updated_at=WHEN,
        approval="NEVER",
    )
    columns.update(values)
    return cast(ToolRow, ToolRecord(**columns))  # a named tuple of the protocol's columns


@pytest.mark.parametrize(
    "values",
    [
        {},
        {"output_schema": {"type": "string"}, "request_mapping": {"method": "GET"}, "endpoint": "https://x.test"},
        {"tags": None, "allowed_roles": None, "approval": None, "drifted_at": WHEN, "group": "g", "owner": "o"},
        {"type": "MCP", "mcp_server_id": "ms_1", "status": "DISABLED", "side_effect": "WRITE", "input_schema": False},
    ],
)
def test_from_row_makes_what_the_constructor_makes(values: dict[str, object]) -> None:
    row = record(**values)
    tool = Tool.from_row(row)
    parameters = list(inspect.signature(Tool.__init__).parameters)[1:]
    assert list(vars(tool)) == parameters  # every field the constructor sets, nothing else
    assert not hasattr(Tool, "__post_init__")
    constructed = Tool(**{name: getattr(tool, name) for name in parameters})
    assert vars(constructed) == vars(tool)
    assert type(constructed) is type(tool) is Tool
    assert tool.type is ToolType(row.type) and tool.status is Status(row.status)
    assert tool.auth_type is AuthType.NONE and tool.side_effect is SideEffect(row.side_effect)
    assert tool.approval is ApprovalPolicy(row.approval or "NEVER")
    assert tool.allowed_roles == [Role(role) for role in row.allowed_roles or []]
    assert tool.tags == list(row.tags or []) and tool.tags is not row.tags
    assert tool.row is row
    assert {field.name for field in dataclasses.fields(Tool)} >= set(parameters)


def test_an_unknown_stored_value_raises_as_the_enum_raises() -> None:
    with pytest.raises(ValueError):
        Tool.from_row(record(type="NOT_A_TYPE"))
