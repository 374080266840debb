"""The console with the keyboard only: what opens takes the focus, Escape closes it, and the focus
goes back where it came from (not to the top of the document)."""

from __future__ import annotations

import re

from tests.console.conftest import ADMIN_TOKEN, Quiver, Visit
from tests.console.test_console_browser import expect, unique
from tests.console.test_console_resilience import until_a_call_streams


async def focused_name(visit: Visit) -> str:
    name: str = await visit.page.evaluate(
        "() => { const el = document.activeElement;"
        " return el ? `${el.tagName} ${el.getAttribute('aria-label') ?? el.textContent}` : '' }"
    )
    return name


class TestLiveCallDetail:
    async def test_escape_and_close_put_the_focus_back_on_the_row_that_opened_it(
        self, visit: Visit, quiver: Quiver
    ) -> None:
        space = await quiver.create_space(unique("keys").replace("-", "_"))
        page = visit.page
        await visit.sign_in(ADMIN_TOKEN)
        await visit.go("Live calls")
        await expect(page.get_by_role("status").first).to_contain_text("Listening")
        await until_a_call_streams(visit, quiver, space)
        opener = page.get_by_role("button", name=re.compile("^Open call")).first
        opener_name = await opener.get_attribute("aria-label")
        detail = page.get_by_role("region", name=re.compile("^Call tc_"))

        await opener.focus()
        await page.keyboard.press("Enter")
        await expect(detail).to_be_visible()
        await expect(detail.get_by_role("heading", level=2)).to_be_focused()
        await page.keyboard.press("Escape")
        await expect(detail).to_have_count(0)
        await expect(opener).to_be_focused()

        await page.keyboard.press("Enter")
        await expect(detail).to_be_visible()
        await detail.get_by_role("button", name="Close call").focus()
        await page.keyboard.press("Enter")
        await expect(detail).to_have_count(0)
        assert await focused_name(visit) == f"BUTTON {opener_name}"
