"""A cheap query of one tenant while another sends the heaviest requests the limits allow.

`quiver serve` runs in its own process on a throwaway SQLite database. The quiet tenant
(a VIEWER key of its own space) sends one cheap query at a time, first alone (idle),
then while the noisy tenant (a MEMBER key of another space, from a second process, with
several requests in flight) cycles through: a query just under the cost limit, one far
over it, calculator worst cases, a backtracking pattern on a 100,000-character argument,
arguments whose schema check doubles with each level (stopped at the validation budget),
a tool's schema replaced by one of 2,000 patterns and by one of 500 (each time new: compiled
anew), matchSkills with the longest query allowed, a body just under the size limit, one over
it, and JSON nested 1,000 deep. Prints both sides, the quiet tenant's ratio to its idle
run, and the load average. Goal: the quiet p99 under load stays below 50 ms.

    .venv/bin/python -m bench.noisy_neighbour [--samples 400] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import secrets
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
from graphql import parse

from bench.common import free_port, load_average, percentile, version

ROOT = Path(__file__).resolve().parent.parent

GOAL_P99_MS = 50.0
QUIET_QUERY = "query Quiet($id: ID!) { space(id: $id) { id name label } }"
PATTERN = "^(a+)+$"
#: Replaced by a fresh token in each request sent: a schema never seen before, compiled anew.
SALT = b"@@SALT@@"
MIXED_QUERY = ("请帮我起草一封邮件 draft an email to the customer about the delayed order ") * 60


def gql_body(query: str, variables: dict[str, Any] | None = None) -> bytes:
    return json.dumps({"query": query, "variables": variables or {}}).encode()


def patterns_schema(count: int) -> dict[str, Any]:
    """``count`` properties, each with a pattern of its own (salted: new in every request)."""
    salt = SALT.decode()
    return {"type": "object", "properties": {f"a{index}": {"pattern": f"^{salt}{index}$"} for index in range(count)}}


def heavy_requests(
    space_id: str,
    pattern_tool: str,
    max_request_bytes: int,
    max_cost: int,
    doubling_tool: str = "",
    owned_tool: str = "",
) -> dict[str, bytes]:
    """The noisy tenant's requests, built once (so the client's own work stays out of the way)."""
    from schema.limits import operation_cost
    from schema.schema import build_schema

    schema = build_schema()._schema

    # Aliased full pages of tools, as many as fit under the cost limit (and the alias limit):
    # every field counted is a field resolved, so this is the most work the limit lets through.
    fields = "id name label description tags group version sideEffect timeoutMs status boundSpaces { id name label }"
    page = f"tools(first: 100) {{ totalCount edges {{ cursor node {{ {fields} }} }} }}"
    pages = 1
    while pages < 30:
        candidate = "{ " + " ".join(f"p{index}: {page}" for index in range(pages + 1)) + " }"
        if operation_cost(schema, parse(candidate), None, {}) > max_cost:
            break
        pages += 1
    costly = "{ " + " ".join(f"p{index}: {page}" for index in range(pages)) + " }"
    costly_cost = operation_cost(schema, parse(costly), None, {})
    over = " ".join(
        f"a{index}: agents(first: 100) {{ edges {{ node {{ id runs(first: 100) {{ edges {{ node {{ id }} }} }} }} }} }}"
        for index in range(30)
    )
    invoke = "mutation($i: InvokeToolInput!) { invokeTool(input: $i) { status error { code } } }"

    def call(tool_id: str, arguments: dict[str, Any]) -> bytes:
        return gql_body(invoke, {"i": {"spaceId": space_id, "toolId": tool_id, "arguments": arguments}})

    label_room = max_request_bytes - 400
    update = "mutation($i: UpdateToolInput!) { updateTool(input: $i) { tool { id } userErrors { code } } }"
    schemas = (
        {
            f"schema-{count}-patterns": gql_body(
                update, {"i": {"id": owned_tool, "inputSchema": patterns_schema(count)}}
            )
            for count in (2000, 500)
        }
        if owned_tool
        else {}
    )
    nested: dict[str, Any] = {}
    for _ in range(20):  # 2^20 subschema applications: stopped at the validation budget
        nested = {"a": nested}
    return {
        f"cost-{costly_cost}": gql_body(costly),
        "cost-over-limit": gql_body("{ " + over + " }"),
        "calc-round": call("bt_calculator", {"expression": "round(1, -10 ** 7)"}),
        "calc-depth": call("bt_calculator", {"expression": "-" * 498 + "1"}),
        "calc-digits": call("bt_calculator", {"expression": "10 ** 399 * 9 + (10 ** 300) ** 2"}),
        "pattern-100k": call(pattern_tool, {"text": "a" * 100_000 + "!"}),
        **({"schema-doubling": call(doubling_tool, nested)} if doubling_tool else {}),
        **schemas,
        "match-4000": gql_body(
            "query($s: ID!, $q: String!) { matchSkills(spaceId: $s, query: $q, topK: 10) { score skill { id } } }",
            {"s": space_id, "q": MIXED_QUERY[:4000]},
        ),
        "body-2MiB": gql_body(
            "mutation($i: CreateSpaceInput!) { createSpace(input: $i) { userErrors { code } } }",
            {"i": {"name": "pad", "label": "x" * label_room}},
        ),
        "body-over": b'{"query": "{ __typename }", "variables": {"pad": "' + b"x" * (max_request_bytes + 10) + b'"}}',
        "json-1000-deep": b'{"query": "{ __typename }", "variables": ' + b"[" * 1000 + b"]" * 1000 + b"}",
    }


async def noisy_loop(
    url: str,
    key: str,
    requests: dict[str, bytes],
    concurrency: int,
    running: Any,
    stop: Any,
    kind_keys: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Until ``stop`` is set (or 10 minutes pass): each worker sends the next kind as soon as
    its last one returns. ``running`` is set once every kind has been answered once. A kind
    in ``kind_keys`` is sent with that key (the noisy space's SPACE_ADMIN for tool updates)."""
    stop_at = time.monotonic() + 600
    started_at = time.monotonic()
    latencies: dict[str, list[float]] = defaultdict(list)
    statuses: dict[str, set[str]] = defaultdict(set)
    names = list(requests)
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}

    async def worker(offset: int) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=120, trust_env=False) as client:
            index = offset
            while not stop.is_set() and time.monotonic() < stop_at:
                name = names[index % len(names)]
                index += 1
                body = requests[name]
                if SALT in body:
                    body = body.replace(SALT, secrets.token_hex(4).encode())
                kind_key = (kind_keys or {}).get(name)
                key_headers = {**headers, "Authorization": f"Bearer {kind_key}"} if kind_key else headers
                started = time.perf_counter()
                try:
                    response = await client.post("/graphql", content=body, headers=key_headers)
                except httpx.TransportError as error:
                    # A body over the limit: the server answers 413 and closes before reading it all,
                    # which a client that sends first and reads after sees as a dropped connection.
                    latencies[name].append((time.perf_counter() - started) * 1000)
                    statuses[name].add(f"closed ({type(error).__name__})")
                    continue
                latencies[name].append((time.perf_counter() - started) * 1000)
                if len(latencies) == len(names):
                    running.set()
                text = response.text
                code = ""
                if '"code"' in text:
                    code = text.split('"code":', 1)[1].split(",")[0].split("}")[0].strip(' "')
                statuses[name].add(f"{response.status_code} {code}".strip())

    await asyncio.gather(*(worker(offset) for offset in range(concurrency)))
    return {
        "latencies": dict(latencies),
        "statuses": {name: sorted(found) for name, found in statuses.items()},
        "seconds": time.monotonic() - started_at,
    }


async def quiet_samples(url: str, key: str, space_id: str, samples: int) -> list[float]:
    headers = {"Authorization": f"Bearer {key}"}
    body = {"query": QUIET_QUERY, "variables": {"id": space_id}}
    timings: list[float] = []
    async with httpx.AsyncClient(base_url=url, timeout=60, trust_env=False) as client:
        for _ in range(5):  # warm the connection and the server's caches
            await client.post("/graphql", json=body, headers=headers)
        for _ in range(samples):
            started = time.perf_counter()
            response = await client.post("/graphql", json=body, headers=headers)
            timings.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200 and "errors" not in response.json(), response.text
            await asyncio.sleep(0.01)
    return timings


def cli_key(environment: dict[str, str], space_id: str, role: str) -> str:
    quiver = Path(sys.executable).parent / "quiver"
    output = subprocess.run(
        [str(quiver), "apikey", "create", "--space", space_id, "--role", role],
        env=environment,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return output.strip().splitlines()[-1]


def wait_until_up(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"quiver serve exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1, trust_env=False).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise SystemExit("quiver serve did not come up")


def setup(url: str, admin: str, environment: dict[str, str]) -> dict[str, str]:
    def gql(query: str, variables: dict[str, Any]) -> dict[str, Any]:
        response = httpx.post(
            f"{url}/graphql",
            json={"query": query, "variables": variables},
            headers={"Authorization": f"Bearer {admin}"},
            timeout=60,
            trust_env=False,
        )
        body = response.json()
        assert "errors" not in body, body
        return body["data"]  # type: ignore[no-any-return]

    create_space = "mutation($i: CreateSpaceInput!) { createSpace(input: $i) { space { id } userErrors { message } } }"
    noisy = gql(create_space, {"i": {"name": "noisy", "label": "Noisy"}})["createSpace"]["space"]["id"]
    quiet = gql(create_space, {"i": {"name": "quiet", "label": "Quiet"}})["createSpace"]["space"]["id"]
    create_tool = "mutation($i: CreateToolInput!) { createTool(input: $i) { tool { id } userErrors { message } } }"
    schema = {"type": "object", "properties": {"text": {"type": "string", "pattern": PATTERN}}}
    pattern_tool = ""
    for index in range(100):  # a full page of tools for the costly query
        tool = gql(
            create_tool,
            {
                "i": {
                    "name": f"tool_{index:03d}",
                    "label": f"Tool {index}",
                    "description": f"Does thing number {index} for the noisy tenant. " * 4,
                    "inputSchema": schema,
                    "endpoint": "https://tools.invalid/never-called",
                    "tags": ["bench", f"t{index % 7}"],
                    "spaceIds": [noisy],
                }
            },
        )["createTool"]["tool"]
        pattern_tool = pattern_tool or tool["id"]
    # Each level applies the next one twice: a check that stops at the validation budget (app.jsonschemas).
    twice = {"allOf": [{"$ref": "#/$defs/level"}, {"$ref": "#/$defs/level"}]}
    doubling = {"type": "object", "$defs": {"twice": twice, "level": {"properties": {"a": {"$ref": "#/$defs/twice"}}}}}
    doubling_tool = gql(
        create_tool,
        {
            "i": {
                "name": "doubling",
                "label": "Doubling",
                "description": "A schema whose work doubles with each level of the value.",
                "inputSchema": {**doubling, "$ref": "#/$defs/twice"},
                "endpoint": "https://tools.invalid/never-called",
                "spaceIds": [noisy],
            }
        },
    )["createTool"]["tool"]["id"]
    # A tool of the noisy space's own, made by its SPACE_ADMIN, whose schema it replaces.
    owner_key = cli_key(environment, noisy, "SPACE_ADMIN")
    owned = httpx.post(
        f"{url}/graphql",
        json={
            "query": create_tool,
            "variables": {
                "i": {
                    "name": "reshaped",
                    "label": "Reshaped",
                    "description": "A tool whose schema the noisy tenant keeps replacing.",
                    "inputSchema": {"type": "object"},
                    "endpoint": "https://tools.invalid/never-called",
                }
            },
        },
        headers={"Authorization": f"Bearer {owner_key}"},
        timeout=60,
        trust_env=False,
    ).json()["data"]["createTool"]["tool"]["id"]
    return {
        "owned_tool": owned,
        "owner_key": owner_key,
        "doubling_tool": doubling_tool,
        "noisy": noisy,
        "quiet": quiet,
        "pattern_tool": pattern_tool,
        "noisy_key": cli_key(environment, noisy, "MEMBER"),
        "quiet_key": cli_key(environment, quiet, "VIEWER"),
    }


def summary(values: list[float]) -> str:
    return (
        f"n={len(values):4d}  p50 {percentile(values, 0.5):7.2f}  p90 {percentile(values, 0.9):7.2f}  "
        f"p99 {percentile(values, 0.99):7.2f}  max {max(values):7.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=400, help="quiet queries per run (idle, then loaded)")
    parser.add_argument("--concurrency", type=int, default=4, help="noisy requests in flight")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="QUIVER_NAME=VALUE",
        help="a setting for the server (repeatable; the bench passes none of its own environment's QUIVER_*)",
    )
    arguments = parser.parse_args()
    overrides = dict(item.split("=", 1) for item in arguments.set)
    if any(not name.startswith("QUIVER_") for name in overrides):
        parser.error("--set takes QUIVER_NAME=VALUE")

    from app.config import Settings

    settings = Settings()
    max_request_bytes = settings.max_request_bytes
    with tempfile.TemporaryDirectory(prefix="quiver-noisy-") as directory:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        admin = "bench-" + secrets.token_hex(16)
        environment = {
            **{name: value for name, value in os.environ.items() if not name.startswith("QUIVER_")},
            "QUIVER_DATABASE_URL": f"sqlite+aiosqlite:///{directory}/noisy.db",
            "QUIVER_ADMIN_TOKEN": admin,
            "QUIVER_LOG_LEVEL": "WARNING",
            # The noisy tenant may call as often as it likes: only the limits under test apply.
            "QUIVER_TOOL_RATE_LIMIT": "1000000/minute",
            **overrides,
        }
        log = Path(directory) / "serve.log"
        quiver = Path(sys.executable).parent / "quiver"
        with log.open("wb") as log_file:
            process = subprocess.Popen(
                [str(quiver), "serve", "--port", str(port)], cwd=ROOT, env=environment, stdout=log_file, stderr=log_file
            )
            try:
                wait_until_up(url, process)
                ids = setup(url, admin, environment)
                requests = heavy_requests(
                    ids["noisy"],
                    ids["pattern_tool"],
                    max_request_bytes,
                    settings.graphql_max_cost,
                    ids.get("doubling_tool", ""),
                    ids["owned_tool"],
                )
                kind_keys = {
                    name: ids["owner_key"] for name in requests if name.startswith("schema-") and "patterns" in name
                }

                # Every kind once, so neither run pays for a cold cache.
                for name, body in requests.items():
                    asyncio.run(noisy_loop(url, ids["noisy_key"], {name: body}, 1, _Once(), _Once(), kind_keys))
                load_before = load_average()
                idle = asyncio.run(quiet_samples(url, ids["quiet_key"], ids["quiet"], arguments.samples))

                spawn = multiprocessing.get_context("spawn")
                queue: Any = spawn.Queue()
                stop, running = spawn.Event(), spawn.Event()
                noisy = spawn.Process(
                    target=_noisy_entry,
                    args=(queue, url, ids["noisy_key"], requests, arguments.concurrency, running, stop, kind_keys),
                )
                noisy.start()
                # The quiet side measures once the noisy side has had every kind answered.
                if not running.wait(timeout=300):
                    raise SystemExit("the noisy tenant did not get going within 300 s")
                try:
                    loaded = asyncio.run(quiet_samples(url, ids["quiet_key"], ids["quiet"], arguments.samples))
                finally:
                    stop.set()
                load_loaded = load_average()
                noisy_result = queue.get(timeout=600)
                noisy.join(timeout=60)
            finally:
                process.terminate()
                process.wait(timeout=30)

    print("Noisy neighbour: one tenant's cheap query while another sends the heaviest requests the limits allow")
    print(
        f"  machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"quiver serve (uvicorn {version('uvicorn')}, strawberry {version('strawberry-graphql')}) on SQLite"
    )
    print(
        f"  method: quiet = VIEWER key, `space(id) {{ id name label }}` over HTTP keep-alive, one at a time, "
        f"{arguments.samples} samples 10 ms apart, first alone (idle), then under load; noisy = MEMBER key of "
        f"another space, {arguments.concurrency} requests in flight from a separate process, cycling through "
        f"{len(requests)} kinds"
    )
    if overrides:
        print("  server settings: " + ", ".join(f"{name}={value}" for name, value in overrides.items()))
    print(f"  load average (1 min): {load_before:.2f} before the idle run, {load_loaded:.2f} after the loaded run")
    print()
    print(f"  quiet idle    {summary(idle)}")
    print(f"  quiet loaded  {summary(loaded)}")
    ratio50 = percentile(loaded, 0.5) / percentile(idle, 0.5)
    ratio99 = percentile(loaded, 0.99) / percentile(idle, 0.99)
    print(f"  ratio loaded/idle: p50 {ratio50:.2f}x, p99 {ratio99:.2f}x")
    p99 = percentile(loaded, 0.99)
    verdict = "met" if p99 < GOAL_P99_MS else "NOT met"
    print(f"  goal: quiet p99 under load < {GOAL_P99_MS:.0f} ms: {verdict} ({p99:.1f} ms)")
    print()
    sent = sum(len(values) for values in noisy_result["latencies"].values())
    print(
        f"  noisy tenant: {sent} requests in {noisy_result['seconds']:.1f} s "
        f"({sent / noisy_result['seconds']:.1f}/s); per kind (as its client saw them; status and error code):"
    )
    for name in requests:
        values = noisy_result["latencies"].get(name, [])
        if values:
            statuses = ", ".join(noisy_result["statuses"][name])
            print(f"    {name:18s} {summary(values)}  [{statuses}]")


def _noisy_entry(out: Any, *arguments: Any) -> None:
    """``noisy_loop(*arguments)`` in the spawned process; its result put on ``out``."""
    out.put(asyncio.run(noisy_loop(*arguments)))


class _Once:
    """An event that reads "not set" once, then "set": one request, for the warm-up."""

    def __init__(self) -> None:
        self.calls = 0

    def is_set(self) -> bool:
        self.calls += 1
        return self.calls > 1

    def set(self) -> None:
        pass


if __name__ == "__main__":
    main()
