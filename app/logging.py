"""Structured JSON logs: one object per line, carrying the extra fields (trace_id, ...)."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

import orjson

# Attributes every LogRecord has; anything else was passed with ``extra=`` and is logged.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        try:
            line: bytes | None = orjson.dumps(entry, default=str, option=orjson.OPT_NON_STR_KEYS)
        except TypeError:
            line = None  # beyond 64-bit integers, and anything else orjson will not take
        if line is not None and line.isascii():
            # orjson: a third of the standard library's time for a call's line. Only ASCII
            # lines are taken from it: it keeps other text as UTF-8 where json escapes it, and
            # a stream whose encoding is not UTF-8 must still take every line.
            return line.decode()
        return json.dumps(entry, default=str)


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # httpx logs every request line at INFO; the gateway's own line carries what matters.
    for noisy in ("httpx", "httpx2", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # The MCP SDK logs every protocol message at DEBUG, tool results included, before the
    # gateway has cut the server's credential out of them (app/gateway/redaction.py): never below INFO.
    logging.getLogger("mcp").setLevel(max(logging.INFO, logging.getLevelName(level.upper())))
