"""JSON in and out, with orjson where it gives the same answer as the standard library.

orjson is several times faster, but it refuses integers beyond 64 bits when encoding
and reads them as floats when decoding (a calculator's 30-digit result would lose its
digits), and it refuses ``NaN``/``Infinity`` literals. Those cases take ``json``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

# An integer of 19 digits or more may not fit in 64 bits (digits inside strings match too: harmless).
_LONG_DIGITS = re.compile(rb"\d{19}")
_LONG_DIGITS_TEXT = re.compile(r"\d{19}")
_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps_bytes(value: Any) -> bytes:
    """Compact UTF-8 JSON (non-ASCII kept as is); ``default=str`` is not applied: unknown types raise."""
    try:
        return orjson.dumps(value, option=_OPTIONS)
    except TypeError:
        # Beyond 64-bit integers, and anything else orjson will not take: the standard library decides.
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def dumps(value: Any) -> str:
    return dumps_bytes(value).decode()


def loads(text: str | bytes) -> Any:
    if len(text) < 19:
        has_long_digits = False  # too short to hold one (a listing's tags and roles, mostly)
    elif isinstance(text, bytes):
        has_long_digits = _LONG_DIGITS.search(text) is not None
    else:
        has_long_digits = _LONG_DIGITS_TEXT.search(text) is not None
    if not has_long_digits:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # NaN, Infinity: the standard library reads them (or raises its own error)
    return json.loads(text)
