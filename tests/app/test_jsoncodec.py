"""JSON through orjson must read and write what the standard library would."""

from __future__ import annotations

import json
import math

from app import jsoncodec


def test_integers_beyond_64_bits_keep_every_digit() -> None:
    value = {"result": 10**30 + 7, "small": 3, "list": [-(2**70), 1.5]}
    text = jsoncodec.dumps(value)
    assert json.loads(text) == value
    assert jsoncodec.loads(text) == value
    assert jsoncodec.loads(text.encode()) == value


def test_reads_what_the_standard_library_wrote() -> None:
    values: list[object] = [{"a": [1, 2, {"b": None}], "é": "ü"}, [], "text", 12, {"nan": float("inf")}]
    for value in values:
        assert jsoncodec.loads(json.dumps(value)) == value
    assert math.isnan(jsoncodec.loads("NaN"))


def test_writes_keys_that_are_not_strings_as_the_standard_library_does() -> None:
    assert json.loads(jsoncodec.dumps({1: "one", "two": 2})) == json.loads(json.dumps({1: "one", "two": 2}))
