"""Reads an OpenAPI document in a child process: ``python -m app.tools.openapi_worker``.

The maintained validator takes seconds of CPU on a large document (about 6 s for 500
KiB on a busy 2-core machine); in the server's own process it would hold the
interpreter, and every other tenant's requests with it, meanwhile. A child process
shares nothing with the server, is bounded in memory (``RLIMIT_AS``) and CPU
(``RLIMIT_CPU``), is killed by the parent when it runs out of time
(``app.tools.openapi_import``), and dies with its parent: a server killed with SIGKILL
mid-import left its reader validating for as long as the document took (27 s of CPU for
1,000 operations on this machine), beside the restarted server's own retry.

stdin: ``{"spec", "base_url", "include"}``. stderr: one JSON line per progress step,
``{"phase", "done", "total"}``. stdout: ``{"title", "base", "every_key", "results"}``, or
``{"errors": [{"code", "message", "path"}]}`` when the document is refused.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys
from dataclasses import asdict
from typing import Any

from app.tools import openapi

MEMORY_LIMIT_BYTES = 2 * 1024 * 1024 * 1024
#: Above the parent's READ_TIMEOUT_S (60 s of wall time): reached only by a reader nobody waits for.
CPU_LIMIT_S = 90
#: The parent's pid, so that a reader whose parent died before it could ask to die with it exits.
PARENT_PID_VARIABLE = "QUIVER_OPENAPI_READER_PARENT"
PR_SET_PDEATHSIG = 1


def _operation(operation: openapi.Operation) -> dict[str, Any]:
    return {"method": operation.method, "path": operation.path, "operation_id": operation.operation_id}


def _result(result: openapi.Draft | openapi.Skip) -> dict[str, Any]:
    if isinstance(result, openapi.Skip):
        return {"skip": True, "operation": _operation(result.operation), "reason": result.reason}
    fields = asdict(result)
    fields["operation"] = _operation(result.operation)
    return fields


def read(request: dict[str, Any], progress: Any = None) -> dict[str, Any]:
    """The whole reading, as JSON-ready data (run here, in the child)."""
    try:
        if progress:
            progress("validate", 0, None)
        document = openapi.parse(str(request.get("spec") or ""))
        openapi.validate(document)
        base = openapi.base_url(document, request.get("base_url"))
        chosen = openapi.selected(document, request.get("include"))
        every_key = sorted({operation.key for operation, _, _ in openapi.operations(document)})

        def step(done: int, total: int) -> None:
            if progress:
                progress("read", done, total)

        results = openapi.drafts(document, chosen, base, step)
    except openapi.SpecError as error:
        return {"errors": [{"code": error.code, "message": error.message, "path": error.path}]}
    except openapi.InvalidSpecError as invalid:
        return {"errors": [{"code": item.code, "message": item.message, "path": item.path} for item in invalid.errors]}
    return {"title": document.title, "base": base, "every_key": every_key, "results": [_result(r) for r in results]}


def _die_with_parent() -> None:
    """Linux: SIGKILL when the process that started this one ends (elsewhere the CPU limit bounds it)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    parent = os.environ.get(PARENT_PID_VARIABLE)
    if parent and os.getppid() != int(parent):
        sys.exit(1)  # the parent is already gone: nobody will read the answer


def main() -> None:
    _die_with_parent()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT_S, CPU_LIMIT_S))

    def progress(phase: str, done: int, total: int | None) -> None:
        sys.stderr.write(json.dumps({"phase": phase, "done": done, "total": total}) + "\n")
        sys.stderr.flush()

    try:
        answer = read(json.loads(sys.stdin.read()), progress)
    except MemoryError:
        refusal = {"code": "TOO_LARGE", "message": "Reading the document needs too much memory.", "path": []}
        answer = {"errors": [refusal]}
    sys.stdout.write(json.dumps(answer))


if __name__ == "__main__":
    main()
