"""One hostile tenant beside a quiet one: what the ``hostile_*`` benchmarks share.

A ``quiver serve`` (in-process bus, SQLite) with the settings under test; two spaces, each with a
MEMBER key. The quiet space's key makes invokeTool calls (bt_calculator) one after another over
HTTP, timed alone and then while the hostile space's load (the benchmark's own) is under way.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import httpx

from bench.common import load_average, percentile
from bench.subscription_fanout import IN_PROCESS, Server, start_server, stop_server, wait_until_ready

CREATE_SPACE = (
    "mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } userErrors { message } } }"
)
CREATE_KEY = "mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret userErrors { message } } }"
INVOKE_TOOL = "mutation Call($input: InvokeToolInput!) { invokeTool(input: $input) { status } }"
WARM_UP_CALLS = 30

T = TypeVar("T")


async def graphql(http: httpx.AsyncClient, key: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    response = await http.post(
        "/graphql", json={"query": query, "variables": variables}, headers={"Authorization": f"Bearer {key}"}
    )
    response.raise_for_status()
    body: dict[str, Any] = response.json()
    if body.get("errors"):
        raise SystemExit(f"GraphQL errors: {body['errors']}")
    return body["data"]  # type: ignore[no-any-return]


async def space_with_key(http: httpx.AsyncClient, admin: str, name: str) -> tuple[str, str]:
    created = await graphql(http, admin, CREATE_SPACE, {"input": {"name": name, "label": name}})
    space_id: str = created["createSpace"]["space"]["id"]
    issued = await graphql(http, admin, CREATE_KEY, {"input": {"role": "MEMBER", "spaceId": space_id}})
    return space_id, issued["createApiKey"]["secret"]


async def quiet_calls(http: httpx.AsyncClient, key: str, space_id: str, count: int) -> list[float]:
    """Milliseconds per call, one after another."""
    variables = {"input": {"spaceId": space_id, "toolId": "bt_calculator", "arguments": {"expression": "1 + 1"}}}
    for _ in range(WARM_UP_CALLS):
        await graphql(http, key, INVOKE_TOOL, variables)
    took: list[float] = []
    for _ in range(count):
        started = time.perf_counter()
        answer = await graphql(http, key, INVOKE_TOOL, variables)
        took.append((time.perf_counter() - started) * 1000)
        assert answer["invokeTool"]["status"] == "SUCCESS", answer
    return took


def summary(values: list[float]) -> str:
    return f"p50 {statistics.median(values):6.2f} ms  p99 {percentile(values, 0.99):6.2f} ms"


@dataclass(frozen=True)
class Hostile:
    """The server under test and the hostile space, with its MEMBER key."""

    server: Server
    space_id: str
    key: str


@dataclass(frozen=True)
class QuietTimes(Generic[T]):
    alone: list[float]
    beside: list[float]
    load: T  # what the hostile load's context gave


async def quiet_beside(
    folder: Path,
    settings: dict[str, str],
    names: tuple[str, str],
    calls: int,
    load: Callable[[Hostile], AbstractAsyncContextManager[T]],
) -> QuietTimes[T]:
    """A server with ``settings`` (its files in ``folder``, made here) and spaces ``names`` (hostile,
    quiet): the quiet tenant's ``calls`` timed alone, then inside ``load`` (entered once the hostile
    load is under way, left to stop it)."""
    await asyncio.to_thread(folder.mkdir)
    server = start_server(IN_PROCESS, folder, None, settings)
    try:
        await asyncio.to_thread(wait_until_ready, server)
        async with httpx.AsyncClient(base_url=server.http_url, timeout=60, trust_env=False) as http:
            hostile_space, hostile_key = await space_with_key(http, server.admin_key, names[0])
            quiet_space, quiet_key = await space_with_key(http, server.admin_key, names[1])
            alone = await quiet_calls(http, quiet_key, quiet_space, calls)
            async with load(Hostile(server, hostile_space, hostile_key)) as loaded:
                beside = await quiet_calls(http, quiet_key, quiet_space, calls)
        return QuietTimes(alone, beside, loaded)
    finally:
        stop_server(server)


async def quiet_beside_each(
    variable: str, values: str, hostile_name: str, calls: int, load: Callable[[Hostile], AbstractAsyncContextManager[T]]
) -> AsyncIterator[tuple[str, QuietTimes[T]]]:
    """``quiet_beside`` for each of the comma-separated ``values`` of the setting ``variable`` in
    turn, a server each; the load average printed before the first and after the last."""
    print(f"load average before: {load_average():.2f}")
    with tempfile.TemporaryDirectory(prefix="quiver-hostile-") as directory:
        for value in values.split(","):
            folder = Path(directory) / f"{variable}-{value}"
            names = (f"{hostile_name}-{value}", f"quiet-{value}")
            yield value, await quiet_beside(folder, {variable: value}, names, calls, load)
    print(f"load average after: {load_average():.2f}")
