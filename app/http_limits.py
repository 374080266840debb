"""Bounds on what reaches the GraphQL endpoint, checked before anything parses it for real.

- A POST body over ``max_bytes`` is answered 413, whether it declares its length or
  arrives chunked (reading stops at the limit).
- A JSON body must be an object (no batching), valid JSON, and nested at most
  ``max_depth`` levels: ``"abc"``, ``null`` or 1,000 nested arrays are the client's
  mistakes (400), not the server's (they were 500s).
- A POST body that has not all arrived ``body_timeout_s`` after the request began is
  answered 408 (``REQUEST_TIMEOUT``): a client stalled half-way no longer holds its connection,
  nor its tenant's line for large bodies, for ever.
- A WebSocket message over ``max_bytes`` closes the socket with 1009 (message too big);
  one nested deeper than ``max_depth`` with 4400 (graphql-transport-ws: invalid message).

Every refusal is a GraphQL-shaped body: ``{"data": null, "errors": [{message, extensions: {code}}]}``.
The depth is measured on the raw bytes, without a parse and without a step per byte in
Python: escaped backslashes and quotes dropped (``bytes.replace``), everything but quotes and
brackets dropped (``bytes.translate``), the strings cut out between their quotes (numpy marks
them when there are very many), and numpy's cumulative sum over the brackets left. A deep
document costs no recursion. A body with no more brackets than the limit is passed on a count
of them (a 2 MiB one: about 1 ms); otherwise 2 MiB takes 4-16 ms whatever its shape, where a
regex removing the strings took 7-150 ms (CPU time at load 9; escapes and many short strings
were the slow shapes): the longest single step on the loop another tenant's request waited
behind in bench/noisy_neighbour.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import numpy as np
from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = logging.getLogger("quiver.http")

#: Every byte but a quote and the four brackets (deleted before the depth is measured).
_NOT_STRUCTURE = bytes(range(256)).translate(None, b'"[]{}')
_OPENERS = np.zeros(256, dtype=np.int8)
_OPENERS[[ord("["), ord("{")]] = 1
_OPENERS[[ord("]"), ord("}")]] = -1
#: Up to this many quotes, the strings are cut out by splitting on them (a list of pieces);
#: beyond, numpy marks the bytes inside them.
_SPLIT_QUOTES = 200_000

TOO_LARGE = "REQUEST_TOO_LARGE"
TIMED_OUT = "REQUEST_TIMEOUT"
BAD_REQUEST = "BAD_REQUEST"
WS_MESSAGE_TOO_BIG = 1009
WS_INVALID_MESSAGE = 4400


def json_depth(raw: bytes) -> int:
    """How deeply the JSON text nests arrays and objects (0 for a scalar); brackets inside
    strings do not count. Malformed text gives a meaningless but finite number."""
    if b"[" not in raw and b"{" not in raw:
        return 0
    # In JSON a backslash appears only inside a string, and escapes pair up from the left: with
    # every pair of backslashes, then every backslash before a quote, gone, each quote left
    # opens or closes a string.
    structure = raw.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
    if structure.count(b'"') <= _SPLIT_QUOTES:
        # Every other piece between quotes is outside the strings.
        steps = _OPENERS[np.frombuffer(b"".join(structure.split(b'"')[::2]), dtype=np.uint8)]
    else:
        codes = np.frombuffer(structure, dtype=np.uint8)
        # 1 from an opening quote up to (not including) its closing one: inside a string.
        inside = np.bitwise_xor.accumulate((codes == ord('"')).view(np.uint8))
        steps = _OPENERS[codes]
        steps[inside == 1] = 0
    return int(max(np.cumsum(steps, dtype=np.int32).max(initial=0), 0))


def nested_deeper_than(raw: bytes, limit: int) -> bool:
    """``json_depth(raw) > limit``; a text with no more opening brackets than ``limit`` (strings
    included) cannot nest deeper, and is answered by counting them (a 2 MiB body: about 1 ms)."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    return json_depth(raw) > limit


def graphql_error(message: str, code: str, **extensions: Any) -> bytes:
    return json.dumps(
        {"data": None, "errors": [{"message": message, "extensions": {"code": code, **extensions}}]}
    ).encode()


class BadBodyError(Exception):
    def __init__(self, status: int, message: str, code: str, **extensions: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.extensions = extensions


def check_graphql_body(raw: bytes, max_depth: int) -> None:
    """Raise ``BadBodyError`` unless ``raw`` can be a JSON object within the depth limit.

    Only what needs no parse: the body is parsed once, by the GraphQL server, whose own
    400s (malformed JSON, a ``query`` that is not a string) ``_graphql_shaped`` rewrites.
    """
    if nested_deeper_than(raw, max_depth):
        raise BadBodyError(
            400,
            f"The JSON body is nested {json_depth(raw)} levels deep; at most {max_depth} are accepted.",
            BAD_REQUEST,
        )
    if not raw.lstrip(b" \t\r\n").startswith(b"{"):
        raise BadBodyError(
            400,
            'The request body must be a JSON object: {"query": "...", "variables": {...}, "operationName": "..."}'
            + (" (batching is not supported)." if raw.lstrip().startswith(b"[") else "."),
            BAD_REQUEST,
        )


class RequestLimits:
    """ASGI middleware for one path (the GraphQL endpoint); see the module docstring."""

    def __init__(self, app: ASGIApp, *, path: str, max_bytes: int, max_depth: int, body_timeout_s: float = 0.0) -> None:
        self.app = app
        self.path = path
        self.max_bytes = max_bytes
        self.max_depth = max_depth
        self.body_timeout_s = body_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await self.app(scope, self._bounded_messages(receive, send), send)
            return
        if scope["method"] != "POST":
            # GET: its query parameters (variables, extensions) may be malformed JSON too.
            await self.app(scope, receive, _graphql_shaped(send))
            return
        try:
            body = await self._read_body(scope, receive)
            if _is_json(scope):
                check_graphql_body(body, self.max_depth)
        except BadBodyError as problem:
            # A client's mistake: an answer, logged below WARNING.
            logger.info("request refused: %s", problem.message, extra={"status": problem.status, "code": problem.code})
            await _respond(send, problem)
            return
        whole: Message = {"type": "http.request", "body": body, "more_body": False}
        await self.app(scope, replayed(whole, receive), _graphql_shaped(send))

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes:
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            raise self._too_large()
        if self.body_timeout_s <= 0:
            return await self._receive_body(receive)
        try:
            async with asyncio.timeout(self.body_timeout_s):
                return await self._receive_body(receive)
        except TimeoutError:
            raise BadBodyError(
                408,
                f"The request body did not arrive within {self.body_timeout_s:g} s (QUIVER_REQUEST_BODY_TIMEOUT_S).",
                TIMED_OUT,
            ) from None

    async def _receive_body(self, receive: Receive) -> bytes:
        body = await receive_body(receive, self.max_bytes)
        if body is None:
            raise self._too_large()
        return body

    def _too_large(self) -> BadBodyError:
        return BadBodyError(
            413,
            f"The request body is larger than {self.max_bytes} bytes (QUIVER_MAX_REQUEST_BYTES).",
            TOO_LARGE,
            maxBytes=self.max_bytes,
        )

    def _bounded_messages(self, receive: Receive, send: Send) -> Receive:
        async def bounded() -> Message:
            message = await receive()
            if message["type"] != "websocket.receive":
                return message
            data = message.get("text")
            raw = data.encode() if isinstance(data, str) else (message.get("bytes") or b"")
            if len(raw) > self.max_bytes:
                return await _close(send, WS_MESSAGE_TOO_BIG, f"message over {self.max_bytes} bytes")
            if nested_deeper_than(raw, self.max_depth):
                return await _close(send, WS_INVALID_MESSAGE, f"message nested over {self.max_depth} levels")
            return message

        return bounded


def _graphql_shaped(send: Send) -> Send:
    """The GraphQL server answers some bad requests (malformed JSON, a ``query`` that is not a
    string) with a plain-text 400; the client gets the same status with a GraphQL error."""
    rewriting = False

    async def shaped(message: Message) -> None:
        nonlocal rewriting
        if message["type"] == "http.response.start" and message["status"] == 400:
            headers = dict(message.get("headers", []))
            rewriting = b"json" not in headers.get(b"content-type", b"")
            if rewriting:
                return
        if rewriting and message["type"] == "http.response.body":
            # Plain-text answers are a single short message.
            text = message.get("body", b"").decode(errors="replace")[:500] or "Bad request."
            payload = graphql_error(text, BAD_REQUEST)
            headers_out = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
            await send({"type": "http.response.start", "status": 400, "headers": headers_out})
            await send({"type": "http.response.body", "body": payload})
            rewriting = False
            return
        await send(message)

    return shaped


async def _close(send: Send, code: int, reason: str) -> Message:
    logger.info("websocket closed: %s", reason, extra={"code": code})
    await send({"type": "websocket.close", "code": code, "reason": reason})
    # The app sees the end of the connection, as if the client had left.
    return {"type": "websocket.disconnect", "code": code}


def _is_json(scope: Scope) -> bool:
    for name, value in scope.get("headers", []):
        if name == b"content-type":
            return b"json" in value.lower()
    return False


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def replayed(message: Message, receive: Receive) -> Receive:
    """``receive`` for an app behind a middleware that has already read ``message`` (the whole
    body): that message, once; then whatever the connection says (a disconnect)."""
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return message
        return await receive()

    return replay


async def _respond(send: Send, problem: BadBodyError) -> None:
    payload = graphql_error(problem.message, problem.code, **problem.extensions)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    if problem.status == 413:
        # The rest of the body is not read: the connection cannot carry another request.
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": problem.status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


async def receive_body(receive: Receive, max_bytes: int) -> bytes | None:
    """A request's whole body, read message by message; None as soon as it passes ``max_bytes``
    (reading stops there)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > max_bytes:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)
