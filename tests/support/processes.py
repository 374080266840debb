"""Server processes started by the tests: a free port, readiness with a deadline, a sure kill."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT_S = 20.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout_s: float = READY_TIMEOUT_S) -> None:
    """Until the port accepts connections; fails early if the process died."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listened on {port} within {timeout_s}s")


def stop(process: subprocess.Popen[bytes] | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.kill()
    process.wait(timeout=10)


class HttpMcpServer:
    """``tests.support.mcp_http_server`` in a subprocess, on one port for its whole life.

    ``restart()`` starts it again on the same port (after a crash, or a kill); ``state``
    rewrites the file the server reads on every request.
    """

    def __init__(self, state_path: Path, *, is_sse: bool = False) -> None:
        self.port = free_port()
        self.state_path = state_path
        self.is_sse = is_sse
        self.process: subprocess.Popen[bytes] | None = None
        self.set_state({})

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/{'sse' if self.is_sse else 'mcp'}"

    def set_state(self, state: dict[str, Any]) -> None:
        temporary = self.state_path.with_suffix(".tmp")
        temporary.write_text(json.dumps(state))
        temporary.replace(self.state_path)

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.support.mcp_http_server",
                "--port",
                str(self.port),
                "--state",
                str(self.state_path),
                *(["--sse"] if self.is_sse else []),
            ],
            cwd=REPOSITORY_ROOT,
            env={**os.environ, "PYTHONPATH": str(REPOSITORY_ROOT)},
        )
        wait_for_port(self.port, self.process)

    def ensure_running(self) -> None:
        if self.process is None or self.process.poll() is not None:
            self.start()

    def restart(self) -> None:
        stop(self.process)
        self.start()

    def stop(self) -> None:
        stop(self.process)

    @property
    def is_running(self) -> bool:
        return self.process is not None and self.process.poll() is None


@contextmanager
def running_http_mcp_server(directory: Path, *, is_sse: bool = False) -> Iterator[HttpMcpServer]:
    """An :class:`HttpMcpServer` keeping its state in ``directory``, started, stopped afterwards."""
    server = HttpMcpServer(directory / "state.json", is_sse=is_sse)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def child_pids(marker: str) -> set[int]:
    """Pids of this process's children whose command line contains ``marker`` (Linux /proc)."""
    found: set[int] = set()
    parent = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        # The command name in field 2 may hold spaces; the parent pid follows its closing ")".
        fields = stat.rsplit(")", 1)[1].split()
        state, parent_pid = fields[0], int(fields[1])
        if parent_pid == parent and marker in cmdline and state != "Z":
            found.add(int(entry.name))
    return found


async def wait_until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout_s}s")
        await asyncio.sleep(0.02)
