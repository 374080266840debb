"""A small publish/subscribe broker on a Unix socket, for ``quiver serve --workers N`` without Redis.

The supervising process runs it; every worker connects to it exactly as it would to Redis
(``unix://`` URL, :class:`~app.events.redis_bus.RedisEventBus`), so events, catalog changes
and key revocations reach every worker with the same code, outage handling included. It
speaks the part of the Redis protocol (RESP2) that the bus and its link use: ``PING``,
``PUBLISH``, ``SUBSCRIBE``, ``UNSUBSCRIBE``, ``ECHO`` and ``CLIENT`` (answered ``OK``, as
redis-py sends ``CLIENT SETINFO`` when it connects); anything else is an error reply.

Everything is bounded: the arguments of a command, the size of each, and what a
subscriber may leave unread (past ``MAX_PENDING_BYTES`` it is disconnected, as Redis
does with its pub/sub output buffer limit; its bus reconnects and reconciles). The socket
lives in a directory only its owner can enter.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from pathlib import Path

logger = logging.getLogger("quiver.broker")

MAX_ARGUMENTS = 1024
MAX_ARGUMENT_BYTES = 64 * 1024 * 1024
MAX_PENDING_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 64 * 1024


class ProtocolError(Exception):
    pass


def _bulk(value: bytes) -> bytes:
    return b"$%d\r\n%s\r\n" % (len(value), value)


def _array(*items: bytes) -> bytes:
    return b"*%d\r\n" % len(items) + b"".join(items)


def _integer(value: int) -> bytes:
    return b":%d\r\n" % value


async def _read_command(reader: asyncio.StreamReader) -> list[bytes] | None:
    """One command (an array of bulk strings), or None at the end of the stream."""
    line = await reader.readline()
    if not line:
        return None
    if not line.startswith(b"*") or not line.endswith(b"\r\n"):
        raise ProtocolError("expected an array of bulk strings")
    count = _length(line)
    if not 0 < count <= MAX_ARGUMENTS:
        raise ProtocolError("too many arguments")
    arguments: list[bytes] = []
    for _ in range(count):
        header = await reader.readline()
        if not header.startswith(b"$"):
            raise ProtocolError("expected a bulk string")
        size = _length(header)
        if not 0 <= size <= MAX_ARGUMENT_BYTES:
            raise ProtocolError("argument too large")
        data = await reader.readexactly(size + 2)
        arguments.append(data[:-2])
    return arguments


def _length(line: bytes) -> int:
    try:
        return int(line[1:].strip())
    except ValueError:
        raise ProtocolError("bad length") from None


class _Client:
    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.channels: set[bytes] = set()

    def send(self, frame: bytes) -> bool:
        """Queue a frame; False (and the connection closed) when the client reads too slowly."""
        if self.writer.is_closing():
            return False
        if self.writer.transport.get_write_buffer_size() > MAX_PENDING_BYTES:
            logger.warning("event broker: a subscriber fell %d bytes behind; disconnected", MAX_PENDING_BYTES)
            self.writer.close()
            return False
        self.writer.write(frame)
        return True


class LocalBroker:
    """The broker; :meth:`serve` runs it on the current loop, :meth:`start_thread` on its own thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._channels: dict[bytes, set[_Client]] = {}
        self._server: asyncio.AbstractServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        # RESP2: redis-py 8 would otherwise open with HELLO 3 (RESP3), which this broker does not speak.
        return f"unix://{self.path}?protocol=2"

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        self._server = await asyncio.start_unix_server(self._serve_client, path=str(self.path), limit=MAX_LINE_BYTES)
        os.chmod(self.path, 0o600)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for clients in self._channels.values():
                for client in clients:
                    client.writer.close()
            self._channels.clear()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def serve(self) -> None:
        """Start, run until :meth:`stop_thread` (or cancellation), close."""
        await self.start()
        assert self._stopped is not None
        try:
            await self._stopped.wait()
        finally:
            await self.close()

    def start_thread(self) -> None:
        """Run on a daemon thread of its own; returns once the socket accepts connections."""
        ready = threading.Event()
        failure: list[BaseException] = []

        async def main() -> None:
            try:
                await self.start()
            except BaseException as error:
                failure.append(error)
                ready.set()
                raise
            ready.set()
            assert self._stopped is not None
            try:
                await self._stopped.wait()
            finally:
                await self.close()

        self._thread = threading.Thread(target=asyncio.run, args=(main(),), name="quiver-event-broker", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]

    def stop_thread(self, timeout_s: float = 5.0) -> None:
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(timeout_s)

    async def _serve_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        client = _Client(writer)
        try:
            while True:
                command = await _read_command(reader)
                if command is None:
                    return
                reply = self._execute(client, command)
                if reply:
                    client.send(reply)
                    await writer.drain()
        except (ProtocolError, ValueError) as error:
            with contextlib.suppress(Exception):
                writer.write(b"-ERR Protocol error: %s\r\n" % str(error).encode())
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            for channel in client.channels:
                self._unsubscribe(client, channel)
            writer.close()

    def _execute(self, client: _Client, command: list[bytes]) -> bytes:
        name, arguments = command[0].upper(), command[1:]
        if name == b"PUBLISH" and len(arguments) == 2:
            return _integer(self._publish(arguments[0], arguments[1]))
        if name == b"SUBSCRIBE" and arguments:
            replies = []
            for channel in arguments:
                if channel not in client.channels:
                    client.channels.add(channel)
                    self._channels.setdefault(channel, set()).add(client)
                replies.append(_array(_bulk(b"subscribe"), _bulk(channel), _integer(len(client.channels))))
            return b"".join(replies)
        if name == b"UNSUBSCRIBE":
            replies = []
            for channel in arguments or sorted(client.channels):
                if channel in client.channels:
                    client.channels.discard(channel)
                    self._unsubscribe(client, channel)
                replies.append(_array(_bulk(b"unsubscribe"), _bulk(channel), _integer(len(client.channels))))
            if not replies:
                replies.append(_array(_bulk(b"unsubscribe"), b"$-1\r\n", _integer(0)))
            return b"".join(replies)
        if name == b"PING":
            if client.channels:
                return _array(_bulk(b"pong"), _bulk(arguments[0] if arguments else b""))
            return _bulk(arguments[0]) if arguments else b"+PONG\r\n"
        if name == b"ECHO" and len(arguments) == 1:
            return _bulk(arguments[0])
        if name == b"CLIENT":
            return b"+OK\r\n"
        logger.warning("event broker: unknown command %r", name)
        return b"-ERR unknown command for the Quiver event broker\r\n"

    def _publish(self, channel: bytes, data: bytes) -> int:
        clients = self._channels.get(channel)
        if not clients:
            return 0
        frame = _array(_bulk(b"message"), _bulk(channel), _bulk(data))
        return sum(1 for client in list(clients) if client.send(frame))

    def _unsubscribe(self, client: _Client, channel: bytes) -> None:
        clients = self._channels.get(channel)
        if clients is not None:
            clients.discard(client)
            if not clients:
                del self._channels[channel]
