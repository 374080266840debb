"""The depth of a JSON body, measured on its bytes before anything parses it."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from app.http_limits import json_depth, nested_deeper_than


def parsed_depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((parsed_depth(item) for item in value), default=0)
    if isinstance(value, dict):
        return 1 + max((parsed_depth(item) for item in value.values()), default=0)
    return 0


# Strings full of what could be mistaken for structure: quotes, backslashes, brackets.
TRICKY = ['"', "\\", "[", "]", "{", "}", "a", "中", "\n", " ", "\\u", "é"]


def random_value(chooser: random.Random, depth: int = 0) -> Any:
    roll = chooser.random()
    if depth > 10 or roll < 0.3:
        text = "".join(chooser.choice(TRICKY) for _ in range(chooser.randint(0, 8)))
        return chooser.choice([text, 1, None, True, 2.5])
    if roll < 0.65:
        return [random_value(chooser, depth + 1) for _ in range(chooser.randint(0, 3))]
    return {
        "".join(chooser.choice(TRICKY) for _ in range(chooser.randint(0, 4))): random_value(chooser, depth + 1)
        for _ in range(chooser.randint(0, 3))
    }


class TestJsonDepth:
    def test_it_is_the_depth_the_parser_sees_whatever_the_strings_hold(self) -> None:
        chooser = random.Random(20261202)
        for _ in range(3000):
            value = random_value(chooser)
            raw = json.dumps(value, ensure_ascii=chooser.random() < 0.5, indent=chooser.choice([None, 1])).encode()
            assert json_depth(raw) == parsed_depth(value), raw

    @pytest.mark.parametrize(
        ("raw", "depth"),
        [
            (b'"[[["', 0),
            (b"1", 0),
            (b"[]", 1),
            (b'{"a": "\\\\"}', 1),  # an escaped backslash ends the string at the next quote
            (b'{"a": "\\"[[["}', 1),  # an escaped quote does not
            (b'{"a": ["\\\\\\"]]]", [[]]]}', 4),
            (b"[" * 1000 + b"]" * 1000, 1000),
            (b'{"a": "' + b"[" * 100_000 + b'"}', 1),
            # More quotes than the splitting path takes: the strings are marked instead.
            (b'{"a": [' + b'"[{",' * 250_000 + b'[{"a": "]"}]]}', 4),
        ],
    )
    def test_escapes_and_brackets_inside_strings(self, raw: bytes, depth: int) -> None:
        assert json_depth(raw) == depth

    def test_nested_deeper_than_agrees_with_the_depth(self) -> None:
        chooser = random.Random(7)
        for _ in range(500):
            raw = json.dumps(random_value(chooser)).encode()
            for limit in (0, 1, 2, 5):
                assert nested_deeper_than(raw, limit) == (json_depth(raw) > limit)

    def test_a_large_body_with_few_brackets_is_within_any_limit(self) -> None:
        body = json.dumps({"query": "mutation", "variables": {"label": "x[" * 30 + "y" * 2_000_000}}).encode()
        assert not nested_deeper_than(body, 64)
        assert nested_deeper_than(b'{"a": ' + b"[" * 65 + b"]" * 65 + b"}", 64)
