"""``list_changed`` for Quiver's MCP endpoints: which sessions a catalog change affects, and telling them.

Every catalog commit moves the change feed's generation, here or (over the event bus)
on another replica, so each replica hears of every change and tells its own clients.
After a change settles (``DEBOUNCE_S``) the notifier recomputes the offer of each
endpoint that has a client listening on this replica and compares its fingerprints with
the ones it knew: only endpoints whose tools (or prompts) really changed are told, with
``notifications/tools/list_changed`` (``prompts/list_changed``).

Two kinds of listeners, one per protocol era:

- handshake-era sessions (``initialize``, ``Mcp-Session-Id``): the notification goes on
  the session's standalone stream (the client's GET). The HTTP layer reports a session's
  life (opened, each request, DELETE, expiry); the SDK middleware hands over the session
  object notifications are sent on;
- 2026-07-28 ``subscriptions/listen`` streams: the SDK's ``ListenHandler`` runs each one;
  this class is its ``SubscriptionBus``, filing each stream under the endpoint it was
  opened on (``LISTEN_TARGET``).

An endpoint's baseline is the offer last served to a client of this replica (what it
saw), so a change that lands between a client's ``tools/list`` and its listening is not
missed; a spurious notification only costs the client a refetch. Every ``SWEEP_S`` the
endpoints are checked even without a change heard of, which bounds what a process that
shares no bus with this one (the CLI beside an embedded server) can cost.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from mcp.server.session import ServerSession
from mcp.server.subscriptions import PromptsListChanged, ServerEvent, ToolsListChanged

from app.changes import FEED, ChangeFeed
from app.mcp_server.catalog import Catalog, Offer, Target

logger = logging.getLogger(__name__)

#: How long a burst of commits may take to settle before endpoints are checked.
DEBOUNCE_S = 0.05
#: Endpoints with listeners are checked at least this often.
SWEEP_S = 30.0
#: Endpoints checked at once after a change.
CHECK_CONCURRENCY = 8
#: Baselines remembered for endpoints nobody listens to yet.
MAX_SERVED = 10_000

#: The endpoint and key id of the listen stream being opened (set around the SDK's ListenHandler).
LISTEN_TARGET: contextvars.ContextVar[tuple[Target, str] | None] = contextvars.ContextVar(
    "quiver_mcp_listen_target", default=None
)

Fingerprints = tuple[str, str]
GONE: Fingerprints = ("", "")


def fingerprints(offer: Offer | None) -> Fingerprints:
    return (offer.tools_fingerprint, offer.prompts_fingerprint) if offer is not None else GONE


@dataclass
class TrackedSession:
    """A handshake-era session, as the HTTP layer sees it."""

    target: Target
    key_id: str
    last_seen: float
    in_flight: int = 0
    session: ServerSession | None = None


@dataclass(frozen=True)
class _Stream:
    key_id: str
    deliver: Callable[[ServerEvent], None]


@dataclass
class _Listeners:
    sessions: set[str] = field(default_factory=set)
    streams: dict[object, _Stream] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.sessions or self.streams)


class ChangeNotifier:
    def __init__(self, catalog: Catalog, *, session_idle_s: float, feed: ChangeFeed = FEED) -> None:
        self.catalog = catalog
        self.feed = feed
        # A session the SDK expired is forgotten a little later here; until then a
        # notification to it is dropped by the SDK, which is harmless.
        self.session_expiry_s = session_idle_s + 60.0
        self._sessions: dict[str, TrackedSession] = {}
        self._targets: dict[str, _Listeners] = {}
        self._target_of: dict[str, Target] = {}
        self._known: dict[str, Fingerprints] = {}
        self._served: dict[str, Fingerprints] = {}
        self._changed = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._baselines: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.feed.add_watcher(self._on_change)
        self._task = asyncio.create_task(self._run(), name="mcp-list-changed")

    async def close(self) -> None:
        self.feed.remove_watcher(self._on_change)
        tasks = [task for task in (self._task, *self._baselines) if task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._task = None
        self._loop = None

    def _on_change(self) -> None:
        """A feed watcher: runs on whichever thread moved the generation."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._changed.set)

    # ------------------------------------------------------------ what clients saw

    def served(self, target: Target, offer: Offer | None) -> None:
        """A client was answered from ``offer``: the baseline of an endpoint not yet listened to."""
        if target.key not in self._served and len(self._served) >= MAX_SERVED:
            self._served.clear()
        self._served[target.key] = fingerprints(offer)

    # ------------------------------------------------------------ handshake-era sessions

    def session_opened(self, session_id: str, target: Target, key_id: str) -> None:
        self._sessions[session_id] = TrackedSession(target, key_id, time.monotonic())
        self._listen(target)
        self._targets[target.key].sessions.add(session_id)

    def sessions_of(self, key_id: str) -> int:
        return sum(1 for tracked in self._sessions.values() if tracked.key_id == key_id)

    def is_tracked(self, session_id: str) -> bool:
        return session_id in self._sessions

    @contextlib.contextmanager
    def session_request(self, session_id: str) -> Iterator[None]:
        """Around one HTTP request of a session (a GET stream lasts as long as it is open)."""
        tracked = self._sessions.get(session_id)
        if tracked is None:
            yield
            return
        tracked.in_flight += 1
        try:
            yield
        finally:
            tracked.in_flight -= 1
            tracked.last_seen = time.monotonic()

    def session_attached(self, session_id: str, session: ServerSession) -> None:
        """The SDK's session object of a tracked session: what notifications are sent on."""
        tracked = self._sessions.get(session_id)
        if tracked is not None and tracked.session is None:
            tracked.session = session

    def session_closed(self, session_id: str) -> None:
        tracked = self._sessions.pop(session_id, None)
        if tracked is not None:
            listeners = self._targets.get(tracked.target.key)
            if listeners is not None:
                listeners.sessions.discard(session_id)
            self._forget_if_unheard(tracked.target)

    def _expire_sessions(self) -> None:
        cutoff = time.monotonic() - self.session_expiry_s
        for session_id, tracked in list(self._sessions.items()):
            if tracked.in_flight == 0 and tracked.last_seen < cutoff:
                self.session_closed(session_id)

    # ------------------------------------------------------------ listen streams (SubscriptionBus)

    async def publish(self, event: ServerEvent) -> None:
        """The SDK's bus protocol: to every stream. Quiver's own events go per endpoint (``_notify``)."""
        for listeners in list(self._targets.values()):
            for stream in list(listeners.streams.values()):
                stream.deliver(event)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        opened_on = LISTEN_TARGET.get()
        if opened_on is None:
            raise RuntimeError("a listen stream is opened on an endpoint (LISTEN_TARGET)")
        target, key_id = opened_on
        token = object()
        self._listen(target)
        self._targets[target.key].streams[token] = _Stream(key_id, listener)

        def unsubscribe() -> None:
            listeners = self._targets.get(target.key)
            if listeners is not None:
                listeners.streams.pop(token, None)
            self._forget_if_unheard(target)

        return unsubscribe

    def streams_of(self, key_id: str) -> int:
        streams = (stream for listeners in self._targets.values() for stream in listeners.streams.values())
        return sum(1 for stream in streams if stream.key_id == key_id)

    # ------------------------------------------------------------ endpoints

    def _listen(self, target: Target) -> None:
        if target.key in self._targets:
            return
        self._targets[target.key] = _Listeners()
        self._target_of[target.key] = target
        served = self._served.get(target.key)
        if served is not None:
            self._known[target.key] = served
        elif self._loop is not None:
            # Nothing served here yet (the client listed on another replica, or not at all): now is the baseline.
            task = self._loop.create_task(self._baseline(target))
            self._baselines.add(task)
            task.add_done_callback(self._baselines.discard)

    async def _baseline(self, target: Target) -> None:
        try:
            offer = await self.catalog.offer(target)
        except Exception:
            logger.exception("MCP endpoint %s: could not read its offer", target.key)
            return
        self._known.setdefault(target.key, fingerprints(offer))

    def _forget_if_unheard(self, target: Target) -> None:
        listeners = self._targets.get(target.key)
        if listeners is not None and not listeners:
            del self._targets[target.key]
            self._target_of.pop(target.key, None)
            self._known.pop(target.key, None)

    async def _run(self) -> None:
        while True:
            # Not asyncio.wait_for: on Python 3.11 it drops a cancellation that comes as the event
            # is set, and close() would wait for this loop for ever.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SWEEP_S):
                    await self._changed.wait()
            self._changed.clear()
            await asyncio.sleep(DEBOUNCE_S)
            try:
                self._expire_sessions()
                await self.check()
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("MCP list_changed check failed; the next change or sweep tries again")

    async def check(self) -> None:
        """Compare every listened endpoint's offer with what it was; notify those that changed."""
        limit = asyncio.Semaphore(CHECK_CONCURRENCY)

        async def one(target: Target) -> None:
            async with limit:
                try:
                    offer = await self.catalog.offer(target)
                except Exception:
                    logger.exception("MCP endpoint %s: could not read its offer", target.key)
                    return
                now = fingerprints(offer)
                before = self._known.get(target.key)
                if target.key not in self._targets:
                    return  # nobody listens any more
                self._known[target.key] = now
                if before is not None and before != now:
                    await self._notify(target, tools=before[0] != now[0], prompts=before[1] != now[1])

        await asyncio.gather(*(one(target) for target in list(self._target_of.values())))

    async def _notify(self, target: Target, *, tools: bool, prompts: bool) -> None:
        listeners = self._targets.get(target.key)
        if listeners is None:
            return
        events: list[ServerEvent] = []
        if tools:
            events.append(ToolsListChanged())
        if prompts:
            events.append(PromptsListChanged())
        for stream in list(listeners.streams.values()):
            for event in events:
                stream.deliver(event)
        for session_id in list(listeners.sessions):
            tracked = self._sessions.get(session_id)
            if tracked is None or tracked.session is None:
                continue
            try:
                if tools:
                    await tracked.session.send_tool_list_changed()
                if prompts:
                    await tracked.session.send_prompt_list_changed()
            except Exception:
                logger.warning("MCP session %s: could not send list_changed", session_id[:16], exc_info=True)
        logger.info(
            "MCP endpoint %s changed; told %d session(s) and %d listen stream(s)",
            target.key,
            len(listeners.sessions),
            len(listeners.streams),
            extra={"tools_changed": tools, "prompts_changed": prompts},
        )
