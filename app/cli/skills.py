"""``quiver skills import PATH…`` and ``quiver skills export ID DIR``: SKILL.md folders on disk.

Both act on the configured database directly, as an ADMIN (like ``quiver apikey``):
channel history records the actor ``cli``. Register with
``cli.add_typer(skills_cli, name="skills")`` in ``app/cli/__init__.py``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from app.config import Settings
from app.principal import Principal, Role
from app.skills.skill_md import FILE_NAME

skills_cli = typer.Typer(help="Import and export skills as Agent Skills folders (SKILL.md).", no_args_is_help=True)

CLI_PRINCIPAL = Principal(key_id="cli", role=Role.ADMIN, space_id=None)


@dataclass(frozen=True)
class Outcome:
    path: Path
    ok: bool
    message: str


def skill_files(paths: list[Path]) -> list[Path]:
    """Each path as SKILL.md files: a file itself, a skill folder, or a folder of skill folders."""
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
        elif (path / FILE_NAME).is_file():
            found.append(path / FILE_NAME)
        elif path.is_dir():
            found.extend(sorted(child / FILE_NAME for child in path.iterdir() if (child / FILE_NAME).is_file()))
        else:
            raise typer.BadParameter(f"{path} is neither a SKILL.md file nor a folder holding skills")
    return found


def _folder_mismatch(path: Path, text: str) -> str | None:
    """The format wants ``name`` to equal the skill's folder name."""
    from app.skills.skill_md import parse_skill_md

    if path.name != FILE_NAME:
        return None
    name = parse_skill_md(text).name
    if name != path.parent.name:
        return f"name {name!r} must match its folder {path.parent.name!r}"
    return None


async def _import(
    files: list[Path], space_id: str | None, replace_existing: bool, show_progress: bool
) -> list[Outcome]:
    from app.catalog.loader import load_builtin_catalog
    from app.db import create_engine, create_session_factory
    from app.errors import DomainError
    from app.migrate import upgrade_async
    from app.skills import service

    settings = Settings()
    await upgrade_async(settings.database_url)
    engine = create_engine(settings.database_url)
    outcomes: list[Outcome] = []
    try:
        session_factory = create_session_factory(engine)
        async with session_factory() as session, session.begin():
            await load_builtin_catalog(session)
        with Progress(
            TextColumn("importing"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.description}"),
            disable=not show_progress,
            transient=True,
        ) as progress:
            task = progress.add_task("", total=len(files))
            for path in files:
                progress.update(task, description=str(path))
                try:
                    text = path.read_text(encoding="utf-8")
                    mismatch = _folder_mismatch(path, text)
                    if mismatch is not None:
                        raise DomainError("INVALID_NAME", mismatch)
                    async with session_factory() as session, session.begin():
                        skill, created = await service.import_skill(
                            session,
                            CLI_PRINCIPAL,
                            space_id,
                            text,
                            settings.skill_prompt_max_chars,
                            replace_existing=replace_existing,
                        )
                    verb = "created" if created else "updated"
                    outcomes.append(Outcome(path, True, f"{verb} {skill.skill_id} {skill.name}@{skill.version}"))
                except DomainError as error:
                    # The service names the GraphQL input field; a CLI user passes --replace.
                    message = error.message.replace("set replaceExisting to update it", "pass --replace to update it")
                    outcomes.append(Outcome(path, False, f"{error.code}: {message}"))
                except (OSError, UnicodeDecodeError) as error:
                    outcomes.append(Outcome(path, False, f"unreadable: {error}"))
                progress.advance(task)
    finally:
        await engine.dispose()
    return outcomes


@skills_cli.command("import")
def import_command(
    paths: list[Path] = typer.Argument(..., help="SKILL.md files, skill folders, or folders of skill folders."),
    space: str | None = typer.Option(None, "--space", help="Import into this space (sp_…); default: global."),
    replace: bool = typer.Option(False, "--replace", help="Update skills that already exist under the same name."),
) -> None:
    """Import skills from Agent Skills folders; one line per file, exit 1 if any failed."""
    files = skill_files(paths)
    if not files:
        raise typer.BadParameter("no SKILL.md found")
    outcomes = asyncio.run(_import(files, space, replace, show_progress=len(files) > 1))
    for outcome in outcomes:
        typer.echo(f"{'ok' if outcome.ok else 'error'}  {outcome.path}: {outcome.message}", err=not outcome.ok)
    failed = sum(1 for outcome in outcomes if not outcome.ok)
    typer.echo(f"{len(outcomes) - failed} imported, {failed} failed")
    if failed:
        raise typer.Exit(code=1)


async def _export(skill_id: str, folder: Path, version: str | None) -> Path:
    from app.catalog.loader import load_builtin_catalog
    from app.db import create_engine, create_session_factory
    from app.migrate import upgrade_async
    from app.skills import repository, service

    settings = Settings()
    await upgrade_async(settings.database_url)
    engine = create_engine(settings.database_url)
    try:
        async with create_session_factory(engine)() as session, session.begin():
            await load_builtin_catalog(session)
            skill = await repository.get_skill(session, skill_id)
            if skill is None:
                raise typer.BadParameter(f"no skill {skill_id!r}")
            row = None
            if version is not None:
                row = await repository.get_version(session, skill_id, version)
                if row is None:
                    raise typer.BadParameter(f"skill {skill_id!r} has no version {version!r}")
            text = service.export_skill_md(skill, row)
            name = skill.name
    finally:
        await engine.dispose()
    target = folder / name / FILE_NAME
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as error:  # not writable, not a folder, disk full...
        raise typer.BadParameter(f"cannot write {target}: {error.strerror or error}") from None
    return target


@skills_cli.command("export")
def export_command(
    skill_id: str = typer.Argument(..., metavar="ID", help="The skill's id (sk_… or sku_…)."),
    folder: Path = typer.Argument(..., metavar="DIR", help="Where to write <name>/SKILL.md."),
    version: str | None = typer.Option(None, "--version", help="Export this version instead of PRODUCTION."),
) -> None:
    """Write a skill as DIR/<name>/SKILL.md (Agent Skills format)."""
    target = asyncio.run(_export(skill_id, folder, version))
    typer.echo(f"wrote {target}")
