"""The builtin catalog as code: what a load creates, that loading again changes nothing,
and that a load never undoes what an admin changed."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.fernet import Fernet
from jsonschema import Draft202012Validator
from sqlalchemy import delete, inspect, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.catalog.loader import load_builtin_catalog
from app.crypto import SecretBox
from app.principal import SYSTEM_PRINCIPAL
from app.skills.models import SkillChannelEvent, SkillDefinition, SkillVersion
from app.spaces.models import SYSTEM_SPACE_ID
from app.tools import repository, service
from app.tools.models import ToolDefinition, ToolSpaceBinding
from tests.app.tools.factories import insert_rows, space_row

SessionFactory = async_sessionmaker[AsyncSession]

BUILTIN_TOOL_IDS = {"bt_search_knowledge", "bt_current_time", "bt_calculator", "bt_send_message"}
RESTRICTED = "bt_send_message"


async def load(session_factory: SessionFactory) -> None:
    async with session_factory() as session, session.begin():
        await load_builtin_catalog(session)


def _columns(row: Any) -> dict[str, Any]:
    return {attribute.key: getattr(row, attribute.key) for attribute in inspect(row).mapper.column_attrs}


async def snapshot(session_factory: SessionFactory) -> dict[str, Any]:
    """Every column of every catalog row the loader may touch."""
    async with session_factory() as session:
        tools = (await session.scalars(select(ToolDefinition).order_by(ToolDefinition.tool_id))).all()
        bindings = (
            await session.execute(
                select(ToolSpaceBinding.tool_id, ToolSpaceBinding.space_id).order_by(
                    ToolSpaceBinding.tool_id, ToolSpaceBinding.space_id
                )
            )
        ).all()
        skills = (await session.scalars(select(SkillDefinition).order_by(SkillDefinition.skill_id))).all()
        versions = (
            await session.scalars(select(SkillVersion).order_by(SkillVersion.skill_id, SkillVersion.version))
        ).all()
    return {
        "tools": [_columns(row) for row in tools],
        "bindings": [tuple(row) for row in bindings],
        "skills": [_columns(row) for row in skills],
        "versions": [_columns(row) for row in versions],
    }


async def bindings_of(session_factory: SessionFactory, tool_id: str) -> list[str]:
    async with session_factory() as session:
        return (await repository.tool_bindings(session, [tool_id])).get(tool_id, [])


@pytest.fixture
async def alpha(session_factory: SessionFactory) -> str:
    row = space_row("alpha")
    await insert_rows(session_factory, spaces=[row])
    return str(row["id"])


class TestBuiltinTools:
    async def test_the_four_builtins_exist_with_type_builtin(self, session_factory: SessionFactory) -> None:
        async with session_factory() as session:
            tools = (
                await session.scalars(select(ToolDefinition).where(ToolDefinition.tool_id.in_(BUILTIN_TOOL_IDS)))
            ).all()

        assert {tool.tool_id for tool in tools} == BUILTIN_TOOL_IDS
        for tool in tools:
            assert tool.type == "BUILTIN"
            assert tool.status == "ACTIVE"
            assert tool.name == tool.tool_id.removeprefix("bt_")
            assert tool.description.strip()
            Draft202012Validator.check_schema(tool.input_schema)
            assert tool.input_schema["type"] == "object"

    async def test_every_builtin_tool_has_a_bt_id(self, session_factory: SessionFactory) -> None:
        async with session_factory() as session:
            builtin_ids = (
                await session.scalars(select(ToolDefinition.tool_id).where(ToolDefinition.type == "BUILTIN"))
            ).all()
        assert builtin_ids
        assert all(tool_id.startswith("bt_") for tool_id in builtin_ids)

    async def test_restricted_builtin_has_exactly_one_binding_to_the_system_space(
        self, session_factory: SessionFactory
    ) -> None:
        assert await bindings_of(session_factory, RESTRICTED) == [SYSTEM_SPACE_ID]

    async def test_other_builtins_are_global(self, session_factory: SessionFactory) -> None:
        async with session_factory() as session:
            bindings = await repository.tool_bindings(session, sorted(BUILTIN_TOOL_IDS))
        assert dict(bindings) == {RESTRICTED: [SYSTEM_SPACE_ID]}

    async def test_an_ordinary_space_sees_the_global_builtins_but_not_the_restricted_one(
        self, session_factory: SessionFactory, alpha: str
    ) -> None:
        async with session_factory() as session:
            visible = await repository.visible_tool_ids(session, alpha, sorted(BUILTIN_TOOL_IDS))
            in_system = await repository.visible_tool_ids(session, SYSTEM_SPACE_ID, sorted(BUILTIN_TOOL_IDS))
        assert visible == BUILTIN_TOOL_IDS - {RESTRICTED}
        assert in_system == BUILTIN_TOOL_IDS


class TestLoadingIsIdempotent:
    async def test_loading_again_changes_no_row(self, session_factory: SessionFactory) -> None:
        before = await snapshot(session_factory)

        await load(session_factory)
        await load(session_factory)

        assert await snapshot(session_factory) == before

    async def test_loading_again_adds_no_binding_and_no_skill_version(self, session_factory: SessionFactory) -> None:
        await load(session_factory)
        await load(session_factory)

        assert await bindings_of(session_factory, RESTRICTED) == [SYSTEM_SPACE_ID]
        async with session_factory() as session:
            versions = (await session.execute(select(SkillVersion.skill_id, SkillVersion.version))).all()
        assert len(versions) == len(set(versions))
        assert len({skill_id for skill_id, _ in versions}) == len(versions)

    async def test_loading_into_an_empty_catalog_recreates_it(self, session_factory: SessionFactory) -> None:
        before = await snapshot(session_factory)
        async with session_factory() as session, session.begin():
            for model in (ToolSpaceBinding, SkillVersion, SkillChannelEvent, ToolDefinition, SkillDefinition):
                await session.execute(delete(model))

        await load(session_factory)

        after = await snapshot(session_factory)
        volatile = {"created_at", "updated_at"}

        def stable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [{k: v for k, v in row.items() if k not in volatile} for row in rows]

        assert after["bindings"] == before["bindings"]
        for kind in ("tools", "skills", "versions"):
            assert stable(after[kind]) == stable(before[kind])


class TestLoadingKeepsAdminChanges:
    async def test_reassigned_restricted_builtin_stays_reassigned(
        self, session_factory: SessionFactory, alpha: str
    ) -> None:
        async with session_factory() as session, session.begin():
            await service.set_space_bindings(session, SYSTEM_PRINCIPAL, RESTRICTED, [alpha])

        await load(session_factory)

        assert await bindings_of(session_factory, RESTRICTED) == [alpha]

    async def test_restricted_builtin_made_global_stays_global(
        self, session_factory: SessionFactory, alpha: str
    ) -> None:
        async with session_factory() as session, session.begin():
            await service.set_space_bindings(session, SYSTEM_PRINCIPAL, RESTRICTED, [])

        await load(session_factory)

        assert await bindings_of(session_factory, RESTRICTED) == []
        async with session_factory() as session:
            assert await repository.is_tool_visible(session, RESTRICTED, alpha)

    async def test_policy_fields_and_status_set_by_an_admin_survive_a_load(
        self, session_factory: SessionFactory
    ) -> None:
        box = SecretBox(Fernet.generate_key())
        async with session_factory() as session, session.begin():
            await service.update_tool(
                session,
                SYSTEM_PRINCIPAL,
                "bt_calculator",
                service.ToolInput(timeout_ms=2500, tags=["finance"], group="numbers"),
                box,
            )
            await service.set_tool_status(session, SYSTEM_PRINCIPAL, "bt_current_time", "DISABLED")

        await load(session_factory)

        async with session_factory() as session:
            calculator = await repository.get_tool(session, "bt_calculator")
            clock = await repository.get_tool(session, "bt_current_time")
        assert calculator is not None and clock is not None
        assert (calculator.timeout_ms, calculator.tags, calculator.group) == (
            2500,
            ["finance"],
            "numbers",
        )
        assert clock.status == "DISABLED"

    async def test_declared_fields_are_restored_from_code(self, session_factory: SessionFactory) -> None:
        async with session_factory() as session:
            original = await repository.get_tool(session, "bt_calculator")
        assert original is not None
        async with session_factory() as session, session.begin():
            await session.execute(
                update(ToolDefinition).where(ToolDefinition.tool_id == "bt_calculator").values(description="tampered")
            )

        await load(session_factory)

        async with session_factory() as session:
            restored = await repository.get_tool(session, "bt_calculator")
        assert restored is not None
        assert restored.description == original.description


class TestBuiltinSkills:
    async def test_at_least_three_global_builtin_skills_with_real_prompts(
        self, session_factory: SessionFactory
    ) -> None:
        async with session_factory() as session:
            skills = (await session.scalars(select(SkillDefinition).where(SkillDefinition.type == "BUILTIN"))).all()

        assert len(skills) >= 3
        for skill in skills:
            assert skill.skill_id.startswith("sk_")
            assert skill.space_id is None
            assert skill.status == "ACTIVE"
            assert len(skill.prompt.strip()) > 200, skill.skill_id
            assert skill.description.strip()

    async def test_each_builtin_skill_serves_one_production_version_with_its_prompt(
        self, session_factory: SessionFactory
    ) -> None:
        async with session_factory() as session:
            skills = (await session.scalars(select(SkillDefinition).where(SkillDefinition.type == "BUILTIN"))).all()
            versions = (await session.scalars(select(SkillVersion))).all()

        assert skills
        for skill in skills:
            production = [
                version
                for version in versions
                if version.skill_id == skill.skill_id and version.channel == "PRODUCTION"
            ]
            assert len(production) == 1, skill.skill_id
            assert production[0].version == skill.version
            assert production[0].prompt == skill.prompt


class TestBuiltinSkillHistory:
    async def test_each_builtin_skill_starts_with_a_created_entry(self, session_factory: SessionFactory) -> None:
        from sqlalchemy import select

        async with session_factory() as session:
            events = (await session.execute(select(SkillChannelEvent.skill_id, SkillChannelEvent.action))).all()
            skills = (
                await session.scalars(select(SkillDefinition.skill_id).where(SkillDefinition.type == "BUILTIN"))
            ).all()
        assert skills
        assert sorted(skill_id for skill_id, action in events if action == "CREATED") == sorted(skills)
