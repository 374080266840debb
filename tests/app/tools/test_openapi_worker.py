"""The OpenAPI reader (``python -m app.tools.openapi_worker``, the child process importOpenApi
reads a document in) dies with the process that started it. Before, a server killed with
SIGKILL mid-import left its reader running until the document was read (27 s of CPU for
1,000 operations), beside the restarted server's retry of the same import."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.processes import REPOSITORY_ROOT

#: Far longer than a process takes to exit once killed: a reader still there then outlived its parent.
EXIT_WAIT_S = 30.0

#: Starts the reader as app.tools.openapi_import does, its pid in the environment (but its stdin
#: is the test's pipe, held open, so the reader waits for its document for ever), prints the
#: reader's pid, and waits to be killed.
PARENT = """
import os, subprocess, sys, time
from app.tools.openapi_worker import PARENT_PID_VARIABLE
stdin = int(sys.argv[1])
reader = subprocess.Popen(
    [sys.executable, "-m", "app.tools.openapi_worker"],
    stdin=stdin,
    pass_fds=[stdin],
    env={**os.environ, PARENT_PID_VARIABLE: str(os.getpid())},
)
print(reader.pid, flush=True)
time.sleep(600)
"""


def _is_running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent's death signal is Linux's")
@pytest.mark.parametrize("when", ["early", "late"])
def test_the_reader_ends_when_its_parent_is_killed(when: str) -> None:
    read_end, write_end = os.pipe()
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(read_end)],
        cwd=REPOSITORY_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPOSITORY_ROOT)},
        stdout=subprocess.PIPE,
        pass_fds=[read_end],
    )
    os.close(read_end)
    reader = 0
    try:
        assert parent.stdout is not None
        reader = int(parent.stdout.readline())
        assert _is_running(reader)
        if when == "late":
            # Killed once the reader has started up (it then dies by its parent-death signal); "early",
            # while it may still be importing (then it finds its parent gone). Not a timed assertion.
            time.sleep(4)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + EXIT_WAIT_S
        while _is_running(reader) and time.monotonic() < deadline:
            time.sleep(0.05)
        # Its document never came (the pipe is still open here): only its parent's death ended it.
        assert not _is_running(reader), "the reader outlived its parent"
    finally:
        os.close(write_end)
        if parent.poll() is None:
            parent.kill()
        if reader and _is_running(reader):
            os.kill(reader, signal.SIGKILL)
