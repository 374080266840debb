"""The gateway's outcome clean-up: JSON-safe values, and secrets cut out in every form they travel in."""

from __future__ import annotations

import base64
import json
import math
from urllib.parse import quote, quote_plus

import pytest

from app.gateway.redaction import MAX_DEPTH, REDACTED_SECRET, TOO_DEEP, json_safe, scrubber_for

SECRET = "s3cr3t/with+odd=chars&more"


@pytest.mark.parametrize(
    "form",
    [
        SECRET,
        f"Bearer {SECRET}",
        quote(SECRET, safe=""),
        quote_plus(SECRET),
        json.dumps(SECRET + '"q')[1:-1],
        base64.b64encode(SECRET.encode()).decode(),
        base64.b64encode(f"client-1:{SECRET}".encode()).decode(),
    ],
    ids=["raw", "bearer", "url", "form", "json", "base64", "basic-auth"],
)
def test_every_form_of_a_secret_is_cut(form: str) -> None:
    scrub = scrubber_for((SECRET,), (("client-1", SECRET),))

    text = scrub.text(f"upstream said: {form} (end)")

    assert SECRET not in text and form not in text and REDACTED_SECRET in text


def test_a_secret_with_a_newline_is_cut_as_python_and_json_show_it() -> None:
    scrub = scrubber_for(("line-secret-77\n",))
    for shown in (repr(b"Bearer line-secret-77\n"), json.dumps("line-secret-77\n"), "line-secret-77"):
        assert "line-secret-77" not in scrub.text(shown)
    value = scrub.value({"line-secret-77": ["x line-secret-77 y", 3, None]})
    assert "line-secret-77" not in json.dumps(value)


def test_short_values_are_not_looked_for() -> None:
    assert not scrubber_for(("abc",))
    assert scrubber_for(("abc",)).value({"a": "abc"}) == {"a": "abc"}


def test_results_become_json_any_store_and_client_accepts() -> None:
    huge = 7**5500  # past Python's own int-to-str limit
    value = json_safe(
        {
            "nan": math.nan,
            "inf": [math.inf, -math.inf],
            "big": 2**53,
            "safe": 2**53 - 1,
            "huge": huge,
            "nul": "a\x00b",
            "surrogate": "x\ud800y",
            "tuple": (1, 2.5),
            3: "int key",
            "other": b"bytes",
        }
    )
    assert value["nan"] is None and value["inf"] == [None, None]
    assert value["big"] == str(2**53) and value["safe"] == 2**53 - 1
    assert value["huge"].startswith("[integer of about 46") and value["huge"].endswith(" digits]")
    assert value["nul"] == "a\ufffdb" and value["surrogate"] == "x\ufffdy"
    assert value["tuple"] == [1, 2.5] and value["3"] == "int key" and value["other"] == "b'bytes'"
    json.dumps(value, allow_nan=False).encode()  # strict JSON, valid UTF-8


def test_nesting_is_cut_at_the_limit() -> None:
    deep: object = "bottom"
    for _ in range(MAX_DEPTH + 50):
        deep = [deep]
    value = json_safe(deep)
    for _ in range(MAX_DEPTH):
        assert isinstance(value, list)
        value = value[0]
    assert value == TOO_DEEP
