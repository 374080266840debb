"""The committed SDL passes graphql-schema-linter (descriptions, naming, Relay rules).

The linter comes from the repo's package.json (`npm ci`, part of the README's test
command); the rule set is `.graphql-schema-linterrc` (every rule but the sorting ones).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINTER = ROOT / "node_modules" / ".bin" / "graphql-schema-linter"


class TestSchemaLinter:
    def test_committed_schema_has_no_lint_errors(self) -> None:
        assert LINTER.exists(), "graphql-schema-linter is missing: run `npm ci` (see README)"
        assert shutil.which("node"), "node is required to run graphql-schema-linter"
        result = subprocess.run(
            [str(LINTER), "schema/schema.graphql"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert "0 errors detected" in result.stdout

    def test_linter_catches_a_missing_description(self, tmp_path: Path) -> None:
        """The check can fail: an undocumented field is reported."""
        assert LINTER.exists(), "graphql-schema-linter is missing: run `npm ci` (see README)"
        sdl = '"The root."\ntype Query {\n  undocumented: String\n}\n'
        (tmp_path / "bad.graphql").write_text(sdl)
        shutil.copy(ROOT / ".graphql-schema-linterrc", tmp_path / ".graphql-schema-linterrc")
        result = subprocess.run(
            [str(LINTER), "bad.graphql"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode != 0
        assert "fields-have-descriptions" in result.stdout
