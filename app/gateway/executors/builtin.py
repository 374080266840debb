"""BUILTIN tools, run in-process (cap 5 s)."""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from simpleeval import InvalidExpression, NumberTooHigh, SimpleEval

from app.gateway.envelope import INTERNAL_ERROR, PARAM_INVALID, TIMEOUT, ToolFailure
from app.gateway.executors.base import CappedExecutor, Invocation

BuiltinFunction = Callable[[Invocation], Awaitable[Any]]

MAX_EXPRESSION_LENGTH = 500
MAX_EXPONENT = 1000
MAX_RESULT_DIGITS = 400
MAX_INT_BITS = math.ceil(MAX_RESULT_DIGITS * math.log2(10))
# Nesting of the expression tree: "-" * 498 + "1" is 499 levels, which recursed past
# Python's stack in the evaluator.
MAX_DEPTH = 50


async def current_time(invocation: Invocation) -> dict[str, Any]:
    zone_name = invocation.arguments.get("timezone") or "UTC"
    try:
        zone = ZoneInfo(zone_name) if zone_name != "UTC" else UTC
    except (ZoneInfoNotFoundError, ValueError):
        raise ToolFailure(
            PARAM_INVALID,
            f"Unknown time zone {zone_name!r}; use an IANA name such as Europe/Paris.",
            "/timezone",
        ) from None
    now = datetime.now(zone)
    return {
        "iso": now.isoformat(),
        "timezone": zone_name,
        "utcOffset": now.strftime("%z"),
        "weekday": now.strftime("%A"),
        "unix": int(now.timestamp()),
    }


def _too_large() -> ToolFailure:
    return ToolFailure(
        PARAM_INVALID, f"The result would be too large (over {MAX_RESULT_DIGITS} digits).", "/expression"
    )


def _bounded(value: Any) -> Any:
    """Every intermediate value stays within MAX_RESULT_DIGITS, so no single step can be slow:
    the largest operation left is one product of two such numbers (microseconds)."""
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise _too_large()
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolFailure(PARAM_INVALID, "The result is not a finite number.", "/expression")
    return value


def _checked(function: Callable[..., Any]) -> Callable[..., Any]:
    def apply(*operands: Any) -> Any:
        return _bounded(function(*operands))

    return apply


def _safe_power(base: Any, exponent: Any) -> Any:
    if isinstance(exponent, int | float) and abs(exponent) > MAX_EXPONENT:
        raise ToolFailure(PARAM_INVALID, f"Exponents above {MAX_EXPONENT} are refused.", "/expression")
    if isinstance(base, int | float) and isinstance(exponent, int | float) and base not in (0, 1, -1):
        # Bound the size of the result before computing it.
        magnitude = abs(exponent) * math.log10(max(abs(base), 1e-300))
        if magnitude > MAX_RESULT_DIGITS:
            raise _too_large()
    return _bounded(operator.pow(base, exponent))


def _safe_round(number: Any, ndigits: Any = None) -> Any:
    # round(1, -10**7) builds 10**(10**7) first: refuse such ndigits before rounding.
    if ndigits is not None and (not isinstance(ndigits, int) or abs(ndigits) > MAX_RESULT_DIGITS):
        raise ToolFailure(
            PARAM_INVALID,
            f"round's digits are an integer between -{MAX_RESULT_DIGITS} and {MAX_RESULT_DIGITS}.",
            "/expression",
        )
    return _bounded(round(number, ndigits))


ALLOWED_FUNCTIONS = {"abs", "round", "min", "max", "sqrt"}
ALLOWED_NAMES = {"pi", "e"}
ALLOWED_NODES = (
    ast.Expression,
    ast.BinOp,
    ast.UnaryOp,
    ast.Constant,
    ast.Call,
    ast.Name,
    ast.Load,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Mod,
    ast.Pow,
    ast.USub,
    ast.UAdd,
)


def _check_arithmetic(expression: str) -> None:
    """Only numbers, arithmetic operators and the listed functions: no strings, attributes,
    subscripts or other names, so nothing can allocate or escape before evaluation."""
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise ToolFailure(PARAM_INVALID, "Not an arithmetic expression this calculator understands.") from None
    _check_depth(tree)
    for node in ast.walk(tree):
        allowed = isinstance(node, ALLOWED_NODES)
        if isinstance(node, ast.Constant):
            allowed = isinstance(node.value, int | float) and not isinstance(node.value, bool)
            if allowed:
                _bounded(node.value)
        elif isinstance(node, ast.Name):
            allowed = node.id in ALLOWED_NAMES | ALLOWED_FUNCTIONS
        elif isinstance(node, ast.Call):
            allowed = isinstance(node.func, ast.Name) and node.func.id in ALLOWED_FUNCTIONS and not node.keywords
        if not allowed:
            raise ToolFailure(
                PARAM_INVALID,
                "Only numbers, + - * / // % **, parentheses and abs, round, min, max, sqrt are allowed.",
                f"not allowed: {type(node).__name__}",
            )


def _check_depth(tree: ast.AST) -> None:
    pending = [(tree, 1)]
    while pending:
        node, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise ToolFailure(
                PARAM_INVALID, f"The expression is nested more than {MAX_DEPTH} levels deep.", "/expression"
            )
        pending.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _evaluator() -> SimpleEval:
    evaluator = SimpleEval()
    evaluator.operators = {
        ast.Add: _checked(operator.add),
        ast.Sub: _checked(operator.sub),
        ast.Mult: _checked(operator.mul),
        ast.Div: _checked(operator.truediv),
        ast.FloorDiv: _checked(operator.floordiv),
        ast.Mod: _checked(operator.mod),
        ast.Pow: _safe_power,
        ast.USub: operator.neg,
        ast.UAdd: operator.pos,
    }
    evaluator.functions = {
        "abs": abs,
        "round": _safe_round,
        "min": min,
        "max": max,
        "sqrt": _checked(math.sqrt),
    }
    evaluator.names = {"pi": math.pi, "e": math.e}
    return evaluator


async def calculator(invocation: Invocation) -> dict[str, Any]:
    expression = str(invocation.arguments.get("expression", ""))
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise ToolFailure(PARAM_INVALID, f"Expressions are limited to {MAX_EXPRESSION_LENGTH} characters.")
    _check_arithmetic(expression)
    try:
        value = _evaluator().eval(expression)
    except ToolFailure:
        raise
    except ZeroDivisionError:
        raise ToolFailure(PARAM_INVALID, "Division by zero.", "/expression") from None
    except (NumberTooHigh, OverflowError):
        raise ToolFailure(PARAM_INVALID, "The result would be too large.", "/expression") from None
    except (InvalidExpression, SyntaxError, TypeError, ValueError, KeyError, AttributeError, RecursionError) as error:
        raise ToolFailure(
            PARAM_INVALID, "Not an arithmetic expression this calculator understands.", str(error)
        ) from None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ToolFailure(PARAM_INVALID, "The expression does not evaluate to a number.")
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolFailure(PARAM_INVALID, "The result is not a finite number.")
    return {"expression": expression, "result": value}


class BuiltinExecutor(CappedExecutor):
    cap_seconds = 5.0
    timeout_code = TIMEOUT

    def __init__(self) -> None:
        self.functions: dict[str, BuiltinFunction] = {
            "bt_current_time": current_time,
            "bt_calculator": calculator,
        }
        # Builtins that run longer than the 5 s cap (bt_send_message waits for a run).
        self.cap_overrides: dict[str, float] = {}

    def register(self, tool_id: str, function: BuiltinFunction, *, cap_seconds: float | None = None) -> None:
        """The domains above the gateway plug their builtins in here (``bt_search_knowledge``, ``bt_send_message``:
        see the composition root, ``app.main``)."""
        self.functions[tool_id] = function
        if cap_seconds is not None:
            self.cap_overrides[tool_id] = cap_seconds

    def cap_for(self, tool_id: str) -> float:
        return self.cap_overrides.get(tool_id, self.cap_seconds)

    async def execute(self, invocation: Invocation) -> Any:
        function = self.functions.get(invocation.tool.tool_id)
        if function is None:
            raise ToolFailure(INTERNAL_ERROR, "This builtin tool has no executor.", invocation.tool.tool_id)
        return await function(invocation)
