"""A Redis server of the test's own, on a port that stays its own: killed and started again at will
(never the shared one on 6379). Needs ``redis-server``: skipped without it, unless ``CI=true``."""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.databases import IS_CI
from tests.support.processes import free_port, stop, wait_for_port


def require_redis_server() -> str:
    binary = shutil.which("redis-server")
    if binary is None:
        message = "redis-server is not installed (apt-get install redis-server)"
        if IS_CI:
            pytest.fail(message + "; CI=true requires it", pytrace=False)
        pytest.skip(message)
    return binary


class RedisServer:
    """``redis-server`` without persistence on one port; ``kill`` is SIGKILL, ``start`` brings it back empty."""

    def __init__(self) -> None:
        self.binary = require_redis_server()
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.process)

    def kill(self) -> None:
        stop(self.process)
        self.process = None


@contextmanager
def redis_server(*, started: bool = True) -> Iterator[RedisServer]:
    server = RedisServer()
    if started:
        server.start()
    try:
        yield server
    finally:
        server.kill()


@contextmanager
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never answers: a Redis that hangs."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []
    closing = threading.Event()

    def accept() -> None:
        while not closing.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            held.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        closing.set()
        listener.close()
        for connection in held:
            connection.close()
        thread.join(timeout=5)
