"""Rules for skills: creation, edits as new immutable versions, reach."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import DomainError, ForbiddenError, NotFoundError
from app.ids import new_id
from app.principal import Principal
from app.skills import repository
from app.skills.models import SkillDefinition, SkillVersion
from app.spaces import repository as spaces_repository
from app.validation import SEMVER, check_not_blank, check_version

# The Agent Skills naming rule: 1-64 of a-z0-9 and single inner hyphens.
SKILL_NAME = re.compile(r"^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass
class SkillInput:
    """Fields of createSkill / updateSkill; None means "not given"."""

    space_id: str | None = None
    name: str | None = None
    label: str | None = None
    description: str | None = None
    prompt: str | None = None
    category: str | None = None
    tags: list[str] | None = None
    trigger_hints: list[str] | None = None
    boundary: str | None = None
    version: str | None = None


def _path(name: str) -> list[str]:
    return ["input", name]


def next_patch(version: str) -> str:
    match = SEMVER.match(version)
    if not match:
        return "1.0.0"
    major, minor, patch = version.split("-")[0].split("+")[0].split(".")
    return f"{major}.{minor}.{int(patch) + 1}"


def _check_prompt(prompt: str, limit: int) -> str:
    if not prompt.strip():
        raise DomainError("INVALID", "The prompt must not be empty.", _path("prompt"))
    if len(prompt) > limit:
        raise DomainError(
            "PROMPT_TOO_LONG",
            f"The prompt has {len(prompt)} characters; the limit is {limit}.",
            _path("prompt"),
        )
    return prompt


def _apply(skill: SkillDefinition, data: SkillInput) -> None:
    if data.label is not None:
        skill.label = check_not_blank(data.label, _path("label"))
    if data.description is not None:
        skill.description = check_not_blank(data.description, _path("description"))
    if data.category is not None:
        skill.category = data.category.strip() or None
    if data.tags is not None:
        skill.tags = list(dict.fromkeys(tag.strip() for tag in data.tags if tag.strip()))
    if data.trigger_hints is not None:
        skill.trigger_hints = list(
            dict.fromkeys(hint.strip() for hint in data.trigger_hints if hint.strip())
        )
    if data.boundary is not None:
        skill.boundary = data.boundary.strip() or None


async def get_skill_for(
    session: AsyncSession, principal: Principal, skill_id: str
) -> SkillDefinition | None:
    skill = await repository.get_skill(session, skill_id)
    if skill is None:
        return None
    if skill.space_id is None or principal.can_read_space(skill.space_id):
        return skill
    return None


async def create_skill(
    session: AsyncSession, principal: Principal, data: SkillInput, prompt_limit: int
) -> SkillDefinition:
    if data.space_id is None:
        if not principal.is_admin:
            raise ForbiddenError("Only ADMIN keys create global skills; give a spaceId.", _path("spaceId"))
    else:
        if (
            not principal.can_read_space(data.space_id)
            or await spaces_repository.get_space(session, data.space_id) is None
        ):
            raise NotFoundError("Space", data.space_id, _path("spaceId"))
        if not principal.can_manage_space(data.space_id):
            raise ForbiddenError("This key may not create skills in that space.", _path("spaceId"))
    name = data.name or ""
    if not SKILL_NAME.match(name):
        raise DomainError(
            "INVALID_NAME",
            "Skill names are 1-64 characters of a-z, 0-9 and single hyphens, "
            "not starting or ending with a hyphen.",
            _path("name"),
        )
    if await repository.name_taken(session, name, data.space_id):
        raise DomainError("DUPLICATE", f"A skill named {name!r} is already visible there.", _path("name"))
    prompt = _check_prompt(data.prompt or "", prompt_limit)
    version = check_version(data.version, _path("version")) if data.version else "1.0.0"
    skill = SkillDefinition(
        skill_id=new_id("sku_"),
        space_id=data.space_id,
        name=name,
        label="",
        description="",
        prompt=prompt,
        tags=[],
        trigger_hints=[],
        tools=[],
        type="CUSTOM",
        status="ACTIVE",
        version=version,
    )
    _apply(skill, data)
    if not skill.label or not skill.description:
        missing = "label" if not skill.label else "description"
        raise DomainError("REQUIRED", f"{missing} is required.", _path(missing))
    session.add(skill)
    session.add(
        SkillVersion(
            skill_id=skill.skill_id,
            version=version,
            channel="PRODUCTION",
            prompt=prompt,
            created_by=principal.key_id,
        )
    )
    await session.flush()
    return skill


async def _require_manageable(
    session: AsyncSession, principal: Principal, skill_id: str
) -> SkillDefinition:
    skill = await get_skill_for(session, principal, skill_id)
    if skill is None:
        raise NotFoundError("Skill", skill_id, _path("id"))
    if skill.type == "BUILTIN" and not principal.is_admin:
        raise ForbiddenError("Builtin skills are changed by ADMIN keys only.", _path("id"))
    if not principal.is_admin and not principal.can_manage_space(skill.space_id):
        raise ForbiddenError("This key may read this skill but not change it.", _path("id"))
    return skill


async def update_skill(
    session: AsyncSession, principal: Principal, skill_id: str, data: SkillInput, prompt_limit: int
) -> SkillDefinition:
    """Change a skill; a new prompt becomes a new immutable PRODUCTION version (patch bump)."""
    skill = await _require_manageable(session, principal, skill_id)
    _apply(skill, data)
    if data.prompt is not None and data.prompt != skill.prompt:
        prompt = _check_prompt(data.prompt, prompt_limit)
        version = next_patch(skill.version)
        while await repository.get_version(session, skill.skill_id, version) is not None:
            version = next_patch(version)
        await repository.retire_channel(session, skill.skill_id, "PRODUCTION")
        session.add(
            SkillVersion(
                skill_id=skill.skill_id,
                version=version,
                channel="PRODUCTION",
                prompt=prompt,
                created_by=principal.key_id,
            )
        )
        skill.prompt = prompt
        skill.version = version
    await session.flush()
    return skill


async def set_skill_status(
    session: AsyncSession, principal: Principal, skill_id: str, status: str
) -> SkillDefinition:
    skill = await _require_manageable(session, principal, skill_id)
    skill.status = status
    await session.flush()
    return skill
