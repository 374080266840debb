"""Comparing the GraphQL hot path (schema/gateway/hot_path.py) with the generic path: one
request posted both ways, and answers compared but for what differs per call."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

import httpx
import pytest

from schema.gateway.hot_path import HotPathApp


class BothPaths:
    """Posts one request twice: answered by the plan, then with plans refused (the generic path)."""

    def __init__(self, http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> None:
        self.http = http
        self.monkeypatch = monkeypatch

    async def post(self, body: Any, key: str) -> tuple[httpx.Response, httpx.Response]:
        content = json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        hot = await self.http.post("/graphql", content=content, headers=headers)
        with self.monkeypatch.context() as patch:
            patch.setattr(HotPathApp, "_planned", lambda *_: None)
            generic = await self.http.post("/graphql", content=content, headers=headers)
        return hot, generic


def normalised(value: Any, varying: Collection[str]) -> Any:
    """``value`` with the values of the keys in ``varying`` (ids, times) replaced, at any depth."""
    if isinstance(value, dict):
        return {key: ("<varies>" if key in varying else normalised(item, varying)) for key, item in value.items()}
    if isinstance(value, list):
        return [normalised(item, varying) for item in value]
    return value


def same_answer(hot: httpx.Response, generic: httpx.Response, varying: Collection[str]) -> dict[str, Any]:
    """The two answers, equal (in the same key order, as serialized) but for ``varying``; the hot one."""
    assert hot.status_code == generic.status_code
    assert hot.headers["content-type"] == generic.headers["content-type"]
    assert hot.headers["content-length"] == str(len(hot.content))
    answers = [normalised(response.json(), varying) for response in (hot, generic)]
    assert answers[0] == answers[1]
    assert json.dumps(answers[0]) == json.dumps(answers[1])
    result: dict[str, Any] = hot.json()
    return result
