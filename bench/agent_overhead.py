"""Agent runtime overhead: one scripted 3-step conversation through invokeAgent vs a bare
openai-SDK loop, side by side.

The conversation: the model asks for the ``lookup`` tool, then for it again with other
arguments, then answers. A loopback fixture server (its own process) plays both the
OpenAI-compatible endpoint (stateless: the reply depends on how many tool messages the
request carries) and the tool's HTTP endpoint, and records when each request arrives.
Per backend (SQLite file, PostgreSQL database) three variants run round-robin:

* ``invokeAgent``  the mutation over httpx.ASGITransport; an agent with one CUSTOM tool;
* ``runtime``      AgentRuntime.invoke, the same run without HTTP and GraphQL;
* ``bare``         AsyncOpenAI + httpx: the same three model calls, the tool POSTed directly.

It prints p50/p95 per variant, the overhead in ms (total and per step) and the ratio,
and a per-segment breakdown from the fixture server's arrival times. Run from the
repository root::

    .venv/bin/python -m bench.agent_overhead            # SQLite and PostgreSQL
    .venv/bin/python -m bench.agent_overhead --quick    # small smoke run

See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import secrets
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import (
    DEFAULT_POSTGRES_URL,
    GraphQL,
    free_port,
    load_average,
    percentile,
    postgres_problem,
    throwaway_database,
    version,
)

ROOT = Path(__file__).resolve().parent.parent

BENCH_RATE_LIMIT = "1000000/minute"
READY_TIMEOUT_S = 20.0
API_KEY = "sk-bench-agent-overhead"
TOOL_NAME = "lookup"
FINAL_ANSWER = "Both lookups are done: first and second."
CONVERSATION = re.compile(r"\[conversation (\S+)\]")
STEPS = 3

# ------------------------------------------------------------------ the fixture server
# ``agent_overhead.py --serve PORT``: a raw ASGI app (no framework), in its own process.
#   POST /v1/chat/completions  0 tool messages -> call lookup("<conv> first"),
#                              1 -> call lookup("<conv> second"), 2+ -> the final answer
#   POST /tool                 echoes the JSON body
#   GET  /_timings             {conversation: {"model": [t, ...], "tool": [t, ...]}}, then clears
# Arrival times are time.monotonic() (CLOCK_MONOTONIC: the same clock in every process).


def _serve(port: int) -> None:
    import uvicorn

    timings: dict[str, dict[str, list[float]]] = {}

    def record(conversation: str, kind: str, at: float) -> None:
        timings.setdefault(conversation, {"model": [], "tool": []})[kind].append(at)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        arrived = time.monotonic()
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        path = scope["path"]
        status = 200
        if path == "/v1/chat/completions":
            request = json.loads(body)
            messages = request["messages"]
            user = next(item["content"] for item in messages if item["role"] == "user")
            match = CONVERSATION.search(user)
            conversation = match.group(1) if match else "?"
            record(conversation, "model", arrived)
            done = sum(1 for item in messages if item["role"] == "tool")
            message_out: dict[str, Any] = {"role": "assistant", "content": None}
            finish = "tool_calls"
            if done < STEPS - 1:
                query = f"{conversation} {'first' if done == 0 else 'second'}"
                message_out["tool_calls"] = [
                    {
                        "id": f"call_{done + 1}",
                        "type": "function",
                        "function": {"name": TOOL_NAME, "arguments": json.dumps({"query": query})},
                    }
                ]
            else:
                message_out["content"] = FINAL_ANSWER
                finish = "stop"
            payload: Any = {
                "id": f"chatcmpl-{conversation}-{done}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": request.get("model", "bench"),
                "choices": [{"index": 0, "message": message_out, "finish_reason": finish, "logprobs": None}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
            }
        elif path == "/tool":
            arguments = json.loads(body) if body else {}
            record(str(arguments.get("query", "?")).split(" ")[0], "tool", arrived)
            payload = {"ok": True, "echo": arguments}
        elif path == "/_timings":
            payload = dict(timings)
            timings.clear()
        else:
            status, payload = 404, {"error": path}
        data = json.dumps(payload).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": data})

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="off")


if len(sys.argv) == 3 and sys.argv[1] == "--serve":
    _serve(int(sys.argv[2]))
    sys.exit(0)

import httpx  # noqa: E402
import openai  # noqa: E402
import sqlalchemy  # noqa: E402
from cryptography.fernet import Fernet  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402

from app.catalog.loader import load_builtin_catalog  # noqa: E402
from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from app.migrate import upgrade  # noqa: E402
from app.principal import Role  # noqa: E402
from app.runtime.service import InvokeRequest  # noqa: E402
from app.spaces import service as spaces_service  # noqa: E402

INVOKE_AGENT, RUNTIME, BARE = "invokeAgent", "runtime", "bare"
VARIANTS = (INVOKE_AGENT, RUNTIME, BARE)
VARIANT_NOTES = {
    INVOKE_AGENT: "the invokeAgent mutation over httpx.ASGITransport (synchronous run)",
    RUNTIME: "AgentRuntime.invoke in process: the same run, no HTTP, no GraphQL",
    BARE: "AsyncOpenAI chat.completions x3 + httpx POST of each tool call, messages kept in a list",
}
SEGMENTS = ("to model call 1", "step 1", "step 2", "after model call 3", "total")
SEGMENT_NOTES = {
    "to model call 1": "start -> 1st model request arrives (run row, prompt, functions)",
    "step 1": "1st -> 2nd model request arrives (model reply, tool call, bookkeeping)",
    "step 2": "2nd -> 3rd model request arrives (same, second tool call)",
    "after model call 3": "3rd model request arrives -> the caller has the answer (finish)",
    "total": "wall time of the whole conversation",
}
SPLITS = ("model -> tool", "tool -> model")

SYSTEM_PROMPT = "You look things up with the lookup tool, twice, then answer in one sentence."
TOOL_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "What to look up."}},
    "required": ["query"],
    "additionalProperties": False,
}
TOOL_DESCRIPTION = "Looks a record up by free text. Use it for every question about records."

INVOKE_AGENT_OPERATION = """
mutation Bench($input: InvokeAgentInput!) {
  invokeAgent(input: $input) {
    run { id status output steps error { code message detail } }
    userErrors { field code message }
  }
}
"""
CREATE_SPACE = """
mutation($input: CreateSpaceInput!) {
  createSpace(input: $input) { space { id } userErrors { field code message } }
}
"""
CREATE_TOOL = """
mutation($input: CreateToolInput!) {
  createTool(input: $input) { tool { id } userErrors { field code message } }
}
"""
CREATE_AGENT = """
mutation($input: CreateAgentInput!) {
  createAgent(input: $input) { agent { id } userErrors { field code message } }
}
"""


# ------------------------------------------------------------------ helpers


@contextmanager
def fixture_server() -> Iterator[str]:
    """The fixture server in a subprocess; yields its base URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.agent_overhead", "--serve", str(port)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise SystemExit(f"the fixture server exited with {process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"the fixture server did not listen on {port}") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


# ------------------------------------------------------------------ measuring


@dataclass
class Conversation:
    """One measured conversation: client start/end, the fixture server's arrival times, and the
    CPU this process used meanwhile (every thread: the event loop and aiosqlite's; the fixture
    server is another process)."""

    variant: str
    started: float
    finished: float
    cpu_ms: float = 0.0


@dataclass
class BackendResult:
    backend: str
    migrate_s: float
    load_average: tuple[float, float]
    segments: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    splits: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)


async def measure(
    backend: str, database_url: str, base_url: str, iterations: int, warmup: int, migrate_s: float, seed: int
) -> BackendResult:
    settings = Settings(
        database_url=database_url,
        secret_key=Fernet.generate_key().decode(),
        admin_token=None,
        egress_allowlist="127.0.0.1",
        tool_rate_limit=BENCH_RATE_LIMIT,
        openai_base_url=f"{base_url}/v1",
        openai_api_key=API_KEY,
    )
    app = create_app(settings)
    services = app.state.services
    async with services.session_factory() as session, session.begin():
        await load_builtin_catalog(session)
        _, admin_key = await spaces_service.create_api_key(
            session, role=Role.ADMIN, space_id=None, label="agent_overhead bench"
        )
    async with services.session_factory() as session:
        principal = await spaces_service.authenticate(session, admin_key)
    assert principal is not None
    tool_url = f"{base_url}/tool"
    model_name = "bench-scripted"

    result = BackendResult(backend=backend, migrate_s=migrate_s, load_average=(0.0, 0.0))
    conversations: dict[str, Conversation] = {}
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench", timeout=60)
        )
        gql = GraphQL(client, admin_key)
        space_id = (
            await gql.mutate(
                CREATE_SPACE, {"input": {"name": f"bench-{secrets.token_hex(3)}", "label": "Bench"}}, "createSpace"
            )
        )["space"]["id"]
        tool_id = (
            await gql.mutate(
                CREATE_TOOL,
                {
                    "input": {
                        "name": TOOL_NAME,
                        "label": "Lookup",
                        "description": TOOL_DESCRIPTION,
                        "inputSchema": TOOL_SCHEMA,
                        "endpoint": tool_url,
                        "spaceIds": [space_id],
                    }
                },
                "createTool",
            )
        )["tool"]["id"]
        agent_id = (
            await gql.mutate(
                CREATE_AGENT,
                {
                    "input": {
                        "spaceId": space_id,
                        "name": "Bench agent",
                        "model": model_name,
                        "systemPrompt": SYSTEM_PROMPT,
                        "maxSteps": 5,
                        "activatedToolIds": [tool_id],
                    }
                },
                "createAgent",
            )
        )["agent"]["id"]

        # The bare loop's own clients, like the platform's: AsyncOpenAI without SDK retries,
        # a keep-alive httpx client for the tool.
        bare_model = AsyncOpenAI(base_url=f"{base_url}/v1", api_key=API_KEY, max_retries=0, timeout=60)
        stack.push_async_callback(bare_model.close)
        bare_http = await stack.enter_async_context(httpx.AsyncClient(trust_env=False, timeout=10))
        functions = [
            {
                "type": "function",
                "function": {"name": TOOL_NAME, "description": TOOL_DESCRIPTION, "parameters": TOOL_SCHEMA},
            }
        ]

        async def invoke_agent(message: str) -> str:
            data = await gql.execute(INVOKE_AGENT_OPERATION, {"input": {"agentId": agent_id, "message": message}})
            payload = data["invokeAgent"]
            run = payload["run"]
            if payload["userErrors"] or run is None or run["status"] != "SUCCEEDED" or run["steps"] != STEPS:
                raise SystemExit(f"{backend}: invokeAgent did not run as scripted: {payload}")
            output: str = run["output"]
            return output

        async def runtime(message: str) -> str:
            run = await services.runtime.invoke(principal, InvokeRequest(agent_id=agent_id, message=message))
            if run.status != "SUCCEEDED" or run.steps != STEPS:
                raise SystemExit(f"{backend}: the runtime did not run as scripted: {run.status} {run.error_code}")
            return str(run.output)

        async def bare(message: str) -> str:
            messages: list[dict[str, Any]] = [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": message},
            ]
            for _ in range(5):
                completion = await bare_model.chat.completions.create(
                    model=model_name,
                    messages=messages,  # type: ignore[arg-type]
                    tools=functions,  # type: ignore[arg-type]
                )
                reply = completion.choices[0].message
                if not reply.tool_calls:
                    return reply.content or ""
                messages.append(reply.model_dump(exclude_none=True))
                for call in reply.tool_calls:
                    arguments = json.loads(call.function.arguments or "{}")  # type: ignore[union-attr]
                    response = await bare_http.post(tool_url, json=arguments)
                    response.raise_for_status()
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(response.json())})
            raise SystemExit(f"{backend}: the bare loop did not finish")

        runners: dict[str, Callable[[str], Awaitable[str]]] = {
            INVOKE_AGENT: invoke_agent,
            RUNTIME: runtime,
            BARE: bare,
        }

        async def converse(variant: str, label: str) -> Conversation:
            conversation = f"{label}-{variant}-{secrets.token_hex(3)}"
            message = f"Look up the two records, then answer. [conversation {conversation}]"
            cpu_started = time.process_time()
            started = time.monotonic()
            output = await runners[variant](message)
            finished = time.monotonic()
            cpu_ms = (time.process_time() - cpu_started) * 1000
            if output != FINAL_ANSWER:
                raise SystemExit(f"{backend} {variant}: answered {output!r}")
            conversations[conversation] = Conversation(variant, started, finished, cpu_ms)
            return conversations[conversation]

        for index in range(warmup):
            for variant in VARIANTS:
                await converse(variant, f"w{index}")
        conversations.clear()
        result.load_average = (load_average(), 0.0)
        order = list(VARIANTS)
        shuffler = random.Random(seed)
        for index in range(iterations):
            shuffler.shuffle(order)
            for variant in order:
                await converse(variant, f"m{index}")
        load_after = load_average()
        timings = (await bare_http.get(f"{base_url}/_timings")).json()
    await services.close()

    result.load_average = (result.load_average[0], load_after)
    result.segments = {variant: {name: [] for name in SEGMENTS} for variant in VARIANTS}
    result.splits = {variant: {name: [] for name in SPLITS} for variant in VARIANTS}
    result.cpu = {variant: [] for variant in VARIANTS}
    for name, conversation in conversations.items():
        arrivals = timings.get(name)
        if arrivals is None or len(arrivals["model"]) != STEPS or len(arrivals["tool"]) != STEPS - 1:
            raise SystemExit(f"{backend}: the fixture server saw {arrivals} for {name}")
        model, tool = arrivals["model"], arrivals["tool"]
        spans = {
            "to model call 1": model[0] - conversation.started,
            "step 1": model[1] - model[0],
            "step 2": model[2] - model[1],
            "after model call 3": conversation.finished - model[2],
            "total": conversation.finished - conversation.started,
        }
        for segment, seconds in spans.items():
            result.segments[conversation.variant][segment].append(seconds * 1000)
        result.cpu[conversation.variant].append(conversation.cpu_ms)
        for step in range(STEPS - 1):
            result.splits[conversation.variant]["model -> tool"].append((tool[step] - model[step]) * 1000)
            result.splits[conversation.variant]["tool -> model"].append((model[step + 1] - tool[step]) * 1000)
    return result


# ------------------------------------------------------------------ databases


# ------------------------------------------------------------------ report


def print_method(args: argparse.Namespace) -> None:
    print("Quiver agent_overhead benchmark")
    print(f"  machine:    {platform.system()} {platform.machine()}, os.cpu_count()={os.cpu_count()}")
    print(
        f"  software:   Python {platform.python_version()}, SQLAlchemy {sqlalchemy.__version__}, "
        f"strawberry-graphql {version('strawberry-graphql')}, openai {openai.__version__}, "
        f"httpx {httpx.__version__}, uvicorn {version('uvicorn')}"
    )
    print(
        "  fixture:    one loopback server in its own process (raw ASGI under uvicorn): "
        "/v1/chat/completions answers from the request alone (0 tool messages -> call "
        f"{TOOL_NAME}, 1 -> call it again, 2 -> the final answer; non-streamed, fixed usage) and "
        "/tool echoes its JSON body; it records each request's arrival (time.monotonic)"
    )
    print(
        "  agent:      one CUSTOM tool (lookup -> the fixture's /tool), maxSteps 5, no skills, "
        "no knowledge bases, no session; QUIVER_OPENAI_BASE_URL = the fixture; "
        f"egress_allowlist=127.0.0.1, tool_rate_limit={BENCH_RATE_LIMIT}"
    )
    print(
        f"  measured:   {args.warmup} warm-up rounds, then {args.iterations} rounds; each round runs "
        f"the {len(VARIANTS)} variants once, in a freshly shuffled order (seed {args.seed})"
    )
    print("  variants:")
    for name in VARIANTS:
        print(f"    {name:<12} {VARIANT_NOTES[name]}")
    print("  invokeAgent: " + " ".join(INVOKE_AGENT_OPERATION.split()))
    print("  segments (from the client's clock and the fixture's arrival times, same monotonic clock):")
    for name in SEGMENTS:
        print(f"    {name:<19} {SEGMENT_NOTES[name]}")
    print(
        "  overhead:   p50(variant) - p50(bare); per step = total overhead / "
        f"{STEPS} model calls; ratio = p50(variant) / p50(bare)"
    )
    print(
        "  CPU:        time.process_time() of this process around each conversation (the event loop, "
        "aiosqlite's thread, anything else of ours running meanwhile); the fixture server is not counted"
    )
    print("  caution:    only comparable between runs on a quiet machine; load average printed")
    print()


def print_result(result: BackendResult) -> None:
    print(f"== {result.backend}")
    print(f"  migrate: {result.migrate_s:.2f} s")
    print(
        f"  1-minute load average before / after measuring: {result.load_average[0]:.2f} / {result.load_average[1]:.2f}"
    )
    totals = {variant: result.segments[variant]["total"] for variant in VARIANTS}
    header = (
        f"  {'variant':<12} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8}   {'overhead':>10}"
        f"   {'per step':>10}   {'ratio':>6}"
    )
    print(header)
    print("  " + "-" * (len(header) - 2))
    base = percentile(totals[BARE], 0.5)
    for variant in VARIANTS:
        values = totals[variant]
        p50 = percentile(values, 0.5)
        extra = "" if variant == BARE else f"{p50 - base:+.2f} ms"
        per_step = "" if variant == BARE else f"{(p50 - base) / STEPS:+.2f} ms"
        ratio = "" if variant == BARE else f"{p50 / base:.2f}x"
        print(
            f"  {variant:<12} {p50:>8.2f} {percentile(values, 0.95):>8.2f} {statistics.fmean(values):>8.2f}"
            f"   {extra:>10}   {per_step:>10}   {ratio:>6}"
        )
    bare_cpu = percentile(result.cpu[BARE], 0.5)
    print("  CPU of this process per conversation (time.process_time, all threads), p50 ms (over bare, per step):")
    for variant in VARIANTS:
        p50 = percentile(result.cpu[variant], 0.5)
        extra = "" if variant == BARE else f"   ({p50 - bare_cpu:+.2f} ms, {(p50 - bare_cpu) / STEPS:+.2f} ms a step)"
        print(f"    {variant:<12} {p50:8.2f}{extra}")
    print("  per segment, p50 ms (overhead over bare):")
    print(f"    {'segment':<26}" + "".join(f" {variant:>20}" for variant in VARIANTS))
    rows = [(name, result.segments) for name in SEGMENTS[:-1]] + [(name, result.splits) for name in SPLITS]
    for name, table in rows:
        bare_p50 = percentile(table[BARE][name], 0.5)
        cells = []
        for variant in VARIANTS:
            p50 = percentile(table[variant][name], 0.5)
            cells.append(f"{p50:8.2f}" + ("" if variant == BARE else f" ({p50 - bare_p50:+7.2f})"))
        label = name if name not in SPLITS else f"{name} (steps 1-2)"
        print(f"    {label:<26}" + "".join(f" {cell:>20}" for cell in cells))
    print()


# ------------------------------------------------------------------ entry point


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--backends", default="sqlite,postgresql", help="comma-separated: sqlite, postgresql (default: both)"
    )
    parser.add_argument("--iterations", type=int, default=None, help="measured rounds (default 100, quick 15)")
    parser.add_argument("--warmup", type=int, default=None, help="warm-up rounds (default 5, quick 2)")
    parser.add_argument("--quick", action="store_true", help="few rounds (smoke run)")
    parser.add_argument("--seed", type=int, default=20240601, help="seed of the per-round variant order")
    parser.add_argument(
        "--postgres-url",
        default=DEFAULT_POSTGRES_URL,
        help="server and admin database for the throwaway PostgreSQL database "
        "(default: $QUIVER_BENCH_POSTGRES_URL or %(default)s)",
    )
    args = parser.parse_args(argv)
    if args.iterations is None:
        args.iterations = 15 if args.quick else 100
    if args.warmup is None:
        args.warmup = 2 if args.quick else 5
    if args.iterations < 1 or args.warmup < 1:
        parser.error("--iterations and --warmup must be at least 1")
    backends = [name.strip() for name in args.backends.split(",") if name.strip()]
    unknown = set(backends) - {"sqlite", "postgresql"}
    if unknown or not backends:
        parser.error(f"unknown backends: {', '.join(sorted(unknown)) or '(none)'}")
    args.backend_list = backends
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print_method(args)
    started = time.perf_counter()
    with fixture_server() as base_url:
        for backend in args.backend_list:
            if backend == "postgresql":
                problem = asyncio.run(postgres_problem(args.postgres_url))
                if problem is not None:
                    print(f"== postgresql: skipped, {args.postgres_url} is unreachable ({problem})\n")
                    continue
            with throwaway_database(backend, args.postgres_url, "agent_overhead") as url:
                migrate_started = time.perf_counter()
                upgrade(url)
                migrate_s = time.perf_counter() - migrate_started
                result = asyncio.run(
                    measure(backend, url, base_url, args.iterations, args.warmup, migrate_s, args.seed)
                )
            print_result(result)
    print(f"total run time: {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
