"""``skills_cli`` (to be mounted as ``quiver skills``): import and export SKILL.md folders."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.skills import skills_cli

SKILL_MD = """---
name: {name}
description: Writes {name} documents.
metadata:
  label: {label}
  trigger-hints: |-
    write a {name}
---

# {label}

Do it well.
"""


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("QUIVER_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'quiver.db'}")
    return tmp_path


def write_skill(folder: Path, name: str, *, file_name: str | None = None) -> Path:
    (folder / name).mkdir(parents=True, exist_ok=True)
    path = folder / name / "SKILL.md"
    path.write_text(SKILL_MD.format(name=file_name or name, label=name.title()), encoding="utf-8")
    return path


class TestSkillsCli:
    def test_import_a_folder_of_skills_then_export_one(self, database: Path) -> None:
        source = database / "skills"
        for name in ("memo", "press-release", "faq"):
            write_skill(source, name)
        runner = CliRunner()

        imported = runner.invoke(skills_cli, ["import", str(source)])
        again = runner.invoke(skills_cli, ["import", str(source / "memo")])
        replaced = runner.invoke(skills_cli, ["import", "--replace", str(source / "memo" / "SKILL.md")])

        assert imported.exit_code == 0, imported.output
        assert "3 imported, 0 failed" in imported.output
        assert again.exit_code == 1
        assert "DUPLICATE" in again.output
        # The CLI's own option, not the GraphQL input field, is what a CLI user can pass.
        assert "pass --replace to update it" in again.output and "replaceExisting" not in again.output
        assert replaced.exit_code == 0 and "updated" in replaced.output
        skill_id = next(line.split()[3] for line in imported.output.splitlines() if "memo@" in line)

        exported = runner.invoke(skills_cli, ["export", skill_id, str(database / "out")])

        assert exported.exit_code == 0, exported.output
        written = (database / "out" / "memo" / "SKILL.md").read_text(encoding="utf-8")
        assert written.startswith("---\nname: memo\ndescription: Writes memo documents.\n")
        assert written.endswith("# Memo\n\nDo it well.\n")

    def test_folder_name_must_match_and_errors_do_not_stop_the_others(self, database: Path) -> None:
        source = database / "skills"
        write_skill(source, "good")
        write_skill(source, "renamed", file_name="other-name")

        result = CliRunner().invoke(skills_cli, ["import", str(source)])

        assert result.exit_code == 1
        assert "1 imported, 1 failed" in result.output
        assert "must match its folder 'renamed'" in result.output

    def test_export_builtin_and_unknown(self, database: Path) -> None:
        runner = CliRunner()

        builtin = runner.invoke(skills_cli, ["export", "sk_email_draft", str(database)])
        unknown = runner.invoke(skills_cli, ["export", "sku_nope", str(database)])

        assert builtin.exit_code == 0
        assert (
            (database / "email-draft" / "SKILL.md").read_text(encoding="utf-8").startswith("---\nname: email-draft\n")
        )
        assert unknown.exit_code != 0

    def test_export_to_a_folder_it_cannot_write_is_a_clear_error(self, database: Path) -> None:
        (database / "a-file").write_text("not a folder", encoding="utf-8")

        result = CliRunner().invoke(skills_cli, ["export", "sk_email_draft", str(database / "a-file")])

        assert result.exit_code == 2, result.output
        assert "cannot write" in result.output and "Traceback" not in result.output
        assert not isinstance(result.exception, OSError)
