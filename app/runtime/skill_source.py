"""Which skill text a run injects: the agent's bound, ACTIVE skills, each at the version
its session gets (pin, production or sticky canary), routed to the best matches when
the agent has more than the routing limit."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.agents.models import Agent
from app.config import Settings
from app.runtime.prompt import SkillSection, SkillSelection
from app.skills.resolve import canary_bucket
from app.skills.routing import select_skills


class RoutedSkillProvider:
    def __init__(self, session_factory: async_sessionmaker[AsyncSession], settings: Settings) -> None:
        self.session_factory = session_factory
        self.settings = settings

    async def select(
        self, agent: Agent, message: str, *, session_id: str | None, force_channel: str | None
    ) -> SkillSelection:
        async with self.session_factory() as session:
            selected = await select_skills(
                session,
                agent.space_id,
                agent.bound_skill_ids or [],
                message,
                self.settings,
                session_id=session_id,
                force_channel=force_channel,
            )
        routing = selected.routing
        selection = SkillSelection(notes=list(selected.notes), limit=routing.limit, routed=routing.is_routed)
        for is_chosen, group in ((True, routing.chosen), (False, routing.dropped)):
            for routed in group:
                selection.candidates.append(
                    {
                        "skillId": routed.skill.skill_id,
                        "version": routed.skill.version,
                        "channel": "PINNED" if routed.skill.is_pinned else routed.skill.channel,
                        "versionReason": routed.skill.reason,
                        "canaryBucket": canary_bucket(session_id, routed.skill.skill_id) if session_id else None,
                        "score": routed.score,
                        "chosen": is_chosen,
                        "reason": routed.reason,
                    }
                )
        for routed in routing.chosen:
            skill = routed.skill
            reason = f"{skill.reason}; {routed.reason}" if routing.is_routed else skill.reason
            channel = "PINNED" if skill.is_pinned else skill.channel
            selection.sections.append(SkillSection(skill.skill_id, skill.version, channel, skill.prompt, reason))
        if routing.is_routed:
            chosen = ", ".join(f"{routed.skill.skill_id} ({routed.reason})" for routed in routing.chosen) or "none"
            selection.notes.append(
                f"Skill routing: {len(routing.chosen) + len(routing.dropped)} bound skills exceed the limit of "
                f"{routing.limit}; injected {chosen}."
            )
            for routed in routing.dropped:
                selection.notes.append(f"Skill {routed.skill.skill_id} not injected: {routed.reason}.")
        return selection
