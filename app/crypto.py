"""Secrets at rest: Fernet encryption of auth configurations."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet, InvalidToken

from app.config import Settings

logger = logging.getLogger(__name__)

KEY_FILE_NAME = "quiver.secret"


class SecretKeyError(RuntimeError):
    """QUIVER_SECRET_KEY is missing where it is required, or is not a Fernet key: a setting
    to fix (the CLI says so with exit code 2), never echoing the value."""


class SecretBox:
    """Encrypts and decrypts JSON values. Plaintext never leaves this object except on decrypt."""

    def __init__(self, key: bytes) -> None:
        self._fernet = Fernet(key)
        self._key = key

    def derive_key(self, purpose: str) -> bytes:
        """A key for ``purpose`` derived from this one (one-way: it reveals nothing of it)."""
        return hmac.new(self._key, purpose.encode(), hashlib.sha256).digest()

    def encrypt(self, value: dict[str, Any]) -> str:
        return self._fernet.encrypt(json.dumps(value).encode()).decode()

    def decrypt(self, token: str) -> dict[str, Any]:
        try:
            decoded: dict[str, Any] = json.loads(self._fernet.decrypt(token.encode()))
        except InvalidToken as error:
            raise RuntimeError("stored secret cannot be decrypted with this QUIVER_SECRET_KEY") from error
        return decoded


def load_secret_box(settings: Settings) -> SecretBox:
    """``QUIVER_SECRET_KEY`` if set; on SQLite, a key generated once beside the database.

    Replicas sharing PostgreSQL must share a key, so there a missing key is an error.
    """
    if settings.secret_key:
        try:
            return SecretBox(settings.secret_key.encode())
        except ValueError:
            raise SecretKeyError(
                "QUIVER_SECRET_KEY is not a Fernet key (32 url-safe base64-encoded bytes); generate one with "
                "`python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'`"
            ) from None
    if not settings.is_sqlite:
        raise SecretKeyError(
            "QUIVER_SECRET_KEY must be set when the database is not SQLite "
            "(every replica needs the same key); generate one with "
            "`python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'`"
        )
    path: Path = settings.data_dir / KEY_FILE_NAME
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(Fernet.generate_key())
        logger.warning(
            "QUIVER_SECRET_KEY is not set: generated a key in %s. Back it up; "
            "secrets stored with it cannot be read without it.",
            path,
        )
    return SecretBox(path.read_bytes().strip())
