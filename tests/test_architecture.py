"""The layering contract: app/ never imports strawberry or schema (import-linter, pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


class TestLayering:
    def test_app_knows_nothing_of_graphql(self) -> None:
        result = subprocess.run(
            [str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert "1 kept, 0 broken" in result.stdout
