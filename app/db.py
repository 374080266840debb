"""Declarative base, column types and the async engine / session factory."""

from __future__ import annotations

import contextlib
import hashlib
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, MetaData, event, literal, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import TypeDecorator

from app import jsoncodec

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: JSON everywhere, JSONB on PostgreSQL.
JsonType = JSON().with_variant(JSONB(), "postgresql")


class UtcDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite stores them naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class DatabaseUnavailableError(SQLAlchemyError):
    """The database did not answer: the connection was refused, broken or reset, or a
    statement (or connect) outlasted ``QUIVER_DATABASE_TIMEOUT_S``. Clients are told to try
    again (``DATABASE_UNAVAILABLE``) rather than shown an internal error."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the database did not answer ({reason})")
        self.reason = reason


#: How long a SQLite statement waits for another connection's lock before ``database is locked``.
SQLITE_BUSY_TIMEOUT_MS = 5000


def create_engine(database_url: str, *, timeout_s: float | None = None) -> AsyncEngine:
    """``timeout_s``: longest a PostgreSQL statement or connect may take (``QUIVER_DATABASE_TIMEOUT_S``
    for the server; None, the CLI's default: no bound). Without it a hung server or a black-holed
    link held a request (a mutation has no other deadline) until the database came back."""
    is_postgresql = database_url.startswith("postgresql")
    connect_args: dict[str, Any] = {}
    if is_postgresql:
        # JIT compilation costs tens of ms on the catalog's short OLTP queries (counts especially).
        connect_args["server_settings"] = {"jit": "off"}
        if timeout_s:
            connect_args["command_timeout"] = timeout_s
            connect_args["timeout"] = timeout_s
    engine = create_async_engine(
        database_url,
        # A pre-ping costs a round trip per checkout (the gateway checks out twice per call);
        # recycling connections guards against server-side idle timeouts instead.
        pool_recycle=1800 if is_postgresql else -1,
        connect_args=connect_args,
        # Every JSON column (schemas, arguments, results) through orjson: a tenth of a listing's time was json.loads.
        json_serializer=jsoncodec.dumps,
        json_deserializer=jsoncodec.loads,
    )
    event.listen(engine.sync_engine, "handle_error", _unavailable_database)
    event.listen(engine.sync_engine, "do_connect", _connect)
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine.sync_engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            # With WAL, NORMAL never corrupts the database; a power cut may lose the last commits.
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            cursor.close()
            # SQLite's lower() folds ASCII only; case-insensitive search must fold "É" too.
            dbapi_connection.create_function("lower", 1, _unicode_lower, deterministic=True)

        _skip_empty_ends(engine.dialect)
    return engine


def _skip_empty_ends(dialect: Any) -> None:
    """SQLite: a commit or rollback with no transaction open is not sent to the driver's thread.

    A read opens no transaction on SQLite (the driver begins one before a write only), so ending
    a read session (SQLAlchemy rolls back on close) is a no-op for SQLite, yet aiosqlite hands it
    to its thread and back: about a tenth of a rendered listing page's time. With a transaction
    open (``in_transaction``, SQLite's own state), both are sent exactly as before."""
    commit, rollback = dialect.do_commit, dialect.do_rollback

    def do_commit(dbapi_connection: Any) -> None:
        if _in_transaction(dbapi_connection):
            commit(dbapi_connection)

    def do_rollback(dbapi_connection: Any) -> None:
        if _in_transaction(dbapi_connection):
            rollback(dbapi_connection)

    dialect.do_commit, dialect.do_rollback = do_commit, do_rollback


def _in_transaction(dbapi_connection: Any) -> bool:
    """Whether SQLite has a transaction open on the connection (True when that cannot be read)."""
    driver = getattr(dbapi_connection, "driver_connection", None)
    try:
        return bool(driver.in_transaction)  # type: ignore[union-attr]
    except Exception:  # no driver connection (closed), or a driver without the property
        return True


#: What a connection that broke, or did not answer in time, raises through the driver.
_CONNECTION_FAILURES = (OSError, TimeoutError)


def _unavailable_database(context: ExceptionContext) -> BaseException | None:
    """A statement or connect that failed because the database is away (not because of the
    statement) raises :class:`DatabaseUnavailableError`; a timed-out connection is dropped
    (its statement may still run), as a broken one already is."""
    original = context.original_exception
    if not isinstance(original, Exception):
        # A cancelled statement (the request's deadline, a client gone) or an interpreter exit:
        # SQLAlchemy drops the connection as it would a broken one, but the database is not away.
        return None
    if isinstance(original, _CONNECTION_FAILURES) or context.is_disconnect:
        context.is_disconnect = True
        reason = type(original).__name__
        return DatabaseUnavailableError(reason).with_traceback(None)
    return None


def _connect(dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
    """The dialect's own connect, with a refused, reset or timed-out connect raised as
    :class:`DatabaseUnavailableError` (the driver raises those raw, and connect failures that
    are not the driver's own errors never reach ``handle_error``)."""
    try:
        return dialect.loaded_dbapi.connect(*cargs, **cparams)
    except _CONNECTION_FAILURES as error:
        raise DatabaseUnavailableError(type(error).__name__) from error


def is_database_unavailable(error: BaseException) -> bool:
    """``error`` (or what it was raised from) says the database is away."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, DatabaseUnavailableError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _unicode_lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


async def discard_connection(connection: AsyncConnection | None) -> None:
    """Drop a connection whose state is unknown (a write failed or was cancelled half-way):
    invalidated, so that the pool never hands it out again, then closed; what fails on the way
    is ignored (the connection may be broken already)."""
    if connection is None:
        return
    with contextlib.suppress(Exception):
        await connection.invalidate()
    with contextlib.suppress(Exception):
        await connection.close()


async def lock_name(session: AsyncSession, kind: str, name: str) -> None:
    """Hold, until this transaction ends, the right to create (or rename to) the ``kind`` named
    ``name``: a name checked free after this stays free until the insert commits, whatever
    other requests (or replicas) create at the same time. Check the name after calling it.

    PostgreSQL: a transaction advisory lock on a hash of both (READ COMMITTED lets two
    transactions each find the name free, then both insert: twelve tools of one name from
    thirty simultaneous createTool calls). SQLite: the database's one write lock, taken now
    (other writers wait up to ``busy_timeout``), so the check sees every committed insert.
    """
    if session.get_bind().dialect.name == "postgresql":
        digest = hashlib.blake2b(f"{kind}\0{name}".encode(), digest_size=8).digest()
        key = int.from_bytes(digest, "big", signed=True)
        await session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
    else:
        await sqlite_write_lock(session)


async def sqlite_write_lock(session: AsyncSession) -> None:
    """SQLite: take the database's write lock now, for the rest of the transaction. Reads
    before a transaction's first write see no lock (each is a snapshot of its own), so two
    transactions may read the same state and both write from it; after this they cannot."""
    # A write matching no row: SQLite takes the write lock for the statement all the same.
    await session.execute(text("UPDATE space SET name = name WHERE id IS NULL"))


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


class JsonArrayContains(ColumnElement[bool]):
    """``value`` is an element of the JSON array in ``column`` (portable SQLite/PostgreSQL)."""

    inherit_cache = True
    type = Boolean()

    def __init__(self, column: Any, value: str) -> None:
        self.column = column
        self.value = literal(value)


@compiles(JsonArrayContains, "sqlite")
def _json_contains_sqlite(element: JsonArrayContains, compiler: Any, **kw: Any) -> str:
    column = compiler.process(element.column, **kw)
    value = compiler.process(element.value, **kw)
    return f"EXISTS (SELECT 1 FROM json_each({column}) WHERE json_each.value = {value})"


@compiles(JsonArrayContains, "postgresql")
def _json_contains_postgresql(element: JsonArrayContains, compiler: Any, **kw: Any) -> str:
    column = compiler.process(element.column, **kw)
    value = compiler.process(element.value, **kw)
    return f"jsonb_exists({column}, {value})"
