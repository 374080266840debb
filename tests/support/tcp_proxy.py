"""A TCP proxy in front of a real server (PostgreSQL, Redis...), for outages the tests stage:
``pause()`` keeps every connection open but passes no byte (a hung server, a black-holed
network), ``cut()`` resets every connection and refuses new ones (a crashed server, a broken
link), ``restore()`` passes bytes again. It runs its own event loop on a thread, so the
process under test may be a subprocess or the test's own loop."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any


class TcpProxy:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self._mode = "pass"
        self._writers: set[asyncio.StreamWriter] = set()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._loop = asyncio.new_event_loop()
        self._flowing: asyncio.Event | None = None
        self._server: asyncio.Server | None = None
        started = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(started,), daemon=True)
        self._thread.start()
        started.wait(10)

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)

        async def serve() -> None:
            self._flowing = asyncio.Event()
            self._flowing.set()
            self._server = await asyncio.start_server(self._handle, sock=self._listener)
            started.set()
            with contextlib.suppress(asyncio.CancelledError):
                await self._server.serve_forever()
            # The connections' own tasks end with the loop.
            others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        self._loop.run_until_complete(serve())

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._mode == "cut":
            _reset(writer)
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            _reset(writer)
            return
        self._writers.update((writer, upstream_writer))
        await asyncio.gather(self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer))
        self._writers.difference_update((writer, upstream_writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert self._flowing is not None
        try:
            while data := await reader.read(65536):
                await self._flowing.wait()
                if self._mode == "cut":
                    break
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError, RuntimeError):
                writer.close()

    def _call(self, action: Callable[[], Coroutine[Any, Any, None]]) -> None:
        asyncio.run_coroutine_threadsafe(action(), self._loop).result(10)

    def pause(self) -> None:
        async def action() -> None:
            assert self._flowing is not None
            self._mode = "pause"
            self._flowing.clear()

        self._call(action)

    def cut(self) -> None:
        async def action() -> None:
            assert self._flowing is not None
            self._mode = "cut"
            self._flowing.set()
            for writer in list(self._writers):
                _reset(writer)
            self._writers.clear()

        self._call(action)

    def restore(self) -> None:
        async def action() -> None:
            assert self._flowing is not None
            self._mode = "pass"
            self._flowing.set()

        self._call(action)

    def close(self) -> None:
        async def action() -> None:
            for writer in list(self._writers):
                _reset(writer)
            if self._server is not None:
                self._server.close()

        with contextlib.suppress(Exception):
            self._call(action)
        self._thread.join(10)


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with an RST (SO_LINGER 0), as a crashed peer or a broken link does."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError, RuntimeError):
        writer.close()


@contextmanager
def tcp_proxy(target_port: int, target_host: str = "127.0.0.1") -> Iterator[TcpProxy]:
    proxy = TcpProxy(target_port, target_host)
    try:
        yield proxy
    finally:
        proxy.close()
