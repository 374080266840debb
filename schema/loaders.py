"""Per-request DataLoaders: one ``IN (...)`` query per batch, results in key order.

Each batch opens its own session: Strawberry resolves sibling fields
concurrently and an AsyncSession must not be shared across them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from strawberry.dataloader import DataLoader

from app.agents import repository as agents_repository
from app.agents.models import Agent
from app.gateway import repository as calls_repository
from app.gateway.models import ToolCall
from app.gateway.stats import CallStats, stats_for_tools
from app.knowledge import repository as knowledge_repository
from app.knowledge.models import KnowledgeBase
from app.runtime import repository as runs_repository
from app.runtime.models import AgentRun, RunStage, ToolCallApproval
from app.skills import repository as skills_repository
from app.skills.models import SkillChannelEvent, SkillDefinition, SkillVersion
from app.skills.repository import VersionUsage
from app.spaces import repository as spaces_repository
from app.spaces.models import Space
from app.tools import repository as tools_repository
from app.tools.models import McpServer, ToolDefinition

Key = TypeVar("Key")
Row = TypeVar("Row")
Value = TypeVar("Value")

SessionFactory = async_sessionmaker[AsyncSession]


def _rows_by_key(
    session_factory: SessionFactory,
    fetch: Callable[[AsyncSession, list[str]], Awaitable[Sequence[Row]]],
    key_of: Callable[[Row], str],
) -> DataLoader[str, Row | None]:
    async def load(keys: list[str]) -> list[Row | None]:
        async with session_factory() as session:
            rows = {key_of(row): row for row in await fetch(session, keys)}
        return [rows.get(key) for key in keys]

    return DataLoader(load_fn=load)


def _lists_by_key(
    session_factory: SessionFactory,
    fetch: Callable[[AsyncSession, list[str]], Awaitable[dict[str, list[Value]]]],
) -> DataLoader[str, list[Value]]:
    async def load(keys: list[str]) -> list[list[Value]]:
        async with session_factory() as session:
            found = await fetch(session, keys)
        return [list(found.get(key, [])) for key in keys]

    return DataLoader(load_fn=load)


def _values_by_key(
    session_factory: SessionFactory,
    fetch: Callable[[AsyncSession, list[str]], Awaitable[dict[str, int]]],
    default: int,
) -> DataLoader[str, int]:
    async def load(keys: list[str]) -> list[int]:
        async with session_factory() as session:
            found = await fetch(session, keys)
        return [found.get(key, default) for key in keys]

    return DataLoader(load_fn=load)


@dataclass
class Loaders:
    space_by_id: DataLoader[str, Space | None]
    tool_by_id: DataLoader[str, ToolDefinition | None]
    space_ids_by_tool_id: DataLoader[str, list[str]]
    mcp_server_by_id: DataLoader[str, McpServer | None]
    space_ids_by_mcp_server_id: DataLoader[str, list[str]]
    skill_by_id: DataLoader[str, SkillDefinition | None]
    skill_versions_by_skill_id: DataLoader[str, list[SkillVersion]]
    channel_events_by_skill_id: DataLoader[str, list[SkillChannelEvent]]
    usage_by_skill_id: DataLoader[tuple[str, date | None], list[VersionUsage]]
    knowledge_base_by_id: DataLoader[str, KnowledgeBase | None]
    document_count_by_knowledge_base_id: DataLoader[str, int]
    agent_by_id: DataLoader[str, Agent | None]
    tool_call_by_id: DataLoader[str, ToolCall | None]
    tool_visible_in_space: DataLoader[tuple[str, str], bool]
    run_by_id: DataLoader[str, AgentRun | None]
    tool_calls_by_run_id: DataLoader[str, list[ToolCall]]
    stages_by_run_id: DataLoader[str, list[RunStage]]
    approval_by_tool_call_id: DataLoader[str, ToolCallApproval | None]
    call_stats_by_tool: DataLoader[StatsKey, CallStats]


def build_loaders(session_factory: SessionFactory) -> Loaders:
    return Loaders(
        space_by_id=_rows_by_key(session_factory, spaces_repository.spaces_by_ids, lambda row: row.id),
        tool_by_id=_rows_by_key(session_factory, tools_repository.tools_by_ids, lambda row: row.tool_id),
        space_ids_by_tool_id=_lists_by_key(session_factory, tools_repository.tool_bindings),
        mcp_server_by_id=_rows_by_key(session_factory, tools_repository.servers_by_ids, lambda row: row.id),
        space_ids_by_mcp_server_id=_lists_by_key(session_factory, tools_repository.server_bindings),
        skill_by_id=_rows_by_key(session_factory, skills_repository.skills_by_ids, lambda row: row.skill_id),
        skill_versions_by_skill_id=_lists_by_key(session_factory, skills_repository.versions_by_skill_ids),
        channel_events_by_skill_id=_lists_by_key(session_factory, skills_repository.events_by_skill_ids),
        usage_by_skill_id=DataLoader(load_fn=_usage_loader(session_factory)),
        knowledge_base_by_id=_rows_by_key(
            session_factory, knowledge_repository.knowledge_bases_by_ids, lambda row: row.id
        ),
        document_count_by_knowledge_base_id=_values_by_key(session_factory, knowledge_repository.document_counts, 0),
        agent_by_id=_rows_by_key(session_factory, agents_repository.agents_by_ids, lambda row: row.id),
        tool_call_by_id=_rows_by_key(session_factory, calls_repository.calls_by_ids, lambda row: row.id),
        call_stats_by_tool=DataLoader(load_fn=_call_stats_loader(session_factory)),
        tool_visible_in_space=DataLoader(load_fn=_visibility_loader(session_factory)),
        run_by_id=_rows_by_key(session_factory, runs_repository.runs_by_ids, lambda row: row.id),
        tool_calls_by_run_id=_lists_by_key(session_factory, calls_repository.calls_by_run_ids),
        stages_by_run_id=_lists_by_key(session_factory, runs_repository.stages_by_run_ids),
        approval_by_tool_call_id=_rows_by_key(
            session_factory, runs_repository.approvals_by_ids, lambda row: row.tool_call_id
        ),
    )


def _visibility_loader(
    session_factory: SessionFactory,
) -> Callable[[list[tuple[str, str]]], Awaitable[list[bool]]]:
    """(space id, tool id) → visible in that space, any status; one query per space in the batch."""

    async def load(keys: list[tuple[str, str]]) -> list[bool]:
        by_space: dict[str, list[str]] = {}
        for space_id, tool_id in keys:
            by_space.setdefault(space_id, []).append(tool_id)
        visible: set[tuple[str, str]] = set()
        async with session_factory() as session:
            for space_id, tool_ids in by_space.items():
                found = await tools_repository.visible_tool_ids(session, space_id, tool_ids, include_inactive=True)
                visible.update((space_id, tool_id) for tool_id in found)
        return [key in visible for key in keys]

    return load


@dataclass(frozen=True)
class StatsKey:
    """Statistics of one tool since a moment, over the calls of ``space_ids`` (None: all)."""

    tool_id: str
    since: datetime | None
    space_ids: tuple[str, ...] | None


def _call_stats_loader(
    session_factory: SessionFactory,
) -> Callable[[list[StatsKey]], Awaitable[list[CallStats]]]:
    async def load(keys: list[StatsKey]) -> list[CallStats]:
        groups: dict[tuple[datetime | None, tuple[str, ...] | None], list[str]] = {}
        for key in keys:
            groups.setdefault((key.since, key.space_ids), []).append(key.tool_id)
        found: dict[StatsKey, CallStats] = {}
        async with session_factory() as session:
            for (since, space_ids), tool_ids in groups.items():
                stats = await stats_for_tools(session, tool_ids, since, space_ids)
                for tool_id, value in stats.items():
                    found[StatsKey(tool_id, since, space_ids)] = value
        return [found[key] for key in keys]

    return load


def _usage_loader(
    session_factory: SessionFactory,
) -> Callable[[list[tuple[str, date | None]]], Awaitable[list[list[VersionUsage]]]]:
    """(skill id, since) → its versions' usage since that day; one query per distinct day in the batch."""

    async def load(keys: list[tuple[str, date | None]]) -> list[list[VersionUsage]]:
        by_since: dict[date | None, list[str]] = {}
        for skill_id, since in keys:
            by_since.setdefault(since, []).append(skill_id)
        found: dict[tuple[str, date | None], list[VersionUsage]] = {}
        async with session_factory() as session:
            for since, skill_ids in by_since.items():
                rows = await skills_repository.usage_by_skill_ids(session, skill_ids, since)
                for skill_id in skill_ids:
                    found[(skill_id, since)] = list(rows.get(skill_id, []))
        return [found[key] for key in keys]

    return load
