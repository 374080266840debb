"""The console on a server with more than a page of 100 spaces and a knowledge base of more than
100 documents: every space can be picked (the pickers read the spaces page by page; they read the
first 100 only) and every document can be reached (the base's page read its first 100 only, with
no way to the rest). A server of its own, so the session's counts stay as its tests expect."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.console.conftest import ADMIN_TOKEN, Quiver, Visit, serving, visiting
from tests.console.test_console_browser import EN_DASH, expect, unique
from tests.support.mcp import TIME_SERVER_COMMAND

SPACES = 135
DOCUMENTS = 135
#: The most spaces a picker offers (SPACE_OPTIONS_MAX in console/src/pages/tools.tsx).
SPACE_OPTIONS_MAX = 1000
#: Mutations a request: under the 30 aliases the API allows.
BATCH = 25


SPACES_PAGE = (
    "query S($after: String) { spaces(first: 100, after: $after) "
    "{ pageInfo { hasNextPage endCursor } edges { node { id name label } } } }"
)


@dataclass
class Many:
    server: Quiver
    #: The spaces made for these tests, in the API's order (the order of the pickers): {id, name, label}.
    spaces: list[dict[str, str]]
    base: str

    def every_space(self) -> list[dict[str, str]]:
        """Every space now, in the API's order."""
        return every_page(self.server.url, SPACES_PAGE, ["spaces"])

    def documents(self) -> list[str]:
        """The base's document titles now, in the API's order (the order of its pages)."""
        nodes = every_page(
            self.server.url,
            f'query D($after: String) {{ node(id: "{self.base}") {{ ... on KnowledgeBase '
            "{ documents(first: 100, after: $after) { pageInfo { hasNextPage endCursor } "
            "edges { node { title } } } } } }",
            ["node", "documents"],
        )
        return [node["title"] for node in nodes]


def post(url: str, query: str, variables: dict[str, Any] | None = None) -> Any:
    response = httpx.post(
        f"{url}/graphql",
        json={"query": query, "variables": variables or {}},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=120,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert "errors" not in body, body
    return body["data"]


def create_in_batches(url: str, fields: list[str]) -> list[Any]:
    """Each mutation field (`createSpace(...) { ... userErrors { message } }`) once, BATCH a request."""
    payloads: list[Any] = []
    for start in range(0, len(fields), BATCH):
        batch = fields[start : start + BATCH]
        data = post(url, "mutation M { " + " ".join(f"m{i}: {field}" for i, field in enumerate(batch)) + " }")
        for i in range(len(batch)):
            assert data[f"m{i}"]["userErrors"] == [], data[f"m{i}"]
            payloads.append(data[f"m{i}"])
    return payloads


def every_page(url: str, query: str, path: list[str]) -> list[Any]:
    """Every node of a connection, following its cursor ($after) 100 at a time."""
    nodes: list[Any] = []
    after = None
    while True:
        connection = post(url, query, {"after": after})
        for key in path:
            connection = connection[key]
        nodes += [edge["node"] for edge in connection["edges"]]
        if not connection["pageInfo"]["hasNextPage"]:
            return nodes
        after = connection["pageInfo"]["endCursor"]


@pytest.fixture(scope="module")
def many(quiver: Quiver, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Many]:
    directory = tmp_path_factory.mktemp("console-many")
    env = {**quiver.env, "QUIVER_DATABASE_URL": f"sqlite+aiosqlite:///{directory / 'quiver.db'}"}
    with serving(env, directory) as url:
        create_in_batches(
            url,
            [
                f'createSpace(input: {{name: "many_{n:03d}", label: "Many {n:03d}"}}) {{ userErrors {{ message }} }}'
                for n in range(SPACES)
            ],
        )
        spaces = every_page(url, SPACES_PAGE, ["spaces"])
        assert len(spaces) > SPACES > 100

        base = post(
            url,
            "mutation K($input: CreateKnowledgeBaseInput!) "
            "{ createKnowledgeBase(input: $input) { knowledgeBase { id } userErrors { message } } }",
            {"input": {"spaceId": spaces[-1]["id"], "name": "handbook", "label": "Handbook"}},
        )["createKnowledgeBase"]
        assert base["userErrors"] == [], base
        base_id = base["knowledgeBase"]["id"]
        create_in_batches(
            url,
            [
                f'addDocument(input: {{knowledgeBaseId: "{base_id}", title: "Chapter {n:03d}", '
                f'text: "Chapter {n:03d} of the handbook."}}) {{ userErrors {{ message }} }}'
                for n in range(DOCUMENTS)
            ],
        )
        yield Many(
            server=Quiver(
                url=url, directory=directory, env=env, tool_server=quiver.tool_server, model_server=quiver.model_server
            ),
            spaces=spaces,
            base=base_id,
        )


@pytest.fixture
async def own_visit(browser: Any, many: Many, request: pytest.FixtureRequest) -> AsyncIterator[Visit]:
    async with visiting(browser, many.server.url, re.sub(r"[^a-zA-Z0-9_-]+", "_", request.node.name)) as current:
        yield current


class TestSpacesPastTheFirstHundred:
    async def test_a_new_tool_bound_to_the_120th_space_is_bound_to_it_and_the_filter_picks_it(
        self, own_visit: Visit, many: Many
    ) -> None:
        target = many.spaces[120]
        page = own_visit.page
        await own_visit.sign_in(ADMIN_TOKEN)
        await own_visit.go("Tools")
        await page.get_by_role("link", name="Create tool").click()
        bind = page.get_by_role("group", name="Bind to spaces (none checked: global)")
        # Every space is offered.
        offered = min(len(many.every_space()), SPACE_OPTIONS_MAX)
        await expect(bind.get_by_role("checkbox")).to_have_count(offered)
        tool_name = unique("far_space").replace("-", "_")
        await page.get_by_label("Name", exact=True).fill(tool_name)
        await page.get_by_label("Label", exact=True).fill("Far space")
        await page.get_by_label("Description").fill("Bound to a space past the first hundred.")
        await page.get_by_label("Endpoint").fill(many.server.tool_server.url(f"/ok/{tool_name}"))
        await bind.get_by_label(f"{target['label']} ({target['name']})", exact=True).check()
        await page.get_by_role("button", name="Create tool").click()
        await expect(page.get_by_role("heading", level=1)).to_have_text(f"Tool {tool_name}")
        await expect(page.get_by_role("region", name="Bindings")).to_contain_text(
            f"only these spaces see it: {target['label']}"
        )
        found = re.search(r"/console/tools/([^/?]+)", page.url)
        assert found, page.url
        tool = post(
            many.server.url, "query T($id: ID!) { tool(id: $id) { boundSpaces { id } } }", {"id": found.group(1)}
        )
        assert tool["tool"]["boundSpaces"] == [{"id": target["id"]}]

        # The list's Space filter offers that space too, and lists the tool in it.
        await own_visit.go("Tools")
        filters = page.get_by_role("search", name="Filter tools")
        await filters.get_by_label("Search").fill(tool_name)
        await filters.get_by_label("Space").select_option(target["id"])
        await expect(filters.get_by_label("Space")).to_have_value(target["id"])
        rows = page.get_by_role("table", name="Tools").get_by_role("row")
        await expect(rows).to_have_count(2)
        await expect(rows.nth(1)).to_contain_text(tool_name)
        await expect(page.get_by_role("alert")).to_have_count(0)

    async def test_a_server_registered_for_the_last_space_is_bound_to_it(self, own_visit: Visit, many: Many) -> None:
        target = many.spaces[-1]
        page = own_visit.page
        await own_visit.sign_in(ADMIN_TOKEN)
        await own_visit.go("MCP servers")
        await page.get_by_role("button", name="Register MCP server").click()
        form = page.get_by_role("form", name="Register MCP server")
        name = unique("far_time")
        await form.get_by_label("Name", exact=True).fill(name)
        await form.get_by_label("Transport").select_option("STDIO")
        await form.get_by_label("Command").fill(" ".join(TIME_SERVER_COMMAND))
        await form.get_by_label(f"{target['label']} ({target['name']})", exact=True).check()
        await form.get_by_role("button", name="Register server").click()
        await expect(page.get_by_role("button", name=f"Sync {name}")).to_be_visible()
        servers = post(many.server.url, "{ mcpServers(first: 100) { edges { node { name boundSpaces { id } } } } }")
        bound = [edge["node"]["boundSpaces"] for edge in servers["mcpServers"]["edges"] if edge["node"]["name"] == name]
        assert bound == [[{"id": target["id"]}]]

    async def test_the_space_dropdown_of_a_new_base_picks_a_space_past_the_hundredth(
        self, own_visit: Visit, many: Many
    ) -> None:
        target = many.spaces[110]
        page = own_visit.page
        await own_visit.sign_in(ADMIN_TOKEN)
        await own_visit.open("/console/knowledge/new")
        dropdown = page.get_by_label("Space")
        everything = many.every_space()
        await expect(dropdown.locator("option")).to_have_count(min(len(everything), SPACE_OPTIONS_MAX))
        await dropdown.select_option(target["id"])
        await page.get_by_label("Name", exact=True).fill("far_base")
        await page.get_by_label("Label", exact=True).fill("Far base")
        await page.get_by_role("button", name="Create knowledge base").click()
        await expect(page.get_by_role("heading", level=1)).to_have_text("Knowledge base Far base")
        await expect(page.locator("dl.facts")).to_contain_text(target["name"])

    async def test_past_the_bound_the_pickers_offer_the_first_thousand_and_say_how_many_there_are(
        self, own_visit: Visit, many: Many
    ) -> None:
        page = own_visit.page
        await own_visit.sign_in(ADMIN_TOKEN)
        await own_visit.open("/console/knowledge/new")
        dropdown = page.get_by_label("Space")
        await expect(dropdown.locator(f"option[value='{many.spaces[-1]['id']}']")).to_have_count(1)
        # Fewer spaces than the bound: no note that some are left out.
        await expect(page.get_by_role("status").filter(has_text="spaces are offered here")).to_have_count(0)

        missing = SPACE_OPTIONS_MAX + 5 - len(many.every_space())
        create_in_batches(
            many.server.url,
            [
                f'createSpace(input: {{name: "more_{n:04d}", label: "More {n:04d}"}}) {{ userErrors {{ message }} }}'
                for n in range(max(0, missing))
            ],
        )
        everything = many.every_space()
        assert len(everything) > SPACE_OPTIONS_MAX
        await own_visit.open("/console/knowledge/new")
        note = page.get_by_role("status").filter(has_text="spaces are offered here")
        await expect(note).to_have_text(f"Only the first 1,000 of {len(everything):,} spaces are offered here.")
        await expect(dropdown.locator("option")).to_have_count(SPACE_OPTIONS_MAX)
        await expect(dropdown.locator(f"option[value='{everything[SPACE_OPTIONS_MAX - 1]['id']}']")).to_have_count(1)
        await expect(dropdown.locator(f"option[value='{everything[SPACE_OPTIONS_MAX]['id']}']")).to_have_count(0)
        # The tools list's filter says so too, beside it.
        await own_visit.go("Tools")
        await expect(page.get_by_role("status").filter(has_text="spaces are offered here")).to_have_count(1)
        filter_ = page.get_by_role("search", name="Filter tools").get_by_label("Space")
        await expect(filter_.locator("option")).to_have_count(SPACE_OPTIONS_MAX + 1)  # with "Every space"


class TestDocumentsPastTheFirstHundred:
    async def test_the_base_shows_its_total_and_pages_to_the_last_document(self, own_visit: Visit, many: Many) -> None:
        documents = many.documents()
        total = len(documents)
        assert total >= DOCUMENTS
        page = own_visit.page
        await own_visit.sign_in(ADMIN_TOKEN)
        await own_visit.open(f"/console/knowledge/{many.base}")
        table = page.get_by_role("table", name=f"Documents ({total})")
        pager = page.get_by_role("navigation", name="Documents pages")
        rows = table.get_by_role("row")
        await expect(pager).to_contain_text(f"1{EN_DASH}50 of {total}")
        await expect(rows).to_have_count(51)  # with the header row
        await expect(table).to_contain_text(documents[0])
        await expect(pager.get_by_role("button", name="Previous page")).to_be_disabled()

        await pager.get_by_role("button", name="Next page").click()
        await expect(pager).to_contain_text(f"51{EN_DASH}100 of {total}")
        await expect(table).to_contain_text(documents[99])
        await expect(table).not_to_contain_text(documents[0])

        # From the keyboard: the pager's buttons are buttons.
        await pager.get_by_role("button", name="Next page").focus()
        await page.keyboard.press("Enter")
        await expect(pager).to_contain_text(f"101{EN_DASH}{total} of {total}")
        await expect(rows).to_have_count(total - 100 + 1)
        await expect(table).to_contain_text(documents[-1])
        await expect(table).not_to_contain_text(documents[99])
        await expect(pager.get_by_role("button", name="Next page")).to_be_disabled()
        await own_visit.screenshot("last-documents")

        await pager.get_by_role("button", name="Previous page").click()
        await expect(pager).to_contain_text(f"51{EN_DASH}100 of {total}")
        await expect(table).to_contain_text(documents[50])
        await expect(page.get_by_role("alert")).to_have_count(0)

    async def test_an_upload_on_a_later_page_keeps_the_page_and_counts_the_new_document(
        self, own_visit: Visit, many: Many, tmp_path: Path
    ) -> None:
        page = own_visit.page
        before = len(many.documents())
        await own_visit.sign_in(ADMIN_TOKEN)
        await own_visit.open(f"/console/knowledge/{many.base}")
        pager = page.get_by_role("navigation", name="Documents pages")
        await pager.get_by_role("button", name="Next page").click()
        await expect(pager).to_contain_text(f"51{EN_DASH}100 of {before}")
        file = tmp_path / "appendix.md"
        file.write_text("# Appendix\n\nThe last word.\n", encoding="utf-8")
        await page.get_by_label("Files (.md, .txt, .html)").set_input_files(str(file))
        await expect(page.get_by_role("status").filter(has_text="appendix.md: created")).to_be_visible()
        await expect(pager).to_contain_text(f"51{EN_DASH}100 of {before + 1}")
        await expect(page.get_by_role("table", name=f"Documents ({before + 1})")).to_be_visible()
        assert "Appendix" in many.documents()
