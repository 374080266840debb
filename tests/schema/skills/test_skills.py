"""Skills through the API: creation and its rules, immutable versions, reach, filters, builtins."""

from __future__ import annotations

from typing import Any

import pytest

from app.principal import Role
from tests.conftest import GraphQLClient, Keys

SKILL_FIELDS = """
    id name label description prompt category tags triggerHints boundary
    type status version charCount
    space { id }
    versions { version channel prompt createdAt }
"""

CREATE_SKILL = f"""
mutation CreateSkill($input: CreateSkillInput!) {{
  createSkill(input: $input) {{
    skill {{ {SKILL_FIELDS} }}
    userErrors {{ field code message }}
  }}
}}
"""

UPDATE_SKILL = f"""
mutation UpdateSkill($input: UpdateSkillInput!) {{
  updateSkill(input: $input) {{
    skill {{ {SKILL_FIELDS} }}
    userErrors {{ field code message }}
  }}
}}
"""

SKILL = f"""
query Skill($id: ID!) {{
  skill(id: $id) {{ {SKILL_FIELDS} }}
}}
"""

NODE = """
query Node($id: ID!) {
  node(id: $id) { __typename id }
}
"""

SPACE_SKILLS = """
query SpaceSkills($id: ID!, $filter: SkillFilter) {
  space(id: $id) {
    skills(first: 100, filter: $filter) {
      totalCount
      edges { node { id name type space { id } } }
    }
  }
}
"""

SKILLS = """
query Skills($filter: SkillFilter) {
  skills(first: 100, filter: $filter) {
    totalCount
    edges { node { id name type status space { id } } }
  }
}
"""

BUILTIN_SKILL_IDS = {
    "sk_email_draft",
    "sk_knowledge_answer",
    "sk_data_calculation",
    "sk_meeting_summary",
}


def skill_input(name: str = "refund-policy", **overrides: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "name": name,
        "label": "Refund policy",
        "description": "How to answer refund questions.",
        "prompt": "# Refunds\n\nCheck the order date first.",
    }
    values.update(overrides)
    return values


async def create_skill(client: GraphQLClient, **fields: Any) -> dict[str, Any]:
    data = await client.execute(CREATE_SKILL, {"input": skill_input(**fields)})
    payload: dict[str, Any] = data["createSkill"]
    return payload


async def created_skill(client: GraphQLClient, **fields: Any) -> dict[str, Any]:
    payload = await create_skill(client, **fields)
    assert payload["userErrors"] == []
    skill: dict[str, Any] = payload["skill"]
    return skill


def names(connection: dict[str, Any]) -> set[str]:
    return {edge["node"]["name"] for edge in connection["edges"]}


class TestCreateGlobalSkill:
    async def test_admin_creates_a_global_skill(self, gql: GraphQLClient) -> None:
        payload = await create_skill(
            gql,
            category="support",
            tags=["refunds", "orders"],
            triggerHints=["refund my order"],
            boundary="Not for chargebacks.",
        )

        assert payload["userErrors"] == []
        skill = payload["skill"]
        assert skill["id"].startswith("sku_")
        assert skill["space"] is None
        assert skill["type"] == "CUSTOM"
        assert skill["status"] == "ACTIVE"
        assert skill["name"] == "refund-policy"
        assert skill["category"] == "support"
        assert skill["tags"] == ["refunds", "orders"]
        assert skill["triggerHints"] == ["refund my order"]
        assert skill["boundary"] == "Not for chargebacks."
        assert skill["charCount"] == len(skill_input()["prompt"])

    async def test_space_admin_may_not_create_a_global_skill(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))

        payload = await create_skill(space_admin)

        assert payload["skill"] is None
        assert [error["code"] for error in payload["userErrors"]] == ["FORBIDDEN"]
        skills = await gql.execute(SKILLS, {"filter": {"search": "refund-policy"}})
        assert skills["skills"]["totalCount"] == 0


class TestCreateSpaceSkill:
    async def test_space_admin_creates_a_skill_in_its_space(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))

        payload = await create_skill(space_admin, spaceId=alpha.id)

        assert payload["userErrors"] == []
        assert payload["skill"]["space"] == {"id": alpha.id}
        assert payload["skill"]["type"] == "CUSTOM"

    async def test_member_is_forbidden(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))

        payload = await create_skill(member, spaceId=alpha.id)

        assert payload["skill"] is None
        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [
            ("FORBIDDEN", ["input", "spaceId"])
        ]

    async def test_another_space_looks_absent(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))

        payload = await create_skill(space_admin, spaceId=beta.id)

        assert payload["skill"] is None
        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [
            ("NOT_FOUND", ["input", "spaceId"])
        ]


class TestSkillNames:
    @pytest.mark.parametrize(
        "name",
        ["Bad_Name", "-x", "x-", "a--b", "a" * 65, "", "with space", "UPPER"],
        ids=[
            "underscore-and-capitals",
            "leading-hyphen",
            "trailing-hyphen",
            "double-hyphen",
            "65-characters",
            "empty",
            "space",
            "capitals",
        ],
    )
    async def test_names_outside_the_agent_skills_rule_are_refused(self, gql: GraphQLClient, name: str) -> None:
        payload = await create_skill(gql, name=name)

        assert payload["skill"] is None
        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [
            ("INVALID_NAME", ["input", "name"])
        ]

    @pytest.mark.parametrize("name", ["a", "x1", "email-draft-v2", "a" * 64, "0-9"])
    async def test_names_inside_the_rule_are_accepted(self, gql: GraphQLClient, name: str) -> None:
        payload = await create_skill(gql, name=name)

        assert payload["userErrors"] == []
        assert payload["skill"]["name"] == name


class TestPromptLimit:
    async def test_prompt_over_the_limit_is_refused(self, gql: GraphQLClient) -> None:
        payload = await create_skill(gql, prompt="x" * 2001)

        assert payload["skill"] is None
        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [
            ("PROMPT_TOO_LONG", ["input", "prompt"])
        ]

    async def test_prompt_of_exactly_the_limit_is_accepted(self, gql: GraphQLClient) -> None:
        payload = await create_skill(gql, prompt="x" * 2000)

        assert payload["userErrors"] == []
        assert payload["skill"]["charCount"] == 2000
        assert payload["skill"]["prompt"] == "x" * 2000

    async def test_update_over_the_limit_is_refused_and_changes_nothing(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)

        data = await gql.execute(UPDATE_SKILL, {"input": {"id": skill["id"], "prompt": "y" * 2001, "label": "Changed"}})

        payload = data["updateSkill"]
        assert payload["skill"] is None
        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [
            ("PROMPT_TOO_LONG", ["input", "prompt"])
        ]
        after = (await gql.execute(SKILL, {"id": skill["id"]}))["skill"]
        assert after["label"] == "Refund policy"
        assert after["version"] == "1.0.0"
        assert [version["version"] for version in after["versions"]] == ["1.0.0"]


class TestDuplicateSkillNames:
    async def test_same_name_in_the_same_space_is_a_duplicate(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        await created_skill(gql, spaceId=alpha.id)

        payload = await create_skill(gql, spaceId=alpha.id)

        assert payload["skill"] is None
        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [
            ("DUPLICATE", ["input", "name"])
        ]

    async def test_name_of_a_global_skill_is_a_duplicate_in_every_space(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")

        payload = await create_skill(gql, name="email-draft", spaceId=alpha.id)

        assert [error["code"] for error in payload["userErrors"]] == ["DUPLICATE"]

    async def test_same_name_in_another_space_is_fine(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        first = await created_skill(gql, spaceId=alpha.id)

        second = await created_skill(gql, spaceId=beta.id)

        assert second["id"] != first["id"]
        assert second["space"] == {"id": beta.id}


class TestFirstVersion:
    async def test_first_version_is_1_0_0_in_production(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)

        assert skill["version"] == "1.0.0"
        assert [(v["version"], v["channel"], v["prompt"]) for v in skill["versions"]] == [
            ("1.0.0", "PRODUCTION", skill_input()["prompt"])
        ]

    async def test_given_version_is_the_first_version(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql, version="2.3.0")

        assert skill["version"] == "2.3.0"
        assert [(v["version"], v["channel"]) for v in skill["versions"]] == [("2.3.0", "PRODUCTION")]

    async def test_version_that_is_not_semver_is_refused(self, gql: GraphQLClient) -> None:
        payload = await create_skill(gql, version="latest")

        assert payload["skill"] is None
        assert [(error["code"], error["field"]) for error in payload["userErrors"]] == [
            ("INVALID_VERSION", ["input", "version"])
        ]


class TestUpdateSkillVersions:
    async def test_new_prompt_becomes_the_next_patch_in_production(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)
        old_prompt = skill["prompt"]

        data = await gql.execute(UPDATE_SKILL, {"input": {"id": skill["id"], "prompt": "# Refunds v2\n\nAsk first."}})

        payload = data["updateSkill"]
        assert payload["userErrors"] == []
        updated = payload["skill"]
        assert updated["version"] == "1.0.1"
        assert updated["prompt"] == "# Refunds v2\n\nAsk first."
        assert updated["charCount"] == len("# Refunds v2\n\nAsk first.")
        assert [(v["version"], v["channel"], v["prompt"]) for v in updated["versions"]] == [
            ("1.0.0", "RETIRED", old_prompt),
            ("1.0.1", "PRODUCTION", "# Refunds v2\n\nAsk first."),
        ]

    async def test_versions_persist_and_old_prompts_stay_unchanged(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql, version="2.3.0")
        for prompt in ("second", "third"):
            await gql.execute(UPDATE_SKILL, {"input": {"id": skill["id"], "prompt": prompt}})

        fetched = (await gql.execute(SKILL, {"id": skill["id"]}))["skill"]

        assert fetched["version"] == "2.3.2"
        assert fetched["prompt"] == "third"
        assert [(v["version"], v["channel"], v["prompt"]) for v in fetched["versions"]] == [
            ("2.3.0", "RETIRED", skill_input()["prompt"]),
            ("2.3.1", "RETIRED", "second"),
            ("2.3.2", "PRODUCTION", "third"),
        ]

    async def test_update_without_a_prompt_change_creates_no_version(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)

        data = await gql.execute(
            UPDATE_SKILL,
            {
                "input": {
                    "id": skill["id"],
                    "label": "Refunds, revised",
                    "tags": ["refunds"],
                    "prompt": skill["prompt"],
                }
            },
        )

        updated = data["updateSkill"]["skill"]
        assert data["updateSkill"]["userErrors"] == []
        assert updated["label"] == "Refunds, revised"
        assert updated["tags"] == ["refunds"]
        assert updated["version"] == "1.0.0"
        assert [(v["version"], v["channel"]) for v in updated["versions"]] == [("1.0.0", "PRODUCTION")]

    async def test_space_admin_updates_its_own_skill(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))
        skill = await created_skill(space_admin, spaceId=alpha.id)

        data = await space_admin.execute(UPDATE_SKILL, {"input": {"id": skill["id"], "prompt": "new methodology"}})

        assert data["updateSkill"]["userErrors"] == []
        assert data["updateSkill"]["skill"]["version"] == "1.0.1"

    async def test_member_may_not_update(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))
        skill = await created_skill(gql, spaceId=alpha.id)

        data = await member.execute(UPDATE_SKILL, {"input": {"id": skill["id"], "label": "Mine"}})

        assert data["updateSkill"]["skill"] is None
        assert [error["code"] for error in data["updateSkill"]["userErrors"]] == ["FORBIDDEN"]
        assert (await gql.execute(SKILL, {"id": skill["id"]}))["skill"]["label"] == "Refund policy"

    async def test_skill_of_another_space_looks_absent(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))
        skill = await created_skill(gql, spaceId=beta.id)

        data = await space_admin.execute(UPDATE_SKILL, {"input": {"id": skill["id"], "prompt": "hijacked"}})

        assert data["updateSkill"]["skill"] is None
        assert [(error["code"], error["field"]) for error in data["updateSkill"]["userErrors"]] == [
            ("NOT_FOUND", ["input", "id"])
        ]
        assert (await gql.execute(SKILL, {"id": skill["id"]}))["skill"]["prompt"] != "hijacked"


class TestSpaceSkills:
    async def test_lists_global_and_own_skills_but_not_another_space(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        await created_skill(gql, name="house-style")
        await created_skill(gql, name="alpha-only", spaceId=alpha.id)
        await created_skill(gql, name="beta-only", spaceId=beta.id)

        data = await gql.execute(SPACE_SKILLS, {"id": alpha.id})

        listed = names(data["space"]["skills"])
        assert {"house-style", "alpha-only", "email-draft"} <= listed
        assert "beta-only" not in listed
        assert data["space"]["skills"]["totalCount"] == len(listed)

    async def test_space_key_sees_the_same_list(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))
        await created_skill(gql, name="alpha-only", spaceId=alpha.id)
        await created_skill(gql, name="beta-only", spaceId=beta.id)

        top_level = names((await member.execute(SKILLS))["skills"])
        through_space = names((await member.execute(SPACE_SKILLS, {"id": alpha.id}))["space"]["skills"])

        assert "alpha-only" in top_level
        assert "beta-only" not in top_level
        assert {"email-draft", "knowledge-answer"} <= top_level
        assert through_space == top_level


class TestSpaceSkillsPagination:
    async def test_pages_walk_the_whole_list_once(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        for index in range(5):
            await created_skill(gql, name=f"alpha-{index}", spaceId=alpha.id)
        query = """
        query SpaceSkillsPage($id: ID!, $after: String) {
          space(id: $id) {
            skills(first: 3, after: $after) {
              totalCount
              edges { node { id } }
              pageInfo { hasNextPage endCursor }
            }
          }
        }
        """

        seen: list[str] = []
        after: str | None = None
        pages = 0
        while True:
            data = await gql.execute(query, {"id": alpha.id, "after": after})
            connection = data["space"]["skills"]
            assert connection["totalCount"] == 5 + len(BUILTIN_SKILL_IDS)
            seen.extend(edge["node"]["id"] for edge in connection["edges"])
            pages += 1
            if not connection["pageInfo"]["hasNextPage"]:
                break
            after = connection["pageInfo"]["endCursor"]

        assert pages == 3
        assert len(seen) == len(set(seen)) == 5 + len(BUILTIN_SKILL_IDS)
        assert set(seen) >= BUILTIN_SKILL_IDS


class TestSkillReach:
    async def test_space_key_gets_null_for_another_space_skill(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))
        skill = await created_skill(gql, spaceId=beta.id)

        assert (await member.execute(SKILL, {"id": skill["id"]})) == {"skill": None}
        assert (await member.execute(NODE, {"id": skill["id"]})) == {"node": None}

    async def test_space_key_reads_its_own_and_global_skills(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))
        own = await created_skill(gql, spaceId=alpha.id)

        assert (await member.execute(SKILL, {"id": own["id"]}))["skill"]["id"] == own["id"]
        assert (await member.execute(NODE, {"id": own["id"]}))["node"] == {
            "__typename": "Skill",
            "id": own["id"],
        }
        assert (await member.execute(SKILL, {"id": "sk_email_draft"}))["skill"]["id"] == ("sk_email_draft")

    async def test_unknown_skill_is_null(self, gql: GraphQLClient) -> None:
        assert (await gql.execute(SKILL, {"id": "sku_doesnotexist"})) == {"skill": None}


class TestSkillFilter:
    async def _seed(self, gql: GraphQLClient) -> None:
        await created_skill(
            gql,
            name="refund-policy",
            category="support",
            tags=["refunds", "orders"],
            description="Answering REFUND questions.",
        )
        await created_skill(
            gql,
            name="shipping-delays",
            category="support",
            tags=["orders"],
            label="Shipping",
            description="Late parcels.",
        )
        await created_skill(
            gql,
            name="tax-maths",
            category="finance",
            tags=["tax"],
            label="Tax",
            description="Value added tax.",
        )

    async def test_by_category(self, gql: GraphQLClient) -> None:
        await self._seed(gql)

        data = await gql.execute(SKILLS, {"filter": {"category": "support"}})

        assert names(data["skills"]) == {"refund-policy", "shipping-delays"}
        assert data["skills"]["totalCount"] == 2

    async def test_by_tags_requires_every_tag(self, gql: GraphQLClient) -> None:
        await self._seed(gql)

        one_tag = await gql.execute(SKILLS, {"filter": {"tags": ["orders"]}})
        two_tags = await gql.execute(SKILLS, {"filter": {"tags": ["orders", "refunds"]}})

        assert names(one_tag["skills"]) == {"refund-policy", "shipping-delays"}
        assert names(two_tags["skills"]) == {"refund-policy"}
        assert two_tags["skills"]["totalCount"] == 1

    async def test_by_search_is_case_insensitive_over_name_label_and_description(self, gql: GraphQLClient) -> None:
        await self._seed(gql)

        by_description = await gql.execute(SKILLS, {"filter": {"search": "refund q"}})
        by_label = await gql.execute(SKILLS, {"filter": {"search": "sHiPpInG"}})
        by_name = await gql.execute(SKILLS, {"filter": {"search": "tax-ma"}})

        assert names(by_description["skills"]) == {"refund-policy"}
        assert names(by_label["skills"]) == {"shipping-delays"}
        assert names(by_name["skills"]) == {"tax-maths"}

    async def test_search_treats_wildcards_literally(self, gql: GraphQLClient) -> None:
        await self._seed(gql)

        percent = await gql.execute(SKILLS, {"filter": {"search": "%"}})
        underscore = await gql.execute(SKILLS, {"filter": {"search": "_"}})

        assert percent["skills"]["totalCount"] == 0
        assert underscore["skills"]["totalCount"] == 0

    async def test_filters_combine(self, gql: GraphQLClient) -> None:
        await self._seed(gql)

        data = await gql.execute(SKILLS, {"filter": {"category": "support", "search": "ship"}})

        assert names(data["skills"]) == {"shipping-delays"}

    async def test_filter_on_a_space_list(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        await created_skill(gql, name="alpha-support", spaceId=alpha.id, category="support")
        await created_skill(gql, name="beta-support", spaceId=beta.id, category="support")
        await created_skill(gql, name="alpha-finance", spaceId=alpha.id, category="finance")

        data = await gql.execute(SPACE_SKILLS, {"id": alpha.id, "filter": {"category": "support"}})

        assert names(data["space"]["skills"]) == {"alpha-support"}


class TestBuiltinSkills:
    async def test_builtin_skills_are_global_and_versioned(self, gql: GraphQLClient) -> None:
        data = await gql.execute(SKILLS)

        builtins = {
            edge["node"]["id"]: edge["node"] for edge in data["skills"]["edges"] if edge["node"]["type"] == "BUILTIN"
        }
        assert set(builtins) == BUILTIN_SKILL_IDS
        assert all(skill["space"] is None for skill in builtins.values())
        assert all(skill["status"] == "ACTIVE" for skill in builtins.values())

        skill = (await gql.execute(SKILL, {"id": "sk_email_draft"}))["skill"]
        assert skill["name"] == "email-draft"
        assert skill["prompt"].strip()
        assert skill["charCount"] == len(skill["prompt"])
        assert [(v["version"], v["channel"]) for v in skill["versions"]] == [(skill["version"], "PRODUCTION")]

    async def test_space_admin_may_not_update_a_builtin(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        space_admin = gql.as_key(await keys.for_space(alpha.id, Role.SPACE_ADMIN))
        before = (await gql.execute(SKILL, {"id": "sk_email_draft"}))["skill"]

        data = await space_admin.execute(UPDATE_SKILL, {"input": {"id": "sk_email_draft", "prompt": "Write badly."}})

        assert data["updateSkill"]["skill"] is None
        assert [(error["code"], error["field"]) for error in data["updateSkill"]["userErrors"]] == [
            ("FORBIDDEN", ["input", "id"])
        ]
        after = (await gql.execute(SKILL, {"id": "sk_email_draft"}))["skill"]
        assert after == before


class TestEmptySpaceId:
    async def test_an_empty_space_id_is_not_taken_for_a_global_skill(self, gql: GraphQLClient) -> None:
        query = """
        mutation Create($input: CreateSkillInput!) {
          createSkill(input: $input) { skill { id space { id } } userErrors { field code } }
        }
        """
        variables = {"input": {"spaceId": "", "name": "nowhere", "label": "Nowhere", "description": "d", "prompt": "p"}}
        payload = (await gql.execute(query, variables))["createSkill"]
        assert payload["skill"] is None
        assert payload["userErrors"] == [{"field": ["input", "spaceId"], "code": "NOT_FOUND"}]
