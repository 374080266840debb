"""CUSTOM tools: a JSON POST of the arguments to the tool's endpoint (cap 10 s).

One shared httpx client; redirects are never followed; the egress policy is
enforced on every connection the client makes (app.egress), so the address
checked is the address called; responses over 1 MB are refused. Credentials come
from the tool's encrypted auth configuration.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from app import jsoncodec
from app.crypto import SecretBox
from app.egress import EgressDeniedError, EgressPolicy
from app.gateway.envelope import (
    EGRESS_DENIED,
    EXTERNAL_API_ERROR,
    EXTERNAL_API_TIMEOUT,
    RESPONSE_TOO_LARGE,
    TOOL_NOT_AVAILABLE,
    ToolFailure,
)
from app.gateway.executors.base import CappedExecutor, Invocation
from app.gateway.executors.plain_http import (
    NotPlainError,
    Origin,
    PlainHttpPool,
    ProtocolError,
    ResponseTooLargeError,
    encode_headers,
    plain_origin,
)
from app.gateway.executors.request_mapping import prepare
from app.gateway.redaction import NO_SECRETS, SecretScrubber, scrubber_for
from app.tools.models import ToolDefinition
from app.validation import is_header_value

MAX_RESPONSE_BYTES = 1024 * 1024
#: Headers the plain-http client writes itself: a request setting one goes httpx's way.
RESERVED_HEADERS = frozenset({"host", "content-length", "transfer-encoding", "connection", "user-agent", "expect"})
TOKEN_EXPIRY_MARGIN_S = 30.0
#: Decrypted auth configurations kept for scrubbing (by their encrypted form).
MAX_KNOWN_CONFIGS = 256


#: Printable ASCII but the space and the percent sign: what a percent-encoded key keeps as is.
_IDEMPOTENCY_SAFE = "".join(chr(code) for code in range(0x21, 0x7F) if chr(code) != "%")


def _header_idempotency_key(key: str) -> str:
    """The key as an HTTP header can carry it: as is when it is printable ASCII, otherwise
    percent-encoded UTF-8 (订单-7 -> %E8%AE%A2%E5%8D%95-7), the same key always giving the same
    header. Raw UTF-8 or control characters in a header make many servers refuse the request."""
    if is_header_value(key):
        return key
    return quote(key, safe=_IDEMPOTENCY_SAFE)


@dataclass
class _Token:
    value: str
    expires_at: float


class OAuthTokenCache:
    """Client-credentials tokens per (token URL, client id), cached until shortly before expiry."""

    def __init__(self, client: httpx.AsyncClient, egress: EgressPolicy) -> None:
        self._client = client
        self._egress = egress
        self._tokens: dict[tuple[str, str, str, str], _Token] = {}
        self._locks: dict[tuple[str, str, str, str], asyncio.Lock] = {}

    @staticmethod
    def _key(config: dict[str, Any]) -> tuple[str, str, str, str]:
        # The secret is part of the key: a tool holding another secret never borrows this token.
        secret_hash = hashlib.sha256(str(config["secret"]).encode()).hexdigest()
        return (config["token_url"], config["client_id"], " ".join(config.get("scopes") or []), secret_hash)

    def current(self, config: dict[str, Any]) -> str | None:
        """The token last issued for this configuration, if any."""
        cached = self._tokens.get(self._key(config))
        return cached.value if cached else None

    async def token(self, config: dict[str, Any], *, refresh: bool = False) -> str:
        key = self._key(config)
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            cached = self._tokens.get(key)
            if cached and not refresh and cached.expires_at > time.monotonic():
                return cached.value
            form = {
                "grant_type": "client_credentials",
                "client_id": config["client_id"],
                "client_secret": config["secret"],
            }
            if config.get("scopes"):
                form["scope"] = " ".join(config["scopes"])
            try:
                await self._egress.check_url(config["token_url"], resolve=False)
                response = await self._client.post(config["token_url"], data=form)
            except EgressDeniedError as error:
                raise ToolFailure(
                    EGRESS_DENIED, "The tool's token endpoint is not reachable from this platform.", str(error)
                ) from None
            except httpx.TimeoutException:
                raise ToolFailure(EXTERNAL_API_TIMEOUT, "The token endpoint timed out.", retryable=True) from None
            except httpx.HTTPError as error:
                raise ToolFailure(
                    EXTERNAL_API_ERROR,
                    "The token endpoint could not be reached.",
                    f"{type(error).__name__}: {error}",  # a failed lookup says which name (the gateway scrubs secrets)
                    retryable=True,
                ) from None
            if response.status_code != 200:
                raise ToolFailure(
                    EXTERNAL_API_ERROR,
                    "The token endpoint refused the credentials.",
                    f"token endpoint answered HTTP {response.status_code}",
                )
            try:
                body = response.json()
                value = str(body["access_token"])
            except (ValueError, KeyError):
                raise ToolFailure(EXTERNAL_API_ERROR, "The token endpoint answered without a token.") from None
            if not is_header_value(value):
                raise ToolFailure(
                    EXTERNAL_API_ERROR, "The token endpoint answered with a token that cannot be sent in a header."
                )
            lifetime = float(body.get("expires_in") or 3600)
            self._tokens[key] = _Token(value, time.monotonic() + max(lifetime - TOKEN_EXPIRY_MARGIN_S, 1.0))
            return value


class HttpExecutor(CappedExecutor):
    cap_seconds = 10.0
    timeout_code = EXTERNAL_API_TIMEOUT
    waits_outside = True

    def __init__(
        self, client: httpx.AsyncClient, secret_box: SecretBox, egress: EgressPolicy, *, plain_http: bool = True
    ) -> None:
        self.client = client
        # JSON POSTs to plain-http endpoints take a leaner way than httpx's (plain_http.py).
        self.plain = PlainHttpPool(egress) if plain_http else None
        self.secret_box = secret_box
        self.egress = egress
        self.tokens = OAuthTokenCache(client, egress)
        self._known: dict[str, dict[str, Any]] = {}

    async def scrubber_for(self, tool: ToolDefinition) -> SecretScrubber:
        if not tool.auth_config:
            return NO_SECRETS
        config = self._known.get(tool.auth_config)
        if config is None:
            try:
                config = self.secret_box.decrypt(tool.auth_config)
            except RuntimeError:
                return NO_SECRETS
            if len(self._known) >= MAX_KNOWN_CONFIGS:
                self._known.clear()
            self._known[tool.auth_config] = config
        secret = str(config.get("secret") or "")
        if tool.auth_type != "OAUTH_CLIENT_CREDENTIALS":
            return scrubber_for((secret,))
        token = self.tokens.current(config)
        return scrubber_for((secret, token) if token else (secret,), ((str(config.get("client_id") or ""), secret),))

    async def _auth_headers(self, auth_type: str, config: dict[str, Any] | None, *, refresh: bool) -> dict[str, str]:
        if auth_type == "NONE" or config is None:
            return {}
        if auth_type in ("API_KEY", "HEADER"):
            headers = {config["header_name"]: config["secret"]}
        elif auth_type == "BEARER":
            headers = {"Authorization": f"Bearer {config['secret']}"}
        elif auth_type == "OAUTH_CLIENT_CREDENTIALS":
            return {"Authorization": f"Bearer {await self.tokens.token(config, refresh=refresh)}"}
        else:
            return {}
        if not all(isinstance(value, str) and is_header_value(value) for value in headers.values()):
            # Stored before secrets were checked: never sent (the error would echo it).
            raise ToolFailure(
                TOOL_NOT_AVAILABLE,
                "This tool's stored credential cannot be sent in an HTTP header; an admin must give its auth again.",
            )
        return headers

    async def execute(self, invocation: Invocation) -> Any:
        tool = invocation.tool
        endpoint = tool.endpoint or ""
        try:
            await self.egress.check_url(endpoint, resolve=False)  # the connection checks the rest
        except EgressDeniedError as error:
            raise _egress_denied(error) from None
        config = self.secret_box.decrypt(tool.auth_config) if tool.auth_config else None
        # The arguments as a request: a JSON POST, unless the tool has a request mapping (importOpenApi).
        request = prepare(endpoint, tool.request_mapping, invocation.arguments)
        headers = {
            **request.headers,
            "Accept": "application/json",
            "X-Quiver-Trace-Id": invocation.trace_id,
        }
        if request.content_type is not None:
            headers["Content-Type"] = request.content_type
        if invocation.idempotency_key:
            headers["Idempotency-Key"] = _header_idempotency_key(invocation.idempotency_key)
        body = request.body
        send = functools.partial(self._post, method=request.method, params=request.params)
        status, payload, content_type = await send(invocation, request.url, headers, body, config, refresh=False)
        if status == 401 and tool.auth_type == "OAUTH_CLIENT_CREDENTIALS":
            # The cached token may have been revoked: fetch a new one, once.
            status, payload, content_type = await send(invocation, request.url, headers, body, config, refresh=True)
        if not 200 <= status < 300:
            snippet = payload[:500].decode("utf-8", "replace")
            raise ToolFailure(
                EXTERNAL_API_ERROR,
                f"The tool's service answered with an error (HTTP {status}).",
                f"HTTP {status}: {snippet}",
                retryable=status >= 500 or status == 429,
            )
        text = payload.decode("utf-8", "replace")
        if "json" in content_type or text[:1] in ("{", "["):
            try:
                return jsoncodec.loads(text) if text else None
            except ValueError:
                return text
        return text

    async def _post(
        self,
        invocation: Invocation,
        endpoint: str,
        headers: dict[str, str],
        body: bytes | None,
        config: dict[str, Any] | None,
        *,
        refresh: bool,
        method: str = "POST",
        params: list[tuple[str, str]] | None = None,
    ) -> tuple[int, bytes, str]:
        request_headers = {**headers, **await self._auth_headers(invocation.tool.auth_type, config, refresh=refresh)}
        if self.plain is not None and method == "POST" and not params:
            origin = plain_origin(endpoint)
            if origin is not None and not RESERVED_HEADERS.intersection(name.lower() for name in request_headers):
                try:
                    head_lines = encode_headers(request_headers)
                except NotPlainError:
                    pass  # a header HTTP cannot carry: httpx's way refuses it with its own error
                else:
                    return await self._post_plain(invocation, origin, head_lines, body or b"")
        try:
            async with self.client.stream(
                method,
                endpoint,
                content=body,
                params=tuple(params) if params else None,
                headers=request_headers,
                timeout=invocation.timeout_s,
                follow_redirects=False,
            ) as response:
                declared = response.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
                    raise _too_large(int(declared))
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > MAX_RESPONSE_BYTES:
                        raise _too_large(size)
                    chunks.append(chunk)
                return response.status_code, b"".join(chunks), response.headers.get("content-type", "")
        except EgressDeniedError as error:  # from the connection (app.egress)
            raise _egress_denied(error) from None
        except httpx.TimeoutException:
            raise _timed_out(invocation) from None
        except httpx.HTTPError as error:
            raise _unreachable(error) from None

    async def _post_plain(
        self, invocation: Invocation, origin: Origin, head_lines: bytes, body: bytes
    ) -> tuple[int, bytes, str]:
        assert self.plain is not None
        try:
            async with asyncio.timeout(invocation.timeout_s):
                return await self.plain.post(origin, head_lines, body, max_bytes=MAX_RESPONSE_BYTES)
        except EgressDeniedError as error:
            raise _egress_denied(error) from None
        except ResponseTooLargeError as error:
            raise _too_large(error.size) from None
        except TimeoutError:
            raise _timed_out(invocation) from None
        except (OSError, ProtocolError) as error:
            raise _unreachable(error) from None

    async def aclose(self) -> None:
        if self.plain is not None:
            await self.plain.aclose()


def _egress_denied(error: EgressDeniedError) -> ToolFailure:
    return ToolFailure(EGRESS_DENIED, "The tool's endpoint is not reachable from this platform.", str(error))


def _timed_out(invocation: Invocation) -> ToolFailure:
    return ToolFailure(
        EXTERNAL_API_TIMEOUT,
        "The tool's service did not answer in time.",
        f"no response within {invocation.timeout_s:.1f}s",
        retryable=True,
    )


def _unreachable(error: Exception) -> ToolFailure:
    return ToolFailure(
        EXTERNAL_API_ERROR,
        "The tool's service could not be reached.",
        f"{type(error).__name__}: {error}",
        retryable=True,
    )


def _too_large(size: int) -> ToolFailure:
    return ToolFailure(
        RESPONSE_TOO_LARGE,
        "The tool's response is larger than the platform accepts.",
        f"response of at least {size} bytes exceeds {MAX_RESPONSE_BYTES}",
    )
