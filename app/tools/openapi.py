"""OpenAPI documents read as CUSTOM tool drafts: parsing, validation and one draft per operation.

No I/O here (``app.tools.openapi_import`` stores the drafts): the document is text the
caller gave, and nothing it names is ever fetched. Only local references
(``#/components/...``) are followed; any other ``$ref`` refuses the document.

Bounds, checked before the work they bound: the text's size, YAML without aliases, the
nesting depth, the number of operations taken, and how large one operation's schemas
may grow once references are inlined (a recursive schema stops at the recursion).

Per operation (``Draft``): a snake-case name from ``operationId`` (else method and
path); a description from summary and description; an input schema whose properties are
the path, query and header parameters under their own names plus the JSON request body
(flattened beside them when it is an object whose names collide with none, else under
``body``); READ for GET/HEAD/OPTIONS, else WRITE; the endpoint (base URL + path template)
and the request mapping the HTTP executor applies (``app.gateway.executors.http``).
An operation that cannot become a tool is a ``Skip`` with the reason.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from app.jsonschemas import UnsafeSchemaError, vet

MAX_SPEC_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 64
MAX_OPERATIONS = 500
#: Schema nodes one operation's input (or output) schema may hold once references are inlined.
MAX_SCHEMA_NODES = 5_000
#: And all operations of one document together.
MAX_DOCUMENT_NODES = 300_000
#: Errors of the validator reported back.
MAX_REPORTED_ERRORS = 20
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
READ_METHODS = ("get", "head", "options")
MAX_NAME = 64
MAX_LABEL = 200
MAX_DESCRIPTION = 4_000
#: OpenAPI ignores these header parameters (the platform sets them); other names the HTTP layer owns.
IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
RESERVED_HEADERS = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "cookie", "idempotency-key", "x-quiver-trace-id"}
)
# Keywords OpenAPI 3.0 schemas have and JSON Schema 2020-12 does not mean the same way.
_OPENAPI_ONLY = ("nullable", "discriminator", "xml", "externalDocs", "example")


class SpecError(Exception):
    """The document cannot be imported. ``path``: JSON path of the problem inside the document."""

    def __init__(self, code: str, message: str, path: list[str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path or []


class InvalidSpecError(Exception):
    """Several validation problems, each with its JSON path."""

    def __init__(self, errors: list[SpecError]) -> None:
        super().__init__("; ".join(error.message for error in errors))
        self.errors = errors


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    operation_id: str | None

    @property
    def key(self) -> str:
        """What identifies the operation across imports of the same document."""
        return self.operation_id or f"{self.method.upper()} {self.path}"


@dataclass
class Draft:
    operation: Operation
    name: str
    label: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    side_effect: str
    endpoint: str
    mapping: dict[str, Any]
    tags: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Skip:
    operation: Operation
    reason: str


@dataclass
class Document:
    spec: dict[str, Any]
    version: str  # "3.0" or "3.1"
    title: str

    @property
    def is_30(self) -> bool:
        return self.version == "3.0"


# ---------------------------------------------------------------- parsing


class _NoAliasLoader(yaml.SafeLoader):
    """YAML without anchors' aliases: an alias lets a small text expand without bound."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise SpecError("INVALID_SPEC", "YAML aliases (*name) are not accepted; write it without anchors.")
        return super().compose_node(parent, index)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _check_depth(value: Any) -> None:
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise SpecError("INVALID_SPEC", f"The document nests deeper than {MAX_DEPTH} levels.")
        if isinstance(node, dict):
            stack.extend((item, depth + 1) for item in node.values())
        elif isinstance(node, list):
            stack.extend((item, depth + 1) for item in node)


def _as_json(value: Any) -> Any:
    """YAML's extras as JSON has them: keys are strings (``200:`` is "200"), dates are text."""
    if isinstance(value, dict):
        return {str(key): _as_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_json(item) for item in value]
    if value is None or isinstance(value, str | bool | int | float):
        return value
    return str(value)


def parse(text: str) -> Document:
    """JSON or YAML text → the document, its OpenAPI version (3.0 or 3.1) and title."""
    if len(text.encode("utf-8", "replace")) > MAX_SPEC_BYTES:
        raise SpecError("TOO_LARGE", f"The document is larger than {MAX_SPEC_BYTES // 1024} KiB.")
    stripped = text.lstrip()
    try:
        # _NoAliasLoader is a SafeLoader: no Python objects are built from the text.
        loaded = json.loads(text) if stripped.startswith(("{", "[")) else yaml.load(text, Loader=_NoAliasLoader)
    except SpecError:
        raise
    except RecursionError:
        raise SpecError("INVALID_SPEC", f"The document nests deeper than {MAX_DEPTH} levels.") from None
    except (ValueError, yaml.YAMLError) as error:
        raise SpecError("INVALID_SPEC", f"Neither JSON nor YAML: {str(error)[:300]}") from None
    if not isinstance(loaded, dict):
        raise SpecError("INVALID_SPEC", "An OpenAPI document is a JSON object (a YAML mapping).")
    _check_depth(loaded)
    loaded = _as_json(loaded)
    if "swagger" in loaded:
        raise SpecError(
            "UNSUPPORTED_VERSION",
            f"Swagger {loaded.get('swagger')} documents are not supported; convert the document to OpenAPI 3 "
            "(for example with swagger2openapi) and import that.",
            ["swagger"],
        )
    version = loaded.get("openapi")
    if not isinstance(version, str) or not re.match(r"^3\.[01]\.\d+", version):
        raise SpecError(
            "UNSUPPORTED_VERSION", f"Only OpenAPI 3.0 and 3.1 documents are imported, not {version!r}.", ["openapi"]
        )
    info = _dict(loaded.get("info"))
    title = str(info.get("title") or "").strip()[:200] or "OpenAPI"
    _check_references(loaded)
    return Document(loaded, version[:3], title)


def _walk(value: Any, path: list[str]) -> Iterator[tuple[dict[str, Any], list[str]]]:
    stack: list[tuple[Any, list[str]]] = [(value, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            yield node, where
            stack.extend((item, [*where, str(key)]) for key, item in node.items())
        elif isinstance(node, list):
            stack.extend((item, [*where, str(index)]) for index, item in enumerate(node))


def _pointer(document: dict[str, Any], ref: str) -> Any:
    """The value a local reference (``#/a/b``) points at; raises KeyError when it points nowhere."""
    node: Any = document
    for raw in ref[2:].split("/") if ref != "#" else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(part)
    return node


def _check_references(document: dict[str, Any]) -> None:
    """Every ``$ref`` is local and resolves: nothing is ever fetched."""
    problems: list[SpecError] = []
    for node, where in _walk(document, []):
        ref = node.get("$ref")
        if not isinstance(ref, str):
            continue
        if not (ref == "#" or ref.startswith("#/")):
            problems.append(
                SpecError(
                    "REMOTE_REFERENCE",
                    f"Only local references (#/components/...) are followed; {ref[:200]!r} is not fetched.",
                    [*where, "$ref"],
                )
            )
            continue
        try:
            _pointer(document, ref)
        except KeyError:
            problems.append(SpecError("INVALID_SPEC", f"{ref[:200]!r} points nowhere.", [*where, "$ref"]))
        if len(problems) >= MAX_REPORTED_ERRORS:
            break
    if problems:
        raise InvalidSpecError(problems)


def validate(document: Document) -> None:
    """The maintained validator (openapi-spec-validator), with no handler that could fetch anything."""
    from jsonschema_path import SchemaPath
    from openapi_spec_validator import OpenAPIV30SpecValidator, OpenAPIV31SpecValidator

    validator_class = OpenAPIV30SpecValidator if document.is_30 else OpenAPIV31SpecValidator
    problems: list[SpecError] = []
    try:
        schema_path = SchemaPath.from_dict(document.spec, handlers={})
        for error in validator_class(schema_path).iter_errors():
            where = [str(part) for part in getattr(error, "absolute_path", []) or []]
            problems.append(SpecError("INVALID_SPEC", str(getattr(error, "message", error))[:500], where))
            if len(problems) >= MAX_REPORTED_ERRORS:
                break
    except Exception as error:  # the validator fails on some malformed documents instead of reporting
        problems.append(SpecError("INVALID_SPEC", f"The document could not be validated: {str(error)[:300]}"))
    if problems:
        raise InvalidSpecError(problems)


# ---------------------------------------------------------------- servers and names


def base_url(document: Document, override: str | None) -> str:
    """``baseUrl`` if given, else ``servers[0].url`` with its variables' defaults; absolute http(s)."""
    if override:
        url = override
        where = ["baseUrl"]
    else:
        servers = document.spec.get("servers")
        if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
            raise SpecError("BASE_URL_REQUIRED", "The document names no server: give baseUrl.", ["servers"])
        server = servers[0]
        url = str(server.get("url") or "")
        for name, variable in _dict(server.get("variables")).items():
            default = variable.get("default") if isinstance(variable, dict) else None
            url = url.replace("{" + str(name) + "}", str(default or ""))
        where = ["servers", "0", "url"]
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SpecError("BASE_URL_REQUIRED", f"{url[:200]!r} is not an absolute http(s) URL: give baseUrl.", where)
    return url.rstrip("/")


def snake_case(text: str) -> str:
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
    text = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower()
    return re.sub(r"_+", "_", text)


def tool_name(operation: Operation) -> str:
    # An operationId with no letter or digit a tool name can hold (获取订单): named by method and
    # path, as one without an operationId, rather than by the method alone ("get", "get_2", ...).
    base = snake_case(operation.operation_id or "") or snake_case(f"{operation.method} {operation.path}")
    return (base or operation.method)[:MAX_NAME].rstrip("_") or operation.method


# ---------------------------------------------------------------- schemas


class _Budget:
    def __init__(self, limit: int) -> None:
        self.left = limit

    def spend(self, nodes: int = 1) -> None:
        self.left -= nodes
        if self.left < 0:
            raise _TooLargeError


class _TooLargeError(Exception):
    pass


class Inliner:
    """Resolves local references into plain schemas, converting OpenAPI 3.0 dialect on the way.

    Each schema object of the document is checked against JSON Schema 2020-12 once, with
    its references left in place (so the expanded schemas built from checked parts are
    valid too), and each component is expanded once (unless a recursion runs through it):
    the work is bounded by the document's size, not by how often its parts are used.
    """

    def __init__(self, document: Document, total: _Budget | None = None) -> None:
        self.document = document
        self.total = total or _Budget(MAX_DOCUMENT_NODES)
        self._expanded: dict[str, tuple[Any, int]] = {}
        self._checked: dict[str, str | None] = {}

    def resolve(self, value: Any) -> Any:
        """A non-schema object (parameter, request body, response) behind its ``$ref``, if any."""
        seen: set[str] = set()
        while isinstance(value, dict) and isinstance(value.get("$ref"), str):
            ref = value["$ref"]
            if ref in seen:
                raise SpecError("INVALID_SPEC", f"{ref!r} refers to itself.")
            seen.add(ref)
            value = _pointer(self.document.spec, ref)
        return value

    def schema(self, value: Any, budget: _Budget | None = None) -> dict[str, Any]:
        """The schema with every reference inlined; raises _TooLargeError past the budget
        (MAX_SCHEMA_NODES unless given) and SpecError when a part is no valid JSON Schema."""
        self._check(value)
        expanded, _, _ = self._expand(value, (), budget or _Budget(MAX_SCHEMA_NODES))
        return expanded if isinstance(expanded, dict) else {}

    def _check(self, value: Any) -> None:
        converted = self._convert(value, (), _Budget(MAX_DOCUMENT_NODES), follow=False)[0]
        key = json.dumps(converted, sort_keys=True, default=str)
        if key not in self._checked:
            self._checked[key] = _schema_problem(converted) if isinstance(converted, dict) else None
        problem = self._checked[key]
        if problem is not None:
            raise SpecError("INVALID_SPEC", f"a schema is {problem}")

    def _expand(self, value: Any, stack: tuple[str, ...], budget: _Budget) -> tuple[Any, int, bool]:
        return self._convert(value, stack, budget, follow=True)

    def _convert(self, value: Any, stack: tuple[str, ...], budget: _Budget, *, follow: bool) -> tuple[Any, int, bool]:
        """(converted value, nodes in it, whether a recursion was left open inside)."""
        budget.spend()
        self.total.spend()
        if isinstance(value, list):
            items = [self._convert(item, stack, budget, follow=follow) for item in value]
            return [item for item, _, _ in items], 1 + sum(n for _, n, _ in items), any(o for _, _, o in items)
        if not isinstance(value, dict):
            return value, 1, False
        ref = value.get("$ref")
        if isinstance(ref, str) and follow:
            return self._reference(value, ref, stack, budget)
        converted: dict[str, Any] = {}
        nodes, is_open = 1, False
        for key, item in value.items():
            if key.startswith("x-") or key in _OPENAPI_ONLY:
                continue
            if key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas") and isinstance(
                item, dict
            ):
                parts = {
                    str(name): self._convert(schema, stack, budget, follow=follow) for name, schema in item.items()
                }
                converted[key] = {name: part for name, (part, _, _) in parts.items()}
                nodes += sum(n for _, n, _ in parts.values())
                is_open = is_open or any(o for _, _, o in parts.values())
            elif key in ("enum", "const", "default", "examples", "required", "type", "$ref"):
                converted[key] = copy.deepcopy(item)
            else:
                converted[key], count, opened = self._convert(item, stack, budget, follow=follow)
                nodes += count
                is_open = is_open or opened
        if self.document.is_30:
            if "$ref" in converted:
                converted = {"$ref": converted["$ref"]}  # in 3.0, a reference's siblings are ignored
            _from_openapi_30(value, converted)
        return converted, nodes, is_open

    def _reference(
        self, value: dict[str, Any], ref: str, stack: tuple[str, ...], budget: _Budget
    ) -> tuple[Any, int, bool]:
        if ref in stack:
            # A recursive schema: the recursion is left open rather than expanded forever.
            return {"description": f"(recursive: {ref.rsplit('/', 1)[-1]})"}, 1, True
        known = self._expanded.get(ref)
        if known is not None:
            target, nodes = known
            budget.spend(nodes)
            opened = False
        else:
            raw = _pointer(self.document.spec, ref)
            self._check(raw)
            target, nodes, opened = self._convert(raw, (*stack, ref), budget, follow=True)
            if not opened:
                self._expanded[ref] = (target, nodes)
        siblings = {key: item for key, item in value.items() if key != "$ref"}
        if self.document.is_30 or not siblings:
            return target, nodes, opened
        extra, count, extra_open = self._convert(siblings, stack, budget, follow=True)
        return {"allOf": [target], **extra}, nodes + count, opened or extra_open


def _from_openapi_30(original: dict[str, Any], converted: dict[str, Any]) -> None:
    """OpenAPI 3.0 → JSON Schema 2020-12: ``nullable`` and the boolean exclusive bounds."""
    if original.get("nullable") is True:
        kind = converted.get("type")
        if isinstance(kind, str):
            converted["type"] = [kind, "null"]
        elif "enum" in converted and isinstance(converted["enum"], list) and None not in converted["enum"]:
            converted["enum"] = [*converted["enum"], None]
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        flag = converted.get(exclusive)
        if isinstance(flag, bool):
            del converted[exclusive]
            if flag and bound in converted:
                converted[exclusive] = converted.pop(bound)


def _schema_problem(schema: dict[str, Any]) -> str | None:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        where = "/".join(str(part) for part in error.absolute_path) or "(root)"
        return f"not a valid JSON Schema at {where}: {error.message[:200]}"
    return None


def _drop_read_only(schema: dict[str, Any]) -> dict[str, Any]:
    """A request body without its readOnly properties (those only come back in responses)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    kept = {
        name: item for name, item in properties.items() if not (isinstance(item, dict) and item.get("readOnly") is True)
    }
    result = {**schema, "properties": kept}
    if isinstance(schema.get("required"), list):
        result["required"] = [name for name in schema["required"] if name in kept]
    return result


# ---------------------------------------------------------------- operations


def operations(document: Document) -> Iterator[tuple[Operation, dict[str, Any], list[Any]]]:
    """Every operation with its object and its path item's parameters, in document order."""
    paths = document.spec.get("paths")
    if not isinstance(paths, dict):
        return
    inliner = Inliner(document)
    for path, raw_item in paths.items():
        item = inliner.resolve(raw_item)
        if not isinstance(item, dict):
            continue
        shared = _list(item.get("parameters"))
        for method in METHODS:
            operation = item.get(method)
            if isinstance(operation, dict):
                operation_id = operation.get("operationId")
                yield (
                    Operation(method, str(path), str(operation_id)[:200] if operation_id else None),
                    operation,
                    shared,
                )


def selected(document: Document, include: list[str] | None) -> list[tuple[Operation, dict[str, Any], list[Any]]]:
    """The operations ``include`` names (by operationId or tag); all when it is empty."""
    wanted = {item.strip() for item in include or [] if item.strip()}
    chosen = []
    for operation, body, shared in operations(document):
        tags = {str(tag) for tag in body.get("tags") or [] if isinstance(tag, str | int)}
        if not wanted or operation.operation_id in wanted or tags & wanted:
            chosen.append((operation, body, shared))
    if len(chosen) > MAX_OPERATIONS:
        raise SpecError(
            "TOO_LARGE",
            f"{len(chosen)} operations selected; at most {MAX_OPERATIONS} per import (pick some with include).",
            ["paths"],
        )
    return chosen


def _json_media(content: Any) -> tuple[str, dict[str, Any]] | None:
    if not isinstance(content, dict):
        return None
    for media_type, media in content.items():
        kind = str(media_type).split(";")[0].strip().lower()
        if kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json")):
            return kind, media if isinstance(media, dict) else {}
    return None


def _description(operation: dict[str, Any], fallback: str) -> str:
    parts = [str(operation.get(key) or "").strip() for key in ("summary", "description")]
    text = "\n\n".join(part for part in parts if part) or fallback
    return text[:MAX_DESCRIPTION]


def _output_schema(inliner: Inliner, operation: dict[str, Any]) -> dict[str, Any] | None:
    for status, raw in sorted(_dict(operation.get("responses")).items()):
        if not status.startswith("2"):
            continue
        response = inliner.resolve(raw)
        media = _json_media(response.get("content") if isinstance(response, dict) else None)
        if media is None or "schema" not in media[1]:
            continue
        try:
            return inliner.schema(media[1]["schema"])
        except (_TooLargeError, SpecError, KeyError):
            return None  # an output schema is informative: the tool is imported without it
    return None


def _parameter_value_schema(inliner: Inliner, parameter: dict[str, Any], budget: _Budget) -> dict[str, Any] | None:
    if "schema" in parameter:
        schema = inliner.schema(parameter["schema"], budget)
    else:
        media = _json_media(parameter.get("content"))
        if media is None:
            return None
        schema = inliner.schema(media[1].get("schema", {}), budget)
    if parameter.get("description") and "description" not in schema:
        schema = {**schema, "description": str(parameter["description"])[:1000]}
    return schema


def draft(
    document: Document,
    operation: Operation,
    body: dict[str, Any],
    shared: list[Any],
    endpoint_base: str,
    inliner: Inliner | None = None,
) -> Draft | Skip:
    """One operation as a tool draft, or why it cannot be one."""
    inliner = inliner or Inliner(document)
    try:
        return _draft(inliner, operation, body, shared, endpoint_base)
    except _TooLargeError:
        if inliner.total.left < 0:
            return Skip(operation, f"the document's schemas grow past {MAX_DOCUMENT_NODES} nodes once inlined")
        return Skip(operation, f"its schemas grow past {MAX_SCHEMA_NODES} nodes once references are inlined")
    except SpecError as error:
        return Skip(operation, error.message)
    except KeyError as error:
        return Skip(operation, f"a reference points nowhere ({error})")


def _draft(
    inliner: Inliner, operation: Operation, body: dict[str, Any], shared: list[Any], endpoint_base: str
) -> Draft | Skip:
    budget = _Budget(MAX_SCHEMA_NODES)  # the input schema's, all parts together
    # Operation parameters override the path item's ones with the same name and location.
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for raw in [*shared, *_list(body.get("parameters"))]:
        parameter = inliner.resolve(raw)
        if isinstance(parameter, dict) and parameter.get("name") and parameter.get("in"):
            merged[(str(parameter["in"]), str(parameter["name"]))] = parameter
    properties: dict[str, Any] = {}
    required: list[str] = []
    mapped: list[dict[str, Any]] = []
    for (location, name), parameter in merged.items():
        is_required = location == "path" or parameter.get("required") is True
        lowered = name.lower()
        if location == "cookie" or (location == "header" and lowered in RESERVED_HEADERS):
            if is_required:
                what = "cookie parameters are" if location == "cookie" else f"the header {name!r} is"
                return Skip(operation, f"{what} not supported")
            continue
        if location == "header" and lowered in IGNORED_HEADERS:
            continue  # OpenAPI: such parameter definitions are ignored
        if location not in ("path", "query", "header"):
            return Skip(operation, f"parameter {name!r} is in {location!r}")
        if name in properties:
            return Skip(operation, f"two parameters are named {name!r}")
        schema = _parameter_value_schema(inliner, parameter, budget)
        if schema is None:
            if is_required:
                return Skip(operation, f"parameter {name!r} has no schema the platform can send")
            continue
        properties[name] = schema
        if is_required:
            required.append(name)
        entry: dict[str, Any] = {"argument": name, "in": location, "name": name}
        if location == "query" and parameter.get("explode") is False:
            entry["explode"] = False
        mapped.append(entry)
    missing = [part for part in re.findall(r"{([^}]+)}", operation.path) if part not in properties]
    if missing:
        return Skip(operation, f"path parameter {missing[0]!r} is not declared")
    body_mapping: dict[str, Any] | None = None
    request_body = inliner.resolve(body.get("requestBody")) if body.get("requestBody") is not None else None
    if isinstance(request_body, dict):
        body_required = request_body.get("required") is True
        media = _json_media(request_body.get("content"))
        if media is None:
            kinds = ", ".join(str(kind) for kind in (request_body.get("content") or {})) or "none"
            if body_required:
                return Skip(operation, f"unsupported request body type ({kinds[:200]}); only JSON bodies are sent")
        elif "schema" not in media[1]:
            if body_required:
                return Skip(operation, "the request body has no schema")
        else:
            schema = _drop_read_only(inliner.schema(media[1]["schema"], budget))
            body_mapping = _body(schema, properties, required, body_required)
            if body_mapping is None:
                return Skip(operation, "the request body would be called 'body', like a parameter")
            body_mapping["contentType"] = media[0]
            body_mapping["required"] = body_required
    # Every part was checked against JSON Schema 2020-12 (Inliner): so is this object of them.
    input_schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        input_schema["required"] = required
    output_schema = _output_schema(inliner, body)
    # What createTool would refuse is not made a tool either (a pattern with a back-reference or
    # look-around, which the gateway's linear-time engine cannot run): every call of it failed.
    for which, schema in (("input", input_schema), ("output", output_schema)):
        try:
            if schema is not None:
                vet(schema)
        except UnsafeSchemaError as problem:
            return Skip(operation, f"its {which} schema cannot be served: {problem.message} (at {problem.where})")
    label = str(body.get("summary") or operation.operation_id or f"{operation.method.upper()} {operation.path}")
    tags = [str(tag)[:100] for tag in body.get("tags") or [] if isinstance(tag, str)]
    return Draft(
        operation=operation,
        name=tool_name(operation),
        label=label.strip()[:MAX_LABEL] or operation.key[:MAX_LABEL],
        description=_description(body, f"{operation.method.upper()} {operation.path}"),
        input_schema=input_schema,
        output_schema=output_schema,
        side_effect="READ" if operation.method in READ_METHODS else "WRITE",
        endpoint=endpoint_base + operation.path,
        mapping={
            "method": operation.method.upper(),
            "path": operation.path,
            "parameters": mapped,
            "body": body_mapping,
        },
        tags=tags,
    )


def _body(
    schema: dict[str, Any], properties: dict[str, Any], required: list[str], body_required: bool
) -> dict[str, Any] | None:
    """Adds the body to the input schema: flattened when it can be, else under ``body``.

    Returns the body's mapping; None when it cannot be added ('body' is a parameter's name).
    """
    fields = schema.get("properties")
    own_required = [name for name in schema.get("required") or [] if isinstance(name, str)]
    can_flatten = (
        isinstance(fields, dict)
        and schema.get("type") in ("object", None)
        and not any(key in schema for key in ("allOf", "anyOf", "oneOf", "not", "if", "$ref"))
        and not (set(fields) & set(properties))
        # An optional body's own required fields cannot be required beside the parameters.
        and (body_required or not own_required)
    )
    if can_flatten:
        assert isinstance(fields, dict)
        properties.update(fields)
        required.extend(name for name in own_required if name in fields)
        return {"flatten": list(fields)}
    if "body" in properties:
        return None
    properties["body"] = schema
    if body_required:
        required.append("body")
    return {"argument": "body"}


def drafts(
    document: Document,
    chosen: list[tuple[Operation, dict[str, Any], list[Any]]],
    endpoint_base: str,
    progress: Callable[[int, int], None] | None = None,
) -> list[Draft | Skip]:
    """One draft (or skip) per chosen operation; names made unique within the document."""
    results: list[Draft | Skip] = []
    taken: set[str] = set()
    inliner = Inliner(document)  # one budget for the whole document
    for index, (operation, body, shared) in enumerate(chosen, start=1):
        result = draft(document, operation, body, shared, endpoint_base, inliner)
        if isinstance(result, Draft):
            result.name = unique_name(result.name, taken)
            taken.add(result.name)
        results.append(result)
        if progress is not None:
            progress(index, len(chosen))
    return results


def unique_name(name: str, taken: set[str] | Callable[[str], bool]) -> str:
    """``name``, or ``name_2``, ``name_3``… (within 64 characters) when taken."""
    is_taken = taken.__contains__ if isinstance(taken, set) else taken
    if not is_taken(name):
        return name
    counter = 2
    while True:
        suffix = f"_{counter}"
        candidate = name[: MAX_NAME - len(suffix)] + suffix
        if not is_taken(candidate):
            return candidate
        counter += 1
