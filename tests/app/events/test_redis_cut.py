"""The shared Redis (127.0.0.1:6379, a database of these tests' own) reached through a TCP
proxy that the test cuts: every connection reset and new ones refused, as when Redis restarts
or a proxy drops the link. A strict subscriber (what a GraphQL subscription is) is told that
events were missed instead of silently missing them; a lenient one keeps this process's
events; a strict subscription is refused until the bus listens again, and then hears the
other instances again. A gap in what another instance sent (its outbox overflowed while its
own Redis link was cut) ends the strict subscribers of that topic too."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest

from app.events import redis_bus
from app.events.bus import EventBusUnavailableError, EventsMissedError, Subscription
from app.events.redis_bus import RedisEventBus
from tests.databases import require_redis
from tests.support.tcp_proxy import TcpProxy, tcp_proxy

#: A database no other test uses: the bus puts it in its channel names, so nothing else is heard.
DATABASE = 13
#: Generous bounds for a loaded machine: what is checked is that it happens, not how fast.
WAIT_S = 30.0


async def _redis() -> tuple[str, int]:
    parts = urlsplit(await require_redis())
    return parts.hostname or "127.0.0.1", parts.port or 6379


def _url(port: int) -> str:
    return f"redis://127.0.0.1:{port}/{DATABASE}"


async def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


async def _next(subscription: Subscription) -> dict[str, object]:
    async def first() -> dict[str, object]:
        async for event in subscription:
            return event
        raise AssertionError("subscription ended")

    return await asyncio.wait_for(first(), timeout=WAIT_S)


async def _live(publisher: RedisEventBus, topic: str, subscription: Subscription) -> None:
    """Publish until the subscriber hears the other instance (SUBSCRIBE reached Redis)."""
    while True:
        marker = secrets.token_hex(4)
        await publisher.publish(topic, {"marker": marker})
        try:
            async with asyncio.timeout(2):
                while (await _next(subscription)).get("marker") != marker:
                    pass
            return
        except TimeoutError:
            continue


class TestACutRedisConnection:
    async def test_strict_subscribers_are_told_then_hear_the_others_again(self) -> None:
        host, port = await _redis()
        topic = f"cut-{secrets.token_hex(3)}"
        with tcp_proxy(port, host) as proxy:
            publisher, listener = RedisEventBus(_url(port)), RedisEventBus(_url(proxy.port))
            try:
                async with (
                    listener.subscribe(topic, strict=True) as strict,
                    listener.subscribe(topic) as lenient,
                ):
                    await _live(publisher, topic, strict)
                    proxy.cut()
                    await publisher.publish(topic, {"n": "published while the listener was cut off"})
                    await listener.publish(topic, {"n": "local"})
                    with pytest.raises(EventsMissedError, match="lost its connection"):
                        while True:
                            await _next(strict)
                    # The lenient one (the change relay, a pipeline) keeps this process's events.
                    while (await _next(lenient)).get("n") != "local":
                        pass
                    await _refused_until_restored(listener, proxy, publisher, topic)
            finally:
                await publisher.close()
                await listener.close()

    async def test_a_gap_in_what_another_instance_sent_ends_the_topics_strict_subscribers(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(redis_bus, "OUTBOX_LIMIT", 5)
        host, port = await _redis()
        topic, other = f"gap-{secrets.token_hex(3)}", f"gap-other-{secrets.token_hex(3)}"
        with tcp_proxy(port, host) as proxy:
            publisher, listener = RedisEventBus(_url(proxy.port)), RedisEventBus(_url(port))
            try:
                async with (
                    listener.subscribe(topic, strict=True) as strict,
                    listener.subscribe(other, strict=True) as elsewhere,
                ):
                    await _live(publisher, topic, strict)
                    await _live(publisher, other, elsewhere)
                    proxy.cut()
                    assert not await publisher.link.probe()
                    # The publisher's outbox keeps the last 5: the first 3 never reach Redis.
                    for number in range(8):
                        await publisher.publish(topic, {"n": number})
                    proxy.restore()
                    received = []
                    with pytest.raises(EventsMissedError, match="did not arrive"):
                        while True:
                            received.append(await _next(strict))
                    assert received == []  # the first to arrive showed the gap
                    # The other topic lost nothing: its subscriber goes on.
                    await _live(publisher, other, elsewhere)
            finally:
                await publisher.close()
                await listener.close()


class TestABlackHoledRedisConnection:
    """The proxy passes no byte either way but keeps every connection open (``pause()``: a NAT or
    firewall dropping the flow's packets, no reset): nothing fails on the listening connection,
    only the PING the bus sends on it goes unanswered."""

    async def test_strict_subscribers_are_told_then_hear_the_others_again(self) -> None:
        host, port = await _redis()
        topic = f"hole-{secrets.token_hex(3)}"
        with tcp_proxy(port, host) as proxy:
            publisher = RedisEventBus(_url(port))
            listener = RedisEventBus(_url(proxy.port), ping_interval_s=0.2)
            try:
                async with listener.subscribe(topic, strict=True) as strict:
                    await _live(publisher, topic, strict)
                    # Answered PINGs end nothing: still live after several of them.
                    await asyncio.sleep(1.0)
                    await _live(publisher, topic, strict)
                    assert listener.hears_others()

                    proxy.pause()
                    await publisher.publish(topic, {"n": "published while the listener was black-holed"})
                    with pytest.raises(EventsMissedError, match="lost its connection"):
                        while True:
                            await _next(strict)
                    assert listener.link.reason is not None and "PING" in listener.link.reason
                    await _refused_until_restored(listener, proxy, publisher, topic)
            finally:
                proxy.restore()
                await publisher.close()
                await listener.close()


async def _refused_until_restored(
    listener: RedisEventBus, proxy: TcpProxy, publisher: RedisEventBus, topic: str
) -> None:
    """Not listening: a strict subscription would miss the others' events, so it is refused; once
    the proxy forwards again, the bus listens again and a strict subscription hears the others."""
    with pytest.raises(EventBusUnavailableError):
        async with listener.subscribe(topic, strict=True):
            pass
    assert not listener.hears_others()

    proxy.restore()
    await _until(listener.hears_others)
    async with listener.subscribe(topic, strict=True) as again:
        await _live(publisher, topic, again)
