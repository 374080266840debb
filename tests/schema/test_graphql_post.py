"""``POST /graphql`` takes a shorter way than FastAPI's router (app.main.QuiverApp): the same
answers, the same checks, and an unexpected failure is still a 500, not a dropped connection."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.main import GraphQLPost

QUERY = "query Me { viewer { role } }"


async def test_post_and_get_give_the_same_answer(http: httpx.AsyncClient, admin_key: str) -> None:
    headers = {"Authorization": f"Bearer {admin_key}"}

    posted = await http.post("/graphql", json={"query": QUERY}, headers=headers)
    got = await http.get("/graphql", params={"query": QUERY}, headers=headers)

    assert posted.status_code == got.status_code == 200
    assert posted.headers["content-type"] == got.headers["content-type"] == "application/json"
    assert posted.json() == got.json() == {"data": {"viewer": {"role": "ADMIN"}}}


@pytest.mark.parametrize("key", [None, "qv_not-a-key"], ids=["missing", "unknown"])
async def test_post_without_a_valid_key_is_refused_before_the_body_is_read(
    http: httpx.AsyncClient, key: str | None
) -> None:
    headers = {"Authorization": f"Bearer {key}"} if key else {}

    response = await http.post("/graphql", content=b"{not json", headers=headers)

    assert response.status_code == 401
    assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


async def test_an_unexpected_failure_is_a_graphql_shaped_500(
    app_and_services: Any, admin_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*_: Any) -> Any:
        raise RuntimeError("the context could not be built")

    monkeypatch.setattr(GraphQLPost, "get_context", broken)
    transport = httpx.ASGITransport(app=app_and_services, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://quiver.test") as client:
        response = await client.post(
            "/graphql", json={"query": QUERY}, headers={"Authorization": f"Bearer {admin_key}"}
        )

    assert response.status_code == 500
    body = response.json()
    assert body["data"] is None
    assert body["errors"][0]["extensions"]["code"] == "INTERNAL"
    assert "context" not in response.text  # nothing of the exception is echoed
