"""PostgreSQL going away under a running `quiver serve`, staged with a TCP proxy between them:
cut (every connection reset, new ones refused) and paused (connections open, no byte passes:
a hung server or a black-holed link), then restored.

While it is away, requests are answered — not held — with a GraphQL error of the stable code
DATABASE_UNAVAILABLE (not INTERNAL_ERROR, never a stack trace) and /healthz says 503 "down";
once it is back the same replica serves again without a restart, and a mutation retried
after the outage takes effect once.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import websockets
from cryptography.fernet import Fernet
from sqlalchemy.engine import make_url

from tests.databases import postgres_database
from tests.support.processes import REPOSITORY_ROOT, free_port, stop
from tests.support.tcp_proxy import TcpProxy, tcp_proxy
from tests.test_replicas import ADMIN_TOKEN, _serve, _wait_healthy

SPACES = "query { spaces(first: 100) { edges { node { name } } } }"
CREATE_SPACE = """mutation Create($name: String!) { createSpace(input: {name: $name, label: "Outage"}) {
  space { id } userErrors { code message } } }"""
CALL = """mutation Call($space: ID!) { invokeTool(input: {spaceId: $space, toolId: "bt_calculator",
  arguments: {expression: "6 * 7"}}) { status data error { code message } } }"""
CREATE_KEY = "mutation { createApiKey(input: {role: ADMIN}) { secret userErrors { code message } } }"
TRACED_CALL = """mutation Call($space: ID!) { invokeTool(input: {spaceId: $space, toolId: "bt_calculator",
  arguments: {expression: "6 * 7"}}) { status traceId error { code message } } }"""
CALL_LOG = "query { toolCalls(first: 100) { totalCount edges { node { id } } } }"
#: Calls TestDatabaseCut makes: before, during and after the cut.
CALLS_MADE = 3
#: Far above QUIVER_DATABASE_TIMEOUT_S below: a request still unanswered then is held by the outage.
CLIENT_TIMEOUT_S = 60.0


@contextmanager
def _replica_behind_proxy(tmp_path: Path, **settings: str) -> Iterator[tuple[int, TcpProxy]]:
    with postgres_database() as url:
        database = make_url(url)
        with tcp_proxy(database.port or 5432, database.host or "127.0.0.1") as proxy:
            port = free_port()
            env = {
                **os.environ,
                "PYTHONPATH": str(REPOSITORY_ROOT),
                "QUIVER_DATABASE_URL": database.set(port=proxy.port).render_as_string(hide_password=False),
                "QUIVER_SECRET_KEY": Fernet.generate_key().decode(),
                "QUIVER_ADMIN_TOKEN": ADMIN_TOKEN,
                **settings,
            }
            log = tmp_path / f"replica-{port}.log"
            process: subprocess.Popen[bytes] | None = None
            try:
                process = _serve(port, env, log)
                _wait_healthy(port, process, log)
                yield port, proxy
            finally:
                proxy.restore()
                stop(process)
            assert "Traceback" not in log.read_text(errors="replace"), log.read_text(errors="replace")[-4000:]


def _post(port: int, query: str, variables: dict[str, Any] | None = None) -> httpx.Response:
    return httpx.post(
        f"http://127.0.0.1:{port}/graphql",
        json={"query": query, "variables": variables or {}},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=CLIENT_TIMEOUT_S,
        trust_env=False,
    )


def _data(port: int, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    response = _post(port, query, variables)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


def _unavailable(response: httpx.Response) -> None:
    """The answer of a request made while the database is away: a GraphQL error in a 200 when
    its operation ran, a 503 to retry after when it could not start (its key's look-up)."""
    assert response.status_code in (200, 503), response.text
    if response.status_code == 503:
        assert response.headers["Retry-After"] == "1"
    assert "Traceback" not in response.text
    body = response.json()
    codes = [error.get("extensions", {}).get("code") for error in body.get("errors", [])]
    assert codes == ["DATABASE_UNAVAILABLE"], body
    assert "try again" in body["errors"][0]["message"]


def _space_names(port: int) -> list[str]:
    return [edge["node"]["name"] for edge in _data(port, SPACES)["spaces"]["edges"]]


def _health(port: int) -> int:
    return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=CLIENT_TIMEOUT_S, trust_env=False).status_code


class TestDatabaseCut:
    def test_requests_get_database_unavailable_and_the_replica_recovers_without_restart(self, tmp_path: Path) -> None:
        with _replica_behind_proxy(tmp_path) as (port, proxy):
            space = _data(port, CREATE_SPACE, {"name": "before"})["createSpace"]["space"]["id"]
            fresh_key = _data(port, CREATE_KEY)["createApiKey"]["secret"]  # never used: nobody has it cached
            assert _data(port, CALL, {"space": space})["invokeTool"]["status"] == "SUCCESS"

            proxy.cut()
            # A WebSocket whose key cannot be looked up is told to try again later, not that its key is bad.
            assert asyncio.run(_websocket_close(port, fresh_key)) == (1013, "DATABASE_UNAVAILABLE")
            # A call the gateway could still make (its tool and key were resolved moments ago)
            # is answered; its call-log row is kept until the database is back, then written.
            during = _data(port, CALL, {"space": space})["invokeTool"]
            assert during["status"] == "SUCCESS", during
            # ... and on disk, in the default spool folder on PostgreSQL: the working directory's.
            spool = tmp_path / "quiver-spool"
            assert len(_spool_files(spool)) == 1
            _unavailable(_post(port, SPACES))
            _unavailable(_post(port, CREATE_SPACE, {"name": "during"}))
            assert _health(port) == 503

            proxy.restore()
            assert _health(port) == 200
            assert _data(port, CREATE_SPACE, {"name": "during"})["createSpace"]["userErrors"] == []
            assert sorted(_space_names(port)) == ["before", "during", "system"]
            assert _data(port, CALL, {"space": space})["invokeTool"]["status"] == "SUCCESS"
            # The row of the call answered during the cut was written once the database answered.
            ids = _call_ids(port)
            assert len(ids) == len(set(ids)) == CALLS_MADE, ids
            # Every kept row is in the database: the spool file is gone.
            _wait_for(lambda: not _spool_files(spool), "the spool file removed once its rows were written")


async def _websocket_close(port: int, key: str) -> tuple[int, str]:
    """How the server closes a socket whose connection_init carries ``key``."""
    async with websockets.connect(
        f"ws://127.0.0.1:{port}/graphql",
        subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
    ) as socket:
        await socket.send(json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {key}"}}))
        try:
            message = await asyncio.wait_for(socket.recv(), CLIENT_TIMEOUT_S)
        except websockets.ConnectionClosed as closed:
            assert closed.rcvd is not None, closed
            return closed.rcvd.code, closed.rcvd.reason.split(":")[0]
    raise AssertionError(f"the socket was not closed: {message!r}")


def _call_ids(port: int) -> list[str]:
    """The call log's ids, once it holds every call answered (rows kept during an outage come a little later)."""
    deadline = time.monotonic() + CLIENT_TIMEOUT_S
    while True:
        connection = _data(port, CALL_LOG)["toolCalls"]
        if connection["totalCount"] >= CALLS_MADE or time.monotonic() > deadline:
            return [edge["node"]["id"] for edge in connection["edges"]]
        time.sleep(0.2)


class TestDatabaseHung:
    def test_requests_are_answered_while_it_hangs_and_a_retry_takes_effect_once(self, tmp_path: Path) -> None:
        with _replica_behind_proxy(tmp_path, QUIVER_DATABASE_TIMEOUT_S="2") as (port, proxy):
            _data(port, CREATE_SPACE, {"name": "before"})

            proxy.pause()
            # Answered while the database still hangs (before: held until it came back).
            _unavailable(_post(port, CREATE_SPACE, {"name": "during"}))
            _unavailable(_post(port, SPACES))
            assert _health(port) == 503

            proxy.restore()
            retried = _data(port, CREATE_SPACE, {"name": "during"})["createSpace"]
            # The first attempt may have committed before its answer was lost: then the retry is a DUPLICATE.
            assert [error["code"] for error in retried["userErrors"]] in ([], ["DUPLICATE"])
            assert sorted(_space_names(port)) == ["before", "during", "system"]


def _start(tmp_path: Path, env: dict[str, str]) -> tuple[int, subprocess.Popen[bytes], Path]:
    port = free_port()
    log = tmp_path / f"replica-{port}.log"
    process = _serve(port, env, log)
    _wait_healthy(port, process, log)
    return port, process, log


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    """Until ``condition`` holds; fails after CLIENT_TIMEOUT_S (a wait, not a measured time)."""
    deadline = time.monotonic() + CLIENT_TIMEOUT_S
    while not condition():
        assert time.monotonic() < deadline, f"still not so after {CLIENT_TIMEOUT_S}s: {what}"
        time.sleep(0.1)


def _rows_per_trace(url: str) -> dict[str, int]:
    """tool_call rows per trace id, read straight from PostgreSQL (not through the proxy)."""

    async def read() -> dict[str, int]:
        dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        connection = await asyncpg.connect(dsn)
        try:
            rows = await connection.fetch("SELECT trace_id, count(*) FROM tool_call GROUP BY trace_id")
        finally:
            await connection.close()
        return {row[0]: row[1] for row in rows}

    return asyncio.run(read())


def _spool_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("calls-*.jsonl"))


class TestKilledDuringOutage:
    def test_calls_answered_before_a_kill_have_their_rows_written_once_by_the_next_server(self, tmp_path: Path) -> None:
        """kill -9 while PostgreSQL is cut: before, the rows kept in memory died with the process."""
        spool = tmp_path / "spool"
        with postgres_database() as url:
            database = make_url(url)
            with tcp_proxy(database.port or 5432, database.host or "127.0.0.1") as proxy:
                env = {
                    **os.environ,
                    "PYTHONPATH": str(REPOSITORY_ROOT),
                    "QUIVER_DATABASE_URL": database.set(port=proxy.port).render_as_string(hide_password=False),
                    "QUIVER_SECRET_KEY": Fernet.generate_key().decode(),
                    "QUIVER_ADMIN_TOKEN": ADMIN_TOKEN,
                    "QUIVER_SPOOL_DIR": str(spool),
                }
                logs: list[Path] = []
                port, first, log = _start(tmp_path, env)
                logs.append(log)
                try:
                    space = _data(port, CREATE_SPACE, {"name": "killed"})["createSpace"]["space"]["id"]
                    answered = [_data(port, TRACED_CALL, {"space": space})["invokeTool"]]
                    proxy.cut()
                    for _ in range(4):
                        answered.append(_data(port, TRACED_CALL, {"space": space})["invokeTool"])
                    assert [call["status"] for call in answered] == ["SUCCESS"] * 5, answered
                    traces = [call["traceId"] for call in answered]
                    # Each answer came after its row was on disk.
                    [file] = _spool_files(spool)
                    lines = file.read_bytes().splitlines()
                    assert [json.loads(line)["row"]["trace_id"] for line in lines[1:]] == traces[1:]
                    left = file.read_bytes()
                finally:
                    first.kill()  # SIGKILL: no shutdown, no chance to write anything
                    first.wait(timeout=10)
                assert _spool_files(spool) == [file]  # the file outlives its process
                assert _rows_per_trace(url) == {traces[0]: 1}

                proxy.restore()
                port, second, log = _start(tmp_path, env)
                logs.append(log)
                try:
                    # The new server writes the rows the killed one left, then removes its file.
                    _wait_for(lambda: not _spool_files(spool), "the killed server's spool file replayed")
                    assert _rows_per_trace(url) == dict.fromkeys(traces, 1)
                finally:
                    stop(second)

                # The same file back, as if a replay were killed after writing, before removing it:
                # the next start skips every row already there.
                file.write_bytes(left)
                port, third, log = _start(tmp_path, env)
                logs.append(log)
                try:
                    _wait_for(lambda: not _spool_files(spool), "the file written again replayed")
                    assert _rows_per_trace(url) == dict.fromkeys(traces, 1)
                    assert _data(port, CALL_LOG)["toolCalls"]["totalCount"] == len(traces)
                finally:
                    stop(third)
                for log in logs:
                    assert "Traceback" not in log.read_text(errors="replace"), log.read_text(errors="replace")[-4000:]
