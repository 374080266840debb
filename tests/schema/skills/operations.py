"""Named operations and helpers shared by the skills API tests."""

from __future__ import annotations

from typing import Any

from tests.conftest import GraphQLClient

SKILL_FIELDS = """
    id name label description prompt category tags triggerHints boundary toolIds
    type status version candidateVersion canaryPercent charCount
    space { id }
    versions { version channel prompt }
    channelHistory { action channel fromVersion toVersion canaryPercent actor at }
"""

CREATE_SKILL = f"""
mutation CreateSkill($input: CreateSkillInput!) {{
  createSkill(input: $input) {{ skill {{ {SKILL_FIELDS} }} userErrors {{ field code message }} }}
}}
"""

UPDATE_SKILL = f"""
mutation UpdateSkill($input: UpdateSkillInput!) {{
  updateSkill(input: $input) {{ skill {{ {SKILL_FIELDS} }} userErrors {{ field code message }} }}
}}
"""

PUBLISH = f"""
mutation Publish($input: PublishSkillVersionInput!) {{
  publishSkillVersion(input: $input) {{
    skill {{ {SKILL_FIELDS} }}
    skillVersion {{ version channel prompt }}
    userErrors {{ field code message }}
  }}
}}
"""

PROMOTE = f"""
mutation Promote($input: PromoteSkillCandidateInput!) {{
  promoteSkillCandidate(input: $input) {{ skill {{ {SKILL_FIELDS} }} userErrors {{ field code message }} }}
}}
"""

ROLLBACK = f"""
mutation Rollback($input: RollbackSkillInput!) {{
  rollbackSkill(input: $input) {{ skill {{ {SKILL_FIELDS} }} userErrors {{ field code message }} }}
}}
"""

SET_CANARY = f"""
mutation SetCanary($input: SetSkillCanaryInput!) {{
  setSkillCanary(input: $input) {{ skill {{ {SKILL_FIELDS} }} userErrors {{ field code message }} }}
}}
"""

IMPORT = f"""
mutation Import($input: ImportSkillInput!) {{
  importSkill(input: $input) {{ skill {{ {SKILL_FIELDS} }} isCreated userErrors {{ field code message }} }}
}}
"""

SKILL = f"""
query Skill($id: ID!) {{
  skill(id: $id) {{ {SKILL_FIELDS} }}
}}
"""

SKILL_MD = """
query SkillMd($id: ID!, $version: String) {
  skill(id: $id) { skillMd(version: $version) }
}
"""

MATCH = """
query Match($spaceId: ID!, $query: String!, $topK: Int, $minScore: Float) {
  matchSkills(spaceId: $spaceId, query: $query, topK: $topK, minScore: $minScore) {
    skill { id name } score reason lexicalScore semanticScore boundaryFactor
    signals matchedHint matchedWords nearestText modelReason
  }
}
"""

USAGE = """
query Usage($id: ID!, $since: DateTime) {
  skill(id: $id) {
    usage(since: $since) {
      injectedCount matchedCount lastInjectedAt lastMatchedAt lastUsedAt
      byVersion { version injectedCount matchedCount }
    }
  }
}
"""

UNUSED = """
query Unused($since: DateTime!, $spaceId: ID, $includeMatches: Boolean) {
  unusedSkills(since: $since, spaceId: $spaceId, includeMatches: $includeMatches, first: 100) {
    totalCount edges { node { id name } }
  }
}
"""

ROUTING = """
query Routing($agentId: ID!, $message: String!, $sessionId: String, $forceChannel: SkillChannel) {
  skillRouting(agentId: $agentId, message: $message, sessionId: $sessionId, forceChannel: $forceChannel) {
    limit isRouted injectedChars savedChars notes
    chosen { skill { id name } version channel isPinned versionReason score reason charCount }
    dropped { skill { id name } version score reason charCount }
  }
}
"""

CREATE_AGENT = """
mutation CreateAgent($input: CreateAgentInput!) {
  createAgent(input: $input) {
    agent { id manifest activatedTools { id } }
    notices
    userErrors { field code message }
  }
}
"""

UPDATE_AGENT = """
mutation UpdateAgent($input: UpdateAgentInput!) {
  updateAgent(input: $input) {
    agent { id manifest }
    notices
    userErrors { field code message }
  }
}
"""


def skill_input(name: str = "refund-policy", **overrides: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "name": name,
        "label": "Refund policy",
        "description": "How to answer refund questions.",
        "prompt": "# Refunds\n\nCheck the order date first.",
    }
    values.update(overrides)
    return values


async def mutate(client: GraphQLClient, operation: str, name: str, variables: dict[str, Any]) -> dict[str, Any]:
    payload: dict[str, Any] = (await client.execute(operation, {"input": variables}))[name]
    return payload


async def created_skill(client: GraphQLClient, **fields: Any) -> dict[str, Any]:
    payload = await mutate(client, CREATE_SKILL, "createSkill", skill_input(**fields))
    assert payload["userErrors"] == [], payload["userErrors"]
    skill: dict[str, Any] = payload["skill"]
    return skill


def errors(payload: dict[str, Any]) -> list[tuple[str, list[str] | None]]:
    return [(error["code"], error["field"]) for error in payload["userErrors"]]


def channels(skill: dict[str, Any]) -> list[tuple[str, str]]:
    return [(version["version"], version["channel"]) for version in skill["versions"]]


def history(skill: dict[str, Any]) -> list[tuple[str, str | None, str | None]]:
    return [(change["action"], change["fromVersion"], change["toVersion"]) for change in skill["channelHistory"]]
