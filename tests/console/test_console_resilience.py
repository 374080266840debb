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


async def invoke_calculator(quiver: Quiver, space: str) -> None:
    result = (
        await quiver.graphql(
            "mutation C($input: InvokeToolInput!) { invokeTool(input: $input) { status } }",
            {"input": {"spaceId": space, "toolId": "bt_calculator", "arguments": {"expression": "6 * 7"}}},
        )
    )["invokeTool"]
    assert result["status"] == "SUCCESS", result


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
