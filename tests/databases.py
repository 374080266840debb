"""Test databases: a migrated SQLite file always, a migrated PostgreSQL database when reachable.

Under ``CI=true`` PostgreSQL must be reachable: its absence fails the run instead of
skipping it.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import asyncpg
import pytest
from sqlalchemy.engine import make_url

POSTGRES_ADMIN_URL = os.environ.get("QUIVER_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
IS_CI = os.environ.get("CI", "").lower() == "true"


def _dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _postgres_reachable() -> str | None:
    try:
        connection = await asyncpg.connect(_dsn(POSTGRES_ADMIN_URL), timeout=3)
    except (TimeoutError, OSError, asyncpg.PostgresError) as error:
        return f"{type(error).__name__}: {error}"
    await connection.close()
    return None


def require_postgres() -> None:
    """Skip (locally) or fail (CI) when PostgreSQL cannot be reached."""
    problem = asyncio.run(_postgres_reachable())
    if problem is None:
        return
    message = f"PostgreSQL at {POSTGRES_ADMIN_URL} is unreachable ({problem})"
    if IS_CI:
        pytest.fail(message + "; CI=true requires it", pytrace=False)
    pytest.skip(message)


async def _execute_admin(statement: str) -> None:
    connection = await asyncpg.connect(_dsn(POSTGRES_ADMIN_URL))
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


@contextmanager
def postgres_database(prefix: str = "quiver_test") -> Iterator[str]:
    """A fresh, empty PostgreSQL database for the duration of the block."""
    require_postgres()
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"
    asyncio.run(_execute_admin(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(POSTGRES_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(_execute_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@contextmanager
def sqlite_database(directory: str) -> Iterator[str]:
    yield f"sqlite+aiosqlite:///{directory}/quiver-test-{secrets.token_hex(3)}.db"


@contextmanager
def database(backend: str, directory: str) -> Iterator[str]:
    if backend == "postgresql":
        with postgres_database() as url:
            yield url
    else:
        with sqlite_database(directory) as url:
            yield url


BACKENDS = ["sqlite", "postgresql"]


REDIS_URL = os.environ.get("QUIVER_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


async def _redis_reachable() -> str | None:
    import redis.asyncio as redis

    client = redis.from_url(REDIS_URL, socket_connect_timeout=3)
    try:
        await client.ping()
    except (OSError, redis.RedisError) as error:
        return f"{type(error).__name__}: {error}"
    finally:
        await client.aclose()
    return None


async def require_redis() -> str:
    """The Redis URL for tests; skip (locally) or fail (CI) when Redis cannot be reached."""
    problem = await _redis_reachable()
    if problem is not None:
        message = f"Redis at {REDIS_URL} is unreachable ({problem})"
        if IS_CI:
            pytest.fail(message + "; CI=true requires it", pytrace=False)
        pytest.skip(message)
    return REDIS_URL
