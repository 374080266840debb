"""The committed console build (app/console/dist) matches its sources, and the console's
operations fit the schema: additive schema changes pass, a removed field fails the build."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

from app.console.routes import DIST
from tests.support.processes import REPOSITORY_ROOT

BUILD = REPOSITORY_ROOT / "console" / "build.mjs"
CODEGEN = REPOSITORY_ROOT / "console" / "codegen.mjs"
SCHEMA = REPOSITORY_ROOT / "schema" / "schema.graphql"
REBUILD = "run `node console/build.mjs` and commit app/console/dist"


def node() -> str:
    found = shutil.which("node")
    assert found, "Node.js is needed to check the console build (the README's test command installs its packages)"
    return found


def run_build(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [node(), str(BUILD), *arguments], cwd=REPOSITORY_ROOT, capture_output=True, text=True, timeout=300
    )


def build_record() -> dict[str, object]:
    record: dict[str, object] = json.loads((DIST / "build.json").read_text())
    return record


class TestCommittedBuild:
    def test_dist_was_built_from_the_current_sources(self) -> None:
        result = run_build("--source-hash")

        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == build_record()["sourceHash"], f"console/ changed since the build: {REBUILD}"

    def test_every_file_is_the_one_the_build_wrote(self) -> None:
        files = build_record()["files"]
        assert isinstance(files, dict)
        on_disk = {
            path.relative_to(DIST).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in DIST.rglob("*")
            if path.is_file() and path.name != "build.json"
        }

        assert on_disk == files, f"app/console/dist differs from its build record: {REBUILD}"

    def test_pages_load_only_their_own_assets(self) -> None:
        for page in ("index.html", "graphiql.html"):
            html = (DIST / page).read_text()
            assert "http://" not in html and "https://" not in html and "//cdn" not in html, page
            assert "/console/assets/" in html


class TestTypesFromTheSchema:
    def test_console_type_checks_against_the_committed_schema(self) -> None:
        result = run_build("--typecheck")

        assert result.returncode == 0, result.stdout + result.stderr

    def test_an_added_field_changes_nothing(self, tmp_path: Path) -> None:
        grown = tmp_path / "schema.graphql"
        grown.write_text(
            SCHEMA.read_text().replace(
                "type Viewer {", 'type Viewer {\n  """Added by a test."""\n  addedByATest: String\n', 1
            )
        )

        result = run_build("--typecheck", "--schema", str(grown))

        assert result.returncode == 0, result.stdout + result.stderr

    def test_a_removed_field_the_console_uses_fails(self, tmp_path: Path) -> None:
        text = SCHEMA.read_text()
        label = '  """The label given to the key when it was created, if any."""\n  keyLabel: String\n'
        assert label in text
        shrunk = tmp_path / "schema.graphql"
        shrunk.write_text(text.replace(label, ""))

        try:
            result = run_build("--typecheck", "--schema", str(shrunk))
        finally:
            # Leave the generated types as the committed schema makes them.
            subprocess.run([node(), str(CODEGEN)], cwd=REPOSITORY_ROOT, capture_output=True, timeout=120, check=True)

        assert result.returncode != 0
        assert "keyLabel" in result.stdout + result.stderr
        assert "viewer.graphql" in result.stdout + result.stderr
