"""The Agent Skills format: a folder holding ``SKILL.md``, YAML front matter then the Markdown body.

Front matter (https://agentskills.io/specification): ``name`` (1-64 of a-z, 0-9 and
single inner hyphens, the folder's name), ``description`` (1-1024 characters), and
optionally ``license``, ``compatibility``, ``metadata`` (string keys to string values)
and ``allowed-tools`` (space-separated). The body is the skill's prompt.

Quiver's own fields travel in ``metadata``: ``label``, ``version``, ``category``,
``boundary``, and ``tags`` / ``trigger-hints`` as one item per line (the spec wants
string values). Declared tools are ``allowed-tools``. Front matter Quiver has no column
for (license, compatibility, other metadata keys, unknown top-level keys) is kept in
``skill_md_extra`` so that an export gives it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import frontmatter
import yaml

from app.errors import DomainError
from app.skills.inputs import NAME_RULE, SKILL_NAME, SkillInput

FILE_NAME = "SKILL.md"
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
QUIVER_METADATA = ("label", "version", "category", "tags", "trigger-hints", "boundary")
#: Values the front matter may hold, written out; real ones hold a few dozen.
MAX_FRONT_MATTER_NODES = 10_000
KNOWN_TOP_LEVEL = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")


@dataclass
class ParsedSkill:
    """A SKILL.md, read: the fields of a skill and the front matter kept for export."""

    name: str
    description: str
    prompt: str
    label: str
    version: str | None = None
    category: str | None = None
    tags: list[str] = field(default_factory=list)
    trigger_hints: list[str] = field(default_factory=list)
    boundary: str | None = None
    tool_ids: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_input(self, space_id: str | None) -> SkillInput:
        return SkillInput(
            space_id=space_id,
            name=self.name,
            label=self.label,
            description=self.description,
            prompt=self.prompt,
            category=self.category,
            tags=self.tags,
            trigger_hints=self.trigger_hints,
            boundary=self.boundary,
            version=self.version,
            tool_ids=self.tool_ids,
            skill_md_extra=self.extra,
        )


def _invalid(message: str, field: list[str]) -> DomainError:
    return DomainError("INVALID_SKILL_MD", message, field)


def _lines(value: Any, key: str, field: list[str]) -> list[str]:
    """One item per line (the spec's string values), or a YAML list from a lenient writer."""
    if value is None:
        return []
    if isinstance(value, list):
        return [str(item).strip() for item in value if str(item).strip()]
    if isinstance(value, str):
        return [line.strip() for line in value.splitlines() if line.strip()]
    raise _invalid(f"metadata.{key} must be text with one item per line.", field)


def _text(value: Any, key: str, field: list[str]) -> str | None:
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        raise _invalid(f"{key} must be text.", field)
    return str(value).strip() or None


def default_label(name: str) -> str:
    return name.replace("-", " ").capitalize()


def _expanded_size(value: Any) -> int:
    """How many values ``value`` holds once written out (aliases counted at each use),
    counted only up to just past the limit."""
    count = 0
    pending = [value]
    while pending and count <= MAX_FRONT_MATTER_NODES:
        current = pending.pop()
        count += 1
        if isinstance(current, dict):
            pending.extend(current.keys())
            pending.extend(current.values())
        elif isinstance(current, list | tuple):
            pending.extend(current)
    return count


def parse_skill_md(text: str, field: list[str] | None = None) -> ParsedSkill:
    """Read a SKILL.md; every problem is a ``DomainError`` (INVALID_SKILL_MD or INVALID_NAME)."""
    field = field or ["input", "text"]
    if not text.lstrip("\ufeff").startswith("---"):
        raise _invalid("SKILL.md must start with YAML front matter between '---' lines.", field)
    try:
        post = frontmatter.loads(text.lstrip("\ufeff"))
    except yaml.YAMLError as error:
        raise _invalid(f"The front matter is not valid YAML: {error}", field) from None
    front: dict[str, Any] = dict(post.metadata)
    if _expanded_size(front) > MAX_FRONT_MATTER_NODES:
        # YAML aliases can make a few lines stand for billions of values ("billion laughs"),
        # which storing them as JSON would expand.
        raise _invalid(f"The front matter holds more than {MAX_FRONT_MATTER_NODES} values.", field)
    name = front.get("name")
    if not isinstance(name, str) or not name:
        raise _invalid("The front matter needs a name.", field)
    if not SKILL_NAME.match(name):
        raise DomainError("INVALID_NAME", f"SKILL.md name {name!r} breaks the Agent Skills rule. {NAME_RULE}", field)
    description = _text(front.get("description"), "description", field)
    if not description:
        raise _invalid("The front matter needs a non-empty description.", field)
    if len(description) > MAX_DESCRIPTION:
        raise _invalid(
            f"The description has {len(description)} characters; the format allows {MAX_DESCRIPTION}.", field
        )
    metadata = front.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise _invalid("metadata must be a mapping of keys to text.", field)
    compatibility = _text(front.get("compatibility"), "compatibility", field)
    if compatibility and len(compatibility) > MAX_COMPATIBILITY:
        raise _invalid(f"compatibility has more than {MAX_COMPATIBILITY} characters.", field)
    tools = front.get("allowed-tools")
    tool_ids = tools.split() if isinstance(tools, str) else [str(tool) for tool in tools or []]
    prompt = post.content.strip()
    if not prompt:
        raise _invalid("The body (the skill's prompt) is empty.", field)
    extra: dict[str, Any] = {}
    for key in ("license", "compatibility"):
        if front.get(key) is not None:
            extra[key] = front[key]
    other_metadata = {str(key): value for key, value in metadata.items() if key not in QUIVER_METADATA}
    if other_metadata:
        extra["metadata"] = other_metadata
    unknown = {key: value for key, value in front.items() if key not in KNOWN_TOP_LEVEL}
    if unknown:
        extra["frontmatter"] = unknown
    version = _text(metadata.get("version"), "metadata.version", field)
    return ParsedSkill(
        name=name,
        description=description,
        prompt=prompt,
        label=_text(metadata.get("label"), "metadata.label", field) or default_label(name),
        version=version,
        category=_text(metadata.get("category"), "metadata.category", field),
        tags=_lines(metadata.get("tags"), "tags", field),
        trigger_hints=_lines(metadata.get("trigger-hints"), "trigger-hints", field),
        boundary=_text(metadata.get("boundary"), "metadata.boundary", field),
        tool_ids=tool_ids,
        extra=extra,
    )


class _Dumper(yaml.SafeDumper):
    """Multi-line text as literal blocks, so hints and tags read one per line."""


def _represent_text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_text)


def render_skill_md(
    *,
    name: str,
    description: str,
    prompt: str,
    label: str,
    version: str,
    category: str | None,
    tags: list[str],
    trigger_hints: list[str],
    boundary: str | None,
    tool_ids: list[str],
    extra: dict[str, Any] | None,
) -> str:
    """The SKILL.md text of a skill at one version."""
    extra = extra or {}
    front: dict[str, Any] = {"name": name, "description": description}
    for key in ("license", "compatibility"):
        if extra.get(key) is not None:
            front[key] = extra[key]
    if tool_ids:
        front["allowed-tools"] = " ".join(tool_ids)
    metadata: dict[str, Any] = {"label": label, "version": version}
    if category:
        metadata["category"] = category
    if tags:
        metadata["tags"] = "\n".join(tags)
    if trigger_hints:
        metadata["trigger-hints"] = "\n".join(trigger_hints)
    if boundary:
        metadata["boundary"] = boundary
    metadata.update(extra.get("metadata") or {})
    front["metadata"] = metadata
    front.update(extra.get("frontmatter") or {})
    header = yaml.dump(front, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{header}---\n\n{prompt.strip()}\n"
