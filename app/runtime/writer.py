"""A run's own writes: the UPDATE of its row guarded by ownership, with the trace stages (and
conversation turns) that go with it, in one transaction.

On SQLite they go straight on aiosqlite, on one connection of the writer's own, one write at
a time in this process: three thread hops (UPDATE, INSERT, COMMIT) where SQLAlchemy takes
eight (a cursor and its close per statement, the pool's rollback on return), and runs of this
process never wait for each other's write lock in SQLite's busy handler, which sleeps a
millisecond and more per try. The SQL and the value conversions are SQLAlchemy's own for the
tables, compiled once for the dialect (like the call log's, ``app.gateway.call_log``), so the
rows read back through the ORM exactly as if the ORM had written them. Any other database
(PostgreSQL: its round trips are the same either way) goes through SQLAlchemy Core on a
pooled connection.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple, cast

from sqlalchemy import Table, bindparam, insert, select, update
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
        self._steps = processors

    def parameters(self, values: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(process(values[key]) if process else values[key] for key, process in self._steps)


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

    async def write(
        self,
        run_id: str,
        owner_id: str,
        values: dict[str, Any],
        *,
        stages: Sequence[dict[str, Any]] = (),
        turns: Sequence[dict[str, Any]] = (),
    ) -> bool:
        """Write ``values`` on the run, and add its stages and turns, if this replica still owns
        it and it is RUNNING; False (nothing written) when it does not."""
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
