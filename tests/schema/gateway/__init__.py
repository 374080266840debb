"""Tests of the tool gateway's API; the operations and helpers they share live here."""

from __future__ import annotations

import json
import secrets
from typing import Any

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.tools.models import ToolDefinition
from tests.conftest import GraphQLClient
from tests.schema.tools.operations import create_tool
from tests.support.http_tool_server import ToolServer

SessionFactory = async_sessionmaker[AsyncSession]

CALL_FIELDS = """
id toolId arguments status result error { code message detail } latencyMs attempts traceId
idempotencyKey startedAt origin space { id } tool { id }
"""

INVOKE_TOOL = (
    """
mutation InvokeTool($input: InvokeToolInput!) {
  invokeTool(input: $input) {
    status data error { code message detail } traceId latencyMs
    call {"""
    + CALL_FIELDS
    + """}
  }
}
"""
)

TOOL_CALLS = (
    """
query ToolCalls($filter: ToolCallFilter, $first: Int, $after: String) {
  toolCalls(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges { node {"""
    + CALL_FIELDS
    + """} }
  }
}
"""
)

TOOL_STATS = """
query ToolStats($id: ID!, $since: DateTime) {
  tool(id: $id) {
    id
    stats(since: $since) { calls failures failuresByCode p50LatencyMs p95LatencyMs lastCalledAt }
  }
}
"""


def fresh(prefix: str) -> str:
    """A name or key no other test uses (the tool server keeps state per key)."""
    return f"{prefix}_{secrets.token_hex(4)}"


async def invoke(
    gql: GraphQLClient,
    space_id: str,
    tool_id: str,
    arguments: Any,
    *,
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    """invokeTool as a client; the envelope (never top-level errors)."""
    call_input: dict[str, Any] = {"spaceId": space_id, "toolId": tool_id, "arguments": arguments}
    if idempotency_key is not None:
        call_input["idempotencyKey"] = idempotency_key
    envelope: dict[str, Any] = (await gql.execute(INVOKE_TOOL, {"input": call_input}))["invokeTool"]
    return envelope


async def call_log(
    gql: GraphQLClient, first: int = 100, after: str | None = None, **call_filter: Any
) -> dict[str, Any]:
    """The toolCalls connection: ``totalCount``, ``pageInfo`` and ``nodes`` (flattened edges)."""
    variables: dict[str, Any] = {"filter": call_filter or None, "first": first, "after": after}
    connection: dict[str, Any] = (await gql.execute(TOOL_CALLS, variables))["toolCalls"]
    connection["nodes"] = [edge["node"] for edge in connection.pop("edges")]
    return connection


async def tool_stats(gql: GraphQLClient, tool_id: str, since: str | None = None) -> dict[str, Any]:
    tool = (await gql.execute(TOOL_STATS, {"id": tool_id, "since": since}))["tool"]
    assert tool is not None
    stats: dict[str, Any] = tool["stats"]
    return stats


async def http_tool(gql: GraphQLClient, server: ToolServer, path: str, **overrides: Any) -> dict[str, Any]:
    """A CUSTOM tool POSTing to ``server`` at ``path``; any CreateToolInput field can be overridden."""
    return await create_tool(gql, overrides.pop("name", fresh("http_tool")), endpoint=server.url(path), **overrides)


async def set_tool_columns(session_factory: SessionFactory, tool_id: str, **columns: Any) -> None:
    """Columns no mutation exposes (static arguments, quotas) or that a mutation would refuse."""
    async with session_factory() as session, session.begin():
        await session.execute(update(ToolDefinition).where(ToolDefinition.tool_id == tool_id).values(**columns))


def problems(envelope: dict[str, Any]) -> list[dict[str, Any]]:
    """The JSON path entries of a PARAM_INVALID envelope's detail."""
    assert envelope["error"]["code"] == "PARAM_INVALID", envelope
    parsed: list[dict[str, Any]] = json.loads(envelope["error"]["detail"])
    return parsed
