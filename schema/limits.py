"""What one GraphQL operation may cost, computed before it runs.

The cost of an operation is the number of fields it could resolve at most: every field
counts once for each time it can appear in the answer. A field with a ``first`` (or
``topK``) argument multiplies what it selects by that number (``null`` or absent: the
argument's default, and never more than the 100 a page holds); a list field without one
multiplies by ``LIST_FACTOR``, except the ``edges``/``nodes`` of a connection, already
counted by ``first``. Fragments count where they are spread. Subscriptions are costed
the same way, per event.

An operation over ``max_cost`` is refused before execution with ``QUERY_TOO_COSTLY``
and its computed cost. Computing it takes time linear in the document, even for one
built to expand exponentially through fragments.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    StringValueNode,
    ValidationRule,
    VariableNode,
    get_named_type,
)
from strawberry.extensions import FieldExtension, SchemaExtension
from strawberry.scalars import JSON
from strawberry.types.base import StrawberryList, StrawberryOptional
from strawberry.types.field import StrawberryField
from strawberry.types.graphql import OperationType
from strawberry.utils.str_converters import to_camel_case

from schema.errors import QUERY_TOO_DEEP, TOO_MANY_ALIASES, ClientError, UserError
from schema.fairness import COSTLY_COST, LINE_RELEASE_SCOPE_KEY, CostlyOperationGate
from schema.pagination import MAX_FIRST

#: How many items a list field without ``first`` is assumed to hold.
LIST_FACTOR = 10
PAGE_ARGUMENTS = ("first", "topK")
CONNECTION_LISTS = ("edges", "nodes")
#: Costs are capped here: beyond it, the exact figure tells a client nothing more.
MAX_REPORTED_COST = 10**15


class _Coster:
    """Costs are linear in the multiplier, so each selection set is costed once for a
    multiplier of 1 and scaled; a fragment's cost is remembered per parent type, which
    keeps the computation linear in the document even when fragments expand exponentially."""

    def __init__(
        self,
        schema: GraphQLSchema,
        fragments: dict[str, FragmentDefinitionNode],
        variables: dict[str, Any],
    ) -> None:
        self.schema = schema
        self.fragments = fragments
        self.variables = variables
        self.fragment_costs: dict[tuple[str, str], int] = {}

    def selection_set(self, selections: SelectionSetNode, parent: Any) -> int:
        cost = 0
        for selection in selections.selections:
            if isinstance(selection, FieldNode):
                cost += self.field(selection, parent)
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                target = self.schema.get_type(condition.name.value) if condition else parent
                cost += self.selection_set(selection.selection_set, target or parent)
            elif isinstance(selection, FragmentSpreadNode):
                cost += self.fragment(selection.name.value, parent)
        return min(cost, MAX_REPORTED_COST)

    def fragment(self, name: str, parent: Any) -> int:
        key = (name, getattr(parent, "name", ""))
        if key not in self.fragment_costs:
            fragment = self.fragments.get(name)
            self.fragment_costs[key] = 0  # a cycle (refused by validation anyway) counts nothing
            if fragment is not None:
                target = self.schema.get_type(fragment.type_condition.name.value)
                self.fragment_costs[key] = self.selection_set(fragment.selection_set, target or parent)
        return self.fragment_costs[key]

    def field(self, node: FieldNode, parent: Any) -> int:
        if node.selection_set is None:
            return 1
        fields = getattr(parent, "fields", None) or {}
        definition = fields.get(node.name.value)
        if definition is None:  # introspection (__schema, __type): counted by its own selections
            return 1 + self.selection_set(node.selection_set, None)
        factor = self._factor(node, definition, parent)
        return 1 + factor * self.selection_set(node.selection_set, get_named_type(definition.type))

    def _factor(self, node: FieldNode, definition: Any, parent: Any) -> int:
        for name in PAGE_ARGUMENTS:
            if name in definition.args:
                return self._page_size(node, name, definition.args[name].default_value)
        field_type = definition.type
        if isinstance(field_type, GraphQLNonNull):
            field_type = field_type.of_type
        if isinstance(field_type, GraphQLList):
            is_connection_list = (
                isinstance(parent, GraphQLObjectType)
                and parent.name.endswith("Connection")
                and node.name.value in CONNECTION_LISTS
            )
            return 1 if is_connection_list else LIST_FACTOR
        return 1

    def _page_size(self, node: FieldNode, name: str, default: Any) -> int:
        value: Any = default
        for argument in node.arguments or ():
            if argument.name.value != name:
                continue
            if isinstance(argument.value, IntValueNode):
                value = int(argument.value.value)
            elif isinstance(argument.value, VariableNode):
                value = self.variables.get(argument.value.name.value, default)
            else:
                value = None
        if not isinstance(value, int) or isinstance(value, bool) or value > MAX_FIRST:
            return MAX_FIRST
        return max(value, 1)


class _ReadVariables(dict[str, Any]):
    """The operation's variables, remembering which ones the cost was computed from."""

    def __init__(self, variables: dict[str, Any]) -> None:
        super().__init__(variables)
        self.read: list[str] = []

    def get(self, name: str, default: Any = None) -> Any:
        self.read.append(name)
        return super().get(name, default)


class CostCache:
    """Costs already computed, per document text and operation, and per value of the few
    variables a cost depends on (``first``, ``topK``): a client sends the same few documents
    again and again (an ``invokeTool`` with new arguments costs what it cost before).
    Bounded; emptied when full."""

    def __init__(self, max_entries: int = 1024) -> None:
        self.max_entries = max_entries
        self._read: dict[tuple[str, str | None], tuple[str, ...]] = {}
        self._costs: dict[tuple[str, str | None, tuple[Any, ...]], int] = {}

    def cost(
        self, schema: GraphQLSchema, query: str, document: Any, operation_name: str | None, variables: dict[str, Any]
    ) -> int:
        read = self._read.get((query, operation_name))
        if read is not None:
            values = _cost_key(variables, read)
            if values is not None:
                cached = self._costs.get((query, operation_name, values))
                if cached is not None:
                    return cached
        recording = _ReadVariables(variables)
        cost = operation_cost(schema, document, operation_name, recording)
        read = tuple(dict.fromkeys(recording.read))
        values = _cost_key(variables, read)
        if values is not None:
            if len(self._costs) >= self.max_entries or len(self._read) >= self.max_entries:
                self._costs.clear()
                self._read.clear()
            self._read[(query, operation_name)] = read
            self._costs[(query, operation_name, values)] = cost
        return cost


_ABSENT = ("absent",)  # a variable not sent (its default applies), told apart from one sent as null


def _cost_key(variables: dict[str, Any], names: tuple[str, ...]) -> tuple[Any, ...] | None:
    """The values of the variables a cost was read from, or None when one is not a plain scalar."""
    values = tuple(variables.get(name, _ABSENT) for name in names)
    if all(value is None or value is _ABSENT or type(value) in (int, bool, str) for value in values):
        return values
    return None


def operation_cost(
    schema: GraphQLSchema, document: Any, operation_name: str | None, variables: dict[str, Any] | None
) -> int:
    """The most fields the operation can resolve (see the module docstring)."""
    fragments = {
        definition.name.value: definition
        for definition in document.definitions
        if isinstance(definition, FragmentDefinitionNode)
    }
    for operation in document.definitions:
        if not isinstance(operation, OperationDefinitionNode):
            continue
        if operation_name is None or (operation.name is not None and operation.name.value == operation_name):
            root = schema.get_root_type(operation.operation)
            # The mapping itself, even empty: CostCache learns from it which variables were read.
            return _Coster(schema, fragments, variables if variables is not None else {}).selection_set(
                operation.selection_set, root
            )
    return 0


class QueryCostLimiter(SchemaExtension):
    """Refuses, before execution, an operation costing more than ``max_cost`` (see the module docstring).

    Listed after ValidationCache, so it runs once the document is known to be valid.
    """

    def __init__(self, max_cost: int, gate: CostlyOperationGate | None = None, costs: CostCache | None = None) -> None:
        self.max_cost = max_cost
        self.gate = gate
        self.costs = costs
        self.cost = 0

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        if context.pre_execution_errors or context.graphql_document is None:
            yield
            return
        if self.costs is not None and context.query is not None:
            cost = self.costs.cost(
                context.schema._schema,
                context.query,
                context.graphql_document,
                context.operation_name,
                context.variables or {},
            )
        else:
            cost = operation_cost(
                context.schema._schema, context.graphql_document, context.operation_name, context.variables
            )
        self.cost = cost
        if cost > self.max_cost:
            context.pre_execution_errors = [
                GraphQLError(
                    f"This operation costs {cost}, over the limit of {self.max_cost} "
                    "(QUIVER_GRAPHQL_MAX_COST): ask for fewer items (`first`) or fewer nested lists.",
                    extensions={"code": "QUERY_TOO_COSTLY", "cost": cost, "maxCost": self.max_cost},
                )
            ]
        yield

    async def on_execute(self) -> AsyncIterator[None]:
        """A costly query runs once its tenant's earlier costly ones are done (``schema.fairness``).
        Not mutations or subscriptions: they wait on tools, models and events, not the loop."""
        context = self.execution_context
        # A large body's line (app.main) is for reading and parsing it; executing does not hold it.
        request = getattr(context.context, "request", None)
        release = getattr(request, "scope", {}).get(LINE_RELEASE_SCOPE_KEY) if request is not None else None
        if release is not None:
            release()
        if self.gate is None or self.cost < COSTLY_COST or context.operation_type is not OperationType.QUERY:
            yield
            return
        async with self.gate.turn(_tenant(context.context)):
            yield


def _tenant(context: Any) -> str:
    principal = getattr(context, "viewer", None)
    if principal is None:
        return "anonymous"
    return str(principal.tenant)


# ------------------------------------------------------------------ text inputs


@dataclass(frozen=True)
class TextLimits:
    """Longest string (in characters) each kind of text input takes; see README's settings."""

    name: int = 200
    description: int = 4_000
    query: int = 4_000
    prompt: int = 32_000
    document: int = 500_000
    other: int = 10_000
    #: Longest list input (in items), checked before any resolver: createSkill stored 40,000 tags and
    #: trigger hints, createTool 40,000 space ids (a filter's tags have their own, MAX_FILTER_TAGS).
    items: int = 500
    # An OpenAPI document: importOpenApi bounds it itself (2 MiB, app.tools.openapi.MAX_SPEC_BYTES).
    spec: int = 2 * 1024 * 1024

    def for_field(self, parent: str, name: str) -> int:
        kind = TEXT_KINDS.get((parent, name)) or TEXT_KINDS.get(("*", name))
        if kind is None:
            is_identifier = name == "id" or name.endswith(("Id", "Ids"))
            kind = "name" if is_identifier else "other"
        return int(getattr(self, kind))


#: Where an agent's user message is given: previewPrompt assembles exactly what invokeAgent would
#: run for it, and skillRouting answers its skill step (which skills would route), so all three take
#: the same messages (one bound, ``prompt``: QUIVER_MAX_PROMPT_CHARS). Routing a long message stays
#: bounded in work (app.skills.matching): the local model embeds its end sentences within
#: SEGMENT_BUDGET, an embeddings endpoint is sent PROVIDER_REQUEST_CHARS of it; the lexical side is linear.
AGENT_MESSAGE_FIELDS = (("InvokeAgentInput", "message"), ("previewPrompt", "message"), ("skillRouting", "message"))

#: (input type or root field, GraphQL field or argument name) → kind of text; "*" for any.
TEXT_KINDS: dict[tuple[str, str], str] = {
    **{
        ("*", name): "name"
        for name in (
            "name",
            "label",
            "title",
            "category",
            "group",
            "owner",
            "model",
            "version",
            "tags",
            "triggerHints",
            "skillChannel",
            "idempotencyKey",
            "sessionId",
            "clientId",
            "headerName",
            "scopes",
            "toolId",
        )
    },
    **{("*", name): "description" for name in ("description", "boundary", "outputFormat")},
    **{("*", name): "query" for name in ("query", "search")},
    **{("*", name): "prompt" for name in ("prompt", "systemPrompt")},
    **dict.fromkeys(AGENT_MESSAGE_FIELDS, "prompt"),
    ("AddDocumentInput", "text"): "document",
    ("ImportSkillInput", "text"): "document",
    ("ImportOpenApiInput", "spec"): "spec",
}


#: Most distinct tags a filter (tools, visibleTools, skills) may require: each is a condition of
#: the query, and SQLite refuses a query of about a thousand ("Expression tree is too large").
MAX_FILTER_TAGS = 100


def filter_tags(tags: list[str] | None) -> tuple[str, ...]:
    """A filter's tags, each once; more than ``MAX_FILTER_TAGS`` is a top-level ``TOO_LONG``."""
    distinct = tuple(dict.fromkeys(tags or ()))
    if len(distinct) > MAX_FILTER_TAGS:
        raise ClientError(
            f"filter.tags holds {len(distinct)} tags; at most {MAX_FILTER_TAGS} are accepted.", "TOO_LONG"
        )
    return distinct


#: Root fields that bound their own inputs and answer in their own shape: invokeTool always
#: answers an envelope (its gateway refuses over-long ids with TOOL_NOT_AVAILABLE or PARAM_INVALID).
OWN_BOUNDS = frozenset({"invoke_tool"})


class _TooLongError(Exception):
    def __init__(self, path: list[str], length: int, limit: int, *, items: bool = False) -> None:
        if items:
            super().__init__(f"{'.'.join(path)} has {length} items; at most {limit} are accepted.")
        else:
            super().__init__(f"{'.'.join(path)} is {length} characters long; at most {limit} are accepted.")
        self.path = path
        self.length = length
        self.limit = limit


def _is_json(type_: Any) -> bool:
    """A JSON argument (optional or not): bounded by the request's size and depth, not as text.
    A JSON value that happens to be a string (invokePipeline's input: a customer's e-mail) was
    cut at QUIVER_MAX_TEXT_CHARS where the same text inside an object was not."""
    while isinstance(type_, StrawberryOptional):
        type_ = type_.of_type
    return type_ is JSON


def _check_value(value: Any, parent: str, name: str, path: list[str], limits: TextLimits) -> None:
    if isinstance(value, str):
        limit = limits.for_field(parent, name)
        if len(value) > limit:
            raise _TooLongError(path, len(value), limit)
    elif isinstance(value, list):
        if len(value) > limits.items:
            raise _TooLongError(path, len(value), limits.items, items=True)
        for index, item in enumerate(value):
            _check_value(item, parent, name, [*path, str(index)], limits)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        definition = getattr(type(value), "__strawberry_definition__", None)
        if definition is None:
            return
        for field in definition.fields:
            if _is_json(field.type):
                continue
            graphql_name = field.graphql_name or to_camel_case(field.python_name)
            _check_value(
                getattr(value, field.python_name), definition.name, graphql_name, [*path, graphql_name], limits
            )


class TextLimitsExtension(FieldExtension):
    """Refuses an over-long string argument of a root field before its resolver runs: a
    mutation answers a userError (code ``TOO_LONG``, the field path) in its payload; other
    operations answer a top-level ``TOO_LONG`` error. JSON arguments are bounded by the
    request size and depth instead."""

    def __init__(self, limits: TextLimits) -> None:
        self.limits = limits

    def apply(self, field: StrawberryField) -> None:
        self.field_name = field.graphql_name or to_camel_case(field.python_name or "")
        self.payload = _payload_factory(field)
        self.json_arguments = {argument.python_name for argument in field.arguments if _is_json(argument.type)}

    def _check(self, kwargs: dict[str, Any]) -> Any:
        try:
            for name, value in kwargs.items():
                if name in self.json_arguments:
                    continue
                graphql_name = to_camel_case(name)
                _check_value(value, self.field_name, graphql_name, [graphql_name], self.limits)
        except _TooLongError as too_long:
            message = str(too_long)
            if self.payload is None:
                raise ClientError(message, "TOO_LONG") from None
            return self.payload(UserError(field=too_long.path, code="TOO_LONG", message=message))
        return None

    def resolve(self, next_: Callable[..., Any], source: Any, info: Any, **kwargs: Any) -> Any:
        refusal = self._check(kwargs)
        return refusal if refusal is not None else next_(source, info, **kwargs)

    async def resolve_async(self, next_: Callable[..., Any], source: Any, info: Any, **kwargs: Any) -> Any:
        refusal = self._check(kwargs)
        if refusal is not None:
            return refusal
        result = next_(source, info, **kwargs)
        return await result if inspect.isawaitable(result) else result


def _payload_factory(field: StrawberryField) -> Callable[[UserError], Any] | None:
    """Builds the field's payload holding only userErrors, or None when it has no userErrors."""
    payload_type: Any = field.type
    definition = getattr(payload_type, "__strawberry_definition__", None)
    if definition is None or not any(item.python_name == "user_errors" for item in definition.fields):
        return None

    def build(error: UserError) -> Any:
        values: dict[str, Any] = {}
        for item in definition.fields:
            if item.python_name == "user_errors":
                values[item.python_name] = [error]
            elif isinstance(item.type, StrawberryList):
                values[item.python_name] = []
            else:
                values[item.python_name] = None
        return payload_type(**values)

    return build


def add_text_limits(root_types: list[type], limits: TextLimits) -> None:
    """Puts the text limits on every field of the root types, just before a schema is built
    from them: each build converts the fields with the extensions they hold at that moment,
    so the lists are replaced, never changed in place."""
    for root in root_types:
        for field in root.__strawberry_definition__.fields:  # type: ignore[attr-defined]
            if field.python_name in OWN_BOUNDS:
                continue
            others = [extension for extension in field.extensions if not isinstance(extension, TextLimitsExtension)]
            field.extensions = [*others, TextLimitsExtension(limits)]


# ------------------------------------------------------------------ depth and aliases


class _Shape:
    """Depth and alias count of selection sets, each fragment measured once: Strawberry's
    own limiters expand every spread, which takes exponential time on a document whose
    fragments each spread the previous one twice (40 of them fit in the token limit)."""

    def __init__(self, fragments: dict[str, FragmentDefinitionNode]) -> None:
        self.fragments = fragments
        self.measured: dict[str, tuple[int, int]] = {}

    def measure(self, selections: SelectionSetNode) -> tuple[int, int]:
        """(depth: fields with selections on the longest path, introspection not counted; aliases)."""
        depth = aliases = 0
        for selection in selections.selections:
            if isinstance(selection, FieldNode):
                aliases += selection.alias is not None
                if selection.selection_set is None:
                    continue
                inner_depth, inner_aliases = self.measure(selection.selection_set)
                aliases += inner_aliases
                if not selection.name.value.startswith("__"):
                    depth = max(depth, 1 + inner_depth)
            elif isinstance(selection, InlineFragmentNode):
                inner_depth, inner_aliases = self.measure(selection.selection_set)
                depth, aliases = max(depth, inner_depth), aliases + inner_aliases
            elif isinstance(selection, FragmentSpreadNode):
                inner_depth, inner_aliases = self.fragment(selection.name.value)
                depth, aliases = max(depth, inner_depth), aliases + inner_aliases
        return depth, min(aliases, MAX_REPORTED_COST)

    def fragment(self, name: str) -> tuple[int, int]:
        if name not in self.measured:
            self.measured[name] = (0, 0)  # a cycle (refused by validation anyway) adds nothing
            fragment = self.fragments.get(name)
            if fragment is not None:
                self.measured[name] = self.measure(fragment.selection_set)
        return self.measured[name]


#: The shape limit's messages (Strawberry's limiters' wording); a client acts on the code, not on these.
TOO_DEEP_MESSAGE = "'{name}' exceeds maximum operation depth of {max_depth}"
TOO_MANY_ALIASES_MESSAGE = "{aliases} aliases found. Allowed: {max_aliases}"


def shape_limit_rule(max_depth: int, max_aliases: int) -> type[ValidationRule]:
    """A validation rule refusing documents deeper than ``max_depth`` (QUERY_TOO_DEEP) or with
    more than ``max_aliases`` aliases (TOO_MANY_ALIASES, counted once per spread), each refusal
    coded here, where it is made, with Strawberry's limiters' messages."""

    class ShapeLimit(ValidationRule):
        def enter_document(self, node: DocumentNode, *_: Any) -> None:
            fragments = {
                definition.name.value: definition
                for definition in node.definitions
                if isinstance(definition, FragmentDefinitionNode)
            }
            shape = _Shape(fragments)
            total_aliases = 0
            for definition in node.definitions:
                if not isinstance(definition, OperationDefinitionNode):
                    continue
                depth, aliases = shape.measure(definition.selection_set)
                total_aliases += aliases
                if depth > max_depth:
                    name = definition.name.value if definition.name else "anonymous"
                    message = TOO_DEEP_MESSAGE.format(name=name, max_depth=max_depth)
                    self.report_error(GraphQLError(message, [definition], extensions={"code": QUERY_TOO_DEEP}))
            if total_aliases > max_aliases:
                message = TOO_MANY_ALIASES_MESSAGE.format(aliases=total_aliases, max_aliases=max_aliases)
                self.report_error(GraphQLError(message, extensions={"code": TOO_MANY_ALIASES}))

    return ShapeLimit


class NulInStrings(ValidationRule):
    """Refuses a document whose string literals hold U+0000 (``"\\u0000"``, ``"\\u{0}"``), as a
    request's JSON strings are refused (app.jsoncodec.loads_unicode): PostgreSQL text cannot hold
    it, so an id or a label with one was an internal error there and an answer on SQLite."""

    def enter_string_value(self, node: StringValueNode, *_: Any) -> None:
        if "\x00" in node.value:
            message = "A string holds U+0000 (NUL), which Quiver does not store."
            self.report_error(GraphQLError(message, [node], extensions={"code": "BAD_REQUEST"}))
