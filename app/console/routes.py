"""HTTP routes of the console: ``/`` → ``/console/``, the single-page app, its assets, GraphiQL's page.

The pages carry no data and need no key: the app asks for one and talks to ``/graphql`` like
any other client. Assets have content-hashed names, so they are cached for a year and
compressed once, on first request, when the browser accepts gzip.
"""

from __future__ import annotations

import gzip
import mimetypes
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.requests import Request

DIST = Path(__file__).resolve().parent / "dist"
CONSOLE_PATH = "/console"
ASSETS_PATH = f"{CONSOLE_PATH}/assets"
IMMUTABLE = "public, max-age=31536000, immutable"
# The HTML names the current assets: always revalidated, so a new build is picked up at once.
REVALIDATE = "no-cache"
# Below this, gzip saves less than the header costs.
MIN_GZIP_BYTES = 1024
NOT_BUILT = "The console was not built: run `node console/build.mjs` (needs `npm ci`)."
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # Everything comes from this origin; WebSockets go back to it; GraphiQL's styles need inline style attributes.
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "font-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'"
    ),
}


@dataclass
class _Asset:
    body: bytes
    media_type: str
    gzipped: bytes | None = None


@dataclass
class ConsoleFiles:
    """The built files, read once. Asset names are checked against the build's own listing,
    so no request path ever reaches the filesystem."""

    directory: Path = DIST
    _assets: dict[str, _Asset] = field(default_factory=dict)
    _pages: dict[str, str] = field(default_factory=dict)

    def page(self, name: str) -> str | None:
        if name not in self._pages:
            path = self.directory / name
            if not path.is_file():
                return None
            self._pages[name] = path.read_text(encoding="utf-8")
        return self._pages[name]

    def asset(self, name: str) -> _Asset | None:
        if name not in self._assets:
            listed = {path.name for path in (self.directory / "assets").glob("*") if path.is_file()}
            if name not in listed:
                return None
            media_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
            if name.endswith(".js"):
                media_type = "text/javascript"
            self._assets[name] = _Asset(body=(self.directory / "assets" / name).read_bytes(), media_type=media_type)
        return self._assets[name]

    def graphiql_html(self) -> str:
        return self.page("graphiql.html") or f"<!doctype html><title>Quiver GraphiQL</title><p>{NOT_BUILT}</p>"


def _accepts_gzip(request: Request) -> bool:
    return "gzip" in request.headers.get("accept-encoding", "").lower()


def install(app: FastAPI, files: ConsoleFiles) -> None:
    """Adds the console's routes to ``app``."""

    @app.get("/", include_in_schema=False)
    async def home() -> RedirectResponse:
        return RedirectResponse(f"{CONSOLE_PATH}/", status_code=307)

    @app.get(f"{ASSETS_PATH}/{{name}}", include_in_schema=False)
    async def asset(name: str, request: Request) -> Response:
        found = files.asset(name)
        if found is None:
            return PlainTextResponse("Not found.", status_code=404)
        headers = {"Cache-Control": IMMUTABLE, "Vary": "Accept-Encoding", "X-Content-Type-Options": "nosniff"}
        if _accepts_gzip(request) and len(found.body) >= MIN_GZIP_BYTES:
            if found.gzipped is None:
                found.gzipped = gzip.compress(found.body, compresslevel=9, mtime=0)
            headers["Content-Encoding"] = "gzip"
            return Response(found.gzipped, media_type=found.media_type, headers=headers)
        return Response(found.body, media_type=found.media_type, headers=headers)

    async def page(request: Request) -> Response:
        if request.url.path.startswith(f"{ASSETS_PATH}/"):
            # An asset that is not in the build (the asset route took every real one).
            return PlainTextResponse("Not found.", status_code=404)
        html = files.page("index.html")
        if html is None:
            return PlainTextResponse(NOT_BUILT, status_code=503)
        return HTMLResponse(html, headers={"Cache-Control": REVALIDATE, **SECURITY_HEADERS})

    # Every path below /console is the app: it routes in the browser (History API).
    app.add_api_route(CONSOLE_PATH, page, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{CONSOLE_PATH}/{{path:path}}", page, methods=["GET"], include_in_schema=False)


def graphiql_response(files: ConsoleFiles) -> HTMLResponse:
    return HTMLResponse(files.graphiql_html(), headers={"Cache-Control": REVALIDATE, **SECURITY_HEADERS})
