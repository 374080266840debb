"""Tenants' JSON Schemas: vetted once when stored, compiled once, and validated without
ever retrieving anything or backtracking.

- References resolve only inside the schema itself (``#/…``, ``$defs``, anchors, embedded
  ``$id`` resources). The registry every validator gets refuses retrieval, so even a
  stored schema that was never vetted cannot make the server fetch a URL or read a file.
- ``pattern`` and ``patternProperties`` run on RE2, whose matching time is linear in
  the input: a pattern RE2 cannot compile (back-references, look-around) is refused when
  the schema is stored. jsonschema's ``unevaluatedProperties`` matches
  ``patternProperties`` with Python's backtracking ``re`` internally, so the two are
  refused together.
- A cycle of references that never descends into the instance (``a → $ref b → $ref a``)
  would recurse until the stack ends; it is refused. Recursion through ``properties``,
  ``items`` … (a tree) is fine: it is bounded by the instance's depth, which the gateway
  bounds.
- Validating is bounded by work, not only by size: ``schema_errors`` stops after
  ``MAX_VALIDATION_STEPS`` steps (each keyword applied to a value, each pattern searched,
  each ``enum`` member and ``uniqueItems`` item) with ``ValidationTooCostlyError``. A small
  schema can ask for exponential work (``anyOf`` of two references to the next level, 18
  levels: 96 s of the event loop for one 3-character argument), and patterns times keys or
  an enum times items is quadratic. ``uniqueItems`` hashes each item once instead of
  jsonschema's comparison of every pair (2,000 objects: 7.6 s). An error is charged for its
  message too (one step per ``MESSAGE_CHARS_PER_STEP`` characters): jsonschema writes the
  value into it (``repr``), so 1,000 ``type`` errors on one 680 KB value took 13 s within
  2,000 steps.
- Compiling is bounded too, before it starts: a schema with more than
  ``MAX_SCHEMA_PATTERNS`` distinct patterns, or more than ``MAX_PATTERN_CHARS`` characters
  of them, is refused before any is compiled (2,000 patterns held the event loop about 1 s),
  and one whose RE2 programs together pass ``MAX_PATTERN_PROGRAM`` instructions (the
  14 characters ``.{1000}.{1000}`` compile to 16,004) is refused as they are compiled.
  Compiling runs on one worker thread kept for it (``compiled_validator``, ``vetted``),
  never on the event loop, and a compiled validator keeps its patterns' programs: checking
  never compiles.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

import re2
from jsonschema import Draft202012Validator, ValidationError
from jsonschema.exceptions import SchemaError, best_match
from jsonschema.protocols import Validator
from jsonschema.validators import extend
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from referencing.jsonschema import DRAFT202012

T = TypeVar("T")

#: Keywords whose value is one subschema applied to the same instance.
_IN_PLACE_ONE: tuple[str, ...] = ("not", "if", "then", "else")
#: … a list of such subschemas.
_IN_PLACE_MANY: tuple[str, ...] = ("allOf", "anyOf", "oneOf")
#: … a map of them.
_IN_PLACE_MAP: tuple[str, ...] = ("dependentSchemas",)
#: Keywords whose subschemas apply to parts of the instance (one level down).
_DESCENDING_ONE: tuple[str, ...] = (
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "propertyNames",
)
_DESCENDING_MANY: tuple[str, ...] = ("prefixItems",)
_DESCENDING_MAP: tuple[str, ...] = ("properties", "patternProperties")
#: Schemas that are not applied to anything but may be referenced.
_DEFINITIONS: tuple[str, ...] = ("$defs", "definitions")
_REFERENCES = ("$ref", "$dynamicRef")
#: Far beyond any real tool's schema; keeps vetting and validation off the recursion limit.
MAX_SCHEMA_DEPTH = 64
#: Most steps one validation may take (about 1 s of the event loop at 10 µs a step): 7,000
#: order lines of five typed fields each take about 100,000.
MAX_VALIDATION_STEPS = 100_000
#: Steps a check may take on the event loop (a few milliseconds); one needing more is done
#: again on a worker thread (``checked``), where the interpreter lets the loop in every few
#: milliseconds instead of holding it for the whole check (100,000 steps: 1-2 s).
ON_LOOP_STEPS = 2_000
#: Characters of an error's message charged as one step (writing them takes about as long as
#: a step): jsonschema writes the value an error is about into its message.
MESSAGE_CHARS_PER_STEP = 1_000
#: Most subschemas one schema may apply to one value in place (along every path of allOf,
#: anyOf, oneOf, not, if / then / else, dependentSchemas and references): real schemas apply
#: tens; ``anyOf`` of two references to the next level applies 2^depth.
MAX_IN_PLACE_EXPANSION = 5_000
#: Most distinct patterns (``pattern`` values and ``patternProperties`` names) one schema may
#: hold, and most characters of them together: counted before any is compiled. Real schemas
#: hold none to tens; 500 distinct patterns compile in about 0.15 s of CPU.
MAX_SCHEMA_PATTERNS = 500
MAX_PATTERN_CHARS = 25_000
#: Most RE2 instructions a schema's patterns may compile to together: what compiling them and
#: keeping them costs. ``^.{1,255}$`` is 2,296; a date, a UUID or an e-mail pattern under 100.
MAX_PATTERN_PROGRAM = 100_000


class ValidationTooCostlyError(Exception):
    """Checking this value against this schema would take more than ``limit`` steps."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"checking the value against the schema takes more than {limit} steps")
        self.limit = limit


class _Budget:
    __slots__ = ("limit", "remaining")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.remaining = limit


_budget: ContextVar[_Budget | None] = ContextVar("schema_validation_budget", default=None)

#: A worker thread (the long checks, the compiles) pauses this long after every this many
#: keywords applied (about a millisecond of work), letting the event loop take the
#: interpreter at once: otherwise the loop waits up to the 5 ms switch interval at each of its
#: turns, and a quiet tenant's query takes 20-30 turns.
PACE_STEPS = 100
PACE_S = 0.0002
_worker = threading.local()


def _pace() -> None:
    if getattr(_worker, "paced", False):
        _worker.steps += 1
        if _worker.steps >= PACE_STEPS:
            _worker.steps = 0
            time.sleep(PACE_S)


def _paced(function: Callable[..., Any], *arguments: Any) -> Any:
    """``function(*arguments)`` on a worker thread, pacing itself (``_pace``)."""
    _worker.paced, _worker.steps = True, 0
    try:
        return function(*arguments)
    finally:
        _worker.paced = False


def _spend(steps: int) -> None:
    _pace()
    budget = _budget.get()
    if budget is not None:
        budget.remaining -= steps
        if budget.remaining < 0:
            raise ValidationTooCostlyError(budget.limit)


class UnsafeSchemaError(ValueError):
    """Why a schema is refused; ``where`` is a JSON pointer into the schema."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{message} (at {where or '(root)'})")
        self.where = where or "(root)"
        self.message = message


def _refuse_retrieval(uri: str) -> Resource[Any]:
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # an attrs class mypy cannot see into


#: Knows no document: every reference outside the schema being validated is unresolvable.
NO_RETRIEVAL: Registry[Any] = Registry(retrieve=_refuse_retrieval)  # type: ignore[call-arg]

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a refused pattern is the tenant's mistake, answered as such


#: The programs of the patterns of every cached validator (``_CompiledSchemas``), by pattern:
#: a check finds them here and never compiles (another tenant's many patterns cannot push
#: them out, as they could out of a cache of patterns). Written under ``_COMPILED_LOCK``.
_PROGRAMS: dict[str, Any] = {}
_PINS: dict[str, int] = {}


def compile_pattern(pattern: str) -> Any:
    """The RE2 program of a schema pattern; raises ``re2.error`` for what RE2 cannot run."""
    program = _PROGRAMS.get(pattern)
    return program if program is not None else _compile_unpinned(pattern)


@lru_cache(maxsize=256)
def _compile_unpinned(pattern: str) -> Any:
    """A pattern no cached validator holds (a validator built directly, a schema being vetted)."""
    return re2.compile(pattern, _RE2_OPTIONS)


def _search(pattern: str, text: str) -> bool:
    _spend(1)
    return compile_pattern(pattern).search(text) is not None


def _excerpt(text: str) -> str:
    return repr(text) if len(text) <= 80 else f"{text[:77]!r}... ({len(text)} characters)"


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{_excerpt(instance)} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, pattern_properties: dict[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in pattern_properties.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [
        key for key in instance if key not in properties and not any(_search(pattern, key) for pattern in patterns)
    ]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        listed = ", ".join(repr(extra) for extra in sorted(extras, key=str))
        if patterns:
            yield ValidationError(f"{listed} do not match any of the regexes: {', '.join(map(repr, sorted(patterns)))}")
        else:
            yield ValidationError(f"Additional properties are not allowed ({listed} unexpected)")


def _canonical(value: Any) -> Any:
    """A hashable form equal for values JSON Schema calls equal (1 and 1.0; objects whatever
    their key order), distinct for values it does not (true and 1)."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, (int, float)):
        return ("n", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, list):
        return ("l", tuple(_canonical(item) for item in value))
    if isinstance(value, dict):
        return ("o", frozenset((key, _canonical(item)) for key, item in value.items()))
    return ("z", repr(value))


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not unique or not validator.is_type(instance, "array"):
        return
    _spend(len(instance))
    seen: set[Any] = set()
    for item in instance:
        key = _canonical(item)
        if key in seen:
            yield ValidationError(f"{_excerpt(repr(instance))} has non-unique elements")
            return
        seen.add(key)


def _charging_messages(errors: Iterable[ValidationError]) -> Iterator[ValidationError]:
    """``errors``, each charged once (where it is first seen) for its message's length."""
    for error in errors:
        if not error.__dict__.get("_charged"):
            error.__dict__["_charged"] = True
            _spend(len(error.message) // MESSAGE_CHARS_PER_STEP)
        yield error


def _counted(keyword: str, check: Callable[..., Any]) -> Callable[..., Any]:
    """``check`` charged one step per application (``enum`` also one per member compared) and
    for the messages of the errors it finds (``_charging_messages``)."""
    if keyword == "enum":

        def run_enum(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
            _spend(1 + (len(value) if isinstance(value, list) else 0))
            errors = check(validator, value, instance, schema)
            return None if errors is None else _charging_messages(errors)

        return run_enum

    def run(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        _spend(1)
        errors = check(validator, value, instance, schema)
        return None if errors is None else _charging_messages(errors)

    return run


_KEYWORDS: dict[str, Callable[..., Any]] = {
    **Draft202012Validator.VALIDATORS,
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "uniqueItems": _unique_items,
}


def _keeping_its_class(cls: Any) -> Any:
    """``cls`` whose validators stay ``cls`` wherever they descend. jsonschema's ``evolve``
    picks the class of a subschema's ``$schema`` (or of the root's, reached again through
    ``$ref: "#"``): the stock Draft 2020-12 or draft-07 validator, with patterns on Python's
    backtracking re and no budget, so one ``$schema`` inside a tenant's schema undid both."""
    fields = [(field.name, field.alias) for field in cls.__attrs_attrs__ if field.init]

    def evolve(self: Any, **changes: Any) -> Any:
        changes.setdefault("schema", self.schema)
        for attribute, argument in fields:
            if argument not in changes:
                changes[argument] = getattr(self, attribute)
        return cls(**changes)

    cls.evolve = evolve
    return cls


#: Draft 2020-12 with the regex keywords on RE2, uniqueItems in linear time, every keyword
#: charged to the running validation's budget (``schema_errors``), whatever ``$schema`` a
#: subschema names.
LinearTimeValidator = _keeping_its_class(
    extend(  # type: ignore[no-untyped-call]
        Draft202012Validator,
        validators={keyword: _counted(keyword, check) for keyword, check in _KEYWORDS.items()},
    )
)


def schema_errors(validator: Validator, instance: Any, limit: int = MAX_VALIDATION_STEPS) -> list[ValidationError]:
    """Every error of ``instance`` against the validator's schema, within ``limit`` steps;
    raises ``ValidationTooCostlyError`` past them."""
    token = _budget.set(_Budget(limit))
    try:
        return list(validator.iter_errors(instance))
    finally:
        _budget.reset(token)


def _best_error(validator: Validator, instance: Any, limit: int) -> ValidationError | None:
    errors = schema_errors(validator, instance, limit)
    # Bounded by the errors, which the steps bound; done where the check ran.
    return best_match(errors) if errors else None


async def checked(validator: Validator, instance: Any, limit: int = MAX_VALIDATION_STEPS) -> list[ValidationError]:
    """``schema_errors`` as a coroutine: on the event loop when it takes at most
    ``ON_LOOP_STEPS`` steps (nearly every call), else again from the start on the one worker
    thread for long checks, so one tenant's large or intricate arguments do not hold every
    other request up."""
    errors: list[ValidationError] = await _bounded(schema_errors, validator, instance, limit)
    return errors


async def best_error(validator: Validator, instance: Any, limit: int = MAX_VALIDATION_STEPS) -> ValidationError | None:
    """The error jsonschema's ``best_match`` picks among ``instance``'s errors (None when it is
    valid), checked as ``checked`` does: a few milliseconds on the event loop at most, else on
    the check thread; raises ``ValidationTooCostlyError`` past ``limit`` steps."""
    found: ValidationError | None = await _bounded(_best_error, validator, instance, limit)
    return found


async def _bounded(check: Callable[[Validator, Any, int], T], validator: Validator, instance: Any, limit: int) -> T:
    try:
        return check(validator, instance, min(limit, ON_LOOP_STEPS))
    except ValidationTooCostlyError:
        if limit <= ON_LOOP_STEPS:
            raise
    return await asyncio.get_running_loop().run_in_executor(_CHECKS, _paced, _aside, check, validator, instance, limit)


#: Checks running on the check thread now; written by that thread only.
_long_checks = 0


def _aside(check: Callable[[Validator, Any, int], T], validator: Validator, instance: Any, limit: int) -> T:
    global _long_checks
    _long_checks += 1
    try:
        return check(validator, instance, limit)
    finally:
        _long_checks -= 1


def long_checks_running() -> int:
    """Checks running on the check thread now (0 or 1): tests watch a long check there."""
    return _long_checks


#: One thread for the long checks: each more running at once would take the interpreter from
#: the event loop as often again (and they are done no sooner: the interpreter runs one at a time).
_CHECKS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="schema-check")


#: One thread compiles schemas (vetting them: the meta-schema, every pattern on Python's re
#: and on RE2), apart from the long checks so neither waits for the other.
_COMPILES = ThreadPoolExecutor(max_workers=1, thread_name_prefix="schema-compile")
_COMPILED_LOCK = threading.Lock()


@dataclass(frozen=True)
class CacheInfo:
    hits: int
    misses: int
    currsize: int
    #: Compiles an event loop has handed to the compile thread and not yet got back.
    compiling: int


class _CompiledSchemas:
    """Validators by canonical schema, least recently used first out; each keeps its patterns'
    programs in ``_PROGRAMS`` while it is here. Refusals are not kept."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self.entries: OrderedDict[str, tuple[Validator, tuple[str, ...]]] = OrderedDict()
        self.hits = 0
        self.misses = 0
        self.compiling = 0

    def get(self, canonical: str) -> Validator | None:
        with _COMPILED_LOCK:
            entry = self.entries.get(canonical)
            if entry is None:
                return None
            self.entries.move_to_end(canonical)
            self.hits += 1
            return entry[0]

    def compile(self, canonical: str) -> Validator:
        """Vet and build (on the compile thread, or wherever no event loop runs)."""
        found = self.get(canonical)
        if found is not None:
            return found
        schema = json.loads(canonical)
        programs = _vet(schema)
        validator: Validator = LinearTimeValidator(schema, registry=NO_RETRIEVAL)
        with _COMPILED_LOCK:
            self.misses += 1
            if canonical in self.entries:
                return self.entries[canonical][0]
            for pattern, program in programs.items():
                _PROGRAMS.setdefault(pattern, program)
                _PINS[pattern] = _PINS.get(pattern, 0) + 1
            self.entries[canonical] = (validator, tuple(programs))
            while len(self.entries) > self.maxsize:
                _, (_, patterns) = self.entries.popitem(last=False)
                for pattern in patterns:
                    _PINS[pattern] -= 1
                    if not _PINS[pattern]:
                        del _PINS[pattern], _PROGRAMS[pattern]
        return validator

    def info(self) -> CacheInfo:
        with _COMPILED_LOCK:
            return CacheInfo(self.hits, self.misses, len(self.entries), self.compiling)


_compiled = _CompiledSchemas(maxsize=1024)


def compiled_cache_info() -> CacheInfo:
    """Hits and misses of the compiled-validator cache (tests show one compilation per schema)."""
    return _compiled.info()


def validator_for(schema: dict[str, Any]) -> Validator:
    """The validator of a schema, vetted and compiled once per distinct schema and shared by
    every call that uses it, compiled on the calling thread: for code that runs on no event
    loop (an event loop awaits ``compiled_validator``). Raises ``UnsafeSchemaError`` for a
    schema ``vet`` refuses (one stored before a bound existed); refusals are not cached."""
    return _compiled.compile(json.dumps(schema, sort_keys=True))


async def compiled_validator(schema: dict[str, Any]) -> Validator:
    """``validator_for`` for the event loop: a cached validator at once, else compiled on the
    compile thread (up to the bounds of ``vet``: hundreds of milliseconds of CPU for a large
    schema) while the loop serves other requests."""
    canonical = json.dumps(schema, sort_keys=True)
    found = _compiled.get(canonical)
    if found is not None:
        return found
    with _COMPILED_LOCK:
        _compiled.compiling += 1
    try:
        validator: Validator = await asyncio.get_running_loop().run_in_executor(
            _COMPILES, _paced, _compiled.compile, canonical
        )
        return validator
    finally:
        with _COMPILED_LOCK:
            _compiled.compiling -= 1


async def vetted(schema: dict[str, Any]) -> None:
    """``vet`` for the event loop, on the compile thread; the validator is kept, so the
    schema's first check does not compile it again. Raises ``UnsafeSchemaError``."""
    await compiled_validator(schema)


# ------------------------------------------------------------------ vetting


@dataclass
class _Node:
    where: str
    in_place: list[int]


def _pointer(parts: list[str]) -> str:
    return "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in parts)


class _Vetter:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.nodes: dict[int, _Node] = {}
        self.uses_unevaluated_properties = False
        self.first_pattern_properties: str | None = None
        self.references: list[tuple[_Node, str, list[str], Any]] = []
        #: Each distinct pattern's program, compiled once however often it appears.
        self.programs: dict[str, Any] = {}
        self.program_size = 0
        root = DRAFT202012.create_resource(schema)
        self.root_resolver = NO_RETRIEVAL.resolver_with_root(root)

    def run(self) -> None:
        self._walk(self.schema, [], self.root_resolver)
        # After the walk, so each schema is named by its own place rather than by a reference to it.
        while self.references:
            node, reference, parts, resolver = self.references.pop()
            target, target_resolver = self._resolve(reference, parts, resolver)
            node.in_place.append(id(target))
            # A target outside the known keywords (``#/x`` with an unknown ``x``) is a schema too.
            self._walk(target, parts, target_resolver)
        if self.uses_unevaluated_properties and self.first_pattern_properties is not None:
            raise UnsafeSchemaError(
                self.first_pattern_properties,
                "patternProperties cannot be combined with unevaluatedProperties",
            )
        self._refuse_reference_cycles()
        self._refuse_expansion()

    def _walk(self, schema: Any, parts: list[str], resolver: Any) -> None:
        if not isinstance(schema, dict) or id(schema) in self.nodes:
            return
        where = _pointer(parts)
        if len(parts) > MAX_SCHEMA_DEPTH:
            raise UnsafeSchemaError(where, f"the schema is nested deeper than {MAX_SCHEMA_DEPTH} levels")
        node = _Node(where, [])
        self.nodes[id(schema)] = node
        if "$id" in schema and isinstance(schema["$id"], str):
            resolver = resolver.in_subresource(DRAFT202012.create_resource(schema))
        for keyword in _REFERENCES:
            reference = schema.get(keyword)
            if isinstance(reference, str):
                self.references.append((node, reference, [*parts, keyword], resolver))
        if isinstance(schema.get("pattern"), str):
            self._check_pattern(schema["pattern"], [*parts, "pattern"])
        if isinstance(schema.get("patternProperties"), dict):
            if self.first_pattern_properties is None:
                self.first_pattern_properties = _pointer([*parts, "patternProperties"])
            for pattern in schema["patternProperties"]:
                self._check_pattern(pattern, [*parts, "patternProperties", pattern])
        if "unevaluatedProperties" in schema:
            self.uses_unevaluated_properties = True
        for child, child_parts, in_place in self._children(schema, parts):
            if in_place and isinstance(child, dict):
                node.in_place.append(id(child))
            self._walk(child, child_parts, resolver)

    @staticmethod
    def _children(schema: dict[str, Any], parts: list[str]) -> Iterator[tuple[Any, list[str], bool]]:
        for keywords, in_place in ((_IN_PLACE_ONE, True), (_DESCENDING_ONE, False)):
            for keyword in keywords:
                if keyword in schema:
                    value = schema[keyword]
                    # Draft 7's list form of items: a list of schemas, one level down.
                    if isinstance(value, list):
                        for index, item in enumerate(value):
                            yield item, [*parts, keyword, str(index)], in_place
                    else:
                        yield value, [*parts, keyword], in_place
        for keywords, in_place in ((_IN_PLACE_MANY, True), (_DESCENDING_MANY, False)):
            for keyword in keywords:
                if isinstance(schema.get(keyword), list):
                    for index, item in enumerate(schema[keyword]):
                        yield item, [*parts, keyword, str(index)], in_place
        for keywords, in_place in ((_IN_PLACE_MAP, True), (_DESCENDING_MAP, False), (_DEFINITIONS, False)):
            for keyword in keywords:
                if isinstance(schema.get(keyword), dict):
                    for name, item in schema[keyword].items():
                        yield item, [*parts, keyword, name], in_place

    def _resolve(self, reference: str, parts: list[str], resolver: Any) -> tuple[Any, Any]:
        where = _pointer(parts)
        try:
            resolved = resolver.lookup(reference)
        except Unresolvable:
            raise UnsafeSchemaError(
                where,
                f"$ref {reference[:200]!r} does not point inside this schema; only local references "
                "(#/..., #/$defs/..., anchors) are allowed, nothing is ever fetched",
            ) from None
        except Exception:  # referencing raises assorted errors for malformed URIs and pointers
            raise UnsafeSchemaError(where, f"$ref {reference[:200]!r} is not a valid reference") from None
        return resolved.contents, resolved.resolver

    def _check_pattern(self, pattern: str, parts: list[str]) -> None:
        if pattern in self.programs:
            return
        try:
            program = _PROGRAMS.get(pattern) or re2.compile(pattern, _RE2_OPTIONS)
        except re2.error as error:
            if "too large" in str(error):
                raise UnsafeSchemaError(
                    _pointer(parts),
                    f"the pattern {pattern[:200]!r} compiles to a program too large to run "
                    f"(at most {MAX_PATTERN_PROGRAM} instructions for all of a schema's patterns)",
                ) from None
            raise UnsafeSchemaError(
                _pointer(parts),
                f"the pattern {pattern[:200]!r} is not supported: patterns run on a linear-time engine (RE2), "
                "without back-references or look-around",
            ) from None
        self.programs[pattern] = program
        self.program_size += program.programsize
        if self.program_size > MAX_PATTERN_PROGRAM:
            raise UnsafeSchemaError(
                _pointer(parts),
                f"the schema's patterns compile to more than {MAX_PATTERN_PROGRAM} instructions together "
                "(counted repetitions such as .{1000} multiply a pattern's size): use fewer or simpler patterns, "
                "or maxLength instead of a counted repetition",
            )

    def _refuse_reference_cycles(self) -> None:
        """A cycle through references and in-place keywords only would never end."""
        state: dict[int, int] = {}  # 1: on the current path, 2: done
        for start in self.nodes:
            if state.get(start):
                continue
            stack: list[tuple[int, Iterator[int]]] = [(start, iter(self.nodes[start].in_place))]
            state[start] = 1
            while stack:
                current, successors = stack[-1]
                advanced = False
                for successor in successors:
                    if successor not in self.nodes:
                        continue
                    if state.get(successor) == 1:
                        raise UnsafeSchemaError(
                            self.nodes[current].where,
                            "recursive $ref: this reference leads back to itself without descending into "
                            "the value (it would never end)",
                        )
                    if not state.get(successor):
                        state[successor] = 1
                        stack.append((successor, iter(self.nodes[successor].in_place)))
                        advanced = True
                        break
                if not advanced:
                    state[current] = 2
                    stack.pop()

    def _refuse_expansion(self) -> None:
        """A schema applies itself and its in-place subschemas (references followed) to one
        value; counted along every path, a few levels of ``anyOf`` of two references to the
        next level grow exponentially. Runs after the cycle check: the in-place graph is acyclic."""
        size: dict[int, int] = {}
        for start in self.nodes:
            stack = [start]
            while stack:
                current = stack[-1]
                if current in size:
                    stack.pop()
                    continue
                successors = [node for node in self.nodes[current].in_place if node in self.nodes]
                pending = [node for node in successors if node not in size]
                if pending:
                    stack.extend(pending)
                    continue
                stack.pop()
                total = 1 + sum(size[node] for node in successors)
                if total > MAX_IN_PLACE_EXPANSION:
                    raise UnsafeSchemaError(
                        self.nodes[current].where,
                        f"this schema applies more than {MAX_IN_PLACE_EXPANSION} subschemas to one value "
                        "(allOf / anyOf / oneOf / not / if and their references, counted along every path)",
                    )
                size[current] = total


def _refuse_many_patterns(schema: Any) -> None:
    """Count the distinct patterns before compiling any (the meta-schema check compiles each
    on Python's re, the vetting on RE2): every string under a ``pattern`` key and every name
    under a ``patternProperties`` key, wherever they are (an ``enum`` member spelled like a
    schema counts too: harmless at these bounds)."""
    patterns: set[str] = set()
    stack: list[Any] = [schema]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "pattern" and isinstance(item, str):
                    patterns.add(item)
                elif key == "patternProperties" and isinstance(item, dict):
                    patterns.update(name for name in item if isinstance(name, str))
                stack.append(item)
        elif isinstance(value, list):
            stack.extend(value)
    if len(patterns) > MAX_SCHEMA_PATTERNS:
        raise UnsafeSchemaError(
            "",
            f"the schema has {len(patterns)} distinct patterns (pattern, patternProperties); "
            f"at most {MAX_SCHEMA_PATTERNS} are served",
        )
    characters = sum(len(pattern) for pattern in patterns)
    if characters > MAX_PATTERN_CHARS:
        raise UnsafeSchemaError(
            "",
            f"the schema's distinct patterns are {characters} characters together; "
            f"at most {MAX_PATTERN_CHARS} are served",
        )


def _paced_keyword(check: Callable[..., Any]) -> Callable[..., Any]:
    def run(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        _pace()
        return check(validator, value, instance, schema)

    return run


#: The meta-schema's validator, pacing itself on a worker thread (``_pace``); its vocabularies
#: name ``$schema`` themselves, so it keeps its class too.
_MetaSchemaValidator = _keeping_its_class(
    extend(  # type: ignore[no-untyped-call]
        Draft202012Validator,
        validators={keyword: _paced_keyword(check) for keyword, check in Draft202012Validator.VALIDATORS.items()},
    )
)


def _check_schema(schema: dict[str, Any]) -> None:
    """``Draft202012Validator.check_schema``, formats included (a ``pattern`` must compile on re)."""
    validator = _MetaSchemaValidator(
        Draft202012Validator.META_SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    for error in validator.iter_errors(schema):
        raise SchemaError.create_from(error)


def _vet(schema: dict[str, Any]) -> dict[str, Any]:
    _refuse_many_patterns(schema)
    try:
        _check_schema(schema)
    except SchemaError as error:
        where = _pointer([str(part) for part in error.absolute_path])
        raise UnsafeSchemaError(where, f"not a valid JSON Schema (2020-12): {error.message[:300]}") from None
    except RecursionError:
        raise UnsafeSchemaError("", "the schema is nested too deeply") from None
    vetter = _Vetter(schema)
    vetter.run()
    return vetter.programs


def vet(schema: dict[str, Any]) -> None:
    """Raise ``UnsafeSchemaError`` unless the schema is valid 2020-12 and safe to serve (see the
    module docstring). Synchronous: on an event loop, await ``vetted``."""
    _vet(schema)
