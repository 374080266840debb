"""Subscriptions that many clients make alike are executed once and their frames shared.

A thousand dashboards subscribed to ``toolCalls`` with the same document, the same
variables and the same reach would otherwise each run the filter, build the ToolCall,
execute the selection and encode the JSON of every event — a thousand times the same
work, all of it on the event loop, the last subscriber served a thousand executions
after the first (bench/subscription_fanout.py: p99 553 ms at 200 subscribers).

Here the graphql-transport-ws handler puts such subscriptions in a *shared stream*, keyed
by everything their results depend on: the document, the operation name, the variables and
the caller's reach (role and space — what every visibility check of the API reads; the key's
id is read only by root query fields, never under a subscription). The stream runs the
operation once, with the first subscriber's context, encodes each result once, and hands
every member the same JSON, framed with the member's own operation id. Members whose
reach differs never share a stream, so each still receives only what it may see.

A frame goes to each member's socket straight from the stream: a send to a writable socket
completes without suspending, so no task is woken per member and event. A socket that makes
the send wait (its buffer is full) gets a task of its own that finishes that send and then
the member's bounded backlog, in order: a slow socket holds up only its own member. One that
falls ``MEMBER_BACKLOG`` frames behind is ended with ``SUBSCRIBER_OVERFLOW``, as the event
bus ends a slow subscriber; the others go on. The stream stops (and leaves the event bus)
when its last member leaves.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from collections import deque
from collections.abc import AsyncGenerator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    FieldNode,
    GraphQLError,
    GraphQLFormattedError,
    OperationDefinitionNode,
    OperationType,
    get_operation_ast,
    parse,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
    Operation,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import ErrorMessage
from strawberry.types.execution import ExecutionResult, PreExecutionError
from strawberry.utils.aio import aclosing

from app import jsoncodec
from schema.context import Context
from schema.fairness import OperationCap

logger = logging.getLogger("quiver.subscriptions")

#: Root subscription fields whose streams are shared (their results depend on the key alone).
SHARED_FIELDS = frozenset({"toolCalls"})
#: Frames a member may fall behind its stream before it is ended (the bus's queue size).
MEMBER_BACKLOG = 1000
#: Tokens a document may have to be considered for sharing (the schema's own limit applies later).
MAX_KEY_TOKENS = 2000

TOO_MANY_SUBSCRIPTIONS = "TOO_MANY_SUBSCRIPTIONS"

OVERFLOW_MESSAGE = "Subscriber too slow: events were dropped. Reconcile with the toolCalls query and subscribe again."


class Frame(dict[str, Any]):
    """A graphql-transport-ws message whose JSON text is already made (``QuiverGraphQLRouter.encode_json``
    sends ``text`` as is). The dict part carries the ``type`` strawberry's operation looks at."""

    def __init__(self, kind: str, text: str) -> None:
        super().__init__(type=kind)
        self.text = text


StreamKey = tuple[str, str | None, str, str, str | None]


def shared_key(query: str, operation_name: str | None, variables: Any, context: Context) -> StreamKey | None:
    """The key of a subscription that may share a stream, or None to run it on its own."""
    viewer = context.viewer
    if viewer is None or not isinstance(query, str):
        return None
    try:
        document = parse(query, max_tokens=MAX_KEY_TOKENS)
    except GraphQLError:
        return None  # its own run reports the error as strawberry does
    operation = get_operation_ast(document, operation_name)
    if not isinstance(operation, OperationDefinitionNode) or operation.operation is not OperationType.SUBSCRIPTION:
        return None
    selections = operation.selection_set.selections
    if len(selections) != 1 or not isinstance(selections[0], FieldNode):
        return None
    if selections[0].name.value not in SHARED_FIELDS:
        return None
    try:
        canonical_variables = json.dumps(variables or {}, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return None
    return (query, operation_name, canonical_variables, viewer.role.value, viewer.space_id)


Send = Callable[[Frame], Coroutine[Any, Any, None]]


async def _resume(coro: Coroutine[Any, Any, None], waiting_on: Any) -> None:
    """Carry on, in a task, a coroutine that was started outside one and suspended on ``waiting_on``
    (what ``asyncio.eager_task_factory`` does from Python 3.12 on)."""
    while True:
        try:
            if waiting_on is None:
                await asyncio.sleep(0)  # a bare yield: give the loop one turn
            else:
                await waiting_on
        except asyncio.CancelledError:
            coro.close()
            raise
        except Exception as error:
            try:
                waiting_on = coro.throw(error)
            except StopIteration:
                return
        else:
            try:
                waiting_on = coro.send(None)
            except StopIteration:
                return


@dataclass(eq=False)
class Member:
    stream: SharedStream
    operation: Operation[Context, None]
    #: ``{"id":"<operation id>","type":"next","payload":`` — the frame around a shared payload.
    prefix: str
    send: Send
    #: Frames waiting behind a send the socket made wait (it was not writable).
    backlog: deque[Frame] = field(default_factory=deque)
    sending: asyncio.Task[None] | None = None
    #: Set when the member is over: None, or the error message that ends it.
    ended: asyncio.Future[Frame | None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    overflowed: bool = False
    failed: bool = False

    def offer(self, frame: Frame) -> None:
        """Send the frame now when the socket takes it; otherwise queue it behind the waiting send.

        A send to a writable socket completes without suspending (uvicorn writes to the
        transport), so it is run right here, not woken in a task per member and event; only
        a socket whose buffer is full gets a task, and frames wait behind it in order."""
        if self.overflowed or self.failed:
            return
        if self.sending is not None:
            if len(self.backlog) >= MEMBER_BACKLOG:
                self.overflowed = True
                self.backlog.clear()
                self.finish(None)
            else:
                self.backlog.append(frame)
            return
        coro = self.send(frame)
        try:
            waiting_on = coro.send(None)
        except StopIteration:
            return
        except Exception:
            self._failed()
            return
        self.sending = asyncio.get_running_loop().create_task(self._drain(coro, waiting_on))

    async def _drain(self, coro: Coroutine[Any, Any, None], waiting_on: Any) -> None:
        try:
            await _resume(coro, waiting_on)
            while self.backlog:
                await self.send(self.backlog.popleft())
        except Exception:
            self._failed()
        finally:
            self.sending = None

    def _failed(self) -> None:
        # The socket is gone: its handler notices and ends the operation.
        self.failed = True
        self.backlog.clear()
        self.finish(None)

    def finish(self, final: Frame | None) -> None:
        if not self.ended.done():
            self.ended.set_result(final)

    async def forward(self) -> None:
        """Until the stream is over for this member; then its last messages, in order."""
        final = await self.ended
        if self.sending is not None:
            await asyncio.shield(self.sending)
        operation = self.operation
        if self.failed:
            return
        if self.overflowed:
            error = GraphQLError(OVERFLOW_MESSAGE, extensions={"code": "SUBSCRIBER_OVERFLOW"})
            await operation.send_next(ExecutionResult(data=None, errors=[error]))
        elif final is not None:
            await operation.send_operation_message(final)  # type: ignore[arg-type]


class SharedStream:
    """One execution of a subscription, its results sent to every member."""

    def __init__(self, hub: SharedStreams, key: StreamKey, source: Callable[[], Any]) -> None:
        self.hub = hub
        self.key = key
        self.members: set[Member] = set()
        self._source = source
        self.task: asyncio.Task[None] | None = None
        self.results = 0
        #: The cap and tenant this stream counts against (the tenant whose subscription started it).
        self.charged: tuple[OperationCap, str] | None = None

    def uncharge(self) -> None:
        """The stream is over: it no longer counts against its tenant (once)."""
        if self.charged is not None:
            cap, tenant = self.charged
            self.charged = None
            cap.give_back(tenant)

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._pump(), name="shared-subscription")

    def _broadcast(self, frame_of: Callable[[Member], Frame]) -> None:
        for member in list(self.members):
            member.offer(frame_of(member))

    def _finish(self, final_of: Callable[[Member], Frame | None]) -> None:
        for member in list(self.members):
            member.finish(final_of(member))

    def _payload(self, result: ExecutionResult) -> str:
        payload: dict[str, Any] = {"data": result.data}
        if result.errors:
            payload["errors"] = [error.formatted for error in result.errors]
        if result.extensions:
            payload["extensions"] = result.extensions
        return jsoncodec.dumps(payload)

    def _send_result(self, result: ExecutionResult, kind: str) -> None:
        if kind == "next":
            # Encoded once for every member; only the operation id around it differs.
            payload = self._payload(result)
            self._broadcast(lambda member: Frame("next", f"{member.prefix}{payload}}}"))
        else:  # "error": the operation's errors before it started, as strawberry sends them
            errors = jsoncodec.dumps([error.formatted for error in result.errors or []])
            self._finish(
                lambda member: Frame(
                    "error", f'{{"id":{jsoncodec.dumps(member.operation.id)},"type":"error","payload":{errors}}}'
                )
            )

    async def _pump(self) -> None:
        try:
            source: AsyncGenerator[Any, None] = await self._source()
            async with aclosing(source):
                first = True
                async for result in source:
                    if first and isinstance(result, PreExecutionError):
                        self._send_result(result, "error")
                        return
                    if not isinstance(result, ExecutionResult):
                        rejected = GraphQLError("Incremental delivery is not supported over graphql-transport-ws")
                        self._send_result(ExecutionResult(data=None, errors=[rejected]), "error")
                        return
                    first = False
                    self.results += 1
                    self._send_result(result, "next")
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("a shared subscription stream failed")
        finally:
            self.hub._ended(self)
            # Every member still here sends what it has, then completes (one that was given an
            # error message above sends it and is completed by strawberry).
            self._finish(lambda member: None)


class SharedStreams:
    """The shared streams of one application."""

    def __init__(self) -> None:
        self._streams: dict[StreamKey, SharedStream] = {}

    def join(
        self,
        key: StreamKey,
        operation: Operation[Context, None],
        source: Callable[[], Any],
        send: Send,
        charge: tuple[OperationCap, str] | None = None,
    ) -> Member | None:
        """A member of the stream for ``key``, started now if there is none. A new stream counts
        against ``charge`` (a cap and a tenant) while it runs: None, nothing joined, at the cap."""
        stream = self._streams.get(key)
        if stream is None:
            if charge is not None and not charge[0].take(charge[1]):
                return None
            stream = SharedStream(self, key, source)
            stream.charged = charge
            self._streams[key] = stream
            stream.start()
        member = Member(stream, operation, f'{{"id":{jsoncodec.dumps(operation.id)},"type":"next","payload":', send)
        stream.members.add(member)
        return member

    def leave(self, member: Member) -> None:
        stream = member.stream
        stream.members.discard(member)
        if member.sending is not None:
            member.sending.cancel()
        if not stream.members and self._streams.get(stream.key) is stream:
            del self._streams[stream.key]
            stream.uncharge()
            if stream.task is not None:
                stream.task.cancel()

    def _ended(self, stream: SharedStream) -> None:
        if self._streams.get(stream.key) is stream:
            del self._streams[stream.key]
        stream.uncharge()

    def stream_count(self) -> int:
        return len(self._streams)

    def member_count(self) -> int:
        return sum(len(stream.members) for stream in self._streams.values())


class SharingTransportWSHandler(BaseGraphQLTransportWSHandler[Context, None]):
    """graphql-transport-ws, with alike subscriptions sharing one execution (see the module)."""

    async def run_operation(self, operation: Operation[Context, None]) -> None:
        hub: SharedStreams | None = getattr(self.view, "shared_streams", None)
        key = shared_key(operation.query, operation.operation_name, operation.variables, self.context)
        if hub is None or key is None:
            await self._run_on_its_own(operation)
            return
        # The stream's own context: the first member's (same viewer and settings), loaders its own.
        context = copy.copy(self.context)
        context.renew_loaders()

        async def source() -> Any:
            return await self.schema.stream(
                operation.query,
                variable_values=operation.variables,
                context_value=context,
                root_value=self.root_value,
                operation_name=operation.operation_name,
            )

        cap = self._cap()
        member = hub.join(
            key, operation, source, self.websocket.send_json, None if cap is None else (cap, self._tenant())
        )
        if member is None:
            assert cap is not None
            await self._refuse(operation, cap)
            return
        try:
            await member.forward()
            await operation.send_operation_message({"id": operation.id, "type": "complete"})
        except Exception as error:
            await self.handle_task_exception(error)
            self.operations.pop(operation.id, None)
        finally:
            hub.leave(member)

    async def _run_on_its_own(self, operation: Operation[Context, None]) -> None:
        """Strawberry's own run, counted against the tenant's cap (``OperationCap``) while it runs."""
        cap = self._cap()
        if cap is None:
            await super().run_operation(operation)
            return
        tenant = self._tenant()
        if not cap.take(tenant):
            await self._refuse(operation, cap)
            return
        try:
            await super().run_operation(operation)
        finally:
            cap.give_back(tenant)

    def _cap(self) -> OperationCap | None:
        cap: OperationCap | None = getattr(self.view, "operation_cap", None)
        return cap

    def _tenant(self) -> str:
        viewer = self.context.viewer
        return viewer.tenant if viewer is not None else "anonymous"

    async def _refuse(self, operation: Operation[Context, None], cap: OperationCap) -> None:
        logger.info("subscription refused: the tenant is at its cap", extra={"limit": cap.per_tenant})
        refusal: ErrorMessage = {
            "id": operation.id,
            "type": "error",
            "payload": [too_many_subscriptions(cap.per_tenant)],
        }
        await operation.send_operation_message(refusal)


def too_many_subscriptions(limit: int) -> GraphQLFormattedError:
    """The GraphQL error refusing an operation past the tenant's cap."""
    return GraphQLError(
        f"This tenant already has {limit} subscriptions running (QUIVER_MAX_SUBSCRIPTIONS_PER_TENANT; "
        "one joining an alike subscription's stream, same document and variables, does not count): "
        "complete one and subscribe again.",
        extensions={"code": TOO_MANY_SUBSCRIPTIONS, "limit": limit},
    ).formatted
