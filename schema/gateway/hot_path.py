"""``invokeTool`` over ``POST /graphql`` without the generic GraphQL machinery, for known documents.

A client calling tools sends the same document again and again with new variables, e.g.
``mutation($input: InvokeToolInput!) { invokeTool(input: $input) { status data error { code } traceId } }``.
For such a document the generic path (Strawberry's HTTP view, its extensions' hooks,
graphql-core's executor) does the same work on every call: about a third of a served
call's CPU (bench/throughput.py). :class:`InvokeToolHotPath` compiles each document once
into a plan and then answers from it: the variables checked, the resolver called, the
envelope serialized in the selection's order.

A document is compiled only when the generic path would do exactly what the plan does:
it parses within the token limit, passes the same validation (graphql-core's rules,
Strawberry's and Quiver's shape limits), costs no more than ``QUIVER_GRAPHQL_MAX_COST``,
and is one mutation whose only root field is ``invokeTool(input: $var)`` with ``$var:
InvokeToolInput!`` and a selection of ``ToolResult``'s plain fields (``status``, ``data``,
``error { code message detail }``, ``traceId``, ``latencyMs``, ``__typename``, aliases
allowed; no fragments, directives or ``call``). A request is answered from a plan only when
its body is a JSON object the generic path would read the same way and its ``input`` is
one graphql-core would take as it is (string ids, non-null ``arguments``, no unknown
keys). Anything else — another document, a bad variable, a body that is not plain JSON —
takes the generic path untouched, which answers it (and its errors) as before.

What stays as on the generic path: the key check and request limits run before (app.main);
the resolver is the schema's own (``GatewayMutation.invoke_tool``: roles, policies, rate
limits, the call-log row, the trace id are the gateway's); a large body's line is let go
as execution starts; a resolver exception is logged and masked by the schema's own
``process_errors`` and ``MaskUnexpectedErrors``; the answer is the same JSON with the same
headers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLLeafType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    NamedTypeNode,
    NonNullTypeNode,
    OperationDefinitionNode,
    OperationType,
    SelectionNode,
    VariableNode,
    located_error,
    parse,
    specified_rules,
)
from starlette.types import ASGIApp, Receive, Scope, Send
from strawberry.schema.schema import validate_document
from strawberry.types.field import StrawberryField

from app import jsoncodec
from app.http_limits import replayed
from schema.errors import MaskUnexpectedErrors
from schema.fairness import LINE_RELEASE_SCOPE_KEY
from schema.limits import _ReadVariables, operation_cost

#: Documents remembered (plans and refusals); emptied when full.
MAX_PLANS = 256
#: Longest document text looked at (a longer one is no invokeTool call: the generic path).
MAX_QUERY_CHARS = 4096

_INPUT_KEYS = frozenset({"spaceId", "toolId", "arguments", "idempotencyKey"})
_BODY_KEYS = frozenset({"query", "variables", "operationName", "extensions"})
_HEADERS = [(b"content-type", b"application/json")]
#: Strawberry's back-reference from a graphql-core field to its StrawberryField.
DEFINITION_KEY = "strawberry-definition"

Serializer = Callable[[Any, list[Any]], Any]


class _NullInNonNullError(TypeError):
    """graphql-core's own error for a null in a non-null field (masked like any other fault)."""


@dataclass(frozen=True)
class Plan:
    response_key: str
    variable: str
    field_node: FieldNode
    serialize: Serializer


@dataclass
class _Context:
    """What the resolver reads from its context: the gateway and the caller."""

    gateway: Any
    principal: Any


@dataclass
class _Info:
    context: _Context


def _leaf(field_type: GraphQLLeafType) -> Callable[[Any], Any]:
    serialize: Callable[[Any], Any] = field_type.serialize
    return serialize


def _object_serializer(
    object_type: GraphQLObjectType, python_names: dict[str, str], selections: list[SelectionNode], schema: GraphQLSchema
) -> Serializer | None:
    """(value, path) -> the selection's dict, as graphql-core completes it; None when the
    selection is not one this module serializes (the generic path takes the document)."""
    steps: list[tuple[str, FieldNode, Callable[[Any], Any] | None, Serializer | None, bool, str]] = []
    keys: set[str] = set()
    for node in selections:
        if not isinstance(node, FieldNode) or node.directives or node.arguments:
            return None
        name = node.name.value
        key = node.alias.value if node.alias else name
        if key in keys:
            return None  # merged fields: the generic path
        keys.add(key)
        if name == "__typename":
            if node.selection_set is not None:
                return None
            steps.append((key, node, None, None, True, "__typename"))
            continue
        field = object_type.fields.get(name)
        python_name = python_names.get(name)
        if field is None or python_name is None or field.args or not getattr(field.resolve, "_is_default", False):
            return None  # a resolver field (`call`) or one with arguments: the generic path
        field_type = field.type
        non_null = isinstance(field_type, GraphQLNonNull)
        named = field_type.of_type if non_null else field_type
        if isinstance(named, GraphQLLeafType):
            if node.selection_set is not None:
                return None
            steps.append((key, node, _leaf(named), None, non_null, python_name))
        elif isinstance(named, GraphQLObjectType) and node.selection_set is not None:
            inner = _object_serializer(named, _python_names(named), list(node.selection_set.selections), schema)
            if inner is None:
                return None
            steps.append((key, node, None, inner, non_null, python_name))
        else:
            return None
    type_name = object_type.name

    def serialize(value: Any, path: list[Any]) -> Any:
        answer: dict[str, Any] = {}
        for key, node, leaf, inner, non_null, python_name in steps:
            if python_name == "__typename":
                answer[key] = type_name
                continue
            item = getattr(value, python_name)
            if item is None:
                if non_null:
                    raise located_error(
                        _NullInNonNullError(
                            f"Cannot return null for non-nullable field {type_name}.{node.name.value}."
                        ),
                        [node],
                        [*path, key],
                    )
                answer[key] = None
            elif leaf is not None:
                try:
                    answer[key] = leaf(item)
                except Exception as error:
                    raise located_error(error, [node], [*path, key]) from error
            else:
                assert inner is not None
                answer[key] = inner(item, [*path, key])
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


class InvokeToolHotPath:
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
        # The schema's own resolver and input type: the plan calls what the generic path calls.
        mutation_type = schema._schema.mutation_type
        definition = mutation_type.fields["invokeTool"].extensions[DEFINITION_KEY]
        #: Field extensions (none today) would run on the generic path only: then no plans.
        self.enabled = not definition.extensions and definition.base_resolver is not None
        self.resolver: Callable[..., Any] = definition.base_resolver.wrapped_func if self.enabled else _never
        self.input_type: type = definition.arguments[0].type
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
        if not self.enabled or len(query) > MAX_QUERY_CHARS or "invokeTool" not in query:
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
        definitions = operation.variable_definitions or ()
        definition = definitions[0]
        variable_type = definition.type
        if (
            definition.default_value is not None
            or definition.directives
            or not isinstance(variable_type, NonNullTypeNode)
            or not isinstance(variable_type.type, NamedTypeNode)
            or variable_type.type.name.value != "InvokeToolInput"
        ):
            return None
        selections = operation.selection_set.selections
        if len(selections) != 1:
            return None
        root = selections[0]
        arguments = root.arguments or () if isinstance(root, FieldNode) else ()
        if (
            not isinstance(root, FieldNode)
            or root.name.value != "invokeTool"
            or root.directives
            or root.selection_set is None
            or len(arguments) != 1
            or arguments[0].name.value != "input"
            or not isinstance(arguments[0].value, VariableNode)
            or arguments[0].value.name.value != definition.variable.name.value
        ):
            return None
        mutation_type = graphql_schema.mutation_type
        assert mutation_type is not None
        result_type = mutation_type.fields["invokeTool"].type
        result_type = result_type.of_type if isinstance(result_type, GraphQLNonNull) else result_type
        if not isinstance(result_type, GraphQLObjectType):
            return None
        serialize = _object_serializer(
            result_type, _python_names(result_type), list(root.selection_set.selections), graphql_schema
        )
        if serialize is None:
            return None
        reading = _ReadVariables({})
        if operation_cost(graphql_schema, document, operation_name, reading) > self.max_cost or reading.read:
            return None
        return Plan(
            response_key=root.alias.value if root.alias else "invokeTool",
            variable=definition.variable.name.value,
            field_node=root,
            serialize=serialize,
        )

    # ---------------------------------------------------------------- answering

    def arguments(self, plan: Plan, variables: Any) -> Any | None:
        """The resolver's ``input`` when graphql-core would take the variable as it is; else None."""
        if not isinstance(variables, dict):
            return None
        value = variables.get(plan.variable)
        if type(value) is not dict or not value.keys() <= _INPUT_KEYS:
            return None
        space_id, tool_id = value.get("spaceId"), value.get("toolId")
        key = value.get("idempotencyKey")
        if type(space_id) is not str or type(tool_id) is not str or value.get("arguments") is None:
            return None
        if key is not None and type(key) is not str:
            return None
        return self.input_type(space_id=space_id, tool_id=tool_id, arguments=value["arguments"], idempotency_key=key)

    async def answer(self, plan: Plan, input_value: Any, gateway: Any, principal: Any) -> bytes:
        path = [plan.response_key]
        try:
            result = await self.resolver(None, _Info(_Context(gateway, principal)), input_value)
            data: dict[str, Any] | None = {plan.response_key: plan.serialize(result, path)}
        except Exception as error:
            located = error if isinstance(error, GraphQLError) else located_error(error, [plan.field_node], path)
            # As the generic path: logged as raised, then masked (a fault: "internal error" and a trace id).
            self.schema.process_errors([located], None)
            errors = MaskUnexpectedErrors()._process_errors([located])
            return jsoncodec.dumps_bytes({"data": None, "errors": [item.formatted for item in errors]})
        return jsoncodec.dumps_bytes({"data": data})


async def _never(*_: Any) -> Any:
    raise AssertionError("no plan is made without the resolver")


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
    the scope and the whole body in one message."""

    def __init__(self, app: ASGIApp, hot_path: InvokeToolHotPath, gateway: Any, principal_key: str) -> None:
        self.app = app
        self.hot_path = hot_path
        self.gateway = gateway
        self.principal_key = principal_key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        principal = scope.get(self.principal_key)
        if principal is None or scope["method"] != "POST" or not _is_plain_json(scope):
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
        payload = await self.hot_path.answer(plan, input_value, self.gateway, principal)
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-length", str(len(payload)).encode()), *_HEADERS],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    def _planned(self, body: bytes) -> tuple[Plan, Any] | None:
        try:
            request = orjson.loads(body)
        except orjson.JSONDecodeError:
            return None
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
