"""Call-log rows kept on disk while the database is away, so that a process killed before it
answers again (kill -9, OOM, a deploy) does not take them with it.

Each process that has to keep a row writes it to a file of its own in the spool folder,
``calls-<pid>-<token>.jsonl``: one JSON line a row, written and fsync'ed before the call is
answered. The process holds an exclusive ``flock`` on that file for as long as it owns it
(the kernel drops it when the process dies, however it dies); once every kept row is in the
database the file is removed. A file nobody holds a lock on belongs to a process that is gone:
``replay_orphans`` writes the rows it holds that the database does not have yet (by primary key,
so a row already there is skipped and a second replay adds nothing), then removes it. The file
of a live process (another worker on this machine) is never read. Its first line names the
database (backend and database name) it is for: another database's file is left alone.

A file is created under a hidden name, locked, then renamed into place, so a file seen under its
spool name is always locked by its owner or by a replayer. Rows are written on one thread in the
order they were handed over, so that removing the file once every handed-over row is written can
never drop a row handed over later.

Nothing here runs on the normal path: only a row the database could not take comes here.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import secrets
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.gateway import repository as calls_repository
from app.gateway.models import ToolCall

logger = logging.getLogger("quiver.gateway.spool")

FORMAT = "quiver-call-spool"
VERSION = 1
PREFIX = "calls-"
SUFFIX = ".jsonl"
#: A file with a line that cannot be read before its last one is kept under this suffix for a person.
UNREADABLE_SUFFIX = ".unreadable"
#: Columns held as datetimes (ISO 8601 in the file).
DATETIME_KEYS = ("started_at", "finished_at")
#: Rows looked up and inserted per transaction on replay.
REPLAY_BATCH = 500


def database_identity(database_url: str) -> str:
    """What a spool file says it is for: the backend and the database's name (no host, user or
    password: a host may be named differently after a deploy, and a secret is never written)."""
    url = make_url(database_url)
    name = url.database or ""
    if url.get_backend_name() == "sqlite" and name and name != ":memory:":
        name = str(Path(name).resolve())
    return f"{url.get_backend_name()}:{name}"


def _encode(row: dict[str, Any], replace: bool) -> bytes:
    stored = {
        key: value.isoformat() if key in DATETIME_KEYS and isinstance(value, datetime) else value
        for key, value in row.items()
    }
    return (json.dumps({"replace": replace, "row": stored}, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def _decode(line: bytes) -> tuple[dict[str, Any], bool]:
    record = json.loads(line)
    row = dict(record["row"])
    for key in DATETIME_KEYS:
        if isinstance(row.get(key), str):
            row[key] = datetime.fromisoformat(row[key])
    if not isinstance(row.get("id"), str):
        raise ValueError("a row without an id")
    return row, bool(record.get("replace", False))


def _header(identity: str) -> bytes:
    return (
        json.dumps({"format": FORMAT, "version": VERSION, "database": identity, "pid": os.getpid()}) + "\n"
    ).encode()


def _fsync_dir(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]
    os.fsync(descriptor)


class SpoolFile:
    """This process's spool file. Every method but ``close`` is meant for the one writer thread
    (``DiskSpool``); the file exists only while rows wait in it."""

    def __init__(self, folder: Path, identity: str) -> None:
        self.folder = folder
        self.identity = identity
        self.path: Path | None = None
        self._descriptor: int | None = None

    def _open(self) -> int:
        if self._descriptor is None:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            path = self.folder / f"{PREFIX}{os.getpid()}-{secrets.token_hex(4)}{SUFFIX}"
            self._descriptor, self.path = self._create(path, []), path
        return self._descriptor

    def _create(self, path: Path, lines: Sequence[bytes]) -> int:
        """``path`` holding the header and ``lines``, locked by this process, fsync'ed: made under
        a hidden name and renamed into place, so it is never seen unlocked or half-written."""
        hidden = path.with_name(f".{path.name}.new")
        descriptor = os.open(hidden, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            _write_all(descriptor, _header(self.identity) + b"".join(lines))
            os.rename(hidden, path)
            _fsync_dir(self.folder)
        except BaseException:
            os.close(descriptor)
            with contextlib.suppress(OSError):
                os.unlink(hidden)
            raise
        return descriptor

    def append(self, lines: Sequence[bytes]) -> None:
        _write_all(self._open(), b"".join(lines))

    def rewrite(self, lines: Sequence[bytes]) -> None:
        """The file holds ``lines`` only (the rows still waiting): replaced whole, so a kill
        half-way leaves the old file or the new one."""
        if self._descriptor is None or self.path is None:
            self.append(lines)
            return
        descriptor = self._create(self.path, lines)
        os.close(self._descriptor)  # the old inode, gone from the folder
        self._descriptor = descriptor

    def remove(self) -> None:
        """Every row is in the database: the file goes (unlinked before its lock is let go)."""
        if self._descriptor is None:
            return
        assert self.path is not None
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        with contextlib.suppress(OSError):
            _fsync_dir(self.folder)
        os.close(self._descriptor)
        self._descriptor, self.path = None, None

    def close(self) -> None:
        """Let the file go with its rows in it (shutdown before the database took them)."""
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None


class DiskSpool:
    """The disk side of the gateway's spool: rows written in hand-over order on one thread."""

    def __init__(self, folder: Path, database_url: str) -> None:
        self.folder = folder
        self.identity = database_identity(database_url)
        self.file = SpoolFile(folder, self.identity)
        # One thread: operations run in the order they were submitted.
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="call-log-spool")
        #: Rows in the file, as submitted (kept by the event loop's thread).
        self.rows = 0

    def append(self, row: dict[str, Any], replace: bool) -> Future[None]:
        self.rows += 1
        return self._thread.submit(self.file.append, [_encode(row, replace)])

    def rewrite(self, rows: Sequence[tuple[dict[str, Any], bool]]) -> Future[None]:
        self.rows = len(rows)
        lines = [_encode(row, replace) for row, replace in rows]
        return self._thread.submit(self.file.rewrite, lines)

    def remove(self) -> None:
        self.rows = 0
        self._thread.submit(self._logged, self.file.remove)

    @staticmethod
    def _logged(operation: Callable[[], None]) -> None:
        try:
            operation()
        except OSError as error:
            logger.error("call-log spool file not removed: %s", error)

    def close(self) -> None:
        self._thread.shutdown(wait=True)
        self.file.close()

    @property
    def path(self) -> Path | None:
        return self.file.path


# ---------------------------------------------------------------- replay


def read_spool(data: bytes) -> tuple[str | None, list[tuple[dict[str, Any], bool]], int, bool]:
    """(database identity, rows, lines that could not be read, whether the last line was torn)."""
    lines = data.split(b"\n")
    # A file ends with a newline: what follows the last one is a line cut short by a kill.
    torn = lines[-1] != b""
    body = lines[:-1]
    identity: str | None = None
    rows: list[tuple[dict[str, Any], bool]] = []
    unreadable = 0
    for number, line in enumerate(body):
        if number == 0:
            try:
                header = json.loads(line)
                if header.get("format") == FORMAT:
                    identity = header.get("database")
                    continue
            except ValueError:
                pass
            unreadable += 1
            continue
        try:
            rows.append(_decode(line))
        except (ValueError, KeyError, TypeError):
            unreadable += 1
    if torn and not body:
        # Even the header was cut: nothing was ever kept in it.
        return None, [], 0, True
    return identity, rows, unreadable, torn


@contextlib.contextmanager
def _locked_orphan(path: Path) -> Iterator[int | None]:
    """The file's descriptor, locked, if nobody else holds it and it is still the file at ``path``."""
    try:
        descriptor = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        yield None
        return
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield None  # its process is alive (or another replays it right now)
            return
        try:
            same = os.stat(path).st_ino == os.fstat(descriptor).st_ino
        except FileNotFoundError:
            same = False
        yield descriptor if same else None
    finally:
        os.close(descriptor)


async def _insert_missing(
    session_factory: async_sessionmaker[AsyncSession], rows: list[tuple[dict[str, Any], bool]]
) -> int:
    """Write the rows the database does not hold yet; returns how many were written."""
    written = 0
    for start in range(0, len(rows), REPLAY_BATCH):
        batch = rows[start : start + REPLAY_BATCH]
        ids = [row["id"] for row, _ in batch]
        async with session_factory() as session, session.begin():
            present = set((await session.scalars(select(ToolCall.id).where(ToolCall.id.in_(ids)))).all())
            missing = [row for row, replace in batch if not replace and row["id"] not in present]
            try:
                async with session.begin_nested():
                    if missing:
                        await session.execute(calls_repository.INSERT_CALL, missing)
            except IntegrityError:
                # Written meanwhile by someone else: row by row, skipping those.
                missing_written = 0
                for row in missing:
                    try:
                        async with session.begin_nested():
                            await session.execute(calls_repository.INSERT_CALL, [row])
                    except IntegrityError:
                        continue
                    missing_written += 1
            else:
                missing_written = len(missing)
            for row, replace in batch:
                if replace:
                    # The outcome of a call that waited for approval, over its placeholder: the same
                    # values written again change nothing.
                    await calls_repository.replace_call(session, row)
        written += missing_written
    return written


async def replay_orphans(
    folder: Path, identity: str, session_factory: async_sessionmaker[AsyncSession], *, own: Path | None = None
) -> int:
    """Write into the database the rows of spool files left by processes that are gone, then
    remove those files. Returns how many rows were written. A live process's file, one for
    another database than ``identity`` (``database_identity``), and ``own`` are left alone;
    a database that does not answer leaves the file for the next sweep."""
    try:
        names = sorted(entry.name for entry in os.scandir(folder) if entry.is_file())
    except FileNotFoundError:
        return 0
    total = 0
    for name in names:
        if name.startswith(f".{PREFIX}") and name.endswith(".new"):
            # A file its process did not finish making (killed): the file it was to replace holds
            # the rows, if any. Only once that process is gone (it locks the file a moment after
            # creating it).
            if _process_alive(name[len(PREFIX) + 1 :].split("-", 1)[0]):
                continue
            with _locked_orphan(folder / name) as descriptor:
                if descriptor is not None:
                    os.unlink(folder / name)
            continue
        if not (name.startswith(PREFIX) and name.endswith(SUFFIX)):
            continue
        path = folder / name
        if own is not None and path == own:
            continue
        with _locked_orphan(path) as descriptor:
            if descriptor is None:
                continue
            data = await asyncio.to_thread(_read_all, descriptor)
            file_identity, rows, unreadable, torn = read_spool(data)
            if file_identity is not None and file_identity != identity:
                logger.warning("call-log spool file %s is for another database (%s): left alone", name, file_identity)
                continue
            if torn:
                logger.warning("call-log spool file %s: its last line was cut short (killed mid-write): ignored", name)
            written = await _insert_missing(session_factory, rows)
            total += written
            logger.warning(
                "call-log spool file %s of a process that is gone: %d rows, %d written (the others were there)",
                name,
                len(rows),
                written,
            )
            if unreadable:
                logger.error(
                    "call-log spool file %s: %d lines could not be read; kept as %s%s",
                    name,
                    unreadable,
                    name,
                    UNREADABLE_SUFFIX,
                )
                os.rename(path, path.with_name(name + UNREADABLE_SUFFIX))
            else:
                os.unlink(path)
    return total


def _process_alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except ValueError:
        return False
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_all(descriptor: int) -> bytes:
    os.lseek(descriptor, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(descriptor, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)
