"""Compiling a tenant's JSON Schema is bounded before it starts and never done on the event
loop: a schema of 2,000 patterns held every other tenant's requests about 1 s, when it was
stored and again when its first call compiled it."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest

from app import jsonschemas
from app.principal import Role
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import SessionFactory, fresh, http_tool, invoke, problems, set_tool_columns
from tests.schema.tools.operations import create_tool_errors
from tests.support.http_tool_server import ToolServer, running_tool_server

T = TypeVar("T")

SPACE = "query QuietSpace($id: ID!) { space(id: $id) { id name } }"


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


def patterned(count: int, *, tag: str = "v") -> dict[str, Any]:
    """``count`` string properties ``p0``…, each with a distinct pattern: ``^v7-[a-z]+$`` for ``p7``."""
    return {
        "type": "object",
        "properties": {f"p{index}": {"type": "string", "pattern": f"^{tag}{index}-[a-z]+$"} for index in range(count)},
    }


def refused(errors: list[dict[str, Any]]) -> str:
    assert [(error["code"], error["field"]) for error in errors] == [("INVALID_SCHEMA", ["input", "inputSchema"])]
    message: str = errors[0]["message"]
    return message


class TestBoundsAtCreation:
    async def test_more_distinct_patterns_than_the_bound_are_refused_before_compiling(self, gql: GraphQLClient) -> None:
        count = jsonschemas.MAX_SCHEMA_PATTERNS + 1
        before = jsonschemas.compiled_cache_info()

        message = refused(await create_tool_errors(gql, fresh("many_patterns"), inputSchema=patterned(count)))

        assert f"{count} distinct patterns" in message
        assert f"at most {jsonschemas.MAX_SCHEMA_PATTERNS}" in message
        assert jsonschemas.compiled_cache_info().misses == before.misses

    async def test_patterns_longer_together_than_the_bound_are_refused(self, gql: GraphQLClient) -> None:
        length = jsonschemas.MAX_PATTERN_CHARS // 100 + 1
        schema = {
            "type": "object",
            "patternProperties": {f"^{index:03d}" + "a" * (length - 4): {} for index in range(100)},
        }

        message = refused(await create_tool_errors(gql, fresh("long_patterns"), inputSchema=schema))

        assert f"{100 * length} characters" in message
        assert f"at most {jsonschemas.MAX_PATTERN_CHARS}" in message

    async def test_patterns_compiling_to_too_large_programs_are_refused(self, gql: GraphQLClient) -> None:
        """Twelve 14-character patterns: ``.{0,1000}`` is about 9,000 RE2 instructions each."""
        schema = {
            "type": "object",
            "properties": {
                f"p{index}": {"type": "string", "pattern": f"^{index:02d}.{{0,1000}}$"} for index in range(12)
            },
        }

        message = refused(await create_tool_errors(gql, fresh("big_programs"), inputSchema=schema))

        assert f"more than {jsonschemas.MAX_PATTERN_PROGRAM} instructions" in message
        assert "/properties/p" in message

    async def test_a_schema_just_under_the_bound_is_stored_and_its_calls_are_checked(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        count = jsonschemas.MAX_SCHEMA_PATTERNS
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('bound')}", inputSchema=patterned(count))
        last = count - 1

        assert (await invoke(gql, space.id, tool["id"], {"p0": "v0-abc", f"p{last}": f"v{last}-x"}))[
            "status"
        ] == "SUCCESS"
        envelope = await invoke(gql, space.id, tool["id"], {"p0": "v0-abc", "p1": "v0-abc", f"p{last}": "nope"})
        assert [problem["path"] for problem in problems(envelope)] == ["/p1", f"/p{last}"]

    async def test_a_pattern_repeated_counts_once(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        """An OpenAPI import inlines a referenced schema wherever it is used: the same few patterns
        many times over."""
        space = await keys.space("alpha")
        count = jsonschemas.MAX_SCHEMA_PATTERNS * 2
        schema = {
            "type": "object",
            "properties": {
                f"p{index}": {"type": "string", "pattern": f"^[a-z]+{index % 2}$"} for index in range(count)
            },
        }
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('repeated')}", inputSchema=schema)

        envelope = await invoke(gql, space.id, tool["id"], {"p0": "ab0", "p1": "ab0", "p2": "cd0"})
        assert [problem["path"] for problem in problems(envelope)] == ["/p1"]


@contextlib.asynccontextmanager
async def compile_thread_held() -> AsyncIterator[threading.Event]:
    """The compile thread busy until the event is set (at the latest on leaving): whatever is
    compiled meanwhile waits there, visibly (``compiled_cache_info().compiling``)."""
    release = threading.Event()
    started = threading.Event()

    def hold() -> None:
        started.set()
        release.wait()

    held = asyncio.get_running_loop().run_in_executor(jsonschemas._COMPILES, hold)
    await asyncio.to_thread(started.wait)
    try:
        yield release
    finally:
        release.set()
        await held


async def while_compiling(work: Awaitable[T]) -> asyncio.Task[T]:
    """Start ``work`` and return once it waits for the compile thread (or has ended, which the
    caller's assertions then refuse)."""
    before = jsonschemas.compiled_cache_info().compiling
    task = asyncio.ensure_future(work)
    # Turns of the loop until a condition holds (no event to wait on: the count is the server's own).
    while jsonschemas.compiled_cache_info().compiling == before and not task.done():  # noqa: ASYNC110
        await asyncio.sleep(0)
    return task


async def quiet_tenant(gql: GraphQLClient, keys: Keys) -> Callable[[], Awaitable[str]]:
    """Another tenant's cheap query: answers its space's id."""
    space = await keys.space("quiet")
    client = gql.as_key(await keys.for_space(space.id, Role.VIEWER))

    async def ask() -> str:
        answered: str = (await client.execute(SPACE, {"id": space.id}))["space"]["id"]
        assert answered == space.id
        return answered

    return ask


class TestCompilingOffTheLoop:
    async def test_another_tenant_is_answered_while_a_stored_schema_compiles(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        ask = await quiet_tenant(gql, keys)
        schema = patterned(jsonschemas.MAX_SCHEMA_PATTERNS, tag=fresh("s"))

        async with compile_thread_held() as release:
            creating = await while_compiling(http_tool(gql, tool_server, f"/ok/{fresh('aside')}", inputSchema=schema))

            assert not creating.done()
            await ask()
            assert not creating.done()
            release.set()
            tool = await creating
        assert tool["inputSchema"] == schema

    async def test_another_tenant_is_answered_while_a_call_compiles_its_schema(
        self, gql: GraphQLClient, keys: Keys, session_factory: SessionFactory, tool_server: ToolServer
    ) -> None:
        """A validator not in the cache (after a restart, another replica's change, an eviction)
        is compiled for the call that needs it, off the loop too."""
        space = await keys.space("alpha")
        ask = await quiet_tenant(gql, keys)
        tool = await http_tool(gql, tool_server, f"/ok/{fresh('cold')}")
        # A schema this process never compiled, as one stored before a restart.
        schema = patterned(jsonschemas.MAX_SCHEMA_PATTERNS, tag=fresh("c"))
        await set_tool_columns(session_factory, tool["id"], input_schema=schema)

        async with compile_thread_held() as release:
            calling = await while_compiling(invoke(gql, space.id, tool["id"], {"p0": "nope"}))

            assert not calling.done()
            await ask()
            assert not calling.done()
            release.set()
            envelope = await calling
        assert [problem["path"] for problem in problems(envelope)] == ["/p0"]
