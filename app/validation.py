"""Input checks shared by several domains."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from app.errors import DomainError
from app.jsonschemas import UnsafeSchemaError, vetted

SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$")
STATUSES = ("ACTIVE", "DISABLED", "ARCHIVED")
#: Longest JSON Schema stored (as compact JSON); real tool schemas are a few KB.
MAX_SCHEMA_CHARS = 100_000
# What an HTTP header value may be (RFC 9110, without obs-text): visible ASCII, inner spaces
# and tabs, nothing at either end that a parser would strip.
HEADER_VALUE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?")
CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f]")


def is_header_value(value: str) -> bool:
    return HEADER_VALUE.fullmatch(value) is not None


def check_secret(value: str, field: Sequence[str], *, in_header: bool) -> str:
    """A credential as it may be stored: never repeated in the message."""
    if in_header and not is_header_value(value):
        raise DomainError(
            "INVALID_SECRET",
            "The secret is sent in an HTTP header: only visible ASCII characters and inner spaces "
            "(no line breaks or other control characters, no non-ASCII letters, nothing blank at either end).",
            field,
        )
    if CONTROL_CHARACTER.search(value):
        raise DomainError("INVALID_SECRET", "The value may not contain line breaks or other control characters.", field)
    return value


async def check_json_schema(schema: Any, field: Sequence[str], *, require_object: bool) -> dict[str, Any]:
    """A JSON Schema valid against the 2020-12 meta-schema, safe to serve (see app.jsonschemas:
    local references only, linear-time patterns, no endless reference cycles), and
    ``type: object`` if asked. Vetted off the event loop (``vetted``), within the bounds of
    app.jsonschemas (patterns counted before any is compiled)."""
    if not isinstance(schema, dict):
        raise DomainError("INVALID_SCHEMA", "A JSON Schema must be a JSON object.", field)
    # Characters as written (ensure_ascii=False): ASCII escapes counted each Chinese one six times.
    size = len(json.dumps(schema, separators=(",", ":"), ensure_ascii=False))
    if size > MAX_SCHEMA_CHARS:
        raise DomainError(
            "INVALID_SCHEMA", f"The schema is {size} characters of JSON; at most {MAX_SCHEMA_CHARS} are stored.", field
        )
    try:
        await vetted(schema)
    except UnsafeSchemaError as problem:
        raise DomainError("INVALID_SCHEMA", f"Refused at {problem.where}: {problem.message}.", field) from None
    if require_object and schema.get("type") != "object":
        raise DomainError(
            "INVALID_SCHEMA",
            'Tool arguments are a JSON object: the schema needs "type": "object".',
            field,
        )
    return schema


def check_http_url(url: str, field: Sequence[str]) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DomainError("INVALID_URL", f"{url!r} is not an http(s) URL.", field)
    return url


def check_version(version: str, field: Sequence[str]) -> str:
    if not SEMVER.match(version):
        raise DomainError("INVALID_VERSION", f"{version!r} is not a semantic version (1.2.3).", field)
    return version


def check_range(value: int, low: int, high: int, field: Sequence[str]) -> int:
    if not low <= value <= high:
        raise DomainError("OUT_OF_RANGE", f"Must be between {low} and {high}.", field)
    return value


def check_not_blank(value: str, field: Sequence[str]) -> str:
    if not value.strip():
        raise DomainError("INVALID", "Must not be empty.", field)
    return value.strip()


def check_status(status: str, field: Sequence[str]) -> str:
    if status not in STATUSES:
        raise DomainError("INVALID", f"Status is one of {', '.join(STATUSES)}.", field)
    return status
