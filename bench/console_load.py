"""The console in a real browser: first load, bundle size, and the tools page with 1,000 tools.

Starts `quiver serve` on a throwaway SQLite database seeded with 1,000 CUSTOM tools, then
drives Debian's headless chromium with Playwright (cold browser context every round, so
nothing is cached). Prints the method, then each figure with its goal and, where there is
one, the ratio to a baseline measured in the same rounds:

- bundle: gzipped JS+CSS the console's first page loads (what the server sends), goal < 300 KB;
- first load: navigation start → the signed-in Spaces table rendered with its data, goal
  < 1 s on loopback; baseline: the same server's /healthz loaded as a page (the floor of
  one request through this browser and this server);
- tools page: navigation start → the first 50 of 1,004 tools rendered; baseline: the same
  page opened filtered to the 4 BUILTIN tools (?type=BUILTIN). Then every page change
  (click → new rows rendered) through all 1,004. "Without jank": the long tasks (> 50 ms on
  the main thread, the Long Tasks API) while paging, against the long tasks of the same
  page left idle as long (the machine's noise), and the largest frame gap while scrolling.

    .venv/bin/python -m bench.console_load             # 15 rounds
    .venv/bin/python -m bench.console_load --rounds 5  # quicker
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from cryptography.fernet import Fernet
from sqlalchemy import insert

from app.console.routes import DIST
from app.db import create_engine
from app.ids import new_id
from app.migrate import upgrade_async
from app.tools.models import ToolDefinition
from bench.common import free_port, load_average, percentile, version

ROOT = Path(__file__).resolve().parents[1]

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ADMIN_TOKEN = "qk_console-bench-admin"
TOOLS = 1_000
PAGE_SIZE = 50
BUDGET_BYTES = 300 * 1024
FIRST_LOAD_GOAL_MS = 1000.0
LONG_TASK_MS = 50.0

# Collects long tasks from the first byte on (the Long Tasks API), before any app script runs.
OBSERVE_LONG_TASKS = """
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
}).observe({ type: "longtask", buffered: true });
"""
STORE_KEY = f'window.localStorage.setItem("quiver.apiKey", "{ADMIN_TOKEN}");'


def bundle_bytes() -> tuple[int, int, list[str]]:
    """(raw, gzipped) bytes of the JS and CSS index.html loads, and their names."""
    html = (DIST / "index.html").read_text()
    names = re.findall(r'(?:src|href)="/console/(assets/[^"]+\.(?:js|css))"', html)
    raw = sum((DIST / name).stat().st_size for name in names)
    packed = sum(len(gzip.compress((DIST / name).read_bytes(), compresslevel=9, mtime=0)) for name in names)
    return raw, packed, names


async def seed(database_url: str) -> None:
    await upgrade_async(database_url)
    engine = create_engine(database_url)
    rows = [
        {
            "tool_id": new_id("ct_"),
            "name": f"bench_tool_{index:04d}",
            "label": f"Bench tool {index:04d}",
            "description": f"Bench tool number {index}: does nothing, listed only.",
            "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
            "type": "CUSTOM",
            "endpoint": f"https://tools.example.test/{index}",
            "status": "ACTIVE",
        }
        for index in range(TOOLS)
    ]
    async with engine.begin() as connection:
        await connection.execute(insert(ToolDefinition), rows)
    await engine.dispose()


def start_server(directory: Path, database_url: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {name: value for name, value in os.environ.items() if not name.startswith("QUIVER_")}
    env.update(
        QUIVER_DATABASE_URL=database_url,
        QUIVER_ADMIN_TOKEN=ADMIN_TOKEN,
        QUIVER_SECRET_KEY=Fernet.generate_key().decode(),
    )
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "quiver"), "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=directory,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("quiver serve did not start within 120 s")


async def page_in_new_context(browser: Any, *, signed_in: bool) -> tuple[Any, Any]:
    # bypass_csp: Playwright polls wait_for_function conditions with eval, which the pages' CSP forbids.
    context = await browser.new_context(viewport={"width": 1280, "height": 860}, bypass_csp=True)
    await context.add_init_script(OBSERVE_LONG_TASKS + (STORE_KEY if signed_in else ""))
    return context, await context.new_page()


async def ready_at(page: Any, condition: str) -> float:
    """Milliseconds from navigation start until ``condition`` (a JS expression) holds."""
    await page.wait_for_function(condition, polling="raf", timeout=60_000)
    return float(await page.evaluate("performance.now()"))


ROWS_RENDERED = "document.querySelectorAll('main table tbody tr').length > 0"


async def first_load(browser: Any, url: str) -> float:
    context, page = await page_in_new_context(browser, signed_in=True)
    try:
        await page.goto(f"{url}/console/spaces", wait_until="commit")
        return await ready_at(page, ROWS_RENDERED)
    finally:
        await context.close()


async def healthz_load(browser: Any, url: str) -> float:
    context, page = await page_in_new_context(browser, signed_in=False)
    try:
        await page.goto(f"{url}/healthz", wait_until="commit")
        return await ready_at(page, "document.body && document.body.innerText.includes('ok')")
    finally:
        await context.close()


async def tools_page(browser: Any, url: str, *, builtin_only: bool) -> dict[str, Any]:
    """First render of the tools page; with every tool, also paging through all of them and scrolling."""
    context, page = await page_in_new_context(browser, signed_in=True)
    try:
        await page.goto(f"{url}/console/tools{'?type=BUILTIN' if builtin_only else ''}", wait_until="commit")
        first = await ready_at(page, ROWS_RENDERED)
        if builtin_only:
            return {"first": first}
        rows = [int(await page.evaluate("document.querySelectorAll('main table tbody tr').length"))]
        # Long tasks from here on are the paging's own (loading the page had its own above).
        await page.evaluate("window.__longTasks = []")
        paging_started = float(await page.evaluate("performance.now()"))
        changes: list[float] = []
        next_button = page.get_by_role("button", name="Next page")
        while await next_button.is_enabled():
            before = await page.evaluate("document.querySelector('main table tbody tr td').innerText")
            started = float(await page.evaluate("performance.now()"))
            await next_button.click()
            done = await ready_at(page, f"document.querySelector('main table tbody tr td').innerText !== {before!r}")
            changes.append(done - started)
            rows.append(int(await page.evaluate("document.querySelectorAll('main table tbody tr').length")))
        paging_ms = float(await page.evaluate("performance.now()")) - paging_started
        paging_tasks: list[float] = await page.evaluate("window.__longTasks")
        # The noise floor: the same page left idle for as long as the paging took.
        await page.evaluate("window.__longTasks = []")
        await page.wait_for_timeout(paging_ms)
        idle_tasks: list[float] = await page.evaluate("window.__longTasks")
        frame_gap = float(
            await page.evaluate(
                """async () => {
                  window.scrollTo(0, 0);
                  let last = performance.now(), worst = 0;
                  for (let y = 0; y <= document.body.scrollHeight; y += 40) {
                    window.scrollTo(0, y);
                    await new Promise((resolve) => requestAnimationFrame(resolve));
                    const now = performance.now();
                    worst = Math.max(worst, now - last);
                    last = now;
                  }
                  return worst;
                }"""
            )
        )
        return {
            "first": first,
            "changes": changes,
            "frame_gap": frame_gap,
            "rows": max(rows),
            "paging_tasks": paging_tasks,
            "idle_tasks": idle_tasks,
        }
    finally:
        await context.close()


def summary(values: list[float]) -> str:
    return (
        f"median {statistics.median(values):7.1f} ms  p95 {percentile(values, 0.95):7.1f} ms  max {max(values):7.1f} ms"
    )


async def run(rounds: int) -> None:
    from playwright.async_api import async_playwright

    raw, packed, names = bundle_bytes()
    print("console_load: the console in headless chromium against `quiver serve` on loopback")
    print(
        f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cpus; python {platform.python_version()}; "
        f"playwright {version('playwright')}; load average at start {load_average():.2f}"
    )
    print(f"data: SQLite, {TOOLS} CUSTOM tools + 4 builtin; the tools page shows {PAGE_SIZE} a page")
    print(f"rounds: {rounds}, each in a new browser context (cold cache), variants interleaved\n")

    with tempfile.TemporaryDirectory(prefix="console-bench-") as directory:
        database_url = f"sqlite+aiosqlite:///{directory}/bench.db"
        await seed(database_url)
        process, url = start_server(Path(directory), database_url)
        try:
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                browser_version = browser.version
                # One unmeasured round: the server's first requests warm its caches.
                await first_load(browser, url)
                await tools_page(browser, url, builtin_only=True)
                loads: list[float] = []
                floors: list[float] = []
                full_first: list[float] = []
                small_first: list[float] = []
                changes: list[float] = []
                frame_gaps: list[float] = []
                paging_tasks: list[float] = []
                idle_tasks: list[float] = []
                rows: list[int] = []
                for _ in range(rounds):
                    floors.append(await healthz_load(browser, url))
                    loads.append(await first_load(browser, url))
                    small_first.append((await tools_page(browser, url, builtin_only=True))["first"])
                    full = await tools_page(browser, url, builtin_only=False)
                    full_first.append(full["first"])
                    changes.extend(full["changes"])
                    frame_gaps.append(full["frame_gap"])
                    paging_tasks.extend(full["paging_tasks"])
                    idle_tasks.extend(full["idle_tasks"])
                    rows.append(full["rows"])
                await browser.close()
        finally:
            process.terminate()
            process.wait(timeout=15)

    print(f"chromium {browser_version}\n")
    print(f"bundle (index.html's JS and CSS: {', '.join(names)})")
    print(
        f"  {raw / 1024:.1f} KB raw, {packed / 1024:.1f} KB gzipped = {packed / BUDGET_BYTES:.2f} of the 300 KB budget"
    )
    print("\nfirst load: navigation start → signed-in Spaces table rendered")
    print(f"  console   {summary(loads)}")
    print(f"  /healthz  {summary(floors)}   (baseline)")
    print(
        f"  ratio console / baseline (medians): {statistics.median(loads) / statistics.median(floors):.1f}x; "
        f"goal < {FIRST_LOAD_GOAL_MS:.0f} ms: {'met' if percentile(loads, 0.95) < FIRST_LOAD_GOAL_MS else 'MISSED'} "
        "(p95)"
    )
    print("\ntools page: navigation start → its first rows rendered")
    print(f"  1,004 tools  {summary(full_first)}   (first {PAGE_SIZE} of 1,004)")
    print(f"  4 tools      {summary(small_first)}   (baseline: ?type=BUILTIN, the 4 builtin tools)")
    print(f"  ratio 1,004 / 4 tools (medians): {statistics.median(full_first) / statistics.median(small_first):.2f}x")
    pages = len(changes) // rounds
    print(f"  page change (Next page → new rows), {pages} pages a round: {summary(changes)}")
    print(f"  most rows in the DOM at once: {max(rows)} (never all {TOOLS})")

    def tasks(found: list[float]) -> str:
        return f"{len(found) / rounds:.1f} a round" + (f", longest {max(found):.0f} ms" if found else "")

    print(f"  long tasks (> {LONG_TASK_MS:.0f} ms) while paging through every tool: {tasks(paging_tasks)}")
    print(f"  long tasks on the same page left idle as long (baseline, machine noise): {tasks(idle_tasks)}")
    print(f"  largest frame gap while scrolling a page: {max(frame_gaps):.1f} ms (a 60 Hz frame is 16.7 ms)")
    print(f"\nload average at end {load_average():.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15, help="measured rounds (default 15)")
    arguments = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is missing: apt-get install chromium")
    asyncio.run(run(arguments.rounds))


if __name__ == "__main__":
    main()
