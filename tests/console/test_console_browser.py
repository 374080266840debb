"""The console in a real browser, against a real `quiver serve`: what a person does, found by role
and accessible name. Screenshots land in artifacts/console/ (not committed)."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

from tests.console.conftest import ADMIN_TOKEN, Quiver, Visit
from tests.support.mcp import TIME_SERVER_COMMAND
from tests.support.openai_server import call, final, tool_calls

NAVIGATION = ["Spaces", "Tools", "MCP servers", "Knowledge", "Skills", "Agents", "Approvals", "Live calls", "API keys"]
CREATE_CONTROL = re.compile(r"^\s*(Create|New|Add|Register|Import)\b", re.IGNORECASE)
# Revocation is noticed by the console's poll plus the server's key cache: well inside this.
SIGN_OUT_DEADLINE_MS = 15_000
# GraphiQL's subscription: tool calls made until one of their events shows, and how long each gets.
SUBSCRIPTION_CALLS = 10
SUBSCRIPTION_EVENT_MS = 3_000
EN_DASH = "\u2013"  # between a pager's first and last row number


def expect(locator: Any) -> Any:
    from playwright.async_api import expect as playwright_expect

    return playwright_expect(locator)


def unique(prefix: str) -> str:
    return f"{prefix}-{time.monotonic_ns() % 10**9}"


async def create_controls(visit: Visit) -> list[str]:
    """Names of the buttons and links that create something, on the current page."""
    found: list[str] = []
    for role in ("button", "link"):
        for element in await visit.page.get_by_role(role).all():
            name = (await element.inner_text()).strip()
            if CREATE_CONTROL.match(name):
                found.append(name)
    return found


async def unlabelled_controls(visit: Visit) -> list[str]:
    """Inputs, selects and textareas without an accessible name (label, aria-label, aria-labelledby)."""
    result: list[str] = await visit.page.evaluate(
        """() => [...document.querySelectorAll('main input, main select, main textarea')]
            .filter((el) => el.type !== 'hidden' && !(el.labels && el.labels.length)
                && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby')
                && !el.closest('[role=region][aria-label]'))
            .map((el) => el.outerHTML.slice(0, 120))"""
    )
    return result


class TestSignIn:
    async def test_root_redirects_and_a_key_signs_in_showing_who_it_is(self, visit: Visit) -> None:
        await visit.open("/")
        await expect(visit.page).to_have_url(re.compile(r"/console/?$"))
        await visit.page.get_by_label("API key").fill("qk_not-a-real-key")
        await visit.page.get_by_role("button", name="Sign in").click()
        await expect(visit.page.get_by_role("alert")).to_contain_text("refused")
        await visit.screenshot("refused")

        await visit.page.get_by_label("API key").fill(ADMIN_TOKEN)
        await visit.page.get_by_role("button", name="Sign in").click()

        navigation = visit.page.get_by_role("navigation", name="Pages", exact=True)
        await expect(navigation.get_by_role("link")).to_have_text(NAVIGATION)
        await expect(visit.page.get_by_label("Signed in as")).to_contain_text("ADMIN")
        await expect(visit.page.get_by_label("Signed in as")).to_contain_text("every space")
        await visit.screenshot("signed-in")

    async def test_every_page_has_labelled_controls_and_a_screenshot(self, visit: Visit) -> None:
        await visit.sign_in(ADMIN_TOKEN)
        for name in NAVIGATION:
            await visit.go(name)
            await visit.page.wait_for_load_state("networkidle")
            assert await unlabelled_controls(visit) == [], name
            await visit.screenshot(name.lower().replace(" ", "-"))

    async def test_keyboard_reaches_the_navigation_with_a_visible_focus(self, visit: Visit) -> None:
        await visit.sign_in(ADMIN_TOKEN)
        await visit.page.keyboard.press("Tab")
        await expect(visit.page.get_by_role("link", name="Skip to content")).to_be_focused()

        for _ in range(12):
            await visit.page.keyboard.press("Tab")
            if await visit.page.evaluate("document.activeElement.textContent") == "Tools":
                break
        focused = visit.page.locator(":focus")
        await expect(focused).to_have_text("Tools")
        outline = await visit.page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline not in ("", "none")
        await visit.page.keyboard.press("Enter")
        await expect(visit.page.get_by_role("heading", level=1, name="Tools")).to_be_focused()


class TestSpacesAndTools:
    async def test_create_a_space_and_a_custom_tool_bind_it_and_see_visibility_change(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        page = visit.page
        other = await quiver.create_space(unique("other").replace("-", "_"))
        await visit.sign_in(ADMIN_TOKEN)
        await visit.go("Spaces")
        await page.get_by_role("link", name="Create space").click()
        space_name = unique("support").replace("-", "_")
        await page.get_by_label("Name", exact=True).fill("Not Valid!")
        await page.get_by_label("Label", exact=True).fill("Support")
        await page.get_by_role("button", name="Create space").click()
        # The userError sits next to the field it names.
        await expect(page.get_by_label("Name", exact=True)).to_have_attribute("aria-invalid", "true")
        name_error = page.locator(".field.invalid .field-error")
        await expect(name_error).to_be_visible()
        await visit.screenshot("space-name-error")
        await page.get_by_label("Name", exact=True).fill(space_name)
        await page.get_by_role("button", name="Create space").click()
        await expect(page.get_by_role("heading", level=1)).to_have_text("Space Support")
        found = re.search(r"/console/spaces/(sp_[^/?]+)", page.url)
        assert found, page.url
        space_id = found.group(1)

        await visit.go("Tools")
        await page.get_by_role("link", name="Create tool").click()
        tool_name = unique("lookup_order").replace("-", "_")
        await page.get_by_label("Name", exact=True).fill(tool_name)
        await page.get_by_label("Label", exact=True).fill("Look up an order")
        await page.get_by_label("Description").fill("Fetch an order by id.")
        await page.get_by_label("Endpoint").fill(quiver.tool_server.url(f"/ok/{tool_name}"))
        await page.get_by_label("Authentication").select_option("BEARER")
        await page.get_by_label("Secret").fill("s3cret-never-shown")
        await page.get_by_role("button", name="Create tool").click()
        await expect(page.get_by_role("heading", level=1)).to_have_text(f"Tool {tool_name}")
        bindings = page.get_by_role("region", name="Bindings")
        await expect(bindings).to_contain_text("global")
        assert "s3cret-never-shown" not in await page.content()
        await visit.screenshot("tool-global")

        await bindings.get_by_label(re.compile(rf"\({space_name}\)")).check()
        await bindings.get_by_role("button", name="Save bindings").click()
        await expect(bindings).to_contain_text("only these spaces see it: Support")
        await visit.screenshot("tool-bound")

        # Visible in its space, gone from the other one.
        await visit.open(f"/console/spaces/{space_id}")
        await expect(page.get_by_role("region", name=re.compile("^Tools"))).to_contain_text(tool_name)
        await visit.open(f"/console/spaces/{other}")
        await expect(page.get_by_role("region", name=re.compile("^Tools"))).not_to_contain_text(tool_name)

        # The list filters down to it.
        await visit.go("Tools")
        await page.get_by_label("Search").fill(tool_name)
        await page.get_by_label("Binding").select_option("bound")
        rows = page.get_by_role("table", name="Tools").get_by_role("row")
        await expect(rows).to_have_count(2)
        await expect(rows.nth(1)).to_contain_text(tool_name)


class TestPaging:
    async def test_the_spaces_list_pages_forward_and_back(self, visit: Visit, quiver: Quiver) -> None:
        """The pager of a list (one component for every list of the console): 50 a page, the
        range it shows, Next and Previous following the connection's cursors."""
        count = "{ spaces(first: 1) { totalCount } }"
        total = (await quiver.graphql(count))["spaces"]["totalCount"]
        for _ in range(max(0, 51 - total)):
            await quiver.create_space(unique("paged").replace("-", "_"))
        total = (await quiver.graphql(count))["spaces"]["totalCount"]
        assert 50 < total <= 100
        page = visit.page
        await visit.sign_in(ADMIN_TOKEN)
        await visit.go("Spaces")
        pager = page.get_by_role("navigation", name="Spaces pages")
        rows = page.get_by_role("table", name="Spaces").get_by_role("row")

        await expect(pager).to_contain_text(f"1{EN_DASH}50 of {total}")
        await expect(rows).to_have_count(51)  # with the header row
        await expect(pager.get_by_role("button", name="Previous page")).to_be_disabled()
        first_space = await rows.nth(1).get_by_role("link").inner_text()
        await pager.get_by_role("button", name="Next page").click()

        await expect(pager).to_contain_text(f"51{EN_DASH}{total} of {total}")
        await expect(rows).to_have_count(total - 50 + 1)
        await expect(pager.get_by_role("button", name="Next page")).to_be_disabled()
        await expect(rows.nth(1).get_by_role("link")).not_to_have_text(first_space)
        await pager.get_by_role("button", name="Previous page").click()

        await expect(pager).to_contain_text(f"1{EN_DASH}50 of {total}")
        await expect(rows.nth(1).get_by_role("link")).to_have_text(first_space)


class TestLiveCalls:
    async def test_a_call_made_outside_the_browser_arrives_and_opens(self, visit: Visit, quiver: Quiver) -> None:
        space = await quiver.create_space(unique("live").replace("-", "_"))
        await visit.sign_in(ADMIN_TOKEN)
        await visit.go("Live calls")
        await expect(visit.page.get_by_role("status").first).to_contain_text("Listening")
        # The server does not confirm a subscription, so a call made before it registered is not
        # streamed: call until one arrives (each call is a new row), as a user would look again.
        table = visit.page.get_by_role("table", name=re.compile("Live tool calls"))
        trace_ids: list[str] = []
        for _ in range(SUBSCRIPTION_CALLS):
            result = (
                await quiver.graphql(
                    "mutation C($input: InvokeToolInput!) { invokeTool(input: $input) { status traceId } }",
                    {"input": {"spaceId": space, "toolId": "bt_calculator", "arguments": {"expression": "6 * 7"}}},
                )
            )["invokeTool"]
            assert result["status"] == "SUCCESS"
            trace_ids.append(result["traceId"])
            try:
                await expect(table.get_by_role("row").nth(1)).to_contain_text(
                    "bt_calculator", timeout=SUBSCRIPTION_EVENT_MS
                )
                break
            except AssertionError:
                continue
        await expect(table.get_by_role("row").nth(1)).to_contain_text("bt_calculator")
        await visit.screenshot("call-arrived")
        await table.get_by_role("button", name=re.compile("^Open call")).first.click()
        detail = visit.page.get_by_role("region", name=re.compile("^Call tc_"))
        await expect(detail).to_contain_text("42")
        opened = await detail.inner_text()
        assert any(trace_id in opened for trace_id in trace_ids), (trace_ids, opened)
        await visit.screenshot("call-open")


class TestMcpServers:
    async def test_register_and_sync_a_server_and_read_the_result(self, visit: Visit) -> None:
        page = visit.page
        await visit.sign_in(ADMIN_TOKEN)
        await visit.go("MCP servers")
        await page.get_by_role("button", name="Register MCP server").click()
        name = unique("time")
        await page.get_by_label("Name", exact=True).fill(name)
        await page.get_by_label("Transport").select_option("STDIO")
        await page.get_by_label("Command").fill(" ".join(TIME_SERVER_COMMAND))
        await page.get_by_role("button", name="Register server").click()
        await page.get_by_role("button", name=f"Sync {name}").click()

        result = page.get_by_role("status", name="Sync result")
        await expect(result).to_contain_text("2 added, 0 changed, 0 disabled", timeout=60_000)
        server = page.get_by_role("region", name=re.compile(f"^{name}"))
        await expect(server.get_by_role("link", name="get_current_time")).to_be_visible()
        await visit.screenshot("synced")


class TestKnowledge:
    async def test_create_a_base_upload_a_file_and_search_it(
        self, visit: Visit, quiver: Quiver, tmp_path: Path
    ) -> None:
        page = visit.page
        space = await quiver.create_space(unique("kb").replace("-", "_"))
        document = tmp_path / "returns.md"
        document.write_text(
            "# Returns policy\n\n## Refunds\n\nRefunds reach the card within 5 business days.\n\n"
            "## 退货\n\n七天内可以无理由退货。\n",
            encoding="utf-8",
        )
        await visit.sign_in(ADMIN_TOKEN)
        await visit.go("Knowledge")
        await page.get_by_role("link", name="Create knowledge base").click()
        await page.get_by_label("Space").select_option(space)
        await page.get_by_label("Name", exact=True).fill("policies")
        await page.get_by_label("Label", exact=True).fill("Policies")
        await page.get_by_role("button", name="Create knowledge base").click()
        await expect(page.get_by_role("heading", level=1)).to_have_text("Knowledge base Policies")

        await page.get_by_label("Files (.md, .txt, .html)").set_input_files(str(document))
        await expect(page.get_by_role("status")).to_contain_text("returns.md: created")
        await expect(page.get_by_role("table", name=re.compile("^Documents"))).to_contain_text("Returns policy")

        search = page.get_by_role("search", name="Search knowledge")
        await search.get_by_label("Query").fill("refund card")
        await search.get_by_role("button", name="Search").click()
        hits = page.get_by_role("list", name="Search results")
        await expect(hits.get_by_role("listitem").first).to_contain_text("Returns policy \u203a Refunds")
        await expect(hits.get_by_role("listitem").first).to_contain_text("score")
        await expect(hits.get_by_role("listitem").first).to_contain_text("Cite: Returns policy, returns.md")
        await visit.screenshot("search")


class TestKnowledgeBaseOutage:
    async def test_the_base_and_the_spaces_failing_show_one_message_and_one_try_again_that_loads_both(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        """A base's page loads the base (name, space, documents: one query) and, for an admin's search
        playground, the spaces; both failing are said once, and one Try again loads both."""
        space = await quiver.create_space(unique("kb_down").replace("-", "_"))
        created = (
            await quiver.graphql(
                "mutation K($input: CreateKnowledgeBaseInput!) "
                "{ createKnowledgeBase(input: $input) { knowledgeBase { id } userErrors { message } } }",
                {"input": {"spaceId": space, "name": "manuals", "label": "Manuals"}},
            )
        )["createKnowledgeBase"]
        assert created["userErrors"] == [], created
        base = created["knowledgeBase"]["id"]
        added = (
            await quiver.graphql(
                "mutation D($input: AddDocumentInput!) { addDocument(input: $input) { userErrors { message } } }",
                {"input": {"knowledgeBaseId": base, "title": "Pump manual", "text": "Prime the pump first."}},
            )
        )["addDocument"]
        assert added["userErrors"] == [], added

        page = visit.page
        await visit.sign_in(ADMIN_TOKEN)
        loads = {"KnowledgeBaseDetail", "SpaceOptions"}
        down = True
        refused: list[str] = []
        answered: list[str] = []
        # Both answered at once, once both have been asked: the page has both failures together.
        both_asked = asyncio.Event()

        async def gateway(route: Any) -> None:
            query = str((route.request.post_data_json or {}).get("query", ""))
            named = re.search(r"\bquery (\w+)", query)
            if not (named and named.group(1) in loads):
                await route.continue_()
            elif down:
                refused.append(named.group(1))
                if loads <= set(refused):
                    both_asked.set()
                await both_asked.wait()
                await route.fulfill(status=503, content_type="text/plain", body="503 Service Unavailable")
            else:
                answered.append(named.group(1))
                await route.continue_()

        await page.route(re.compile(r"/graphql$"), gateway)
        await visit.open(f"/console/knowledge/{base}")
        alert = page.get_by_role("alert")
        # One message, said once (not "The server answered 503." twice), in one alert.
        await expect(alert.locator("p")).to_have_text("The server answered 503.")
        await expect(alert).to_have_count(1)
        await expect(page.get_by_role("button", name="Try again")).to_have_count(1)
        await expect(page.get_by_role("heading", level=1)).to_have_text("Knowledge base")
        assert loads <= set(refused), refused
        await visit.screenshot("both-loads-down")

        down = False
        await page.get_by_role("button", name="Try again").click()
        await expect(page.get_by_role("heading", level=1)).to_have_text("Knowledge base Manuals")
        await expect(page.get_by_role("table", name=re.compile("^Documents"))).to_contain_text("Pump manual")
        search = page.get_by_role("search", name="Search knowledge")
        await expect(search).to_be_visible()
        await expect(search.get_by_label("Space").locator(f"option[value='{space}']")).to_have_count(1)
        await expect(alert).to_have_count(0)
        assert sorted(answered) == sorted(loads), answered


class TestKnowledgeBaseDetail:
    async def test_a_base_past_the_first_hundred_shows_its_name_documents_and_search(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        """The page read its base out of the first 100 bases: one further on had no name, no upload
        and no search playground (and no error). It reads the base by id now."""
        space = await quiver.create_space(unique("kb_many").replace("-", "_"))
        created: list[dict[str, str]] = []
        # 5 requests of 25 bases (25 aliases a request: under the 30 the API allows).
        for batch in range(5):
            fields = " ".join(
                f'k{i}: createKnowledgeBase(input: {{spaceId: "{space}", name: "many_{batch}_{i}", '
                f'label: "Many {batch}-{i}"}}) {{ knowledgeBase {{ id label }} userErrors {{ message }} }}'
                for i in range(25)
            )
            data = await quiver.graphql(f"mutation M {{ {fields} }}")
            for i in range(25):
                payload = data[f"k{i}"]
                assert payload["userErrors"] == [], payload
                created.append(payload["knowledgeBase"])
        first_hundred = await quiver.graphql("{ knowledgeBases(first: 100) { edges { node { id } } } }")
        listed = {edge["node"]["id"] for edge in first_hundred["knowledgeBases"]["edges"]}
        beyond = [item for item in created if item["id"] not in listed]
        assert beyond, "every base created is among the first 100"
        base = beyond[-1]
        added = (
            await quiver.graphql(
                "mutation D($input: AddDocumentInput!) { addDocument(input: $input) { userErrors { message } } }",
                {"input": {"knowledgeBaseId": base["id"], "title": "Valve manual", "text": "Close the valve slowly."}},
            )
        )["addDocument"]
        assert added["userErrors"] == [], added

        page = visit.page
        await visit.sign_in(ADMIN_TOKEN)
        await visit.open(f"/console/knowledge/{base['id']}")
        await expect(page.get_by_role("heading", level=1)).to_have_text(f"Knowledge base {base['label']}")
        await expect(page.locator("dl.facts")).to_contain_text(
            base["label"].replace("Many ", "many_").replace("-", "_")
        )
        await expect(page.get_by_role("table", name=re.compile("^Documents"))).to_contain_text("Valve manual")
        await expect(page.get_by_label("Files (.md, .txt, .html)")).to_be_visible()
        search = page.get_by_role("search", name="Search knowledge")
        await search.get_by_label("Space").select_option(space)
        await search.get_by_label("Query").fill("valve")
        await search.get_by_role("button", name="Search").click()
        hits = page.get_by_role("list", name="Search results")
        await expect(hits.get_by_role("listitem").first).to_contain_text("Valve manual")
        await expect(page.get_by_role("alert")).to_have_count(0)

    async def test_an_unknown_base_says_not_found(self, visit: Visit) -> None:
        page = visit.page
        await visit.sign_in(ADMIN_TOKEN)
        await visit.open("/console/knowledge/kb_doesnotexist")
        await expect(page.get_by_role("heading", level=1)).to_have_text("Knowledge base not found")
        await expect(page.get_by_role("main")).to_contain_text(
            "No knowledge base kb_doesnotexist is visible to this key."
        )
        await expect(page.get_by_role("link", name="Back to Knowledge")).to_be_visible()
        await visit.screenshot("not-found")


class TestSpaceOptionsOutage:
    @staticmethod
    async def spaces_down(visit: Visit) -> dict[str, bool]:
        """The spaces query answered 503 while state["down"]."""
        state = {"down": True}

        async def gateway(route: Any) -> None:
            query = str((route.request.post_data_json or {}).get("query", ""))
            if state["down"] and re.search(r"\bquery SpaceOptions\b", query):
                await route.fulfill(status=503, content_type="text/plain", body="503 Service Unavailable")
            else:
                await route.continue_()

        await visit.page.route(re.compile(r"/graphql$"), gateway)
        return state

    async def test_the_tools_list_says_the_spaces_failed_and_try_again_fills_the_space_filter(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        """The Space filter stayed empty with no word of why when the spaces could not be loaded."""
        space = await quiver.create_space(unique("tools_sp").replace("-", "_"))
        page = visit.page
        await visit.sign_in(ADMIN_TOKEN)
        state = await self.spaces_down(visit)
        await visit.open("/console/tools")
        alert = page.get_by_role("alert")
        await expect(alert.locator("p")).to_have_text("The server answered 503.")
        filter_ = page.get_by_role("search", name="Filter tools").get_by_label("Space")
        await expect(filter_.locator("option")).to_have_count(1)
        await expect(page.get_by_role("table").first).to_be_visible()

        state["down"] = False
        await page.get_by_role("button", name="Try again").click()
        await expect(filter_.locator(f"option[value='{space}']")).to_have_count(1)
        await expect(alert).to_have_count(0)

    async def test_the_create_form_says_so_next_to_the_space_dropdown_and_try_again_fills_it(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        space = await quiver.create_space(unique("kbnew_sp").replace("-", "_"))
        page = visit.page
        await visit.sign_in(ADMIN_TOKEN)
        state = await self.spaces_down(visit)
        await visit.open("/console/knowledge/new")
        alert = page.get_by_role("alert")
        await expect(alert.locator("p")).to_have_text("The spaces could not be loaded: The server answered 503.")
        dropdown = page.get_by_label("Space")
        await expect(dropdown.locator("option")).to_have_count(0)
        await visit.screenshot("spaces-down")

        state["down"] = False
        await alert.get_by_role("button", name="Try again").click()
        await expect(dropdown.locator(f"option[value='{space}']")).to_have_count(1)
        await expect(alert).to_have_count(0)
        # Try again does not submit the form around it.
        await expect(page.get_by_role("heading", level=1)).to_have_text("Create knowledge base")


class TestAgents:
    async def test_run_an_agent_and_watch_its_events(self, visit: Visit, quiver: Quiver) -> None:
        model = quiver.model_server.model("console")
        # Delays keep the run going while the browser subscribes to its events.
        model.push(
            tool_calls(call("calculator", {"expression": "2 + 3"}), delay_s=1.0),
            final("The answer is 5.", delay_s=0.5),
        )
        space = await quiver.create_space(unique("agents").replace("-", "_"))
        page = visit.page
        await visit.sign_in(ADMIN_TOKEN)
        await visit.go("Agents")
        await page.get_by_role("link", name="Create agent").click()
        await page.get_by_label("Space").select_option(space)
        await page.get_by_label("Name", exact=True).fill("Adder")
        await page.get_by_label("Model").fill(model.name)
        await page.get_by_label("System prompt").fill("You add numbers with the calculator.")
        await page.get_by_role("checkbox", name=re.compile("^calculator")).check()
        await page.get_by_role("button", name="Create agent").click()
        await expect(page.get_by_role("heading", level=1)).to_have_text("Agent Adder")

        await page.get_by_role("button", name="Preview prompt").click()
        await expect(page.get_by_role("meter", name="Prompt budget used")).to_be_visible()

        await page.get_by_label("Message", exact=True).fill("What is 2 + 3?")
        await page.get_by_role("button", name="Run agent").click()
        events = page.get_by_role("list", name="Run events")
        await expect(events).to_contain_text("FINISHED", timeout=30_000)
        await expect(events).to_contain_text("TOOL_CALL_FINISHED")
        await expect(page.get_by_text("The answer is 5.").first).to_be_visible()
        await visit.screenshot("run-finished")
        history = page.get_by_role("region", name=re.compile("^Run history"))
        await expect(history).to_contain_text("SUCCEEDED")


class TestSkills:
    async def test_publish_a_candidate_and_promote_it(self, visit: Visit, quiver: Quiver) -> None:
        name = unique("reply-style")
        created = (
            await quiver.graphql(
                "mutation K($input: CreateSkillInput!) "
                "{ createSkill(input: $input) { skill { id } userErrors { message } } }",
                {
                    "input": {
                        "name": name,
                        "label": "Reply style",
                        "description": "How to reply.",
                        "prompt": "Be brief.\nSign with the team name.",
                    }
                },
            )
        )["createSkill"]
        assert created["userErrors"] == []
        page = visit.page
        await visit.sign_in(ADMIN_TOKEN)
        await visit.open(f"/console/skills/{created['skill']['id']}")
        await expect(page.get_by_role("heading", level=1)).to_have_text(f"Skill {name}")

        publish = page.get_by_role("form", name="Publish a candidate")
        await publish.get_by_label("Candidate prompt").fill("Be brief and warm.\nSign with the team name.")
        await publish.get_by_label("Canary share (%)").fill("25")
        await publish.get_by_role("button", name="Publish candidate").click()
        await expect(page.get_by_role("status").filter(has_text="published as the candidate")).to_be_visible()
        diff = page.get_by_label(re.compile("^Diff from"))
        await expect(diff).to_contain_text("Be brief and warm.")
        await visit.screenshot("candidate")

        await page.get_by_role("button", name="Promote 1.0.1 to production").click()
        await expect(page.get_by_role("status").filter(has_text="now in production")).to_be_visible()
        history = page.get_by_role("table", name="Channel history")
        await expect(history).to_contain_text("PROMOTED")
        await expect(page.get_by_role("definition").filter(has_text="1.0.1 (")).to_be_visible()
        await visit.screenshot("promoted")


class TestRoles:
    async def test_a_viewer_sees_no_create_controls(self, visit: Visit, quiver: Quiver) -> None:
        space = await quiver.create_space(unique("viewers").replace("-", "_"))
        key = await quiver.create_key("--space", space, "--role", "VIEWER")
        await visit.sign_in(key)
        await expect(visit.page.get_by_label("Signed in as")).to_contain_text("VIEWER")
        for name in NAVIGATION:
            await visit.go(name)
            await visit.page.wait_for_load_state("networkidle")
            assert await create_controls(visit) == [], name
        await visit.screenshot("viewer-tools")

    async def test_an_admin_sees_them(self, visit: Visit) -> None:
        await visit.sign_in(ADMIN_TOKEN)
        await visit.go("Tools")
        assert "Create tool" in await create_controls(visit)


class TestApiKeys:
    async def test_create_a_key_sign_in_with_it_revoke_it_and_be_signed_out(self, visit: Visit) -> None:
        page = visit.page
        await visit.sign_in(ADMIN_TOKEN)
        await visit.go("API keys")
        await page.get_by_role("button", name="Create API key").click()
        form = page.get_by_role("form", name="Create API key")
        await form.get_by_label("Role").select_option("ADMIN")
        label = unique("temporary admin")
        await form.get_by_label("Label").fill(label)
        await form.get_by_role("button", name="Create key").click()
        secret = await page.get_by_label("Secret", exact=True).input_value()
        assert secret.startswith("qk_")
        await visit.screenshot("created")
        await page.get_by_role("button", name="Done").click()
        # Shown once: gone from the page for good.
        assert secret not in await page.content()

        await page.get_by_role("button", name="Sign out").click()
        await visit.sign_in(secret)
        await visit.go("API keys")
        await expect(page.get_by_role("row").filter(has_text=label)).to_contain_text("in use here")
        await page.get_by_role("button", name=f"Revoke {label}").click()
        await page.get_by_role("button", name=f"Confirm revoke {label}").click()
        revoked_at = time.monotonic()

        await expect(page.get_by_label("API key")).to_be_visible(timeout=SIGN_OUT_DEADLINE_MS)
        assert time.monotonic() - revoked_at < SIGN_OUT_DEADLINE_MS / 1000
        await expect(page.get_by_role("alert")).to_contain_text("revoked")
        await visit.screenshot("signed-out")

    async def test_a_key_revoked_elsewhere_signs_the_console_out_with_the_reason(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        space = await quiver.create_space(unique("revoked").replace("-", "_"))
        key = await quiver.create_key("--space", space, "--role", "MEMBER", "--label", "soon revoked")
        await visit.sign_in(key)
        await visit.go("Tools")

        key_id = (await quiver.graphql("{ viewer { keyId } }", key=key))["viewer"]["keyId"]
        revoked = await quiver.graphql(
            "mutation R($input: RevokeApiKeyInput!) { revokeApiKey(input: $input) { userErrors { message } } }",
            {"input": {"id": key_id}},
        )
        assert revoked["revokeApiKey"]["userErrors"] == []
        revoked_at = time.monotonic()

        await expect(visit.page.get_by_label("API key")).to_be_visible(timeout=SIGN_OUT_DEADLINE_MS)
        assert time.monotonic() - revoked_at < SIGN_OUT_DEADLINE_MS / 1000
        await expect(visit.page.get_by_role("alert")).to_contain_text("revoked")
        assert await quiver.status_for(key) == 401


class TestGraphiQL:
    async def test_asks_for_a_key_then_loads_the_schema_and_runs_a_subscription(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        page = visit.page
        space = await quiver.create_space(unique("graphiql").replace("-", "_"))
        await visit.open("/graphql")
        await page.get_by_label("API key").fill(ADMIN_TOKEN)
        await page.get_by_role("button", name="Sign in").click()

        await page.get_by_role("button", name="Show Documentation Explorer").click()
        await expect(page.get_by_text("Subscription", exact=True).first).to_be_visible()

        editor = page.get_by_role("region", name="Query Editor").get_by_role("textbox")
        await editor.focus()
        await page.keyboard.press("Control+A")
        await page.keyboard.type("subscription Live { toolCalls { toolId status } }")
        # Run at once, as a person does: GraphiQL's own parse of the text comes 100 ms after the
        # last keystroke (later on a busy machine), and the subscription must go over the WebSocket
        # even before it.
        await page.get_by_role("button", name=re.compile("^Execute query")).click()

        # graphql-transport-ws does not acknowledge a subscribe, and an event reaches only the
        # subscriptions the server has registered by then: call the tool until one arrives.
        result = page.get_by_role("region", name="Result Window")
        arrived = False
        for _ in range(SUBSCRIPTION_CALLS):
            await quiver.graphql(
                "mutation C($input: InvokeToolInput!) { invokeTool(input: $input) { status } }",
                {"input": {"spaceId": space, "toolId": "bt_current_time", "arguments": {}}},
            )
            try:
                await expect(result).to_contain_text("bt_current_time", timeout=SUBSCRIPTION_EVENT_MS)
            except AssertionError:
                answered = await result.inner_text()
                assert "errors" not in answered, answered  # e.g. SUBSCRIPTION_OVER_HTTP: it went over HTTP
                continue
            arrived = True
            break
        assert arrived, f"no toolCalls event after {SUBSCRIPTION_CALLS} calls: {await result.inner_text()!r}"
        await visit.screenshot("subscription")

    async def test_the_console_key_is_used_without_asking(self, visit: Visit) -> None:
        await visit.sign_in(ADMIN_TOKEN)
        await visit.open("/graphql")

        await expect(visit.page.get_by_role("button", name="Show Documentation Explorer")).to_be_visible()
        await expect(visit.page.get_by_label("API key")).to_have_count(0)
