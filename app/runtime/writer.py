"""A run's own writes: the UPDATE of its row guarded by ownership, with the trace stages (and
conversation turns) that go with it, in one transaction.

On SQLite they go straight on aiosqlite, on one connection of the writer's own, one write at
a time in this process: three thread hops (UPDATE, INSERT, COMMIT) where SQLAlchemy takes
eight (a cursor and its close per statement, the pool's rollback on return), and runs of this
process never wait for each other's write lock in SQLite's busy handler, which sleeps a
millisecond and more per try. The SQL and the value conversions are SQLAlchemy's own for the
tables, compiled once for the dialect (like the call log's, ``app.gateway.call_log``), so the
rows read back through the ORM exactly as if the ORM had written them.

On PostgreSQL (asyncpg) each write is one statement, autocommitted, on a pooled connection's
driver: one round trip where BEGIN, UPDATE, INSERT, COMMIT took four (and every round trip
costs a wake-up of the server's backend, milliseconds on a busy machine). The guarded UPDATE
returns the run's id and the stages and turns are inserted, from one array per column, only
when it did (``WITH run AS (UPDATE … RETURNING id), stages AS (INSERT … SELECT … FROM
unnest(…) WHERE EXISTS (SELECT 1 FROM run)) SELECT count(*) FROM run``): the same all-or-none
as the transaction, since a statement is its own transaction. A run's insert and the read of
its agent's notifications are one statement too. Any other database goes through SQLAlchemy
Core on a pooled connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, NamedTuple, cast

from sqlalchemy import JSON, Table, bindparam, insert, select, update
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

from app.db import discard_connection
from app.runtime.models import AgentMessage, AgentRun, AgentSessionMessage, RunStage

RUNNING = "RUNNING"
_RUNS = cast(Table, AgentRun.__table__)
_STAGES = cast(Table, RunStage.__table__)
_TURNS = cast(Table, AgentSessionMessage.__table__)
_MESSAGES = cast(Table, AgentMessage.__table__)
# What an agent was told by other agents and has not seen yet (``bt_send_message`` notify).
_PENDING_NOTIFICATIONS = (
    select(_MESSAGES.c.id, _MESSAGES.c.from_agent_id, _MESSAGES.c.content)
    .where(
        _MESSAGES.c.to_agent_id == bindparam("agent_id", type_=_MESSAGES.c.to_agent_id.type),
        _MESSAGES.c.type == bindparam("kind", type_=_MESSAGES.c.type.type),
        _MESSAGES.c.status == bindparam("status", type_=_MESSAGES.c.status.type),
    )
    .order_by(_MESSAGES.c.id)
)
_NOTIFY = {"kind": "notify", "status": "PENDING"}


class Notification(NamedTuple):
    """A message another agent left for this one (the columns a prompt needs)."""

    id: str
    from_agent_id: str | None
    content: str


class _Compiled:
    """A statement for one dialect: its SQL and, per set of values, the driver's parameters."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect))
        self.sql = str(compiled)
        processors: list[tuple[str, Callable[[Any], Any] | None]] = []
        for name in compiled.positiontup or []:
            bind = compiled.binds[name]
            processors.append((bind.key, bind.type.dialect_impl(dialect).bind_processor(dialect)))
        self.steps = processors

    def parameters(self, values: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(process(values[key]) if process else values[key] for key, process in self.steps)


_PARAMETER = re.compile(r"\$(\d+)")


def _shifted(sql: str, by: int) -> str:
    """``sql`` (numbered parameters, as asyncpg takes them) with every ``$n`` renumbered ``$n+by``."""
    return _PARAMETER.sub(lambda match: f"${int(match.group(1)) + by}", sql)


class _PostgresWrite:
    """One write as one PostgreSQL statement: the guarded UPDATE of the run (``RETURNING id``)
    and, when it updated the run, the inserts of its stages and turns, each from one array
    parameter per column (so the statement, and asyncpg's prepared statement, is the same
    whatever the number of rows). Answers how many runs it updated (1 or 0)."""

    def __init__(
        self, keys: Sequence[str], tables: Sequence[Table], dialect: Dialect, *, skip_existing: bool = False
    ) -> None:
        update = _Compiled(_guarded_update(keys).returning(_RUNS.c.id), dialect)
        self._update = update
        count = len(update.steps)
        quote = dialect.identifier_preparer.quote
        parts = [f"WITH run AS ({update.sql})"]
        self._tables: list[tuple[str, list[tuple[str, Callable[[Any], Any] | None]]]] = []
        for table in tables:
            names = [quote(column.name) for column in table.columns]
            arrays: list[str] = []
            selected: list[str] = []
            columns: list[tuple[str, Callable[[Any], Any] | None]] = []
            for name, column in zip(names, table.columns, strict=True):
                count += 1
                implementation = column.type.dialect_impl(dialect)
                sql_type = column.type.compile(dialect=dialect)
                if isinstance(implementation, JSON):
                    # JSON goes as its text (what SQLAlchemy's serializer made of it), cast per row.
                    arrays.append(f"${count}::TEXT[]")
                    selected.append(f"r.{name}::{sql_type}")
                else:
                    arrays.append(f"${count}::{sql_type}[]")
                    selected.append(f"r.{name}")
                columns.append((column.key, implementation.bind_processor(dialect)))
            parts.append(
                f", {table.name} AS (INSERT INTO {quote(table.name)} ({', '.join(names)}) "
                f"SELECT {', '.join(selected)} FROM unnest({', '.join(arrays)}) AS r({', '.join(names)}) "
                "WHERE EXISTS (SELECT 1 FROM run)" + (" ON CONFLICT (id) DO NOTHING)" if skip_existing else ")")
                # Rows another write of the run may have stored already (see RunWriter.write).
            )
            self._tables.append((table.name, columns))
        parts.append(" SELECT count(*) FROM run")
        self.sql = "".join(parts)

    def parameters(self, values: dict[str, Any], rows: dict[str, Sequence[dict[str, Any]]]) -> list[Any]:
        parameters = list(self._update.parameters(values))
        for name, columns in self._tables:
            table_rows = rows[name]
            for key, process in columns:
                if process is None:
                    parameters.append([row[key] for row in table_rows])
                else:
                    parameters.append([process(row[key]) for row in table_rows])
        return parameters


def _guarded_update(keys: Sequence[str]) -> Any:
    return (
        update(_RUNS)
        .where(
            _RUNS.c.id == bindparam("w_id", type_=_RUNS.c.id.type),
            _RUNS.c.owner_id == bindparam("w_owner", type_=_RUNS.c.owner_id.type),
            _RUNS.c.status == bindparam("w_status", type_=_RUNS.c.status.type),
        )
        .values({key: bindparam(f"v_{key}", type_=_RUNS.c[key].type) for key in keys})
    )


class RunWriter:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._on_driver = engine.dialect.name == "sqlite"
        self._on_postgres = engine.dialect.name == "postgresql" and engine.dialect.driver == "asyncpg"
        self._postgres_writes: dict[tuple[tuple[str, ...], bool, bool, bool], _PostgresWrite] = {}
        self._postgres_create: tuple[str, _Compiled, _Compiled] | None = None
        self._lock = asyncio.Lock()
        self._connection: AsyncConnection | None = None
        self._driver: Any = None
        self._updates: dict[tuple[str, ...], _Compiled] = {}
        self._inserts: dict[str, _Compiled] = {}
        self._closed = False

    async def create(self, row: dict[str, Any]) -> list[Notification]:
        """Insert a new run (every column of ``agent_run`` in ``row``) and, in the same
        transaction, read its agent's pending notifications for the run's first prompt."""
        agent = {"agent_id": row["agent_id"], **_NOTIFY}
        if self._on_postgres:
            return [Notification(*item) for item in await self._create_on_postgres(row, agent)]
        if not self._on_driver or self._closed:
            async with self.engine.begin() as connection:
                await connection.execute(insert(_RUNS), row)
                found = (await connection.execute(_PENDING_NOTIFICATIONS, agent)).all()
            return [Notification(*item) for item in found]
        async with self._lock:
            try:
                driver = await self._connect()
                statement = self._compiled("insert:agent_run", lambda: insert(_RUNS))
                # BEGIN DEFERRED, then the INSERT takes the write lock: the read after it cannot go stale.
                await driver.execute(statement.sql, statement.parameters(row))
                query = self._compiled("select:notifications", lambda: _PENDING_NOTIFICATIONS)
                cursor = await driver.execute(query.sql, query.parameters(agent))
                found = await cursor.fetchall()
                await driver.commit()
            except BaseException:
                await asyncio.shield(self._disconnect())
                raise
        return [Notification(*item) for item in found]

    def _compiled(self, name: str, build: Callable[[], ClauseElement]) -> _Compiled:
        compiled = self._inserts.get(name)
        if compiled is None:
            compiled = self._inserts[name] = _Compiled(build(), self.engine.dialect)
        return compiled

    @property
    def overtakes(self) -> bool:
        """Whether a write may be sent while an earlier write of the same run is still under way
        (``write(..., overtaking=True)``): on PostgreSQL, where each is one statement and the
        run's row lock orders them on the server. Elsewhere a write waits for the earlier one."""
        return self._on_postgres

    async def write(
        self,
        run_id: str,
        owner_id: str,
        values: dict[str, Any],
        *,
        stages: Sequence[dict[str, Any]] = (),
        turns: Sequence[dict[str, Any]] = (),
        overtaking: bool = False,
    ) -> bool:
        """Write ``values`` on the run, and add its stages and turns, if this replica still owns
        it and it is RUNNING; False (nothing written) when it does not.

        ``overtaking`` (only where :attr:`overtakes`): sent while an earlier write of the run,
        whose stages ``stages`` repeats, may still be under way; stages already stored by it are
        left as they are. Whichever commits first, the stages are stored once: the earlier write
        first, and this one skips them; this one first, and the earlier one, finding the run no
        longer RUNNING, writes nothing."""
        if self._on_postgres:
            return await self._write_on_postgres(run_id, owner_id, values, stages, turns, overtaking)
        if overtaking:
            raise ValueError("only a PostgreSQL write may overtake another")
        if not self._on_driver or self._closed:
            async with self.engine.begin() as connection:
                return await write_with(connection, run_id, owner_id, values, stages=stages, turns=turns)
        async with self._lock:
            try:
                return await self._write_on_driver(run_id, owner_id, values, stages, turns)
            except BaseException:
                # Whatever happened (a failed statement, a cancelled caller), nothing of this write
                # may stay open on the connection for the next one: start over on a fresh one.
                await asyncio.shield(self._disconnect())
                raise

    async def _write_on_driver(
        self,
        run_id: str,
        owner_id: str,
        values: dict[str, Any],
        stages: Sequence[dict[str, Any]],
        turns: Sequence[dict[str, Any]],
    ) -> bool:
        driver = await self._connect()
        dialect = self.engine.dialect
        keys = tuple(sorted(values))
        statement = self._updates.get(keys)
        if statement is None:
            statement = self._updates[keys] = _Compiled(_guarded_update(keys), dialect)
        parameters = {f"v_{key}": value for key, value in values.items()}
        parameters.update(w_id=run_id, w_owner=owner_id, w_status=RUNNING)
        # The sqlite3 module opens the transaction (BEGIN DEFERRED) before the UPDATE, which
        # takes the write lock at once: nothing is read before writing, so it cannot go stale.
        cursor = await driver.execute(statement.sql, statement.parameters(parameters))
        if cursor.rowcount != 1:
            await driver.rollback()
            return False
        for table, rows in ((_STAGES, stages), (_TURNS, turns)):
            if rows:
                compiled = self._compiled(f"insert:{table.name}", partial(insert, table))
                await driver.executemany(compiled.sql, [compiled.parameters(row) for row in rows])
        await driver.commit()
        return True

    async def _on_pooled_driver(self, work: Callable[[Any], Awaitable[Any]]) -> Any:
        """``work`` on the asyncpg connection of a pooled connection, in autocommit (asyncpg's own
        mode: SQLAlchemy opened no transaction on it). A connection whose statement failed half-way
        or was cancelled is not given back to the pool."""
        connection = await self.engine.connect()
        try:
            raw = await connection.get_raw_connection()
            result = await work(raw.driver_connection)
        except BaseException:
            await asyncio.shield(discard_connection(connection))
            raise
        await connection.close()
        return result

    async def _create_on_postgres(self, row: dict[str, Any], agent: dict[str, Any]) -> list[Any]:
        if self._postgres_create is None:
            dialect = self.engine.dialect
            run = _Compiled(insert(_RUNS), dialect)
            query = _Compiled(_PENDING_NOTIFICATIONS, dialect)
            # One statement: the insert commits with the read (which does not need to see it).
            sql = f"WITH new_run AS ({run.sql}) {_shifted(query.sql, len(run.steps))}"
            self._postgres_create = (sql, run, query)
        sql, run, query = self._postgres_create
        parameters = (*run.parameters(row), *query.parameters(agent))
        return cast(list[Any], await self._on_pooled_driver(lambda driver: driver.fetch(sql, *parameters)))

    async def _write_on_postgres(
        self,
        run_id: str,
        owner_id: str,
        values: dict[str, Any],
        stages: Sequence[dict[str, Any]],
        turns: Sequence[dict[str, Any]],
        overtaking: bool,
    ) -> bool:
        keys = tuple(sorted(values))
        shape = (keys, bool(stages), bool(turns), overtaking)
        statement = self._postgres_writes.get(shape)
        if statement is None:
            tables = [table for table, rows in ((_STAGES, stages), (_TURNS, turns)) if rows]
            statement = self._postgres_writes[shape] = _PostgresWrite(
                keys, tables, self.engine.dialect, skip_existing=overtaking
            )
        parameters = {f"v_{key}": value for key, value in values.items()}
        parameters.update(w_id=run_id, w_owner=owner_id, w_status=RUNNING)
        arguments = statement.parameters(parameters, {_STAGES.name: stages, _TURNS.name: turns})
        updated = await self._on_pooled_driver(lambda driver: driver.fetchval(statement.sql, *arguments))
        return bool(updated == 1)

    async def _connect(self) -> Any:
        if self._driver is None:
            connection = await self.engine.connect()
            try:
                raw = await connection.get_raw_connection()
            except BaseException:
                await connection.close()
                raise
            self._connection, self._driver = connection, raw.driver_connection
        return self._driver

    async def _disconnect(self) -> None:
        self._driver = None
        connection, self._connection = self._connection, None
        await discard_connection(connection)

    async def close(self) -> None:
        """Wait for the write under way, then give the connection back (later writes go through SQLAlchemy)."""
        self._closed = True
        async with self._lock:
            connection, self._connection, self._driver = self._connection, None, None
            if connection is not None:
                with contextlib.suppress(Exception):
                    await connection.close()


async def write_with(
    connection: Any,
    run_id: str,
    owner_id: str,
    values: dict[str, Any],
    *,
    stages: Sequence[dict[str, Any]] = (),
    turns: Sequence[dict[str, Any]] = (),
) -> bool:
    """The same write through SQLAlchemy Core, in the caller's transaction (a connection or a session)."""
    result = await connection.execute(
        update(_RUNS)
        .where(_RUNS.c.id == run_id, _RUNS.c.owner_id == owner_id, _RUNS.c.status == RUNNING)
        .values(**values)
    )
    if int(result.rowcount or 0) != 1:
        return False
    for table, rows in ((_STAGES, stages), (_TURNS, turns)):
        if rows:
            await connection.execute(insert(table), list(rows))
    return True
