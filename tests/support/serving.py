"""The app served for real: uvicorn (lifespan on) on a loopback port, in the tests' event loop."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn

from app.config import Settings
from app.main import create_app


@asynccontextmanager
async def serving(settings: Settings, app: Any = None) -> AsyncIterator[str]:
    """``app`` (by default ``create_app(settings)``) under uvicorn until the block ends; yields its base URL."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(
        app or create_app(settings), lifespan="on", log_config=None, access_log=False, timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[listener]))
    try:
        while not server.started:
            if task.done():
                task.result()
                raise AssertionError("uvicorn stopped while starting")
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 15)
        listener.close()
