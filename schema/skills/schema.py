"""Queries and mutations of the skills domain."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated

import strawberry
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents import service as agents_service
from app.skills import channels, repository, service
from app.skills.inputs import SkillInput
from app.skills.matchers import matcher_for
from app.skills.models import SkillDefinition
from app.skills.models import SkillVersion as SkillVersionRow
from app.skills.routing import RoutedSkill as RoutedSkillRow
from app.skills.routing import select_skills
from schema import visibility
from schema.context import Info
from schema.errors import UserError
from schema.mutations import in_transaction
from schema.pagination import AfterArgument, Connection, FirstArgument, empty_connection, paginate
from schema.skills.types import (
    Skill,
    SkillChannel,
    SkillFilter,
    SkillMatch,
    SkillMatchSignal,
    SkillVersion,
    skill_connection,
)


@strawberry.type
class SkillsQuery:
    @strawberry.field(
        description="Skills the caller can see: every skill for admins, global plus its space's otherwise."
    )
    async def skills(
        self,
        info: Info,
        first: FirstArgument = 50,
        after: AfterArgument = None,
        filter: Annotated[SkillFilter | None, strawberry.argument(description="Narrow the list.")] = None,
    ) -> Connection[Skill]:
        return await skill_connection(info, info.context.principal.reach, first, after, filter)

    @strawberry.field(description="One skill by id, any status; null when absent or outside the caller's reach.")
    async def skill(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="The skill's id.")],
    ) -> Skill | None:
        async with info.context.session() as session:
            row = await service.get_skill_for(session, info.context.principal, str(id))
        return Skill.from_row(row) if row else None

    @strawberry.field(
        description="Skills (not archived) not injected into any run since `since`; with includeMatches, not matched either."
    )
    async def unused_skills(
        self,
        info: Info,
        since: Annotated[datetime, strawberry.argument(description="Start of the window, e.g. 30 days ago.")],
        space_id: Annotated[
            strawberry.ID | None,
            strawberry.argument(
                description="Only global skills and this space's; omit for every skill the caller can see."
            ),
        ] = None,
        include_matches: Annotated[
            bool | None, strawberry.argument(description="Count a matchSkills result as a use too.")
        ] = False,
        first: FirstArgument = 50,
        after: AfterArgument = None,
    ) -> Connection[Skill]:
        principal = info.context.principal
        scope = str(space_id) if space_id else principal.reach
        if scope is not None and not principal.can_read_space(scope):
            return empty_connection(after)
        with_matches = bool(include_matches)
        return await paginate(
            info,
            first,
            after,
            lambda session, request: repository.list_unused_skills(session, scope, since, with_matches, request),
            lambda session: repository.count_unused_skills(session, scope, since, with_matches),
            Skill.from_row,
            lambda row: row.skill_id,
        )

    @strawberry.field(
        description="Which bound skills an agent would inject for a message, at which version and why (the prompt builder's skill step)."
    )
    async def skill_routing(
        self,
        info: Info,
        agent_id: Annotated[strawberry.ID, strawberry.argument(description="The agent.")],
        message: Annotated[str, strawberry.argument(description="The user message to route for.")],
        session_id: Annotated[
            str | None, strawberry.argument(description="The conversation, for the sticky canary; none: no canary.")
        ] = None,
        force_channel: Annotated[
            SkillChannel | None,
            strawberry.argument(
                description="PRODUCTION or CANDIDATE for every unpinned skill, as a test session would."
            ),
        ] = None,
    ) -> SkillRouting | None:
        settings = info.context.settings
        async with info.context.session() as session:
            agent = await agents_service.get_agent_for(session, info.context.principal, str(agent_id))
            if agent is None:
                return None
            channel = (
                force_channel.value if force_channel is not None and force_channel != SkillChannel.RETIRED else None
            )
            selection = await select_skills(
                session,
                agent.space_id,
                agent.bound_skill_ids or [],
                message,
                settings,
                session_id=session_id,
                force_channel=channel,
            )
        routing = selection.routing
        skills = {
            row.skill_id: row
            for row in await info.context.loaders.skill_by_id.load_many(
                [routed.skill.skill_id for routed in [*routing.chosen, *routing.dropped]]
            )
            if row is not None and visibility.skill_visible(info, row)
        }
        return SkillRouting(
            limit=routing.limit,
            is_routed=routing.is_routed,
            chosen=[
                RoutedSkill.from_app(routed, skills) for routed in routing.chosen if routed.skill.skill_id in skills
            ],
            dropped=[
                RoutedSkill.from_app(routed, skills) for routed in routing.dropped if routed.skill.skill_id in skills
            ],
            notes=selection.notes,
            injected_chars=routing.injected_chars,
            saved_chars=routing.saved_chars,
        )


@strawberry.type(
    description="One bound skill in a routing decision: the version a session gets and whether it is injected."
)
class RoutedSkill:
    skill: Skill = strawberry.field(description="The skill.")
    version: str = strawberry.field(description="The version this session gets.")
    channel: str = strawberry.field(description="That version's channel: PRODUCTION, CANDIDATE or RETIRED.")
    is_pinned: bool = strawberry.field(description="True when the agent pins this version (skill@version).")
    version_reason: str = strawberry.field(
        description="Why this version: pinned, production, canary share and bucket, or forced."
    )
    score: float | None = strawberry.field(
        description="Match score for the message, 0..1; null when routing was not needed."
    )
    reason: str = strawberry.field(description="Why it is injected or left out, in one line.")
    char_count: int = strawberry.field(description="Characters of the prompt at this version.")

    @classmethod
    def from_app(cls, routed: RoutedSkillRow, skills: Mapping[str, SkillDefinition]) -> RoutedSkill:
        row = skills[routed.skill.skill_id]
        return cls(
            skill=Skill.from_row(row),
            version=routed.skill.version,
            channel=routed.skill.channel,
            is_pinned=routed.skill.is_pinned,
            version_reason=routed.skill.reason,
            score=routed.score,
            reason=routed.reason,
            char_count=routed.skill.char_count,
        )


@strawberry.type(
    description="The skill step of prompt assembly: bound skills resolved to versions, then routed for one message."
)
class SkillRouting:
    limit: int = strawberry.field(description="The routing limit (setting skill_routing_limit, default 8).")
    is_routed: bool = strawberry.field(
        description="False when every bound skill fit under the limit and all are injected."
    )
    chosen: list[RoutedSkill] = strawberry.field(description="Skills injected, in bound order.")
    dropped: list[RoutedSkill] = strawberry.field(description="Skills left out for this message, with the reason.")
    notes: list[str] = strawberry.field(
        description="Bound references skipped before routing: disabled, archived, foreign or a missing pinned version."
    )
    injected_chars: int = strawberry.field(description="Prompt characters of the chosen skills.")
    saved_chars: int = strawberry.field(description="Prompt characters not spent on dropped skills.")


@strawberry.input(description="A new skill; its prompt becomes version 1.0.0 (or the given version) in PRODUCTION.")
class CreateSkillInput:
    space_id: strawberry.ID | None = strawberry.field(
        default=None, description="Omit for a global skill (admins only)."
    )
    name: str = strawberry.field(description="1-64 of a-z, 0-9 and single hyphens; unique where it is visible.")
    label: str = strawberry.field(description="Display name for people.")
    description: str = strawberry.field(description="For the people who assemble agents.")
    prompt: str = strawberry.field(
        description="Markdown methodology, within the configured limit (default 2000 characters)."
    )
    category: str | None = strawberry.field(default=None, description="Broad area, e.g. communication.")
    tags: list[str] | None = strawberry.field(default=None, description="Free-form labels.")
    trigger_hints: list[str] | None = strawberry.field(
        default=None, description="Phrases that signal the skill applies."
    )
    boundary: str | None = strawberry.field(default=None, description="What the skill must not be used for.")
    version: str | None = strawberry.field(
        default=None, description="Semantic version of the first version (default 1.0.0)."
    )
    tool_ids: list[strawberry.ID] | None = strawberry.field(
        default=None,
        description="Tools the skill orchestrates; each must exist (and be visible in the skill's space). Binding the skill activates them.",
    )


@strawberry.input(description="Changes to a skill; a new prompt creates a new immutable version (patch bump).")
class UpdateSkillInput:
    id: strawberry.ID = strawberry.field(description="The skill to change.")
    label: str | None = strawberry.field(default=None, description="New display name.")
    description: str | None = strawberry.field(default=None, description="New description.")
    prompt: str | None = strawberry.field(default=None, description="New prompt; creates a new version.")
    category: str | None = strawberry.field(default=None, description="New category; empty string clears it.")
    tags: list[str] | None = strawberry.field(default=None, description="New tags (replace the old ones).")
    trigger_hints: list[str] | None = strawberry.field(
        default=None, description="New trigger hints (replace the old ones)."
    )
    boundary: str | None = strawberry.field(default=None, description="New boundary; empty string clears it.")
    tool_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="New declared tools (replace the old ones)."
    )
    version: str | None = strawberry.field(
        default=None,
        description="Version number for the new prompt (must be new); default: patch after the highest version.",
    )


@strawberry.type(description="Result of a mutation on a skill.")
class SkillPayload:
    skill: Skill | None = strawberry.field(description="The skill; null when the mutation failed.")
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


def _ids(values: list[strawberry.ID] | None) -> list[str] | None:
    return [str(value) for value in values] if values is not None else None


@strawberry.input(
    description="A version to publish as the CANDIDATE. Give a prompt for a new version, or only a version to re-publish a retired one."
)
class PublishSkillVersionInput:
    skill_id: strawberry.ID = strawberry.field(description="The skill.")
    prompt: str | None = strawberry.field(
        default=None, description="The new version's prompt; omit to publish an existing version."
    )
    version: str | None = strawberry.field(
        default=None,
        description="The version number: new (with a prompt; default: patch after the highest) or existing (without).",
    )
    canary_percent: int | None = strawberry.field(
        default=None,
        description="Share of sessions (0-100) served the candidate; default: the setting skill_canary_default_percent.",
    )


@strawberry.type(description="Result of publishSkillVersion.")
class PublishSkillVersionPayload:
    skill: Skill | None = strawberry.field(description="The skill; null when the mutation failed.")
    skill_version: SkillVersion | None = strawberry.field(description="The version now in CANDIDATE.")
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


@strawberry.input(description="The skill whose CANDIDATE becomes PRODUCTION.")
class PromoteSkillCandidateInput:
    skill_id: strawberry.ID = strawberry.field(description="The skill.")


@strawberry.type(description="Result of promoteSkillCandidate.")
class PromoteSkillCandidatePayload:
    skill: Skill | None = strawberry.field(
        description="The skill, serving the promoted version; null when the mutation failed."
    )
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


@strawberry.input(description="A rollback of PRODUCTION to an earlier version.")
class RollbackSkillInput:
    skill_id: strawberry.ID = strawberry.field(description="The skill.")
    version: str | None = strawberry.field(
        default=None,
        description="The earlier version to serve; default: the version PRODUCTION held before the current one.",
    )


@strawberry.type(description="Result of rollbackSkill.")
class RollbackSkillPayload:
    skill: Skill | None = strawberry.field(
        description="The skill, serving the earlier version; null when the mutation failed."
    )
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


@strawberry.input(description="A new canary share for a skill.")
class SetSkillCanaryInput:
    skill_id: strawberry.ID = strawberry.field(description="The skill.")
    canary_percent: int = strawberry.field(
        description="Share of sessions (0-100) served the CANDIDATE while there is one."
    )


@strawberry.type(description="Result of setSkillCanary.")
class SetSkillCanaryPayload:
    skill: Skill | None = strawberry.field(description="The skill; null when the mutation failed.")
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


@strawberry.input(description="A SKILL.md to import.")
class ImportSkillInput:
    space_id: strawberry.ID | None = strawberry.field(
        default=None, description="Omit for a global skill (admins only)."
    )
    text: str = strawberry.field(
        description="The whole SKILL.md: YAML front matter (name, description, optional metadata) and the Markdown prompt."
    )
    replace_existing: bool | None = strawberry.field(
        default=False,
        description="When a skill of that name exists in that scope, update it (a new PRODUCTION version if the prompt changed).",
    )


@strawberry.type(description="Result of importSkill.")
class ImportSkillPayload:
    skill: Skill | None = strawberry.field(description="The imported skill; null when the mutation failed.")
    is_created: bool = strawberry.field(
        description="True when a new skill was created, false when an existing one was updated."
    )
    user_errors: list[UserError] = strawberry.field(description="Why the text was refused; empty on success.")


@strawberry.type
class SkillsMutation:
    @strawberry.mutation(description="Create a skill in a space (SPACE_ADMIN of it, or ADMIN) or globally (ADMIN).")
    async def create_skill(
        self,
        info: Info,
        input: Annotated[CreateSkillInput, strawberry.argument(description="The new skill.")],
    ) -> SkillPayload:
        principal, limit = info.context.principal, info.context.settings.skill_prompt_max_chars
        data = SkillInput(
            space_id=str(input.space_id) if input.space_id is not None else None,
            name=input.name,
            label=input.label,
            description=input.description,
            prompt=input.prompt,
            category=input.category,
            tags=input.tags,
            trigger_hints=input.trigger_hints,
            boundary=input.boundary,
            version=input.version,
            tool_ids=_ids(input.tool_ids),
        )
        row, errors = await in_transaction(info, lambda session: service.create_skill(session, principal, data, limit))
        return SkillPayload(skill=Skill.from_row(row) if row else None, user_errors=errors)

    @strawberry.mutation(description="Change a skill; a new prompt becomes a new PRODUCTION version.")
    async def update_skill(
        self,
        info: Info,
        input: Annotated[UpdateSkillInput, strawberry.argument(description="The changes.")],
    ) -> SkillPayload:
        principal, limit = info.context.principal, info.context.settings.skill_prompt_max_chars
        data = SkillInput(
            label=input.label,
            description=input.description,
            prompt=input.prompt,
            category=input.category,
            tags=input.tags,
            trigger_hints=input.trigger_hints,
            boundary=input.boundary,
            tool_ids=_ids(input.tool_ids),
            version=input.version,
        )
        row, errors = await in_transaction(
            info, lambda session: service.update_skill(session, principal, str(input.id), data, limit)
        )
        return SkillPayload(skill=Skill.from_row(row) if row else None, user_errors=errors)

    @strawberry.mutation(
        description="Publish a version as the CANDIDATE: a new immutable version from a prompt, or an existing retired one. PRODUCTION is untouched."
    )
    async def publish_skill_version(
        self,
        info: Info,
        input: Annotated[PublishSkillVersionInput, strawberry.argument(description="The version to publish.")],
    ) -> PublishSkillVersionPayload:
        principal, settings = info.context.principal, info.context.settings

        async def action(session: AsyncSession) -> tuple[SkillDefinition, SkillVersionRow]:
            return await channels.publish_version(
                session,
                principal,
                str(input.skill_id),
                prompt=input.prompt,
                version=input.version,
                canary_percent=input.canary_percent,
                default_canary_percent=settings.skill_canary_default_percent,
                prompt_limit=settings.skill_prompt_max_chars,
            )

        result, errors = await in_transaction(info, action)
        return PublishSkillVersionPayload(
            skill=Skill.from_row(result[0]) if result else None,
            skill_version=SkillVersion.from_row(result[1]) if result else None,
            user_errors=errors,
        )

    @strawberry.mutation(
        description="Promote the CANDIDATE to PRODUCTION; the old PRODUCTION is retired and the canary share goes back to 0."
    )
    async def promote_skill_candidate(
        self,
        info: Info,
        input: Annotated[PromoteSkillCandidateInput, strawberry.argument(description="The skill.")],
    ) -> PromoteSkillCandidatePayload:
        principal = info.context.principal
        row, errors = await in_transaction(
            info, lambda session: channels.promote_candidate(session, principal, str(input.skill_id))
        )
        return PromoteSkillCandidatePayload(skill=Skill.from_row(row) if row else None, user_errors=errors)

    @strawberry.mutation(description="Roll PRODUCTION back to an earlier version; the current PRODUCTION is retired.")
    async def rollback_skill(
        self,
        info: Info,
        input: Annotated[
            RollbackSkillInput, strawberry.argument(description="The skill and, optionally, the version.")
        ],
    ) -> RollbackSkillPayload:
        principal = info.context.principal
        row, errors = await in_transaction(
            info, lambda session: channels.rollback(session, principal, str(input.skill_id), input.version)
        )
        return RollbackSkillPayload(skill=Skill.from_row(row) if row else None, user_errors=errors)

    @strawberry.mutation(description="Set the share of sessions served the CANDIDATE version (sticky per session).")
    async def set_skill_canary(
        self,
        info: Info,
        input: Annotated[SetSkillCanaryInput, strawberry.argument(description="The skill and the share.")],
    ) -> SetSkillCanaryPayload:
        principal = info.context.principal
        row, errors = await in_transaction(
            info, lambda session: channels.set_canary(session, principal, str(input.skill_id), input.canary_percent)
        )
        return SetSkillCanaryPayload(skill=Skill.from_row(row) if row else None, user_errors=errors)

    @strawberry.mutation(
        description="Create a skill from the text of a SKILL.md (Agent Skills format), or update the one of that name with replaceExisting."
    )
    async def import_skill(
        self,
        info: Info,
        input: Annotated[ImportSkillInput, strawberry.argument(description="The SKILL.md text and where it goes.")],
    ) -> ImportSkillPayload:
        principal, limit = info.context.principal, info.context.settings.skill_prompt_max_chars
        space_id = str(input.space_id) if input.space_id is not None else None
        result, errors = await in_transaction(
            info,
            lambda session: service.import_skill(
                session, principal, space_id, input.text, limit, replace_existing=bool(input.replace_existing)
            ),
        )
        return ImportSkillPayload(
            skill=Skill.from_row(result[0]) if result else None,
            is_created=result[1] if result else False,
            user_errors=errors,
        )


@strawberry.type
class SkillMatchQuery:
    @strawberry.field(description="Skills visible to the space that fit the query, best first.")
    async def match_skills(
        self,
        info: Info,
        space_id: Annotated[strawberry.ID, strawberry.argument(description="The space whose skills are matched.")],
        query: Annotated[str, strawberry.argument(description="The request to match.")],
        top_k: Annotated[int | None, strawberry.argument(description="How many matches to return.")] = 5,
        min_score: Annotated[
            float | None,
            strawberry.argument(
                description="Unset: only what applies (the calibrated per-request gate). Set: every candidate scoring at least this (0: the raw top-k, for a dispatcher deciding itself)."
            ),
        ] = None,
    ) -> list[SkillMatch]:
        settings = info.context.settings
        found = await service.match_and_count(
            info.context.session_factory,
            info.context.principal,
            str(space_id),
            query,
            5 if top_k is None else top_k,
            matcher_for(settings),
            min_score if min_score is not None else settings.skill_match_min_score,
        )
        return [
            SkillMatch(
                skill=Skill.from_row(row),
                score=match.score,
                reason=match.reason,
                lexical_score=match.lexical,
                semantic_score=min(max(match.semantic, 0.0), 1.0) if match.semantic is not None else None,
                boundary_factor=match.boundary_factor,
                signals=[SkillMatchSignal[signal] for signal in match.signals],
                matched_hint=match.hint,
                matched_words=list(match.words),
                nearest_text=match.nearest_text,
                model_reason=match.model_reason,
            )
            for row, match in found
        ]
