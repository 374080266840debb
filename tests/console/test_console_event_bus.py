"""The Live calls page of a `quiver serve` whose Redis (the shared one, a database of this test's
own) is reached through a TCP proxy that the test cuts: the server ends the page's subscription
with EVENTS_MISSED and refuses it (EVENT_BUS_UNAVAILABLE) while cut off; the page says so, keeps
subscribing again, and once Redis is back reads the calls it missed from the call log and streams
again, by itself."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.console.conftest import ADMIN_TOKEN, Quiver, Visit, serving, visiting
from tests.console.test_console_browser import expect, unique
from tests.console.test_console_resilience import a_new_call_streams, invoke_calculator, open_call_ids
from tests.databases import require_redis
from tests.support.tcp_proxy import TcpProxy, tcp_proxy

#: A Redis database no other test uses (the bus puts it in its channel names).
DATABASE = 11
#: The page subscribes again after 1, 2, 4, 8, then every 15 s: a bound well past such waits.
AGAIN_MS = 60_000


@pytest.fixture
def proxy() -> Iterator[TcpProxy]:
    redis = urlsplit(asyncio.run(require_redis()))
    with tcp_proxy(redis.port or 6379, redis.hostname or "127.0.0.1") as running:
        yield running


@pytest.fixture
def served(quiver: Quiver, proxy: TcpProxy, tmp_path: Path) -> Iterator[Quiver]:
    """A server of its own, like the session's, with its Redis behind the proxy."""
    env = {**quiver.env, "QUIVER_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'quiver.db'}"}
    env["QUIVER_REDIS_URL"] = f"redis://127.0.0.1:{proxy.port}/{DATABASE}"
    try:
        with serving(env, tmp_path) as url:
            yield Quiver(
                url=url, directory=tmp_path, env=env, tool_server=quiver.tool_server, model_server=quiver.model_server
            )
    finally:
        proxy.restore()


@pytest.fixture
async def own_visit(browser: Any, served: Quiver) -> AsyncIterator[Visit]:
    async with visiting(browser, served.url, "live_calls_event_bus_cut") as current:
        yield current


class TestLiveCallsWhenTheEventBusIsCut:
    async def test_the_page_reads_back_what_it_missed_and_follows_again_by_itself(
        self, own_visit: Visit, served: Quiver, proxy: TcpProxy
    ) -> None:
        space = await served.create_space(unique("bus_cut").replace("-", "_"))
        page = own_visit.page
        await own_visit.sign_in(ADMIN_TOKEN)
        await own_visit.go("Live calls")
        status = page.get_by_role("status").first
        await expect(status).to_contain_text("Listening")
        await a_new_call_streams(own_visit, served, space)

        proxy.cut()
        # Ended with EVENTS_MISSED, then refused (EVENT_BUS_UNAVAILABLE) while cut off: the page says
        # so and keeps trying, with no error shown.
        await expect(status).to_contain_text("cannot follow the calls of all its replicas", timeout=AGAIN_MS)
        missed = await invoke_calculator(served, space)
        await expect(page.get_by_role("alert")).to_have_count(0)

        proxy.restore()
        # Subscribed again by itself, it reads the call it could not follow from the call log...
        await expect(page.get_by_role("button", name=f"Open call {missed}", exact=True)).to_have_count(
            1, timeout=AGAIN_MS
        )
        # ...and streams again.
        deadline = time.monotonic() + AGAIN_MS / 1000
        while True:
            try:
                streamed = await a_new_call_streams(own_visit, served, space)
                break
            except AssertionError:
                assert time.monotonic() < deadline, "no call streamed after Redis came back"
        shown = await open_call_ids(own_visit)
        assert shown[0] == streamed and len(shown) == len(set(shown)), shown
        await expect(page.get_by_role("alert")).to_have_count(0)
        await own_visit.screenshot("followed-again")
