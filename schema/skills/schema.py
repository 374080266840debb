"""Queries and mutations of the skills domain."""

from __future__ import annotations

from typing import Annotated

import strawberry

from app.skills import service
from schema.context import Info
from schema.errors import UserError
from schema.mutations import in_transaction
from schema.pagination import AfterArgument, Connection, FirstArgument
from schema.skills.types import Skill, SkillFilter, SkillMatch, skill_connection


@strawberry.type
class SkillsQuery:
    @strawberry.field(description="Skills the caller can see: every skill for admins, global plus its space's otherwise.")
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


@strawberry.input(description="A new skill; its prompt becomes version 1.0.0 (or the given version) in PRODUCTION.")
class CreateSkillInput:
    space_id: strawberry.ID | None = strawberry.field(default=None, description="Omit for a global skill (admins only).")
    name: str = strawberry.field(description="1-64 of a-z, 0-9 and single hyphens; unique where it is visible.")
    label: str = strawberry.field(description="Display name for people.")
    description: str = strawberry.field(description="For the people who assemble agents.")
    prompt: str = strawberry.field(description="Markdown methodology, within the configured limit (default 2000 characters).")
    category: str | None = strawberry.field(default=None, description="Broad area, e.g. communication.")
    tags: list[str] | None = strawberry.field(default=None, description="Free-form labels.")
    trigger_hints: list[str] | None = strawberry.field(default=None, description="Phrases that signal the skill applies.")
    boundary: str | None = strawberry.field(default=None, description="What the skill must not be used for.")
    version: str | None = strawberry.field(default=None, description="Semantic version of the first version (default 1.0.0).")


@strawberry.input(description="Changes to a skill; a new prompt creates a new immutable version (patch bump).")
class UpdateSkillInput:
    id: strawberry.ID = strawberry.field(description="The skill to change.")
    label: str | None = strawberry.field(default=None, description="New display name.")
    description: str | None = strawberry.field(default=None, description="New description.")
    prompt: str | None = strawberry.field(default=None, description="New prompt; creates a new version.")
    category: str | None = strawberry.field(default=None, description="New category; empty string clears it.")
    tags: list[str] | None = strawberry.field(default=None, description="New tags (replace the old ones).")
    trigger_hints: list[str] | None = strawberry.field(default=None, description="New trigger hints (replace the old ones).")
    boundary: str | None = strawberry.field(default=None, description="New boundary; empty string clears it.")


@strawberry.type(description="Result of a mutation on a skill.")
class SkillPayload:
    skill: Skill | None = strawberry.field(description="The skill; null when the mutation failed.")
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


@strawberry.type
class SkillsMutation:
    @strawberry.mutation(description="Create a skill in a space (SPACE_ADMIN of it, or ADMIN) or globally (ADMIN).")
    async def create_skill(
        self,
        info: Info,
        input: Annotated[CreateSkillInput, strawberry.argument(description="The new skill.")],
    ) -> SkillPayload:
        principal, limit = info.context.principal, info.context.settings.skill_prompt_max_chars
        data = service.SkillInput(
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
        )
        row, errors = await in_transaction(
            info, lambda session: service.create_skill(session, principal, data, limit)
        )
        return SkillPayload(skill=Skill.from_row(row) if row else None, user_errors=errors)

    @strawberry.mutation(description="Change a skill; a new prompt becomes a new PRODUCTION version.")
    async def update_skill(
        self,
        info: Info,
        input: Annotated[UpdateSkillInput, strawberry.argument(description="The changes.")],
    ) -> SkillPayload:
        principal, limit = info.context.principal, info.context.settings.skill_prompt_max_chars
        data = service.SkillInput(
            label=input.label,
            description=input.description,
            prompt=input.prompt,
            category=input.category,
            tags=input.tags,
            trigger_hints=input.trigger_hints,
            boundary=input.boundary,
        )
        row, errors = await in_transaction(
            info, lambda session: service.update_skill(session, principal, str(input.id), data, limit)
        )
        return SkillPayload(skill=Skill.from_row(row) if row else None, user_errors=errors)


@strawberry.type
class SkillMatchQuery:
    @strawberry.field(description="Skills visible to the space that fit the query, best first.")
    async def match_skills(
        self,
        info: Info,
        space_id: Annotated[strawberry.ID, strawberry.argument(description="The space whose skills are matched.")],
        query: Annotated[str, strawberry.argument(description="The request to match.")],
        top_k: Annotated[int | None, strawberry.argument(description="How many matches to return.")] = 5,
    ) -> list[SkillMatch]:
        # Skill matching arrives with the skills issue (issue #6); until then nothing matches.
        return []
