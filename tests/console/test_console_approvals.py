"""The Approvals page in a real browser, against a real `quiver serve` and the scripted model
server: an agent whose calculator calls wait for a person (toolApprovals ALWAYS) makes runs
that wait, and the page shows, approves and rejects them — checked through the API."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from typing import Any

from tests.console.conftest import ADMIN_TOKEN, Quiver, Visit
from tests.console.test_console_browser import expect, unique
from tests.support.openai_server import call, final, tool_calls

# The subscription brings a new request or a decision elsewhere at once (the page's safety-net
# poll is every 30 s while live); well inside this.
LIVE_TIMEOUT_MS = 20_000

CREATE_AGENT = """
mutation A($input: CreateAgentInput!) { createAgent(input: $input) { agent { id name } userErrors { message } } }
"""
INVOKE = """
mutation I($input: InvokeAgentInput!) { invokeAgent(input: $input) { run { id status } userErrors { message } } }
"""
RUN = """
query R($id: ID!) {
  agentRun(id: $id) {
    id status output
    toolCalls { id toolId status result approval { decision decidedBy comment } }
  }
}
"""
PENDING = "query P($space: ID!) { pendingApprovals(spaceId: $space) { edges { node { id run { id } } } } }"
APPROVE = """
mutation D($input: ApproveToolCallInput!) { approveToolCall(input: $input) { userErrors { code } } }
"""


@dataclass
class Waiting:
    """An agent run waiting for approval of its calculator call."""

    space: str
    agent_id: str
    agent_name: str
    run_id: str
    call_id: str


async def approval_agent(quiver: Quiver, space: str, expression: str = "6 * 7") -> tuple[str, str, Any]:
    """An agent of the space whose calculator calls wait for a person, and its scripted model."""
    model = quiver.model_server.model("approvals")
    model.push(tool_calls(call("calculator", {"expression": expression})), final("Done with the calculator."))
    name = unique("Approver test agent")
    created = (
        await quiver.graphql(
            CREATE_AGENT,
            {
                "input": {
                    "spaceId": space,
                    "name": name,
                    "model": model.name,
                    "systemPrompt": "You compute with the calculator.",
                    "activatedToolIds": ["bt_calculator"],
                    "toolApprovals": [{"toolId": "bt_calculator", "approval": "ALWAYS"}],
                }
            },
        )
    )["createAgent"]
    assert created["userErrors"] == [], created
    return created["agent"]["id"], name, model


async def run_status(quiver: Quiver, run_id: str) -> dict[str, Any]:
    run: dict[str, Any] = (await quiver.graphql(RUN, {"id": run_id}))["agentRun"]
    return run


async def wait_for_run(quiver: Quiver, run_id: str, statuses: set[str], timeout_s: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        run = await run_status(quiver, run_id)
        if run["status"] in statuses:
            return run
        assert time.monotonic() < deadline, f"run {run_id} is {run['status']}, not {statuses}"
        await asyncio.sleep(0.2)


async def start_run(quiver: Quiver, agent_id: str) -> str:
    invoked = (
        await quiver.graphql(INVOKE, {"input": {"agentId": agent_id, "message": "What is 6 * 7?", "async": True}})
    )["invokeAgent"]
    assert invoked["userErrors"] == [], invoked
    return str(invoked["run"]["id"])


async def waiting_run(quiver: Quiver, space: str | None = None, expression: str = "6 * 7") -> Waiting:
    space = space or await quiver.create_space(unique("approvals").replace("-", "_"))
    agent_id, agent_name, _ = await approval_agent(quiver, space, expression)
    run_id = await start_run(quiver, agent_id)
    run = await wait_for_run(quiver, run_id, {"WAITING_APPROVAL"})
    [pending] = [item for item in run["toolCalls"] if item["status"] == "PENDING_APPROVAL"]
    return Waiting(space, agent_id, agent_name, run_id, pending["id"])


def approval(visit: Visit, call_id: str) -> Any:
    return visit.page.get_by_role("region", name=f"Approval {call_id}")


class TestApprovalsPage:
    async def test_a_waiting_run_shows_and_approving_it_lets_the_run_finish(self, visit: Visit, quiver: Quiver) -> None:
        waiting = await waiting_run(quiver)
        await visit.sign_in(ADMIN_TOKEN)
        await visit.go("Approvals")
        await visit.page.get_by_label("Space").select_option(waiting.space)

        card = approval(visit, waiting.call_id)
        await expect(card).to_contain_text("calculator")
        await expect(card).to_contain_text(waiting.agent_name)
        await expect(card).to_contain_text("WAITING_APPROVAL")
        await expect(card).to_contain_text(re.compile(r"waiting \d+ (s|min)"))
        await expect(card).to_contain_text(re.compile(r"· in 23 h"))  # QUIVER_APPROVAL_TIMEOUT_S: a day
        await expect(card.get_by_label(f"Proposed arguments of {waiting.call_id}")).to_contain_text(
            '"expression": "6 * 7"'
        )
        await expect(card.get_by_role("link", name=f"Run {waiting.run_id}")).to_have_attribute(
            "href", f"/console/agents/{waiting.agent_id}?run={waiting.run_id}"
        )
        # The navigation counts the waiting calls of the space the page shows.
        navigation = visit.page.get_by_role("navigation", name="Pages", exact=True)
        await expect(navigation).to_contain_text("1 pending approval")
        await visit.screenshot("waiting")

        await card.get_by_label("Comment").fill("customer verified")
        await card.get_by_role("button", name="Approve").click()
        await expect(visit.page.get_by_role("status").filter(has_text="Approved calculator")).to_be_visible()
        await expect(card).to_have_count(0)
        await expect(visit.page.get_by_text("Nothing waits for a decision in this space.")).to_be_visible()
        await expect(navigation).not_to_contain_text("pending approval")

        run = await wait_for_run(quiver, waiting.run_id, {"SUCCEEDED", "FAILED", "MAX_STEPS"})
        assert run["status"] == "SUCCEEDED", run
        assert run["output"] == "Done with the calculator."
        [decided] = run["toolCalls"]
        assert decided["status"] == "SUCCESS" and decided["result"] is not None
        assert decided["approval"]["decision"] == "APPROVED"
        assert decided["approval"]["comment"] == "customer verified"

        # The run link opens that run on its agent's page.
        await visit.open(f"/console/agents/{waiting.agent_id}?run={waiting.run_id}")
        opened = visit.page.locator(f"details[id='{waiting.run_id}']")
        await expect(opened).to_have_attribute("open", "")
        await expect(opened).to_contain_text("SUCCEEDED")

    async def test_a_space_admin_rejects_with_a_comment_that_is_recorded(self, visit: Visit, quiver: Quiver) -> None:
        waiting = await waiting_run(quiver)
        key = await quiver.create_key("--space", waiting.space, "--role", "SPACE_ADMIN")
        await visit.sign_in(key)
        await visit.go("Approvals")
        card = approval(visit, waiting.call_id)
        await expect(card).to_contain_text("calculator")

        # Longer than the API allows: its userError stands beside the field.
        comment = card.get_by_label("Comment")
        await comment.fill("x" * 2001)
        await card.get_by_role("button", name="Reject").click()
        await expect(comment).to_have_attribute("aria-invalid", "true")
        await expect(card.locator(".field.invalid .field-error")).to_contain_text("At most 2000 characters.")
        await visit.screenshot("comment-too-long")
        assert (await run_status(quiver, waiting.run_id))["status"] == "WAITING_APPROVAL"

        await comment.fill("no receipt attached")
        await card.get_by_role("button", name="Reject").click()
        await expect(visit.page.get_by_role("status").filter(has_text="Rejected calculator")).to_be_visible()
        await expect(card).to_have_count(0)

        run = await wait_for_run(quiver, waiting.run_id, {"SUCCEEDED", "FAILED", "MAX_STEPS"})
        [rejected] = run["toolCalls"]
        assert rejected["status"] == "FAILED"
        assert rejected["approval"]["decision"] == "REJECTED"
        assert rejected["approval"]["comment"] == "no receipt attached"
        key_id = (await quiver.graphql("{ viewer { keyId } }", key=key))["viewer"]["keyId"]
        assert rejected["approval"]["decidedBy"] == key_id

    async def test_viewers_and_members_read_the_list_without_decide_buttons(self, visit: Visit, quiver: Quiver) -> None:
        waiting = await waiting_run(quiver)
        for role in ("VIEWER", "MEMBER"):
            key = await quiver.create_key("--space", waiting.space, "--role", role)
            await visit.sign_in(key)
            await visit.go("Approvals")
            card = approval(visit, waiting.call_id)
            await expect(card).to_contain_text("calculator")
            await expect(card).to_contain_text('"expression": "6 * 7"')
            await expect(
                visit.page.get_by_text("Read only: a SPACE_ADMIN of this space or an ADMIN decides.")
            ).to_be_visible()
            assert await card.get_by_role("button").count() == 0, role
            assert await card.get_by_label("Comment").count() == 0, role
            navigation = visit.page.get_by_role("navigation", name="Pages", exact=True)
            await expect(navigation).not_to_contain_text("pending approval")
            await visit.screenshot(f"read-only-{role.lower()}")
            await visit.page.get_by_role("button", name="Sign out").click()
        assert (await run_status(quiver, waiting.run_id))["status"] == "WAITING_APPROVAL"

    async def test_another_spaces_approvals_are_not_shown(self, visit: Visit, quiver: Quiver) -> None:
        mine = await waiting_run(quiver, expression="1 + 1")
        theirs = await waiting_run(quiver, expression="2 + 2")

        # A SPACE_ADMIN of one space: an address naming the other still shows only its own.
        key = await quiver.create_key("--space", mine.space, "--role", "SPACE_ADMIN")
        await visit.sign_in(key)
        await visit.open(f"/console/approvals?space={theirs.space}")
        await expect(approval(visit, mine.call_id)).to_be_visible()
        await expect(visit.page.get_by_text("1 call waiting.")).to_be_visible()
        await expect(approval(visit, theirs.call_id)).to_have_count(0)
        await expect(visit.page.locator("main")).not_to_contain_text("2 + 2")
        await visit.page.get_by_role("button", name="Sign out").click()

        # An ADMIN sees each space's own list.
        await visit.sign_in(ADMIN_TOKEN)
        await visit.open(f"/console/approvals?space={mine.space}")
        await expect(approval(visit, mine.call_id)).to_be_visible()
        await expect(approval(visit, theirs.call_id)).to_have_count(0)
        await visit.page.get_by_label("Space").select_option(theirs.space)
        await expect(approval(visit, theirs.call_id)).to_be_visible()
        await expect(approval(visit, mine.call_id)).to_have_count(0)

    async def test_new_requests_and_decisions_elsewhere_show_without_a_reload(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        space = await quiver.create_space(unique("live_approvals").replace("-", "_"))
        await visit.sign_in(ADMIN_TOKEN)
        await visit.open(f"/console/approvals?space={space}")
        await expect(visit.page.get_by_text("Nothing waits for a decision in this space.")).to_be_visible()
        # The approvalRequests subscription is running: no poll is needed to see what follows.
        await expect(visit.page.get_by_text("Live: requests and decisions appear as they happen.")).to_be_visible()
        # Gone after a reload: shows the page below was never loaded again.
        await visit.page.evaluate("window.__stillTheSamePage = true")

        waiting = await waiting_run(quiver, space)
        card = approval(visit, waiting.call_id)
        await expect(card).to_contain_text("calculator", timeout=LIVE_TIMEOUT_MS)
        await expect(visit.page.get_by_text("1 call waiting.")).to_be_visible()
        await visit.screenshot("arrived")

        # Another person approves it through the API: it leaves the page.
        decided = (await quiver.graphql(APPROVE, {"input": {"toolCallId": waiting.call_id}}))["approveToolCall"]
        assert decided["userErrors"] == []
        await expect(card).to_have_count(0, timeout=LIVE_TIMEOUT_MS)
        await expect(visit.page.get_by_text("Nothing waits for a decision in this space.")).to_be_visible()
        assert await visit.page.evaluate("window.__stillTheSamePage === true")
        assert (await quiver.graphql(PENDING, {"space": space}))["pendingApprovals"]["edges"] == []


class TestApprovalsPageOutage:
    async def test_both_lists_failing_show_one_message_and_one_try_again_that_loads_both(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        """The page loads two lists (the spaces for its picker, the space's waiting calls); a
        gateway answering 503 fails both, and the page said so twice, with two buttons."""
        space = await quiver.create_space(unique("approvals_down").replace("-", "_"))
        page = visit.page
        await visit.sign_in(ADMIN_TOKEN)
        down = True
        refused: list[str] = []
        # Both answered at once, once both have been asked: the page has both failures together.
        both_asked = asyncio.Event()

        async def gateway(route: Any) -> None:
            query = str((route.request.post_data_json or {}).get("query", ""))
            named = re.search(r"\bquery (\w+)", query)
            if down and named and named.group(1) in ("SpaceOptions", "PendingApprovals"):
                refused.append(named.group(1))
                if {"SpaceOptions", "PendingApprovals"} <= set(refused):
                    both_asked.set()
                await both_asked.wait()
                await route.fulfill(status=503, content_type="text/plain", body="503 Service Unavailable")
            else:
                await route.continue_()

        await page.route(re.compile(r"/graphql$"), gateway)
        await visit.open(f"/console/approvals?space={space}")
        await expect(page.get_by_role("heading", level=1)).to_have_text("Approvals")

        alert = page.get_by_role("alert")
        # One message, said once (not "The server answered 503." twice), in one alert.
        await expect(alert.locator("p")).to_have_text("The server answered 503.")
        await expect(alert).to_have_count(1)
        await expect(page.get_by_role("button", name="Try again")).to_have_count(1)
        assert {"SpaceOptions", "PendingApprovals"} <= set(refused), refused
        await visit.screenshot("both-lists-down")

        down = False
        await page.get_by_role("button", name="Try again").click()
        await expect(page.get_by_text("Nothing waits for a decision in this space.")).to_be_visible()
        await expect(page.get_by_label("Space")).to_have_value(space)
        await expect(page.get_by_label("Space").locator(f"option[value='{space}']")).to_have_count(1)
        await expect(alert).to_have_count(0)
