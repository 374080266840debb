"""README.md's examples of a pipeline run, a run's trace and a health report are what the code
prints (tests/support/readme_examples.py), shortened where the README writes "…".

Each example in the README follows a comment ``<!-- example: NAME -->``. Whitespace does not
count (the README wraps long lines); "…" stands for anything; the figures that change from run
to run (durationMs, latencyMs, canaryBucket) may be any number.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from tests.support.processes import REPOSITORY_ROOT
from tests.support.readme_examples import produce

NAMES = ("pipeline", "trace", "report")
VARYING = re.compile(r'("(?:durationMs|latencyMs|canaryBucket)":\s*)-?\d+(?:\.\d+)?(?:e-?\d+)?')
NUMBER = "\x00"


def readme_example(name: str) -> str:
    text = (REPOSITORY_ROOT / "README.md").read_text()
    found = re.search(rf"<!-- example: {name} -->\s*```\w*\n(.*?)\n```", text, re.DOTALL)
    assert found is not None, f"README.md has no example {name!r}"
    return found.group(1)


def matches(example: str, printed: str) -> bool:
    """Whether ``printed`` is ``example`` with each "…" filled in (whitespace aside)."""
    marked = VARYING.sub(lambda found: found.group(1) + NUMBER, example)
    parts = [re.escape(re.sub(r"\s+", "", part)) for part in marked.split("…")]
    pattern = ".*?".join(parts).replace(NUMBER, r"-?\d+(?:\.\d+)?(?:e-?\d+)?")
    return re.fullmatch(pattern, re.sub(r"\s+", "", printed), re.DOTALL) is not None


class TestMatching:
    def test_an_ellipsis_stands_for_anything_and_nothing_else_differs(self) -> None:
        assert matches('{"id": "plr_…", "status": "SUCCEEDED"}', '{"id": "plr_01ab", "status": "SUCCEEDED"}')
        assert not matches('{"id": "plr_…", "status": "SUCCEEDED"}', '{"id": "plr_01ab", "status": "FAILED"}')
        assert matches('{"durationMs": 14.1, "chars": 259}', '{"durationMs": 3.5, "chars": 259}')
        assert not matches('{"durationMs": 14.1, "chars": 259}', '{"durationMs": 3.5, "chars": 260}')


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """What the code prints, produced once for the module's tests."""
    return asyncio.run(produce(Path(tmp_path_factory.mktemp("readme"))))


class TestReadme:
    @pytest.mark.parametrize("name", NAMES)
    def test_the_example_is_what_the_code_prints(self, name: str, printed: dict[str, str]) -> None:
        example = readme_example(name)
        assert matches(example, printed[name]), f"README's {name} example is not what the code prints:\n{printed[name]}"
