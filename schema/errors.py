"""Errors as the client sees them: ``userErrors`` on payloads, masked faults otherwise."""

from __future__ import annotations

import logging
import secrets

import strawberry
from graphql import GraphQLError, GraphQLSyntaxError
from graphql.validation.validate import ValidationAbortedError
from strawberry.extensions import MaskErrors

from app.db import is_database_unavailable
from app.errors import DomainError
from app.events.bus import EventBusUnavailableError, EventsMissedError, SubscriberOverflowError

logger = logging.getLogger("quiver.graphql")

DATABASE_UNAVAILABLE = "DATABASE_UNAVAILABLE"
DATABASE_UNAVAILABLE_MESSAGE = "The database is not answering; try again shortly."


#: Codes of a document refused before execution (``extensions.code``): what a client can act on.
GRAPHQL_PARSE_FAILED = "GRAPHQL_PARSE_FAILED"
GRAPHQL_VALIDATION_FAILED = "GRAPHQL_VALIDATION_FAILED"
QUERY_TOO_LARGE = "QUERY_TOO_LARGE"
QUERY_TOO_DEEP = "QUERY_TOO_DEEP"
TOO_MANY_ALIASES = "TOO_MANY_ALIASES"
QUERY_TOO_COMPLEX = "QUERY_TOO_COMPLEX"
TOO_COMPLEX_MESSAGE = (
    "Validation aborted: this document is too costly to check (too many fields to compare with one"
    " another). Select fewer fields, or fewer copies of the same field, per selection."
)


def document_error_code(error: GraphQLError) -> str | None:
    """The code of an error about the document itself that graphql-core made without one — it
    does not parse (or has too many tokens), does not validate, or graphql-core gave up
    validating it (:class:`ValidationAbortedError`: its own budget, or too many errors) — or None
    for any other error (one that has a code, a path, or a cause). Quiver's own limits (depth,
    aliases: schema.limits) code their refusals where they make them."""
    if (error.extensions or {}).get("code") or error.path is not None or error.original_error is not None:
        return None
    if isinstance(error, GraphQLSyntaxError):
        # The parser's token limit has no error of its own: only its message tells it apart.
        too_large = error.message.startswith("Syntax Error: Document contains more than")
        return QUERY_TOO_LARGE if too_large else GRAPHQL_PARSE_FAILED
    if isinstance(error, ValidationAbortedError):
        return QUERY_TOO_COMPLEX
    return GRAPHQL_VALIDATION_FAILED


def code_document_errors(errors: list[GraphQLError]) -> None:
    """Gives each error about the document (:func:`document_error_code`) its ``extensions.code``
    in place (they had none: "Validation aborted." told a client nothing it could act on)."""
    for error in errors:
        code = document_error_code(error)
        if code is None:
            continue
        if code == QUERY_TOO_COMPLEX and error.message == "Validation aborted.":  # the budget's bare words
            error.message = TOO_COMPLEX_MESSAGE
        error.extensions = {**(error.extensions or {}), "code": code}


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


#: A subscription ended because events of other replicas may have been missed (see app/events/bus.py).
EVENTS_MISSED = "EVENTS_MISSED"
#: A subscription refused while this replica cannot hear the other replicas (its Redis is away).
EVENT_BUS_UNAVAILABLE = "EVENT_BUS_UNAVAILABLE"


def subscription_cut(
    error: SubscriberOverflowError | EventsMissedError | EventBusUnavailableError, reconcile_with: str
) -> ClientError:
    """The error ending (or refusing) a subscription the event bus cannot keep whole; ``reconcile_with``
    names what the client reads to fill the gap, e.g. "the toolCalls query"."""
    if isinstance(error, SubscriberOverflowError):
        return ClientError(
            f"Subscriber too slow: events were dropped. Reconcile with {reconcile_with} and subscribe again.",
            "SUBSCRIBER_OVERFLOW",
        )
    if isinstance(error, EventsMissedError):
        return ClientError(
            f"Events of other replicas were missed: {error}. Reconcile with {reconcile_with} and subscribe again.",
            EVENTS_MISSED,
        )
    return ClientError(
        f"Not subscribed: {error}, so events of other replicas would be missed. Subscribe again shortly "
        f"(then reconcile with {reconcile_with}).",
        EVENT_BUS_UNAVAILABLE,
    )


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
