"""The console's live views when the WebSocket drops: a server restart, a proxy cutting idle
sockets, a laptop waking up. The browser's socket to /graphql is routed through Playwright, which
forwards it to the real server until the test cuts it (close code 1012, "service restart") and
refuses new sockets for as long as the outage lasts."""

from __future__ import annotations

import re
import threading
from typing import Any

from tests.console.conftest import ADMIN_TOKEN, Quiver, Visit
from tests.console.test_console_browser import expect, unique
from tests.support.openai_server import call, final, tool_calls

# graphql-ws waits about 1, 2, 4, 8, 16 s (plus up to 3 s each) between attempts: an outage of
# this long outlasts any fixed number of them. The page's clock is moved on, not waited for.
LONG_OUTAGE_MS = 10 * 60_000
SERVICE_RESTART = 1012
TRY_AGAIN_LATER = 1013
# Calls made until one is streamed (the server does not confirm a subscription is registered).
SUBSCRIPTION_CALLS = 10
SUBSCRIPTION_EVENT_MS = 3_000
# Back within the backoff of a short outage (about 1, 2, 4 s plus up to 1 s each): well inside this.
RECONNECT_MS = 60_000
# What Live calls says once it listens and has nothing left to read (console/src/pages/live.tsx).
LISTENING = "Listening: every finished call appears here as it happens."
# One page of the call log read after an outage (live.tsx BACKFILL_PAGE, the query's most).
BACKFILL_PAGE = 100


class Outage:
    """Routes the page's GraphQL WebSocket: forwarded while up, cut and refused while down."""

    def __init__(self) -> None:
        self.down = False
        self.open: list[Any] = []
        self.attempts = 0

    async def route(self, page: Any) -> None:
        await page.route_web_socket(re.compile(r"/graphql$"), self._handle)

    async def _handle(self, socket: Any) -> None:
        self.attempts += 1
        if self.down:
            await socket.close(code=TRY_AGAIN_LATER, reason="Quiver is restarting")
            return
        socket.connect_to_server()
        self.open.append(socket)

    async def cut(self) -> None:
        self.down = True
        sockets, self.open = self.open, []
        for socket in sockets:
            await socket.close(code=SERVICE_RESTART, reason="Quiver is restarting")

    def restore(self) -> None:
        self.down = False


async def invoke_calculator(quiver: Quiver, space: str) -> str:
    """One calculator call in the space; its id in the call log."""
    result = (
        await quiver.graphql(
            "mutation C($input: InvokeToolInput!) { invokeTool(input: $input) { status call { id } } }",
            {"input": {"spaceId": space, "toolId": "bt_calculator", "arguments": {"expression": "6 * 7"}}},
        )
    )["invokeTool"]
    assert result["status"] == "SUCCESS", result
    return str(result["call"]["id"])


async def until_a_call_streams(visit: Visit, quiver: Quiver, space: str) -> None:
    table = visit.page.get_by_role("table", name=re.compile("Live tool calls"))
    for _ in range(SUBSCRIPTION_CALLS):
        await invoke_calculator(quiver, space)
        try:
            await expect(table.get_by_role("row").nth(1)).to_contain_text(
                "bt_calculator", timeout=SUBSCRIPTION_EVENT_MS
            )
            return
        except AssertionError:
            continue
    await expect(table.get_by_role("row").nth(1)).to_contain_text("bt_calculator")


class TestLiveCallsOutage:
    async def test_a_long_outage_shows_reconnecting_and_the_page_recovers_by_itself(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        space = await quiver.create_space(unique("outage").replace("-", "_"))
        page = visit.page
        outage = Outage()
        await outage.route(page)
        await page.clock.install()
        await visit.sign_in(ADMIN_TOKEN)
        await visit.go("Live calls")
        status = page.get_by_role("status").first
        await expect(status).to_contain_text("Listening")

        await outage.cut()
        await expect(status).to_contain_text("Reconnecting")
        await page.clock.run_for(LONG_OUTAGE_MS)
        await expect(status).to_contain_text("Reconnecting")
        attempts_while_down = outage.attempts

        outage.restore()
        await page.clock.run_for(LONG_OUTAGE_MS)
        await expect(status).to_contain_text("Listening")
        assert outage.attempts > attempts_while_down, "the page stopped trying to reconnect"
        await expect(page.get_by_role("alert")).to_have_count(0)
        await until_a_call_streams(visit, quiver, space)
        await visit.screenshot("recovered")


async def a_new_call_streams(visit: Visit, quiver: Quiver, space: str) -> str:
    """Calls until one of them shows in Live calls (a subscription is not confirmed); its id."""
    for _ in range(SUBSCRIPTION_CALLS):
        call_id = await invoke_calculator(quiver, space)
        shown = visit.page.get_by_role("button", name=f"Open call {call_id}", exact=True)
        try:
            await expect(shown).to_have_count(1, timeout=SUBSCRIPTION_EVENT_MS)
            return call_id
        except AssertionError:
            continue
    raise AssertionError(f"none of {SUBSCRIPTION_CALLS} calls showed in Live calls")


async def open_call_ids(visit: Visit) -> list[str]:
    """The calls in the Live calls table, top (newest) first."""
    table = visit.page.get_by_role("table", name=re.compile("Live tool calls"))
    labels = [await button.get_attribute("aria-label") for button in await table.get_by_role("button").all()]
    return [str(label).removeprefix("Open call ") for label in labels]


async def listening_to_one_space(visit: Visit, quiver: Quiver) -> tuple[Outage, str, list[str]]:
    """Live calls on a space of its own, a call of it streamed: the page's socket (its outage to
    stage), the space, and the calls shown."""
    space = await quiver.create_space(unique("backfill").replace("-", "_"))
    outage = Outage()
    await outage.route(visit.page)
    await visit.sign_in(ADMIN_TOKEN)
    await visit.go("Live calls")
    await visit.page.get_by_label("Space").select_option(space)
    await expect(visit.page.get_by_role("status").first).to_contain_text("Listening")
    await until_a_call_streams(visit, quiver, space)
    return outage, space, await open_call_ids(visit)


async def calls_while_down(visit: Visit, quiver: Quiver, outage: Outage, space: str, count: int) -> list[str]:
    """Cuts the page's socket, makes `count` calls in the space while it is away, lets it back."""
    await outage.cut()
    await expect(visit.page.get_by_role("status").first).to_contain_text("Reconnecting")
    made = [await invoke_calculator(quiver, space) for _ in range(count)]
    outage.restore()
    return made


class TestLiveCallsBackfill:
    """Calls that finish while the socket is down are read from the call log once it is back."""

    async def test_calls_made_while_disconnected_appear_once_each_newest_first(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        page = visit.page
        outage, space, before = await listening_to_one_space(visit, quiver)
        missed = await calls_while_down(visit, quiver, outage, space, 3)
        # Back, and the calls since the newest one shown read (the status says so until then).
        await expect(page.get_by_role("status").first).to_have_text(LISTENING, timeout=RECONNECT_MS)

        shown = await open_call_ids(visit)
        assert shown[:3] == missed[::-1], (shown, missed)
        assert len(shown) == len(set(shown)), f"a call is shown twice: {shown}"
        assert set(before) <= set(shown[3:]), (before, shown)
        for call_id in missed:
            await expect(page.get_by_role("button", name=f"Open call {call_id}", exact=True)).to_have_count(1)
        await expect(page.get_by_role("alert")).to_have_count(0)
        await expect(page.get_by_role("status").filter(has_text="call log")).to_have_count(0)
        await visit.screenshot("backfilled")

        # Streaming goes on as before: a new call shows on top, once.
        streamed = await a_new_call_streams(visit, quiver, space)
        after = await open_call_ids(visit)
        assert after[0] == streamed and after[-len(shown) :] == shown, (shown, after)
        assert len(after) == len(set(after)), f"a call is shown twice: {after}"

    async def test_a_failed_read_keeps_a_notice_and_try_again_reads_the_calls(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        page = visit.page
        outage, space, _ = await listening_to_one_space(visit, quiver)
        log_down = True

        async def gateway(route: Any) -> None:
            query = str((route.request.post_data_json or {}).get("query", ""))
            if log_down and "query RecentToolCalls" in query:
                await route.fulfill(status=503, content_type="text/plain", body="503 Service Unavailable")
            else:
                await route.continue_()

        await page.route(re.compile(r"/graphql$"), gateway)
        [missed] = await calls_while_down(visit, quiver, outage, space, 1)
        alert = page.get_by_role("alert")
        await expect(alert).to_contain_text(
            "The calls that finished while the connection was down could not be read: The server answered 503.",
            timeout=RECONNECT_MS,
        )
        await expect(page.get_by_role("status").first).to_have_text(LISTENING)
        await expect(page.get_by_role("button", name=f"Open call {missed}", exact=True)).to_have_count(0)
        await visit.screenshot("backfill-failed")

        log_down = False
        await alert.get_by_role("button", name="Try again").click()
        await expect(page.get_by_role("button", name=f"Open call {missed}", exact=True)).to_have_count(1)
        await expect(alert).to_have_count(0)
        assert (await open_call_ids(visit))[0] == missed

    async def test_more_than_a_page_missed_reads_one_page_and_says_so(self, visit: Visit, quiver: Quiver) -> None:
        page = visit.page
        outage, space, before = await listening_to_one_space(visit, quiver)
        missed = await calls_while_down(visit, quiver, outage, space, BACKFILL_PAGE + 2)
        await expect(page.get_by_role("status").first).to_have_text(LISTENING, timeout=RECONNECT_MS)

        await expect(page.get_by_role("status").filter(has_text="Not every call")).to_contain_text(
            f"the oldest {BACKFILL_PAGE} in the call log were read"
        )
        shown = await open_call_ids(visit)
        assert len(shown) == len(set(shown)), f"a call is shown twice: {shown}"
        # The page since the newest call shown: it, then the first 99 missed (oldest first).
        read = [call_id for call_id in shown if call_id in missed]
        assert read == missed[: BACKFILL_PAGE - 1][::-1], (len(read), read[:3], missed[:3])
        assert set(shown) == set(read) | set(before), shown


class TestAgentRunOutage:
    async def test_a_run_that_finishes_while_the_socket_is_down_shows_finished_after_it_returns(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        model = quiver.model_server.model("outage")
        # The model answers only once the socket is down: the run ends while the browser is away.
        gate = threading.Event()
        model.push(
            tool_calls(call("calculator", {"expression": "2 + 3"})).held_until(gate),
            final("The answer is 5."),
        )
        space = await quiver.create_space(unique("outage_agent").replace("-", "_"))
        created = (
            await quiver.graphql(
                "mutation A($input: CreateAgentInput!) "
                "{ createAgent(input: $input) { agent { id } userErrors { message } } }",
                {
                    "input": {
                        "spaceId": space,
                        "name": "Adder",
                        "model": model.name,
                        "systemPrompt": "You add numbers with the calculator.",
                        "maxSteps": 5,
                        "activatedToolIds": ["bt_calculator"],
                    }
                },
            )
        )["createAgent"]
        assert created["userErrors"] == [], created
        page = visit.page
        outage = Outage()
        await outage.route(page)
        await visit.sign_in(ADMIN_TOKEN)
        await visit.open(f"/console/agents/{created['agent']['id']}")
        await expect(page.get_by_role("heading", level=1)).to_have_text("Agent Adder")

        await page.get_by_label("Message", exact=True).fill("What is 2 + 3?")
        await page.get_by_role("button", name="Run agent").click()
        run = page.get_by_role("region", name="Run the agent")
        await expect(run).to_contain_text("RUNNING")
        await outage.cut()
        await expect(run.get_by_role("status")).to_contain_text("Reconnecting")
        gate.set()
        # The run goes on without the browser: wait for it to end on the server.
        runs = await quiver.graphql(
            "query R($id: ID!) { agent(id: $id) { runs(first: 1) { edges { node { id } } } } }",
            {"id": created["agent"]["id"]},
        )
        run_id = runs["agent"]["runs"]["edges"][0]["node"]["id"]
        for _ in range(200):
            state = await quiver.graphql("query R($id: ID!) { agentRun(id: $id) { status } }", {"id": run_id})
            if state["agentRun"]["status"] != "RUNNING":
                break
            await page.wait_for_timeout(100)
        assert state["agentRun"]["status"] == "SUCCEEDED", state

        outage.restore()
        await expect(run).to_contain_text("SUCCEEDED", timeout=60_000)
        await expect(run).to_contain_text("The answer is 5.")
        await expect(run.get_by_role("alert")).to_have_count(0)
        await visit.screenshot("run-recovered")
