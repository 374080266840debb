"""The console's HTTP routes: the redirect, the app under /console, its assets, GraphiQL's page."""

from __future__ import annotations

import gzip
import json

import httpx
import pytest

from app.console.routes import DIST

ASSETS: list[str] = sorted(json.loads((DIST / "build.json").read_text())["files"])


def asset_named(prefix: str, suffix: str) -> str:
    return next(name for name in ASSETS if name.startswith(f"assets/{prefix}") and name.endswith(suffix))


class TestPages:
    async def test_root_redirects_to_the_console(self, http: httpx.AsyncClient) -> None:
        response = await http.get("/")

        assert response.status_code == 307
        assert response.headers["location"] == "/console/"

    @pytest.mark.parametrize("path", ["/console", "/console/", "/console/tools", "/console/tools/ct_x/edit"])
    async def test_every_console_path_is_the_app_without_a_key(self, http: httpx.AsyncClient, path: str) -> None:
        response = await http.get(path)

        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")
        assert response.text == (DIST / "index.html").read_text()
        assert response.headers["cache-control"] == "no-cache"
        assert "default-src 'self'" in response.headers["content-security-policy"]

    async def test_graphiql_is_quivers_own_build(self, http: httpx.AsyncClient) -> None:
        response = await http.get("/graphql", headers={"Accept": "text/html"})

        assert response.status_code == 200
        assert response.text == (DIST / "graphiql.html").read_text()
        assert "unpkg" not in response.text and "cdn" not in response.text.lower()
        assert "script-src 'self'" in response.headers["content-security-policy"]

    async def test_api_still_needs_a_key(self, http: httpx.AsyncClient) -> None:
        response = await http.post("/graphql", json={"query": "{ viewer { role } }"})

        assert response.status_code == 401


class TestAssets:
    async def test_an_asset_is_cached_for_good_and_gzipped_when_accepted(self, http: httpx.AsyncClient) -> None:
        name = asset_named("console-", ".js")
        raw = (DIST / name).read_bytes()

        response = await http.get(f"/console/{name}", headers={"Accept-Encoding": "gzip"})

        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/javascript")
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert response.headers["content-encoding"] == "gzip"
        assert response.content == raw  # httpx decoded it
        assert int(response.headers["content-length"]) == len(gzip.compress(raw, compresslevel=9, mtime=0))

    async def test_without_gzip_the_bytes_are_sent_as_they_are(self, http: httpx.AsyncClient) -> None:
        name = asset_named("console-", ".css")

        response = await http.get(f"/console/{name}", headers={"Accept-Encoding": "identity"})

        assert response.headers["content-type"].startswith("text/css")
        assert "content-encoding" not in response.headers
        assert response.content == (DIST / name).read_bytes()

    @pytest.mark.parametrize(
        "path",
        [
            "/console/assets/missing.js",
            "/console/assets/..%2F..%2Froutes.py",
            "/console/assets/%2E%2E%2Fbuild.json",
            "/console/assets/",
        ],
    )
    async def test_anything_but_a_built_asset_is_404(self, http: httpx.AsyncClient, path: str) -> None:
        response = await http.get(path)

        assert response.status_code == 404
