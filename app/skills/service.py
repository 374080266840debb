"""Rules for skills: creation, edits as new immutable versions, declared tools, reach."""

from __future__ import annotations

import logging

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import lock_name
from app.errors import DomainError, ForbiddenError, NotFoundError
from app.ids import new_id
from app.principal import Principal
from app.skills import repository, usage
from app.skills.inputs import NAME_RULE, SKILL_NAME, SkillInput
from app.skills.matching import Match, SkillDocument, SkillMatcher
from app.skills.models import PRODUCTION, SkillChannelEvent, SkillDefinition, SkillVersion
from app.skills.skill_md import parse_skill_md, render_skill_md
from app.skills.versions import next_version, split_reference
from app.spaces import repository as spaces_repository
from app.tools import repository as tools_repository
from app.validation import check_not_blank, check_version

logger = logging.getLogger("quiver.skills")


def _path(name: str) -> list[str]:
    return ["input", name]


def check_name(name: str, field: list[str]) -> str:
    if not SKILL_NAME.match(name):
        raise DomainError("INVALID_NAME", f"{name!r} is not a valid skill name. {NAME_RULE}", field)
    return name


def check_prompt(prompt: str, limit: int, field: list[str] | None = None) -> str:
    """Prompts are kept without surrounding whitespace, so SKILL.md round trips are exact."""
    field = field or _path("prompt")
    prompt = prompt.strip()
    if not prompt:
        raise DomainError("INVALID", "The prompt must not be empty.", field)
    if len(prompt) > limit:
        raise DomainError("PROMPT_TOO_LONG", f"The prompt has {len(prompt)} characters; the limit is {limit}.", field)
    return prompt


def _phrases(values: list[str]) -> list[str]:
    """Trimmed, de-duplicated, inner whitespace collapsed (one phrase per line in SKILL.md)."""
    return list(dict.fromkeys(" ".join(value.split()) for value in values if value.strip()))


def _apply(skill: SkillDefinition, data: SkillInput) -> None:
    if data.label is not None:
        skill.label = check_not_blank(data.label, _path("label"))
    if data.description is not None:
        skill.description = check_not_blank(data.description, _path("description"))
    if data.category is not None:
        skill.category = data.category.strip() or None
    if data.tags is not None:
        skill.tags = _phrases(data.tags)
    if data.trigger_hints is not None:
        skill.trigger_hints = _phrases(data.trigger_hints)
    if data.boundary is not None:
        skill.boundary = data.boundary.strip() or None
    if data.skill_md_extra is not None:
        skill.skill_md_extra = data.skill_md_extra or None


async def check_declared_tools(
    session: AsyncSession, space_id: str | None, tool_ids: list[str], field: list[str] | None = None
) -> list[str]:
    """Every declared tool must exist (and, for a space's skill, be visible in that space)."""
    field = field or _path("toolIds")
    unique = list(dict.fromkeys(tool_ids))
    existing = {
        tool.tool_id for tool in await tools_repository.tools_by_ids(session, unique) if tool.status != "ARCHIVED"
    }
    reachable = (
        existing
        if space_id is None
        else await tools_repository.visible_tool_ids(session, space_id, sorted(existing), include_inactive=True)
    )
    for index, tool_id in enumerate(tool_ids):
        if tool_id not in reachable:
            where = "" if space_id is None else f" in space {space_id!r}"
            raise DomainError("UNKNOWN_TOOL", f"Tool {tool_id!r} does not exist{where}.", [*field, str(index)])
    return unique


def record(
    skill_id: str,
    action: str,
    channel: str,
    actor: str | None,
    *,
    from_version: str | None = None,
    to_version: str | None = None,
    canary_percent: int | None = None,
) -> SkillChannelEvent:
    return SkillChannelEvent(
        id=new_id("skc_"),
        skill_id=skill_id,
        action=action,
        channel=channel,
        from_version=from_version,
        to_version=to_version,
        canary_percent=canary_percent,
        actor=actor,
    )


async def get_skill_for(session: AsyncSession, principal: Principal, skill_id: str) -> SkillDefinition | None:
    skill = await repository.get_skill(session, skill_id)
    if skill is None:
        return None
    if skill.space_id is None or principal.can_read_space(skill.space_id):
        return skill
    return None


async def check_may_create(session: AsyncSession, principal: Principal, space_id: str | None) -> None:
    if space_id is None:
        if not principal.is_admin:
            raise ForbiddenError("Only ADMIN keys create global skills; give a spaceId.", _path("spaceId"))
        return
    if not principal.can_read_space(space_id) or await spaces_repository.get_space(session, space_id) is None:
        raise NotFoundError("Space", space_id, _path("spaceId"))
    if not principal.can_manage_space(space_id):
        raise ForbiddenError("This key may not create skills in that space.", _path("spaceId"))


async def create_skill(
    session: AsyncSession,
    principal: Principal,
    data: SkillInput,
    prompt_limit: int,
    *,
    action: str = "CREATED",
) -> SkillDefinition:
    await check_may_create(session, principal, data.space_id)
    name = check_name(data.name or "", _path("name"))
    await lock_name(session, "skill", name)
    if await repository.name_taken(session, name, data.space_id):
        raise DomainError("DUPLICATE", f"A skill named {name!r} is already visible there.", _path("name"))
    prompt = check_prompt(data.prompt or "", prompt_limit)
    version = check_version(data.version, _path("version")) if data.version else "1.0.0"
    tools = await check_declared_tools(session, data.space_id, data.tool_ids or [])
    skill = SkillDefinition(
        skill_id=new_id("sku_"),
        space_id=data.space_id,
        name=name,
        label="",
        description="",
        prompt=prompt,
        tags=[],
        trigger_hints=[],
        tools=tools,
        type="CUSTOM",
        status="ACTIVE",
        version=version,
        canary_percent=0,
    )
    _apply(skill, data)
    if not skill.label or not skill.description:
        missing = "label" if not skill.label else "description"
        raise DomainError("REQUIRED", f"{missing} is required.", _path(missing))
    session.add(skill)
    await session.flush()
    await repository.add_version(
        session,
        SkillVersion(
            skill_id=skill.skill_id, version=version, channel=PRODUCTION, prompt=prompt, created_by=principal.key_id
        ),
    )
    await repository.add_event(
        session, record(skill.skill_id, action, PRODUCTION, principal.key_id, to_version=version)
    )
    return skill


async def require_manageable(
    session: AsyncSession,
    principal: Principal,
    skill_id: str,
    *,
    lock: bool = False,
    field: list[str] | None = None,
) -> SkillDefinition:
    field = field or _path("id")
    skill = await get_skill_for(session, principal, skill_id)
    if skill is None:
        raise NotFoundError("Skill", skill_id, field)
    if skill.type == "BUILTIN" and not principal.is_admin:
        raise ForbiddenError("Builtin skills are changed by ADMIN keys only.", field)
    if not principal.is_admin and not principal.can_manage_space(skill.space_id):
        raise ForbiddenError("This key may read this skill but not change it.", field)
    if lock:
        locked = await repository.get_skill_for_update(session, skill_id)
        assert locked is not None  # just read in this transaction
        return locked
    return skill


async def new_version_number(session: AsyncSession, skill_id: str, given: str | None, field: list[str]) -> str:
    """The given version (which must be new) or the patch after the highest existing one."""
    existing = [row.version for row in await repository.versions_of(session, skill_id)]
    if given is None:
        return next_version(existing)
    check_version(given, field)
    if given in existing:
        raise DomainError("DUPLICATE_VERSION", f"Version {given} already exists; versions are immutable.", field)
    return given


async def update_skill(
    session: AsyncSession,
    principal: Principal,
    skill_id: str,
    data: SkillInput,
    prompt_limit: int,
    *,
    action: str = "PUBLISHED",
) -> SkillDefinition:
    """Change a skill; a new prompt becomes a new immutable PRODUCTION version (patch bump unless given)."""
    skill = await require_manageable(session, principal, skill_id, lock=True)
    _apply(skill, data)
    if data.tool_ids is not None:
        skill.tools = await check_declared_tools(session, skill.space_id, data.tool_ids)
    if data.prompt is not None:
        prompt = check_prompt(data.prompt, prompt_limit)
        if prompt != skill.prompt:
            version = await new_version_number(session, skill.skill_id, data.version, _path("version"))
            previous = skill.version
            await repository.retire_channel(session, skill.skill_id, PRODUCTION)
            await repository.add_version(
                session,
                SkillVersion(
                    skill_id=skill.skill_id,
                    version=version,
                    channel=PRODUCTION,
                    prompt=prompt,
                    created_by=principal.key_id,
                ),
            )
            await repository.add_event(
                session,
                record(skill.skill_id, action, PRODUCTION, principal.key_id, from_version=previous, to_version=version),
            )
            skill.prompt = prompt
            skill.version = version
    await session.flush()
    return skill


async def set_skill_status(session: AsyncSession, principal: Principal, skill_id: str, status: str) -> SkillDefinition:
    skill = await require_manageable(session, principal, skill_id)
    skill.status = status
    await session.flush()
    return skill


# ------------------------------------------------------------------ declared tools on agents


async def activate_declared_tools(
    session: AsyncSession,
    space_id: str,
    skill_references: list[str],
    previous_references: list[str],
    activated_tool_ids: list[str],
) -> list[str]:
    """Activated tools plus the tools declared by newly bound skills that are ACTIVE and visible in the space."""
    previous = {split_reference(reference)[0] for reference in previous_references}
    new_skill_ids = [
        skill_id
        for skill_id in dict.fromkeys(split_reference(reference)[0] for reference in skill_references)
        if skill_id not in previous
    ]
    declared = [
        tool_id for skill in await repository.skills_by_ids(session, new_skill_ids) for tool_id in skill.tools or []
    ]
    if not declared:
        return activated_tool_ids
    visible = await tools_repository.visible_tool_ids(session, space_id, list(dict.fromkeys(declared)))
    added = [tool_id for tool_id in dict.fromkeys(declared) if tool_id in visible and tool_id not in activated_tool_ids]
    return [*activated_tool_ids, *added]


async def declared_tool_notices(
    session: AsyncSession, space_id: str, skill_references: list[str], activated_tool_ids: list[str]
) -> list[str]:
    """One line per tool a bound skill declares that the agent does not have, and why."""
    skills = await repository.skills_by_ids(
        session, list(dict.fromkeys(split_reference(reference)[0] for reference in skill_references))
    )
    declared = {tool_id for skill in skills for tool_id in skill.tools or []}
    missing = sorted(declared - set(activated_tool_ids))
    if not missing:
        return []
    visible = await tools_repository.visible_tool_ids(session, space_id, missing)
    notices = []
    for skill in sorted(skills, key=lambda row: row.name):
        for tool_id in skill.tools or []:
            if tool_id not in missing:
                continue
            if tool_id in visible:
                notices.append(
                    f"Skill {skill.name} ({skill.skill_id}) declares tool {tool_id}, "
                    "which this agent does not activate."
                )
            else:
                notices.append(
                    f"Skill {skill.name} ({skill.skill_id}) declares tool {tool_id}, which is not an ACTIVE tool "
                    f"visible in space {space_id}: left out."
                )
    return notices


# ------------------------------------------------------------------ matching

MAX_TOP_K = 50


async def match_skills(
    session: AsyncSession,
    principal: Principal,
    space_id: str,
    query: str,
    top_k: int,
    matcher: SkillMatcher,
    min_score: float | None,
) -> list[tuple[SkillDefinition, Match]]:
    """ACTIVE skills visible to the space (global + its own) that fit ``query``, best first.

    An unknown space or one outside the caller's reach, a blank query or ``top_k < 1``
    give no matches.
    """
    if not principal.can_read_space(space_id) or not query.strip() or top_k < 1:
        return []
    if await spaces_repository.get_space(session, space_id) is None:
        return []
    rows = await repository.active_skills_visible_in(session, space_id)
    by_id = {row.skill_id: row for row in rows}
    matches = await matcher.match(
        [SkillDocument.from_row(row) for row in rows], query, top_k=min(top_k, MAX_TOP_K), min_score=min_score
    )
    return [(by_id[match.skill_id], match) for match in matches]


async def match_and_count(
    session_factory: async_sessionmaker[AsyncSession],
    principal: Principal,
    space_id: str,
    query: str,
    top_k: int,
    matcher: SkillMatcher,
    min_score: float | None,
) -> list[tuple[SkillDefinition, Match]]:
    """``matchSkills``: :func:`match_skills`, then one match counted for each skill version returned.

    The count is written in a transaction of its own, on a best-effort basis: a counter that
    cannot be written never costs the caller its answer.
    """
    async with session_factory() as session:
        found = await match_skills(session, principal, space_id, query, top_k, matcher, min_score)
    if found:
        try:
            async with session_factory() as session, session.begin():
                await usage.record_matches(session, [row for row, _ in found])
        except Exception:
            logger.warning("could not record skill matches", exc_info=True)
    return found


# ------------------------------------------------------------------ SKILL.md


async def import_skill(
    session: AsyncSession,
    principal: Principal,
    space_id: str | None,
    text: str,
    prompt_limit: int,
    *,
    replace_existing: bool = False,
) -> tuple[SkillDefinition, bool]:
    """Create a skill from a SKILL.md text, or (``replace_existing``) update the one of that name.

    Returns the skill and whether it was created. Every refusal points at ``input.text``,
    except who-may-do-what (``input.spaceId``).
    """
    text_field = ["input", "text"]
    parsed = parse_skill_md(text, text_field)
    await check_may_create(session, principal, space_id)
    existing = await repository.skill_named(session, parsed.name, space_id)
    if existing is not None and not replace_existing:
        raise DomainError(
            "DUPLICATE",
            f"A skill named {parsed.name!r} already exists there; set replaceExisting to update it.",
            text_field,
        )
    data = parsed.to_input(space_id)
    try:
        if existing is None:
            return await create_skill(session, principal, data, prompt_limit, action="IMPORTED"), True
        data.space_id = data.name = None
        return await update_skill(session, principal, existing.skill_id, data, prompt_limit, action="IMPORTED"), False
    except DomainError as error:
        if error.field and error.field[:2] == ["input", "spaceId"]:
            raise
        raise DomainError(error.code, f"SKILL.md: {error.message}", text_field) from None


def export_skill_md(
    skill: SkillDefinition, version: SkillVersion | None = None, *, tool_ids: list[str] | None = None
) -> str:
    """The skill as SKILL.md text, at PRODUCTION or at the given version; ``tool_ids``
    replaces the declared tools (the API leaves out those the reader may not see)."""
    return render_skill_md(
        name=skill.name,
        description=skill.description,
        prompt=version.prompt if version is not None else skill.prompt,
        label=skill.label,
        version=version.version if version is not None else skill.version,
        category=skill.category,
        tags=list(skill.tags or []),
        trigger_hints=list(skill.trigger_hints or []),
        boundary=skill.boundary,
        tool_ids=list(skill.tools or []) if tool_ids is None else tool_ids,
        extra=skill.skill_md_extra,
    )
