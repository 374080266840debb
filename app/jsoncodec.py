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
# Found by two C passes, without a regular expression (whose engine tries every position: 5 to 7
# times slower on a schema, worse on text full of times and ids): every ASCII digit made "0", every
# other byte a space, then a search for 19 zeros.
_DIGITS_AS_ZEROS = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
_NINETEEN_DIGITS = b"0" * 19
_OPTIONS = orjson.OPT_NON_STR_KEYS


class Raw:
    """JSON text written already (by the database: schema.tools.rendering), written into an
    answer as it is by :func:`dumps_bytes`."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Raw({self.text!r})"


def _orjson_default(value: Any) -> Any:
    if type(value) is Raw:
        return orjson.Fragment(value.text)
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def _standard_default(value: Any) -> Any:
    if type(value) is Raw:
        return loads(value.text)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps_bytes(value: Any) -> bytes:
    """Compact UTF-8 JSON (non-ASCII kept as is); ``default=str`` is not applied: unknown types
    raise. A :class:`Raw` is written as the JSON it holds."""
    try:
        return orjson.dumps(value, default=_orjson_default, option=_OPTIONS)
    except TypeError:
        # Beyond 64-bit integers, and anything else orjson will not take: the standard library decides.
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_standard_default).encode()


def dumps(value: Any) -> str:
    return dumps_bytes(value).decode()


def may_hold_long_integer(text: str | bytes) -> bool:
    """Whether ``text`` may hold an integer orjson would read as a float (``json`` as an int)."""
    if len(text) < 19:
        return False  # too short to hold one (a listing's tags and roles, mostly)
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    return _NINETEEN_DIGITS in data.translate(_DIGITS_AS_ZEROS)


def loads(text: str | bytes) -> Any:
    if not may_hold_long_integer(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # NaN, Infinity: the standard library reads them (or raises its own error)
    return json.loads(text)


# A ``\uD800``-``\uDFFF`` escape (half of a UTF-16 pair, which JSON allows alone but Unicode does
# not) or ``\u0000`` (NUL, which PostgreSQL text cannot hold): the strings are then looked at.
_SUSPECT_ESCAPE = re.compile(rb"\\u(?:[dD][89a-fA-F]|0000)")
_SUSPECT_ESCAPE_TEXT = re.compile(r"\\u(?:[dD][89a-fA-F]|0000)")
_REFUSED = re.compile("[\ud800-\udfff\x00]")


class NotUnicodeError(json.JSONDecodeError):
    """The text is JSON but not text Quiver takes: bytes that are not UTF-8, a lone surrogate, a
    NUL, an integer of more than 4,300 digits."""


def may_be_refused(text: str | bytes) -> bool:
    """Whether :func:`loads_unicode` may refuse ``text`` for what a string holds (orjson reads a NUL):
    an escape that may spell a lone surrogate or U+0000, or (in a ``str``) such a character itself."""
    if isinstance(text, bytes):
        return _SUSPECT_ESCAPE.search(text) is not None
    return _SUSPECT_ESCAPE_TEXT.search(text) is not None or _REFUSED.search(text) is not None


def loads_unicode(text: str | bytes) -> Any:
    """``json.loads(text)`` (what Strawberry reads a request with), refusing with
    :class:`NotUnicodeError`, a ``json.JSONDecodeError``: bytes that are not UTF-8
    (``json.loads`` raised UnicodeDecodeError, a server fault) and strings holding a lone
    surrogate (``"\\ud800"``) or a NUL (``"\\u0000"``). ``json.loads`` takes both; every database
    driver refuses the first and PostgreSQL the second, after the call ran: an internal error
    and a lost call-log row, or an INTERNAL_ERROR for an id or a label."""
    try:
        value = json.loads(text)
    except UnicodeDecodeError as error:
        raise NotUnicodeError(f"The body is not UTF-8 text ({error.reason} at byte {error.start}).", "", 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError as error:
        # An integer of more digits than Python converts (4,300): a ValueError that is not a
        # JSONDecodeError, which the HTTP view answered 500 and a WebSocket as a server fault.
        raise NotUnicodeError(f"The JSON is not read: {str(error).split(';')[0]}.", "", 0) from None
    refused = _refused_character(value) if may_be_refused(text) else None
    if refused == "\x00":
        raise NotUnicodeError("A string holds U+0000 (NUL), which Quiver does not store.", "", 0)
    if refused is not None:
        raise NotUnicodeError("A string holds a lone UTF-16 surrogate (\\uD800-\\uDFFF without its pair).", "", 0)
    return value


def _refused_character(value: Any) -> str | None:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            found = _REFUSED.search(item)
            if found is not None:
                return found.group()
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return None
