"""previewPrompt tells the budget the system prompt is assembled within, and its size."""

from __future__ import annotations

from app.config import Settings
from tests.conftest import Keys
from tests.schema.runtime import create_agent, runtime_app

PREVIEW_BUDGET = """
query PreviewBudget($agentId: ID!, $message: String!) {
  previewPrompt(agentId: $agentId, message: $message) { systemPrompt budgetChars charCount }
}
"""


class TestPromptBudget:
    async def test_budget_is_the_setting_and_char_count_the_prompt_length(
        self, settings: Settings, keys: Keys, admin_key: str
    ) -> None:
        space = await keys.space("alpha")
        async with runtime_app(settings, None, prompt_budget_chars=3000) as quiver:
            gql = quiver.client(admin_key)
            agent = await create_agent(gql, space.id, "any-model", systemPrompt="Answer in French, 用中文也可以.")

            preview = (await gql.execute(PREVIEW_BUDGET, {"agentId": agent["id"], "message": "bonjour"}))[
                "previewPrompt"
            ]

        assert preview["budgetChars"] == 3000
        assert preview["charCount"] == len(preview["systemPrompt"]) > 0
