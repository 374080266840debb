"""Pieces every benchmark needs: throwaway databases, percentiles, machine facts."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import socket
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from sqlalchemy.engine import make_url

# The split of the matching and retrieval sets written after the tuning: measured, never tuned on.
FRESH = "fresh"


def add_split_argument(parser: argparse.ArgumentParser, tuning_options: Sequence[str]) -> None:
    """``--split held-out|fresh`` for an evaluation whose ``tuning_options`` tune or study a set."""
    parser.add_argument(
        "--split",
        choices=("held-out", FRESH),
        default="held-out",
        help=f"the set measured: held-out half, or fresh split (never tuned on; not with {', '.join(tuning_options)})",
    )


def refuse_tuning_on_fresh(
    parser: argparse.ArgumentParser, arguments: argparse.Namespace, tuning_options: Sequence[str]
) -> None:
    """Exit (status 2) when the fresh split is asked for together with an option that tunes or studies."""
    chosen = [option for option in tuning_options if getattr(arguments, option.lstrip("-").replace("-", "_"))]
    if arguments.split == FRESH and chosen:
        parser.error(f"--split fresh is never tuned on or studied: no {', '.join(chosen)} with it")


DEFAULT_POSTGRES_URL = os.environ.get("QUIVER_BENCH_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")


def percentile(values: Sequence[float], fraction: float) -> float:
    """Linear interpolation between the closest ranks."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    position = fraction * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def load_average() -> float:
    """1-minute load average (0.0 where the OS does not report it)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def version(distribution: str) -> str:
    from importlib.metadata import version as installed

    return installed(distribution)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def asyncpg_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def postgres_problem(admin_url: str) -> str | None:
    """Why PostgreSQL cannot be reached, or None when it can."""
    try:
        connection = await asyncpg.connect(asyncpg_dsn(admin_url), timeout=3)
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        return f"{type(error).__name__}: {error}"
    await connection.close()
    return None


async def postgres_admin(admin_url: str, statement: str) -> None:
    connection = await asyncpg.connect(asyncpg_dsn(admin_url))
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


@contextmanager
def throwaway_database(backend: str, postgres_url: str, label: str, directory: Path | None = None) -> Iterator[str]:
    """A fresh empty database, removed afterwards (like tests/databases.py)."""
    if backend == "sqlite":
        if directory is not None:
            yield f"sqlite+aiosqlite:///{directory}/{label}-{secrets.token_hex(3)}.db"
            return
        with tempfile.TemporaryDirectory(prefix="quiver-bench-") as temporary:
            yield f"sqlite+aiosqlite:///{temporary}/{label}.db"
        return
    name = f"quiver_bench_{os.getpid()}_{secrets.token_hex(3)}"
    asyncio.run(postgres_admin(postgres_url, f'CREATE DATABASE "{name}"'))
    try:
        url = make_url(postgres_url).set(drivername="postgresql+asyncpg", database=name)
        yield url.render_as_string(hide_password=False)
    finally:
        asyncio.run(postgres_admin(postgres_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def graphql_data(status: int, body: bytes) -> dict[str, Any]:
    """The ``data`` of a successful GraphQL response; the run stops on anything else."""
    answer = json.loads(body) if body else {}
    if status != 200 or answer.get("errors") or "data" not in answer:
        raise SystemExit(f"GraphQL failed: {status} {body[:500]!r}")
    data: dict[str, Any] = answer["data"]
    return data


class GraphQL:
    def __init__(self, client: httpx.AsyncClient, key: str) -> None:
        self.client = client
        self.headers = {"Authorization": f"Bearer {key}"}

    async def execute(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        response = await self.client.post(
            "/graphql", json={"query": query, "variables": variables}, headers=self.headers
        )
        return graphql_data(response.status_code, response.content)

    async def mutate(self, query: str, variables: dict[str, Any], name: str) -> dict[str, Any]:
        payload = (await self.execute(query, variables))[name]
        if payload.get("userErrors"):
            raise SystemExit(f"{name}: {payload['userErrors']}")
        result: dict[str, Any] = payload
        return result
