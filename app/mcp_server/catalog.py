"""What one MCP endpoint offers: its tools (and, for an agent, its prompts) at one catalog generation.

An *offer* is computed from the database once per endpoint and catalog generation and
kept in a :class:`GenerationCache`, so ``tools/list`` pages and ``tools/call`` name
look-ups cost no query until the catalog changes (here, or on another replica). Its
fingerprints tell the change notifier whether a change touched this endpoint at all.

- ``/mcp/spaces/{id}``: every ACTIVE tool visible in the space (the visibility rule of
  ``app.tools.visibility``), in tool-id order.
- ``/mcp/agents/{id}``: the agent's activated tools that are ACTIVE and visible in its
  space, plus ``bt_search_knowledge`` when it has mounted knowledge bases; its bound,
  ACTIVE skills as prompts, each at the version a run without a session id gets (the
  pinned one, else PRODUCTION). A DISABLED or ARCHIVED agent offers nothing.

Names are the ones an agent's model sees (``app.runtime.functions``): the tool's own
name, or a stable alias when two visible tools share it (MCP tools are namespaced by
server, so two servers may both have ``search``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

import mcp_types as types
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.agents import repository as agents_repository
from app.agents.models import Agent
from app.changes import DEFAULT_TTL_S, FEED, ChangeFeed, GenerationCache
from app.knowledge.tool import TOOL_ID as SEARCH_KNOWLEDGE_TOOL_ID
from app.principal import Principal
from app.runtime.functions import function_name, model_schema
from app.skills.resolve import ResolvedSkill, resolve_skill_versions
from app.spaces import repository as spaces_repository
from app.tools import repository as tools_repository
from app.tools.repository import ToolListing

TargetKind = Literal["space", "agent"]
#: More tools than this in one space are not listed (the rest are still callable by the gateway's rules,
#: but an MCP client sees a prefix of the catalog in tool-id order).
MAX_OFFERED_TOOLS = 10_000
#: Offers kept per replica (one per endpoint in use).
MAX_CACHED_OFFERS = 1_000
#: Most offered tools kept for the offers to share (their MCP models); past it they start over.
MAX_SHARED_TOOLS = 4 * MAX_OFFERED_TOOLS
#: ``_meta`` keys of Quiver's own on tools, prompts and call results.
META_TOOL_ID = "quiver/toolId"
META_TOOL_TYPE = "quiver/toolType"
META_SKILL_ID = "quiver/skillId"
META_SKILL_VERSION = "quiver/skillVersion"
SESSION_ARGUMENT = "sessionId"


@dataclass(frozen=True)
class Target:
    """One endpoint: ``/mcp/spaces/{id}`` or ``/mcp/agents/{id}``."""

    kind: TargetKind
    id: str

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.id}"


@dataclass(frozen=True)
class OfferedTool:
    tool_id: str
    name: str
    tool: types.Tool
    source: ToolListing


@dataclass(frozen=True)
class OfferedPrompt:
    name: str
    skill_id: str
    prompt: types.Prompt
    #: The version and text a run without a session id gets.
    version: str
    text: str


@dataclass(frozen=True)
class Offer:
    """An endpoint's tools and prompts, each list in a stable order, with their fingerprints."""

    space_id: str
    agent_id: str | None
    tools: tuple[OfferedTool, ...] = ()
    prompts: tuple[OfferedPrompt, ...] = ()
    tools_by_name: dict[str, OfferedTool] = field(default_factory=dict)
    prompts_by_name: dict[str, OfferedPrompt] = field(default_factory=dict)
    tools_fingerprint: str = ""
    prompts_fingerprint: str = ""


def _fingerprint(items: list[Any]) -> str:
    return hashlib.sha256(json.dumps(items, sort_keys=True, default=str).encode()).hexdigest()


def _output_schema(tool: ToolListing) -> dict[str, Any] | None:
    """MCP output schemas describe ``structuredContent``, which is always an object."""
    schema = tool.output_schema
    return schema if isinstance(schema, dict) and schema.get("type") == "object" else None


def mcp_tool(tool: ToolListing, name: str) -> types.Tool:
    """The MCP listing of a Quiver tool: static arguments left out of the schema, READ as readOnlyHint."""
    read_only = tool.side_effect == "READ"
    return types.Tool(
        name=name,
        title=tool.label,
        description=tool.description,
        input_schema=model_schema(tool),
        output_schema=_output_schema(tool),
        annotations=types.ToolAnnotations(
            title=tool.label,
            read_only_hint=read_only,
            # A READ tool is retried by the gateway; a WRITE one changes the world.
            idempotent_hint=True if read_only else None,
            # Builtins run inside Quiver; CUSTOM and MCP tools reach other systems.
            open_world_hint=tool.type != "BUILTIN",
        ),
        _meta={META_TOOL_ID: tool.tool_id, META_TOOL_TYPE: tool.type},
    )


def _offered_tools(
    tools: list[ToolListing], shared: dict[tuple[str, str], OfferedTool] | None = None
) -> tuple[OfferedTool, ...]:
    """The tools as offered, by tool id. With ``shared``, a tool offered before under the same
    name with the same columns is offered as the same object (its MCP model built once): the
    offers of many spaces hold one copy of the tools they have in common (global tools in every
    space), not one each (about 3.5 KiB a tool and an offer)."""
    taken: set[str] = set()
    offered: list[OfferedTool] = []
    for tool in sorted(tools, key=lambda item: item.tool_id):
        name = function_name(tool, taken)
        taken.add(name)
        known = shared.get((tool.tool_id, name)) if shared is not None else None
        if known is not None and known.source == tool:
            offered.append(known)
            continue
        item = OfferedTool(tool.tool_id, name, mcp_tool(tool, name), tool)
        if shared is not None:
            shared[(tool.tool_id, name)] = item
        offered.append(item)
    return tuple(offered)


def _offered_prompts(skills: list[ResolvedSkill]) -> tuple[OfferedPrompt, ...]:
    offered: list[OfferedPrompt] = []
    taken: set[str] = set()
    for skill in skills:
        # Skill names are unique per space, but a global and a space skill may share one.
        name = skill.name if skill.name not in taken else skill.skill_id
        taken.add(name)
        prompt = types.Prompt(
            name=name,
            title=skill.label,
            description=skill.description,
            arguments=[
                types.PromptArgument(
                    name=SESSION_ARGUMENT,
                    description=(
                        "The session id a run of this agent would use (invokeAgent's sessionId): the canary "
                        "version that session gets. Without it: the pinned version, else PRODUCTION."
                    ),
                    required=False,
                )
            ],
            _meta={META_SKILL_ID: skill.skill_id, META_SKILL_VERSION: skill.version},
        )
        offered.append(OfferedPrompt(name, skill.skill_id, prompt, skill.version, skill.prompt))
    return tuple(offered)


def _offer(
    space_id: str,
    agent_id: str | None,
    tools: list[ToolListing],
    skills: list[ResolvedSkill],
    shared: dict[tuple[str, str], OfferedTool] | None = None,
) -> Offer:
    offered_tools = _offered_tools(tools, shared)
    offered_prompts = _offered_prompts(skills)
    return Offer(
        space_id=space_id,
        agent_id=agent_id,
        tools=offered_tools,
        prompts=offered_prompts,
        tools_by_name={item.name: item for item in offered_tools},
        prompts_by_name={item.name: item for item in offered_prompts},
        # From the columns the listing is made of: cheaper than dumping every model.
        tools_fingerprint=_fingerprint([(item.name, item.source) for item in offered_tools]),
        # The version is in each prompt's _meta: a promotion or rollback changes the fingerprint.
        prompts_fingerprint=_fingerprint(
            [item.prompt.model_dump(mode="json", by_alias=True, exclude_none=True) for item in offered_prompts]
        ),
    )


async def _agent_tools(session: AsyncSession, agent: Agent) -> list[ToolListing]:
    wanted = list(dict.fromkeys(agent.activated_tool_ids or []))
    if agent.mounted_kb_ids and SEARCH_KNOWLEDGE_TOOL_ID not in wanted:
        wanted.append(SEARCH_KNOWLEDGE_TOOL_ID)
    if not wanted:
        return []
    return await tools_repository.visible_tool_listings(
        session, agent.space_id, limit=MAX_OFFERED_TOOLS, tool_ids=wanted
    )


class Catalog:
    """Endpoints: who may reach them, and what they offer (cached per catalog generation)."""

    def __init__(
        self, session_factory: async_sessionmaker[AsyncSession], ttl_s: float = DEFAULT_TTL_S, feed: ChangeFeed = FEED
    ) -> None:
        self.session_factory = session_factory
        self.feed = feed
        self._offers: GenerationCache[str, Offer | None] = GenerationCache(
            ttl_s, max_entries=MAX_CACHED_OFFERS, feed=feed
        )
        # Loads under way per (endpoint, generation): after a change, the clients of a large
        # space all ask at once (and the notifier with them); one load answers them all.
        self._loading: dict[tuple[str, int], asyncio.Future[Offer | None]] = {}
        # The offered tools the offers share (_offered_tools), of one catalog generation: emptied
        # when it moves, or when it holds more than MAX_SHARED_TOOLS.
        self._shared_tools: dict[tuple[str, str], OfferedTool] = {}
        self._shared_generation = feed.generation

    def _shared(self) -> dict[tuple[str, str], OfferedTool]:
        if self._shared_generation != self.feed.generation or len(self._shared_tools) > MAX_SHARED_TOOLS:
            self._shared_tools = {}
            self._shared_generation = self.feed.generation
        return self._shared_tools

    async def reachable(self, principal: Principal, target: Target) -> bool:
        """The endpoint exists and the key may read it (else it is answered as not found).

        From the cached offer: no query per request while the catalog does not change.
        """
        if target.kind == "space" and not principal.can_read_space(target.id):
            return False  # never load what the key may not see
        offer = await self.offer(target)
        return offer is not None and principal.can_read_space(offer.space_id)

    async def offer(self, target: Target) -> Offer | None:
        """What the endpoint offers now; None when its space or agent is gone."""
        return await self._offers.get_or_load(target.key, lambda: self._load_once(target))

    async def _load_once(self, target: Target) -> Offer | None:
        key = (target.key, self.feed.generation)
        loading = self._loading.get(key)
        if loading is None:
            loading = asyncio.ensure_future(self._load(target))
            self._loading[key] = loading
            loading.add_done_callback(lambda _: self._loading.pop(key, None))
        # One caller giving up (a client gone) does not cancel the others' load.
        return await asyncio.shield(loading)

    async def _load(self, target: Target) -> Offer | None:
        async with self.session_factory() as session:
            if target.kind == "space":
                if await spaces_repository.get_space(session, target.id) is None:
                    return None
                tools = await tools_repository.visible_tool_listings(session, target.id, limit=MAX_OFFERED_TOOLS)
                return _offer(target.id, None, tools, [], self._shared())
            agent = await agents_repository.get_agent(session, target.id)
            if agent is None:
                return None
            if agent.status != "ACTIVE":
                return _offer(agent.space_id, agent.id, [], [])
            tools = await _agent_tools(session, agent)
            skills = await resolve_skill_versions(session, agent.space_id, agent.bound_skill_ids or [], None)
            return _offer(agent.space_id, agent.id, tools, skills, self._shared())

    async def prompt_for_session(self, target: Target, skill_id: str, session_id: str) -> tuple[str, str] | None:
        """(version, prompt) of a bound skill for one session (its canary bucket); None when no longer bound."""
        async with self.session_factory() as session:
            agent = await agents_repository.get_agent(session, target.id)
            if agent is None or agent.status != "ACTIVE":
                return None
            skills = await resolve_skill_versions(session, agent.space_id, agent.bound_skill_ids or [], session_id)
        for skill in skills:
            if skill.skill_id == skill_id:
                return skill.version, skill.prompt
        return None
