"""Semantic versions of skills: ordering and the next patch."""

from __future__ import annotations

from collections.abc import Iterable

from app.validation import SEMVER


def version_key(version: str) -> tuple[int, int, int, int, str]:
    """Sort key of a semantic version: a release sorts after its pre-releases."""
    if not SEMVER.match(version):
        return (-1, -1, -1, -1, version)
    core, _, pre_release = version.split("+", 1)[0].partition("-")
    major, minor, patch = (int(part) for part in core.split("."))
    return (major, minor, patch, 0 if pre_release else 1, pre_release)


def highest(versions: Iterable[str]) -> str | None:
    ordered = sorted(versions, key=version_key)
    return ordered[-1] if ordered else None


def next_patch(version: str) -> str:
    """``1.2.3`` → ``1.2.4``; a pre-release or build suffix is dropped (``1.2.3-rc.1`` → ``1.2.4``)."""
    if not SEMVER.match(version):
        return "1.0.0"
    core = version.split("+")[0].split("-")[0]
    major, minor, patch = core.split(".")
    return f"{major}.{minor}.{int(patch) + 1}"


def next_version(existing: Iterable[str]) -> str:
    """The patch after the highest existing version (1.0.0 for none)."""
    top = highest(existing)
    return next_patch(top) if top is not None else "1.0.0"


def split_reference(reference: str) -> tuple[str, str | None]:
    """A bound-skill reference: ``sk_email_draft@1.2.0`` → (``sk_email_draft``, ``1.2.0``)."""
    skill_id, _, version = reference.partition("@")
    return skill_id, version or None
