"""healthReport over known call-log rows and runs: exact figures on each backend."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.principal import Role
from tests.conftest import GraphQLClient, Keys
from tests.support.health_data import SINCE, UNTIL, seed

REPORT = """
query Report($spaceId: ID, $since: DateTime, $until: DateTime) {
  healthReport(spaceId: $spaceId, since: $since, until: $until) {
    spaceId since until calls runs
    topTools { toolId calls failures failureRate paramInvalid paramInvalidRate tool { id } }
    paramInvalid { toolId paramInvalid paramInvalidRate }
    unusedToolCount unusedToolIds unusedTools { id }
    topSkills { skillId runs skill { id } }
    unusedSkillCount unusedSkillIds
    toolWeeks { toolId weekStart calls failures failureRate errorCodes { code count } }
    latencyWeeks { weekStart calls p95LatencyMs }
    skillVersions { skillId version channel runs succeeded failed }
  }
}
"""


@pytest.fixture
async def world(gql: GraphQLClient, keys: Keys, session_factory: async_sessionmaker[AsyncSession]) -> dict[str, str]:
    space_a = (await keys.space("health-a")).id
    space_b = (await keys.space("health-b")).id
    created = await gql.execute(
        """mutation T($input: CreateToolInput!) { createTool(input: $input) { tool { id } userErrors { code } } }""",
        {
            "input": {
                "name": "lookup",
                "label": "Lookup",
                "description": "Look things up.",
                "inputSchema": {"type": "object"},
                "endpoint": "https://lookup.example.com/",
                "spaceIds": [space_a],
            }
        },
    )
    custom = created["createTool"]["tool"]["id"]
    unused = await gql.execute(
        """mutation T($input: CreateToolInput!) { createTool(input: $input) { tool { id } userErrors { code } } }""",
        {
            "input": {
                "name": "never_called",
                "label": "Never",
                "description": "Never called.",
                "inputSchema": {"type": "object"},
                "endpoint": "https://never.example.com/",
                "spaceIds": [space_a],
            }
        },
    )
    await seed(session_factory, space_a, space_b, custom)
    return {
        "a": space_a,
        "b": space_b,
        "custom": custom,
        "unused": unused["createTool"]["tool"]["id"],
    }


def window(space_id: str | None) -> dict[str, Any]:
    return {"spaceId": space_id, "since": SINCE.isoformat(), "until": UNTIL.isoformat()}


class TestHealthReportFigures:
    async def test_top_tools_with_failure_and_param_invalid_rates(
        self, gql: GraphQLClient, world: dict[str, str]
    ) -> None:
        report = (await gql.execute(REPORT, window(world["a"])))["healthReport"]
        assert report["calls"] == 35
        assert report["runs"] == 5
        assert report["topTools"] == [
            {
                "toolId": "bt_calculator",
                "calls": 30,
                "failures": 4,
                "failureRate": pytest.approx(4 / 30),
                "paramInvalid": 3,
                "paramInvalidRate": pytest.approx(0.1),
                "tool": {"id": "bt_calculator"},
            },
            {
                "toolId": world["custom"],
                "calls": 5,
                "failures": 0,
                "failureRate": 0.0,
                "paramInvalid": 0,
                "paramInvalidRate": 0.0,
                "tool": {"id": world["custom"]},
            },
        ]
        assert report["paramInvalid"] == [
            {"toolId": "bt_calculator", "paramInvalid": 3, "paramInvalidRate": pytest.approx(0.1)}
        ]

    async def test_failure_rate_per_tool_per_week_with_codes(self, gql: GraphQLClient, world: dict[str, str]) -> None:
        report = (await gql.execute(REPORT, window(world["a"])))["healthReport"]
        weeks = {(week["toolId"], week["weekStart"]): week for week in report["toolWeeks"]}
        assert list(weeks) == sorted(weeks)
        assert weeks[("bt_calculator", "2026-11-02")] == {
            "toolId": "bt_calculator",
            "weekStart": "2026-11-02",
            "calls": 20,
            "failures": 3,
            "failureRate": pytest.approx(0.15),
            "errorCodes": [{"code": "PARAM_INVALID", "count": 2}, {"code": "TIMEOUT", "count": 1}],
        }
        assert weeks[("bt_calculator", "2026-11-09")]["calls"] == 10
        assert weeks[("bt_calculator", "2026-11-09")]["errorCodes"] == [{"code": "PARAM_INVALID", "count": 1}]
        assert weeks[(world["custom"], "2026-11-02")]["failures"] == 0
        assert len(weeks) == 3

    async def test_p95_latency_per_week_interpolates_between_ranks(
        self, gql: GraphQLClient, world: dict[str, str]
    ) -> None:
        report = (await gql.execute(REPORT, window(world["a"])))["healthReport"]
        # Week 1: 1..20 and 100..500 (25 calls): rank 22.8 lies between 300 and 400.
        # Week 2: 10..100 (10 calls): rank 8.55 lies between 90 and 100.
        assert report["latencyWeeks"] == [
            {"weekStart": "2026-11-02", "calls": 25, "p95LatencyMs": pytest.approx(380.0)},
            {"weekStart": "2026-11-09", "calls": 10, "p95LatencyMs": pytest.approx(95.5)},
        ]

    async def test_skill_versions_served_and_their_outcomes(self, gql: GraphQLClient, world: dict[str, str]) -> None:
        report = (await gql.execute(REPORT, window(world["a"])))["healthReport"]
        assert report["skillVersions"] == [
            {
                "skillId": "sk_email_draft",
                "version": "1.0.0",
                "channel": "PRODUCTION",
                "runs": 2,
                "succeeded": 1,
                "failed": 1,
            },
            {
                "skillId": "sk_email_draft",
                "version": "1.1.0",
                "channel": "CANDIDATE",
                "runs": 2,
                "succeeded": 1,
                "failed": 1,
            },
            {
                "skillId": "sk_meeting_summary",
                "version": "1.0.0",
                "channel": "PRODUCTION",
                "runs": 1,
                "succeeded": 1,
                "failed": 0,
            },
        ]
        assert report["topSkills"] == [
            {"skillId": "sk_email_draft", "runs": 4, "skill": {"id": "sk_email_draft"}},
            {"skillId": "sk_meeting_summary", "runs": 1, "skill": {"id": "sk_meeting_summary"}},
        ]

    async def test_unused_tools_and_skills(self, gql: GraphQLClient, world: dict[str, str]) -> None:
        report = (await gql.execute(REPORT, window(world["a"])))["healthReport"]
        assert world["unused"] in report["unusedToolIds"]
        assert "bt_calculator" not in report["unusedToolIds"]
        assert world["custom"] not in report["unusedToolIds"]
        assert report["unusedToolCount"] == len(report["unusedToolIds"])
        assert {tool["id"] for tool in report["unusedTools"]} == set(report["unusedToolIds"])
        assert report["unusedSkillIds"] == ["sk_data_calculation", "sk_knowledge_answer"]
        assert report["unusedSkillCount"] == 2

    async def test_every_space_for_an_admin(self, gql: GraphQLClient, world: dict[str, str]) -> None:
        report = (await gql.execute(REPORT, window(None)))["healthReport"]
        assert report["spaceId"] is None
        assert report["calls"] == 36
        assert report["runs"] == 6
        week1 = report["latencyWeeks"][0]
        assert week1["calls"] == 26
        # 26 calls: rank 23.75 lies between 400 and 500.
        assert week1["p95LatencyMs"] == pytest.approx(475.0)
        data_calculation = [row for row in report["skillVersions"] if row["skillId"] == "sk_data_calculation"]
        assert data_calculation == [
            {
                "skillId": "sk_data_calculation",
                "version": "1.0.0",
                "channel": "PRODUCTION",
                "runs": 1,
                "succeeded": 0,
                "failed": 1,
            }
        ]

    async def test_an_empty_window_is_an_empty_report(self, gql: GraphQLClient, world: dict[str, str]) -> None:
        variables = {"spaceId": world["a"], "since": "2025-01-01T00:00:00+00:00", "until": "2025-01-08T00:00:00+00:00"}
        report = (await gql.execute(REPORT, variables))["healthReport"]
        assert (report["calls"], report["topTools"], report["latencyWeeks"], report["skillVersions"]) == (0, [], [], [])
        assert world["custom"] in report["unusedToolIds"]


class TestHealthReportAccess:
    async def test_viewer_and_space_admin_read_their_space(
        self, gql: GraphQLClient, keys: Keys, world: dict[str, str]
    ) -> None:
        for role in (Role.VIEWER, Role.SPACE_ADMIN):
            reader = gql.as_key(await keys.for_space(world["a"], role))
            report = (await reader.execute(REPORT, window(world["a"])))["healthReport"]
            assert report["calls"] == 35

    async def test_another_space_is_null(self, gql: GraphQLClient, keys: Keys, world: dict[str, str]) -> None:
        reader = gql.as_key(await keys.for_space(world["a"], Role.SPACE_ADMIN))
        assert (await reader.execute(REPORT, window(world["b"])))["healthReport"] is None

    async def test_a_space_that_does_not_exist_is_null_for_an_admin_too(
        self, gql: GraphQLClient, world: dict[str, str]
    ) -> None:
        # It was a report of nothing, its unused tools every global one.
        body = (await gql.raw(REPORT, window("sp_does_not_exist"))).json()
        assert body == {"data": {"healthReport": None}}

    async def test_a_member_is_refused(self, gql: GraphQLClient, keys: Keys, world: dict[str, str]) -> None:
        member = await keys.for_space(world["a"], Role.MEMBER)
        body = (await gql.raw(REPORT, window(world["a"]), key=member)).json()
        assert body["data"]["healthReport"] is None
        assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"

    async def test_every_space_is_for_admins_only(self, gql: GraphQLClient, keys: Keys, world: dict[str, str]) -> None:
        viewer = await keys.for_space(world["a"], Role.VIEWER)
        body = (await gql.raw(REPORT, window(None), key=viewer)).json()
        assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"

    async def test_a_window_over_a_year_or_backwards_is_refused(
        self, gql: GraphQLClient, world: dict[str, str]
    ) -> None:
        for since, until in (
            ("2024-01-01T00:00:00Z", "2025-06-01T00:00:00Z"),
            ("2025-02-01T00:00:00Z", "2025-01-01T00:00:00Z"),
        ):
            body = (await gql.raw(REPORT, {"spaceId": world["a"], "since": since, "until": until})).json()
            assert body["data"]["healthReport"] is None
            assert body["errors"][0]["extensions"]["code"] == "INVALID"
