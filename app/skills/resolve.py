"""Which version of each bound skill a run gets: pins, PRODUCTION, and the sticky canary."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from app.skills import repository
from app.skills.models import CANDIDATE, PRODUCTION, SkillDefinition, SkillVersion
from app.skills.versions import split_reference

CHANNELS = (PRODUCTION, CANDIDATE)


@dataclass(frozen=True)
class ResolvedSkill:
    """One bound skill at the version this session gets, with what matching and routing need."""

    skill_id: str
    name: str
    label: str
    version: str
    #: PRODUCTION, CANDIDATE, or the pinned version's current channel (RETIRED possible).
    channel: str
    prompt: str
    is_pinned: bool
    #: Why this version, in a few words: "pinned", "production", "canary 10% (bucket 7)", "forced candidate".
    reason: str
    description: str = ""
    category: str | None = None
    tags: tuple[str, ...] = ()
    trigger_hints: tuple[str, ...] = ()
    boundary: str | None = None
    tool_ids: tuple[str, ...] = ()
    #: The reference as bound on the agent, e.g. ``sk_email_draft@1.2.0``.
    reference: str = ""

    @property
    def char_count(self) -> int:
        return len(self.prompt)


@dataclass
class Resolution:
    """Resolved skills in bound order, plus one note per skipped reference."""

    skills: list[ResolvedSkill] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def canary_bucket(session_id: str, skill_id: str) -> int:
    """0-99, stable for one (session, skill): a conversation never flips between versions."""
    digest = hashlib.sha256(f"{session_id}\x1f{skill_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 100


def _resolved(
    skill: SkillDefinition, version: SkillVersion, reference: str, *, is_pinned: bool, reason: str
) -> ResolvedSkill:
    return ResolvedSkill(
        skill_id=skill.skill_id,
        name=skill.name,
        label=skill.label,
        version=version.version,
        channel=version.channel,
        prompt=version.prompt,
        is_pinned=is_pinned,
        reason=reason,
        description=skill.description,
        category=skill.category,
        tags=tuple(skill.tags or ()),
        trigger_hints=tuple(skill.trigger_hints or ()),
        boundary=skill.boundary,
        tool_ids=tuple(skill.tools or ()),
        reference=reference,
    )


def pick_version(
    skill: SkillDefinition,
    versions: list[SkillVersion],
    pinned: str | None,
    session_id: str | None,
    force_channel: str | None,
) -> tuple[SkillVersion | None, str]:
    """The version for this session and why (None when a pin names no version)."""
    by_version = {row.version: row for row in versions}
    if pinned is not None:
        return by_version.get(pinned), "pinned"
    production = next((row for row in versions if row.channel == PRODUCTION), None)
    candidate = next((row for row in versions if row.channel == CANDIDATE), None)
    if force_channel == CANDIDATE and candidate is not None:
        return candidate, "forced candidate"
    if force_channel == PRODUCTION:
        return production, "forced production"
    if candidate is not None and session_id and skill.canary_percent > 0:
        bucket = canary_bucket(session_id, skill.skill_id)
        if bucket < skill.canary_percent:
            return candidate, f"canary {skill.canary_percent}% (bucket {bucket})"
    return production, "production"


async def resolve_bound_skills(
    session: AsyncSession,
    space_id: str,
    skill_references: Sequence[str],
    session_id: str | None,
    *,
    force_channel: str | None = None,
) -> Resolution:
    """Like :func:`resolve_skill_versions`, also saying why a reference was skipped."""
    if force_channel is not None and force_channel not in CHANNELS:
        raise ValueError(f"force_channel is PRODUCTION, CANDIDATE or None, not {force_channel!r}")
    resolution = Resolution()
    references = [(reference, *split_reference(reference)) for reference in skill_references]
    skill_ids = list(dict.fromkeys(skill_id for _, skill_id, _ in references))
    skills = {skill.skill_id: skill for skill in await repository.skills_by_ids(session, skill_ids)}
    versions = await repository.versions_by_skill_ids(session, skill_ids)
    seen: set[str] = set()
    for reference, skill_id, pinned in references:
        skill = skills.get(skill_id)
        if skill is None or (skill.space_id is not None and skill.space_id != space_id):
            resolution.notes.append(f"Skill {skill_id} skipped: it is not a skill of this space.")
            continue
        if skill.status != "ACTIVE":
            resolution.notes.append(f"Skill {skill_id} skipped: it is {skill.status}.")
            continue
        if skill_id in seen:
            continue
        version, reason = pick_version(skill, versions.get(skill_id, []), pinned, session_id, force_channel)
        if version is None:
            resolution.notes.append(f"Skill {skill_id} skipped: version {pinned} does not exist.")
            continue
        seen.add(skill_id)
        resolution.skills.append(_resolved(skill, version, reference, is_pinned=pinned is not None, reason=reason))
    return resolution


async def resolve_skill_versions(
    session: AsyncSession,
    space_id: str,
    skill_references: Sequence[str],
    session_id: str | None,
    *,
    force_channel: str | None = None,
) -> list[ResolvedSkill]:
    """An agent's bound skills (``skill_references``), in bound order, each at the version this session gets.

    Only ACTIVE skills of the agent's space (``space_id``) (or global) come back; disabled, archived,
    foreign or dangling references are skipped, never an error. A pinned reference
    (``sku_x@1.2.0``) gets that version. Otherwise PRODUCTION, except that a skill with a
    CANDIDATE and a canary share serves the candidate to that share of sessions, chosen
    by a hash of (session id, skill id) so one conversation never flips; without a
    session id there is no canary. ``force_channel`` ("PRODUCTION" or "CANDIDATE") wins
    over the canary for unpinned skills (test sessions); CANDIDATE falls back to
    PRODUCTION for skills without a candidate.
    """
    resolution = await resolve_bound_skills(
        session, space_id, skill_references, session_id, force_channel=force_channel
    )
    return resolution.skills
