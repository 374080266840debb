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


def test_may_hold_long_integer_flags_what_orjson_would_read_as_a_float() -> None:
    assert jsoncodec.may_hold_long_integer(b'{"n": 123456789012345678901234567890}')
    assert jsoncodec.may_hold_long_integer('{"n": 1234567890123456789}')
    assert not jsoncodec.may_hold_long_integer(b'{"n": 123456789012345678}')
    # Many digits in all, none 19 in a row (the digit count alone does not decide), non-ASCII text around.
    many = '{"a": [' + ", ".join(["123456789012345678"] * 5) + '], "é": "六 ١٢٣٤٥٦٧٨٩٠١٢٣٤٥٦٧٨٩٠"}'
    assert not jsoncodec.may_hold_long_integer(many)
    assert not jsoncodec.may_hold_long_integer(many.encode())
    assert jsoncodec.may_hold_long_integer(many.replace("]", ", -12345678901234567890]"))
    assert jsoncodec.loads(many.replace("]", ", 12345678901234567890]"))["a"][-1] == 12345678901234567890


def test_loads_unicode_reads_what_json_reads() -> None:
    text = '{"a": "\\ud83d\\ude80 六", "b": "\\\\ud800 \\\\u0000", "n": 123456789012345678901234567890}'
    assert jsoncodec.loads_unicode(text) == json.loads(text)
    assert jsoncodec.loads_unicode(text.encode()) == json.loads(text)


def test_loads_unicode_refuses_what_is_not_unicode_text() -> None:
    refused: list[str | bytes] = [
        b'{"a": "\xff\xfe"}',  # not UTF-8
        b'{"a": "\\ud800"}',  # a high surrogate without its low half
        b'{"\\udc00": 1}',  # a low one, as a key
        '{"a": ["x", {"b": "\\uDBFFz"}]}',  # upper case, nested, in text
        b'{"a": "x\\u0000"}',  # NUL, which PostgreSQL text cannot hold
        '{"\\u0000": 1}',
    ]
    for text in refused:
        try:
            jsoncodec.loads_unicode(text)
        except json.JSONDecodeError as error:
            assert isinstance(error, jsoncodec.NotUnicodeError)
        else:
            raise AssertionError(f"{text!r} was read")
