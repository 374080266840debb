"""What the gateway does to an outcome before anyone sees it: results made JSON-safe, and a
tool's secret values (in the forms they travel in) cut out of results, errors and log lines.

- ``json_safe``: NaN and ±Infinity become null, integers beyond ±(2**53 - 1) become their
  decimal string, NUL characters and lone surrogates become U+FFFD, tuples become lists, any
  other non-JSON value its ``str``; objects nested deeper than ``MAX_DEPTH`` are cut.
- ``SecretScrubber``: every occurrence of a secret — raw, stripped, as Python or JSON escapes
  it, URL-encoded, base64, ``id:secret`` in base64 (HTTP Basic) — becomes ``[secret]``.
"""

from __future__ import annotations

import base64
import functools
import json
import math
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus

REDACTED_SECRET = "[secret]"
#: Shorter values are not looked for (they would cut ordinary words out of every result).
MIN_SECRET_CHARS = 4
#: Largest integer kept as a number (what every JSON reader holds exactly, RFC 7493).
MAX_SAFE_INTEGER = 2**53 - 1
MAX_DEPTH = 100
TOO_DEEP = f"[cut: nested deeper than {MAX_DEPTH} levels]"
_UNSAFE_CHARACTERS = re.compile("[\x00\ud800-\udfff]")


def json_safe(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON every store and client accepts (see the module's doc)."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _UNSAFE_CHARACTERS.sub("\ufffd", value) if _UNSAFE_CHARACTERS.search(value) else value
    if isinstance(value, int):
        return value if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER else _huge_int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if depth >= MAX_DEPTH:
        return TOO_DEEP
    if isinstance(value, dict):
        return {json_safe(str(key)): json_safe(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item, depth + 1) for item in value]
    return json_safe(str(value))


def _huge_int(value: int) -> str:
    try:
        return str(value)
    except ValueError:  # past Python's int-to-str digit limit
        digits = int(math.log10(abs(value))) + 1
        return f"[integer of about {digits} digits]"


def secret_forms(values: Iterable[str], *, pairs: Iterable[tuple[str, str]] = ()) -> tuple[str, ...]:
    """Each secret in the forms it travels or is echoed in, longest first."""
    forms: set[str] = set()
    for value in values:
        for variant in {value, value.strip()}:
            if len(variant) < MIN_SECRET_CHARS:
                continue
            forms.update(
                {
                    variant,
                    repr(variant)[1:-1],
                    json.dumps(variant)[1:-1],
                    repr(variant.encode("utf-8", "replace"))[2:-1],
                    quote(variant, safe=""),
                    quote_plus(variant),
                    base64.b64encode(variant.encode("utf-8", "replace")).decode().rstrip("="),
                }
            )
    for user, secret in pairs:
        if len(secret.strip()) < MIN_SECRET_CHARS:
            continue
        forms.add(base64.b64encode(f"{user}:{secret}".encode("utf-8", "replace")).decode().rstrip("="))
    return tuple(sorted(forms, key=len, reverse=True))


class SecretScrubber:
    """Cuts a fixed set of secret forms out of text and JSON values."""

    def __init__(self, forms: tuple[str, ...]) -> None:
        self._pattern = _pattern(forms) if forms else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, text: str) -> str:
        return self._pattern.sub(REDACTED_SECRET, text) if self._pattern is not None else text

    def optional_text(self, text: str | None) -> str | None:
        return None if text is None else self.text(text)

    def value(self, value: Any) -> Any:
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(key)): self.value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        return value


NO_SECRETS = SecretScrubber(())


@functools.lru_cache(maxsize=512)
def _pattern(forms: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(form) for form in forms))


@functools.lru_cache(maxsize=512)
def scrubber_for(values: tuple[str, ...], pairs: tuple[tuple[str, str], ...] = ()) -> SecretScrubber:
    """One scrubber per distinct set of secrets (compiled once)."""
    return SecretScrubber(secret_forms(values, pairs=pairs))
