"""Errors as the client sees them: ``userErrors`` on payloads, masked faults otherwise."""

from __future__ import annotations

import logging
import secrets

import strawberry
from graphql import GraphQLError
from strawberry.extensions import MaskErrors

from app.db import is_database_unavailable
from app.errors import DomainError

logger = logging.getLogger("quiver.graphql")

DATABASE_UNAVAILABLE = "DATABASE_UNAVAILABLE"
DATABASE_UNAVAILABLE_MESSAGE = "The database is not answering; try again shortly."


@strawberry.type(
    description="A problem with the input of a mutation. Mutations never raise for bad input: they return these."
)
class UserError:
    field: list[str] | None = strawberry.field(
        description="Path to the offending input field, e.g. ['input', 'inputSchema']."
    )
    code: str = strawberry.field(
        description="Stable machine-readable code, e.g. NOT_FOUND, INVALID_SCHEMA, DUPLICATE, FORBIDDEN, CONFLICT."
    )
    message: str = strawberry.field(description="Human-readable explanation, safe to show to users.")

    @classmethod
    def from_domain(cls, error: DomainError) -> UserError:
        return cls(field=error.field, code=error.code, message=error.message)


class ClientError(Exception):
    """A fault of the request itself (bad cursor, bad id format): shown as a top-level error."""

    def __init__(self, message: str, code: str = "BAD_REQUEST") -> None:
        super().__init__(message)
        self.code = code


def _is_unexpected(error: GraphQLError) -> bool:
    original = error.original_error
    if original is None or isinstance(original, (ClientError, GraphQLError)):
        return False
    # A ValueError of a scalar reading a literal or a variable before anything ran (no path):
    # the request's fault, e.g. an Int literal of 5,000 digits (Python reads at most 4,300).
    return not (error.path is None and isinstance(original, ValueError))


class MaskUnexpectedErrors(MaskErrors):
    """Unexpected exceptions reach the client as "internal error" plus a trace id;
    the log keeps the stack under the same id."""

    def __init__(self) -> None:
        super().__init__(should_mask_error=_is_unexpected, error_message="internal error")

    def _process_errors(self, errors: list[GraphQLError]) -> list[GraphQLError]:
        processed = super()._process_errors(errors)
        for error in processed:
            # Client faults carry their stable code, like userErrors do.
            if isinstance(error.original_error, ClientError):
                error.extensions = {**(error.extensions or {}), "code": error.original_error.code}
        return processed

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        trace_id = secrets.token_hex(8)
        original = error.original_error
        if original is not None and is_database_unavailable(original):
            # An outage, not a fault of this code: one line, and the client may retry.
            logger.warning(
                "the database did not answer (trace %s) at %s: %s",
                trace_id,
                ".".join(str(part) for part in error.path or []),
                original,
                extra={"trace_id": trace_id},
            )
            return GraphQLError(
                message=DATABASE_UNAVAILABLE_MESSAGE,
                nodes=error.nodes,
                source=error.source,
                positions=error.positions,
                path=error.path,
                extensions={"code": DATABASE_UNAVAILABLE, "traceId": trace_id},
            )
        logger.error(
            "unexpected error in GraphQL resolver (trace %s) at %s",
            trace_id,
            ".".join(str(part) for part in error.path or []),
            exc_info=(type(original), original, original.__traceback__) if original else None,
            extra={"trace_id": trace_id},
        )
        return GraphQLError(
            message=self.error_message,
            nodes=error.nodes,
            source=error.source,
            positions=error.positions,
            path=error.path,
            extensions={"code": "INTERNAL_ERROR", "traceId": trace_id},
        )
