"""``invokeTool`` and ``invokeAgent`` over ``POST /graphql`` without the generic GraphQL
machinery, for known documents.

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
    NamedTypeNode,
    NonNullTypeNode,
    OperationDefinitionNode,
    OperationType,
    SelectionNode,
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
from schema.fairness import LINE_RELEASE_SCOPE_KEY
from schema.limits import TextLimitsExtension, _ReadVariables, operation_cost

#: The root mutations answered from plans.
PLANNED_FIELDS = ("invokeTool", "invokeAgent")
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
        self._plans: dict[tuple[str, str | None], Plan | None] = {}

    # ---------------------------------------------------------------- compiling

    def plan(self, query: str, operation_name: str | None) -> Plan | None:
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

    def _compile(self, query: str, operation_name: str | None) -> Plan | None:
        if len(query) > MAX_QUERY_CHARS or not any(name in query for name in self.fields):
            return None
        graphql_schema: GraphQLSchema = self.schema._schema
        try:
            document = parse(query, max_tokens=self.max_tokens)
        except GraphQLError:
            return None
        if validate_document(graphql_schema, document, self.validation_rules):
            return None
        operation = _single_mutation(document, operation_name)
        if operation is None or operation.directives or len(operation.variable_definitions or ()) != 1:
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


def _single_mutation(document: DocumentNode, operation_name: str | None) -> OperationDefinitionNode | None:
    if len(document.definitions) != 1:
        return None
    operation = document.definitions[0]
    if not isinstance(operation, OperationDefinitionNode) or operation.operation is not OperationType.MUTATION:
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
        plan, input_value = planned
        release = scope.get(LINE_RELEASE_SCOPE_KEY)
        if release is not None:
            release()  # a large body's line is for reading it, as on the generic path
        payload = await self.hot_path.answer(plan, input_value, await self.context(scope))
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-length", str(len(payload)).encode()), *_HEADERS],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    def _planned(self, body: bytes) -> tuple[Plan, Any] | None:
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
        input_value = self.hot_path.arguments(plan, request.get("variables"))
        return None if input_value is None else (plan, input_value)


def _is_plain_json(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"content-type":
            return bool(value == b"application/json" or value.startswith(b"application/json;"))
    return False
