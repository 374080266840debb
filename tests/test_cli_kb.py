"""``quiver kb ingest``: files and folders, progress and summary, replacement, skipped files and why."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli.knowledge import kb_cli
from app.db import create_engine, create_session_factory
from app.knowledge import repository
from app.knowledge.models import Document
from app.knowledge.search import KnowledgeSearch
from tests.app.knowledge.pdf import make_pdf
from tests.app.knowledge.support import make_kb, make_space
from tests.test_cli import COMMAND_TIMEOUT_SECONDS, quiver_executable


def run_async(database_url: str, action: Any) -> Any:
    """Run ``action(session_factory)`` on a fresh engine (these tests are synchronous, like the CLI)."""

    async def runner() -> Any:
        engine = create_engine(database_url)
        try:
            return await action(create_session_factory(engine))
        finally:
            await engine.dispose()

    return asyncio.run(runner())


@pytest.fixture
def cli_env(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("QUIVER_DATABASE_URL", database_url)
    monkeypatch.setenv("QUIVER_EMBEDDINGS", "none")
    monkeypatch.setenv("COLUMNS", "200")
    yield database_url


@pytest.fixture
def kb_id(cli_env: str) -> str:
    async def create(session_factory: Any) -> str:
        space = await make_space(session_factory, f"cli{secrets.token_hex(3)}")
        return (await make_kb(session_factory, space.id, "docs")).id

    return str(run_async(cli_env, create))


def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "policies").mkdir(parents=True)
    (root / "policies" / "leave.md").write_text(
        "# Leave\n\n## Sick leave\n\nCall your manager before nine.\n", encoding="utf-8"
    )
    (root / "notes.txt").write_text("Parking is free on weekends.\n\nBikes go in the basement.", encoding="utf-8")
    (root / "faq.html").write_text(
        "<html><head><title>FAQ</title></head><body><h1>FAQ</h1><p>Lunch is at noon.</p></body></html>",
        encoding="utf-8",
    )
    (root / "report.pdf").write_bytes(make_pdf(["Revenue grew by ten percent.", "Costs fell."], title="Annual report"))
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "empty.md").write_text("\n\n", encoding="utf-8")
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    return root


def documents(database_url: str, kb_id: str) -> list[Document]:
    async def fetch(session_factory: Any) -> list[Document]:
        async with session_factory() as session:
            from app.pagination import PageRequest

            return (await repository.list_documents(session, kb_id, PageRequest(first=100))).items

    return list(run_async(database_url, fetch))


class TestIngestCommand:
    def test_a_folder_with_a_summary_of_what_was_skipped_and_why(
        self, kb_id: str, cli_env: str, tmp_path: Path
    ) -> None:
        root = folder(tmp_path)

        result = CliRunner().invoke(kb_cli, ["ingest", kb_id, str(root)])

        assert result.exit_code == 0, result.output
        output = result.output
        assert "Ingesting 7 file(s)" in output
        assert "7/7" in output  # the progress bar reached the end
        assert "│ documents      │ 4" in output
        assert "│   created      │ 4" in output
        assert "│ skipped files  │ 3" in output
        assert "logo.png" in output and "unsupported file type .png" in output
        assert "empty.md" in output and "no text in it" in output
        assert "broken.pdf" in output and "not a readable PDF" in output
        stored = {document.title: document for document in documents(cli_env, kb_id)}
        assert set(stored) == {"Leave", "notes", "FAQ", "Annual report"}
        chunks = sum(document.chunk_count for document in stored.values())
        assert output.rstrip("\n").splitlines()[-1] == (
            f"done: 7 file(s) (4 created, 0 replaced, 0 unchanged, 3 skipped), {chunks} chunk(s) written"
        )
        assert stored["Leave"].source == str((root / "policies" / "leave.md").resolve())
        assert stored["Annual report"].chunk_count == 2  # one section per page

        async def find(session_factory: Any) -> list[tuple[str, tuple[str, ...]]]:
            outcome = await KnowledgeSearch(session_factory).search([kb_id], "revenue", 5)
            return [(hit.title, hit.heading_path) for hit in outcome.hits]

        assert run_async(cli_env, find) == [("Annual report", ("page 1",))]

    def test_running_again_replaces_changed_files_only(self, kb_id: str, cli_env: str, tmp_path: Path) -> None:
        root = folder(tmp_path)
        CliRunner().invoke(kb_cli, ["ingest", kb_id, str(root)])
        before = {document.title: document.id for document in documents(cli_env, kb_id)}
        (root / "notes.txt").write_text("Parking now costs two euros.", encoding="utf-8")

        result = CliRunner().invoke(kb_cli, ["ingest", kb_id, str(root)])

        assert result.exit_code == 0, result.output
        assert "│   replaced     │ 1" in result.output
        assert "│   unchanged    │ 3" in result.output
        assert "│ chunks written │ 1" in result.output
        assert result.output.rstrip("\n").splitlines()[-1] == (
            "done: 7 file(s) (0 created, 1 replaced, 3 unchanged, 3 skipped), 1 chunk(s) written"
        )
        after = {document.title: document.id for document in documents(cli_env, kb_id)}
        assert after == before  # same documents, same ids: nothing duplicated

    def test_single_files_and_missing_paths(self, kb_id: str, cli_env: str, tmp_path: Path) -> None:
        single = tmp_path / "one.md"
        single.write_text("# One\n\nText.", encoding="utf-8")

        result = CliRunner().invoke(kb_cli, ["ingest", kb_id, str(single), str(tmp_path / "nope.md")])

        assert result.exit_code == 0, result.output
        assert "│ documents      │ 1" in result.output
        assert "nope.md" in result.output and "no such file or folder" in result.output

    def test_a_file_name_that_is_not_utf8_is_ingested_under_a_readable_source(
        self, kb_id: str, cli_env: str, tmp_path: Path
    ) -> None:
        # A GBK name (退货说明.txt unpacked from a Windows zip) is lone surrogates to Python: the
        # ingest stopped with a UnicodeEncodeError traceback, the folder's other files unwritten.
        root = tmp_path / "unpacked"
        root.mkdir()
        gbk_name = os.path.join(os.fsencode(root), "退货说明.txt".encode("gbk"))
        with open(gbk_name, "w", encoding="utf-8") as file:
            file.write("三十天内可以退货。")
        (root / "正常.md").write_text("# 正常文件\n\n发票需要税号。", encoding="utf-8")

        result = CliRunner().invoke(kb_cli, ["ingest", kb_id, str(root)])

        assert result.exit_code == 0, result.output
        assert "│   created      │ 2" in result.output
        stored = {document.title: document.source for document in documents(cli_env, kb_id)}
        escaped = "退货说明".encode("gbk").decode("utf-8", "backslashreplace")  # \\xcd˻\\xf5˵\\xc3\\xf7
        assert stored == {escaped: f"{root.resolve()}/{escaped}.txt", "正常文件": str((root / "正常.md").resolve())}

    def test_the_progress_line_names_the_file_in_hand_and_an_interrupted_run_says_how_far_it_got(
        self, kb_id: str, cli_env: str, tmp_path: Path
    ) -> None:
        # first.md fills a group of its own (240,000 characters), so it is prepared before the
        # reader moves on to second.md: a named pipe, which the reader waits on until this test
        # writes it. Ctrl-C meanwhile: the last progress line named second.md alone, the file last
        # read, while first.md was the one not yet written.
        first = tmp_path / "first.md"
        first.write_text("# First\n\n" + "One sentence about the first file. " * 7_000, encoding="utf-8")
        second = tmp_path / "second.md"
        os.mkfifo(second)
        third = tmp_path / "third.md"
        third.write_text("# Third\n\nShort.", encoding="utf-8")
        environment = {name: value for name, value in os.environ.items() if not name.startswith("QUIVER_")}
        environment.update(QUIVER_DATABASE_URL=cli_env, QUIVER_EMBEDDINGS="none", PYTHONUNBUFFERED="1")
        process = subprocess.Popen(
            [quiver_executable(), "kb", "ingest", kb_id, str(first), str(second), str(third)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environment,
            text=True,
        )
        try:
            writer = None
            bound = time.monotonic() + COMMAND_TIMEOUT_SECONDS  # a bound, not a wait: polled
            while writer is None and process.poll() is None and time.monotonic() < bound:
                try:  # opens once the reader has opened the pipe
                    writer = os.open(second, os.O_WRONLY | os.O_NONBLOCK)
                except OSError:
                    time.sleep(0.01)
            assert writer is not None, "the reader never opened second.md"
            process.send_signal(signal.SIGINT)
            os.write(writer, b"# Second\n\nText.")
            os.close(writer)
            output, errors = process.communicate(timeout=COMMAND_TIMEOUT_SECONDS)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()

        assert process.returncode == 130, output + errors
        lines = output.rstrip("\n").splitlines()
        progress = [line for line in lines if line.startswith("ingest ")]
        assert len(progress) == 1 and "0/3" in progress[0], output
        assert progress[0].endswith("first.md, reading second.md"), output
        assert documents(cli_env, kb_id) == []  # first.md was indeed not written yet
        assert lines[-1] == (
            "interrupted: 3 file(s) (0 created, 0 replaced, 0 unchanged, 0 skipped, 3 not done), 0 chunk(s) written"
        )

    def test_nothing_ingested_exits_with_an_error(self, kb_id: str, cli_env: str, tmp_path: Path) -> None:
        result = CliRunner().invoke(kb_cli, ["ingest", kb_id, str(tmp_path / "missing")])

        assert result.exit_code == 1

    def test_unknown_knowledge_base_is_named(self, cli_env: str, tmp_path: Path) -> None:
        result = CliRunner().invoke(kb_cli, ["ingest", "kb_doesnotexist", str(tmp_path)])

        assert result.exit_code == 2
        assert "Knowledge base 'kb_doesnotexist' not found." in result.output


class TestReembedCommand:
    """``quiver kb reembed``: vectors of the configured model for chunks that lack them."""

    def test_ingested_without_embeddings_then_reembedded_with_a_model(
        self, kb_id: str, cli_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from tests.app.knowledge.support import ConceptEmbedder, running_embedding_server

        (tmp_path / "pets.md").write_text("# Pets\n\nThe feline rested on the rug.", encoding="utf-8")
        assert CliRunner().invoke(kb_cli, ["ingest", kb_id, str(tmp_path)]).exit_code == 0

        with running_embedding_server() as server:
            monkeypatch.setenv("QUIVER_EMBEDDINGS", "openai")
            monkeypatch.setenv("QUIVER_EMBEDDINGS_BASE_URL", server.base_url)
            monkeypatch.setenv("QUIVER_EMBEDDINGS_MODEL", "concepts")
            result = CliRunner().invoke(kb_cli, ["reembed", kb_id])
            again = CliRunner().invoke(kb_cli, ["reembed", kb_id])
            every = CliRunner().invoke(kb_cli, ["reembed", "--all"])  # other tests' knowledge bases too

        assert result.exit_code == 0, result.output
        assert "Embedding with openai:concepts" in result.output and "chunks embedded: 1" in result.output
        assert again.exit_code == 0 and "chunks embedded: 0" in again.output
        assert every.exit_code == 0 and "every knowledge base" in every.output

        async def find(session_factory: Any) -> list[tuple[str, int | None]]:
            search = KnowledgeSearch(session_factory, ConceptEmbedder("openai:concepts"))
            outcome = await search.search([kb_id], "cat sleeping on a mat", 5)  # no word in common
            return [(hit.title, hit.vector_rank) for hit in outcome.hits]

        assert run_async(cli_env, find) == [("Pets", 1)]

    def test_refuses_without_a_model_or_a_scope_and_names_unknown_knowledge_bases(
        self, kb_id: str, cli_env: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        without_model = CliRunner().invoke(kb_cli, ["reembed", kb_id])
        assert without_model.exit_code == 2 and "QUIVER_EMBEDDINGS is none" in without_model.output

        monkeypatch.setenv("QUIVER_EMBEDDINGS", "openai")
        monkeypatch.setenv("QUIVER_EMBEDDINGS_BASE_URL", "http://127.0.0.1:9/v1")
        for arguments in (["reembed"], ["reembed", kb_id, "--all"]):
            result = CliRunner().invoke(kb_cli, arguments)
            assert result.exit_code == 2 and "name knowledge bases (KB_ID...) or pass --all" in result.output
        unknown = CliRunner().invoke(kb_cli, ["reembed", kb_id, "kb_doesnotexist"])
        assert unknown.exit_code == 2 and "Knowledge base 'kb_doesnotexist' not found." in unknown.output
