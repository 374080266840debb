"""The call log's writer: every ``tool_call`` row goes through here, by group commit.

A caller hands over its row and waits until the row is committed: durability is
not traded for speed. Rows that arrive while a write is in flight go out together
in the next one, so concurrent calls share round trips.

Writes run on one connection of the writer's own, in autocommit mode, straight on
its driver (aiosqlite, asyncpg): one thread hop or one round trip per batch, with no
pool checkout, BEGIN or COMMIT (a session-based insert costs three to four times as
much). The SQL and the value conversions are SQLAlchemy's own for the table, compiled
once for the engine's dialect, so a row reads back through the ORM exactly as if the
ORM had written it. A batch that fails is retried row by row, on a fresh connection,
so one bad row or a dropped connection costs nobody else their row.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.gateway.repository import INSERT_CALL

logger = logging.getLogger(__name__)

#: Rows per statement; SQLite allows 32,766 bound parameters (18 columns per row).
MAX_BATCH = 200


class CallLogClosedError(RuntimeError):
    """The writer was closed; nothing more can be written."""


class CallLogWriteError(RuntimeError):
    """The database refused a row (the driver's own error is its ``__cause__``)."""


class CompiledInsert:
    """``INSERT_CALL`` for one dialect: its SQL and, per row, the driver's parameters."""

    def __init__(self, dialect: Dialect) -> None:
        compiled = INSERT_CALL.compile(dialect=dialect)
        self.sql = str(compiled)
        columns = INSERT_CALL.table.columns
        keys = compiled.positiontup or []
        processors: list[Callable[[Any], Any] | None] = [
            columns[key].type.dialect_impl(dialect).bind_processor(dialect) for key in keys
        ]
        self._steps = list(zip(keys, processors, strict=True))

    def parameters(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(process(row[key]) if process else row[key] for key, process in self._steps)


class CallLog:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._pending: list[tuple[dict[str, Any], asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._connection: AsyncConnection | None = None
        self._driver: Any = None
        self._compiled: CompiledInsert | None = None
        self._closed = False

    async def write(self, row: dict[str, Any]) -> None:
        """Returns once the row is committed; raises what the database raised for it."""
        if self._closed:
            raise CallLogClosedError("the call log is closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._pending.append((row, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = loop.create_task(self._flush(), name="call-log-writer")
        # A cancelled caller does not cancel its row: the writer task owns it.
        await asyncio.shield(future)

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
            try:
                try:
                    await self._insert([row for row, _ in batch])
                except Exception:
                    await self._insert_one_by_one(batch)
                else:
                    for _, future in batch:
                        if not future.done():
                            future.set_result(None)
            finally:
                # Cancelled mid-batch (the loop is shutting down): nobody may wait forever.
                for _, future in batch:
                    if not future.done():
                        future.set_exception(CallLogClosedError("the call log stopped before this row"))

    async def _insert_one_by_one(self, batch: list[tuple[dict[str, Any], asyncio.Future[None]]]) -> None:
        for row, future in batch:
            try:
                await self._insert([row])
            except Exception as error:
                logger.exception("could not write a call-log row", extra={"call_id": row.get("id")})
                if not future.done():
                    failure = CallLogWriteError(f"call-log row {row.get('id')!r} was not written")
                    failure.__cause__ = error
                    future.set_exception(failure)
            else:
                if not future.done():
                    future.set_result(None)

    async def _insert(self, rows: list[dict[str, Any]]) -> None:
        connection = await self._connect()
        try:
            if self._compiled is None:
                await connection.execute(INSERT_CALL, rows)
            else:
                await self._insert_on_driver([self._compiled.parameters(row) for row in rows])
        except Exception:
            # The connection may be broken (a restarted server): start over on a new one.
            await self._disconnect()
            raise

    async def _insert_on_driver(self, parameters: list[tuple[Any, ...]]) -> None:
        """One row: a single autocommitted statement. More: one transaction, all or none,
        so the row-by-row retry after a failure never meets a row that was committed."""
        assert self._compiled is not None
        sql, driver = self._compiled.sql, self._driver
        if self.engine.dialect.name == "postgresql":  # asyncpg
            if len(parameters) == 1:
                await driver.execute(sql, *parameters[0])
            else:
                async with driver.transaction():
                    await driver.executemany(sql, parameters)
        elif len(parameters) == 1:  # aiosqlite in autocommit mode
            await driver.execute(sql, parameters[0])
        else:
            await driver.execute("BEGIN IMMEDIATE")
            try:
                await driver.executemany(sql, parameters)
            except BaseException:
                await driver.rollback()
                raise
            await driver.commit()

    async def _connect(self) -> AsyncConnection:
        if self._connection is None:
            connection = await self.engine.connect()
            self._connection = await connection.execution_options(isolation_level="AUTOCOMMIT")
            raw = await self._connection.get_raw_connection()
            driver = raw.driver_connection
            known = {"sqlite": "aiosqlite", "postgresql": "asyncpg"}.get(self.engine.dialect.name)
            if known is not None and type(driver).__module__.startswith(known):
                self._driver, self._compiled = driver, CompiledInsert(self.engine.dialect)
            else:  # another driver: through SQLAlchemy
                self._driver, self._compiled = None, None
        return self._connection

    async def _disconnect(self) -> None:
        self._driver = None
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                await connection.invalidate()
            with contextlib.suppress(Exception):
                await connection.close()

    async def close(self) -> None:
        """Write what is pending, then give the connection back."""
        self._closed = True
        if self._flusher is not None and not self._flusher.done():
            await asyncio.wait([self._flusher])  # its outcome went to the callers already
        leftover, self._pending = self._pending, []
        for _, future in leftover:  # only when the writer was cancelled
            if not future.done():
                future.set_exception(CallLogClosedError("the call log closed before this row"))
        if self._connection is not None:
            connection, self._connection = self._connection, None
            with contextlib.suppress(Exception):
                await connection.close()
