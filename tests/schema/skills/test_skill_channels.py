"""Versions and channels through the API: publish a candidate, promote, roll back, canary, history."""

from __future__ import annotations

from typing import Any

from app.principal import Role
from tests.conftest import GraphQLClient, Keys
from tests.schema.skills.operations import (
    PROMOTE,
    PUBLISH,
    ROLLBACK,
    SET_CANARY,
    SKILL,
    UPDATE_SKILL,
    channels,
    created_skill,
    errors,
    history,
    mutate,
)


async def publish(client: GraphQLClient, skill_id: str, **fields: object) -> dict[str, Any]:
    return await mutate(client, PUBLISH, "publishSkillVersion", {"skillId": skill_id, **fields})


class TestPublishSkillVersion:
    async def test_new_prompt_becomes_the_candidate_and_production_stays(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)

        payload = await publish(gql, skill["id"], prompt="# Refunds v2", canaryPercent=10)

        assert payload["userErrors"] == []
        assert payload["skillVersion"] == {"version": "1.0.1", "channel": "CANDIDATE", "prompt": "# Refunds v2"}
        after = payload["skill"]
        assert after["version"] == "1.0.0"
        assert after["prompt"] == skill["prompt"]
        assert after["candidateVersion"] == "1.0.1"
        assert after["canaryPercent"] == 10
        assert channels(after) == [("1.0.0", "PRODUCTION"), ("1.0.1", "CANDIDATE")]

    async def test_a_second_candidate_retires_the_first(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)
        await publish(gql, skill["id"], prompt="second")

        payload = await publish(gql, skill["id"], prompt="third", version="2.0.0")

        assert channels(payload["skill"]) == [("1.0.0", "PRODUCTION"), ("1.0.1", "RETIRED"), ("2.0.0", "CANDIDATE")]
        assert history(payload["skill"])[-1] == ("CANDIDATE_PUBLISHED", "1.0.1", "2.0.0")

    async def test_an_existing_retired_version_can_be_republished(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)
        await publish(gql, skill["id"], prompt="second")
        await publish(gql, skill["id"], prompt="third")

        payload = await publish(gql, skill["id"], version="1.0.1")

        assert payload["userErrors"] == []
        assert channels(payload["skill"]) == [("1.0.0", "PRODUCTION"), ("1.0.1", "CANDIDATE"), ("1.0.2", "RETIRED")]
        assert payload["skillVersion"]["prompt"] == "second"

    async def test_versions_are_immutable(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)

        payload = await publish(gql, skill["id"], prompt="other text", version="1.0.0")

        assert errors(payload) == [("DUPLICATE_VERSION", ["input", "version"])]

    async def test_refusals(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)

        assert errors(await publish(gql, skill["id"])) == [("REQUIRED", ["input", "prompt"])]
        assert errors(await publish(gql, skill["id"], version="1.0.0")) == [("CONFLICT", ["input", "version"])]
        assert errors(await publish(gql, skill["id"], version="9.9.9")) == [("NOT_FOUND", ["input", "version"])]
        assert errors(await publish(gql, skill["id"], prompt="x", canaryPercent=101)) == [
            ("OUT_OF_RANGE", ["input", "canaryPercent"])
        ]
        assert errors(await publish(gql, skill["id"], prompt="x", version="next")) == [
            ("INVALID_VERSION", ["input", "version"])
        ]
        assert errors(await publish(gql, "sku_missing", prompt="x")) == [("NOT_FOUND", ["input", "skillId"])]
        after = (await gql.execute(SKILL, {"id": skill["id"]}))["skill"]
        assert channels(after) == [("1.0.0", "PRODUCTION")]

    async def test_member_may_not_publish(self, gql: GraphQLClient, keys: Keys) -> None:
        alpha = await keys.space("alpha")
        member = gql.as_key(await keys.for_space(alpha.id, Role.MEMBER))
        skill = await created_skill(gql, spaceId=alpha.id)

        payload = await publish(member, skill["id"], prompt="mine")

        assert errors(payload) == [("FORBIDDEN", ["input", "skillId"])]


class TestPromoteSkillCandidate:
    async def test_candidate_becomes_production(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)
        await publish(gql, skill["id"], prompt="# Refunds v2", canaryPercent=25)

        payload = await mutate(gql, PROMOTE, "promoteSkillCandidate", {"skillId": skill["id"]})

        assert payload["userErrors"] == []
        promoted = payload["skill"]
        assert promoted["version"] == "1.0.1"
        assert promoted["prompt"] == "# Refunds v2"
        assert promoted["charCount"] == len("# Refunds v2")
        assert promoted["candidateVersion"] is None
        assert promoted["canaryPercent"] == 0
        assert channels(promoted) == [("1.0.0", "RETIRED"), ("1.0.1", "PRODUCTION")]
        assert history(promoted) == [
            ("CREATED", None, "1.0.0"),
            ("CANDIDATE_PUBLISHED", None, "1.0.1"),
            ("PROMOTED", "1.0.0", "1.0.1"),
        ]

    async def test_without_a_candidate_it_is_refused(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)

        payload = await mutate(gql, PROMOTE, "promoteSkillCandidate", {"skillId": skill["id"]})

        assert errors(payload) == [("NO_CANDIDATE", ["input", "skillId"])]


class TestRollbackSkill:
    async def test_rolls_back_to_the_version_production_replaced(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)
        await publish(gql, skill["id"], prompt="never promoted")
        await publish(gql, skill["id"], prompt="promoted")
        await mutate(gql, PROMOTE, "promoteSkillCandidate", {"skillId": skill["id"]})

        payload = await mutate(gql, ROLLBACK, "rollbackSkill", {"skillId": skill["id"]})

        assert payload["userErrors"] == []
        rolled = payload["skill"]
        assert rolled["version"] == "1.0.0"
        assert rolled["prompt"] == skill["prompt"]
        assert channels(rolled) == [("1.0.0", "PRODUCTION"), ("1.0.1", "RETIRED"), ("1.0.2", "RETIRED")]
        assert history(rolled)[-1] == ("ROLLED_BACK", "1.0.2", "1.0.0")

    async def test_rolls_back_to_a_named_earlier_version_keeping_the_candidate(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)
        for prompt in ("two", "three"):
            await gql.execute(UPDATE_SKILL, {"input": {"id": skill["id"], "prompt": prompt}})
        await publish(gql, skill["id"], prompt="candidate")

        payload = await mutate(gql, ROLLBACK, "rollbackSkill", {"skillId": skill["id"], "version": "1.0.0"})

        assert payload["userErrors"] == []
        assert channels(payload["skill"]) == [
            ("1.0.0", "PRODUCTION"),
            ("1.0.1", "RETIRED"),
            ("1.0.2", "RETIRED"),
            ("1.0.3", "CANDIDATE"),
        ]

    async def test_refusals(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)

        first = await mutate(gql, ROLLBACK, "rollbackSkill", {"skillId": skill["id"]})
        await gql.execute(UPDATE_SKILL, {"input": {"id": skill["id"], "prompt": "two"}})
        await publish(gql, skill["id"], prompt="candidate")
        to_candidate = await mutate(gql, ROLLBACK, "rollbackSkill", {"skillId": skill["id"], "version": "1.0.2"})
        to_current = await mutate(gql, ROLLBACK, "rollbackSkill", {"skillId": skill["id"], "version": "1.0.1"})
        await mutate(gql, ROLLBACK, "rollbackSkill", {"skillId": skill["id"], "version": "1.0.0"})
        forward = await mutate(gql, ROLLBACK, "rollbackSkill", {"skillId": skill["id"], "version": "1.0.1"})

        assert errors(first) == [("NO_EARLIER_VERSION", ["input", "version"])]
        assert errors(to_candidate) == [("CONFLICT", ["input", "version"])]
        assert errors(to_current) == [("CONFLICT", ["input", "version"])]
        assert errors(forward) == [("NOT_EARLIER", ["input", "version"])]


class TestSetSkillCanary:
    async def test_sets_the_share_and_records_it(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)
        await publish(gql, skill["id"], prompt="candidate")

        payload = await mutate(gql, SET_CANARY, "setSkillCanary", {"skillId": skill["id"], "canaryPercent": 30})

        assert payload["userErrors"] == []
        assert payload["skill"]["canaryPercent"] == 30
        change = payload["skill"]["channelHistory"][-1]
        assert (change["action"], change["canaryPercent"], change["toVersion"]) == ("CANARY_CHANGED", 30, "1.0.1")
        assert change["actor"]  # the id of the admin key that made the move

    async def test_out_of_range_is_refused(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)

        payload = await mutate(gql, SET_CANARY, "setSkillCanary", {"skillId": skill["id"], "canaryPercent": -1})

        assert errors(payload) == [("OUT_OF_RANGE", ["input", "canaryPercent"])]


class TestUpdateSkillVersionNumber:
    async def test_given_version_is_used_and_must_be_new(self, gql: GraphQLClient) -> None:
        skill = await created_skill(gql)

        given = await mutate(gql, UPDATE_SKILL, "updateSkill", {"id": skill["id"], "prompt": "v2", "version": "2.0.0"})
        again = await mutate(gql, UPDATE_SKILL, "updateSkill", {"id": skill["id"], "prompt": "v3", "version": "2.0.0"})
        bumped = await mutate(gql, UPDATE_SKILL, "updateSkill", {"id": skill["id"], "prompt": "v3"})

        assert given["skill"]["version"] == "2.0.0"
        assert errors(again) == [("DUPLICATE_VERSION", ["input", "version"])]
        assert bumped["skill"]["version"] == "2.0.1"
        assert history(bumped["skill"]) == [
            ("CREATED", None, "1.0.0"),
            ("PUBLISHED", "1.0.0", "2.0.0"),
            ("PUBLISHED", "2.0.0", "2.0.1"),
        ]
