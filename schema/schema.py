"""The root schema: every domain's operations, the security extensions, the SDL."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

import strawberry
from graphql import ASTValidationRule, GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    MaxTokensLimiter,
    ParserCache,
    ValidationCache,
)
from strawberry.schema.config import StrawberryConfig
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.types import ExecutionContext, ExecutionResult
from strawberry.types.graphql import OperationType

from app.config import Settings
from app.db import is_database_unavailable
from schema.agents.schema import AgentsMutation, AgentsQuery
from schema.catalog import CatalogMutation, CatalogQuery
from schema.errors import ClientError, MaskUnexpectedErrors, code_document_errors
from schema.fairness import CostlyOperationGate, TimeSlicedExecutor
from schema.gateway.hot_path import HotPath
from schema.gateway.schema import GatewayMutation, GatewayQuery, GatewaySubscription
from schema.knowledge.schema import (
    KnowledgeDocumentMutation,
    KnowledgeMutation,
    KnowledgeQuery,
    KnowledgeSearchQuery,
)
from schema.limits import (
    CostCache,
    NulInStrings,
    QueryCostLimiter,
    TextLimits,
    add_text_limits,
    shape_limit_rule,
)
from schema.listing_cache import EncodedData, ListingCache
from schema.mcp.schema import McpMutation, McpQuery
from schema.pipelines.schema import PipelinesMutation, PipelinesQuery, PipelinesSubscription
from schema.reports.schema import ReportsQuery
from schema.runtime.schema import RuntimeMutation, RuntimeQuery, RuntimeSubscription
from schema.scalars import SCALAR_OVERRIDES
from schema.skills.schema import SkillMatchQuery, SkillsMutation, SkillsQuery
from schema.spaces.api_keys import ApiKeysMutation, ApiKeysQuery
from schema.spaces.schema import SpacesMutation, SpacesQuery
from schema.tools.schema import ToolsMutation, ToolsQuery

logger = logging.getLogger("quiver.graphql")


@strawberry.type(description="Read the catalog: spaces, tools, skills, knowledge, agents, runs and the call log.")
class Query(
    PipelinesQuery,
    ReportsQuery,
    RuntimeQuery,
    KnowledgeSearchQuery,
    SkillMatchQuery,
    GatewayQuery,
    AgentsQuery,
    McpQuery,
    KnowledgeQuery,
    SkillsQuery,
    ToolsQuery,
    SpacesQuery,
    ApiKeysQuery,
    CatalogQuery,
):
    pass


@strawberry.type(description="Change the catalog, call tools and run agents. Bad input comes back as userErrors.")
class Mutation(
    PipelinesMutation,
    McpMutation,
    GatewayMutation,
    RuntimeMutation,
    CatalogMutation,
    AgentsMutation,
    KnowledgeDocumentMutation,
    KnowledgeMutation,
    SkillsMutation,
    ToolsMutation,
    SpacesMutation,
    ApiKeysMutation,
):
    pass


@strawberry.type(description="Live streams over graphql-transport-ws, authenticated in connection_init.")
class Subscription(PipelinesSubscription, RuntimeSubscription, GatewaySubscription):
    pass


SUBSCRIPTION_OVER_HTTP = (
    "Subscriptions are served over WebSocket only: connect to /graphql with the graphql-transport-ws protocol "
    'and send {"Authorization": "Bearer <key>"} as the connection_init payload.'
)


class QuiverSchema(strawberry.Schema):
    timeout_s: float | None = None
    listing_cache: ListingCache | None = None
    hot_path: HotPath | None = None

    async def _execute_once(
        self,
        query: str | None,
        variable_values: dict[str, Any] | None = None,
        context_value: Any | None = None,
        root_value: Any | None = None,
        operation_name: str | None = None,
        allowed_operation_types: Iterable[OperationType] | None = None,
        operation_extensions: dict[str, Any] | None = None,
    ) -> ExecutionResult:
        """One HTTP request. WebSockets go through ``subscribe``/``stream``; a subscription
        executed here would resolve its generator as a value (a null, then an internal error),
        so it is answered with a GraphQL error saying where subscriptions live instead."""
        allowed = set(allowed_operation_types or (OperationType.QUERY, OperationType.MUTATION))
        allowed.discard(OperationType.SUBSCRIPTION)
        try:
            return await super().execute(
                query,
                variable_values=variable_values,
                context_value=context_value,
                root_value=root_value,
                operation_name=operation_name,
                allowed_operation_types=allowed,
                operation_extensions=operation_extensions,
            )
        except InvalidOperationTypeError as error:
            if error.operation_type is not OperationType.SUBSCRIPTION:
                raise
            refusal = GraphQLError(SUBSCRIPTION_OVER_HTTP, extensions={"code": "SUBSCRIPTION_OVER_HTTP"})
            return ExecutionResult(data=None, errors=[refusal])

    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        # Client faults (a bad cursor or argument, a document that does not parse or validate,
        # a refused cost) are answers, not server problems: logged at INFO, not ERROR.
        code_document_errors(errors)
        unexpected = [error for error in errors if _is_server_fault(error) and not _is_outage(error)]
        for error in errors:
            if not _is_server_fault(error):
                logger.info("client error: %s", error.message, extra={"code": (error.extensions or {}).get("code")})
        if unexpected:
            super().process_errors(unexpected, execution_context)

    async def execute(  # type: ignore[override]
        self, query: str | None, variable_values: dict[str, Any] | None = None, **kwargs: Any
    ) -> ExecutionResult:
        """A catalog listing's answer comes from the listing cache when the catalog has not changed
        since it was kept (schema/listing_cache.py); otherwise the query is executed."""
        cache = self.listing_cache
        allowed = kwargs.get("allowed_operation_types")
        if cache is None or (allowed is not None and OperationType.QUERY not in allowed):
            # (A GET request may be refused queries: the ordinary path answers it.)
            return await self._execute_in_time(query, variable_values, **kwargs)
        viewer = getattr(kwargs.get("context_value"), "viewer", None)
        key = cache.key(self._schema, query, kwargs.get("operation_name"), variable_values, viewer)
        if key is None:
            return await self._execute_in_time(query, variable_values, **kwargs)
        answer = await cache.read_through(
            key,
            lambda: self._execute_in_time(query, variable_values, **kwargs),
            lambda result: (
                result.data if result.data is not None and not result.errors and not result.extensions else None
            ),
        )
        if type(answer) is EncodedData:
            return ExecutionResult(data=answer, errors=None)  # its encoding is made once
        assert isinstance(answer, ExecutionResult)
        return answer

    async def _execute_in_time(
        self, query: str | None, variable_values: dict[str, Any] | None = None, **kwargs: Any
    ) -> ExecutionResult:
        """Queries get a deadline (``graphql_timeout_s``); mutations are bounded by their tools' and models' own."""
        if self.timeout_s is None or _is_mutation(query):
            return await self._execute_once(query, variable_values, **kwargs)
        try:
            async with asyncio.timeout(self.timeout_s):
                return await self._execute_once(query, variable_values, **kwargs)
        except TimeoutError:
            message = f"The query did not finish within {self.timeout_s:g} s (QUIVER_GRAPHQL_TIMEOUT_S): ask for less."
            logger.warning("query deadline reached", extra={"timeout_s": self.timeout_s})
            return ExecutionResult(data=None, errors=[GraphQLError(message, extensions={"code": "QUERY_TIMEOUT"})])


def _is_server_fault(error: GraphQLError) -> bool:
    original = error.original_error
    if original is None:
        # Raised by parsing, validation or the limits: about the document, not the server.
        return False
    return not isinstance(original, ClientError | GraphQLError)


def _is_outage(error: GraphQLError) -> bool:
    """The database was away: an outage the masking extension logs in one line, not a fault to trace."""
    return error.original_error is not None and is_database_unavailable(error.original_error)


def _is_mutation(query: str | None) -> bool:
    """Whether the document holds a mutation (cheap: a word search, erring towards "yes")."""
    return query is not None and "mutation" in query


def build_schema(settings: Settings | None = None) -> strawberry.Schema:
    settings = settings or Settings()
    # The limiters' rule classes, made once: each limiter instance makes a new class, and
    # the validation cache is keyed by the rules, so per-request ones would never hit it.
    limit_rules: list[type[ASTValidationRule]] = [
        shape_limit_rule(settings.graphql_max_depth, settings.graphql_max_aliases),
        NulInStrings,
    ]
    add_text_limits(
        [Query, Mutation, Subscription],
        TextLimits(
            name=settings.max_name_chars,
            description=settings.max_description_chars,
            query=settings.max_query_chars,
            prompt=settings.max_prompt_chars,
            document=settings.max_document_chars,
            other=settings.max_text_chars,
            items=settings.max_list_items,
        ),
    )
    # One line per tenant for costly queries, shared by every request this schema serves.
    gate = CostlyOperationGate()
    costs = CostCache()
    schema = QuiverSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        config=StrawberryConfig(auto_camel_case=True),
        scalar_overrides=SCALAR_OVERRIDES,
        # Plain scalar fields are read in place, not through a resolver each (schema/execution.py),
        # and long lists are completed in slices that let other requests in (schema/fairness.py).
        execution_context_class=TimeSlicedExecutor,
        extensions=[
            lambda: AddValidationRules(limit_rules),
            lambda: MaxTokensLimiter(max_token_count=settings.graphql_max_tokens),
            MaskUnexpectedErrors,
            # Clients send the same few documents again and again: parse and validate each once.
            lambda: ParserCache(maxsize=256),
            lambda: ValidationCache(maxsize=256),
            # After validation, which it relies on.
            lambda: QueryCostLimiter(max_cost=settings.graphql_max_cost, gate=gate, costs=costs),
        ],
    )
    schema.timeout_s = settings.graphql_timeout_s
    if settings.graphql_hot_path:
        # invokeTool's and invokeAgent's known documents answered without the generic machinery
        # (schema/gateway/hot_path.py).
        schema.hot_path = HotPath(
            schema,
            validation_rules=tuple(limit_rules),
            max_tokens=settings.graphql_max_tokens,
            max_cost=settings.graphql_max_cost,
            # Pages of tools whose whole connection SQLite's nodes make (schema.tools.rendering).
            listings=settings.is_sqlite,
            gate=gate,
            costs=costs,
        )
    if settings.listing_cache_mb > 0:
        schema.listing_cache = ListingCache(int(settings.listing_cache_mb * 2**20), settings.catalog_cache_ttl_s)
    return schema


def export_sdl() -> str:
    return build_schema().as_str() + "\n"
