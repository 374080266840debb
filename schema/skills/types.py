"""GraphQL types of the skills domain."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated

import strawberry

from app.skills import repository
from app.skills.models import SkillChannelEvent, SkillDefinition
from app.skills.models import SkillVersion as SkillVersionRow
from app.skills.repository import VersionUsage
from app.skills.service import export_skill_md
from schema import visibility
from schema.context import Info
from schema.enums import Status, ToolType
from schema.limits import filter_tags
from schema.node import Node
from schema.pagination import Connection, make_connection, page_request
from schema.refs import SpaceRef, ToolRef


@strawberry.enum(description="Where a skill version stands.")
class SkillChannel(Enum):
    PRODUCTION = strawberry.enum_value("PRODUCTION", description="Served to agents that do not pin a version.")
    CANDIDATE = strawberry.enum_value(
        "CANDIDATE", description="Served to the canary share of sessions, and to test sessions that ask for it."
    )
    RETIRED = strawberry.enum_value(
        "RETIRED", description="Kept for pins, rollbacks and history; served only when pinned."
    )


@strawberry.enum(description="What a channel move was.")
class SkillChannelAction(Enum):
    CREATED = strawberry.enum_value("CREATED", description="The skill was created with its first PRODUCTION version.")
    PUBLISHED = strawberry.enum_value("PUBLISHED", description="updateSkill put a new prompt straight into PRODUCTION.")
    IMPORTED = strawberry.enum_value(
        "IMPORTED", description="A SKILL.md import created the skill or a new PRODUCTION version."
    )
    CANDIDATE_PUBLISHED = strawberry.enum_value("CANDIDATE_PUBLISHED", description="A version became the CANDIDATE.")
    PROMOTED = strawberry.enum_value("PROMOTED", description="The CANDIDATE became PRODUCTION.")
    ROLLED_BACK = strawberry.enum_value("ROLLED_BACK", description="PRODUCTION went back to an earlier version.")
    CANARY_CHANGED = strawberry.enum_value("CANARY_CHANGED", description="The canary share changed.")


@strawberry.type(description="One recorded move between channels: who, when, from which version to which.")
class SkillChannelChange:
    action: SkillChannelAction = strawberry.field(description="What happened.")
    channel: SkillChannel = strawberry.field(description="The channel that moved: PRODUCTION or CANDIDATE.")
    from_version: str | None = strawberry.field(
        description="The version the channel held before; null when it was empty."
    )
    to_version: str | None = strawberry.field(description="The version the channel holds after the move.")
    canary_percent: int | None = strawberry.field(description="The canary share set by this move, when it set one.")
    actor: str | None = strawberry.field(
        description="Id of the API key that made the move (quiver: the platform itself)."
    )
    at: datetime = strawberry.field(description="When the move happened.")

    @classmethod
    def from_row(cls, row: SkillChannelEvent) -> SkillChannelChange:
        return cls(
            action=SkillChannelAction(row.action),
            channel=SkillChannel(row.channel),
            from_version=row.from_version,
            to_version=row.to_version,
            canary_percent=row.canary_percent,
            actor=row.actor,
            at=row.created_at,
        )


@strawberry.type(description="How often one version of a skill was injected into runs and returned by matchSkills.")
class SkillVersionUsage:
    version: str = strawberry.field(description="The skill version.")
    injected_count: int = strawberry.field(description="Runs whose prompt included this version.")
    matched_count: int = strawberry.field(
        description="Times matchSkills returned the skill while this version was in PRODUCTION."
    )
    last_injected_at: datetime | None = strawberry.field(description="Last injection into a run; null when never.")
    last_matched_at: datetime | None = strawberry.field(description="Last match; null when never.")

    @classmethod
    def from_row(cls, row: VersionUsage) -> SkillVersionUsage:
        return cls(
            version=row.version,
            injected_count=row.injected_count,
            matched_count=row.matched_count,
            last_injected_at=row.last_injected_at,
            last_matched_at=row.last_matched_at,
        )


@strawberry.type(description="Usage of a skill over all its versions, and per version.")
class SkillUsage:
    injected_count: int = strawberry.field(description="Runs whose prompt included the skill.")
    matched_count: int = strawberry.field(description="Times matchSkills returned the skill.")
    last_injected_at: datetime | None = strawberry.field(description="Last injection into a run; null when never.")
    last_matched_at: datetime | None = strawberry.field(description="Last match; null when never.")
    last_used_at: datetime | None = strawberry.field(description="The later of the last injection and the last match.")
    by_version: list[SkillVersionUsage] = strawberry.field(description="The same figures per version, by version.")

    @classmethod
    def from_rows(cls, rows: list[VersionUsage]) -> SkillUsage:
        injected = [row.last_injected_at for row in rows if row.last_injected_at]
        matched = [row.last_matched_at for row in rows if row.last_matched_at]
        return cls(
            injected_count=sum(row.injected_count for row in rows),
            matched_count=sum(row.matched_count for row in rows),
            last_injected_at=max(injected, default=None),
            last_matched_at=max(matched, default=None),
            last_used_at=max([*injected, *matched], default=None),
            by_version=[SkillVersionUsage.from_row(row) for row in rows],
        )


@strawberry.input(description="Narrows a list of skills. All given conditions must hold.")
class SkillFilter:
    category: str | None = strawberry.field(default=None, description="Only skills of this category.")
    tags: list[str] | None = strawberry.field(default=None, description="Only skills carrying every one of these tags.")
    search: str | None = strawberry.field(
        default=None, description="Case-insensitive match on name, label and description."
    )

    def to_app(self) -> repository.SkillFilter:
        return repository.SkillFilter(category=self.category, tags=filter_tags(self.tags), search=self.search)


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
    description: str = strawberry.field(description="For the people who assemble agents (not sent to the model).")
    prompt: str = strawberry.field(description="The Markdown methodology fragment injected into the system prompt.")
    category: str | None = strawberry.field(description="Broad area, e.g. communication or analysis.")
    tags: list[str] = strawberry.field(description="Free-form labels for search and filtering.")
    trigger_hints: list[str] = strawberry.field(
        description="Phrases that signal this skill applies; used by skill matching."
    )
    boundary: str | None = strawberry.field(description="What this skill must not be used for.")
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
            type=ToolType(row.type),
            status=Status(row.status),
            version=row.version,
            char_count=len(row.prompt),
            created_at=row.created_at,
            updated_at=row.updated_at,
            row=row,
        )

    @strawberry.field(
        description="Ids of the tools this skill orchestrates (those of tools the caller may not see are left out)."
    )
    async def tool_ids(self, info: Info) -> list[str]:
        return await visibility.shown_tool_ids(info, list(self.row.tools or []))

    @strawberry.field(description="Null for global skills; the owning space otherwise.")
    async def space(self, info: Info) -> SpaceRef | None:
        from schema.spaces.types import space_of

        if self.row.space_id is None or not visibility.space_visible(info, self.row.space_id):
            return None
        return await space_of(info, self.row.space_id)

    @strawberry.field(description="Every version, oldest first.")
    async def versions(self, info: Info) -> list[SkillVersion]:
        rows = await info.context.loaders.skill_versions_by_skill_id.load(self.row.skill_id)
        return [SkillVersion.from_row(row) for row in rows]

    @strawberry.field(description="Share of sessions (0-100) served the CANDIDATE version while there is one.")
    def canary_percent(self) -> int:
        return self.row.canary_percent

    @strawberry.field(description="The CANDIDATE version; null when there is none.")
    async def candidate_version(self, info: Info) -> str | None:
        rows = await info.context.loaders.skill_versions_by_skill_id.load(self.row.skill_id)
        return next((row.version for row in rows if row.channel == "CANDIDATE"), None)

    @strawberry.field(description="Every channel move (create, publish, promote, rollback, canary), oldest first.")
    async def channel_history(self, info: Info) -> list[SkillChannelChange]:
        rows = await info.context.loaders.channel_events_by_skill_id.load(self.row.skill_id)
        return [SkillChannelChange.from_row(row) for row in rows]

    @strawberry.field(
        description="The declared tools that exist and the caller may see, in declared order (see toolIds for every id)."
    )
    async def tools(self, info: Info) -> list[ToolRef]:
        from schema.tools.types import Tool

        rows = await info.context.loaders.tool_by_id.load_many(list(self.row.tools or []))
        return [Tool.from_row(row) for row in await visibility.visible_tools(info, rows)]

    @strawberry.field(description="How often the skill was injected into runs and matched, per version.")
    async def usage(
        self,
        info: Info,
        since: Annotated[
            datetime | None, strawberry.argument(description="Count only from this UTC day on; null: since the start.")
        ] = None,
    ) -> SkillUsage:
        rows = await info.context.loaders.usage_by_skill_id.load((self.row.skill_id, since.date() if since else None))
        return SkillUsage.from_rows(rows)

    @strawberry.field(
        description="The skill in the Agent Skills format: the text of its SKILL.md (YAML front matter, then the prompt)."
    )
    async def skill_md(
        self,
        info: Info,
        version: Annotated[
            str | None, strawberry.argument(description="Export this version instead of PRODUCTION.")
        ] = None,
    ) -> str | None:
        tool_ids = await visibility.shown_tool_ids(info, list(self.row.tools or []))
        if version is None:
            return export_skill_md(self.row, tool_ids=tool_ids)
        rows = await info.context.loaders.skill_versions_by_skill_id.load(self.row.skill_id)
        row = next((row for row in rows if row.version == version), None)
        return export_skill_md(self.row, row, tool_ids=tool_ids) if row is not None else None


@strawberry.enum(description="A kind of evidence a skill match rests on.")
class SkillMatchSignal(Enum):
    HINT = strawberry.enum_value("HINT", description="One of its trigger hints is in the request word for word.")
    PHRASE = strawberry.enum_value(
        "PHRASE", description="The request shares words with its name, label, description, tags or hints."
    )
    SEMANTIC = strawberry.enum_value(
        "SEMANTIC", description="The request is close in meaning to its description or a hint (embeddings)."
    )
    MODEL = strawberry.enum_value("MODEL", description="The re-rank model judged that it applies.")


@strawberry.type(description="A skill that fits a request, with how well it fits and why.")
class SkillMatch:
    skill: Skill = strawberry.field(description="The matching skill.")
    score: float = strawberry.field(
        description="0..1: the calibrated probability that the skill applies (the re-rank model's score when it re-ranked)."
    )
    reason: str | None = strawberry.field(description="Why it matched, in one line, when known.")
    lexical_score: float = strawberry.field(
        description="The lexical strength (name, label, description, tags, trigger hints), 0..1, before the boundary."
    )
    semantic_score: float | None = strawberry.field(
        description="The best cosine similarity between the request and the skill's description or one of its hints, clipped to 0..1; null when no embedding provider is configured."
    )
    boundary_factor: float = strawberry.field(
        description="1 when the request does not touch the skill's boundary (or negate its words); lower when it does, which lowers the score."
    )
    signals: list[SkillMatchSignal] = strawberry.field(description="The kinds of evidence the match rests on.")
    matched_hint: str | None = strawberry.field(description="The trigger hint found word for word in the request.")
    matched_words: list[str] = strawberry.field(
        description="Words of the request the skill's fields share, as written."
    )
    nearest_text: str | None = strawberry.field(
        description="The skill text (description or a hint) nearest to the request in meaning; null without embeddings."
    )
    model_reason: str | None = strawberry.field(
        description="The re-rank model's one-line reason, when a model re-ranked."
    )


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
