"""The prompt builder: one fixed order, one budget, every cut reported.

ROLE (the agent's system prompt) → SKILL (bound, ACTIVE, each at its resolved
version) → OUTPUT_FORMAT → KNOWLEDGE (dynamic) → PROFILE (dynamic). Over the
budget, sections are cut from the tail: the dynamic ones first.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.agents.models import Agent
from app.changes import DEFAULT_TTL_S, GenerationCache
from app.db import utcnow
from app.knowledge.context import KnowledgeContext
from app.runtime import trace
from app.runtime.functions import FunctionSet, build_function_set
from app.tools import repository as tools_repository

ROLE = "ROLE"
SKILL = "SKILL"
OUTPUT_FORMAT = "OUTPUT_FORMAT"
KNOWLEDGE = "KNOWLEDGE"
PROFILE = "PROFILE"
SECTION_SEPARATOR = "\n\n"
TRUNCATION_MARK = "\n[…truncated to fit the prompt budget]"


def estimate_tokens(text: str) -> int:
    """~4 characters per token for ASCII text, one token per character otherwise (CJK and the like)."""
    ascii_chars = sum(1 for character in text if ord(character) < 128)
    return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)


@dataclass
class Section:
    kind: str
    text: str
    source: str | None = None
    truncated: bool = False
    #: Why it is there (skills: the version's channel and, when routed, the match).
    reason: str | None = None


@dataclass
class SkillSection:
    skill_id: str
    version: str
    channel: str
    prompt: str
    reason: str | None = None


@dataclass
class SkillSelection:
    sections: list[SkillSection] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: For the run's trace: every bound skill considered, with its score, version, reason.
    candidates: list[dict[str, Any]] = field(default_factory=list)
    #: The routing limit, and whether the skills had to be routed (more than the limit).
    limit: int | None = None
    routed: bool = False


class SkillProvider(Protocol):
    async def select(
        self, agent: Agent, message: str, *, session_id: str | None, force_channel: str | None
    ) -> SkillSelection: ...


class KnowledgeProvider(Protocol):
    async def context(self, space_id: str, kb_ids: Sequence[str], message: str, *, budget_chars: int) -> str | None: ...


@runtime_checkable
class DetailedKnowledgeProvider(Protocol):
    """A knowledge provider that also tells what explains its block (hits, citations, failures)."""

    async def gather(
        self, space_id: str, kb_ids: Sequence[str], message: str, *, budget_chars: int
    ) -> KnowledgeContext: ...


@dataclass
class AssembledPrompt:
    system_prompt: str
    sections: list[Section]
    token_estimate: int
    warnings: list[str]
    functions: FunctionSet
    skill_versions: list[dict[str, Any]]
    injected_skills: list[SkillSection] = field(default_factory=list)
    #: SKILL_ROUTING, KNOWLEDGE and PROMPT stages of the run's trace, in that order.
    stages: list[trace.Stage] = field(default_factory=list)


@dataclass
class PromptSettings:
    budget_chars: int = 24_000
    skill_max_chars: int = 2_000
    knowledge_budget_chars: int = 6_000


class PromptBuilder:
    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        skills: SkillProvider,
        knowledge: KnowledgeProvider | None,
        settings: PromptSettings,
        *,
        catalog_ttl_s: float = DEFAULT_TTL_S,
    ) -> None:
        self.session_factory = session_factory
        self.skills = skills
        self.knowledge = knowledge
        self.settings = settings
        # The functions offered per (space, activated tools): read and built once, dropped on any
        # catalog commit (here or, through the bus, on another replica) and after the TTL, like
        # the gateway's own view of the same tools. Shared by runs: never changed once built.
        self._functions_cache: GenerationCache[tuple[str, tuple[str, ...]], FunctionSet] = GenerationCache(
            catalog_ttl_s
        )

    async def build(
        self,
        agent: Agent,
        message: str,
        *,
        session_id: str | None = None,
        user_profile: dict[str, Any] | None = None,
        force_channel: str | None = None,
    ) -> AssembledPrompt:
        warnings: list[str] = []
        stages: list[trace.Stage] = []
        started = utcnow()
        sections = [Section(ROLE, agent.system_prompt.strip(), source=agent.id)]
        routing_started = utcnow()
        selection = await self.skills.select(agent, message, session_id=session_id, force_channel=force_channel)
        stages.append(_routing_stage(selection, routing_started))
        warnings.extend(selection.notes)
        for skill in selection.sections:
            if len(skill.prompt) > self.settings.skill_max_chars:
                warnings.append(
                    f"Skill {skill.skill_id}@{skill.version} has {len(skill.prompt)} characters, "
                    f"over the per-skill limit of {self.settings.skill_max_chars}."
                )
            sections.append(
                Section(SKILL, skill.prompt.strip(), source=f"{skill.skill_id}@{skill.version}", reason=skill.reason)
            )
        output_format = getattr(agent, "output_format", None)
        if output_format:
            sections.append(Section(OUTPUT_FORMAT, output_format.strip(), source=agent.id))
        if self.knowledge is not None and agent.mounted_kb_ids:
            knowledge_started = utcnow()
            budget = self.settings.knowledge_budget_chars
            if isinstance(self.knowledge, DetailedKnowledgeProvider):
                gathered = await self.knowledge.gather(
                    agent.space_id, agent.mounted_kb_ids, message, budget_chars=budget
                )
                context: str | None = gathered.text or None
                stages.append(_knowledge_stage(agent, message, budget, gathered, knowledge_started))
            else:
                context = await self.knowledge.context(
                    agent.space_id, agent.mounted_kb_ids, message, budget_chars=budget
                )
            if context:
                sections.append(Section(KNOWLEDGE, context.strip(), source=",".join(agent.mounted_kb_ids)))
        if user_profile:
            profile = "User profile:\n" + json.dumps(user_profile, ensure_ascii=False, indent=2, sort_keys=True)
            sections.append(Section(PROFILE, profile, source="invokeAgent.userProfile"))
        sections = self._fit(sections, warnings)
        kept_sources = {section.source for section in sections}
        injected = [skill for skill in selection.sections if f"{skill.skill_id}@{skill.version}" in kept_sources]
        functions = await self._functions(agent)
        system_prompt = SECTION_SEPARATOR.join(section.text for section in sections if section.text)
        tool_text = json.dumps(functions.definitions, ensure_ascii=False)
        token_estimate = estimate_tokens(system_prompt) + estimate_tokens(tool_text) + estimate_tokens(message)
        stages.append(
            trace.Stage(
                trace.PROMPT,
                started,
                utcnow(),
                {
                    "budgetChars": self.settings.budget_chars,
                    "chars": len(system_prompt),
                    "tokenEstimate": token_estimate,
                    "sections": [
                        {
                            "kind": section.kind,
                            "source": section.source,
                            "chars": len(section.text),
                            "truncated": section.truncated,
                            "reason": section.reason,
                        }
                        for section in sections
                    ],
                    "warnings": list(warnings),
                    "functions": sorted(functions.tool_by_name),
                },
            )
        )
        return AssembledPrompt(
            system_prompt=system_prompt,
            sections=sections,
            token_estimate=token_estimate,
            warnings=warnings,
            functions=functions,
            skill_versions=[
                {"skillId": skill.skill_id, "version": skill.version, "channel": skill.channel} for skill in injected
            ],
            injected_skills=injected,
            stages=stages,
        )

    def _fit(self, sections: list[Section], warnings: list[str]) -> list[Section]:
        """Cut from the tail until the sections fit the budget; ROLE is cut last and only truncated."""
        budget = self.settings.budget_chars

        def total(items: list[Section]) -> int:
            return sum(len(item.text) for item in items) + len(SECTION_SEPARATOR) * max(len(items) - 1, 0)

        kept = list(sections)
        while total(kept) > budget and len(kept) > 1:
            overflow = total(kept) - budget
            last = kept[-1]
            if len(last.text) - overflow > 200:
                # Enough of the section survives to be useful: truncate it instead of dropping it.
                keep = len(last.text) - overflow - len(TRUNCATION_MARK)
                kept[-1] = Section(last.kind, last.text[:keep] + TRUNCATION_MARK, last.source, True, last.reason)
                warnings.append(f"{last.kind} section ({last.source}) truncated to fit the prompt budget of {budget}.")
            else:
                kept.pop()
                warnings.append(f"{last.kind} section ({last.source}) dropped to fit the prompt budget of {budget}.")
        if total(kept) > budget:
            role = kept[0]
            keep = max(budget - len(TRUNCATION_MARK), 0)
            kept[0] = Section(role.kind, role.text[:keep] + TRUNCATION_MARK, role.source, True, role.reason)
            warnings.append(f"ROLE truncated to fit the prompt budget of {budget}.")
        return kept

    async def _functions(self, agent: Agent) -> FunctionSet:
        tool_ids = tuple(agent.activated_tool_ids)
        return await self._functions_cache.get_or_load(
            (agent.space_id, tool_ids), lambda: self._load_functions(agent.space_id, tool_ids)
        )

    async def _load_functions(self, space_id: str, tool_ids: tuple[str, ...]) -> FunctionSet:
        async with self.session_factory() as session:
            visible = await tools_repository.visible_tool_ids(session, space_id, list(tool_ids))
            tools = await tools_repository.tools_by_ids(session, sorted(visible))
        return build_function_set(tools)


def _routing_stage(selection: SkillSelection, started: Any) -> trace.Stage:
    return trace.Stage(
        trace.SKILL_ROUTING,
        started,
        utcnow(),
        {
            "limit": selection.limit,
            "routed": selection.routed,
            "candidates": selection.candidates,
            "chosen": [
                {"skillId": skill.skill_id, "version": skill.version, "channel": skill.channel}
                for skill in selection.sections
            ],
            "notes": list(selection.notes),
        },
    )


def _knowledge_stage(
    agent: Agent, message: str, budget_chars: int, gathered: KnowledgeContext, started: Any
) -> trace.Stage:
    cited = {(citation.document_id, citation.chunk_index): citation.number for citation in gathered.citations}
    return trace.Stage(
        trace.KNOWLEDGE,
        started,
        utcnow(),
        {
            "queries": [message[: trace.TEXT_CAP]],
            "knowledgeBaseIds": list(agent.mounted_kb_ids),
            "budgetChars": budget_chars,
            "chars": len(gathered.text),
            "hits": [
                {
                    "knowledgeBaseId": hit.knowledge_base_id,
                    "documentId": hit.document_id,
                    "title": hit.title,
                    "source": hit.source,
                    "chunkIndex": hit.chunk_index,
                    "score": hit.score,
                    "citation": cited.get((hit.document_id, hit.chunk_index)),
                }
                for hit in gathered.hits
            ],
            "citations": len(gathered.citations),
            "partialSources": dict(gathered.failures),
        },
    )
