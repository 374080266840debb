"""SKILL.md (Agent Skills format) through the API: importSkill and Skill.skillMd, round trips."""

from __future__ import annotations

from typing import Any

import pytest

from app.principal import Role
from tests.conftest import GraphQLClient, Keys
from tests.schema.skills.operations import (
    IMPORT,
    PUBLISH,
    SKILL_MD,
    created_skill,
    errors,
    mutate,
)

SKILL_MD_TEXT = """---
name: pdf-invoices
description: Extracts totals, dates and vendors from PDF invoices. Use when the user shares an invoice.
license: Apache-2.0
metadata:
  author: finance-team
  label: PDF invoices
  version: 1.2.0
  tags: |-
    finance
    invoices
  trigger-hints: |-
    read this invoice
    发票金额是多少
---

# Invoices

1. Find the vendor, the invoice number and the due date.
2. Add up the lines and compare with the stated total.
"""

COMPARED = (
    "name",
    "label",
    "description",
    "prompt",
    "category",
    "tags",
    "triggerHints",
    "boundary",
    "toolIds",
    "version",
)


async def import_skill(client: GraphQLClient, text: str, **fields: Any) -> dict[str, Any]:
    return await mutate(client, IMPORT, "importSkill", {"text": text, **fields})


async def skill_md(client: GraphQLClient, skill_id: str, version: str | None = None) -> str:
    data = await client.execute(SKILL_MD, {"id": skill_id, "version": version})
    text: str = data["skill"]["skillMd"]
    return text


class TestImportSkill:
    async def test_imports_front_matter_and_body(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")

        payload = await import_skill(gql, SKILL_MD_TEXT, spaceId=alpha.id)

        assert payload["userErrors"] == []
        assert payload["isCreated"] is True
        skill = payload["skill"]
        assert skill["name"] == "pdf-invoices"
        assert skill["label"] == "PDF invoices"
        assert skill["version"] == "1.2.0"
        assert skill["tags"] == ["finance", "invoices"]
        assert skill["triggerHints"] == ["read this invoice", "发票金额是多少"]
        assert skill["prompt"].startswith("# Invoices\n\n1. Find the vendor")
        assert skill["space"] == {"id": alpha.id}
        assert skill["channelHistory"][0]["action"] == "IMPORTED"

    async def test_minimal_file_gets_a_label_from_its_name(self, gql: GraphQLClient) -> None:
        text = "---\nname: tidy-notes\ndescription: Tidies notes.\n---\nKeep it short.\n"

        payload = await import_skill(gql, text)

        assert payload["userErrors"] == []
        assert (payload["skill"]["label"], payload["skill"]["version"]) == ("Tidy notes", "1.0.0")

    @pytest.mark.parametrize(
        ("name", "problem"),
        [
            ("PDF_Invoices", "capitals"),
            ("-pdf", "leading"),
            ("pdf-", "trailing"),
            ("pdf--invoices", "double"),
            ("a" * 65, "65"),
        ],
    )
    async def test_names_outside_the_format_rule_are_a_clear_error(
        self, gql: GraphQLClient, name: str, problem: str
    ) -> None:
        text = SKILL_MD_TEXT.replace("name: pdf-invoices", f"name: {name}")

        payload = await import_skill(gql, text)

        assert errors(payload) == [("INVALID_NAME", ["input", "text"])]
        message = payload["userErrors"][0]["message"]
        assert name in message and "a-z, 0-9 and single hyphens" in message

    @pytest.mark.parametrize(
        ("text", "fragment"),
        [
            ("no front matter at all", "must start with YAML front matter"),
            ("---\nname: [unclosed\n---\nbody", "not valid YAML"),
            ("---\ndescription: d\n---\nbody", "needs a name"),
            ("---\nname: x\n---\nbody", "non-empty description"),
            ("---\nname: x\ndescription: d\n---\n   \n", "body"),
            (f"---\nname: x\ndescription: {'d' * 1025}\n---\nbody", "1024"),
            ("---\nname: x\ndescription: d\nmetadata: [1, 2]\n---\nbody", "metadata must be a mapping"),
        ],
        ids=[
            "no-front-matter",
            "bad-yaml",
            "no-name",
            "no-description",
            "empty-body",
            "long-description",
            "metadata-list",
        ],
    )
    async def test_malformed_files_are_refused(self, gql: GraphQLClient, text: str, fragment: str) -> None:
        payload = await import_skill(gql, text)

        assert errors(payload) == [("INVALID_SKILL_MD", ["input", "text"])]
        assert fragment in payload["userErrors"][0]["message"]

    async def test_unknown_allowed_tool_is_refused(self, gql: GraphQLClient) -> None:
        text = SKILL_MD_TEXT.replace("license: Apache-2.0", "allowed-tools: bt_calculator ct_missing")

        payload = await import_skill(gql, text)

        assert errors(payload) == [("UNKNOWN_TOOL", ["input", "text"])]
        assert "ct_missing" in payload["userErrors"][0]["message"]

    async def test_existing_name_is_a_duplicate_unless_replacing(self, gql: GraphQLClient) -> None:
        await import_skill(gql, SKILL_MD_TEXT)
        changed = SKILL_MD_TEXT.replace("version: 1.2.0", "version: 1.3.0").replace("# Invoices", "# Invoices, v2")

        duplicate = await import_skill(gql, changed)
        replaced = await import_skill(gql, changed, replaceExisting=True)

        assert errors(duplicate) == [("DUPLICATE", ["input", "text"])]
        assert replaced["userErrors"] == []
        assert replaced["isCreated"] is False
        assert replaced["skill"]["version"] == "1.3.0"
        assert [(v["version"], v["channel"]) for v in replaced["skill"]["versions"]] == [
            ("1.2.0", "RETIRED"),
            ("1.3.0", "PRODUCTION"),
        ]

    async def test_member_may_not_import(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))

        payload = await import_skill(member, SKILL_MD_TEXT, spaceId=alpha.id)

        assert errors(payload) == [("FORBIDDEN", ["input", "spaceId"])]


class TestSkillMdRoundTrip:
    async def test_export_then_import_gives_back_the_same_skill(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        original = await created_skill(
            gql,
            spaceId=alpha.id,
            name="refund-requests",
            label="Refund requests: the checklist",
            description="Handles refund requests: eligibility, amount, and what to tell the customer.",
            prompt='## Refunds\n\n- Check the order date.\n- Quote: "30 days".\n\n```\nRefund: <amount>\n```',
            category="support",
            tags=["refunds", "orders"],
            triggerHints=["I want my money back", "退款申请", "refund, please: order #12"],
            boundary="Not for chargebacks or disputes raised with the bank.",
            toolIds=["bt_calculator"],
            version="2.1.0",
        )

        exported = await skill_md(gql, original["id"])
        payload = await import_skill(gql, exported, spaceId=beta.id)

        assert payload["userErrors"] == []
        copy = payload["skill"]
        assert {key: copy[key] for key in COMPARED} == {key: original[key] for key in COMPARED}
        assert await skill_md(gql, copy["id"]) == exported

    async def test_imported_front_matter_survives_an_export(self, gql: GraphQLClient) -> None:
        payload = await import_skill(gql, SKILL_MD_TEXT)

        exported = await skill_md(gql, payload["skill"]["id"])

        assert "license: Apache-2.0" in exported
        assert "author: finance-team" in exported
        assert exported.endswith("2. Add up the lines and compare with the stated total.\n")

    async def test_builtin_skills_export_and_reimport(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        exported = await skill_md(gql, "sk_meeting_summary")
        renamed = exported.replace("name: meeting-summary", "name: meeting-summary-copy", 1)

        payload = await import_skill(gql, renamed, spaceId=alpha.id)

        assert payload["userErrors"] == []
        builtin = await gql.execute('query S { skill(id: "sk_meeting_summary") { prompt triggerHints toolIds } }')
        assert payload["skill"]["prompt"] == builtin["skill"]["prompt"]
        assert payload["skill"]["triggerHints"] == builtin["skill"]["triggerHints"]
        assert payload["skill"]["toolIds"] == builtin["skill"]["toolIds"]

    async def test_a_given_version_is_exported(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)
        await mutate(gql, PUBLISH, "publishSkillVersion", {"skillId": skill["id"], "prompt": "candidate text"})

        candidate = await skill_md(gql, skill["id"], "1.0.1")
        missing = (await gql.execute(SKILL_MD, {"id": skill["id"], "version": "7.0.0"}))["skill"]["skillMd"]

        assert "version: 1.0.1" in candidate
        assert candidate.endswith("\ncandidate text\n")
        assert missing is None
