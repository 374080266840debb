"""The root schema: every domain's operations, the security extensions, the SDL."""

from __future__ import annotations

import strawberry
from strawberry.extensions import MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter
from strawberry.schema.config import StrawberryConfig

from app.config import Settings
from schema.agents.schema import AgentsMutation, AgentsQuery
from schema.catalog import CatalogMutation, CatalogQuery
from schema.errors import MaskUnexpectedErrors
from schema.gateway.schema import GatewayMutation, GatewayQuery, GatewaySubscription
from schema.knowledge.schema import (
    KnowledgeDocumentMutation,
    KnowledgeMutation,
    KnowledgeQuery,
    KnowledgeSearchQuery,
)
from schema.runtime.schema import RuntimeMutation, RuntimeQuery, RuntimeSubscription
from schema.skills.schema import SkillMatchQuery, SkillsMutation, SkillsQuery
from schema.spaces.schema import SpacesMutation, SpacesQuery
from schema.tools.schema import ToolsMutation, ToolsQuery


@strawberry.type(description="Read the catalog: spaces, tools, skills, knowledge, agents, runs and the call log.")
class Query(
    RuntimeQuery,
    KnowledgeSearchQuery,
    SkillMatchQuery,
    GatewayQuery,
    AgentsQuery,
    KnowledgeQuery,
    SkillsQuery,
    ToolsQuery,
    SpacesQuery,
    CatalogQuery,
):
    pass


@strawberry.type(description="Change the catalog, call tools and run agents. Bad input comes back as userErrors.")
class Mutation(
    GatewayMutation,
    RuntimeMutation,
    CatalogMutation,
    AgentsMutation,
    KnowledgeDocumentMutation,
    KnowledgeMutation,
    SkillsMutation,
    ToolsMutation,
    SpacesMutation,
):
    pass


@strawberry.type(description="Live streams over graphql-transport-ws, authenticated in connection_init.")
class Subscription(RuntimeSubscription, GatewaySubscription):
    pass


def build_schema(settings: Settings | None = None) -> strawberry.Schema:
    settings = settings or Settings()
    return strawberry.Schema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        config=StrawberryConfig(auto_camel_case=True),
        extensions=[
            lambda: QueryDepthLimiter(max_depth=settings.graphql_max_depth),
            lambda: MaxAliasesLimiter(max_alias_count=settings.graphql_max_aliases),
            lambda: MaxTokensLimiter(max_token_count=settings.graphql_max_tokens),
            MaskUnexpectedErrors,
        ],
    )


def export_sdl() -> str:
    return build_schema().as_str() + "\n"
