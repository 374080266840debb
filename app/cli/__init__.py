"""The ``quiver`` command line."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import typer

from app.changes import watch_catalog_commits
from app.cli.knowledge import kb_cli
from app.cli.skills import skills_cli
from app.cli.tools import tools_cli
from app.config import Settings
from app.principal import Role
from app.reports.cli import report

cli = typer.Typer(help="Quiver: a capability catalog and runtime for AI agents.", no_args_is_help=True)


@cli.callback()
def _every_command() -> None:
    # Commands that write the catalog announce their commits to the servers (announced_changes).
    watch_catalog_commits()


apikey_cli = typer.Typer(help="Manage API keys.", no_args_is_help=True)
cli.add_typer(apikey_cli, name="apikey")
cli.add_typer(kb_cli, name="kb")
cli.add_typer(skills_cli, name="skills")
cli.add_typer(tools_cli, name="tools")
cli.command("report")(report)

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schema" / "schema.graphql"


def _configure_logging(settings: Settings) -> None:
    from app.logging import configure_logging

    configure_logging(settings.log_level)


MAX_WORKERS = 64
#: Longest Unix socket path Linux takes (sun_path is 108 bytes, NUL included; macOS: 104).
MAX_SOCKET_PATH_BYTES = 100
#: How long a busy worker may take to answer its supervisor's health check before it is replaced.
WORKER_HEALTHCHECK_TIMEOUT_S = 30


@cli.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, min=1, max=65535, help="Port to listen on."),
    workers: int = typer.Option(
        1,
        min=1,
        max=MAX_WORKERS,
        help="Worker processes sharing the port; events reach every worker (over Redis, else a local broker).",
    ),
) -> None:
    """Migrate the database, load the builtin catalog and serve GraphQL at /graphql."""
    import uvicorn

    settings = Settings()
    _configure_logging(settings)
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_level": settings.log_level.lower(),
        "log_config": None,
        # permessage-deflate more than doubles the CPU cost of fanning events out to subscribers.
        "ws_per_message_deflate": False,
        # Larger WebSocket frames are refused by the server before they are buffered whole.
        "ws_max_size": settings.max_request_bytes,
    }
    if settings.fair_loop:
        options["loop"] = "app.scheduling:new_event_loop"
    banner = f"Quiver on http://{host}:{port}/graphql (GraphiQL in a browser), database {settings.database_url}"
    if workers == 1:
        from app.main import create_app

        app = create_app(settings, prepare=True)
        typer.echo(banner)
        uvicorn.run(app, **options)
        return
    _serve_workers(settings, workers, banner, options)


def _serve_workers(settings: Settings, workers: int, banner: str, options: dict[str, Any]) -> None:
    """The supervisor: prepares the database once, runs the event broker when there is no Redis,
    and lets uvicorn start the workers on one shared socket (and replace any that dies)."""
    import uvicorn

    from app.events.local_broker import LocalBroker
    from app.main import prepare_once

    broker: LocalBroker | None = None
    if not settings.redis_url:
        # A directory only this user may enter: whoever reaches the socket could publish events.
        socket_path = Path(tempfile.mkdtemp(prefix="quiver-events-")) / "events.sock"
        if len(os.fsencode(socket_path)) > MAX_SOCKET_PATH_BYTES:
            shutil.rmtree(socket_path.parent, ignore_errors=True)
            typer.echo(
                f"error: the event broker's socket path {socket_path} is too long for a Unix socket; "
                "set TMPDIR to a shorter directory, or QUIVER_REDIS_URL",
                err=True,
            )
            raise typer.Exit(code=2)
        broker = LocalBroker(socket_path)
        broker.start_thread()
        os.environ["QUIVER_EVENT_BROKER_URL"] = broker.url
    events = "Redis" if settings.redis_url else "the supervisor's event broker"
    try:
        asyncio.run(prepare_once(settings))
        typer.echo(f"{banner}, {workers} workers, events over {events}")
        uvicorn.run(
            "app.main:create_worker_app",
            factory=True,
            workers=workers,
            timeout_worker_healthcheck=WORKER_HEALTHCHECK_TIMEOUT_S,
            **options,
        )
    finally:
        if broker is not None:
            broker.stop_thread()
            shutil.rmtree(broker.path.parent, ignore_errors=True)


@cli.command()
def migrate() -> None:
    """Migrate the database to the latest revision."""
    from app.migrate import upgrade

    settings = Settings()
    upgrade(settings.database_url)
    typer.echo("database is at the latest revision")


EXPIRY_DURATION = re.compile(r"^(\d{1,6})([mhdw])$")
EXPIRY_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_expiry(text: str, now: datetime) -> datetime:
    """``--expires``: a duration from now (90m, 12h, 30d, 8w) or an ISO 8601 date or moment (UTC unless given)."""
    duration = EXPIRY_DURATION.match(text.strip())
    if duration:
        return now + timedelta(**{EXPIRY_UNITS[duration.group(2)]: int(duration.group(1))})
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise typer.BadParameter(
            f"{text!r} is neither a duration (90m, 12h, 30d, 8w) nor an ISO 8601 date or moment"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@apikey_cli.command("create")
def apikey_create(
    admin: bool = typer.Option(False, "--admin", help="An ADMIN key, reaching every space."),
    space: str | None = typer.Option(None, "--space", help="The space of a non-admin key (sp_…)."),
    role: Role | None = typer.Option(None, "--role", help="SPACE_ADMIN, MEMBER or VIEWER."),
    label: str | None = typer.Option(None, "--label", help="A note to recognise the key by."),
    expires: str | None = typer.Option(
        None, "--expires", help="When it stops working: 90m, 12h, 30d, 8w from now, or an ISO 8601 date (UTC)."
    ),
) -> None:
    """Create an API key and print it once, alone on the last line."""
    if admin == (space is not None):
        raise typer.BadParameter("give either --admin, or --space with --role")
    if admin and role not in (None, Role.ADMIN):
        raise typer.BadParameter(f"--admin makes an ADMIN key; for a {role.name} key give --space with --role")
    if not admin and (role is None or role is Role.ADMIN):
        raise typer.BadParameter("--space needs --role SPACE_ADMIN, MEMBER or VIEWER")
    expires_at = parse_expiry(expires, datetime.now(UTC)) if expires is not None else None
    raw = asyncio.run(_create_key(Role.ADMIN if admin else role, space, label, expires_at))  # type: ignore[arg-type]
    typer.echo("API key created; it is shown only now:")
    typer.echo(raw)


@apikey_cli.command("list")
def apikey_list(
    space: str | None = typer.Option(None, "--space", help="Only this space's keys (sp_…)."),
    state: str | None = typer.Option(None, "--state", help="Only ACTIVE, EXPIRED or REVOKED keys."),
) -> None:
    """List API keys (never their secrets): id, role, space, state, label, expiry, last use."""
    if state is not None and state.upper() not in ("ACTIVE", "EXPIRED", "REVOKED"):
        raise typer.BadParameter("--state is ACTIVE, EXPIRED or REVOKED")
    asyncio.run(_list_keys(space, state.upper() if state else None))


@apikey_cli.command("revoke")
def apikey_revoke(
    key_id: str = typer.Argument(..., help="The key's id (key_…), as `quiver apikey list` shows it."),
) -> None:
    """Revoke an API key; servers sharing QUIVER_REDIS_URL refuse it at once."""
    asyncio.run(_revoke_key(key_id))


async def _list_keys(space_id: str | None, state: str | None) -> None:
    from rich.console import Console
    from rich.table import Table

    from app.db import create_engine, create_session_factory, utcnow
    from app.migrate import upgrade_async
    from app.pagination import PageRequest
    from app.principal import SYSTEM_PRINCIPAL
    from app.spaces import service

    settings = Settings()
    await upgrade_async(settings.database_url)
    engine = create_engine(settings.database_url)
    table = Table("id", "role", "space", "state", "label", "created", "expires", "last used", box=None)
    count = 0
    try:
        async with create_session_factory(engine)() as session:
            after: str | None = None
            now = utcnow()
            while True:
                found = await service.list_api_keys(
                    session, SYSTEM_PRINCIPAL, space_id, state, PageRequest(first=500, after=after)
                )
                assert found is not None  # the platform itself sees every key
                page, _ = found
                for key in page.items:
                    count += 1
                    table.add_row(
                        key.id,
                        key.role,
                        key.space_id or "-",
                        service.key_state(key, now),
                        key.label or "",
                        _moment(key.created_at),
                        _moment(key.expires_at),
                        _moment(key.last_used_at),
                    )
                if not page.has_next_page:
                    break
                after = page.items[-1].id
    finally:
        await engine.dispose()
    console = Console(width=200)
    console.print(table, markup=False, highlight=False)
    console.print(f"{count} key(s)", highlight=False)


def _moment(moment: datetime | None) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if moment else "-"


async def _revoke_key(key_id: str) -> None:
    from app.changes import announced_changes
    from app.db import create_engine, create_session_factory
    from app.errors import DomainError
    from app.migrate import upgrade_async
    from app.principal import SYSTEM_PRINCIPAL
    from app.spaces import service

    settings = Settings()
    await upgrade_async(settings.database_url)
    engine = create_engine(settings.database_url)
    try:
        async with announced_changes(settings.redis_url):
            try:
                async with create_session_factory(engine)() as session, session.begin():
                    key = await service.revoke_api_key(session, SYSTEM_PRINCIPAL, key_id, settings.admin_token)
                    revoked_at = key.revoked_at
            except DomainError as error:
                typer.echo(f"error: {error.message}", err=True)
                raise typer.Exit(code=2) from None
    finally:
        await engine.dispose()
    typer.echo(f"revoked {key_id} at {_moment(revoked_at)} UTC")


async def _create_key(role: Role, space_id: str | None, label: str | None, expires_at: datetime | None) -> str:
    from app.catalog.loader import load_builtin_catalog
    from app.changes import announced_changes
    from app.db import create_engine, create_session_factory
    from app.errors import DomainError
    from app.migrate import upgrade_async
    from app.spaces import service

    settings = Settings()
    await upgrade_async(settings.database_url)
    engine = create_engine(settings.database_url)
    try:
        async with (
            announced_changes(settings.redis_url),
            create_session_factory(engine)() as session,
            session.begin(),
        ):
            await load_builtin_catalog(session)
            try:
                _, raw = await service.create_api_key(
                    session, role=role, space_id=space_id, label=label, expires_at=expires_at
                )
            except DomainError as error:
                typer.echo(f"error: {error.message}", err=True)
                raise typer.Exit(code=2) from None
    finally:
        await engine.dispose()
    return raw


@cli.command("export-schema")
def export_schema(
    output: Path = typer.Option(SCHEMA_PATH, help="Where to write the SDL."),
) -> None:
    """Write the GraphQL schema (SDL) to schema/schema.graphql."""
    from app.main import schema_sdl

    output.write_text(schema_sdl(), encoding="utf-8")
    typer.echo(f"wrote {output}")


mcp_cli = typer.Typer(help="Manage MCP servers.", no_args_is_help=True)
cli.add_typer(mcp_cli, name="mcp")


@mcp_cli.command("sync")
def mcp_sync(
    server_id: str = typer.Argument(..., help="The MCP server's id (mcp_…)."),
    drift: str | None = typer.Option(None, "--drift", help="flag or disable; defaults to QUIVER_MCP_DRIFT."),
) -> None:
    """Discover the server's tools (tools/list, every page) and upsert them."""
    settings = Settings()
    _configure_logging(settings)
    policy = drift or settings.mcp_drift
    if policy not in ("flag", "disable"):
        raise typer.BadParameter("--drift is flag or disable")
    asyncio.run(_mcp_sync(settings, server_id, policy))


async def _mcp_sync(settings: Settings, server_id: str, drift_policy: str) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

    from app.changes import announced_changes
    from app.crypto import load_secret_box
    from app.db import create_engine, create_session_factory
    from app.egress import EgressPolicy
    from app.errors import DomainError
    from app.mcp.pool import McpSessionPool
    from app.mcp.sync import sync_server

    console = Console()
    engine = create_engine(settings.database_url)
    pool = McpSessionPool(load_secret_box(settings), EgressPolicy(settings.egress_hosts))
    labels = {"connect": "connecting", "list": "listing tools (pages)", "apply": "storing tools", "done": "done"}
    try:
        async with announced_changes(settings.redis_url):
            with Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                console=console,
                transient=True,
            ) as bar:
                task = bar.add_task("connecting", total=None)

                def progress(phase: str, done: int, total: int | None) -> None:
                    bar.update(task, description=labels.get(phase, phase), completed=done, total=total)

                report = await sync_server(
                    create_session_factory(engine), pool, server_id, drift_policy=drift_policy, progress=progress
                )
    except DomainError as error:
        Console(stderr=True).print(f"[red]error:[/red] {escape(error.message)}", highlight=False, soft_wrap=True)
        raise typer.Exit(code=1) from None
    finally:
        await pool.close()
        await engine.dispose()
    console.print(f"synced {server_id}: {report.pages} page(s), {report.summary()}", highlight=False, soft_wrap=True)
    for outcome in ("added", "updated", "vanished", "disabled", "drifted", "reactivated", "skipped"):
        for item in getattr(report, outcome):
            console.print(f"  {outcome:<11} {item}", highlight=False, soft_wrap=True, markup=False)


def main() -> None:
    """The ``quiver`` command. A setting that does not parse is a clear message and exit code 2,
    not a traceback (the value itself is not echoed: it may be a secret or hold a password)."""
    from pydantic import ValidationError
    from rich.console import Console
    from rich.markup import escape
    from sqlalchemy.exc import ArgumentError

    from app.crypto import SecretKeyError

    problems: list[str] = []
    try:
        cli()
    except ValidationError as error:
        if error.title != Settings.__name__:  # not a setting: a fault to report as one
            raise
        for item in error.errors():
            name = "QUIVER_" + "_".join(str(part) for part in item["loc"]).upper()
            problems.append(f"{name}: {item['msg']}")
    except ArgumentError as error:
        if "URL" not in str(error):  # only create_engine's "Could not parse SQLAlchemy URL …"
            raise
        problems.append("QUIVER_DATABASE_URL: not a database URL (e.g. sqlite+aiosqlite:///./quiver.db)")
    except SecretKeyError as error:  # missing on PostgreSQL, or not a Fernet key: was a traceback
        problems.append(str(error))
    if problems:
        error_console = Console(stderr=True)
        for problem in problems:
            error_console.print(f"[red]error:[/red] {escape(problem)}", highlight=False, soft_wrap=True)
        raise SystemExit(2)
