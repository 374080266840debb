"""The supervisor's event broker (`quiver serve --workers N` without Redis): the Redis event
bus works through it unchanged, and what a client sends or leaves unread is bounded."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.events import local_broker
from app.events.local_broker import LocalBroker
from app.events.redis_bus import RedisEventBus


@pytest.fixture
async def broker() -> AsyncIterator[LocalBroker]:
    # Short path: a Unix socket's path is limited to about 100 bytes.
    with tempfile.TemporaryDirectory(prefix="qb-") as directory:
        broker = LocalBroker(Path(directory) / "events.sock")
        await broker.start()
        try:
            yield broker
        finally:
            await broker.close()


async def _raw(broker: LocalBroker, payload: bytes) -> bytes:
    reader, writer = await asyncio.open_unix_connection(str(broker.path))
    writer.write(payload)
    await writer.drain()
    try:
        return await asyncio.wait_for(reader.read(1000), 10)
    finally:
        writer.close()


class TestLocalBroker:
    async def test_an_event_published_by_one_bus_reaches_the_subscribers_of_another(self, broker: LocalBroker) -> None:
        publisher, listener = RedisEventBus(broker.url), RedisEventBus(broker.url)
        try:
            assert await publisher.ping()
            async with listener.subscribe("calls") as subscription, publisher.subscribe("calls") as own:
                await publisher.publish("calls", {"id": "tc_1", "n": 2**40})
                await publisher.publish("other", {"id": "tc_x"})
                await publisher.publish("calls", {"id": "tc_2"})
                events = aiter(subscription)
                assert await asyncio.wait_for(anext(events), 10) == {"id": "tc_1", "n": 2**40}
                assert await asyncio.wait_for(anext(events), 10) == {"id": "tc_2"}
                # The publisher's own subscriber got each event once (locally), not again from the broker.
                assert own.queue.qsize() == 2
        finally:
            await publisher.close()
            await listener.close()

    async def test_unknown_commands_are_refused_and_the_connection_stays_usable(self, broker: LocalBroker) -> None:
        reader, writer = await asyncio.open_unix_connection(str(broker.path))
        try:
            writer.write(b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPING\r\n")
            reply = await asyncio.wait_for(reader.readuntil(b"+PONG\r\n"), 10)
        finally:
            writer.close()
        assert reply.startswith(b"-ERR unknown command")

    async def test_oversized_or_malformed_commands_close_the_connection(self, broker: LocalBroker) -> None:
        too_large = b"*2\r\n$7\r\nPUBLISH\r\n$%d\r\n" % (local_broker.MAX_ARGUMENT_BYTES + 1)
        assert (await _raw(broker, too_large)).startswith(b"-ERR Protocol error: argument too large")
        too_many = b"*%d\r\n" % (local_broker.MAX_ARGUMENTS + 1)
        assert (await _raw(broker, too_many)).startswith(b"-ERR Protocol error: too many arguments")
        assert (await _raw(broker, b"PING\r\n")).startswith(b"-ERR Protocol error")

    async def test_a_subscriber_that_reads_nothing_is_disconnected_past_its_limit(
        self, broker: LocalBroker, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(local_broker, "MAX_PENDING_BYTES", 256 * 1024)
        reader, writer = await asyncio.open_unix_connection(str(broker.path))
        writer.write(b"*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nc\r\n")
        await writer.drain()
        await asyncio.wait_for(reader.readuntil(b":1\r\n"), 10)
        publisher = RedisEventBus(broker.url)
        payload = "x" * 64 * 1024
        try:
            delivered = []
            for _ in range(400):  # 25 MiB for a subscriber that never reads
                delivered.append(await publisher.link.client.publish("c", payload))
                if delivered[-1] == 0:
                    break
            assert delivered[0] == 1
            assert delivered[-1] == 0, "the broker kept queueing for a subscriber that reads nothing"
        finally:
            writer.close()
            await publisher.close()
