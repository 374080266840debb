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
import json
import logging
import re
from collections.abc import Callable
from typing import Any, overload

from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.db import DatabaseUnavailableError, discard_connection
from app.gateway.repository import INSERT_CALL

logger = logging.getLogger(__name__)

#: Rows per statement; SQLite allows 32,766 bound parameters (18 columns per row).
MAX_BATCH = 200
#: Default cap of each stored value (QUIVER_CALL_LOG_MAX_BYTES).
DEFAULT_MAX_BYTES = 64 * 1024
#: The key of the object that stands for a JSON value stored cut or left out.
TRUNCATED = "$truncated"
_CUT_TEXT = re.compile(r" … \[truncated: \d+ bytes\]\Z")
#: What a reduced row keeps of the error message (a row the database refused in full).
REDUCED_MESSAGE_BYTES = 1000


def _is_connection_failure(error: Exception) -> bool:
    """What the driver itself raises (this writer talks to it directly) when the database is away:
    the connection refused, reset or timed out, or asyncpg's lost-connection errors."""
    if isinstance(error, OSError | TimeoutError):
        return True
    module = type(error).__module__
    return module.startswith("asyncpg") and type(error).__name__ in (
        "ConnectionDoesNotExistError",
        "InterfaceError",
        "ConnectionFailureError",
    )


def bounded_value(value: Any, max_bytes: int) -> Any:
    """``value``, or past ``max_bytes`` of JSON the marker ``{"$truncated": {"originalBytes": n},
    "preview": <its JSON text, cut>}``."""
    if value is None or isinstance(value, bool | int | float):
        return value
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if len(text) * 4 <= max_bytes:
        return value
    encoded = text.encode("utf-8", "replace")
    if len(encoded) <= max_bytes:
        return value
    preview = encoded[: max(max_bytes - 200, 0)].decode("utf-8", "ignore")
    return {TRUNCATED: {"originalBytes": len(encoded)}, "preview": preview}


@overload
def bounded_text(text: str, max_bytes: int) -> str: ...
@overload
def bounded_text(text: None, max_bytes: int) -> None: ...
@overload
def bounded_text(text: str | None, max_bytes: int) -> str | None: ...
def bounded_text(text: str | None, max_bytes: int) -> str | None:
    """``text``, or its first ``max_bytes`` bytes and `` … [truncated: n bytes]``."""
    if text is None or len(text) * 4 <= max_bytes:
        return text
    encoded = text.encode("utf-8", "replace")
    if len(encoded) <= max_bytes:
        return text
    return encoded[:max_bytes].decode("utf-8", "ignore") + f" … [truncated: {len(encoded)} bytes]"


def bounded_row(row: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """The row as stored: arguments, result, error message and detail each within ``max_bytes``."""
    return {
        **row,
        "arguments": bounded_value(row["arguments"], max_bytes),
        "result": bounded_value(row["result"], max_bytes),
        "error_message": bounded_text(row["error_message"], max_bytes),
        "error_detail": bounded_text(row["error_detail"], max_bytes),
    }


def reduced_row(row: dict[str, Any], reason: str) -> dict[str, Any]:
    """What is still written when the database refused the row: no arguments, result or
    detail, a marker saying why, the error message cut short."""
    return {
        **row,
        "arguments": {TRUNCATED: {"omitted": True, "reason": reason}},
        "result": None,
        "error_message": bounded_text(row["error_message"], REDUCED_MESSAGE_BYTES),
        "error_detail": None,
    }


def is_truncated(arguments: Any, result: Any, *texts: str | None) -> bool:
    """Whether a stored row holds less than the call had (cut or left out)."""
    if any(isinstance(value, dict) and TRUNCATED in value for value in (arguments, result)):
        return True
    return any(text is not None and _CUT_TEXT.search(text) is not None for text in texts)


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
                # The caller decides what follows (the gateway retries, then writes it reduced).
                # An outage in one line; a row refused for what it holds with its stack.
                logger.warning(
                    "could not write a call-log row: %s",
                    error,
                    exc_info=not isinstance(error, DatabaseUnavailableError),
                    extra={"call_id": row.get("id")},
                )
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
        except Exception as error:
            # The connection may be broken (a restarted server): start over on a new one.
            await self._disconnect()
            if _is_connection_failure(error):
                raise DatabaseUnavailableError(type(error).__name__) from error
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
        await discard_connection(connection)

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
