"""How a CUSTOM tool's arguments become an HTTP request.

Without a mapping (``createTool``'s tools): ``POST endpoint`` with the arguments as the
JSON body. With one (tools imported by ``importOpenApi``)::

    {"method": "GET", "path": "/pets/{petId}",
     "parameters": [{"argument": "petId", "in": "path", "name": "petId"},
                    {"argument": "limit", "in": "query", "name": "limit", "explode": true},
                    {"argument": "X-Request-Id", "in": "header", "name": "X-Request-Id"}],
     "body": {"flatten": ["name", "tag"], "contentType": "application/json"}
             | {"argument": "body", "contentType": "application/json"} | null}
    ("required": true on a flattened body sends ``{}`` when no field is given.)

The endpoint is a URL template: ``{name}`` in its path is replaced by the argument, one
path segment, percent-encoded. Query values: scalars as text (``true``/``false``), arrays
as repeated keys (or comma-joined with ``explode: false``), objects as their own keys.
Header values: scalars as text, arrays comma-joined. Arguments left out are not sent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from app.gateway.envelope import PARAM_INVALID, ToolFailure

DEFAULT_CONTENT_TYPE = "application/json"
_TEMPLATE = re.compile(r"{([^}/]+)}")


@dataclass
class PreparedRequest:
    method: str
    url: str
    params: list[tuple[str, str]] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    content_type: str | None = None


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return str(value)


def _joined(value: Any) -> str:
    return ",".join(_text(item) for item in value) if isinstance(value, list) else _text(value)


#: What an HTTP header value may hold: visible ASCII, spaces and tabs (RFC 9110 field-value,
#: without the obsolete non-ASCII bytes, which the HTTP client refuses to send).
_HEADER_VALUE = re.compile(r"[\t\x20-\x7e]*")


def _header_value(name: str, value: Any) -> str:
    text = _joined(value)
    if any(character in text for character in "\r\n\0"):
        raise ToolFailure(PARAM_INVALID, f"The header {name!r} cannot hold line breaks.", f"/{name}")
    if not _HEADER_VALUE.fullmatch(text):
        # A name like 张伟 in a header parameter reached the HTTP client, which raised: the call
        # failed INTERNAL_ERROR instead of telling the caller what was wrong with the argument.
        raise ToolFailure(
            PARAM_INVALID,
            f"The header {name!r} can hold only ASCII text (letters, digits, punctuation, spaces): "
            "an HTTP header cannot carry other characters.",
            f"/{name}",
        )
    return text


def _query(name: str, value: Any, explode: bool) -> list[tuple[str, str]]:
    if isinstance(value, list):
        return [(name, _text(item)) for item in value] if explode else [(name, _joined(value))]
    if isinstance(value, dict):
        return [(str(key), _text(item)) for key, item in value.items()]
    return [(name, _text(value))]


def prepare(endpoint: str, mapping: dict[str, Any] | None, arguments: dict[str, Any]) -> PreparedRequest:
    if not mapping:
        return PreparedRequest("POST", endpoint, body=json.dumps(arguments).encode(), content_type=DEFAULT_CONTENT_TYPE)
    request = PreparedRequest(str(mapping.get("method") or "POST").upper(), endpoint)
    path_values: dict[str, str] = {}
    for parameter in mapping.get("parameters") or []:
        argument, location, name = parameter["argument"], parameter["in"], parameter["name"]
        if argument not in arguments or arguments[argument] is None:
            continue
        value = arguments[argument]
        if location == "path":
            path_values[name] = quote(_joined(value), safe="")
        elif location == "query":
            request.params.extend(_query(name, value, parameter.get("explode", True) is not False))
        elif location == "header":
            request.headers[name] = _header_value(name, value)

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in path_values:
            raise ToolFailure(PARAM_INVALID, f"The path parameter {name!r} is missing.", f"/{name}")
        return path_values[name]

    scheme, separator, rest = endpoint.partition("://")
    host, slash, path = rest.partition("/")
    request.url = scheme + separator + host + slash + _TEMPLATE.sub(substitute, path)
    body = mapping.get("body")
    if isinstance(body, dict):
        content: Any = None
        if "flatten" in body:
            fields = {name: arguments[name] for name in body["flatten"] if name in arguments}
            content = fields if fields or body.get("required") else None
        elif body.get("argument") in arguments:
            content = arguments[body["argument"]]
        if content is not None:
            request.body = json.dumps(content).encode()
            request.content_type = str(body.get("contentType") or DEFAULT_CONTENT_TYPE)
    return request
