"""The static checks, run by the test command so that CI fails on them.

Ruff (lint and format), mypy in strict mode over the code and the tests, and
import-linter's contracts (pyproject.toml): ``app/`` knows nothing of GraphQL, imports go one
way through the layers of docs/architecture.md, and no modules of ``app/`` import each other. The
suite runs these first (see ``pytest_collection_modifyitems`` in conftest.py), so a lint
or type error fails a run in seconds rather than after it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def run(*command: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / command[0]), *command[1:]], cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
    )


class TestStaticChecks:
    def test_ruff_finds_nothing(self) -> None:
        result = run("ruff", "check", "--no-cache", ".")
        assert result.returncode == 0, result.stdout + result.stderr

    def test_code_is_formatted(self) -> None:
        result = run("ruff", "format", "--check", "--no-cache", ".")
        assert result.returncode == 0, "run `ruff format .`\n" + result.stdout + result.stderr

    def test_types_check_strictly(self) -> None:
        # Incremental (.mypy_cache): seconds when little changed, about a minute from cold.
        result = run("mypy", "--strict", "app", "schema", "tests", timeout=900)
        assert result.returncode == 0, result.stdout + result.stderr

    def test_import_contracts_hold(self) -> None:
        result = run("lint-imports", "--no-cache")
        assert result.returncode == 0, result.stdout + result.stderr
        assert "3 kept, 0 broken" in result.stdout
