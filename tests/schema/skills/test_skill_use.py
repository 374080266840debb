"""Matching, usage, declared tools and routing through the API."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.principal import Role
from app.skills.usage import record_injection
from tests.conftest import GraphQLClient, Keys
from tests.schema.skills.operations import (
    CREATE_AGENT,
    MATCH,
    PUBLISH,
    ROUTING,
    SET_CANARY,
    UNUSED,
    UPDATE_AGENT,
    UPDATE_SKILL,
    USAGE,
    created_skill,
    errors,
    mutate,
    skill_input,
)


@dataclass(frozen=True)
class Injected:
    skill_id: str
    version: str


async def match(
    client: GraphQLClient, space_id: str, query: str, top_k: int = 5, min_score: float | None = None
) -> list[dict[str, Any]]:
    data = await client.execute(MATCH, {"spaceId": space_id, "query": query, "topK": top_k, "minScore": min_score})
    matches: list[dict[str, Any]] = data["matchSkills"]
    return matches


def matched_names(matches: list[dict[str, Any]]) -> list[str]:
    return [item["skill"]["name"] for item in matches]


class TestMatchSkills:
    async def test_each_match_says_why(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        await created_skill(gql, name="ledger", spaceId=alpha.id, triggerHints=["reconcile the ledger", "对账"])

        found = await match(gql, alpha.id, "Please reconcile the ledger of Initech for March")

        assert matched_names(found) == ["ledger"]
        assert found[0]["matchedHint"] == "reconcile the ledger"
        assert set(found[0]["signals"]) >= {"HINT", "PHRASE"} and found[0]["modelReason"] is None
        assert "reconcile" in found[0]["matchedWords"] and 0 < found[0]["score"] <= 1

    async def test_min_score_gives_the_raw_candidates_the_gate_holds_back(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        await created_skill(gql, name="ledger", spaceId=alpha.id, triggerHints=["reconcile the ledger"])
        request = "what is a ledger in a medieval monastery library, historically speaking?"

        assert await match(gql, alpha.id, request) == []
        raw = await match(gql, alpha.id, request, min_score=0.0)
        assert "ledger" in matched_names(raw)

    async def test_english_and_chinese_requests_find_the_builtin(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")

        english = await match(gql, alpha.id, "Can you draft an email to the client about the delay?")
        chinese = await match(gql, alpha.id, "请帮我写一封邮件给客户")
        meeting = await match(gql, alpha.id, "请总结一下今天的会议并写会议纪要")

        assert matched_names(english)[0] == "email-draft"
        assert matched_names(chinese)[0] == "email-draft"
        assert matched_names(meeting)[0] == "meeting-summary"
        top = english[0]
        assert 0 < top["score"] <= 1
        assert "email" in top["reason"]
        assert top["semanticScore"] is None
        assert top["boundaryFactor"] == 1.0

    async def test_unrelated_request_matches_nothing(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")

        assert await match(gql, alpha.id, "what is the weather like on Mars tonight") == []

    async def test_only_skills_visible_to_the_space_and_active(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        hints = ["reconcile the ledger", "对账"]
        await created_skill(
            gql, name="alpha-ledger", spaceId=alpha.id, label="Ledger reconciliation", triggerHints=hints
        )
        await created_skill(gql, name="beta-ledger", spaceId=beta.id, label="Ledger reconciliation", triggerHints=hints)
        disabled = await created_skill(
            gql, name="old-ledger", spaceId=alpha.id, label="Ledger reconciliation", triggerHints=hints
        )
        await gql.execute(
            "mutation S($input: SetStatusInput!) { setStatus(input: $input) { userErrors { code } } }",
            {"input": {"id": disabled["id"], "status": "DISABLED"}},
        )

        found = matched_names(await match(gql, alpha.id, "please reconcile the ledger for March"))

        assert found == ["alpha-ledger"]

    async def test_boundary_pushes_a_skill_down(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        await created_skill(
            gql,
            name="refunds",
            spaceId=alpha.id,
            label="Refund requests",
            description="Decide refund requests for orders.",
            triggerHints=["refund my order", "money back"],
            boundary="Not for chargebacks or bank disputes.",
        )
        await created_skill(
            gql,
            name="chargebacks",
            spaceId=alpha.id,
            label="Chargeback disputes",
            description="Respond to card chargebacks raised with the bank.",
            triggerHints=["chargeback", "bank dispute"],
        )

        plain = await match(gql, alpha.id, "customer wants a refund for the order")
        dispute = await match(gql, alpha.id, "customer opened a chargeback with the bank over a refund")

        assert matched_names(plain) == ["refunds"]
        # Only "refund" speaks for refunds here, and its boundary (chargebacks, bank) pushes it down further.
        assert matched_names(dispute) == ["chargebacks"]

    async def test_space_outside_reach_and_blank_query_match_nothing(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))

        assert await match(member, beta.id, "draft an email") == []
        assert await match(gql, "sp_missing", "draft an email") == []
        assert await match(gql, alpha.id, "   ") == []
        assert await match(gql, alpha.id, "draft an email", top_k=0) == []

    async def test_top_k_limits_the_list(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        for index in range(4):
            await created_skill(
                gql,
                name=f"email-variant-{index}",
                spaceId=alpha.id,
                label=f"Email variant {index}",
                triggerHints=["draft an email"],
            )

        assert len(await match(gql, alpha.id, "draft an email", top_k=2)) == 2


class TestUsage:
    async def test_matches_and_injections_are_counted_per_version(
        self, gql: GraphQLClient, keys: Keys, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        alpha = await keys.space("alpha")
        skill = await created_skill(gql, spaceId=alpha.id, triggerHints=["refund my order"])
        await match(gql, alpha.id, "refund my order please")
        await gql.execute(UPDATE_SKILL, {"input": {"id": skill["id"], "prompt": "v2"}})
        async with session_factory() as session, session.begin():
            await record_injection(session, [Injected(skill["id"], "1.0.0"), Injected(skill["id"], "1.0.1")])
            await record_injection(session, [Injected(skill["id"], "1.0.1")])

        data = await gql.execute(USAGE, {"id": skill["id"]})

        usage = data["skill"]["usage"]
        assert (usage["injectedCount"], usage["matchedCount"]) == (3, 1)
        assert usage["lastInjectedAt"] is not None and usage["lastMatchedAt"] is not None
        assert usage["byVersion"] == [
            {"version": "1.0.0", "injectedCount": 1, "matchedCount": 1},
            {"version": "1.0.1", "injectedCount": 2, "matchedCount": 0},
        ]

    async def test_window_excludes_older_days(
        self, gql: GraphQLClient, keys: Keys, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        skill = await created_skill(gql)
        old = datetime.now(UTC) - timedelta(days=40)
        async with session_factory() as session, session.begin():
            await record_injection(session, [Injected(skill["id"], "1.0.0")], at=old)
            await record_injection(session, [Injected(skill["id"], "1.0.0")])

        since = (datetime.now(UTC) - timedelta(days=30)).isoformat()
        recent = (await gql.execute(USAGE, {"id": skill["id"], "since": since}))["skill"]["usage"]
        total = (await gql.execute(USAGE, {"id": skill["id"]}))["skill"]["usage"]

        assert (recent["injectedCount"], total["injectedCount"]) == (1, 2)

    async def test_unused_skills_in_a_window(
        self, gql: GraphQLClient, keys: Keys, session_factory: async_sessionmaker[AsyncSession]
    ) -> None:
        alpha = await keys.space("alpha")
        beta = await keys.space("beta")
        injected = await created_skill(gql, name="injected", spaceId=alpha.id)
        await created_skill(gql, name="matched-only", spaceId=alpha.id, triggerHints=["quarterly ledger close"])
        stale = await created_skill(gql, name="stale", spaceId=alpha.id)
        await created_skill(gql, name="other-space", spaceId=beta.id)
        async with session_factory() as session, session.begin():
            await record_injection(session, [Injected(injected["id"], "1.0.0")])
            await record_injection(session, [Injected(stale["id"], "1.0.0")], at=datetime.now(UTC) - timedelta(days=60))
        await match(gql, alpha.id, "quarterly ledger close")
        since = (datetime.now(UTC) - timedelta(days=30)).isoformat()

        plain = await gql.execute(UNUSED, {"since": since, "spaceId": alpha.id})
        with_matches = await gql.execute(UNUSED, {"since": since, "spaceId": alpha.id, "includeMatches": True})

        plain_names = {edge["node"]["name"] for edge in plain["unusedSkills"]["edges"]}
        assert {"matched-only", "stale", "email-draft"} <= plain_names
        assert "injected" not in plain_names and "other-space" not in plain_names
        assert plain["unusedSkills"]["totalCount"] == len(plain_names)
        match_names = {edge["node"]["name"] for edge in with_matches["unusedSkills"]["edges"]}
        assert "matched-only" not in match_names and "stale" in match_names


CREATE_SKILL_ERRORS = """
mutation C($input: CreateSkillInput!) {
  createSkill(input: $input) { skill { id } userErrors { field code message } }
}
"""


class TestDeclaredTools:
    async def test_unknown_tool_is_a_user_error(self, gql: GraphQLClient, keys: Keys) -> None:
        payload = await mutate(
            gql,
            CREATE_SKILL_ERRORS,
            "createSkill",
            skill_input(toolIds=["bt_calculator", "ct_nope"]),
        )

        assert errors(payload) == [("UNKNOWN_TOOL", ["input", "toolIds", "1"])]
        assert "ct_nope" in payload["userErrors"][0]["message"]

    async def test_space_skill_may_not_declare_a_tool_its_space_cannot_see(
        self, gql: GraphQLClient, keys: Keys
    ) -> None:
        alpha = await keys.space("alpha")

        payload = await mutate(
            gql,
            CREATE_SKILL_ERRORS,
            "createSkill",
            skill_input(spaceId=alpha.id, toolIds=["bt_send_message"]),
        )

        assert errors(payload) == [("UNKNOWN_TOOL", ["input", "toolIds", "0"])]

    async def test_update_checks_and_replaces_declared_tools(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql, toolIds=["bt_calculator"])

        refused = await mutate(gql, UPDATE_SKILL, "updateSkill", {"id": skill["id"], "toolIds": ["nope"]})
        changed = await mutate(gql, UPDATE_SKILL, "updateSkill", {"id": skill["id"], "toolIds": ["bt_current_time"]})

        assert skill["toolIds"] == ["bt_calculator"]
        assert errors(refused) == [("UNKNOWN_TOOL", ["input", "toolIds", "0"])]
        assert changed["skill"]["toolIds"] == ["bt_current_time"]

    async def test_binding_activates_visible_tools_and_names_the_others(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        skill = await created_skill(gql, name="calc-and-send", toolIds=["bt_calculator", "bt_send_message"])

        payload = await mutate(
            gql,
            CREATE_AGENT,
            "createAgent",
            {
                "spaceId": alpha.id,
                "name": "A",
                "model": "m",
                "systemPrompt": "s",
                "activatedToolIds": ["bt_current_time"],
                "boundSkillIds": [skill["id"]],
            },
        )

        assert payload["userErrors"] == []
        assert payload["agent"]["manifest"]["activatedTools"] == ["bt_current_time", "bt_calculator"]
        assert len(payload["notices"]) == 1
        assert "bt_send_message" in payload["notices"][0] and "left out" in payload["notices"][0]

    async def test_a_tool_removed_later_stays_removed_and_is_noticed(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        skill = await created_skill(gql, name="calc", toolIds=["bt_calculator"])
        created = await mutate(
            gql,
            CREATE_AGENT,
            "createAgent",
            {
                "spaceId": alpha.id,
                "name": "A",
                "model": "m",
                "systemPrompt": "s",
                "boundSkillIds": [skill["id"]],
            },
        )

        payload = await mutate(gql, UPDATE_AGENT, "updateAgent", {"id": created["agent"]["id"], "activatedToolIds": []})

        assert payload["agent"]["manifest"]["activatedTools"] == []
        assert payload["notices"] == [
            f"Skill calc ({skill['id']}) declares tool bt_calculator, which this agent does not activate."
        ]


async def create_agent(client: GraphQLClient, space_id: str, bound: list[str]) -> str:
    payload = await mutate(
        client,
        CREATE_AGENT,
        "createAgent",
        {
            "spaceId": space_id,
            "name": "Router",
            "model": "m",
            "systemPrompt": "s",
            "boundSkillIds": bound,
        },
    )
    assert payload["userErrors"] == [], payload["userErrors"]
    agent_id: str = payload["agent"]["id"]
    return agent_id


async def routing(client: GraphQLClient, agent_id: str, message: str, **variables: Any) -> dict[str, Any]:
    data = await client.execute(ROUTING, {"agentId": agent_id, "message": message, **variables})
    result: dict[str, Any] = data["skillRouting"]
    return result


TOPICS = [
    ("invoice-check", "Invoice checking", ["check this invoice", "核对发票"]),
    ("travel-booking", "Travel booking", ["book a flight", "订机票"]),
    ("contract-review", "Contract review", ["review this contract", "审阅合同"]),
    ("sql-help", "SQL query help", ["write a sql query", "写SQL"]),
    ("release-notes", "Release notes", ["write release notes", "发布说明"]),
    ("job-posting", "Job posting", ["write a job description", "招聘启事"]),
    ("incident-report", "Incident report", ["write a postmortem", "故障复盘"]),
    ("social-post", "Social media post", ["write a tweet", "写微博"]),
    ("budget-plan", "Budget planning", ["plan the budget", "预算规划"]),
    ("onboarding", "Employee onboarding", ["onboard a new hire", "新员工入职"]),
]


class TestSkillRouting:
    async def test_over_the_limit_only_the_best_matches_are_chosen(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        ids = [
            (
                await created_skill(
                    gql,
                    name=name,
                    spaceId=alpha.id,
                    label=label,
                    triggerHints=hints,
                    prompt=f"# {label}\n\n" + "Step. " * 50,
                )
            )["id"]
            for name, label, hints in TOPICS
        ]
        agent_id = await create_agent(gql, alpha.id, ids)

        english = await routing(gql, agent_id, "Please book a flight to Berlin for Monday")
        chinese = await routing(gql, agent_id, "帮我订机票去上海")

        for result in (english, chinese):
            assert result["isRouted"] is True
            assert result["limit"] == 8
            assert [item["skill"]["name"] for item in result["chosen"]] == ["travel-booking"]
            assert len(result["dropped"]) == 9
            assert result["injectedChars"] == sum(item["charCount"] for item in result["chosen"])
            assert result["savedChars"] == sum(item["charCount"] for item in result["dropped"])
            assert "ranked 1 of 10" in result["chosen"][0]["reason"]

    async def test_under_the_limit_everything_is_injected(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        agent_id = await create_agent(gql, alpha.id, ["sk_email_draft", "sk_meeting_summary"])

        result = await routing(gql, agent_id, "anything at all")

        assert result["isRouted"] is False
        assert [item["skill"]["name"] for item in result["chosen"]] == ["email-draft", "meeting-summary"]
        assert result["dropped"] == [] and result["savedChars"] == 0
        assert all(item["score"] is None for item in result["chosen"])


class TestTheRoutingMessageBound:
    """skillRouting takes every message invokeAgent takes (QUIVER_MAX_PROMPT_CHARS, 32,000: one bound
    with invokeAgent and previewPrompt) and refuses a longer one as previewPrompt does, TOO_LONG
    before any work; it refused anything over QUIVER_MAX_QUERY_CHARS (4,000) before."""

    ASK = "Please book a flight to Berlin for Monday."
    CONTEXT = "我们上周搬进了新的办公室。楼下有一家咖啡店。The team had lunch together on the terrace. "

    def message(self, length: int) -> str:
        """``length`` characters: paragraphs of Chinese and English context, then the ask on a line of its own."""
        context = self.CONTEXT * (length // len(self.CONTEXT) + 1)
        return context[: length - len(self.ASK) - 1] + "\n" + self.ASK

    async def test_a_message_invoke_agent_takes_is_routed_and_one_longer_is_too_long(
        self, gql: GraphQLClient, keys: Keys, settings: Settings
    ) -> None:
        assert settings.max_prompt_chars == 32_000 > settings.max_query_chars
        alpha = await keys.space("alpha")
        ids = [
            (await created_skill(gql, name=name, spaceId=alpha.id, label=label, triggerHints=hints))["id"]
            for name, label, hints in TOPICS
        ]
        agent_id = await create_agent(gql, alpha.id, ids)
        longest = self.message(settings.max_prompt_chars)
        assert len(longest) == 32_000 and longest.endswith(self.ASK)

        result = await routing(gql, agent_id, longest)

        assert result["isRouted"] is True
        assert [item["skill"]["name"] for item in result["chosen"]] == ["travel-booking"]
        for agent in (agent_id, "ag_nothing_here"):  # the length is refused before the agent is looked up
            response = await gql.raw(ROUTING, {"agentId": agent, "message": longest + "x"})
            body = response.json()
            assert body["data"] == {"skillRouting": None}
            [error] = body["errors"]
            assert error["extensions"] == {"code": "TOO_LONG"} and error["path"] == ["skillRouting"]
            assert "at most 32000 " in error["message"]


class TestCanary:
    async def _canary_agent(self, gql: GraphQLClient, keys: Keys, percent: int) -> tuple[str, str]:
        alpha = await keys.space("alpha")
        skill = await created_skill(gql, spaceId=alpha.id)
        await mutate(
            gql,
            PUBLISH,
            "publishSkillVersion",
            {"skillId": skill["id"], "prompt": "candidate", "canaryPercent": percent},
        )
        return await create_agent(gql, alpha.id, [skill["id"]]), skill["id"]

    async def test_share_of_sessions_gets_the_candidate_and_each_session_sticks(
        self, gql: GraphQLClient, keys: Keys
    ) -> None:
        agent_id, _ = await self._canary_agent(gql, keys, 30)

        served = {}
        for index in range(60):
            chosen = (await routing(gql, agent_id, "hello", sessionId=f"session-{index}"))["chosen"][0]
            served[f"session-{index}"] = chosen["version"]
        again = {
            session: (await routing(gql, agent_id, "hello", sessionId=session))["chosen"][0]["version"]
            for session in list(served)[:10]
        }

        candidates = sum(1 for version in served.values() if version == "1.0.1")
        assert 8 <= candidates <= 30  # 30 % of 60 = 18, the hash is uniform enough
        assert again == {session: served[session] for session in again}

    async def test_forced_channel_pins_and_no_session(self, gql: GraphQLClient, keys: Keys) -> None:
        agent_id, skill_id = await self._canary_agent(gql, keys, 100)

        canary = (await routing(gql, agent_id, "hi", sessionId="s"))["chosen"][0]
        no_session = (await routing(gql, agent_id, "hi"))["chosen"][0]
        forced = (await routing(gql, agent_id, "hi", sessionId="s", forceChannel="PRODUCTION"))["chosen"][0]
        await mutate(gql, SET_CANARY, "setSkillCanary", {"skillId": skill_id, "canaryPercent": 0})
        test_session = (await routing(gql, agent_id, "hi", sessionId="s", forceChannel="CANDIDATE"))["chosen"][0]

        assert (canary["version"], canary["channel"]) == ("1.0.1", "CANDIDATE")
        assert canary["versionReason"].startswith("canary 100%")
        assert (no_session["version"], no_session["versionReason"]) == ("1.0.0", "production")
        assert (forced["version"], forced["versionReason"]) == ("1.0.0", "forced production")
        assert (test_session["version"], test_session["versionReason"]) == ("1.0.1", "forced candidate")

    async def test_pinned_versions_and_skipped_skills(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        pinned = await created_skill(gql, name="pinned", spaceId=alpha.id)
        await gql.execute(UPDATE_SKILL, {"input": {"id": pinned["id"], "prompt": "v2"}})
        disabled = await created_skill(gql, name="disabled", spaceId=alpha.id)
        agent_id = await create_agent(gql, alpha.id, [f"{pinned['id']}@1.0.0", disabled["id"]])
        await gql.execute(
            "mutation S($input: SetStatusInput!) { setStatus(input: $input) { userErrors { code } } }",
            {"input": {"id": disabled["id"], "status": "DISABLED"}},
        )

        result = await routing(gql, agent_id, "hi", sessionId="s")

        assert [
            (item["skill"]["name"], item["version"], item["isPinned"], item["channel"]) for item in result["chosen"]
        ] == [("pinned", "1.0.0", True, "RETIRED")]
        assert result["notes"] == [f"Skill {disabled['id']} skipped: it is DISABLED."]

    @pytest.mark.parametrize("agent_id", ["ag_missing"])
    async def test_unknown_agent_is_null(self, gql: GraphQLClient, agent_id: str) -> None:
        data = await gql.execute(ROUTING, {"agentId": agent_id, "message": "hi"})
        assert data["skillRouting"] is None


class TestLongRequestsWithTheLocalModel:
    """``matchSkills`` with the bundled local model on a request longer than
    ``QUIVER_SKILL_REQUEST_CHARS``: read as its first and last sentences, each match naming its part."""

    @pytest.fixture(autouse=True)
    def local_model(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from app.knowledge.embeddings import LocalEmbeddings
        from app.skills.matching import EmbeddingCache, SkillMatcher
        from schema.skills import schema as skills_schema

        matcher = SkillMatcher(embeddings=EmbeddingCache(LocalEmbeddings()))
        monkeypatch.setattr(skills_schema, "matcher_for", lambda settings: matcher)

    async def test_a_paragraph_of_context_then_the_ask_finds_the_ask_s_skill(
        self, gql: GraphQLClient, keys: Keys
    ) -> None:
        alpha = await keys.space("alpha")
        request = (
            "We moved the Lisbon warehouse to the new site in Setúbal last month and the team there is still "
            "settling in. Marta Silva runs the floor now, with twelve pickers on two shifts, and the old scanners "
            "were replaced by handhelds from Zebra. Customers in Porto have been asking about delays since the "
            "move, and our courier changed its pick-up window to 4 pm. "
            "Can you draft an email to the Porto customers explaining the delay and the new pick-up times?"
        )
        found = await match(gql, alpha.id, request)
        assert matched_names(found)[0] == "email-draft"
        assert "in the part 'Can you draft an email to the Porto customers" in found[0]["reason"]

    async def test_a_long_everyday_request_gets_nothing(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        request = (
            "My sister is visiting from Melbourne next week with her two kids, who are seven and nine, and they "
            "have never seen snow. We live about two hours from the mountains, and the forecast says it will be "
            "cold but clear on Saturday and Sunday. My car is small, so we would probably rent something bigger "
            "for the trip, and the kids get carsick on winding roads. What should we pack for a day of sledding, "
            "and are there any good spots for beginners?"
        )
        assert await match(gql, alpha.id, request) == []
        raw = await match(gql, alpha.id, request, top_k=3, min_score=0.0)
        assert raw and all("in the part" in item["reason"] for item in raw)
