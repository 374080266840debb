"""Every SQL statement about tools, MCP servers and their bindings."""

from __future__ import annotations

import operator
import sqlite3
import time
from collections import defaultdict, namedtuple
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, cast

from sqlalchemy import (
    Integer,
    Select,
    String,
    Text,
    bindparam,
    delete,
    exists,
    func,
    literal,
    literal_column,
    or_,
    select,
    tuple_,
    type_coerce,
)
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import NullType

from app import jsoncodec
from app.db import SQLITE_BUSY_TIMEOUT_MS, JsonArrayContains
from app.pagination import Page, PageRequest, count, fetch_page
from app.spaces.models import Space
from app.spaces.repository import SPACE_COLUMNS, SpaceRecord
from app.tools.models import McpServer, McpServerSpaceBinding, ToolDefinition, ToolSpaceBinding
from app.tools.visibility import tool_is_global, tool_visible_in_space, tool_visible_somewhere


@dataclass(frozen=True)
class ToolFilter:
    type: str | None = None
    tags: Sequence[str] = ()
    group: str | None = None
    search: str | None = None
    mcp_server_id: str | None = None
    status: str | None = None
    is_global: bool | None = None


def _filtered(statement: Select[ToolDefinition], tool_filter: ToolFilter | None) -> Select[ToolDefinition]:
    if tool_filter is None:
        return statement
    if tool_filter.type is not None:
        statement = statement.where(ToolDefinition.type == tool_filter.type)
    for tag in tool_filter.tags:
        statement = statement.where(JsonArrayContains(ToolDefinition.tags, tag))
    if tool_filter.group is not None:
        statement = statement.where(ToolDefinition.group == tool_filter.group)
    if tool_filter.search:
        term = tool_filter.search
        statement = statement.where(
            or_(
                ToolDefinition.name.icontains(term, autoescape=True),
                ToolDefinition.label.icontains(term, autoescape=True),
                ToolDefinition.description.icontains(term, autoescape=True),
            )
        )
    if tool_filter.mcp_server_id is not None:
        statement = statement.where(ToolDefinition.mcp_server_id == tool_filter.mcp_server_id)
    if tool_filter.status is not None:
        statement = statement.where(ToolDefinition.status == tool_filter.status)
    if tool_filter.is_global is not None:
        statement = statement.where(tool_is_global() if tool_filter.is_global else ~tool_is_global())
    return statement


def tools_statement(visibility: ColumnElement[bool], tool_filter: ToolFilter | None) -> Select[ToolDefinition]:
    return _filtered(select(ToolDefinition).where(visibility), tool_filter)


async def list_tools(
    session: AsyncSession,
    space_id: str | None,
    page: PageRequest,
    tool_filter: ToolFilter | None = None,
    *,
    include_inactive: bool = False,
) -> Page[ToolDefinition]:
    """Tools visible in ``space_id`` (every tool when None), one keyset page."""
    visibility = tool_visible_somewhere(space_id, include_inactive=include_inactive)
    return await fetch_page(session, tools_statement(visibility, tool_filter), ToolDefinition.tool_id, page)


class ToolRow(Protocol):
    """What a GraphQL ``Tool`` is made from: a :class:`ToolDefinition`, or a row of
    :data:`TOOL_ROW_COLUMNS` (a page of a listing, read without the ORM's cost per row)."""

    @property
    def tool_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def input_schema(self) -> dict[str, Any]: ...
    @property
    def output_schema(self) -> dict[str, Any] | None: ...
    @property
    def type(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def endpoint(self) -> str | None: ...
    @property
    def auth_type(self) -> str: ...
    @property
    def side_effect(self) -> str: ...
    @property
    def timeout_ms(self) -> int: ...
    @property
    def max_retries(self) -> int: ...
    @property
    def tags(self) -> list[str]: ...
    @property
    def group(self) -> str | None: ...
    @property
    def allowed_roles(self) -> list[str]: ...
    @property
    def version(self) -> str: ...
    @property
    def owner(self) -> str | None: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def updated_at(self) -> datetime: ...
    @property
    def drifted_at(self) -> datetime | None: ...
    @property
    def request_mapping(self) -> dict[str, Any] | None: ...
    @property
    def approval(self) -> str: ...
    @property
    def mcp_server_id(self) -> str | None: ...
    @property
    def owner_space_id(self) -> str | None: ...


_TOOL_TABLE = ToolDefinition.__table__.c
#: The columns of a :class:`ToolRow`, as Core columns (named as the attributes): no secret
#: (``auth_config``), no gateway-only settings.
TOOL_ROW_COLUMNS = tuple(_TOOL_TABLE[name] for name, value in vars(ToolRow).items() if isinstance(value, property))
#: A :class:`ToolRow` as a plain named tuple of :data:`TOOL_ROW_COLUMNS`: reading one of its
#: attributes costs a tenth of what it costs on a SQLAlchemy ``Row`` (whose attributes are looked
#: up by key), and ``Tool.from_row`` reads every one of them for each tool of a listing.
ToolRecord = namedtuple("ToolRecord", [column.name for column in TOOL_ROW_COLUMNS])  # type: ignore[misc]
# Its fields are the protocol's properties, which mypy cannot see in a tuple made from a list of names.
_tool_record = cast(Callable[[Iterable[Any]], ToolRow], ToolRecord._make)


@dataclass
class PageLinks:
    """What a page of tools links to, read in one session: bound space ids per tool and per
    server (sorted; no key: no rows), the bound spaces themselves and the servers."""

    tool_spaces: dict[str, list[str]]
    server_spaces: dict[str, list[str]]
    spaces: dict[str, SpaceRecord]
    servers: dict[str, McpServer]


@dataclass
class ToolPage:
    """A page of tools as :func:`list_tool_page` reads it: the rows, the whole count (None unless
    asked) and what the page links to (only what was asked)."""

    rows: Page[ToolRow]
    total: int | None
    links: PageLinks


#: Columns read as the driver gives them and decoded here (JSON, times); the others need no decoding.
_JSON_NAMES = ("input_schema", "output_schema", "tags", "allowed_roles", "request_mapping")
_TIME_NAMES = ("created_at", "updated_at", "drifted_at")
_PLAIN_COLUMNS = tuple(column for column in TOOL_ROW_COLUMNS if column.name not in _JSON_NAMES + _TIME_NAMES)
#: A record's values as the decoding lines them up: the plain columns, the JSON ones, the times.
_READ_ORDER: list[str] = [column.name for column in _PLAIN_COLUMNS] + [*_JSON_NAMES, *_TIME_NAMES]
#: The fields of a ToolRecord, in its order, from the values lined up in :data:`_READ_ORDER`.
_RECORD_ORDER = operator.itemgetter(*(_READ_ORDER.index(column.name) for column in TOOL_ROW_COLUMNS))
_RAW = NullType()
#: Where a page statement's columns are: the plain ones, the times, the JSON text, then (SQLite) the
#: flag of a JSON column stored as a number, (PostgreSQL) the arrays of bound spaces; the total last.
_PLAIN_WIDTH = len(_PLAIN_COLUMNS)
_TIMES_AT = _PLAIN_WIDTH
_JSON_AT = _TIMES_AT + len(_TIME_NAMES)
_AFTER_JSON = _JSON_AT + 1


def _raw(expression: Any, name: str) -> Any:
    """``expression`` with no result processing (the value as the driver gives it), labelled."""
    return type_coerce(expression, _RAW).label(name)


@dataclass(frozen=True)
class _PageShape:
    """What a page statement's SQL depends on (its values are bound parameters)."""

    dialect: str
    everywhere: bool  # an admin's listing: no space's visibility rule
    include_inactive: bool
    with_total: bool
    after: bool
    bindings: bool
    spaces: bool
    server_bindings: bool

    @classmethod
    def of_page(
        cls,
        dialect: str,
        space_id: str | None,
        page: PageRequest,
        *,
        include_inactive: bool,
        with_total: bool,
        bindings: bool = False,
        spaces: bool = False,
        server_bindings: bool = False,
    ) -> _PageShape:
        """The shape of a page in ``space_id`` (None: an admin's, every tool), after ``page.after``."""
        return cls(
            dialect=dialect,
            everywhere=space_id is None,
            include_inactive=include_inactive,
            with_total=with_total,
            after=page.after is not None,
            bindings=bindings,
            spaces=spaces,
            server_bindings=server_bindings,
        )


def _link_subqueries(shape: _PageShape) -> list[Any]:
    """Correlated subqueries of a page's statement: the tool's bound spaces (whole rows, or ids),
    its server's bound space ids. SQLite: JSON text (``json_group_array``, '[]' for none);
    PostgreSQL: arrays in space id order (NULL for none), decoded by asyncpg."""
    tool = ToolDefinition.__table__
    binding, space, server_binding = (
        ToolSpaceBinding.__table__.c,
        Space.__table__.c,
        McpServerSpaceBinding.__table__.c,
    )
    postgresql = shape.dialect == "postgresql"
    subqueries = []
    if shape.bindings:
        if shape.spaces:
            element: Any = (tuple_ if postgresql else func.json_array)(*(space[c.name] for c in SPACE_COLUMNS))
            source: Any = ToolSpaceBinding.__table__.join(Space.__table__, space.id == binding.space_id)
        else:
            element, source = binding.space_id, ToolSpaceBinding.__table__
        aggregate = (
            func.array_agg(aggregate_order_by(element, binding.space_id))
            if postgresql
            else func.json_group_array(element)
        )
        subquery = select(aggregate).select_from(source).where(binding.tool_id == tool.c.tool_id)
        subqueries.append(subquery.correlate(tool).scalar_subquery())
    if shape.server_bindings:
        aggregate = (
            func.array_agg(aggregate_order_by(server_binding.space_id, server_binding.space_id))
            if postgresql
            else func.json_group_array(server_binding.space_id)
        )
        subquery = select(aggregate).where(server_binding.server_id == tool.c.mcp_server_id)
        subqueries.append(subquery.correlate(tool).scalar_subquery())
    return subqueries


def _json_text(shape: _PageShape, links: Sequence[Any]) -> tuple[Any, Any]:
    """The page statement's JSON text (one array per row: the JSON columns' values, then on SQLite
    what the row links to) and, on SQLite, whether a JSON column holds a number (a JSON column has
    NUMERIC affinity there: such a value is not its text, and the row is read again)."""
    tool = _TOOL_TABLE
    if shape.dialect == "postgresql":
        return func.json_build_array(*(tool[name] for name in _JSON_NAMES)).cast(Text), None
    null, comma = literal_column("'null'", Text), literal_column("','", Text)
    text: Any = literal_column("'['", Text)
    for index, part in enumerate([*(func.coalesce(tool[name], null) for name in _JSON_NAMES), *links]):
        text = (
            text.concat(type_coerce(part, Text)) if index == 0 else text.concat(comma).concat(type_coerce(part, Text))
        )
    text = text.concat(literal_column("']'", Text))
    number_types: list[Any] = [literal_column("'integer'"), literal_column("'real'")]
    numbers = or_(*(func.typeof(tool[name]).in_(number_types) for name in _JSON_NAMES))
    return text, numbers


_SPACE_ID = bindparam("space_id", type_=String)
_AFTER = bindparam("after", type_=String)
_LIMIT = bindparam("limit", type_=Integer)
#: The page statements of listings without a filter, by shape (at most a few dozen): built once.
_PAGE_STATEMENTS: dict[_PageShape, Select[Any]] = {}


def _page_statement(shape: _PageShape, tool_filter: ToolFilter | None) -> Select[Any]:
    """A page's one statement, its values bound (``space_id``, ``after``, ``limit``); kept by shape
    when there is no filter (then neither the statement nor its cache key is made again)."""
    if tool_filter is None:
        cached = _PAGE_STATEMENTS.get(shape)
        if cached is not None:
            return cached
    tool = _TOOL_TABLE
    links = _link_subqueries(shape)
    text, numbers = _json_text(shape, links if shape.dialect == "sqlite" else ())
    columns = [*_PLAIN_COLUMNS, *(_raw(tool[name], name) for name in _TIME_NAMES), _raw(text, "json_values")]
    if numbers is not None:
        columns.append(_raw(numbers, "stored_numbers"))
    else:
        columns.extend(_raw(subquery, f"link_{index}") for index, subquery in enumerate(links))
    statement = _visible_page(shape, tool_filter, columns)
    if tool_filter is None:
        _PAGE_STATEMENTS[shape] = statement
    return statement


def _visible_page(shape: _PageShape, tool_filter: ToolFilter | None, columns: Sequence[Any]) -> Select[Any]:
    """``columns`` of a page of the tools visible in the bound ``space_id`` (every tool for
    ``shape.everywhere``), filtered, after the bound ``after``, in id order, ``limit`` rows; the
    whole count last when ``shape.with_total``."""
    tool = _TOOL_TABLE
    visibility = tool_visible_somewhere(
        None if shape.everywhere else _SPACE_ID, include_inactive=shape.include_inactive
    )
    statement = _filtered(select(*columns).where(visibility), tool_filter)
    if shape.with_total:
        counted = _filtered(select(tool.tool_id).where(visibility), tool_filter)
        statement = statement.add_columns(select(func.count()).select_from(counted.subquery()).scalar_subquery())
    if shape.after:
        statement = statement.where(tool.tool_id > _AFTER)
    return statement.order_by(tool.tool_id).limit(_LIMIT)


async def list_tool_page(
    session: AsyncSession,
    space_id: str | None,
    page: PageRequest,
    tool_filter: ToolFilter | None = None,
    *,
    include_inactive: bool = False,
    with_total: bool = False,
    with_bindings: bool = False,
    with_spaces: bool = False,
    with_server_bindings: bool = False,
    with_servers: bool = False,
) -> ToolPage:
    """:func:`list_tools` as rows of :data:`TOOL_ROW_COLUMNS` in one statement, executed as Core on
    the session's connection (no ORM object per tool): the page's rows, its total
    (``with_total``), and as correlated subqueries of the same statement each tool's bound space
    ids (``with_bindings``) or whole spaces (``with_spaces`` too) and its server's bound space ids
    (``with_server_bindings``); the servers themselves (``with_servers``), only on a page with MCP
    tools, take a second statement.

    The values are decoded here, once each, as SQLAlchemy's types would decode them: a row's JSON
    columns come as the text of one JSON array (one parse instead of one per value; on SQLite with
    what the row links to), the times as the driver gives them. A row whose text cannot be read so
    (a number stored as such in a JSON column on SQLite, JSON nested to the parser's limit) has its
    JSON columns read again through SQLAlchemy's own types. ``tests/app/tools/test_visibility.py``
    compares every value with the ORM's."""
    connection = await session.connection()
    shape = _PageShape.of_page(
        connection.dialect.name,
        space_id,
        page,
        include_inactive=include_inactive,
        with_total=with_total,
        bindings=with_bindings or with_spaces,
        spaces=with_spaces,
        server_bindings=with_server_bindings,
    )
    parameters = {"space_id": space_id, "after": page.after, "limit": page.first + 1}
    fetched = (await connection.execute(_page_statement(shape, tool_filter), parameters)).all()
    rows = fetched[: page.first]
    sqlite = shape.dialect == "sqlite"
    decoded = _json_arrays(rows, sqlite)
    if None in decoded:
        await _read_again(connection, shape, rows, decoded)
    links = PageLinks(defaultdict(list), defaultdict(list), {}, {})
    records = (_sqlite_records if sqlite else _postgresql_records)(rows, decoded, links, shape)
    total = None
    if with_total:
        total = (
            rows[0][-1]
            if rows
            else await count_tools(session, space_id, tool_filter, include_inactive=include_inactive)
        )
    if with_servers:
        server_ids = sorted({record.mcp_server_id for record in records if record.mcp_server_id is not None})
        if server_ids:
            links.servers = {server.id: server for server in await servers_by_ids(session, server_ids)}
    return ToolPage(
        Page(items=records, has_next_page=len(fetched) > page.first, has_previous_page=page.after is not None),
        total,
        links,
    )


@dataclass(frozen=True)
class RenderedNodes:
    """How SQLite writes a page's nodes as JSON (``schema.tools.rendering``): ``build`` gives the
    node's JSON text and whether the row can be written so; ``key`` names what the SQL depends on
    (statements are kept by it), ``parameters`` its bound values."""

    key: Hashable
    build: Callable[[], tuple[ColumnElement[Any], ColumnElement[Any]]]
    parameters: dict[str, Any]


@dataclass
class RenderedPage:
    """A page whose nodes the database wrote: each tool's id and JSON text, the whole count."""

    rows: Page[str]
    nodes: list[str]
    total: int | None


#: Statements of :func:`list_rendered_tool_page`, by shape and selection: a client's few
#: documents make a few entries (bounded all the same: a client asks a few shapes of a listing).
_RENDERED_STATEMENTS: dict[tuple[_PageShape, Hashable], tuple[Select[Any], _DriverSql | None]] = {}
_MAX_RENDERED_STATEMENTS = 32  # about 350 KB each (the statement and its SQL)


class StatementBudget:
    """At most ``per_minute`` new statements made (a token bucket: the whole minute's share may be
    spent at once, then it comes back evenly)."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._tokens = float(per_minute)
        self._stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self._tokens = min(float(self.per_minute), self._tokens + (now - self._stamp) * self.per_minute / 60)
        self._stamp = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


NEW_RENDERED_STATEMENTS = StatementBudget(30)
_SQLITE_JSON_REFUSALS = ("malformed JSON", "JSON cannot hold BLOB values")


@dataclass(frozen=True)
class _DriverSql:
    """A rendered page's statement as SQLite's driver takes it (compiled once): aiosqlite's
    ``execute_fetchall`` hands the statement to the driver's thread once, where SQLAlchemy's
    execution takes four hand-offs (cursor, execute, fetch, close): on a listing of ten pages
    that was a fifth of its time."""

    text: str
    names: tuple[str, ...]
    defaults: dict[str, Any]

    async def rows(self, connection: AsyncConnection, parameters: dict[str, Any]) -> list[Any] | None:
        """The rows, or None when the driver refused the statement: whatever the reason (JSON
        written around the API, a database away), the ordinary reading then runs the page again and
        answers it, or raises its error as SQLAlchemy maps it (``app.db``), as it always did.

        Read on the event loop first, within :data:`ON_LOOP_BUDGET_S` (see :func:`_read_on_the_loop`),
        else on the driver's thread."""
        raw = await connection.get_raw_connection()
        driver = raw.driver_connection
        values = [parameters[name] if name in parameters else self.defaults[name] for name in self.names]
        database = _sqlite_connection(driver)
        if database is not None:
            try:
                return _read_on_the_loop(database, self.text, values)
            except sqlite3.Error as error:
                if any(refusal in str(error) for refusal in _SQLITE_JSON_REFUSALS):
                    return None
                # Past its bound, or SQLite busy: the driver's thread reads it (and waits, if need be).
        try:
            return list(await driver.execute_fetchall(self.text, values))  # type: ignore[union-attr]
        except Exception:
            return None


#: Most CPU time a rendered page's statement takes on the event loop (a page of 100 ordinary tools
#: takes 1-2 ms) before it is stopped and read on the driver's thread instead. CPU time, not wall
#: time: a process the machine makes wait is not stopped for it (the work would be done twice).
ON_LOOP_BUDGET_S = 0.004
#: SQLite's virtual-machine steps between two looks at the clock (about 0.15 ms of a page's work;
#: a look costs about 2 us).
_PROGRESS_STEPS = 5000


def _sqlite_connection(driver: Any) -> sqlite3.Connection | None:
    """aiosqlite's own ``sqlite3`` connection (None for another driver, or a closed one)."""
    try:
        database = driver._conn
    except Exception:
        return None
    return database if isinstance(database, sqlite3.Connection) else None


def _read_on_the_loop(database: sqlite3.Connection, text: str, values: list[Any]) -> list[Any]:
    """The statement's rows, read here on the event loop instead of on aiosqlite's thread.

    A page's statement is a few ms of SQLite's time at most; a hand-off to the driver's thread
    and back (and the caches the other core does not have warm) cost a page about as much again.
    The event loop does no more than :data:`ON_LOOP_BUDGET_S` of this work (SQLite's progress
    handler stops the statement past it: ``interrupted``) and never waits for a lock (``busy_timeout``
    0 meanwhile: ``database is locked``); either raises, and the caller reads on the thread.
    The connection is this session's own, checked out of the pool, and its thread is idle."""
    deadline = time.thread_time() + ON_LOOP_BUDGET_S
    database.set_progress_handler(lambda: time.thread_time() > deadline, _PROGRESS_STEPS)
    try:
        database.execute("PRAGMA busy_timeout = 0")
        try:
            return database.execute(text, values).fetchall()
        finally:
            database.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
    finally:
        database.set_progress_handler(None, 0)


def _statements_observed(connection: AsyncConnection) -> bool:
    """Whether something listens to the statements SQLAlchemy runs (tracing, a test counting them):
    then the page's statement runs through SQLAlchemy too, where they see it."""
    dispatch = connection.sync_connection.dispatch if connection.sync_connection is not None else None
    return dispatch is None or bool(dispatch.before_cursor_execute) or bool(dispatch.after_cursor_execute)


def _driver_sql(statement: Select[Any], connection: AsyncConnection) -> _DriverSql | None:
    """The statement compiled for SQLite's driver."""
    compiled = statement.compile(dialect=connection.dialect)
    text = str(compiled)
    if "POSTCOMPILE" in text:  # a list bound at execution: SQLAlchemy's own execution expands it
        return None
    return _DriverSql(text, tuple(compiled.positiontup or ()), dict(compiled.params))


async def list_rendered_tool_page(
    session: AsyncSession,
    space_id: str | None,
    page: PageRequest,
    nodes: RenderedNodes,
    *,
    include_inactive: bool = False,
    with_total: bool = False,
) -> RenderedPage | None:
    """On SQLite, the page :func:`list_tool_page` reads without a filter (same visibility, order
    and pages), each tool written as JSON by the statement itself; None when a row of the page
    cannot be written so, or the statement cannot be made now (the caller then reads the page the
    ordinary way, which answers its values or its error as before).

    Not on PostgreSQL: there the JSON would be made by the database every replica shares (about
    20 ms of its CPU a listing of 1,000 tools, for 8 % less wall time: bench/README.md), where the
    ordinary reading does that work on the replicas, which scale out."""
    connection = await session.connection()
    if connection.dialect.name != "sqlite":
        return None
    shape = _PageShape.of_page(
        connection.dialect.name, space_id, page, include_inactive=include_inactive, with_total=with_total
    )
    key = (shape, nodes.key)
    kept = _RENDERED_STATEMENTS.get(key)
    if kept is None:
        # Making one costs 10-30 ms of CPU (a document's first page): a selection never seen before
        # is read the ordinary way once the process made its share of new ones this minute, so that
        # documents made up afresh for every request cost no more than ordinary pages.
        if not NEW_RENDERED_STATEMENTS.take():
            return None
        node, writable = nodes.build()
        statement = _visible_page(shape, None, [_TOOL_TABLE.tool_id, _raw(writable, "writable"), _raw(node, "node")])
        kept = (statement, _driver_sql(statement, connection))
        if len(_RENDERED_STATEMENTS) >= _MAX_RENDERED_STATEMENTS:
            _RENDERED_STATEMENTS.clear()
        _RENDERED_STATEMENTS[key] = kept
    statement, driver_sql = kept
    parameters = {"space_id": space_id, "after": page.after, "limit": page.first + 1, **nodes.parameters}
    if driver_sql is not None and not _statements_observed(connection):
        fetched = await driver_sql.rows(connection, parameters)
        if fetched is None:
            return None
    else:
        try:
            fetched = (await connection.execute(statement, parameters)).all()
        except OperationalError as error:
            # SQLite's JSON functions refuse a JSON column whose text does not parse, or a BLOB
            # (written around the API): the ordinary reading answers that row as it always did.
            if any(refusal in str(error.orig) for refusal in _SQLITE_JSON_REFUSALS):
                return None
            raise
    rows = fetched[: page.first]
    if not all(row[1] for row in rows):
        return None
    total = None
    if with_total:
        total = rows[0][-1] if rows else await count_tools(session, space_id, None, include_inactive=include_inactive)
    ids = [row[0] for row in rows]
    return RenderedPage(
        Page(items=ids, has_next_page=len(fetched) > page.first, has_previous_page=page.after is not None),
        [row[2] for row in rows],
        total,
    )


def _json_arrays(rows: Sequence[Any], sqlite: bool) -> list[list[Any] | None]:
    """Each row's JSON text parsed (``jsoncodec.loads``); None for a row to read again."""
    loads = jsoncodec.loads
    decoded: list[list[Any] | None] = []
    for row in rows:
        if sqlite and row[_AFTER_JSON]:
            decoded.append(None)
            continue
        try:
            decoded.append(loads(row[_JSON_AT]))
        except Exception:
            decoded.append(None)
    return decoded


async def _read_again(
    connection: AsyncConnection, shape: _PageShape, rows: Sequence[Any], decoded: list[list[Any] | None]
) -> None:
    """The JSON columns (and on SQLite the links) of the rows ``decoded`` could not hold, read
    through SQLAlchemy's own JSON type, value by value, as a listing read them before."""
    tool = _TOOL_TABLE
    again = [row[0] for row, values in zip(rows, decoded, strict=True) if values is None]
    links = _link_subqueries(shape) if shape.dialect == "sqlite" else []
    statement = select(tool.tool_id, *(tool[name] for name in _JSON_NAMES), *(_raw(link, "link") for link in links))
    read = {
        row[0]: [*row[1 : 1 + len(_JSON_NAMES)], *(jsoncodec.loads(link) for link in row[1 + len(_JSON_NAMES) :])]
        for row in await connection.execute(statement.where(tool.tool_id.in_(again)))
    }
    for index, row in enumerate(rows):
        if decoded[index] is None:
            decoded[index] = read[row[0]]


def utc_time(value: datetime | None) -> datetime | None:
    """What :class:`app.db.UtcDateTime` reads: a naive time is UTC, any other is converted to UTC."""
    return None if value is None else value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _sqlite_time(text: str | None) -> datetime | None:
    """What :class:`app.db.UtcDateTime` reads on SQLite (``datetime.fromisoformat``, then UTC).

    SQLAlchemy stores a naive UTC text; parsed with an explicit ``+00:00`` it is the same time, at a
    tenth of the cost of ``replace(tzinfo=UTC)``. Any other text (one with a zone of its own) cannot
    take the suffix and is read the long way."""
    if text is None:
        return None
    try:
        return datetime.fromisoformat(text + "+00:00")
    except (ValueError, TypeError):
        return utc_time(datetime.fromisoformat(text))


def _sqlite_records(
    rows: Sequence[Any], decoded: list[list[Any] | None], links: PageLinks, shape: _PageShape
) -> list[ToolRow]:
    records = []
    spaces = links.spaces
    json_width = len(_JSON_NAMES)
    time = _sqlite_time
    for row, values in zip(rows, decoded, strict=True):
        assert values is not None
        record = _tool_record(
            _RECORD_ORDER(
                (
                    *row[:_PLAIN_WIDTH],
                    *values[:json_width],
                    time(row[_TIMES_AT]),
                    time(row[_TIMES_AT + 1]),
                    time(row[_TIMES_AT + 2]),
                )
            )
        )
        records.append(record)
        position = json_width
        if shape.bindings:
            bound = values[position]
            position += 1
            if bound:
                if shape.spaces:
                    bound.sort()
                    for space in bound:
                        if space[0] not in spaces:
                            spaces[space[0]] = _space_record(
                                (space[0], space[1], space[2], bool(space[3]), time(space[4]))
                            )
                    links.tool_spaces[record.tool_id] = [space[0] for space in bound]
                else:
                    links.tool_spaces[record.tool_id] = sorted(bound)
        if shape.server_bindings:
            server_id = record.mcp_server_id
            if server_id is not None and values[position]:
                links.server_spaces[server_id] = sorted(values[position])
    return records


def _postgresql_records(
    rows: Sequence[Any], decoded: list[list[Any] | None], links: PageLinks, shape: _PageShape
) -> list[ToolRow]:
    records = []
    spaces = links.spaces
    for row, values in zip(rows, decoded, strict=True):
        assert values is not None
        # asyncpg's times are in UTC already (``datetime.timezone.utc``): kept as they are.
        times = [
            value if value is None or value.tzinfo is UTC else utc_time(value) for value in row[_TIMES_AT:_JSON_AT]
        ]
        record = _tool_record(_RECORD_ORDER((*row[:_PLAIN_WIDTH], *values, *times)))
        records.append(record)
        position = _AFTER_JSON
        if shape.bindings:
            bound = row[position]
            position += 1
            if bound:
                if shape.spaces:
                    for space in bound:
                        if space[0] not in spaces:
                            created_at = space[4]
                            if created_at is not None and created_at.tzinfo is not UTC:
                                created_at = utc_time(created_at)
                            spaces[space[0]] = _space_record((*space[:4], created_at))
                    links.tool_spaces[record.tool_id] = [space[0] for space in bound]
                else:
                    links.tool_spaces[record.tool_id] = list(bound)
        if shape.server_bindings:
            server_id = record.mcp_server_id
            if server_id is not None and row[position]:
                links.server_spaces[server_id] = list(row[position])
    return records


async def count_tools(
    session: AsyncSession,
    space_id: str | None,
    tool_filter: ToolFilter | None = None,
    *,
    include_inactive: bool = False,
) -> int:
    visibility = tool_visible_somewhere(space_id, include_inactive=include_inactive)
    return await count(session, tools_statement(visibility, tool_filter))


@dataclass(frozen=True)
class ToolListing:
    """The columns a tool listing needs (what an MCP client sees), without the ORM's cost per row."""

    tool_id: str
    name: str
    label: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    static_arguments: dict[str, Any]
    type: str
    side_effect: str


_LISTING_COLUMNS = (
    ToolDefinition.tool_id,
    ToolDefinition.name,
    ToolDefinition.label,
    ToolDefinition.description,
    ToolDefinition.input_schema,
    ToolDefinition.output_schema,
    ToolDefinition.static_arguments,
    ToolDefinition.type,
    ToolDefinition.side_effect,
)


async def visible_tool_listings(
    session: AsyncSession, space_id: str, *, limit: int, tool_ids: Sequence[str] | None = None
) -> list[ToolListing]:
    """The ACTIVE tools visible in ``space_id`` (only ``tool_ids`` when given), by tool id, at most ``limit``."""
    statement = select(*_LISTING_COLUMNS).where(tool_visible_in_space(space_id))
    if tool_ids is not None:
        statement = statement.where(ToolDefinition.tool_id.in_(tool_ids))
    rows = await session.execute(statement.order_by(ToolDefinition.tool_id).limit(limit))
    return [ToolListing(*row) for row in rows.all()]


async def imported_tools(session: AsyncSession, space_id: str, source: str) -> list[ToolDefinition]:
    """The tools a space imported from one document (``import_source``), any status."""
    statement = select(ToolDefinition).where(
        ToolDefinition.owner_space_id == space_id, ToolDefinition.import_source == source
    )
    return list((await session.scalars(statement)).all())


async def get_tool(session: AsyncSession, tool_id: str) -> ToolDefinition | None:
    return await session.get(ToolDefinition, tool_id)


async def tools_by_ids(session: AsyncSession, tool_ids: Sequence[str]) -> list[ToolDefinition]:
    if not tool_ids:
        return []
    statement = select(ToolDefinition).where(ToolDefinition.tool_id.in_(tool_ids))
    return list((await session.scalars(statement)).all())


async def is_tool_visible(
    session: AsyncSession, tool_id: str, space_id: str, *, include_inactive: bool = False
) -> bool:
    statement = select(
        exists().where(
            ToolDefinition.tool_id == tool_id,
            tool_visible_in_space(space_id, include_inactive=include_inactive),
        )
    )
    return bool(await session.scalar(statement))


def _tool_for_call_statement() -> Select[bool, ToolDefinition, bool]:
    space_id, tool_id = bindparam("space_id", type_=String), bindparam("tool_id", type_=String)
    space_exists = select(Space.id).where(Space.id == space_id).exists()
    return (
        select(space_exists.label("space_exists"), ToolDefinition, tool_visible_in_space(space_id).label("visible"))
        .select_from(select(literal(1).label("one")).subquery())
        .outerjoin(ToolDefinition, ToolDefinition.tool_id == tool_id)
    )


# Built once: the gateway runs it on every call, and only its parameters change.
TOOL_FOR_CALL = _tool_for_call_statement()


async def tool_for_call(session: AsyncSession, tool_id: str, space_id: str) -> tuple[bool, ToolDefinition | None, bool]:
    """One round trip for the gateway: (space exists, the tool, ACTIVE and visible in the space)."""
    row = (await session.execute(TOOL_FOR_CALL, {"space_id": space_id, "tool_id": tool_id})).one()
    return bool(row.space_exists), row.ToolDefinition, bool(row.visible) if row.ToolDefinition else False


async def visible_tool_ids(
    session: AsyncSession, space_id: str, tool_ids: Sequence[str], *, include_inactive: bool = False
) -> set[str]:
    """The subset of ``tool_ids`` visible in ``space_id`` (ACTIVE only unless asked otherwise)."""
    if not tool_ids:
        return set()
    statement = select(ToolDefinition.tool_id).where(
        ToolDefinition.tool_id.in_(tool_ids),
        tool_visible_in_space(space_id, include_inactive=include_inactive),
    )
    return set((await session.scalars(statement)).all())


async def name_taken(
    session: AsyncSession, name: str, space_ids: Sequence[str] | None, exclude_tool_id: str | None = None
) -> bool:
    """A non-archived BUILTIN/CUSTOM tool with ``name`` is visible in any of ``space_ids``.

    ``space_ids=None`` stands for a global tool, which clashes with every such tool.
    MCP tools are namespaced by their server and never clash.
    """
    statement = select(ToolDefinition.tool_id).where(
        ToolDefinition.name == name,
        ToolDefinition.mcp_server_id.is_(None),
        ToolDefinition.status != "ARCHIVED",
    )
    if exclude_tool_id is not None:
        statement = statement.where(ToolDefinition.tool_id != exclude_tool_id)
    if space_ids is not None:
        statement = statement.where(
            or_(*(tool_visible_in_space(space_id, include_inactive=True) for space_id in space_ids))
        )
    return (await session.scalar(statement.limit(1))) is not None


async def _space_ids_by_owner(
    session: AsyncSession, owner: InstrumentedAttribute[str], space: InstrumentedAttribute[str], ids: Sequence[str]
) -> dict[str, list[str]]:
    """Bound space ids per owner id, in one ``IN (...)`` query (missing key: no rows)."""
    result: dict[str, list[str]] = defaultdict(list)
    if not ids:
        return result
    statement = select(owner, space).where(owner.in_(ids)).order_by(owner, space)
    for owner_id, space_id in (await session.execute(statement)).all():
        result[owner_id].append(space_id)
    return result


async def tool_bindings(session: AsyncSession, tool_ids: Sequence[str]) -> dict[str, list[str]]:
    """Bound space ids per tool id (missing key: no rows)."""
    return await _space_ids_by_owner(session, ToolSpaceBinding.tool_id, ToolSpaceBinding.space_id, tool_ids)


async def server_bindings(session: AsyncSession, server_ids: Sequence[str]) -> dict[str, list[str]]:
    """Bound space ids per MCP server id (missing key: no rows)."""
    return await _space_ids_by_owner(
        session, McpServerSpaceBinding.server_id, McpServerSpaceBinding.space_id, server_ids
    )


#: A :class:`SpaceRecord` as a named tuple of :data:`SPACE_COLUMNS` (see :data:`ToolRecord`).
SpaceRow = namedtuple("SpaceRow", [column.name for column in SPACE_COLUMNS])  # type: ignore[misc]
_space_record = cast(Callable[[Iterable[Any]], SpaceRecord], SpaceRow._make)


async def replace_tool_bindings(session: AsyncSession, tool_id: str, space_ids: Sequence[str]) -> None:
    await session.execute(delete(ToolSpaceBinding).where(ToolSpaceBinding.tool_id == tool_id))
    session.add_all(ToolSpaceBinding(tool_id=tool_id, space_id=space_id) for space_id in space_ids)
    await session.flush()


async def replace_server_bindings(session: AsyncSession, server_id: str, space_ids: Sequence[str]) -> None:
    await session.execute(delete(McpServerSpaceBinding).where(McpServerSpaceBinding.server_id == server_id))
    session.add_all(McpServerSpaceBinding(server_id=server_id, space_id=space_id) for space_id in space_ids)
    await session.flush()


async def has_tool_bindings(session: AsyncSession, tool_id: str) -> bool:
    statement = select(exists().where(ToolSpaceBinding.tool_id == tool_id))
    return bool(await session.scalar(statement))


# ---------------------------------------------------------------- MCP servers


def _server_visible(space_id: str) -> ColumnElement[bool]:
    return or_(
        ~exists().where(McpServerSpaceBinding.server_id == McpServer.id),
        exists().where(
            McpServerSpaceBinding.server_id == McpServer.id,
            McpServerSpaceBinding.space_id == space_id,
        ),
    )


def _servers_statement(space_id: str | None) -> Select[McpServer]:
    statement = select(McpServer)
    if space_id is not None:
        statement = statement.where(_server_visible(space_id))
    return statement


async def list_servers(session: AsyncSession, space_id: str | None, page: PageRequest) -> Page[McpServer]:
    return await fetch_page(session, _servers_statement(space_id), McpServer.id, page)


async def count_servers(session: AsyncSession, space_id: str | None) -> int:
    return await count(session, _servers_statement(space_id))


async def get_server(session: AsyncSession, server_id: str) -> McpServer | None:
    return await session.get(McpServer, server_id)


async def is_server_visible(session: AsyncSession, server_id: str, space_id: str) -> bool:
    statement = select(exists().where(McpServer.id == server_id, _server_visible(space_id)))
    return bool(await session.scalar(statement))


async def servers_by_ids(session: AsyncSession, server_ids: Sequence[str]) -> list[McpServer]:
    if not server_ids:
        return []
    statement = select(McpServer).where(McpServer.id.in_(server_ids))
    return list((await session.scalars(statement)).all())


async def get_server_by_name(session: AsyncSession, name: str) -> McpServer | None:
    return await session.scalar(select(McpServer).where(McpServer.name == name))
