"""An ASGI app served by uvicorn on a background thread, for servers tests talk to over HTTP."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn


@contextmanager
def serve_in_thread(
    app: Any, ready_path: str, *, name: str, host: str = "127.0.0.1", start_timeout_s: float = 10.0
) -> Iterator[int]:
    """Serve ``app`` on ``host`` and a free port until the block ends; yields the port once
    ``ready_path`` answers 200."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, 0))
    port: int = listener.getsockname()[1]
    config = uvicorn.Config(
        app, log_config=None, access_log=False, lifespan="off", loop="asyncio", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        _wait_until_ready(server, thread, f"http://{host}:{port}{ready_path}", name, start_timeout_s)
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        listener.close()


def _wait_until_ready(server: uvicorn.Server, thread: threading.Thread, url: str, name: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not thread.is_alive():
            raise RuntimeError(f"the {name} stopped while starting")
        if server.started:
            try:
                if httpx.get(url, timeout=1, trust_env=False).status_code == 200:
                    return
            except httpx.TransportError:
                pass
        time.sleep(0.02)
    raise RuntimeError(f"the {name} did not answer {url} within {timeout_s}s")
