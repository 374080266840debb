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

import enum
import inspect
import keyword
import operator
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from types import CodeType
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLBoolean,
    GraphQLEnumType,
    GraphQLID,
    GraphQLInt,
    GraphQLLeafType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLString,
    InlineFragmentNode,
    SelectionSetNode,
    is_leaf_type,
)
from graphql.pyutils import Path, Undefined, gather_with_cancel
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.types.base import StrawberryObjectDefinition
from strawberry.types.cast import TYPE_CAST_ATTRIBUTE
from strawberry.types.field import StrawberryField

from app.jsoncodec import Raw

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


def selected_fields(info: Any) -> set[str]:
    """Names of the fields selected on a field's value (fragments included, as above)."""
    raw = info._raw_info
    return {
        field.name.value for field_node in raw.field_nodes for field in _fields(field_node.selection_set, raw.fragments)
    }


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


def _list_completer(
    complete_item: Callable[[Any], Any],
    is_nullable: bool,
    is_item_nullable: bool,
    max_length: int | None = None,
    exact_item: tuple[type, bool] | None = None,
) -> Callable[[Any], Any]:
    """A list completed item by item in place; ``_SLOW`` for anything the ordinary path has to see:
    a null where none may be, an item that would not complete, another iterable (a generator could
    be read only once), a list of ``max_length`` items or more.

    ``exact_item``: (the type a leaf item usually has, whether it is written by its member name):
    a list whose every item has exactly that type is completed in one pass, without a call per item
    (a ``str`` is its own output, an enum member its name)."""
    exact_type, by_name = exact_item if exact_item is not None else (None, False)

    def complete_list(value: Any) -> Any:
        if value is None:
            return None if is_nullable else _SLOW
        if type(value) is not list and type(value) is not tuple:
            return _SLOW
        if max_length is not None and len(value) >= max_length:
            return _SLOW
        if exact_type is not None:
            for item in value:
                if type(item) is not exact_type:
                    break
            else:
                return [item._name_ for item in value] if by_name else list(value)
        completed: list[Any] = []
        for item in value:
            if item is None:
                if not is_item_nullable:
                    return _SLOW
                completed.append(None)
                continue
            result = complete_item(item)
            if result is _SLOW:
                return _SLOW
            completed.append(result)
        return completed

    return complete_list


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
        return _list_completer(
            _coerce_leaf(item_leaf), is_nullable, is_item_nullable, exact_item=_exact_item(item_leaf)
        )
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

    def coerce(value: Any) -> Any:
        try:
            coerced = coerce_output(value)
        except Exception:
            return _SLOW
        return _SLOW if coerced is None or coerced is Undefined else coerced

    if leaf is GraphQLInt:

        def coerce_int(value: Any) -> Any:
            if type(value) is int and _INT_MIN <= value <= _INT_MAX:
                return value
            return coerce(value)

        return coerce_int
    wrapped = getattr(leaf, "wrapped_cls", None)
    if isinstance(leaf, GraphQLEnumType) and isinstance(wrapped, type):
        # Strawberry's enums: resolvers return members of the Python enum; each member's name
        # is a dict look-up instead of Strawberry's scan of the values.
        if _named_by_member_name(leaf, wrapped):
            # Each member's GraphQL name is its own name: read from the member (an enum member's
            # hash is a Python-level call; a dict look-up by member costs two of them).

            def coerce_named(value: Any) -> Any:
                return value._name_ if type(value) is wrapped else coerce(value)  # type: ignore[attr-defined]

            return coerce_named
        names: dict[Any, str] = {}
        for name, enum_value in leaf.values.items():
            try:
                names[wrapped(enum_value.value)] = name
            except (ValueError, TypeError):
                continue

        def coerce_enum(value: Any) -> Any:
            name = names.get(value) if type(value) is wrapped else None
            return name if name is not None else coerce(value)

        return coerce_enum
    if leaf is GraphQLString or leaf is GraphQLID:
        exact: type = str
    elif leaf is GraphQLBoolean:
        exact = bool
    else:
        return coerce

    def coerce_exact(value: Any) -> Any:
        return value if type(value) is exact else coerce(value)

    return coerce_exact


def _named_by_member_name(leaf: GraphQLEnumType, wrapped: type) -> bool:
    """Whether a Python enum's every member is written as its own ``_name_`` in the GraphQL enum
    (Strawberry's default): one GraphQL value per member, of that member's name and value. Not for a
    ``Flag`` (whose combinations are members of the class without a name of their own)."""
    if not issubclass(wrapped, enum.Enum) or issubclass(wrapped, enum.Flag):
        return False
    members = list(wrapped)
    if len(members) != len(leaf.values):
        return False
    for name, enum_value in leaf.values.items():
        member = wrapped.__members__.get(name)
        if member is None or member._name_ != name:
            return False
        try:
            if wrapped(enum_value.value) is not member:
                return False
        except (ValueError, TypeError):
            return False
    return True


def _exact_item(leaf: GraphQLLeafType) -> tuple[type, bool] | None:
    """For :func:`_list_completer`: the type a leaf list's items usually have and keep (``str`` for
    String and ID, ``bool``), or an enum written by its members' names; None otherwise."""
    if leaf is GraphQLString or leaf is GraphQLID:
        return (str, False)
    if leaf is GraphQLBoolean:
        return (bool, False)
    wrapped = getattr(leaf, "wrapped_cls", None)
    if isinstance(leaf, GraphQLEnumType) and isinstance(wrapped, type) and _named_by_member_name(leaf, wrapped):
        return (wrapped, True)
    return None


@dataclass(frozen=True, slots=True)
class _ObjectShape:
    """A field of an object type, or a list of one, completed without the generic steps."""

    field_type: GraphQLOutputType
    object_type: GraphQLObjectType
    is_nullable: bool
    is_list: bool
    item_type: GraphQLOutputType | None
    is_item_nullable: bool
    is_type_of: Callable[[Any, Any], Any] | None
    origin: type | None  # the Python class whose plain instances Strawberry's check accepts


def _object_shape(field_type: GraphQLOutputType) -> _ObjectShape | None:
    """The shape of an object-typed field, when its type check needs no resolve info; else None."""
    is_nullable = not isinstance(field_type, GraphQLNonNull)
    inner = field_type if is_nullable else field_type.of_type  # type: ignore[union-attr]
    item_type: GraphQLOutputType | None = None
    is_item_nullable = True
    if isinstance(inner, GraphQLList):
        item_type = inner.of_type
        is_item_nullable = not isinstance(item_type, GraphQLNonNull)
        inner = item_type if is_item_nullable else item_type.of_type  # type: ignore[union-attr]
    if not isinstance(inner, GraphQLObjectType):
        return None
    origin = None
    if inner.is_type_of is not None:
        # Only Strawberry's generated check (an isinstance test that ignores the info argument).
        definition = (inner.extensions or {}).get("strawberry-definition")
        if not isinstance(definition, StrawberryObjectDefinition) or definition.is_type_of is not None:
            return None
        candidate = definition.origin
        # An instance of exactly this class, not cast (``strawberry.cast`` sets an attribute on it),
        # is one Strawberry's check accepts (``isinstance`` of its possible types).
        if (
            isinstance(candidate, type)
            and not hasattr(candidate, TYPE_CAST_ATTRIBUTE)
            and not hasattr(candidate, "__getattr__")
            and _has_instance_dict(candidate)
        ):
            origin = candidate
    return _ObjectShape(
        field_type=field_type,
        object_type=inner,
        is_nullable=is_nullable,
        is_list=item_type is not None,
        item_type=item_type,
        is_item_nullable=is_item_nullable,
        is_type_of=inner.is_type_of,
        origin=origin,
    )


def _has_instance_dict(cls: type) -> bool:
    """Whether every instance of ``cls`` has a ``__dict__`` (where ``strawberry.cast`` leaves its mark)."""
    return getattr(cls, "__dictoffset__", 0) != 0


@dataclass(frozen=True, slots=True)
class _Step:
    """How one field of a selection set is obtained without its resolver."""

    is_plain: bool  # read the attribute (else: the precomputed value, when there is one)
    python_name: str
    leaf: Shortcut | None
    shape: _ObjectShape | None


#: (id of a field definition, has arguments) → (the definition, kept alive so the id stays its
#: own; its step). Steps depend on the schema only: made once, not per request (each request's
#: closures would be garbage for the cycle collector).
_STEPS: dict[tuple[int, bool], tuple[Any, _Step | None]] = {}
_MAX_STEPS = 4_096


def _shortcut(field_def: Any, has_arguments: bool) -> _Step | None:
    """How to get one field without its resolver; None when it must take the ordinary path."""
    cached = _STEPS.get((id(field_def), has_arguments))
    if cached is not None and cached[0] is field_def:
        return cached[1]
    step = _make_step(field_def, has_arguments)
    if len(_STEPS) >= _MAX_STEPS:
        _STEPS.clear()
    _STEPS[(id(field_def), has_arguments)] = (field_def, step)
    return step


def _make_step(field_def: Any, has_arguments: bool) -> _Step | None:
    strawberry_field = (field_def.extensions or {}).get(DEFINITION_KEY)
    if not isinstance(strawberry_field, StrawberryField) or has_arguments or field_def.args:
        return None
    if strawberry_field.extensions:
        return None
    leaf = _leaf_completer(field_def.type)
    shape = _object_shape(field_def.type) if leaf is None else None
    if strawberry_field.base_resolver is None:
        if (leaf is None and shape is None) or not getattr(field_def.resolve, "_is_default", False):
            return None
        return _Step(True, strawberry_field.python_name, leaf, shape)
    return _Step(False, strawberry_field.python_name, leaf, shape)


Compiled = Callable[[Any], Any]
"""An object's whole selection completed at once: the result dict, or ``_SLOW`` (nothing done)."""

_TYPENAME, _PLAIN_LEAF, _EARLY_LEAF, _PLAIN_OBJECT, _EARLY_OBJECT = range(5)
_MISSING: Any = object()

#: Lists of objects inside a compiled selection are completed in one go only when shorter than
#: this (schema.fairness slices longer ones: they take the ordinary path, which hands the loop back).
COMPILED_LIST_MAX = 16


def _fields_completer(fields: tuple[tuple[str, int, Any, Any, Any], ...]) -> Compiled:
    """The compiled completion of one selection set: each field read and completed in place,
    ``_SLOW`` as soon as one would not complete cleanly (the caller then takes the ordinary path,
    which raises and locates the error; nothing here has side effects).

    Written as the source of one function (made once per selection set and request): a value of
    its field's usual type (``exact``: ``str`` for String and ID, ``bool``, an enum's members; an
    Int within 32 bits, a ``datetime`` of a date-time scalar, any non-null value of a scalar written
    as it is) is taken as it is, anything else goes through the field's full completer. The source
    names the attributes it reads (the schema's Python names); everything that comes from the
    client (response names, aliases) is passed as values."""
    namespace: dict[str, Any] = {"_SLOW": _SLOW, "_MISSING": _MISSING, "_DATETIME": datetime, "_UNDEFINED": Undefined}
    lines = ["def complete(source):", "    try:"]
    if any(kind in (_EARLY_LEAF, _EARLY_OBJECT) for _, kind, _, _, _ in fields):
        lines.append("        early = source.__dict__")
    keys: list[str] = []
    for index, (response_name, kind, name, complete_value, exact) in enumerate(fields):
        value = f"v{index}"
        namespace[f"R{index}"] = response_name
        keys.append(f"R{index}: {value}")
        if kind == _TYPENAME:
            namespace[f"T{index}"] = name
            lines.append(f"        {value} = T{index}")
            continue
        namespace[f"A{index}"] = name
        namespace[f"C{index}"] = complete_value
        if kind in (_PLAIN_LEAF, _PLAIN_OBJECT):
            # The attribute by its name (the schema's Python name, never the client's): a plain
            # attribute load, cheaper than a call of getattr.
            read = (
                f"source.{name}"
                if name.isidentifier() and not keyword.iskeyword(name)
                else f"getattr(source, A{index})"
            )
            lines.append(f"        {value} = {read}")
        else:
            lines.append(f"        {value} = early.get(A{index}, _MISSING)")
            lines.append(f"        if {value} is _MISSING: return _SLOW")  # its resolver has to run
        # The completer, and the check of its answer, only for a value the inline test does not take.
        slow = [f"            {value} = C{index}({value})", f"            if {value} is _SLOW: return _SLOW"]
        if isinstance(exact, tuple) and exact[1] is None:  # an enum whose members are written by name
            namespace[f"E{index}"] = exact[0]
            lines.append(f"        if type({value}) is E{index}: {value} = {value}._name_")
            lines.extend(["        else:", *slow])
        elif isinstance(exact, tuple):  # an enum: (its Python class, member → name)
            namespace[f"E{index}"], namespace[f"N{index}"] = exact
            lines.append(f"        if type({value}) is E{index} and {value} in N{index}: {value} = N{index}[{value}]")
            lines.extend(["        else:", *slow])
        elif exact is _EXACT_INT:  # Int: an int within 32 bits is its own output
            lines.append(f"        if type({value}) is not int or not {_INT_MIN} <= {value} <= {_INT_MAX}:")
            lines.extend(slow)
        elif exact is _ISOFORMAT:  # a scalar written by ``methodcaller("isoformat")`` (DateTime, Date)
            lines.append(f"        if type({value}) is _DATETIME: {value} = {value}.isoformat()")
            lines.extend(["        else:", *slow])
        elif exact is _IDENTITY:  # a scalar written as it is (JSON): only a null takes the completer
            lines.append(f"        if {value} is None or {value} is _UNDEFINED:")
            lines.extend(slow)
        elif exact is not None:
            namespace[f"E{index}"] = exact
            lines.append(f"        if type({value}) is not E{index}:")
            lines.extend(slow)
        else:
            lines.extend(line[4:] for line in slow)
    lines.append("    except Exception:")
    lines.append("        return _SLOW")
    lines.append("    return {" + ", ".join(keys) + "}")
    source = "\n".join(lines)
    code = _SOURCES.get(source)
    if code is None:
        if len(_SOURCES) >= _MAX_SOURCES:
            _SOURCES.clear()
        code = _SOURCES[source] = compile(source, "<compiled selection>", "exec")
    exec(code, namespace)
    return namespace["complete"]  # type: ignore[no-any-return]


#: Source → code of the compiled selections. The source names the schema's attributes it reads and
#: nothing of the client's (response names, aliases are values in the namespace): a client's few
#: documents make a few entries, and a request pays an ``exec`` of the definition, not Python's compiler.
_SOURCES: dict[str, CodeType] = {}
_MAX_SOURCES = 1_024


#: Markers of :func:`_exact_type`: an Int, a scalar written by ``isoformat()``, one written as it is.
_EXACT_INT: Any = object()
_ISOFORMAT: Any = object()
_IDENTITY: Any = object()
_IDENTITY_CODE = (lambda value: value).__code__


def _writes_as_it_is(serialize: Any) -> bool:
    """Whether a scalar's output coercion is a plain ``lambda v: v`` (Strawberry's JSON): one
    argument, no default, no closure, and the bytecode that returns it."""
    code = getattr(serialize, "__code__", None)
    return (
        code is not None
        and code.co_code == _IDENTITY_CODE.co_code
        and code.co_argcount == 1
        and code.co_kwonlyargcount == 0
        and not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
        and not getattr(serialize, "__defaults__", None)
        and not getattr(serialize, "__closure__", None)
    )


def _exact_type(field_type: GraphQLOutputType) -> Any:
    """The Python type a leaf field's values usually have and keep as they are (or, for an enum,
    its class and each member's name; for an Int, a date-time scalar or a scalar written as it is,
    a marker of the inline check that replaces the completer's call); None when every value goes
    through the completer."""
    inner = field_type.of_type if isinstance(field_type, GraphQLNonNull) else field_type
    if inner is GraphQLString or inner is GraphQLID:
        return str
    if inner is GraphQLBoolean:
        return bool
    if inner is GraphQLInt:
        return _EXACT_INT
    if isinstance(inner, GraphQLScalarType):
        serialize = inner.coerce_output_value
        if isinstance(serialize, operator.methodcaller) and repr(serialize) == "operator.methodcaller('isoformat')":
            return _ISOFORMAT
        if _writes_as_it_is(serialize):
            return _IDENTITY
    wrapped = getattr(inner, "wrapped_cls", None)
    if isinstance(inner, GraphQLEnumType) and isinstance(wrapped, type):
        if _named_by_member_name(inner, wrapped):
            return (wrapped, None)
        names: dict[Any, str] = {}
        for name, enum_value in inner.values.items():
            try:
                member = wrapped(enum_value.value)
            except (ValueError, TypeError):
                continue
            if type(member) is wrapped:
                names[member] = name
        return (wrapped, names)
    return None


def _object_completer(shape: _ObjectShape, complete_fields: Compiled) -> Callable[[Any], Any]:
    """An object-typed value (or a short list of them) completed by its compiled selection."""
    is_type_of = shape.is_type_of
    origin = shape.origin

    def complete_object(value: Any) -> Any:
        if type(value) is Raw:
            return value  # written by the database already (schema.tools.rendering)
        if (
            is_type_of is not None
            and (type(value) is not origin or TYPE_CAST_ATTRIBUTE in value.__dict__)
            and is_type_of(value, None) is not True
        ):
            return _SLOW
        return complete_fields(value)

    if shape.is_list:
        return _list_completer(complete_object, shape.is_nullable, shape.is_item_nullable, COMPILED_LIST_MAX)
    is_nullable = shape.is_nullable

    def complete_nullable(value: Any) -> Any:
        if value is None:
            return None if is_nullable else _SLOW
        return complete_object(value)

    return complete_nullable


#: (schema, operation, type, field nodes) → (the operation and the schema, kept alive so their ids
#: stay their own; the compiled completion or None). The operation of a document the parser cache
#: hands out again is the same object, so its requests share their compiled selections.
_SHARED_COMPILED: dict[tuple[Any, ...], tuple[Any, Any, Compiled | None]] = {}
_MAX_SHARED_COMPILED = 1_024
#: id(operation) → (the operation, whether no selection of it or of its fragments has a directive)
_DIRECTIVE_FREE: dict[int, tuple[Any, bool]] = {}


def _is_directive_free(operation: Any, fragments: dict[str, Any]) -> bool:
    """Whether nothing in the operation or its fragments makes a selection depend on the variables:
    no directive (``@skip``, ``@include``, ``@defer``), no fragment with arguments or variables."""
    cached = _DIRECTIVE_FREE.get(id(operation))
    if cached is not None and cached[0] is operation:
        return cached[1]
    definitions = [details.definition for details in fragments.values()]
    pending: list[SelectionSetNode] = [operation.selection_set, *(fragment.selection_set for fragment in definitions)]
    free = not operation.directives and not any(
        fragment.directives or getattr(fragment, "variable_definitions", None) for fragment in definitions
    )
    while free and pending:
        for selection in pending.pop().selections:
            if selection.directives or (isinstance(selection, FragmentSpreadNode) and selection.arguments):
                free = False
                break
            selection_set = getattr(selection, "selection_set", None)
            if selection_set is not None:
                pending.append(selection_set)
    if len(_DIRECTIVE_FREE) >= _MAX_SHARED_COMPILED:
        _DIRECTIVE_FREE.clear()
    _DIRECTIVE_FREE[id(operation)] = (operation, free)
    return free


class FastExecutionContext(StrawberryGraphQLCoreExecutionContext):
    #: Objects given as JSON already (``app.jsoncodec.Raw``, schema.tools.rendering) are passed through.
    passes_raw_json = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # id(grouped field set) → (the set, kept alive so the id stays its own; one step per field)
        self._plans: dict[int, tuple[Any, list[_Step | None] | None]] = {}
        # id(grouped field set) → (the set, its compiled completion or None)
        self._compiled_sets: dict[int, tuple[Any, Compiled | None]] = {}
        manager = self.middleware_manager
        self._is_shortcut_allowed = manager is None or not manager.middlewares

    def slice_due(self) -> bool:
        """Whether a long list being completed should hand the loop back now (schema/fairness.py)."""
        return False

    async def next_slice(self) -> None:
        """Hands the loop back; called when :meth:`slice_due` said so."""

    def _plan(self, parent_type: GraphQLObjectType, grouped_field_set: Any) -> list[_Step | None] | None:
        cached = self._plans.get(id(grouped_field_set))
        if cached is not None:
            return cached[1]
        steps: list[_Step | None] = []
        for field_details_list in grouped_field_set.values():
            node = field_details_list[0].node
            field_def = self.schema.get_field(parent_type, node.name.value)
            step = None
            if field_def is not None and self._is_shortcut_allowed:
                step = _shortcut(field_def, bool(node.arguments) or bool(node.directives))
            steps.append(step)
        plan = steps if any(step is not None for step in steps) else None
        self._plans[id(grouped_field_set)] = (grouped_field_set, plan)
        return plan

    def _compiled(self, parent_type: GraphQLObjectType, grouped_field_set: Any) -> Compiled | None:
        """One function completing an object's whole selection at once; None when a field needs more.

        Made once per selection set and request (cached like the plans), and shared by the
        requests of one parsed document when nothing in it depends on the variables (no
        directive anywhere: then every selection set it makes is a function of the document and
        the schema alone)."""
        cached = self._compiled_sets.get(id(grouped_field_set))
        if cached is not None:
            return cached[1]
        shared_key = self._shared_key(parent_type, grouped_field_set)
        if shared_key is not None:
            shared = _SHARED_COMPILED.get(shared_key)
            if shared is not None and shared[0] is self.operation and shared[1] is self.schema:
                self._compiled_sets[id(grouped_field_set)] = (grouped_field_set, shared[2])
                return shared[2]
        self._compiled_sets[id(grouped_field_set)] = (grouped_field_set, None)  # no recursion into itself
        compiled = self._compile(parent_type, grouped_field_set)
        self._compiled_sets[id(grouped_field_set)] = (grouped_field_set, compiled)
        if shared_key is not None:
            if len(_SHARED_COMPILED) >= _MAX_SHARED_COMPILED:
                _SHARED_COMPILED.clear()
            _SHARED_COMPILED[shared_key] = (self.operation, self.schema, compiled)
        return compiled

    def _shared_key(self, parent_type: GraphQLObjectType, grouped_field_set: Any) -> tuple[Any, ...] | None:
        """What identifies a selection set across requests of one document; None when it cannot be shared."""
        if not self._is_shortcut_allowed or not _is_directive_free(self.operation, self.fragments):
            return None
        nodes = tuple(id(details.node) for details_list in grouped_field_set.values() for details in details_list)
        return (id(self.schema), id(self.operation), parent_type.name, nodes)

    def _compile(self, parent_type: GraphQLObjectType, grouped_field_set: Any) -> Compiled | None:
        plan = self._plan(parent_type, grouped_field_set)
        if plan is None:
            return None
        fields: list[tuple[str, int, Any, Any, Any]] = []
        for (response_name, field_details_list), step in zip(grouped_field_set.items(), plan, strict=True):
            node = field_details_list[0].node
            if node.name.value == "__typename" and not node.directives:
                fields.append((response_name, _TYPENAME, parent_type.name, None, None))
                continue
            if step is None:
                return None
            if step.leaf is not None:
                field_def = self.schema.get_field(parent_type, node.name.value)
                assert field_def is not None
                kind = _PLAIN_LEAF if step.is_plain else _EARLY_LEAF
                fields.append((response_name, kind, step.python_name, step.leaf, _exact_type(field_def.type)))
                continue
            shape = step.shape
            assert shape is not None
            sub_fields, defer_usages, _forbidden = self.collect_subfields(shape.object_type, field_details_list)
            if defer_usages:
                return None
            complete_sub = self._compiled(shape.object_type, sub_fields)
            if complete_sub is None:
                return None
            kind = _PLAIN_OBJECT if step.is_plain else _EARLY_OBJECT
            fields.append((response_name, kind, step.python_name, _object_completer(shape, complete_sub), None))
        return _fields_completer(tuple(fields))

    def complete_value(
        self,
        return_type: Any,
        field_details_list: Any,
        info: Any,
        path: Path,
        result: Any,
        position_context: Any,
    ) -> Any:
        if type(result) is Raw:
            # An object the database wrote as JSON (schema.tools.rendering), passed through as it is:
            # made only for answers that orjson writes (app.main.GraphQLPost).
            return result
        return super().complete_value(return_type, field_details_list, info, path, result, position_context)

    def execute_fields(
        self,
        parent_type: GraphQLObjectType,
        source_value: Any,
        path: Path | None,
        grouped_field_set: Any,
        position_context: Any,
    ) -> Any:
        compiled = self._compiled(parent_type, grouped_field_set)
        if compiled is not None:
            completed = compiled(source_value)
            if completed is not _SLOW:
                return completed
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
                if step is not None and (step.is_plain or step.python_name in precomputed):
                    if step.is_plain:
                        try:
                            value = getattr(source_value, step.python_name)
                        except Exception:
                            value = _SLOW  # the ordinary path raises it, located at this field
                    else:
                        value = precomputed[step.python_name]
                    if value is not _SLOW:
                        if step.leaf is not None:
                            result = step.leaf(value)
                        elif step.shape is not None:
                            result = self._complete_shaped(
                                step.shape,
                                field_details_list,
                                Path(path, response_name, parent_type.name),
                                value,
                                position_context,
                            )
                        if result is _SLOW and not step.is_plain:
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

    def _complete_shaped(
        self, shape: _ObjectShape, field_details_list: Any, path: Path, value: Any, position_context: Any
    ) -> Any:
        """An object (or a list of objects) completed by executing its sub-selection directly.

        ``_SLOW`` before anything ran when the value is not what the shape expects (the ordinary
        path then raises its own error); errors of the sub-fields are handled as the ordinary
        path handles them, at this field or at a list item."""
        if value is None:
            return None if shape.is_nullable else _SLOW
        if type(value) is Raw and not shape.is_list:
            return value  # written by the database already (schema.tools.rendering)
        is_type_of = shape.is_type_of
        if shape.is_list:
            if type(value) is not list and type(value) is not tuple:
                return _SLOW
            for item in value:
                if item is None:
                    if not shape.is_item_nullable:
                        return _SLOW
                elif is_type_of is not None and is_type_of(item, None) is not True:
                    return _SLOW
        elif is_type_of is not None and is_type_of(value, None) is not True:
            return _SLOW
        grouped_field_set, defer_usages, _forbidden = self.collect_subfields(shape.object_type, field_details_list)
        if defer_usages:
            return _SLOW
        try:
            if shape.is_list:
                completed = self._complete_items(shape, field_details_list, path, value, grouped_field_set)
            else:
                completed = self.execute_collected_subfields(
                    shape.object_type, value, path, grouped_field_set, defer_usages, position_context
                )
        except Exception as raw_error:
            self.handle_field_error(raw_error, shape.field_type, field_details_list, path)
            return None
        if self.is_awaitable(completed):
            return self._await_completed(completed, shape.field_type, field_details_list, path)
        return completed

    def _complete_items(
        self, shape: _ObjectShape, field_details_list: Any, path: Path, items: Any, grouped_field_set: Any
    ) -> Any:
        """The items of a list of objects, in order; an awaitable if any item is, or a slice ran out."""
        completed: list[Any] = []
        awaitable_items: list[int] = []
        # What execute_fields tries first for each item, tried here without its path and calls.
        compiled = self._compiled(shape.object_type, grouped_field_set)
        try:
            for index, item in enumerate(items):
                if self.slice_due():
                    return self._complete_items_later(
                        shape, field_details_list, path, items, grouped_field_set, index, completed, awaitable_items
                    )
                if compiled is not None and item is not None:
                    done = compiled(item)
                    if done is not _SLOW:
                        completed.append(done)  # a dict: never awaitable
                        continue
                completed.append(self._complete_item(shape, field_details_list, path, index, item, grouped_field_set))
                if self.is_awaitable(completed[-1]):
                    awaitable_items.append(index)
        except Exception:
            if awaitable_items:
                self.settle_in_background([completed[index] for index in awaitable_items])
            raise
        if awaitable_items:
            return self._await_items(shape, field_details_list, path, completed, awaitable_items)
        return completed

    async def _complete_items_later(
        self,
        shape: _ObjectShape,
        field_details_list: Any,
        path: Path,
        items: Any,
        grouped_field_set: Any,
        start: int,
        completed: list[Any],
        awaitable_items: list[int],
    ) -> list[Any]:
        compiled = self._compiled(shape.object_type, grouped_field_set)
        try:
            for index in range(start, len(items)):
                if self.slice_due():
                    await self.next_slice()
                item = items[index]
                if compiled is not None and item is not None:
                    done = compiled(item)
                    if done is not _SLOW:
                        completed.append(done)
                        continue
                completed.append(self._complete_item(shape, field_details_list, path, index, item, grouped_field_set))
                if self.is_awaitable(completed[-1]):
                    awaitable_items.append(index)
        except Exception:
            if awaitable_items:
                self.settle_in_background([completed[index] for index in awaitable_items])
            raise
        if awaitable_items:
            return await self._await_items(shape, field_details_list, path, completed, awaitable_items)
        return completed

    def _complete_item(
        self, shape: _ObjectShape, field_details_list: Any, path: Path, index: int, item: Any, grouped_field_set: Any
    ) -> Any:
        if item is None:
            return None
        item_path = Path(path, index, None)
        try:
            completed = self.execute_fields(shape.object_type, item, item_path, grouped_field_set, None)
        except Exception as raw_error:
            assert shape.item_type is not None
            self.handle_field_error(raw_error, shape.item_type, field_details_list, item_path)
            return None
        if self.is_awaitable(completed):
            assert shape.item_type is not None
            return self._await_completed(completed, shape.item_type, field_details_list, item_path)
        return completed

    async def _await_items(
        self, shape: _ObjectShape, field_details_list: Any, path: Path, completed: list[Any], awaitable_items: list[int]
    ) -> list[Any]:
        # Each awaitable item handles its own error (_await_completed): a null item, or raised to the list.
        awaited = await gather_with_cancel(*(completed[index] for index in awaitable_items))
        for index, value in zip(awaitable_items, awaited, strict=True):
            completed[index] = value
        return completed

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
