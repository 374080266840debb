"""Domain errors: raised by services, mapped to ``userErrors`` by the API layer."""

from __future__ import annotations

from collections.abc import Sequence

#: How much of a client's own input (a name, a method, an id) an error or a log row echoes back;
#: longer, it is cut to this many characters and an ellipsis (a 100,000-character method came
#: back whole).
ECHO_CHARS = 200
ELLIPSIS = "…"


def echo(text: str, limit: int = ECHO_CHARS) -> str:
    """A client's input as an error or the call log may quote it: whole up to ``limit``
    characters; longer, its first ``limit`` characters and "…", so a cut is never taken for the
    whole (at most ``limit + 1`` characters)."""
    return text if len(text) <= limit else text[:limit] + ELLIPSIS


class DomainError(Exception):
    """A rule was broken by the caller's input.

    Args:
        code: Stable machine-readable code (NOT_FOUND, INVALID_SCHEMA, DUPLICATE, ...).
        message: Safe to show to the caller.
        field: Path to the offending input field, e.g. ``["input", "name"]``.
    """

    def __init__(self, code: str, message: str, field: Sequence[str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = list(field) if field is not None else None


class NotFoundError(DomainError):
    """The object does not exist or is outside the caller's reach (the two look alike)."""

    def __init__(self, what: str, identifier: str, field: Sequence[str] | None = None) -> None:
        super().__init__("NOT_FOUND", f"{what} {identifier!r} not found.", field)


class ForbiddenError(DomainError):
    """The caller may see the object but not change it."""

    def __init__(self, message: str, field: Sequence[str] | None = None) -> None:
        super().__init__("FORBIDDEN", message, field)
