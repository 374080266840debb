"""One MCP session: the connection that holds it, the SDK session the platform vets, and ``tools/list``.

The pool (``app.mcp.pool``) owns connections; a connection records what happened to its
session (broken, retired, refused by the egress policy) so the pool can say why a request failed.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Callable
from types import TracebackType
from typing import Any

import anyio
import mcp_types as types
from mcp import ClientSession
from mcp.shared.message import SessionMessage
from referencing.exceptions import Unresolvable

from app.egress import EgressDeniedError
from app.errors import echo
from app.jsonschemas import UnsafeSchemaError, ValidationTooCostlyError, best_error, compiled_validator
from app.mcp.config import (
    BAD_RESULT,
    CONNECTION_LOST,
    EGRESS,
    MAX_DETAIL_CHARS,
    RESULT_TOO_COSTLY,
    UNREACHABLE,
    McpCallError,
    McpServerConfig,
)

#: ``tools/list`` pages followed before giving up on a server that never ends.
MAX_TOOL_PAGES = 500


class WatchedReadStream:
    """The transport's read stream, reporting its end (EOF or closure) to ``on_end``.

    The SDK keeps a dead session around silently; this is how the pool learns that a
    STDIO process exited or a transport collapsed, without touching SDK internals.
    """

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    @property
    def last_context(self) -> contextvars.Context | None:
        # The dispatcher duck-types this to run handlers in the sender's context.
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        try:
            item: SessionMessage | Exception = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise
        return item

    async def aclose(self) -> None:
        self._on_end()
        await self._inner.aclose()

    def __aiter__(self) -> WatchedReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> WatchedReadStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


class VettedClientSession(ClientSession):
    """The SDK checks a structured result against the outputSchema the server lists, with a
    validator of its own whose ``pattern`` runs on Python's backtracking ``re``, on the event
    loop and without a bound on its work; a hostile server could freeze the loop with it (a
    result a few levels deep against ``allOf`` of two references per level, patterns times
    thousands of keys, a large value written into a thousand error messages). Here the check
    is the platform's, as for a call's arguments (app.jsonschemas): vetted, no retrieval,
    patterns on RE2, compiled once per schema on the compile thread, and the result checked
    within ``MAX_VALIDATION_STEPS`` steps, a few milliseconds of them on the loop and the rest
    on the check thread. Past the steps the call fails ``RESULT_TOO_COSTLY``. The answer is
    otherwise the SDK's: the same error picked (``best_match``), the same failures."""

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        if name not in self._tool_output_schemas:
            await self.list_tools()  # as the SDK does: the output schemas come with the listing
        output_schema = self._tool_output_schemas.get(name)
        if output_schema is None:
            return
        if result.structured_content is None and "structured_content" not in result.model_fields_set:
            raise RuntimeError(f"Tool {name} has an output schema but did not return structured content")
        try:
            validator = await compiled_validator(output_schema)
            error = await best_error(validator, result.structured_content)
        except UnsafeSchemaError as problem:
            raise RuntimeError(f"Invalid schema for tool {name}: {problem}") from None
        except Unresolvable as problem:
            raise RuntimeError(f"Invalid schema for tool {name}: {problem}") from None
        except ValidationTooCostlyError as costly:
            raise McpCallError(RESULT_TOO_COSTLY, json.dumps({"steps": costly.limit})) from None
        if error is not None:
            where = "/".join(str(part) for part in error.absolute_path)
            raise RuntimeError(
                f"Invalid structured content returned by tool {name}: {echo(error.message, MAX_DETAIL_CHARS)}"
                + (f" (at /{where})" if where else "")
            )


class Connection:
    """One server's session and the holder task that owns its context managers."""

    def __init__(self, config: McpServerConfig, headers: dict[str, str]) -> None:
        self.config = config
        self.headers = headers
        self.session: ClientSession | None = None
        self.error: BaseException | None = None
        # Set when a connection the session needed was not made (the egress policy refused it,
        # or its host was not reached): its kind (EGRESS, UNREACHABLE) and cause, the calls in
        # flight then, and whether what was not sent was a JSON-RPC request.
        self.not_made: tuple[str, Exception] | None = None
        self.in_flight_when_not_made = 0
        self.request_not_sent = False
        self.ready = asyncio.Event()
        self._wake = asyncio.Event()
        self.is_broken = False
        self.is_retired = False
        self.in_flight = 0
        self.task: asyncio.Task[None] | None = None

    @property
    def is_usable(self) -> bool:
        return self.ready.is_set() and self.session is not None and not (self.is_broken or self.is_retired)

    def deny_egress(self, denial: EgressDeniedError, of_request: bool) -> None:
        """A connection the session needed was refused (its name was rebound to a forbidden
        address): the session ends, and nothing more may be sent to that name."""
        self._not_made(EGRESS, denial, of_request)

    def not_reached(self, failure: Exception, of_request: bool) -> None:
        """A connection the session needed could not be made (its name resolves to nothing now,
        nothing listens there): the session ends, as its writer does with the failure."""
        self._not_made(UNREACHABLE, failure, of_request)

    def _not_made(self, kind: str, cause: Exception, of_request: bool) -> None:
        # The transport may not notice by itself (SSE's writer only logs the error).
        if self.not_made is None:
            self.not_made = (kind, cause)
            self.in_flight_when_not_made = self.in_flight
            self.request_not_sent = of_request
        self.mark_broken()

    def mark_broken(self) -> None:
        self.is_broken = True
        self._wake.set()

    def retire(self) -> None:
        """No new calls; close once the calls in flight are done."""
        self.is_retired = True
        if self.in_flight == 0:
            self._wake.set()

    def stop_now(self) -> None:
        self.is_retired = True
        self._wake.set()

    def call_finished(self) -> None:
        self.in_flight -= 1
        if self.is_retired and self.in_flight == 0:
            self._wake.set()

    async def wait_for_end(self) -> None:
        await self._wake.wait()


def raise_if_not_made(connection: Connection) -> None:
    """A request that failed because a connection of its session was not made: refused by the
    egress policy (EGRESS) or its host not reached (UNREACHABLE).

    That kind (nothing was sent) only when that is certain: no call was in flight (the session
    was starting), or the POST not sent was a request and this was the only call in flight,
    so the request was its own. Otherwise the call may have been sent before the session
    ended: a lost connection (the tool may or may not have run), with the failure as cause.
    """
    if connection.not_made is None:
        return
    kind, cause = connection.not_made
    in_flight = connection.in_flight_when_not_made
    if in_flight == 0 or (in_flight == 1 and connection.request_not_sent):
        raise McpCallError(kind, str(cause)) from None
    raise McpCallError(CONNECTION_LOST, f"the session ended: {cause}") from None


async def list_all_tools(
    session: ClientSession, *, on_page: Callable[[int, int], None] | None = None
) -> list[types.Tool]:
    """Every tool the server offers, following ``nextCursor`` over all pages.

    ``on_page(pages read, tools so far)`` is called after each page.
    """
    tools: list[types.Tool] = []
    cursor: str | None = None
    seen_cursors: set[str] = set()
    for page in range(1, MAX_TOOL_PAGES + 1):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        # Through list_tools() so the session caches every page's output schemas.
        result = await session.list_tools(params=params)
        tools.extend(result.tools)
        if on_page is not None:
            on_page(page, len(tools))
        cursor = result.next_cursor
        if not cursor:
            return tools
        if cursor in seen_cursors:
            raise McpCallError(BAD_RESULT, f"tools/list repeated the cursor {cursor!r}")
        seen_cursors.add(cursor)
    raise McpCallError(BAD_RESULT, f"tools/list did not end within {MAX_TOOL_PAGES} pages")
