"""What a skill is made of before it is stored: the naming rule and the fields a caller gives.

Both the service (createSkill, updateSkill) and the SKILL.md reader build on these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# The Agent Skills naming rule: 1-64 of a-z0-9 and single inner hyphens.
SKILL_NAME = re.compile(r"^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$")
NAME_RULE = "Skill names are 1-64 characters of a-z, 0-9 and single hyphens, not starting or ending with a hyphen."


@dataclass
class SkillInput:
    """Fields of createSkill / updateSkill / importSkill; None means "not given"."""

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
    tool_ids: list[str] | None = None
    skill_md_extra: dict[str, Any] | None = None
