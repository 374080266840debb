"""Following a run live: the one loop behind ``agentRunEvents`` and ``pipelineRunEvents``.

Subscribed first, then the run is read: a run that finished meanwhile is not missed and
yields FINISHED at once; a run under way yields STARTED (replayed: its id was only known
once it started, and the subscriber learns that it is listening), then what the run's row
says already happened (a pipeline's started and finished steps), then every event of its
topic, and ends after FINISHED. When no event came for ``reconcile_s`` the run is read
back: a finish whose event was lost (the bus down, the replica gone) still ends it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Hashable
from datetime import datetime
from typing import Any, Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from app.events.bus import EventBusUnavailableError, EventsMissedError, SubscriberOverflowError
from schema.context import Info
from schema.errors import ClientError, subscription_cut

FINISHED = "FINISHED"
STARTED = "STARTED"


class FollowedRun(Protocol):
    @property
    def started_at(self) -> datetime: ...

    @property
    def finished_at(self) -> datetime | None: ...


Run = TypeVar("Run", bound=FollowedRun)
Event = TypeVar("Event")


async def events_or_ticks(subscription: Any, interval_s: float) -> AsyncIterator[dict[str, Any] | None]:
    """The subscription's events, and None whenever none came for ``interval_s``."""
    events = aiter(subscription)
    waiting: asyncio.Future[dict[str, Any]] | None = None
    try:
        while True:
            if waiting is None:
                waiting = asyncio.ensure_future(anext(events))
            done, _ = await asyncio.wait({waiting}, timeout=interval_s)
            if not done:
                yield None
                continue
            arrived, waiting = waiting, None
            try:
                event = arrived.result()
            except StopAsyncIteration:
                return
            yield event
    finally:
        if waiting is not None:
            waiting.cancel()


class RunRow(Protocol):
    @property
    def space_id(self) -> str: ...


Row = TypeVar("Row", bound=RunRow)


async def follow_run(
    info: Info,
    *,
    topic: str,
    read: Callable[[AsyncSession], Awaitable[Row | None]],
    present: Callable[[Row], Run],
    marker: Callable[[str, Run, datetime], Event],
    convert: Callable[[dict[str, Any], Run], Awaitable[Event]],
    not_found: str,
    read_with: str,
    reconcile_s: float,
    replay: Callable[[Run], Awaitable[list[tuple[Hashable, Event]]]] | None = None,
    replayed_key: Callable[[dict[str, Any]], Hashable] | None = None,
) -> AsyncGenerator[Event, None]:
    """The events of the run ``read`` finds (absent, or out of the caller's reach: NOT_FOUND).

    ``present`` makes the GraphQL object of its row; ``marker(kind, run, at)`` builds the
    replayed STARTED and the reconciled FINISHED, ``convert`` a bus event; ``not_found`` is the
    message for an unknown run, ``read_with`` the query a subscriber that fell behind reads
    the run with. ``replay(run)`` gives what already happened, as read from the run (after
    STARTED), each with a key; a live event whose ``replayed_key`` is one of those keys (it
    was published between subscribing and reading the run) is not yielded twice."""
    principal = info.context.principal

    async def current() -> Run | None:
        async with info.context.session() as session:
            row = await read(session)
        if row is None or not principal.can_read_space(row.space_id):
            return None
        return present(row)

    if await current() is None:
        raise ClientError(not_found, "NOT_FOUND")
    try:
        async with info.context.bus.subscribe(topic, strict=True) as subscription:
            run = await current()
            if run is None:
                return
            if run.finished_at is not None:
                yield marker(FINISHED, run, run.finished_at)
                return
            yield marker(STARTED, run, run.started_at)
            replayed: set[Hashable] = set()
            for key, past in await replay(run) if replay is not None else []:
                replayed.add(key)
                yield past
            async for event in events_or_ticks(subscription, reconcile_s):
                if event is not None and event["kind"] == STARTED:
                    continue  # replayed above
                if event is not None and replayed_key is not None and replayed_key(event) in replayed:
                    continue
                info.context.renew_loaders()
                run = await current()
                if run is None:
                    return
                if event is None:
                    if run.finished_at is not None:
                        yield marker(FINISHED, run, run.finished_at)
                        return
                    continue
                yield await convert(event, run)
                if event["kind"] == FINISHED:
                    return
    except (EventsMissedError, EventBusUnavailableError) as error:
        raise subscription_cut(error, f"the {read_with} query") from None
    except SubscriberOverflowError:
        raise ClientError(
            f"Subscriber too slow: events were dropped. Read the run with {read_with} and subscribe again.",
            "SUBSCRIBER_OVERFLOW",
        ) from None
