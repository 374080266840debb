"""Scalars that differ from Strawberry's own.

``DateTime``: Strawberry's (ISO 8601, any offset), also refusing a moment that cannot be
expressed in UTC: ``9999-12-31T23:59:59-14:00`` is in the year 10000 there, and
``0001-01-01T00:00:00+14:00`` in the year 0. Every stored or compared moment is UTC
(``app.db.UtcDateTime``), so such an argument (``toolCalls(filter: {since})``,
``unusedSkills(since)``, ``Tool.stats(since)``, ``createApiKey(expiresAt)``…) was an
INTERNAL_ERROR (``OverflowError``) instead of the client error any other unreadable
DateTime gets.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from strawberry.exceptions import StrawberryInputCoercionError
from strawberry.schema.types.base_scalars import DateTimeDefinition

_strawberry_parse = DateTimeDefinition.parse_value


def _parse_datetime(value: object) -> object:
    assert _strawberry_parse is not None
    parsed = _strawberry_parse(value)
    if isinstance(parsed, dt.datetime) and parsed.tzinfo is not None:
        try:
            parsed.astimezone(dt.UTC)
        except OverflowError:
            raise StrawberryInputCoercionError(
                f'Value cannot represent a DateTime: "{value}". It lies outside the years 1 to 9999 in UTC.'
            ) from None
    return parsed


DATETIME = dataclasses.replace(DateTimeDefinition, parse_value=_parse_datetime)

#: For ``strawberry.Schema(scalar_overrides=...)``.
SCALAR_OVERRIDES: dict[object, Any] = {dt.datetime: DATETIME}
