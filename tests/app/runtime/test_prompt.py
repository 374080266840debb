"""The prompt builder: token estimate, the fixed section order and cutting to the budget."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.agents.models import Agent
from app.runtime.prompt import (
    KNOWLEDGE,
    OUTPUT_FORMAT,
    PROFILE,
    ROLE,
    SECTION_SEPARATOR,
    SKILL,
    TRUNCATION_MARK,
    PromptBuilder,
    PromptSettings,
    Section,
    SkillSection,
    SkillSelection,
    estimate_tokens,
)
from app.spaces.models import SYSTEM_SPACE_ID


class TestEstimateTokens:
    @pytest.mark.parametrize(
        ("text", "tokens"),
        [
            ("", 0),
            ("abcd", 1),
            ("abcde", 2),
            ("x" * 400, 100),
            ("日本語", 3),
            ("日本語のテキスト", 8),
            ("abcd日本", 3),
            ("Grüße", 3),  # ü and ß count one each; G, r, e round up to one
        ],
    )
    def test_ascii_is_four_characters_a_token_and_anything_else_one(self, text: str, tokens: int) -> None:
        assert estimate_tokens(text) == tokens


def builder(budget: int) -> PromptBuilder:
    return PromptBuilder(None, skills=None, knowledge=None, settings=PromptSettings(budget_chars=budget))  # type: ignore[arg-type]


def length(sections: list[Section]) -> int:
    return len(SECTION_SEPARATOR.join(section.text for section in sections))


SECTIONS = [
    Section(ROLE, "R" * 300, "ag_1"),
    Section(SKILL, "A" * 400, "sk_a@1.0.0"),
    Section(SKILL, "B" * 400, "sk_b@1.0.0"),
    Section(OUTPUT_FORMAT, "F" * 300, "ag_1"),
    Section(KNOWLEDGE, "K" * 600, "kb_1"),
    Section(PROFILE, "P" * 250, "invokeAgent.userProfile"),
]
FULL = length(SECTIONS)


class TestFit:
    def test_sections_within_the_budget_are_untouched(self) -> None:
        warnings: list[str] = []

        kept = builder(FULL)._fit(list(SECTIONS), warnings)

        assert kept == SECTIONS
        assert warnings == []

    def test_the_dynamic_sections_are_cut_first(self) -> None:
        warnings: list[str] = []
        # Room for everything but the profile and most of the knowledge.
        budget = FULL - 250 - 2 - 500

        kept = builder(budget)._fit(list(SECTIONS), warnings)

        assert [section.kind for section in kept] == [ROLE, SKILL, SKILL, OUTPUT_FORMAT]
        assert length(kept) <= budget
        assert len(warnings) == 2
        assert PROFILE in warnings[0] and "dropped" in warnings[0]
        assert KNOWLEDGE in warnings[1] and "dropped" in warnings[1]

    def test_a_tail_section_that_would_keep_under_200_characters_is_dropped_whole(self) -> None:
        warnings: list[str] = []
        # 100 over: the profile (250) would keep 150 characters, too few to be useful.
        budget = FULL - 100

        kept = builder(budget)._fit(list(SECTIONS), warnings)

        assert [section.kind for section in kept] == [ROLE, SKILL, SKILL, OUTPUT_FORMAT, KNOWLEDGE]
        assert not any(section.truncated for section in kept)
        assert length(kept) == FULL - 250 - 2
        assert warnings == [f"PROFILE section (invokeAgent.userProfile) dropped to fit the prompt budget of {budget}."]

    def test_truncation_keeps_the_head_and_marks_it(self) -> None:
        warnings: list[str] = []
        sections = [Section(ROLE, "R" * 100, "ag_1"), Section(KNOWLEDGE, "K" * 1000, "kb_1")]
        budget = 100 + 2 + 600

        kept = builder(budget)._fit(sections, warnings)

        assert [section.kind for section in kept] == [ROLE, KNOWLEDGE]
        assert kept[1].truncated is True
        assert kept[1].text.endswith(TRUNCATION_MARK)
        assert kept[1].text.startswith("K" * 500)
        assert kept[1].source == "kb_1"
        assert length(kept) == budget
        assert warnings == [f"KNOWLEDGE section (kb_1) truncated to fit the prompt budget of {budget}."]

    def test_skills_are_cut_from_the_last_one_before_the_role(self) -> None:
        warnings: list[str] = []
        budget = 300 + 2 + 400

        kept = builder(budget)._fit(list(SECTIONS), warnings)

        assert [(section.kind, section.source) for section in kept] == [(ROLE, "ag_1"), (SKILL, "sk_a@1.0.0")]
        assert [warning.split(" section")[0] for warning in warnings] == [
            PROFILE,
            KNOWLEDGE,
            OUTPUT_FORMAT,
            SKILL,
        ]
        assert "sk_b@1.0.0" in warnings[-1]

    def test_the_role_is_only_truncated_and_last(self) -> None:
        warnings: list[str] = []

        kept = builder(120)._fit(list(SECTIONS), warnings)

        assert len(kept) == 1
        assert kept[0].kind == ROLE
        assert kept[0].truncated is True
        assert len(kept[0].text) == 120
        assert kept[0].text.startswith("R" * 50)
        assert len(warnings) == 6
        assert "ROLE" in warnings[-1]

    def test_the_budget_is_never_exceeded(self) -> None:
        for budget in (60, 120, 301, 500, 703, 900, 1500, 2000, FULL - 1):
            kept = builder(budget)._fit(list(SECTIONS), [])
            assert length(kept) <= budget, budget


class FixedSkills:
    def __init__(self, *sections: SkillSection, notes: list[str] | None = None) -> None:
        self.selection = SkillSelection(list(sections), notes or [])

    async def select(self, agent: Agent, message: str, *, session_id: str | None, force_channel: str | None) -> Any:
        return self.selection


class FixedKnowledge:
    def __init__(self, text: str) -> None:
        self.text = text
        self.budgets: list[int] = []

    async def context(self, space_id: str, kb_ids: Sequence[str], message: str, *, budget_chars: int) -> str | None:
        self.budgets.append(budget_chars)
        return self.text


def agent(**columns: Any) -> Agent:
    return Agent(
        id="ag_unit",
        space_id=SYSTEM_SPACE_ID,
        name="Unit",
        model="m",
        system_prompt=columns.pop("system_prompt", "  You are the unit agent.  "),
        max_steps=5,
        status="ACTIVE",
        mounted_kb_ids=columns.pop("mounted_kb_ids", ["kb_1"]),
        activated_tool_ids=columns.pop("activated_tool_ids", []),
        bound_skill_ids=[],
        output_format=columns.pop("output_format", "Bullets only."),
        **columns,
    )


class TestBuild:
    async def test_the_order_is_role_skills_format_knowledge_profile(
        self, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        skills = FixedSkills(
            SkillSection("sk_a", "1.0.0", "PRODUCTION", "Skill A."),
            SkillSection("sk_b", "2.1.0", "PINNED", "Skill B."),
            notes=["Skill sk_c skipped: it is not ACTIVE."],
        )
        knowledge = FixedKnowledge("Passage one.")
        prompt_builder = PromptBuilder(
            session_factory, skills, knowledge, PromptSettings(budget_chars=10_000, knowledge_budget_chars=1234)
        )

        prompt = await prompt_builder.build(agent(), "hello", user_profile={"name": "Ada", "tier": "gold"})

        assert [section.kind for section in prompt.sections] == [ROLE, SKILL, SKILL, OUTPUT_FORMAT, KNOWLEDGE, PROFILE]
        assert prompt.sections[0].text == "You are the unit agent."
        assert prompt.sections[5].text.startswith("User profile:")
        assert '"name": "Ada"' in prompt.sections[5].text
        assert prompt.system_prompt == SECTION_SEPARATOR.join(section.text for section in prompt.sections)
        assert knowledge.budgets == [1234]
        assert prompt.warnings == ["Skill sk_c skipped: it is not ACTIVE."]
        assert prompt.skill_versions == [
            {"skillId": "sk_a", "version": "1.0.0", "channel": "PRODUCTION"},
            {"skillId": "sk_b", "version": "2.1.0", "channel": "PINNED"},
        ]
        assert prompt.functions.definitions == []
        assert prompt.token_estimate == estimate_tokens(prompt.system_prompt) + estimate_tokens("[]") + estimate_tokens(
            "hello"
        )

    async def test_over_budget_the_dynamic_sections_go_first(
        self, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        skills = FixedSkills(SkillSection("sk_a", "1.0.0", "PRODUCTION", "S" * 300))
        prompt_builder = PromptBuilder(
            session_factory, skills, FixedKnowledge("K" * 400), PromptSettings(budget_chars=700)
        )

        prompt = await prompt_builder.build(
            agent(system_prompt="R" * 200, output_format="F" * 100), "x", user_profile={"p": "P" * 300}
        )

        assert [section.kind for section in prompt.sections] == [ROLE, SKILL, OUTPUT_FORMAT]
        assert len(prompt.system_prompt) <= 700
        assert [warning.split(" section")[0] for warning in prompt.warnings] == [PROFILE, KNOWLEDGE]
        assert prompt.skill_versions == [{"skillId": "sk_a", "version": "1.0.0", "channel": "PRODUCTION"}]

    async def test_a_skill_over_the_limit_is_kept_and_reported(
        self, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        skills = FixedSkills(SkillSection("sk_big", "1.0.0", "PRODUCTION", "S" * 150))
        prompt_builder = PromptBuilder(session_factory, skills, None, PromptSettings(skill_max_chars=100))

        prompt = await prompt_builder.build(agent(output_format=None), "x")

        assert [section.kind for section in prompt.sections] == [ROLE, SKILL]
        assert prompt.warnings == ["Skill sk_big@1.0.0 has 150 characters, over the per-skill limit of 100."]
