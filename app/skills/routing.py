"""Dynamic routing: with more bound skills than the limit, inject only the best matches.

The prompt builder calls :func:`route_skills` with the skills :func:`resolve_skill_versions`
gave and the current message. At or under the limit every skill is chosen, as before.
Over it, each skill is scored against the message (the matcher of ``matchSkills``:
lexical, plus embeddings when configured; no re-rank, to keep a model call off the
prompt path) and the best ``limit`` candidates whose calibrated probability reaches a low
minimum are chosen. There is no per-request gate here on purpose: routing has ``limit``
slots to fill, and leaving out the one skill the message needs costs more than injecting
a weak extra. Chosen skills keep their bound order, so the prompt stays stable between
messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.skills.matchers import matcher_for
from app.skills.matching import SkillDocument, SkillMatcher
from app.skills.resolve import ResolvedSkill, resolve_bound_skills


@dataclass(frozen=True)
class RoutedSkill:
    skill: ResolvedSkill
    #: The match score for this message; None when routing was not needed.
    score: float | None
    #: Why it was chosen or dropped, in one line.
    reason: str


@dataclass
class RoutingDecision:
    chosen: list[RoutedSkill] = field(default_factory=list)
    dropped: list[RoutedSkill] = field(default_factory=list)
    limit: int = 0
    #: False when every skill fit under the limit (nothing was scored).
    is_routed: bool = False

    @property
    def injected_chars(self) -> int:
        return sum(routed.skill.char_count for routed in self.chosen)

    @property
    def saved_chars(self) -> int:
        """Prompt characters not spent on dropped skills."""
        return sum(routed.skill.char_count for routed in self.dropped)


async def route_skills(
    skills: Sequence[ResolvedSkill],
    message: str,
    *,
    limit: int,
    matcher: SkillMatcher | None = None,
    min_score: float = 0.05,
) -> RoutingDecision:
    """Which of ``skills`` to inject for ``message``: all when ``len(skills) <= limit``.

    Over the limit: the ``limit`` best-scoring skills with a score of at least
    ``min_score``, in bound order; the others are dropped with the reason. Never raises
    for a matching problem (embeddings fall back to lexical).
    """
    if len(skills) <= limit:
        reason = f"all {len(skills)} bound skills fit the routing limit of {limit}"
        return RoutingDecision(
            chosen=[RoutedSkill(skill, None, reason) for skill in skills], limit=limit, is_routed=False
        )
    matcher = matcher or SkillMatcher()
    documents = [SkillDocument.from_resolved(skill) for skill in skills]
    matches = {match.skill_id: (rank, match) for rank, match in enumerate(await matcher.score_all(documents, message))}
    decision = RoutingDecision(limit=limit, is_routed=True)
    chosen_ids: set[str] = set()
    for _, match in sorted(matches.values(), key=lambda item: item[0]):
        if match.score >= min_score and len(chosen_ids) < limit:
            chosen_ids.add(match.skill_id)
    for skill in skills:
        if skill.skill_id not in matches:
            decision.dropped.append(RoutedSkill(skill, 0.0, "no match for this message"))
            continue
        rank, match = matches[skill.skill_id]
        if skill.skill_id in chosen_ids:
            reason = f"ranked {rank + 1} of {len(skills)} for this message (score {match.score:.2f}): {match.reason}"
            decision.chosen.append(RoutedSkill(skill, match.score, reason))
        elif match.score < min_score:
            reason = f"score {match.score:.2f} below the minimum {min_score:.2f} for this message"
            decision.dropped.append(RoutedSkill(skill, match.score, reason))
        else:
            reason = f"ranked {rank + 1} of {len(skills)} (score {match.score:.2f}); only the best {limit} are injected"
            decision.dropped.append(RoutedSkill(skill, match.score, reason))
    return decision


@dataclass
class RoutedSelection:
    """What the prompt builder injects for one message, and everything it should report."""

    routing: RoutingDecision
    #: Bound references skipped before routing (disabled, archived, foreign, dangling pin).
    notes: list[str] = field(default_factory=list)

    @property
    def injected(self) -> list[ResolvedSkill]:
        return [routed.skill for routed in self.routing.chosen]


async def select_skills(
    session: AsyncSession,
    space_id: str,
    skill_references: Sequence[str],
    message: str,
    settings: Settings,
    *,
    session_id: str | None,
    force_channel: str | None = None,
) -> RoutedSelection:
    """Resolve an agent's bound skills (``skill_references``) for this session, then route them for this message."""
    resolution = await resolve_bound_skills(
        session, space_id, skill_references, session_id, force_channel=force_channel
    )
    routing = await route_skills(
        resolution.skills,
        message,
        limit=settings.skill_routing_limit,
        matcher=matcher_for(settings),
        min_score=settings.skill_routing_min_score,
    )
    return RoutedSelection(routing=routing, notes=resolution.notes)
