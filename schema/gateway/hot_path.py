"""``invokeTool``, ``invokeAgent`` and pages of ``tools`` over ``POST /graphql`` without the
generic GraphQL machinery, for known documents.

A client calling tools or running agents sends the same document again and again with new
variables, e.g. ``mutation($input: InvokeToolInput!) { invokeTool(input: $input) { status
data error { code } traceId } }``. For such a document the generic path (Strawberry's HTTP
view, its extensions' hooks, graphql-core's executor, the conversion of the variables into
the input object) does the same work on every request: about a third of a served tool
call's CPU (bench/throughput.py), about 1.4 ms of an agent run's (bench/agent_overhead.py).
:class:`HotPath` compiles each document once into a plan and then answers from it: the
variables checked and made into the input object, the field's extensions and resolver
called, the payload serialized in the selection's order.

A document is compiled only when the generic path would do exactly what the plan does:
it parses within the token limit, passes the same validation (graphql-core's rules,
Strawberry's and Quiver's shape limits), costs no more than ``QUIVER_GRAPHQL_MAX_COST``,
and is one mutation whose only root field is one of :data:`PLANNED_FIELDS` called as
``field(input: $var)`` with ``$var: <its input type>!``, selecting plain fields only
(fields read from the object as they are — scalars, enums, objects and lists of them —,
``__typename``, aliases allowed; no fragments, directives, arguments or fields with a
resolver of their own, such as ``ToolResult.call`` or ``AgentRun.toolCalls``). A request
is answered from a plan only when its body is a JSON object the generic path would read
the same way and its ``input`` is one graphql-core would take as it is (strings for
``String`` and ``ID``, booleans for ``Boolean``, any value for ``JSON``, null or nothing
for any other type; no unknown keys, every required field there). Anything else —
another document, a bad variable, a body that is not plain JSON — takes the generic path
untouched, which answers it (and its errors) as before.

Pages of ``tools`` (SQLite only, with the schema's own executor): a query whose one root field
is ``tools`` with ``first`` and ``after`` only (literals, or variables of their own types) and a
selection whose whole connection the database's nodes make (``schema.tools.rendering``:
``totalCount``, ``pageInfo``'s and ``edges``' fields, ``__typename``, the nodes' renderable
fields) is planned once, its cost taken at the most a page holds. A request is answered from the
plan when ``first`` is a page's size (0-100), ``after`` a string or null, the field's own argument
check passes, and the database wrote every node; the answer is what the generic path answers, byte
for byte, read from and kept in the listing cache as it does, within the query deadline, a costly
page (``schema.fairness``) waiting its tenant's turn in the same line. Otherwise
(a bad cursor, a row SQLite cannot write, the database away, the deadline) the generic path answers
the request from the start, reading the page the ordinary way.

What stays as on the generic path: the key check, the tenant's admission and the request
limits run before (app.main); the context is the app's own; the field's extensions (the
text limits: an over-long message is the same ``TOO_LONG`` userError) and its resolver are
the schema's own (``GatewayMutation.invoke_tool``, ``RuntimeMutation.invoke_agent``:
roles, policies, rate limits, the call-log row, the run's row and its finish before the
answer); a large body's line is let go as execution starts; a resolver exception is logged
and masked by the schema's own ``process_errors`` and ``MaskUnexpectedErrors``; a null in
a non-null field makes its nearest nullable parent null, with the error, as graphql-core
does; the answer is the same JSON with the same headers.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import MISSING, dataclass
from functools import partial, reduce
from typing import Any

import orjson
from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLInputObjectType,
    GraphQLLeafType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLSchema,
    IntValueNode,
    NamedTypeNode,
    NonNullTypeNode,
    NullValueNode,
    OperationDefinitionNode,
    OperationType,
    SelectionNode,
    StringValueNode,
    Undefined,
    VariableNode,
    located_error,
    parse,
    specified_rules,
)
from starlette.types import ASGIApp, Receive, Scope, Send
from strawberry.schema.schema import validate_document
from strawberry.types.base import StrawberryMaybe
from strawberry.types.field import StrawberryField

from app import jsoncodec
from app.http_limits import replayed
from schema.errors import MaskUnexpectedErrors
from schema.fairness import COSTLY_COST, LINE_RELEASE_SCOPE_KEY, CostlyOperationGate
from schema.limits import CostCache, TextLimitsExtension, _ReadVariables, _tenant, operation_cost
from schema.listing_cache import EncodedData, ListingCache
from schema.pagination import MAX_FIRST, page_request
from schema.tools import rendering
from schema.tools.types import rendered_connection, rendered_page

#: The root mutations answered from plans.
PLANNED_FIELDS = ("invokeTool", "invokeAgent")
#: The root query answered from listing plans (SQLite only: see :class:`ListingPlan`).
PLANNED_LISTING = "tools"
#: Set in a request's scope when its listing plan could not answer it (app.main.GraphQLPost).
RENDERED_REFUSED_SCOPE_KEY = "quiver.rendered_refused"
#: Documents remembered (plans and refusals); emptied when full.
MAX_PLANS = 256
#: Longest document text looked at (a longer one takes the generic path).
MAX_QUERY_CHARS = 4096
#: Field extensions whose hooks the plan runs as the generic path would: they read the
#: arguments only (not the info), so the plan's minimal info serves them.
PLANNED_EXTENSIONS = (TextLimitsExtension,)

_BODY_KEYS = frozenset({"query", "variables", "operationName", "extensions"})
_HEADERS = [(b"content-type", b"application/json")]
#: Strawberry's back-reference from a graphql-core field to its StrawberryField.
DEFINITION_KEY = "strawberry-definition"
#: Scalars whose variable values graphql-core takes as they are, with the Python type each must have.
_TAKEN_AS_THEY_ARE: dict[str, type | None] = {"String": str, "ID": str, "Boolean": bool, "JSON": None}

#: (value, path, errors) -> the value as graphql-core completes it; errors of nullable parts
#: are appended to ``errors`` (the part is then null), others raised.
Serializer = Callable[[Any, list[Any], list[GraphQLError]], Any]


class _NullInNonNullError(TypeError):
    """graphql-core's own error for a null in a non-null field (masked like any other fault)."""


@dataclass(frozen=True)
class RootField:
    """One plannable root mutation: its name, its argument's type, and how it is called."""

    name: str
    input_type_name: str
    #: The variable's value -> the resolver's ``input`` (None: graphql-core would not take it as it is).
    convert: Callable[[Any], Any | None]
    #: (source, info, input=...) -> the result: the field's extensions around its resolver.
    resolve: Callable[..., Awaitable[Any]]
    result_type: GraphQLObjectType


@dataclass(frozen=True)
class Plan:
    root: RootField
    response_key: str
    variable: str
    field_node: FieldNode
    serialize: Serializer


@dataclass(frozen=True)
class _Variable:
    """An argument given by a variable: its name, and whether its type takes null."""

    name: str
    nullable: bool


@dataclass(frozen=True)
class ListingPlan:
    """A page of ``tools`` whose whole connection SQLite's nodes and Python write
    (``schema.tools.rendering``): ``first`` and ``after`` as literals or variables."""

    query: str
    document: DocumentNode
    operation_name: str | None
    response_key: str
    listing: rendering.ListingPlan
    first: int | _Variable
    after: str | _Variable | None
    with_total: bool
    #: The field's own argument check (TextLimitsExtension._check), run as the generic path runs it.
    check: Callable[[dict[str, Any]], Any]


@dataclass
class _Info:
    """What the resolvers and the planned extensions read from their info: the context."""

    context: Any


# ---------------------------------------------------------------- the input object


def _input_converter(input_class: Any, graphql_type: GraphQLInputObjectType, name_of: Any) -> Callable[[Any], Any]:
    """value -> ``input_class`` as Strawberry makes it from graphql-core's coerced value, for a
    value graphql-core takes as it is; None for any other value (the generic path then answers).
    Raises LookupError when the input type has fields of a kind this does not convert."""
    definition = getattr(input_class, "__strawberry_definition__", None)
    if definition is None or not definition.is_input or definition.from_input is not None:
        raise LookupError(f"{input_class!r} is not a plain input type")
    # (graphql name, python name, scalar kind or None, non-null, graphql default, python default missing)
    fields: list[tuple[str, str, str | None, bool, Any, bool]] = []
    for field in definition.fields:
        graphql_name = name_of(field)
        input_field = graphql_type.fields.get(graphql_name)
        if input_field is None or isinstance(field.type, StrawberryMaybe):
            raise LookupError(graphql_name)
        non_null = isinstance(input_field.type, GraphQLNonNull)
        named = input_field.type.of_type if non_null else input_field.type
        kind = named.name if isinstance(named, GraphQLScalarType) and named.name in _TAKEN_AS_THEY_ARE else None
        default = input_field.default_value
        if (kind is None and non_null) or isinstance(default, dict | list):
            raise LookupError(graphql_name)  # required of another kind, or a shared mutable default
        missing = field.default_value is MISSING and field.default_factory is MISSING
        fields.append((graphql_name, field.python_name, kind, non_null, default, missing))
    known = frozenset(name for name, *_ in fields)

    def convert(value: Any) -> Any | None:
        if type(value) is not dict or not value.keys() <= known:
            return None
        kwargs: dict[str, Any] = {}
        for graphql_name, python_name, kind, non_null, default, missing in fields:
            if graphql_name not in value:
                if default is not Undefined:
                    kwargs[python_name] = default  # graphql-core fills the schema's default in
                elif non_null:
                    return None  # required: graphql-core's error
                elif missing:
                    kwargs[python_name] = None  # as Strawberry does for an absent nullable field
                continue
            item = value[graphql_name]
            if item is None:
                if non_null:
                    return None
            elif kind is None:
                return None  # an enum, an input object, a list: converted by the generic path
            else:
                expected = _TAKEN_AS_THEY_ARE[kind]
                if expected is not None and type(item) is not expected:
                    return None
            kwargs[python_name] = item
        return input_class(**kwargs)

    return convert


def _root_field(schema: Any, name: str) -> RootField | None:
    """The root mutation ``name`` when a plan can call it as the generic path would; else None."""
    graphql_schema: GraphQLSchema = schema._schema
    mutation_type = graphql_schema.mutation_type
    field = mutation_type.fields.get(name) if mutation_type is not None else None
    definition = (field.extensions or {}).get(DEFINITION_KEY) if field is not None else None
    if field is None or not isinstance(definition, StrawberryField) or definition.base_resolver is None:
        return None
    if not definition.is_async or any(type(item) not in PLANNED_EXTENSIONS for item in definition.extensions):
        return None
    if len(definition.arguments) != 1 or list(field.args) != ["input"]:
        return None
    argument_type = field.args["input"].type
    result_type = field.type.of_type if isinstance(field.type, GraphQLNonNull) else None
    if (
        not isinstance(argument_type, GraphQLNonNull)
        or not isinstance(argument_type.of_type, GraphQLInputObjectType)
        or not isinstance(result_type, GraphQLObjectType)
    ):
        return None
    try:
        convert = _input_converter(
            definition.arguments[0].type, argument_type.of_type, schema.config.name_converter.from_field
        )
    except LookupError:
        return None
    resolver = definition.base_resolver.wrapped_func
    if isinstance(resolver, staticmethod | classmethod):
        return None

    async def resolve(source: Any, info: Any, **kwargs: Any) -> Any:
        return await resolver(source, info, **kwargs)

    # As Strawberry chains them: the first extension next to the resolver, the last outermost.
    chained = reduce(
        lambda inner, outer: partial(outer, inner),
        [extension.resolve_async for extension in definition.extensions if extension.has_resolver],
        resolve,
    )
    return RootField(name, argument_type.of_type.name, convert, chained, result_type)


# ---------------------------------------------------------------- the payload


def _completer(field_type: GraphQLOutputType, node: FieldNode, label: str, schema: GraphQLSchema) -> Serializer | None:
    """A value of ``field_type`` selected by ``node`` as graphql-core completes it; None when
    this module does not serialize it (the generic path takes the document). ``label``:
    ``Parent.field``, for graphql-core's message about a null in a non-null field."""
    if isinstance(field_type, GraphQLNonNull):
        inner = _completer(field_type.of_type, node, label, schema)
        if inner is None:
            return None

        def non_null(value: Any, path: list[Any], errors: list[GraphQLError]) -> Any:
            if value is None:
                error = _NullInNonNullError(f"Cannot return null for non-nullable field {label}.")
                raise located_error(error, [node], path)
            return inner(value, path, errors)

        return non_null
    complete: Serializer
    if isinstance(field_type, GraphQLLeafType):
        if node.selection_set is not None:
            return None
        leaf: Callable[[Any], Any] = field_type.serialize

        def complete_leaf(value: Any, path: list[Any], errors: list[GraphQLError]) -> Any:
            try:
                return leaf(value)
            except Exception as error:
                raise located_error(error, [node], path) from error

        complete = complete_leaf
    elif isinstance(field_type, GraphQLList):
        item = _completer(field_type.of_type, node, label, schema)
        if item is None:
            return None

        def complete_list(value: Any, path: list[Any], errors: list[GraphQLError]) -> Any:
            if type(value) is not list and type(value) is not tuple:
                error = GraphQLError(f"Expected Iterable, but did not find one for field '{label}'.")
                raise located_error(error, [node], path)
            return [item(entry, [*path, index], errors) for index, entry in enumerate(value)]

        complete = complete_list
    elif isinstance(field_type, GraphQLObjectType) and node.selection_set is not None:
        selected = _object_serializer(field_type, list(node.selection_set.selections), schema)
        if selected is None:
            return None
        complete = selected
    else:
        return None

    def nullable(value: Any, path: list[Any], errors: list[GraphQLError]) -> Any:
        if value is None:
            return None
        try:
            return complete(value, path, errors)
        except GraphQLError as error:
            errors.append(error)  # this part is null; the error goes with the answer
            return None

    return nullable


def _object_serializer(
    object_type: GraphQLObjectType, selections: list[SelectionNode], schema: GraphQLSchema
) -> Serializer | None:
    """(value, path, errors) -> the selection's dict, as graphql-core completes it; None when
    the selection is not one this module serializes (the generic path takes the document)."""
    python_names = _python_names(object_type)
    steps: list[tuple[str, str | None, Serializer | None]] = []
    for node in selections:
        if not isinstance(node, FieldNode) or node.directives or node.arguments:
            return None
        name = node.name.value
        key = node.alias.value if node.alias else name
        if any(key == step[0] for step in steps):
            return None  # merged fields: the generic path
        if name == "__typename":
            if node.selection_set is not None:
                return None
            steps.append((key, None, None))
            continue
        field = object_type.fields.get(name)
        python_name = python_names.get(name)
        if field is None or python_name is None or field.args or not getattr(field.resolve, "_is_default", False):
            return None  # a resolver field (`call`, `toolCalls`) or one with arguments: the generic path
        complete = _completer(field.type, node, f"{object_type.name}.{name}", schema)
        if complete is None:
            return None
        steps.append((key, python_name, complete))
    type_name = object_type.name

    def serialize(value: Any, path: list[Any], errors: list[GraphQLError]) -> Any:
        answer: dict[str, Any] = {}
        for key, python_name, complete in steps:
            if complete is None:
                answer[key] = type_name
            else:
                answer[key] = complete(getattr(value, python_name), [*path, key], errors)  # type: ignore[arg-type]
        return answer

    return serialize


def _python_names(object_type: GraphQLObjectType) -> dict[str, str]:
    """GraphQL field name → the Python attribute Strawberry's default resolver reads."""
    names: dict[str, str] = {}
    for name, field in object_type.fields.items():
        definition = (field.extensions or {}).get(DEFINITION_KEY)
        if isinstance(definition, StrawberryField) and definition.base_resolver is None and not definition.extensions:
            names[name] = definition.python_name
    return names


# ---------------------------------------------------------------- plans


class HotPath:
    """Plans per document text (see the module docstring) and the answer from one."""

    def __init__(
        self,
        schema: Any,
        *,
        validation_rules: tuple[Any, ...],
        max_tokens: int,
        max_cost: int,
        listings: bool = False,
        gate: CostlyOperationGate | None = None,
        costs: CostCache | None = None,
    ) -> None:
        self.schema = schema
        self.validation_rules = (*specified_rules, *validation_rules)
        self.max_tokens = max_tokens
        self.max_cost = max_cost
        #: The schema's own resolvers and input types: a plan calls what the generic path calls.
        self.fields: dict[str, RootField] = {}
        for name in PLANNED_FIELDS:
            root = _root_field(schema, name)
            if root is not None:
                self.fields[name] = root
        #: ``tools``' own argument check, when its listings are planned (SQLite, and an executor
        #: that passes written JSON through, as the generic path's rendered pages need); else None.
        passes_raw_json = getattr(schema.execution_context_class, "passes_raw_json", False)
        self.listing_check = _listing_check(schema) if listings and passes_raw_json else None
        #: The costly queries' line per tenant and the costs, shared with QueryCostLimiter: a page
        #: costing COSTLY_COST or more waits its tenant's turn, as on the generic path.
        self.gate = gate
        self.costs = costs or CostCache()
        self._plans: dict[tuple[str, str | None], Plan | ListingPlan | None] = {}

    # ---------------------------------------------------------------- compiling

    def plan(self, query: str, operation_name: str | None) -> Plan | ListingPlan | None:
        key = (query, operation_name)
        try:
            return self._plans[key]
        except KeyError:
            pass
        try:
            plan = self._compile(query, operation_name)
        except Exception:
            plan = None  # whatever went wrong, the generic path answers
        if len(self._plans) >= MAX_PLANS:
            self._plans.clear()
        self._plans[key] = plan
        return plan

    def _compile(self, query: str, operation_name: str | None) -> Plan | ListingPlan | None:
        listing = self.listing_check is not None and PLANNED_LISTING in query
        if len(query) > MAX_QUERY_CHARS or not (listing or any(name in query for name in self.fields)):
            return None
        graphql_schema: GraphQLSchema = self.schema._schema
        try:
            document = parse(query, max_tokens=self.max_tokens)
        except GraphQLError:
            return None
        if validate_document(graphql_schema, document, self.validation_rules):
            return None
        operation = _single_operation(document, operation_name)
        if operation is not None and operation.operation is OperationType.QUERY:
            return self._compile_listing(document, operation, query, operation_name) if listing else None
        if (
            operation is None
            or operation.operation is not OperationType.MUTATION
            or operation.directives
            or len(operation.variable_definitions or ()) != 1
        ):
            return None
        selections = operation.selection_set.selections
        root_node = selections[0] if len(selections) == 1 else None
        if not isinstance(root_node, FieldNode) or root_node.name.value not in self.fields:
            return None
        root = self.fields[root_node.name.value]
        definition = (operation.variable_definitions or ())[0]
        variable_type = definition.type
        if (
            definition.default_value is not None
            or definition.directives
            or not isinstance(variable_type, NonNullTypeNode)
            or not isinstance(variable_type.type, NamedTypeNode)
            or variable_type.type.name.value != root.input_type_name
        ):
            return None
        arguments = root_node.arguments or ()
        if (
            root_node.directives
            or root_node.selection_set is None
            or len(arguments) != 1
            or arguments[0].name.value != "input"
            or not isinstance(arguments[0].value, VariableNode)
            or arguments[0].value.name.value != definition.variable.name.value
        ):
            return None
        serialize = _object_serializer(root.result_type, list(root_node.selection_set.selections), graphql_schema)
        if serialize is None:
            return None
        reading = _ReadVariables({})
        if operation_cost(graphql_schema, document, operation_name, reading) > self.max_cost or reading.read:
            return None
        return Plan(
            root=root,
            response_key=root_node.alias.value if root_node.alias else root.name,
            variable=definition.variable.name.value,
            field_node=root_node,
            serialize=serialize,
        )

    def _compile_listing(
        self, document: DocumentNode, operation: OperationDefinitionNode, query: str, operation_name: str | None
    ) -> ListingPlan | None:
        """A plan for one ``tools`` page whose whole connection can be written (``rendering``),
        ``first`` and ``after`` given as literals or variables of their own types, nothing else."""
        assert self.listing_check is not None
        graphql_schema: GraphQLSchema = self.schema._schema
        selections = operation.selection_set.selections
        root_node = selections[0] if len(selections) == 1 else None
        if (
            operation.directives
            or not isinstance(root_node, FieldNode)
            or root_node.name.value != PLANNED_LISTING
            or root_node.directives
            or graphql_schema.query_type is None
        ):
            return None
        listing = rendering.listing_plan_of(root_node, graphql_schema.query_type.fields[PLANNED_LISTING].type)
        if listing is None or listing.connection is None:
            return None
        definitions = {
            definition.variable.name.value: definition for definition in operation.variable_definitions or ()
        }
        arguments: dict[str, Any] = {"first": _Variable("", True), "after": None}  # first absent: generic
        cost_variables: dict[str, Any] = {}
        for argument in root_node.arguments or ():
            name, value = argument.name.value, argument.value
            expected = {"first": "Int", "after": "String"}.get(name)
            if expected is None:
                return None  # a filter: the generic path
            if isinstance(value, VariableNode):
                definition = definitions.get(value.name.value)
                variable_type = definition.type if definition is not None else None
                nullable = not isinstance(variable_type, NonNullTypeNode)
                named = variable_type if nullable else variable_type.type  # type: ignore[union-attr]
                if (
                    definition is None
                    or definition.default_value is not None
                    or definition.directives
                    or not isinstance(named, NamedTypeNode)
                    or named.name.value != expected
                ):
                    return None
                arguments[name] = _Variable(value.name.value, nullable)
                cost_variables[value.name.value] = MAX_FIRST if name == "first" else None
            elif name == "first" and isinstance(value, IntValueNode) and 0 <= int(value.value) <= MAX_FIRST:
                arguments[name] = int(value.value)
            elif name == "after" and isinstance(value, StringValueNode | NullValueNode):
                arguments[name] = value.value if isinstance(value, StringValueNode) else None
            else:
                return None
        first = arguments["first"]
        if (isinstance(first, _Variable) and not first.name) or len(definitions) != len(cost_variables):
            return None
        # The most this document costs (``first`` counts as at most MAX_FIRST, a page's most).
        if operation_cost(graphql_schema, document, operation_name, cost_variables) > self.max_cost:
            return None
        return ListingPlan(
            query=query,
            document=document,
            operation_name=operation_name,
            response_key=root_node.alias.value if root_node.alias else PLANNED_LISTING,
            listing=listing,
            first=first,
            after=arguments["after"],
            with_total=any(name == "totalCount" for _, name, _ in listing.connection),
            check=self.listing_check,
        )

    # ---------------------------------------------------------------- answering

    def arguments(self, plan: Plan, variables: Any) -> Any | None:
        """The resolver's ``input`` when graphql-core would take the variable as it is; else None."""
        if not isinstance(variables, dict):
            return None
        return plan.root.convert(variables.get(plan.variable))

    async def answer(self, plan: Plan, input_value: Any, context: Any) -> bytes:
        path = [plan.response_key]
        errors: list[GraphQLError] = []
        data: dict[str, Any] | None
        try:
            result = await plan.root.resolve(None, _Info(context), input=input_value)
            # The root fields are non-null: a null anywhere not caught below makes the data null.
            data = {plan.response_key: plan.serialize(result, path, errors)}
        except Exception as error:
            located = error if isinstance(error, GraphQLError) else located_error(error, [plan.field_node], path)
            errors.append(located)
            data = None
        if not errors:
            return jsoncodec.dumps_bytes({"data": data})
        # As the generic path: logged as raised, then masked (a fault: "internal error" and a trace id).
        self.schema.process_errors(errors, None)
        masked = MaskUnexpectedErrors()._process_errors(errors)
        return jsoncodec.dumps_bytes({"data": data, "errors": [item.formatted for item in masked]})

    def listing_arguments(self, plan: ListingPlan, variables: Any) -> tuple[int, str | None] | None:
        """``first`` and ``after`` when graphql-core would take the variables as they are, the
        field's argument check passes and ``first`` is a page's size; else None (generic path)."""
        if variables is None:
            variables = {}
        if type(variables) is not dict:
            return None
        values: list[Any] = []
        for argument in (plan.first, plan.after):
            if not isinstance(argument, _Variable):
                values.append(argument)
                continue
            value = variables.get(argument.name)
            if value is None and not argument.nullable:
                return None
            values.append(value)
        first, after = values
        if type(first) is not int or not 0 <= first <= MAX_FIRST or (after is not None and type(after) is not str):
            return None  # null (a default or 100), a bool, a float, a page too long: the generic path
        try:
            if plan.check({"first": first, "after": after}) is not None:
                return None
        except Exception:
            return None  # TOO_LONG: the generic path answers it
        return first, after

    async def answer_listing(
        self, plan: ListingPlan, arguments: tuple[int, str | None], variables: Any, context: Any
    ) -> bytes | None:
        """The answer of a listing plan, or None when the generic path must answer (a row SQLite
        cannot write, a bad cursor, the database away, the query's deadline): it then runs the
        request from the start. The listing cache is read and filled as the generic path does."""
        first, after = arguments
        cache: ListingCache | None = self.schema.listing_cache
        key = None
        if cache is not None:  # as QuiverSchema.execute reads and fills it
            key = cache.key(self.schema._schema, plan.query, plan.operation_name, variables, context.viewer)
        if cache is None or key is None:
            data = await self._listing_data(plan, first, after, variables, context)
        else:
            data = await cache.read_through(
                key, lambda: self._listing_data(plan, first, after, variables, context), lambda made: made
            )
        if data is None:
            return None
        if type(data) is EncodedData:
            return b'{"data":' + data.encoded + b"}"
        return jsoncodec.dumps_bytes({"data": data})

    async def _listing_data(
        self, plan: ListingPlan, first: int, after: str | None, variables: Any, context: Any
    ) -> dict[str, Any] | None:
        """The listing's ``data``, or None when the database did not write the page (or failed)."""
        graphql_schema = self.schema._schema
        cost = self.costs.cost(graphql_schema, plan.query, plan.document, plan.operation_name, variables or {})
        costly = self.gate is not None and cost >= COSTLY_COST
        try:
            request = page_request(first, after)
            async with asyncio.timeout(self.schema.timeout_s):
                async with self.gate.turn(_tenant(context)) if costly else contextlib.nullcontext():  # type: ignore[union-attr]
                    page = await rendered_page(
                        context,
                        context.principal.reach,
                        request,
                        plan.listing,
                        include_inactive=True,
                        with_total=plan.with_total,
                    )
        except Exception:
            return None
        if page is None:
            return None
        assert plan.listing.connection is not None
        return {plan.response_key: jsoncodec.Raw(rendered_connection(plan.listing.connection, page))}


def _listing_check(schema: Any) -> Callable[[dict[str, Any]], Any] | None:
    """``tools``' argument check (its text limits) when that is its only extension; else None."""
    query_type = schema._schema.query_type
    field = query_type.fields.get(PLANNED_LISTING) if query_type is not None else None
    definition = (field.extensions or {}).get(DEFINITION_KEY) if field is not None else None
    if not isinstance(definition, StrawberryField):
        return None
    extensions = list(definition.extensions)
    if len(extensions) != 1 or type(extensions[0]) is not TextLimitsExtension:
        return None
    check: Callable[[dict[str, Any]], Any] = extensions[0]._check
    return check


def _single_operation(document: DocumentNode, operation_name: str | None) -> OperationDefinitionNode | None:
    if len(document.definitions) != 1:
        return None
    operation = document.definitions[0]
    if not isinstance(operation, OperationDefinitionNode):
        return None
    if operation_name is not None and (operation.name is None or operation.name.value != operation_name):
        return None
    return operation


class HotPathApp:
    """ASGI: ``POST /graphql`` answered from a plan when it can be, else by ``app`` (the generic view).

    Sits behind the key check and the request limits (app.main), which put the caller in
    the scope and the whole body in one message; ``context`` makes the app's context for
    the request's scope (the same as the generic view's)."""

    def __init__(
        self, app: ASGIApp, hot_path: HotPath, context: Callable[[Scope], Awaitable[Any]], principal_key: str
    ) -> None:
        self.app = app
        self.hot_path = hot_path
        self.context = context
        self.principal_key = principal_key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get(self.principal_key) is None or scope["method"] != "POST" or not _is_plain_json(scope):
            await self.app(scope, receive, send)
            return
        message = await receive()
        body: bytes = message.get("body", b"")
        if message["type"] != "http.request" or message.get("more_body", False):
            await self.app(scope, replayed(message, receive), send)
            return
        planned = self._planned(body)
        if planned is None:
            await self.app(scope, replayed(message, receive), send)
            return
        plan, value, variables = planned
        release = scope.get(LINE_RELEASE_SCOPE_KEY)
        if release is not None:
            release()  # a large body's line is for reading it, as on the generic path
        if isinstance(plan, ListingPlan):
            listed = await self.hot_path.answer_listing(plan, value, variables, await self.context(scope))
            if listed is None:
                # The generic path answers it, from the start, reading the page the ordinary way
                # (not trying the database's writing a second time).
                scope[RENDERED_REFUSED_SCOPE_KEY] = True
                await self.app(scope, replayed(message, receive), send)
                return
            payload = listed
        else:
            payload = await self.hot_path.answer(plan, value, await self.context(scope))
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-length", str(len(payload)).encode()), *_HEADERS],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    def _planned(self, body: bytes) -> tuple[Plan | ListingPlan, Any, Any] | None:
        if jsoncodec.may_hold_long_integer(body) or jsoncodec.may_be_refused(body):
            # orjson reads a long integer as a float, the generic path (json) as an int; and a
            # NUL the generic path refuses (jsoncodec.loads_unicode): the generic path answers.
            return None
        try:
            request = orjson.loads(body)
        except orjson.JSONDecodeError:
            return None  # and a body json reads otherwise (NaN) or refuses (not Unicode): generic
        if type(request) is not dict or not request.keys() <= _BODY_KEYS or request.get("extensions") is not None:
            return None
        query = request.get("query")
        operation_name = request.get("operationName")
        if type(query) is not str or (operation_name is not None and type(operation_name) is not str):
            return None
        plan = self.hot_path.plan(query, operation_name)
        if plan is None:
            return None
        variables = request.get("variables")
        value: Any
        if isinstance(plan, ListingPlan):
            value = self.hot_path.listing_arguments(plan, variables)
        else:
            value = self.hot_path.arguments(plan, variables)
        return None if value is None else (plan, value, variables)


def _is_plain_json(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"content-type":
            return bool(value == b"application/json" or value.startswith(b"application/json;"))
    return False
