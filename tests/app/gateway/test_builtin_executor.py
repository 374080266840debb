"""The BUILTIN executor on its own: current time and the calculator, without the gateway."""

from __future__ import annotations

import tracemalloc
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.gateway.envelope import INTERNAL_ERROR, PARAM_INVALID, ToolFailure
from app.gateway.executors.base import Invocation
from app.gateway.executors.builtin import MAX_EXPRESSION_LENGTH, MAX_RESULT_DIGITS, BuiltinExecutor
from app.principal import SYSTEM_PRINCIPAL
from app.tools.models import ToolDefinition


def invocation(tool_id: str, arguments: dict[str, Any]) -> Invocation:
    return Invocation(
        tool=ToolDefinition(tool_id=tool_id, name=tool_id, type="BUILTIN"),
        arguments=arguments,
        principal=SYSTEM_PRINCIPAL,
        space_id="sp_test",
        trace_id="0" * 32,
        timeout_s=5.0,
    )


async def run(tool_id: str, arguments: dict[str, Any]) -> Any:
    return await BuiltinExecutor().execute(invocation(tool_id, arguments))


async def refused(tool_id: str, arguments: dict[str, Any]) -> ToolFailure:
    with pytest.raises(ToolFailure) as raised:
        await run(tool_id, arguments)
    return raised.value


class TestCurrentTime:
    @pytest.mark.parametrize("zone", ["Europe/Paris", "America/New_York", "Asia/Kolkata"])
    async def test_time_in_the_given_zone(self, zone: str) -> None:
        data = await run("bt_current_time", {"timezone": zone})

        moment = datetime.fromisoformat(data["iso"])
        assert data["timezone"] == zone
        assert moment.utcoffset() == datetime.now(ZoneInfo(zone)).utcoffset()
        assert abs(moment - datetime.now(UTC)) < timedelta(seconds=5)
        assert data["unix"] == int(moment.timestamp())

    async def test_utc_when_no_zone_is_given(self) -> None:
        data = await run("bt_current_time", {})

        assert data["timezone"] == "UTC"
        assert data["utcOffset"] == "+0000"

    @pytest.mark.parametrize("zone", ["Nowhere/Atlantis", "../../etc/passwd", "Europe/", "/etc/localtime"])
    async def test_unknown_zone_is_param_invalid(self, zone: str) -> None:
        failure = await refused("bt_current_time", {"timezone": zone})

        assert failure.error.code == PARAM_INVALID
        assert not failure.retryable


class TestCalculator:
    @pytest.mark.parametrize(
        ("expression", "result"),
        [
            ("1 + 2 * 3", 7),
            ("(1250 * 1.2) / 3", 500.0),
            ("-(4 - 10) // 4", 1),
            ("17 % 5", 2),
            ("2 ** 10", 1024),
            ("2 ** -1", 0.5),
            ("round(2 * pi, 2)", 6.28),
            ("max(3, min(9, 4)) + sqrt(81)", 13.0),
            ("2 ** 1000 // 2 ** 999", 2),
        ],
    )
    async def test_arithmetic(self, expression: str, result: float) -> None:
        assert await run("bt_calculator", {"expression": expression}) == {"expression": expression, "result": result}

    @pytest.mark.parametrize(
        "expression",
        [
            "10 ** 1001",  # exponent over the limit
            "9 ** 500",  # a result of more than 400 digits
            "9 ** 9 ** 9",
            "(10 ** 10) ** (10 ** 10)",
            "1e308 * 10",  # not finite
            "sqrt(10 ** 400 * 10 ** 400)",
        ],
    )
    async def test_huge_results_are_refused(self, expression: str) -> None:
        failure = await refused("bt_calculator", {"expression": expression})

        assert failure.error.code == PARAM_INVALID

    async def test_long_expressions_are_refused(self) -> None:
        expression = "1+" * (MAX_EXPRESSION_LENGTH // 2) + "1"

        failure = await refused("bt_calculator", {"expression": expression})

        assert failure.error.code == PARAM_INVALID
        assert str(MAX_EXPRESSION_LENGTH) in failure.error.message

    @pytest.mark.parametrize(
        "expression",
        [
            "round(1, -10 ** 7)",  # built 10 ** (10 ** 7) first: 16 s with the event loop held
            "round(1.5, 10 ** 6)",
            "round(1, 0.5)",
            "-" * 498 + "1",  # recursed past Python's stack
            "+-" * 100 + "1",
            "9" * 402,  # an operand over the digit bound
            "10 ** 399 * 10 ** 399",
            "(10 ** 300) ** 2",
            "10 ** 399 * 10 ** 399 % 7",  # an over-large intermediate, even if the end is small
            "1e300 * 1e300",
        ],
    )
    async def test_worst_cases_are_refused_before_they_run(self, expression: str) -> None:
        failure = await refused("bt_calculator", {"expression": expression})

        assert failure.error.code == PARAM_INVALID, failure.error

    async def test_results_up_to_the_bound_are_computed(self) -> None:
        data = await run("bt_calculator", {"expression": "10 ** 399 * 9 - round(10 ** 399, -399) + 7"})

        assert data["result"] == 8 * 10**399 + 7
        assert len(str(int(data["result"]))) == MAX_RESULT_DIGITS

    @pytest.mark.parametrize(
        "expression",
        [
            "__import__('os')",
            "__import__('os').system('touch /tmp/quiver-calculator-escape')",
            "().__class__.__bases__[0].__subclasses__()",
            "(1).__class__",
            "open('/etc/passwd').read()",
            "eval('1 + 1')",
            "exec('x = 1')",
            "globals()",
            "(lambda: 1)()",
            "x",
            "1 +",
            "'text'",
            "[1, 2, 3]",
            "1 / 0",
            "True",
        ],
    )
    async def test_anything_but_arithmetic_is_param_invalid(self, expression: str) -> None:
        failure = await refused("bt_calculator", {"expression": expression})

        assert failure.error.code == PARAM_INVALID

    @pytest.mark.parametrize("expression", ["'a' * 10 ** 8", "'0'.zfill(10 ** 8)"])
    async def test_string_building_is_refused_before_allocating(self, expression: str) -> None:
        tracemalloc.start()
        try:
            failure = await refused("bt_calculator", {"expression": expression})
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()

        assert failure.error.code == PARAM_INVALID
        assert peak < 10 * 1024 * 1024, f"{peak} bytes allocated for {expression!r}"


class TestExecutor:
    async def test_unknown_builtin_is_an_internal_error(self) -> None:
        failure = await refused("bt_no_such_builtin", {})

        assert failure.error.code == INTERNAL_ERROR

    async def test_registered_function_runs_with_the_invocation(self) -> None:
        executor = BuiltinExecutor()

        async def echo(received: Invocation) -> dict[str, Any]:
            return {"tool": received.tool.tool_id, "arguments": received.arguments}

        executor.register("bt_echo", echo)

        assert await executor.execute(invocation("bt_echo", {"a": 1})) == {"tool": "bt_echo", "arguments": {"a": 1}}
