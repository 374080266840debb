"""Catalog changes: what lets the hot paths cache the catalog without serving a stale one.

One process-wide *generation* number goes up after every commit that wrote to a
watched table (tools, their bindings, MCP servers and theirs, spaces, API keys, agents
and skills).
A :class:`GenerationCache` remembers the generation it read an entry at and treats an
entry from an older generation as absent, so a committed change is seen by the very
next look-up in this process.

The commit hook is on every ORM ``Session`` of the process (unit-of-work flushes and
``session.execute(insert/update/delete)`` alike), installed by :func:`watch_catalog_commits`,
which the composition roots call (``app.main.build_services``, the CLI). Other replicas hear of a change through
the event bus (:class:`ChangeRelay`, topic ``catalog_changes``; Redis when configured),
within the bus's delivery time. Each entry also expires after a TTL, which bounds what a
lost bus message or a process without a shared bus (the CLI beside an embedded SQLite
server) can cost.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from contextlib import asynccontextmanager
from itertools import chain
from typing import Any, Generic, TypeVar

from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session

from app.events.bus import EventBus, SubscriberOverflowError
from app.events.redis_bus import RedisEventBus

logger = logging.getLogger(__name__)

WATCHED_TABLES = frozenset(
    {
        "tool_definition",
        "tool_space_binding",
        "mcp_server",
        "mcp_server_space_binding",
        "space",
        "api_key",
        # What an agent offers on Quiver's MCP endpoint (app.mcp_server): its manifest and its skills' versions.
        "agent",
        "skill_definition",
        "skill_version",
    }
)
TOPIC = "catalog_changes"
_CHANGED = "quiver.catalog_changed"
DEFAULT_MAX_ENTRIES = 10_000
#: How long an entry may be used when no change is heard of (QUIVER_CATALOG_CACHE_TTL_S).
DEFAULT_TTL_S = 5.0
RESUBSCRIBE_MIN_S, RESUBSCRIBE_MAX_S = 0.5, 10.0

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ChangeFeed:
    """The generation number, who hears of local commits, and who hears of every change."""

    def __init__(self) -> None:
        self.generation = 0
        self._listeners: list[Callable[[], None]] = []
        self._watchers: list[Callable[[], None]] = []

    def bump(self) -> None:
        self.generation += 1
        for watcher in list(self._watchers):
            watcher()

    def add_watcher(self, watcher: Callable[[], None]) -> None:
        """Called after every bump, local or relayed, from whichever thread bumped: a watcher
        only schedules its work (``loop.call_soon_threadsafe``) and must not raise."""
        self._watchers.append(watcher)

    def remove_watcher(self, watcher: Callable[[], None]) -> None:
        with contextlib.suppress(ValueError):
            self._watchers.remove(watcher)

    def committed_here(self) -> None:
        """A commit in this process changed the catalog: bump, then tell the relays."""
        self.bump()
        for listener in list(self._listeners):
            listener()

    def add_listener(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[], None]) -> None:
        with contextlib.suppress(ValueError):
            self._listeners.remove(listener)


FEED = ChangeFeed()


def _watched(instance: Any) -> bool:
    table = getattr(type(instance), "__table__", None)
    return getattr(table, "name", None) in WATCHED_TABLES


def _note_flush(session: Session, _context: Any, _instances: Any) -> None:
    if any(_watched(instance) for instance in chain(session.new, session.dirty, session.deleted)):
        session.info[_CHANGED] = True


def _note_statement(state: ORMExecuteState) -> None:
    if state.is_insert or state.is_update or state.is_delete:
        table = getattr(state.statement, "table", None)
        if getattr(table, "name", None) in WATCHED_TABLES:
            state.session.info[_CHANGED] = True


def _committed(session: Session) -> None:
    if session.info.pop(_CHANGED, False):
        FEED.committed_here()


def _rolled_back(session: Session) -> None:
    session.info.pop(_CHANGED, None)


_HOOKS: tuple[tuple[str, Callable[..., None]], ...] = (
    ("before_flush", _note_flush),
    ("do_orm_execute", _note_statement),
    ("after_commit", _committed),
    ("after_rollback", _rolled_back),
)


def watch_catalog_commits() -> None:
    """Report every catalog commit of this process to :data:`FEED` (once; later calls do nothing).

    Without it nothing bumps the generation, and the caches keep entries until their TTL.
    """
    for name, hook in _HOOKS:
        if not event.contains(Session, name, hook):
            event.listen(Session, name, hook)


class GenerationCache(Generic[K, V]):
    """Values read from the catalog, valid while the generation they were read at is current
    and their TTL has not run out."""

    def __init__(self, ttl_s: float, *, max_entries: int = DEFAULT_MAX_ENTRIES, feed: ChangeFeed = FEED) -> None:
        self.ttl_s = ttl_s
        self.max_entries = max_entries
        self.feed = feed
        self._entries: dict[K, tuple[int, float, V]] = {}
        # Loads in flight, by key, with the generation each started at.
        self._loading: dict[K, tuple[int, asyncio.Future[V]]] = {}

    async def get_or_load(self, key: K, load: Callable[[], Awaitable[V]]) -> V:
        """The entry, or one load of it shared by every caller that misses at the same
        generation: when an entry expires under load, fifty concurrent requests make one
        database read, not fifty. A caller that misses after a change starts a load of its own."""
        entry = self._entries.get(key)
        now = time.monotonic()
        generation = self.feed.generation
        if entry is not None and entry[0] == generation and entry[1] > now:
            return entry[2]
        loading = self._loading.get(key)
        if loading is None or loading[0] != generation or loading[1].get_loop() is not asyncio.get_running_loop():
            # Read the generation first: a change committed while loading makes this entry stale at once.
            task = asyncio.ensure_future(self._load(key, generation, load))
            loading = (generation, task)
            self._loading[key] = loading
            task.add_done_callback(functools.partial(self._loaded, key))
        # A caller that is cancelled does not cancel the load the others wait for.
        return await asyncio.shield(loading[1])

    async def _load(self, key: K, generation: int, load: Callable[[], Awaitable[V]]) -> V:
        started = time.monotonic()
        value = await load()
        current = self._entries.get(key)
        if current is not None and current[0] > generation:
            return value  # a newer load finished first: its entry stays
        if len(self._entries) >= self.max_entries:
            self._entries.clear()
        self._entries[key] = (generation, started + self.ttl_s, value)
        return value

    def _loaded(self, key: K, task: asyncio.Future[V]) -> None:
        loading = self._loading.get(key)
        if loading is not None and loading[1] is task:
            del self._loading[key]
        if not task.cancelled():
            task.exception()  # retrieved: every waiter may have been cancelled


class ChangeRelay:
    """Carries catalog changes between replicas over the event bus."""

    def __init__(self, bus: EventBus, feed: ChangeFeed = FEED) -> None:
        self.bus = bus
        self.feed = feed
        self.origin = secrets.token_hex(8)
        self._listener: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._publishing: set[asyncio.Task[None]] = set()
        self._subscribed = asyncio.Event()

    async def start(self) -> None:
        """Subscribe (returns once subscribed) and start telling the others of local commits."""
        if self._listener is not None:
            return
        self._loop = asyncio.get_running_loop()
        self.feed.add_listener(self._announce)
        # Changes other replicas made while the bus was cut off were not heard: treat everything as stale.
        self.bus.on_reconnect(self.feed.bump)
        self._listener = asyncio.create_task(self._listen(), name="catalog-change-relay")
        await self._subscribed.wait()

    def _announce(self) -> None:
        """Called on every local catalog commit, from whichever thread and loop made it."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._spawn_publish()
        else:  # the bus belongs to the relay's loop
            loop.call_soon_threadsafe(self._spawn_publish)

    def _spawn_publish(self) -> None:
        task = asyncio.get_running_loop().create_task(self._publish())
        self._publishing.add(task)
        task.add_done_callback(self._publishing.discard)

    async def _publish(self) -> None:
        try:
            await self.bus.publish(TOPIC, {"origin": self.origin})
        except Exception:
            logger.exception("could not announce a catalog change; other replicas see it within the cache TTL")

    async def _listen(self) -> None:
        backoff_s = RESUBSCRIBE_MIN_S
        while True:
            try:
                async with self.bus.subscribe(TOPIC) as subscription:
                    # Whatever was missed before (re)subscribing is stale now.
                    self.feed.bump()
                    self._subscribed.set()
                    backoff_s = RESUBSCRIBE_MIN_S
                    async for change in subscription:
                        if change.get("origin") != self.origin:
                            self.feed.bump()
                return  # the bus closed
            except SubscriberOverflowError:
                continue
            except asyncio.CancelledError:
                raise
            except Exception as error:
                logger.warning(
                    "catalog change relay: not subscribed (%s); retrying in %.1f s; until then other "
                    "replicas' changes are seen within the cache TTL",
                    error,
                    backoff_s,
                )
                self._subscribed.set()
                await asyncio.sleep(backoff_s)
                backoff_s = min(backoff_s * 2, RESUBSCRIBE_MAX_S)

    async def close(self) -> None:
        self.feed.remove_listener(self._announce)
        self._loop = None
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
            self._listener = None
        for task in list(self._publishing):
            with contextlib.suppress(Exception):
                await task


@asynccontextmanager
async def announced_changes(redis_url: str | None) -> AsyncIterator[None]:
    """For a process that is not a server (the CLI): its catalog commits are told to the
    servers sharing its Redis before it exits. Without Redis there is nobody to tell; the
    servers see the change within their cache TTL."""
    if not redis_url:
        yield
        return
    bus = RedisEventBus(redis_url)
    relay = ChangeRelay(bus)
    try:
        await relay.start()
        yield
    finally:
        await relay.close()  # waits for the announcements it started
        await bus.close()
