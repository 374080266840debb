"""Load the builtin catalog into the database: idempotent, never undoing admin changes."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.catalog.builtin import BUILTIN_TOOLS, builtin_skills
from app.skills import repository as skills_repository
from app.skills.models import SkillDefinition, SkillVersion
from app.skills.service import record
from app.spaces.models import SYSTEM_SPACE_ID
from app.tools import repository as tools_repository
from app.tools.models import ToolDefinition

# Declared by code and refreshed on every load; everything else is the admins'.
DECLARED_TOOL_FIELDS = ("name", "label", "description", "input_schema", "side_effect")


async def load_builtin_catalog(session: AsyncSession) -> None:
    for declared in BUILTIN_TOOLS:
        tool = await tools_repository.get_tool(session, declared["tool_id"])
        if tool is None:
            tool = ToolDefinition(
                tool_id=declared["tool_id"],
                type="BUILTIN",
                status="ACTIVE",
                timeout_ms=declared["timeout_ms"],
                max_retries=1 if declared["side_effect"] == "READ" else 0,
                tags=list(declared["tags"]),
                group=declared["group"],
                allowed_roles=[],
                static_arguments={},
                version="1.0.0",
                owner="quiver",
                auth_type="NONE",
            )
            for name in DECLARED_TOOL_FIELDS:
                setattr(tool, name, declared[name])
            session.add(tool)
            await session.flush()
            if declared["visibility"] == "restricted":
                await tools_repository.replace_tool_bindings(session, tool.tool_id, [SYSTEM_SPACE_ID])
        else:
            for name in DECLARED_TOOL_FIELDS:
                if getattr(tool, name) != declared[name]:
                    setattr(tool, name, declared[name])

    for declared in builtin_skills():
        skill = await skills_repository.get_skill(session, declared["skill_id"])
        if skill is None:
            skill = SkillDefinition(
                skill_id=declared["skill_id"],
                space_id=None,
                name=declared["name"],
                label=declared["label"],
                description=declared["description"],
                prompt=declared["prompt"],
                category=declared["category"],
                tags=list(declared["tags"]),
                trigger_hints=list(declared["trigger_hints"]),
                boundary=declared["boundary"],
                tools=list(declared["tools"]),
                type="BUILTIN",
                status="ACTIVE",
                version=declared["version"],
            )
            session.add(skill)
            await session.flush()
            session.add(
                SkillVersion(
                    skill_id=skill.skill_id,
                    version=declared["version"],
                    channel="PRODUCTION",
                    prompt=declared["prompt"],
                    created_by="quiver",
                )
            )
            await skills_repository.add_event(
                session, record(skill.skill_id, "CREATED", "PRODUCTION", "quiver", to_version=declared["version"])
            )
        elif await skills_repository.get_version(session, skill.skill_id, declared["version"]) is None:
            # A new release of the platform ships a new version of the builtin skill.
            previous = skill.version
            await skills_repository.retire_channel(session, skill.skill_id, "PRODUCTION")
            await skills_repository.add_event(
                session,
                record(
                    skill.skill_id,
                    "PUBLISHED",
                    "PRODUCTION",
                    "quiver",
                    from_version=previous,
                    to_version=declared["version"],
                ),
            )
            session.add(
                SkillVersion(
                    skill_id=skill.skill_id,
                    version=declared["version"],
                    channel="PRODUCTION",
                    prompt=declared["prompt"],
                    created_by="quiver",
                )
            )
            skill.prompt = declared["prompt"]
            skill.version = declared["version"]
    await session.flush()
