"""Tools written as JSON by SQLite: a listing's nodes without a Python object per field.

On SQLite, a page of ``tools`` / ``visibleTools`` without a filter whose nodes select only fields
that are columns or simple functions of them (every field of ``Tool`` except ``stats``; of its
spaces and its server, the scalar ones) is read as one JSON object per tool, made by the page's
statement itself (``json_object``), and written into the answer as it is (an ``app.jsoncodec.Raw``:
``schema.execution`` passes it through, ``app.jsoncodec`` writes it). Every value is written as the
API writes it: enum members by name, times as ``isoformat()`` of the UTC time, booleans as JSON
booleans, the JSON columns as the JSON they hold, a tool's spaces and server as the key may see them.

Each row also says whether it *can* be written so (``writable``): every value of the selection of
the type and shape the API gives it (text where a string is due, a member where an enum is, an Int
within 32 bits, a time the API's own reading takes, JSON that is not a number stored as such). A
page holding a row that cannot, or whose JSON text does not parse (SQLite then refuses the
statement), is read again the ordinary way, which answers it (or its error) as before. Selections
that depend on more than the row (a field twice, fragments, directives, arguments) are never written
here, and only answers written by ``app.main.GraphQLPost`` (orjson) take this path.

Not on PostgreSQL: the JSON would be made by the one database every replica shares (see
``app.tools.repository.list_rendered_tool_page``).

``tests/schema/tools/test_listing_rendered.py`` compares every listing so written with graphql-core's
own answer, field by field, for admins, space admins, members and viewers, on odd values and on rows
written around the API.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from graphql import FieldNode, SelectionSetNode, get_named_type
from sqlalchemy import String, and_, bindparam, case, exists, func, literal_column, not_, or_, select
from sqlalchemy.sql.elements import ColumnElement

from app import jsoncodec
from app.pagination import Page
from app.principal import Principal
from app.principal import Role as PrincipalRole
from app.spaces.models import Space as SpaceModel
from app.tools.models import McpServer as McpServerModel
from app.tools.models import McpServerSpaceBinding, ToolDefinition, ToolSpaceBinding
from app.tools.repository import RenderedNodes
from app.tools.visibility import tool_is_global
from schema.enums import ApprovalPolicy, AuthType, McpTransport, Role, SideEffect, Status, ToolType

# Kinds of a rendered field.
TEXT, NULLABLE_TEXT, JSON_VALUE, NULLABLE_JSON, INT, STRINGS, TIME, NULLABLE_TIME, BOOLEAN = range(9)


@dataclass(frozen=True)
class _Enum:
    enum: type[Enum]
    default: str | None = None  # the member a NULL or empty value reads as (ApprovalPolicy: NEVER)


@dataclass(frozen=True)
class _EnumList:
    enum: type[Enum]


#: The fields of each type written from a column: GraphQL name → (kind, column name).
_TOOL_COLUMNS: dict[str, tuple[Any, str]] = {
    "id": (TEXT, "tool_id"),
    "name": (TEXT, "name"),
    "label": (TEXT, "label"),
    "description": (TEXT, "description"),
    "inputSchema": (JSON_VALUE, "input_schema"),
    "outputSchema": (NULLABLE_JSON, "output_schema"),
    "type": (_Enum(ToolType), "type"),
    "status": (_Enum(Status), "status"),
    "endpoint": (NULLABLE_TEXT, "endpoint"),
    "authType": (_Enum(AuthType), "auth_type"),
    "sideEffect": (_Enum(SideEffect), "side_effect"),
    "timeoutMs": (INT, "timeout_ms"),
    "maxRetries": (INT, "max_retries"),
    "tags": (STRINGS, "tags"),
    "group": (NULLABLE_TEXT, "group"),
    "allowedRoles": (_EnumList(Role), "allowed_roles"),
    "version": (TEXT, "version"),
    "owner": (NULLABLE_TEXT, "owner"),
    "createdAt": (TIME, "created_at"),
    "updatedAt": (TIME, "updated_at"),
    "driftedAt": (NULLABLE_TIME, "drifted_at"),
    "requestMapping": (NULLABLE_JSON, "request_mapping"),
    "approval": (_Enum(ApprovalPolicy, default=ApprovalPolicy.NEVER.name), "approval"),
}
_SPACE_COLUMNS: dict[str, tuple[Any, str]] = {
    "id": (TEXT, "id"),
    "name": (TEXT, "name"),
    "label": (TEXT, "label"),
    "isSystem": (BOOLEAN, "is_system"),
    "createdAt": (TIME, "created_at"),
}
_SERVER_COLUMNS: dict[str, tuple[Any, str]] = {
    "id": (TEXT, "id"),
    "name": (TEXT, "name"),
    "url": (NULLABLE_TEXT, "url"),
    "transport": (_Enum(McpTransport), "transport"),
    "status": (_Enum(Status), "status"),
    "authType": (_Enum(AuthType), "auth_type"),
    "lastSyncedAt": (NULLABLE_TIME, "last_synced_at"),
    "lastError": (NULLABLE_TEXT, "last_error"),
    "createdAt": (TIME, "created_at"),
}
#: Tool fields computed from more than its row.
_TOOL_COMPUTED = frozenset({"viewerCanManage", "isGlobal", "boundSpaces", "mcpServer"})
_NESTED = {"boundSpaces": _SPACE_COLUMNS, "mcpServer": _SERVER_COLUMNS}
_TYPENAMES = {"tool": "Tool", "space": "Space", "server": "McpServer"}

Plan = tuple[tuple[str, str, Any], ...]
"""A node's selection: (response key, field name, the nested selection or None), in order."""


def _simple_fields(selection_set: SelectionSetNode | None) -> list[FieldNode] | None:
    """The fields of a selection set when it is fields only, none with a directive, no response
    key twice; else None."""
    if selection_set is None:
        return None
    fields: list[FieldNode] = []
    keys: set[str] = set()
    for selection in selection_set.selections:
        if not isinstance(selection, FieldNode) or selection.directives:
            return None
        key = selection.alias.value if selection.alias else selection.name.value
        if key in keys:
            return None
        keys.add(key)
        fields.append(selection)
    return fields


def _leaf_plan(selection_set: SelectionSetNode | None, columns: dict[str, tuple[Any, str]]) -> Plan | None:
    fields = _simple_fields(selection_set)
    if not fields:
        return None
    plan = []
    for field in fields:
        name = field.name.value
        if field.arguments or field.selection_set is not None or (name not in columns and name != "__typename"):
            return None
        plan.append((field.alias.value if field.alias else name, name, None))
    return tuple(plan)


@dataclass(frozen=True)
class ListingPlan:
    """What the database may write of a tools connection: its nodes (``nodes``) and, when the
    connection selects nothing else than its page's own fields, the whole connection
    (``connection``: written here around the nodes, see :func:`connection_json`)."""

    nodes: Plan
    connection: Plan | None


#: The connection's own fields written around the nodes: GraphQL name → the nested type's fields.
_PAGE_INFO_FIELDS = frozenset({"hasNextPage", "hasPreviousPage", "startCursor", "endCursor", "__typename"})
_EDGE_FIELDS = frozenset({"cursor", "node", "__typename"})


def listing_plan(info: Any) -> ListingPlan | None:
    """The selection of a tools connection, when this page can be written by the database (see
    the module's text); None otherwise."""
    field_nodes = info._raw_info.field_nodes
    if (
        not getattr(info.context, "writes_fragments", False)
        or not getattr(info.schema.execution_context_class, "passes_raw_json", False)
        or len(field_nodes) != 1
    ):
        return None
    return listing_plan_of(field_nodes[0], info._raw_info.return_type)


def listing_plan_of(field_node: FieldNode, return_type: Any) -> ListingPlan | None:
    """:func:`listing_plan` of the connection field ``field_node`` of type ``return_type``."""
    connection = _simple_fields(field_node.selection_set)
    if connection is None:
        return None
    edges = [field for field in connection if field.name.value == "edges"]
    if len(edges) != 1 or edges[0].arguments:
        return None
    edge_fields = _simple_fields(edges[0].selection_set)
    if edge_fields is None:
        return None
    nodes = [field for field in edge_fields if field.name.value == "node"]
    if len(nodes) != 1 or nodes[0].arguments:
        return None
    node = _node_plan(nodes[0])
    if node is None:
        return None
    return ListingPlan(node, _connection_plan(return_type, connection, edge_fields))


def _connection_plan(return_type: Any, connection: list[FieldNode], edge_fields: list[FieldNode]) -> Plan | None:
    """The connection's selection when it is ``totalCount``, ``__typename`` and fields of
    ``pageInfo`` and ``edges`` only, none with arguments: (key, name, what it needs: the
    typename, or the nested plan of (key, name, typename))."""
    connection_type = get_named_type(return_type)
    plan: list[tuple[str, str, Any]] = []
    for field in connection:
        name = field.name.value
        key = field.alias.value if field.alias else name
        if field.arguments:
            return None
        if name in ("totalCount", "__typename"):
            plan.append((key, name, connection_type.name))
            continue
        if name == "pageInfo":
            fields, allowed = _simple_fields(field.selection_set), _PAGE_INFO_FIELDS
        elif name == "edges":
            fields, allowed = edge_fields, _EDGE_FIELDS
        else:
            return None
        if not fields:
            return None
        typename = get_named_type(connection_type.fields[name].type).name
        nested = []
        for inner in fields:
            inner_name = inner.name.value
            if inner.arguments or inner_name not in allowed or (inner.selection_set and inner_name != "node"):
                return None
            nested.append((inner.alias.value if inner.alias else inner_name, inner_name, typename))
        plan.append((key, name, tuple(nested)))
    return tuple(plan)


def _json_string(value: str) -> str:
    return jsoncodec.dumps(value)


def connection_json(plan: Plan, total: int | None, page: Page[str], cursors: list[str], nodes: list[str]) -> str:
    """The connection of ``plan`` as JSON text, in the selection's order, each value as
    graphql-core writes it, the nodes as the database wrote them. ``cursors``: each node's
    (url-safe base64, which JSON holds as it is). Written as pieces joined once (a page is about
    100 KB: each concatenation of the whole would copy it again)."""
    pieces: list[str] = []
    for index, (key, name, nested) in enumerate(plan):
        pieces.append(("{" if index == 0 else ",") + _json_string(key) + ":")
        if name == "__typename":
            pieces.append(_json_string(nested))
        elif name == "totalCount":
            assert total is not None  # counted whenever totalCount is selected
            pieces.append(str(total))
        elif name == "pageInfo":
            values = {
                "hasNextPage": "true" if page.has_next_page else "false",
                "hasPreviousPage": "true" if page.has_previous_page else "false",
                "startCursor": f'"{cursors[0]}"' if cursors else "null",
                "endCursor": f'"{cursors[-1]}"' if cursors else "null",
            }
            pieces.append(
                "{"
                + ",".join(
                    _json_string(inner_key)
                    + ":"
                    + (_json_string(typename) if inner_name == "__typename" else values[inner_name])
                    for inner_key, inner_name, typename in nested
                )
                + "}"
            )
        else:  # edges: the text between the values, made once; each edge's cursor and node between them
            between: list[str] = []
            slots: list[int] = []  # 0: the cursor, 1: the node
            text = "{"
            for inner_index, (inner_key, inner_name, typename) in enumerate(nested):
                text += ("" if inner_index == 0 else ",") + _json_string(inner_key) + ":"
                if inner_name == "__typename":
                    text += _json_string(typename)
                else:
                    between.append(text + ('"' if inner_name == "cursor" else ""))
                    slots.append(0 if inner_name == "cursor" else 1)
                    text = '"' if inner_name == "cursor" else ""
            between.append(text + "}")
            pieces.append("[")
            for edge, (cursor, node) in enumerate(zip(cursors, nodes, strict=True)):
                edge_values = (cursor, node)
                pieces.append(between[0] if edge == 0 else "," + between[0])
                for slot, after in zip(slots, between[1:], strict=True):
                    pieces.append(edge_values[slot])
                    pieces.append(after)
            pieces.append("]")
    pieces.append("}")
    return "".join(pieces)


def _node_plan(node: FieldNode) -> Plan | None:
    """The node's selection: fields of the row, its links' scalar fields, ``__typename``."""
    fields = _simple_fields(node.selection_set)
    if not fields:
        return None
    plan: list[tuple[str, str, Any]] = []
    for field in fields:
        name = field.name.value
        if field.arguments:
            return None
        nested = None
        if name in _NESTED:
            nested = _leaf_plan(field.selection_set, _NESTED[name])
            if nested is None:
                return None
        elif field.selection_set is not None or (
            name not in _TOOL_COLUMNS and name not in _TOOL_COMPUTED and name != "__typename"
        ):
            return None
        plan.append((field.alias.value if field.alias else name, name, nested))
    return tuple(plan)


def rendered_nodes(plan: Plan, principal: Principal) -> RenderedNodes:
    """What :func:`app.tools.repository.list_rendered_tool_page` needs to write ``plan`` for
    ``principal``: the statement depends on the selection and the kind of viewer, its values
    (the viewer's space) are bound."""
    if principal.is_admin:
        viewer = "admin"
    elif principal.role is PrincipalRole.SPACE_ADMIN:
        viewer = "space_admin"
    else:
        viewer = "member"
    return RenderedNodes(
        key=(plan, viewer),
        build=lambda: _Writer(viewer).tool(plan),
        parameters={"viewer_space": principal.space_id},
    )


_TOOL = ToolDefinition.__table__
_TRUE: ColumnElement[Any] = literal_column("1")
_FALSE: ColumnElement[Any] = literal_column("0")
#: JSON's whitespace, as trim()'s characters.
_JSON_SPACE: ColumnElement[Any] = literal_column("' '||char(9,10,13)")
_NAME = re.compile(r"[_A-Za-z0-9]+")
_VIEWER_SPACE = bindparam("viewer_space", type_=String)


class _Writer:
    """The SQL (SQLite's) of one node plan for one kind of viewer."""

    def __init__(self, viewer: str) -> None:
        self.viewer = viewer

    # -- the pieces --------------------------------------------------------------------------

    def _text(self, value: str) -> ColumnElement[Any]:
        """A constant of the statement: a GraphQL name (the parser takes only ``[_A-Za-z0-9]``) or
        one of this module's, checked all the same, as it is written into the SQL."""
        if not _NAME.fullmatch(value):
            raise ValueError(f"not a name: {value!r}")
        return literal_column(f"'{value}'")

    def _texts(self, values: Iterable[str]) -> list[ColumnElement[Any]]:
        """Constants written into the statement (no list bound at execution: its text is kept)."""
        return [self._text(value) for value in values]

    def _object(self, pairs: list[tuple[str, ColumnElement[Any]]]) -> ColumnElement[Any]:
        arguments: list[Any] = []
        for key, value in pairs:
            arguments.extend((self._text(key), value))
        return func.json_object(*arguments)

    def _boolean(self, condition: ColumnElement[Any]) -> ColumnElement[Any]:
        return func.json(case((condition, self._text("true")), else_=self._text("false")))

    def _json_text(self, column: Any) -> ColumnElement[Any]:
        """A JSON column holds its text (it has NUMERIC affinity: a number stored as such is not
        its text, and such a row is read the ordinary way)."""
        return func.typeof(column).in_(self._texts(["text", "null"]))

    def _is_json_null(self, column: Any) -> ColumnElement[Any]:
        """The column holds JSON ``null``, by its text (text that does not parse makes ``json()``
        fail the statement, and the page is read the ordinary way)."""
        return func.trim(column, _JSON_SPACE) == self._text("null")

    def _time(self, column: Any) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
        """``isoformat()`` of the UTC time, and whether the API's reading takes the stored value."""
        # SQLAlchemy's naive UTC text, "YYYY-MM-DD HH:MM:SS.ffffff" (or without the fraction):
        # a date and time SQLite reads as itself (so one the calendar has), then six digits or nothing.
        # A text with a zone of its own, or a "T", is read the ordinary way.
        whole = func.substr(column, 1, 19)
        value = func.replace(
            case((func.substr(column, 20) == literal_column("'.000000'"), whole), else_=column),
            literal_column("' '"),
            literal_column("'T'"),
        ).concat(literal_column("'+00:00'"))
        valid = and_(
            or_(
                func.length(column) == 19,
                # Exactly ".dddddd" after the seconds (GLOB takes "." as itself), in one comparison.
                func.substr(column, 20).op("GLOB")(literal_column("'.[0-9][0-9][0-9][0-9][0-9][0-9]'")),
            ),
            # Through a modifier SQLite carries an impossible date over (02-30 to March): only a date
            # the calendar has reads as itself. The fraction is left out (SQLite rounds it to ms).
            func.datetime(whole, literal_column("'+0 days'")) == whole,
            func.substr(column, 1, 4) != literal_column("'0000'"),  # year 0: SQLite's, not Python's
        )
        return value, valid

    def _enum(self, spec: _Enum, column: Any) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
        """An enum column (its members' values are their names): the value as it is, when a member."""
        values = [str(member.value) for member in spec.enum]
        assert values == [member.name for member in spec.enum], f"{spec.enum} is written by value"
        is_member = column.in_(self._texts(values))
        if spec.default is None:
            return column, is_member
        # NULL or empty: the default member (ApprovalPolicy.NEVER, as Tool.from_row reads it).
        empty = or_(column.is_(None), column == literal_column("''"))
        return case((empty, self._text(spec.default)), else_=column), or_(empty, is_member)

    def _list(self, column: Any, enum: type[Enum] | None) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
        """A JSON array of strings (or of an enum's values, each its member's name) read as the API
        reads it: NULL and JSON null are the empty list."""
        if enum is not None:
            names = {str(member.value): member.name for member in enum}
            assert all(value == name for value, name in names.items()), f"{enum} is written by value"
        element = func.json_each(column).table_valued("value", "type")
        bad = element.c.type != self._text("text")
        if enum is not None:
            bad = or_(bad, element.c.value.not_in(self._texts(names)))
        empty = or_(column.is_(None), self._is_json_null(column))
        value = func.json(case((empty, literal_column("'[]'")), else_=column))
        valid = case(
            (column.is_(None), _TRUE),
            (column == literal_column("'[]'"), _TRUE),  # the usual empty list, without parsing
            (func.typeof(column) != self._text("text"), _FALSE),
            (self._is_json_null(column), _TRUE),
            # JSON text that opens with "[" is an array (text that does not parse fails the statement).
            (func.substr(func.ltrim(column, _JSON_SPACE), 1, 1) != literal_column("'['"), _FALSE),
            else_=not_(exists(select(1).select_from(element).where(bad))),
        )
        return value, valid == 1

    def _column(self, kind: Any, column: Any) -> tuple[ColumnElement[Any], ColumnElement[Any] | None]:
        """A column's value as the API writes it, and the condition for it (None: always).

        What no condition needs to say: a NULL in a column declared NOT NULL (the database refuses
        it); a BLOB anywhere, or JSON text that does not parse, which fail the statement
        (``json_object`` / ``json()`` refuse them: the page is read the ordinary way)."""
        not_null = None if not column.nullable else column.is_not(None)
        if kind == TEXT:
            return column, not_null
        if kind == NULLABLE_TEXT:
            return column, None
        if kind == JSON_VALUE:
            # A JSON column has NUMERIC affinity: a number stored as such is not its text.
            return func.json(column), and_(func.typeof(column) == self._text("text"), not_(self._is_json_null(column)))
        if kind == NULLABLE_JSON:
            return func.json(column), self._json_text(column)
        if kind == INT:
            return column, and_(func.typeof(column) == self._text("integer"), column.between(-(2**31), 2**31 - 1))
        if kind == STRINGS:
            return self._list(column, None)
        if isinstance(kind, _EnumList):
            return self._list(column, kind.enum)
        if isinstance(kind, _Enum):
            return self._enum(kind, column)
        if kind in (TIME, NULLABLE_TIME):
            value, valid = self._time(column)
            return value, valid if kind == TIME else or_(column.is_(None), valid)
        if kind == BOOLEAN:
            return self._boolean(column != 0), func.typeof(column) == self._text("integer")
        raise AssertionError(kind)

    def _leaves(
        self, plan: Plan, columns: dict[str, tuple[Any, str]], table: Any, typename: str
    ) -> tuple[ColumnElement[Any], ColumnElement[Any] | None]:
        pairs: list[tuple[str, ColumnElement[Any]]] = []
        conditions: list[ColumnElement[Any]] = []
        for key, name, _ in plan:
            if name == "__typename":
                pairs.append((key, self._text(typename)))
                continue
            kind, column_name = columns[name]
            value, condition = self._column(kind, table.c[column_name])
            pairs.append((key, value))
            if condition is not None:
                conditions.append(condition)
        return self._object(pairs), and_(*conditions) if conditions else None

    # -- the node ----------------------------------------------------------------------------

    def tool(self, plan: Plan) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
        tool = _TOOL.c
        pairs: list[tuple[str, ColumnElement[Any]]] = []
        conditions: list[ColumnElement[Any]] = []
        for key, name, nested in plan:
            if name == "__typename":
                value: ColumnElement[Any] = self._text(_TYPENAMES["tool"])
            elif name in _TOOL_COLUMNS:
                kind, column_name = _TOOL_COLUMNS[name]
                value, condition = self._column(kind, tool[column_name])
                if condition is not None:
                    conditions.append(condition)
            elif name == "viewerCanManage":
                value = self._boolean(self._may_manage())
            elif name == "isGlobal":
                value = self._boolean(tool_is_global())  # app.tools.visibility's own rule
            elif name == "boundSpaces":
                value, condition = self._spaces(nested)
                if condition is not None:
                    conditions.append(condition)
            elif name == "mcpServer":
                value, condition = self._server(nested)
                if condition is not None:
                    conditions.append(condition)
            else:  # node_plan lets no other field through
                raise AssertionError(name)
            pairs.append((key, value))
        writable = and_(*conditions) if conditions else _TRUE
        # A condition over NULL is NULL: only a true one writes the row here.
        return self._object(pairs), func.coalesce(writable, _FALSE)

    def _may_manage(self) -> ColumnElement[Any]:
        """app.tools.service.may_manage_tool."""
        if self.viewer == "admin":
            return literal_column("1") == 1
        if self.viewer == "space_admin":
            tool = _TOOL.c
            return and_(tool.type == self._text("CUSTOM"), tool.owner_space_id.is_not_distinct_from(_VIEWER_SPACE))
        return literal_column("1") == 0

    def _spaces(self, plan: Plan) -> tuple[ColumnElement[Any], ColumnElement[Any] | None]:
        """The spaces the tool is bound to that the viewer may read, in id order."""
        binding = ToolSpaceBinding.__table__.alias("rendered_spaces_binding")
        space = SpaceModel.__table__.alias("rendered_space")
        item, valid = self._leaves(plan, _SPACE_COLUMNS, space, _TYPENAMES["space"])
        source = binding.join(space, space.c.id == binding.c.space_id)
        shown = binding.c.tool_id == _TOOL.c.tool_id
        if self.viewer != "admin":
            shown = and_(shown, space.c.id == _VIEWER_SPACE)
        invalid = None
        if valid is not None:
            invalid = not_(exists(select(1).select_from(source).where(shown, not_(func.coalesce(valid, _FALSE)))))
        # group_concat takes the rows as the ordered subquery gives them (by the binding's
        # primary key: no sort); the objects joined as text, the array read once by json().
        ordered = (
            select(item.label("item"))
            .select_from(source)
            .where(shown)
            .order_by(binding.c.space_id)
            .correlate(_TOOL)  # the page's tool, two levels up
            .subquery("rendered_item")
        )
        joined = select(
            literal_column("'['")
            .concat(func.group_concat(ordered.c.item, literal_column("','")))
            .concat(literal_column("']'"))
        )
        return func.json(func.coalesce(joined.scalar_subquery(), literal_column("'[]'"))), invalid

    def _server(self, plan: Plan) -> tuple[ColumnElement[Any], ColumnElement[Any] | None]:
        """The tool's server when the viewer may see it (admins; else a server bound nowhere or to the viewer's space)."""
        server = McpServerModel.__table__.alias("rendered_server")
        item, valid = self._leaves(plan, _SERVER_COLUMNS, server, _TYPENAMES["server"])
        shown = server.c.id == _TOOL.c.mcp_server_id
        if self.viewer != "admin":
            server_binding = McpServerSpaceBinding.__table__.alias("rendered_shown_binding")
            bound = select(1).select_from(server_binding).where(server_binding.c.server_id == server.c.id)
            shown = and_(
                shown,
                or_(not_(exists(bound)), exists(bound.where(server_binding.c.space_id == _VIEWER_SPACE))),
            )
        value = select(item).where(shown).scalar_subquery()
        invalid = None
        if valid is not None:
            invalid = not_(exists(select(1).select_from(server).where(shown, not_(func.coalesce(valid, _FALSE)))))
        return func.json(value), invalid
