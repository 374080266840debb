"""requirements-ci.txt (the lock CI installs as constraints) agrees with pyproject.toml.

Every dependency pyproject.toml declares (with the extras CI installs) is pinned in the lock at a
version its specifier allows, and the lock holds the whole closure: every distribution those
requirements reach, following the installed packages' own metadata. `.ci/lock` regenerates it.
"""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements-ci.txt"
CI_EXTRAS = ("dev", "embeddings")  # what the README's test command installs


def read_lock(text: str) -> dict[NormalizedName, Version]:
    pins: dict[NormalizedName, Version] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(line)
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", f"the lock pins exact versions: {line}"
        pins[canonicalize_name(requirement.name)] = Version(specifier.version)
    return pins


def declared_requirements(pyproject: str) -> list[Requirement]:
    project = tomllib.loads(pyproject)["project"]
    declared = [Requirement(line) for line in project["dependencies"]]
    for extra in CI_EXTRAS:
        declared += [Requirement(line) for line in project["optional-dependencies"][extra]]
    return declared


def applies(requirement: Requirement, extras: frozenset[str]) -> bool:
    if requirement.marker is None:
        return True
    # evaluate() completes the environment with this interpreter's own markers.
    return any(requirement.marker.evaluate({"extra": extra}) for extra in (extras or {""}))


def disagreements(pyproject: str, lock: str) -> list[str]:
    """What is wrong between pyproject.toml and the lock; empty when they agree."""
    pins = read_lock(lock)
    problems: list[str] = []
    pending = [(requirement, frozenset(requirement.extras)) for requirement in declared_requirements(pyproject)]
    seen: set[tuple[NormalizedName, frozenset[str]]] = set()
    while pending:
        requirement, extras = pending.pop()
        name = canonicalize_name(requirement.name)
        pinned = pins.get(name)
        if pinned is None:
            problems.append(f"{requirement} is not in the lock")
            continue
        if not requirement.specifier.contains(pinned, prereleases=True):
            problems.append(f"the lock pins {name}=={pinned}, outside {requirement}")
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # not installed here: its own requirements cannot be read, its pin was checked
        if Version(distribution.version) != pinned:
            continue  # another version is installed here; its metadata says nothing of the pinned one
        for line in distribution.requires or []:
            child = Requirement(line)
            if applies(child, extras):
                pending.append((child, frozenset(child.extras)))
    return sorted(set(problems))


class TestLockAgreesWithPyproject:
    def test_lock_pins_every_requirement_within_its_range(self) -> None:
        problems = disagreements((ROOT / "pyproject.toml").read_text(), LOCK.read_text())
        assert problems == [], "run .ci/lock\n" + "\n".join(problems)

    def test_lock_holds_no_pytorch_or_cuda(self) -> None:
        names = read_lock(LOCK.read_text())
        assert [name for name in names if name.startswith(("torch", "nvidia-", "triton"))] == []


class TestTheCheckCatchesDisagreement:
    """The check above is only worth something if it fails on a lock that drifted."""

    @pytest.fixture
    def pyproject(self) -> str:
        return (ROOT / "pyproject.toml").read_text()

    def test_a_pin_outside_a_new_upper_bound_is_reported(self, pyproject: str) -> None:
        lock = LOCK.read_text()
        tightened = pyproject.replace('"limits>=5,<6"', '"limits>=5,<5.1"')
        assert tightened != pyproject
        assert any("limits" in problem and "outside" in problem for problem in disagreements(tightened, lock))

    def test_a_dependency_missing_from_the_lock_is_reported(self, pyproject: str) -> None:
        lock = "\n".join(line for line in LOCK.read_text().splitlines() if not line.lower().startswith("simpleeval=="))
        assert any(
            "simpleeval" in problem and "not in the lock" in problem for problem in disagreements(pyproject, lock)
        )

    def test_a_transitive_dependency_missing_from_the_lock_is_reported(self, pyproject: str) -> None:
        # anyio comes in through httpx, not from pyproject.toml directly.
        lock = "\n".join(line for line in LOCK.read_text().splitlines() if not line.lower().startswith("anyio=="))
        assert any(problem.startswith("anyio") for problem in disagreements(pyproject, lock))
