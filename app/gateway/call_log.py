"""The call log's writer: every ``tool_call`` row goes through here, by group commit.

A caller hands over its row and waits until the row is committed: durability is
not traded for speed. Rows that arrive while a write is in flight go out together
in the next one, so concurrent calls share round trips. Writes run on one
connection of the writer's own, in autocommit mode: one statement per batch, with
no pool checkout, BEGIN or COMMIT round trips (a session-based insert costs about
twice as much). A batch that fails is retried row by row, on a fresh connection,
so one bad row or a dropped connection costs nobody else their row.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.gateway.repository import INSERT_CALL

logger = logging.getLogger(__name__)

#: Rows per statement; SQLite allows 32,766 bound parameters (18 columns per row).
MAX_BATCH = 200


class CallLogClosedError(RuntimeError):
    """The writer was closed; nothing more can be written."""


class CallLog:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._pending: list[tuple[dict[str, Any], asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._connection: AsyncConnection | None = None
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
                await self._insert([row for row, _ in batch])
            except Exception:
                await self._insert_one_by_one(batch)
            else:
                for _, future in batch:
                    if not future.done():
                        future.set_result(None)

    async def _insert_one_by_one(self, batch: list[tuple[dict[str, Any], asyncio.Future[None]]]) -> None:
        for row, future in batch:
            try:
                await self._insert([row])
            except Exception as error:
                logger.exception("could not write a call-log row", extra={"call_id": row.get("id")})
                if not future.done():
                    future.set_exception(error)
            else:
                if not future.done():
                    future.set_result(None)

    async def _insert(self, rows: list[dict[str, Any]]) -> None:
        connection = await self._connect()
        try:
            await connection.execute(INSERT_CALL, rows)
        except Exception:
            # The connection may be broken (a restarted server): start over on a new one.
            await self._disconnect()
            raise

    async def _connect(self) -> AsyncConnection:
        if self._connection is None:
            connection = await self.engine.connect()
            self._connection = await connection.execution_options(isolation_level="AUTOCOMMIT")
        return self._connection

    async def _disconnect(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                await connection.invalidate()
            with contextlib.suppress(Exception):
                await connection.close()

    async def close(self) -> None:
        """Write what is pending, then give the connection back."""
        self._closed = True
        if self._flusher is not None:
            with contextlib.suppress(Exception):
                await self._flusher
        if self._connection is not None:
            connection, self._connection = self._connection, None
            with contextlib.suppress(Exception):
                await connection.close()
