"""Cursors: the standard library's URL-safe base64 of ``cursor:{key}``, and back."""

from __future__ import annotations

import base64
import random

import pytest

from schema.errors import ClientError
from schema.pagination import decode_cursor, encode_cursor


def test_a_cursor_is_the_urlsafe_base64_of_its_key() -> None:
    rng = random.Random(16)
    alphabet = "abcxyz_-0189~é中\U0001f600?>/+ "
    keys = ["", "ct_000001", "ms_1__tool", *("".join(rng.choices(alphabet, k=rng.randint(1, 40))) for _ in range(500))]
    for key in keys:
        cursor = encode_cursor(key)
        assert cursor == base64.urlsafe_b64encode(f"cursor:{key}".encode()).decode()
        assert decode_cursor(cursor) == key
    assert any("-" in encode_cursor(key) or "_" in encode_cursor(key) for key in keys)  # the URL-safe letters


def test_a_cursor_that_is_not_one_is_refused() -> None:
    for cursor in ("not base64!", base64.urlsafe_b64encode(b"other:ct_1").decode()):
        with pytest.raises(ClientError):
            decode_cursor(cursor)
