"""GraphQL types of the skills domain."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import strawberry

from app.skills import repository
from app.skills.models import SkillDefinition
from app.skills.models import SkillVersion as SkillVersionRow
from schema.context import Info
from schema.enums import Status, ToolType
from schema.node import Node
from schema.pagination import Connection, make_connection, page_request

if TYPE_CHECKING:
    from schema.spaces.types import Space

SpaceRef = Annotated["Space", strawberry.lazy("schema.spaces.types")]


@strawberry.input(description="Narrows a list of skills. All given conditions must hold.")
class SkillFilter:
    category: str | None = strawberry.field(default=None, description="Only skills of this category.")
    tags: list[str] | None = strawberry.field(default=None, description="Only skills carrying every one of these tags.")
    search: str | None = strawberry.field(
        default=None, description="Case-insensitive match on name, label and description."
    )

    def to_app(self) -> repository.SkillFilter:
        return repository.SkillFilter(
            category=self.category, tags=tuple(self.tags or ()), search=self.search
        )


@strawberry.type(description="One immutable version of a skill's prompt.")
class SkillVersion:
    version: str = strawberry.field(description="Semantic version, e.g. 1.2.0.")
    channel: str = strawberry.field(description="PRODUCTION, CANDIDATE or RETIRED.")
    prompt: str = strawberry.field(description="The Markdown prompt of this version.")
    created_at: datetime = strawberry.field(description="When this version was created.")

    @classmethod
    def from_row(cls, row: SkillVersionRow) -> SkillVersion:
        return cls(version=row.version, channel=row.channel, prompt=row.prompt, created_at=row.created_at)


@strawberry.type(description="Named, versioned Markdown methodology spliced into an agent's system prompt.")
class Skill(Node):
    id: strawberry.ID = strawberry.field(description="Skill id: sk_… builtin, sku_… custom.")
    name: str = strawberry.field(description="Unique name in its scope: 1-64 of a-z, 0-9 and single hyphens.")
    label: str = strawberry.field(description="Display name for people.")
    description: str = strawberry.field(
        description="For the people who assemble agents (not sent to the model)."
    )
    prompt: str = strawberry.field(description="The Markdown methodology fragment injected into the system prompt.")
    category: str | None = strawberry.field(description="Broad area, e.g. communication or analysis.")
    tags: list[str] = strawberry.field(description="Free-form labels for search and filtering.")
    trigger_hints: list[str] = strawberry.field(description="Phrases that signal this skill applies; used by skill matching.")
    boundary: str | None = strawberry.field(description="What this skill must not be used for.")
    tool_ids: list[str] = strawberry.field(description="Ids of the tools this skill orchestrates.")
    type: ToolType = strawberry.field(description="BUILTIN for skills shipped with the platform, CUSTOM otherwise.")
    status: Status = strawberry.field(description="Lifecycle status; only ACTIVE skills are injected.")
    version: str = strawberry.field(description="The version served to agents that do not pin one.")
    char_count: int = strawberry.field(description="Length of the served prompt in characters.")
    created_at: datetime = strawberry.field(description="When the skill was created.")
    updated_at: datetime = strawberry.field(description="When the skill was last changed.")
    row: strawberry.Private[SkillDefinition]

    @classmethod
    def from_row(cls, row: SkillDefinition) -> Skill:
        return cls(
            id=strawberry.ID(row.skill_id),
            name=row.name,
            label=row.label,
            description=row.description,
            prompt=row.prompt,
            category=row.category,
            tags=list(row.tags or []),
            trigger_hints=list(row.trigger_hints or []),
            boundary=row.boundary,
            tool_ids=list(row.tools or []),
            type=ToolType(row.type),
            status=Status(row.status),
            version=row.version,
            char_count=len(row.prompt),
            created_at=row.created_at,
            updated_at=row.updated_at,
            row=row,
        )

    @strawberry.field(description="Null for global skills; the owning space otherwise.")
    async def space(self, info: Info) -> SpaceRef | None:
        from schema.spaces.types import Space

        if self.row.space_id is None:
            return None
        row = await info.context.loaders.space_by_id.load(self.row.space_id)
        return Space.from_row(row) if row else None

    @strawberry.field(description="Every version, oldest first.")
    async def versions(self, info: Info) -> list[SkillVersion]:
        rows = await info.context.loaders.skill_versions_by_skill_id.load(self.row.skill_id)
        return [SkillVersion.from_row(row) for row in rows]


@strawberry.type(description="A skill that fits a request, with how well it fits.")
class SkillMatch:
    skill: Skill = strawberry.field(description="The matching skill.")
    score: float = strawberry.field(description="0..1, higher is better.")
    reason: str | None = strawberry.field(description="Why it matched, in one line, when known.")


async def skill_connection(
    info: Info,
    space_id: str | None,
    first: int | None,
    after: str | None,
    skill_filter: SkillFilter | None,
) -> Connection[Skill]:
    request = page_request(first, after)
    app_filter = skill_filter.to_app() if skill_filter else None
    async with info.context.session() as session:
        page = await repository.list_skills(session, space_id, request, app_filter)

    async def total() -> int:
        async with info.context.session() as session:
            return await repository.count_skills(session, space_id, app_filter)

    return make_connection(
        page, [Skill.from_row(row) for row in page.items], [row.skill_id for row in page.items], total
    )
