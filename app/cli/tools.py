"""``quiver tools import-openapi FILE --space ID``: an OpenAPI document becomes CUSTOM tools.

Acts on the configured database directly, as an ADMIN (like ``quiver skills import``),
with the same rules as the ``importOpenApi`` mutation; the servers sharing its
``QUIVER_REDIS_URL`` hear of the new tools at once. Register with
``cli.add_typer(tools_cli, name="tools")`` in ``app/cli/__init__.py``.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from app.config import Settings
from app.principal import Principal, Role

if TYPE_CHECKING:
    from app.tools.openapi_import import OpenApiImport

tools_cli = typer.Typer(help="Manage tools.", no_args_is_help=True)

CLI_PRINCIPAL = Principal(key_id="cli", role=Role.ADMIN, space_id=None)
PHASES = {"validate": "validating", "read": "reading operations", "store": "storing tools", "done": "done"}


async def _import(settings: Settings, data: OpenApiImport) -> int:
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

    from app.catalog.loader import load_builtin_catalog
    from app.changes import announced_changes
    from app.crypto import load_secret_box
    from app.db import create_engine, create_session_factory
    from app.egress import EgressPolicy
    from app.errors import DomainError
    from app.migrate import upgrade_async
    from app.tools.openapi_import import SpecRejectedError, import_openapi

    console, errors = Console(), Console(stderr=True)
    await upgrade_async(settings.database_url)
    engine = create_engine(settings.database_url)
    try:
        session_factory = create_session_factory(engine)
        async with session_factory() as session, session.begin():
            await load_builtin_catalog(session)
        with Progress(
            SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), transient=True
        ) as bar:
            task = bar.add_task("reading", total=None)

            def progress(phase: str, done: int, total: int | None) -> None:
                bar.update(task, description=PHASES.get(phase, phase), completed=done, total=total)

            async with announced_changes(settings.redis_url), session_factory() as session, session.begin():
                report = await import_openapi(
                    session,
                    CLI_PRINCIPAL,
                    data,
                    load_secret_box(settings),
                    EgressPolicy(settings.egress_hosts),
                    progress,
                )
    except SpecRejectedError as rejected:
        for error in rejected.errors:
            field = error.field or []
            where = "/".join(field[2:] if field[:2] == ["input", "spec"] else field)
            errors.print(f"[red]error:[/red] {escape(where or '(document)')}: {escape(error.message)}", highlight=False)
        return 1
    except DomainError as error:
        errors.print(f"[red]error:[/red] {escape(error.message)}", highlight=False)
        return 1
    finally:
        await engine.dispose()
    console.print(f"imported {report.source}: {report.summary()}", highlight=False, markup=False)
    for outcome in ("created", "updated", "disabled"):
        for item in getattr(report, outcome):
            operation = item.operation
            named = f" {operation.operation_id}" if operation.operation_id else ""
            where = f"{operation.method.upper()} {operation.path}{named}"
            console.print(
                f"  {outcome:<9} {item.tool.tool_id} {item.tool.name}  ({where})",
                highlight=False,
                markup=False,
            )
    for skip in report.skipped:
        operation = skip.operation
        console.print(
            f"  skipped   {operation.method.upper()} {operation.path}: {skip.reason}", highlight=False, markup=False
        )
    return 0


@tools_cli.command("import-openapi")
def import_openapi_command(
    file: Path = typer.Argument(..., metavar="FILE", help="An OpenAPI 3.0 or 3.1 document, JSON or YAML."),
    space: str = typer.Option(..., "--space", help="The space the tools belong and are bound to (sp_…)."),
    base_url: str | None = typer.Option(None, "--base-url", help="Where the API is served (overrides servers[0])."),
    include: str | None = typer.Option(
        None, "--include", help="Comma-separated operationIds or tags to import; default: every operation."
    ),
) -> None:
    """Turn a document's operations into CUSTOM tools of a space; again, to update them."""
    from app.tools.openapi import MAX_SPEC_BYTES
    from app.tools.openapi_import import OpenApiImport

    try:
        if file.stat().st_size > MAX_SPEC_BYTES:
            raise typer.BadParameter(f"{file} is larger than {MAX_SPEC_BYTES // 1024} KiB")
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise typer.BadParameter(f"cannot read {file}: {error}") from None
    data = OpenApiImport(
        space_id=space,
        spec=text,
        base_url=base_url,
        include=[item.strip() for item in include.split(",") if item.strip()] if include else None,
    )
    from app.logging import configure_logging

    settings = Settings()
    configure_logging(settings.log_level)
    # The migration's INFO lines (alembic's plugins, each revision) would break up the progress bar.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    raise typer.Exit(code=asyncio.run(_import(settings, data)))
