"""A bounded GraphQL fuzz (schemathesis) against a real `quiver serve`, with a key of each role.

Schemathesis reads the schema by introspection and generates valid queries and mutations
for every root field (random ids, strings, numbers, nested inputs and selections). Each
case is sent with an ADMIN, SPACE_ADMIN, MEMBER and VIEWER key. Any 5xx, and any
INTERNAL_ERROR or "internal error" anywhere in an answer, is a defect: bad input must come
back as a client error or a userError, never as a fault of the server.

Bounded: a few examples per operation within a time budget (FUZZ_BUDGET_S); the
operations are visited round-robin so that each gets its share before any gets more.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import graphql
import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis.core.result import Ok

from schema.schema import build_schema
from tests.support.processes import REPOSITORY_ROOT, free_port, stop

ADMIN_TOKEN = "fuzz-admin-token"
QUIVER = Path(sys.executable).parent / "quiver"
# Seconds of fuzzing after the server is up; each operation gets at least one round.
FUZZ_BUDGET_S = float(os.environ.get("QUIVER_FUZZ_BUDGET_S", "45"))
EXAMPLES_PER_ROUND = 2
READY_TIMEOUT_S = 60.0
ROLES = ("ADMIN", "SPACE_ADMIN", "MEMBER", "VIEWER")


@dataclass
class Server:
    url: str
    keys: dict[str, str]


def _graphql(url: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    response = httpx.post(
        url,
        json={"query": query, "variables": variables or {}},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=30,
        trust_env=False,
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


def _wait_ready(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"quiver serve exited:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1, trust_env=False).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"quiver serve not ready in {READY_TIMEOUT_S}s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    directory = tmp_path_factory.mktemp("fuzz")
    port = free_port()
    log = directory / "serve.log"
    env = {name: value for name, value in os.environ.items() if not name.startswith("QUIVER_")}
    env.update(
        {
            "PYTHONPATH": str(REPOSITORY_ROOT),
            "QUIVER_DATABASE_URL": f"sqlite+aiosqlite:///{directory / 'quiver.db'}",
            "QUIVER_ADMIN_TOKEN": ADMIN_TOKEN,
            "QUIVER_LOG_LEVEL": "WARNING",
        }
    )
    process = subprocess.Popen(
        [str(QUIVER), "serve", "--port", str(port)],
        cwd=directory,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        _wait_ready(port, process, log)
        url = f"http://127.0.0.1:{port}/graphql"
        space = _graphql(
            url,
            """mutation { createSpace(input: {name: "fuzz", label: "Fuzz"}) { space { id } userErrors { code } } }""",
        )["createSpace"]["space"]["id"]
        keys = {"ADMIN": ADMIN_TOKEN}
        for role in ROLES[1:]:
            created = _graphql(
                url,
                "mutation Key($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }",
                {"input": {"role": role, "spaceId": space, "label": f"fuzz {role}"}},
            )
            keys[role] = created["createApiKey"]["secret"]
        yield Server(url=url, keys=keys)
    finally:
        stop(process)


def _ast(value: Any) -> graphql.ValueNode:
    """A JSON value as a GraphQL literal (the JSON scalar's input)."""
    if isinstance(value, dict):
        return graphql.ObjectValueNode(
            fields=tuple(
                graphql.ObjectFieldNode(name=graphql.NameNode(value=key), value=_ast(item))
                for key, item in value.items()
            )
        )
    if isinstance(value, list):
        return graphql.ListValueNode(values=tuple(_ast(item) for item in value))
    if value is None:
        return graphql.NullValueNode()
    if isinstance(value, bool):
        return graphql.BooleanValueNode(value=value)
    if isinstance(value, int):
        return graphql.IntValueNode(value=str(value))
    if isinstance(value, float):
        return graphql.FloatValueNode(value=repr(value))
    return graphql.StringValueNode(value=str(value))


NAMES = st.from_regex(r"\A[a-zA-Z_][a-zA-Z0-9_]{0,8}\Z")
SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20)
)
ANY_JSON = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(NAMES, inner, max_size=4), max_leaves=12
)
# Argument schemas too, so createTool and updateTool get past the first check now and then.
JSON_SCHEMAS = st.fixed_dictionaries(
    {
        "type": st.just("object"),
        "properties": st.dictionaries(
            NAMES,
            st.fixed_dictionaries(
                {"type": st.sampled_from(["string", "integer", "number", "boolean", "object", "array"])},
                optional={"pattern": st.text(max_size=8), "maxLength": st.integers(), "enum": st.lists(SCALARS)},
            ),
            max_size=3,
        ),
    },
    optional={"required": st.lists(NAMES, max_size=2)},
)
schemathesis.graphql.scalar("JSON", (ANY_JSON | JSON_SCHEMAS).map(_ast))


def server_faults(response: requests.Response) -> list[str]:
    """What in an answer says the server failed (not the request)."""
    faults = []
    if response.status_code >= 500:
        faults.append(f"HTTP {response.status_code}")
    text = response.text
    if "INTERNAL_ERROR" in text or "internal error" in text.lower():
        faults.append("INTERNAL_ERROR in the answer")
    return faults


def test_fuzzed_queries_and_mutations_never_fault_the_server(server: Server) -> None:
    schema = schemathesis.graphql.from_url(server.url, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    operations = [result.ok() for result in schema.get_all_operations() if isinstance(result, Ok)]
    served = build_schema()._schema
    assert served.query_type is not None and served.mutation_type is not None
    assert len(operations) == len(served.query_type.fields) + len(served.mutation_type.fields)
    session = requests.Session()
    session.trust_env = False
    findings: list[str] = []
    sent: dict[str, int] = {}

    def exercise(operation: Any) -> None:
        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_ROUND,
            deadline=None,
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def send(case: Any) -> None:
            for role in ROLES:
                response = case.call(session=session, headers={"Authorization": f"Bearer {server.keys[role]}"})
                sent[operation.label] = sent.get(operation.label, 0) + 1
                for fault in server_faults(response):
                    body = json.dumps(case.body)[:600]
                    findings.append(
                        f"{operation.label} as {role}: {fault}\n  request {body}\n  answer {response.text[:600]}"
                    )

        # An operation hypothesis cannot fill within its budget is visited again next round.
        with contextlib.suppress(Unsatisfiable):
            send()

    deadline = time.monotonic() + FUZZ_BUDGET_S
    rounds = 0
    while True:
        for operation in operations:
            exercise(operation)
        rounds += 1
        if time.monotonic() >= deadline or findings:
            break

    print(f"fuzz: {sum(sent.values())} requests, {len(operations)} operations, {rounds} round(s), {len(ROLES)} roles")
    unsent = [operation.label for operation in operations if not sent.get(operation.label)]
    assert not unsent, f"never exercised: {unsent}"
    assert not findings, f"{len(findings)} server fault(s) in {rounds} round(s):\n" + "\n".join(dict.fromkeys(findings))


def _response(status: int, body: dict[str, Any]) -> requests.Response:
    response = requests.Response()
    response.status_code = status
    response._content = json.dumps(body).encode()
    return response


def test_the_fault_detector_sees_5xx_and_masked_errors() -> None:
    masked = {"data": None, "errors": [{"message": "internal error", "extensions": {"code": "INTERNAL_ERROR"}}]}
    envelope = {"data": {"invokeTool": {"status": "FAILED", "error": {"code": "INTERNAL_ERROR"}}}}
    refused = {"data": None, "errors": [{"message": "Invalid cursor", "extensions": {"code": "INVALID_CURSOR"}}]}

    assert server_faults(_response(502, {})) == ["HTTP 502"]
    assert server_faults(_response(200, masked)) == ["INTERNAL_ERROR in the answer"]
    assert server_faults(_response(200, envelope)) == ["INTERNAL_ERROR in the answer"]
    assert server_faults(_response(400, refused)) == []
