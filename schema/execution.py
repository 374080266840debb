"""Field execution without per-field machinery where a field needs none.

graphql-core runs every field through the same steps: a resolve-info object, the
argument coercion, the resolver (for Strawberry: its wrapper chain), the completion,
each a few microseconds. A page of 100 tools with every field selected is about 3,000
fields, so those steps were most of a full listing's time. ``FastExecutionContext``
takes two shortcuts, computed once per selection set and request, and only where the
outcome is the same:

* a *plain* field (an attribute: no resolver, no arguments, no field extension) whose
  type is a scalar or an enum, or a list of them, is read and coerced in place;
* a resolver field without arguments or extensions whose value was computed ahead for
  this object (``precompute``: e.g. a whole page's ``isGlobal`` in one query) is
  completed from that value without calling the resolver.

Anything else, and any value that would not complete cleanly (a null in a non-null
field, a coercion failure), takes graphql-core's own path, which raises its usual errors.
With field middleware (a schema extension implementing ``resolve``) nothing is shortened.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLBoolean,
    GraphQLID,
    GraphQLInt,
    GraphQLLeafType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLString,
    InlineFragmentNode,
    SelectionSetNode,
    is_leaf_type,
)
from graphql.pyutils import Path, Undefined, gather_with_cancel
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.types.field import StrawberryField

#: Strawberry's back-reference from a graphql-core field to its StrawberryField.
DEFINITION_KEY = "strawberry-definition"

_SLOW: Any = object()
"""A shortcut's answer meaning "take the ordinary path for this one"."""

Shortcut = Callable[[Any], Any]


def precompute(node: object, field_name: str, value: Any) -> None:
    """Give one object's resolver field its value ahead of execution (the Python name of the field).

    The resolver is then not called for that object; a value computed in a batch, for a
    whole page, costs the page one query instead of one resolver call per object.
    """
    vars(node)[field_name] = value


def selected_node_fields(info: Any) -> set[str]:
    """Names of the fields selected on the nodes of a connection field (``edges { node { … } }``).

    Fragments are looked into whatever their type condition or directives: the answer may
    name a field that will not be resolved, never miss one that will.
    """
    raw = info._raw_info
    names: set[str] = set()
    for field_node in raw.field_nodes:
        for edges in _fields(field_node.selection_set, raw.fragments):
            if edges.name.value != "edges":
                continue
            for node in _fields(edges.selection_set, raw.fragments):
                if node.name.value == "node":
                    names.update(field.name.value for field in _fields(node.selection_set, raw.fragments))
    return names


def _fields(selection_set: SelectionSetNode | None, fragments: dict[str, FragmentDefinitionNode]) -> list[FieldNode]:
    found: list[FieldNode] = []
    pending = [selection_set] if selection_set is not None else []
    while pending:
        current = pending.pop()
        for selection in current.selections:
            if isinstance(selection, FieldNode):
                found.append(selection)
            elif isinstance(selection, InlineFragmentNode):
                pending.append(selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode) and selection.name.value in fragments:
                pending.append(fragments[selection.name.value].selection_set)
    return found


def _leaf_completer(field_type: GraphQLOutputType) -> Callable[[Any], Any] | None:
    """Coerces a value of a leaf type (or a list of one) as graphql-core would; None for other types."""
    is_nullable = not isinstance(field_type, GraphQLNonNull)
    inner = field_type if is_nullable else field_type.of_type  # type: ignore[union-attr]
    if isinstance(inner, GraphQLList):
        item_type = inner.of_type
        is_item_nullable = not isinstance(item_type, GraphQLNonNull)
        item_leaf = item_type if is_item_nullable else item_type.of_type
        if not is_leaf_type(item_leaf):
            return None
        coerce_item = _coerce_leaf(item_leaf)

        def complete_list(value: Any) -> Any:
            if value is None:
                return None if is_nullable else _SLOW
            if type(value) is not list and type(value) is not tuple:
                return _SLOW  # other iterables (a generator could be read only once): the ordinary path
            completed: list[Any] = []
            for item in value:
                if item is None:
                    if not is_item_nullable:
                        return _SLOW
                    completed.append(None)
                    continue
                coerced = coerce_item(item)
                if coerced is _SLOW:
                    return _SLOW
                completed.append(coerced)
            return completed

        return complete_list
    if not is_leaf_type(inner):
        return None
    coerce = _coerce_leaf(inner)

    def complete(value: Any) -> Any:
        if value is None:
            return None if is_nullable else _SLOW
        return coerce(value)

    return complete


_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


def _coerce_leaf(leaf: GraphQLLeafType) -> Callable[[Any], Any]:
    """graphql-core's output coercion, with the common exact types of the built-in scalars passed through."""
    coerce_output = leaf.coerce_output_value
    if leaf is GraphQLString or leaf is GraphQLID:
        exact: type = str
    elif leaf is GraphQLBoolean:
        exact = bool
    elif leaf is GraphQLInt:

        def coerce_int(value: Any) -> Any:
            if type(value) is int and _INT_MIN <= value <= _INT_MAX:
                return value
            return coerce(value)

        exact = int
    else:
        exact = type(None)  # never matches a value reaching here (None is handled before)

    def coerce(value: Any) -> Any:
        try:
            coerced = coerce_output(value)
        except Exception:
            return _SLOW
        return _SLOW if coerced is None or coerced is Undefined else coerced

    if leaf is GraphQLInt:
        return coerce_int

    def coerce_exact(value: Any) -> Any:
        return value if type(value) is exact else coerce(value)

    return coerce_exact


def _shortcut(field_def: Any, has_arguments: bool) -> tuple[str, Shortcut | None] | None:
    """How to get one field without its resolver: ("plain", completer), ("precomputed", completer or None)."""
    strawberry_field = (field_def.extensions or {}).get(DEFINITION_KEY)
    if not isinstance(strawberry_field, StrawberryField) or has_arguments or field_def.args:
        return None
    if strawberry_field.extensions:
        return None
    completer = _leaf_completer(field_def.type)
    if strawberry_field.base_resolver is None:
        if completer is None or not getattr(field_def.resolve, "_is_default", False):
            return None
        return "plain", completer
    return "precomputed", completer


class FastExecutionContext(StrawberryGraphQLCoreExecutionContext):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # id(grouped field set) → (the set, kept alive so the id stays its own; one step per field)
        self._plans: dict[int, tuple[Any, list[tuple[str, str, Shortcut | None] | None] | None]] = {}
        manager = self.middleware_manager
        self._is_shortcut_allowed = manager is None or not manager.middlewares

    def _plan(
        self, parent_type: GraphQLObjectType, grouped_field_set: Any
    ) -> list[tuple[str, str, Shortcut | None] | None] | None:
        cached = self._plans.get(id(grouped_field_set))
        if cached is not None:
            return cached[1]
        steps: list[tuple[str, str, Shortcut | None] | None] = []
        for field_details_list in grouped_field_set.values():
            node = field_details_list[0].node
            field_def = self.schema.get_field(parent_type, node.name.value)
            found = None
            if field_def is not None and self._is_shortcut_allowed:
                found = _shortcut(field_def, bool(node.arguments) or bool(node.directives))
            if found is None:
                steps.append(None)
                continue
            strawberry_field = field_def.extensions[DEFINITION_KEY]  # type: ignore[union-attr]
            kind, completer = found
            steps.append((kind, strawberry_field.python_name, completer))
        plan = steps if any(step is not None for step in steps) else None
        self._plans[id(grouped_field_set)] = (grouped_field_set, plan)
        return plan

    def execute_fields(
        self,
        parent_type: GraphQLObjectType,
        source_value: Any,
        path: Path | None,
        grouped_field_set: Any,
        position_context: Any,
    ) -> Any:
        plan = self._plan(parent_type, grouped_field_set)
        if plan is None:
            return super().execute_fields(parent_type, source_value, path, grouped_field_set, position_context)
        precomputed: dict[str, Any] = getattr(source_value, "__dict__", {})
        results: dict[str, Any] = {}
        awaitable_fields: list[str] = []
        is_awaitable = self.is_awaitable
        try:
            for (response_name, field_details_list), step in zip(grouped_field_set.items(), plan, strict=True):
                result: Any = _SLOW
                if step is not None:
                    kind, python_name, completer = step
                    if kind == "plain":
                        assert completer is not None
                        result = completer(getattr(source_value, python_name))
                        if result is not _SLOW:
                            results[response_name] = result
                            continue
                    elif python_name in precomputed:
                        value = precomputed[python_name]
                        if completer is not None:
                            result = completer(value)
                        if result is _SLOW:
                            result = self._complete_precomputed(
                                parent_type,
                                field_details_list,
                                Path(path, response_name, parent_type.name),
                                value,
                                position_context,
                            )
                if result is _SLOW:
                    result = self.execute_field(
                        parent_type,
                        source_value,
                        field_details_list,
                        Path(path, response_name, parent_type.name),
                        position_context,
                    )
                    if result is Undefined:
                        continue
                results[response_name] = result
                if is_awaitable(result):
                    awaitable_fields.append(response_name)
        except Exception:
            if awaitable_fields:
                self.settle_in_background([results[field] for field in awaitable_fields])
            raise
        if not awaitable_fields:
            return results
        return self._gather_fields(results, awaitable_fields)

    async def _gather_fields(self, results: dict[str, Any], awaitable_fields: list[str]) -> dict[str, Any]:
        # The ordinary path's own gathering: one field awaited directly, several concurrently.
        if len(awaitable_fields) == 1:
            field = awaitable_fields[0]
            results[field] = await results[field]
            return results
        awaited = await gather_with_cancel(*(results[field] for field in awaitable_fields))
        results.update(zip(awaitable_fields, awaited, strict=True))
        return results

    def _complete_precomputed(
        self, parent_type: GraphQLObjectType, field_details_list: Any, path: Path, value: Any, position_context: Any
    ) -> Any:
        """What ``execute_field`` does after its resolver returned ``value``."""
        first = field_details_list[0].node
        field_def = self.schema.get_field(parent_type, first.name.value)
        assert field_def is not None
        return_type = field_def.type
        info = self.build_resolve_info(field_def, [details.node for details in field_details_list], parent_type, path)
        try:
            completed = self.complete_value(return_type, field_details_list, info, path, value, position_context)
        except Exception as raw_error:
            self.handle_field_error(raw_error, return_type, field_details_list, path)
            return None
        if self.is_awaitable(completed):
            return self._await_completed(completed, return_type, field_details_list, path)
        return completed

    async def _await_completed(
        self, completed: Any, return_type: GraphQLOutputType, field_details_list: Any, path: Path
    ) -> Any:
        try:
            return await completed
        except Exception as raw_error:
            self.handle_field_error(raw_error, return_type, field_details_list, path)
            return None
