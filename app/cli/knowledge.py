"""``quiver kb …``: ingest files and folders into a knowledge base from the command line.

Each file is its own transaction: a file that fails leaves nothing behind and the
others go on. The source of a file is its absolute path, so ingesting a folder again
replaces the documents whose files changed and leaves the others as they are.
"""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from app.config import Settings
from app.errors import DomainError

kb_cli = typer.Typer(help="Knowledge bases: ingest documents, re-embed them.", no_args_is_help=True)


@kb_cli.callback()
def knowledge_bases() -> None:
    """Knowledge bases: ingest documents, re-embed them (a group of its own, also when used standalone)."""


@dataclass
class IngestSummary:
    outcomes: Counter[str] = field(default_factory=Counter)
    chunks: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: Every path the run was given to settle: the files found, and the paths that did not exist.
    files: int = 0

    @property
    def documents(self) -> int:
        return sum(self.outcomes.values())

    def line(self, *, interrupted: bool = False) -> str:
        """The run in one line, the last one printed: files, what became of them, chunks written."""
        outcomes = [f"{self.outcomes[name]} {name.lower()}" for name in ("CREATED", "REPLACED", "UNCHANGED")]
        outcomes.append(f"{len(self.skipped)} skipped")
        not_done = self.files - self.documents - len(self.skipped)
        if interrupted:
            outcomes.append(f"{not_done} not done")
        head = "interrupted" if interrupted else "done"
        return f"{head}: {self.files} file(s) ({', '.join(outcomes)}), {self.chunks} chunk(s) written"


class _InHand:
    """What the progress line names: the oldest file not yet settled (files are prepared in
    groups and written in order, so that is the one the counter waits for), and the file being
    read when the reader is ahead of it. The reader runs a group ahead of the writes; naming
    the file last read said a later file was in hand while earlier ones were still unwritten."""

    def __init__(self, progress: Progress, task: TaskID) -> None:
        self.progress, self.task = progress, task
        self.queued: deque[tuple[object, str]] = deque()
        self.reading: str | None = None

    def read(self, name: str | None) -> None:
        self.reading = name
        self._show()

    def queue(self, item: object, name: str) -> None:
        self.queued.append((item, name))
        self.reading = None
        self._show()

    def settled(self, item: object | None = None) -> None:
        """One file settled: a queued one (``item``; results come in the order files were queued,
        so it is the oldest), or one the reader settled itself (skipped or unchanged)."""
        if item is not None:
            self.queued = deque(entry for entry in self.queued if entry[0] is not item)
        self.progress.advance(self.task)
        self._show()

    def _show(self) -> None:
        parts = [self.queued[0][1]] if self.queued else []
        if self.reading is not None:
            parts.append(f"reading {self.reading}")
        self.progress.update(self.task, current=", ".join(parts))


@kb_cli.command("ingest")
def ingest(
    knowledge_base_id: str = typer.Argument(..., metavar="KB_ID", help="The knowledge base (kb_…)."),
    paths: list[Path] = typer.Argument(..., metavar="PATH...", help="Files or folders (.md .txt .html .pdf)."),
) -> None:
    """Add files to a knowledge base; a file ingested before is replaced, not duplicated."""
    console = Console()
    summary = IngestSummary()
    try:
        asyncio.run(_ingest(knowledge_base_id, paths, console, summary))
    except KeyboardInterrupt:
        # Ctrl-C: what was written stays (each file is its own transaction); say how far it got.
        _print_summary(console, summary)
        console.print(summary.line(interrupted=True), highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(code=130) from None
    _print_summary(console, summary)
    console.print(summary.line(), highlight=False, markup=False, soft_wrap=True)
    if summary.documents == 0 and summary.skipped:
        raise typer.Exit(code=1)


async def _ingest(kb_id: str, paths: list[Path], console: Console, summary: IngestSummary) -> None:
    from app.db import create_engine, create_session_factory
    from app.knowledge import service
    from app.knowledge.embeddings import create_embedding_provider
    from app.knowledge.ingest import Ingestor, ToPrepare, chunking_options, ingest_many
    from app.knowledge.readers import UnreadableFile, iter_files, path_text, read_file
    from app.migrate import upgrade_async
    from app.principal import SYSTEM_PRINCIPAL

    settings = Settings()
    await upgrade_async(settings.database_url)
    engine = create_engine(settings.database_url)
    session_factory = create_session_factory(engine)
    embedder = create_embedding_provider(settings)
    ingestor = Ingestor(chunking_options(settings), embedder)
    try:
        async with session_factory() as session:
            try:
                kb = await service.writable_knowledge_base(session, SYSTEM_PRINCIPAL, kb_id, ["KB_ID"])
            except DomainError as error:
                console.print(f"[red]error:[/red] {error.message}")
                raise typer.Exit(code=2) from None
        missing = [path for path in paths if not path.exists()]
        summary.skipped.extend((path_text(path), "no such file or folder") for path in missing)
        files = list(iter_files([path for path in paths if path.exists()]))
        summary.files = len(files) + len(missing)
        console.print(f"Ingesting {len(files)} file(s) into {kb.label} ({kb.id})")
        with Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[current]}", markup=False),
            console=console,
            transient=False,
        ) as progress:
            in_hand = _InHand(progress, progress.add_task("ingest", total=len(files), current=""))

            paths_of: dict[str, Path] = {}

            async def changed_files() -> AsyncIterator[ToPrepare]:
                """The files to write, read and checked; the others are counted here."""
                for path in files:
                    in_hand.read(path_text(path.name))
                    try:
                        read = read_file(path)
                        data = service.check_document_input(
                            service.DocumentInput(kb.id, read.title, read.text, path_text(path.resolve())), ["file"]
                        )
                    except UnreadableFile as error:
                        summary.skipped.append((path_text(path), error.reason))
                        in_hand.read(None)
                        in_hand.settled()
                        continue
                    except DomainError as error:
                        summary.skipped.append((path_text(path), error.message))
                        in_hand.read(None)
                        in_hand.settled()
                        continue
                    async with session_factory() as session:
                        unchanged = await service.unchanged_document(
                            session, kb.id, data.source, ingestor.content_hash(data, read.kind)
                        )
                    if unchanged is not None:
                        summary.outcomes["UNCHANGED"] += 1
                        in_hand.read(None)
                        in_hand.settled()
                        continue
                    paths_of[data.source or ""] = path
                    item = ToPrepare(data, read.kind, read.sections)
                    in_hand.queue(item, path_text(path.name))
                    yield item

            async for item, result in ingest_many(session_factory, SYSTEM_PRINCIPAL, ingestor, changed_files()):
                if isinstance(result, DomainError):
                    summary.skipped.append(
                        (path_text(paths_of.get(item.data.source or "", item.data.title)), result.message)
                    )
                else:
                    summary.outcomes[result.outcome] += 1
                    if result.outcome != "UNCHANGED":
                        summary.chunks += result.document.chunk_count
                in_hand.settled(item)
    finally:
        close = getattr(embedder, "close", None)
        if close is not None:
            await close()
        await engine.dispose()


def _print_summary(console: Console, summary: IngestSummary) -> None:
    table = Table(title="Ingest summary", show_header=False)
    table.add_row("documents", str(summary.documents))
    for outcome in ("CREATED", "REPLACED", "UNCHANGED"):
        table.add_row(f"  {outcome.lower()}", str(summary.outcomes[outcome]))
    table.add_row("chunks written", str(summary.chunks))
    table.add_row("skipped files", str(len(summary.skipped)))
    console.print(table)
    if summary.skipped:
        skipped = Table(title="Skipped", show_header=True)
        skipped.add_column("file")
        skipped.add_column("why")
        for path, reason in summary.skipped:
            skipped.add_row(path, reason)
        console.print(skipped)


@kb_cli.command("reembed")
def reembed(
    knowledge_base_ids: list[str] = typer.Argument(None, metavar="[KB_ID]...", help="Knowledge bases (kb_…)."),
    every: bool = typer.Option(False, "--all", help="Every knowledge base of every space."),
) -> None:
    """Embed the chunks that have no vector of the configured model (QUIVER_EMBEDDINGS).

    Run it after changing QUIVER_EMBEDDINGS or its model: searches ignore vectors of another
    model, so until then those chunks are found by their words only. Safe to interrupt and run
    again; chunks that already have a vector of the model are left alone.
    """
    if every == bool(knowledge_base_ids):
        Console().print("[red]error:[/red] name knowledge bases (KB_ID...) or pass --all, not both")
        raise typer.Exit(code=2)
    asyncio.run(_reembed(None if every else list(dict.fromkeys(knowledge_base_ids)), Console()))


async def _reembed(kb_ids: list[str] | None, console: Console) -> None:
    from app.db import create_engine, create_session_factory
    from app.knowledge import service
    from app.knowledge.embeddings import EmbeddingError, create_embedding_provider
    from app.knowledge.ingest import ReembedProgress, reembed
    from app.migrate import upgrade_async
    from app.principal import SYSTEM_PRINCIPAL

    settings = Settings()
    embedder = create_embedding_provider(settings)
    if embedder is None:
        console.print("[red]error:[/red] QUIVER_EMBEDDINGS is none: there is no model to embed with")
        raise typer.Exit(code=2)
    await upgrade_async(settings.database_url)
    engine = create_engine(settings.database_url)
    session_factory = create_session_factory(engine)
    try:
        for number, kb_id in enumerate(kb_ids or []):
            async with session_factory() as session:
                try:
                    await service.writable_knowledge_base(session, SYSTEM_PRINCIPAL, kb_id, ["KB_ID", str(number)])
                except DomainError as error:
                    console.print(f"[red]error:[/red] {error.message}")
                    raise typer.Exit(code=2) from None
        scope = "every knowledge base" if kb_ids is None else ", ".join(kb_ids)
        console.print(f"Embedding with {embedder.model_name}: {scope}")
        with Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        ) as progress:
            task = progress.add_task("chunks", total=None)

            def report(state: ReembedProgress) -> None:
                progress.update(task, total=max(state.pending, state.done), completed=state.done)

            try:
                done = await reembed(session_factory, embedder, kb_ids, on_progress=report)
            except EmbeddingError as error:
                console.print(f"[red]error:[/red] {error}")
                raise typer.Exit(code=1) from None
        console.print(f"chunks embedded: {done.done}")
    finally:
        close = getattr(embedder, "close", None)
        if close is not None:
            await close()
        await engine.dispose()


if __name__ == "__main__":
    kb_cli()
