"""A DateTime argument whose moment cannot be expressed in UTC (``9999-12-31T23:59:59-14:00``
is in the year 10000 there, ``0001-01-01T00:00:00+14:00`` in the year 0) is a client error
like any unreadable DateTime; it was an INTERNAL_ERROR (OverflowError converting it to UTC)
in every filter and input taking one."""

from __future__ import annotations

import pytest

from app.principal import Role
from tests.conftest import GraphQLClient, Keys

LATE = "9999-12-31T23:59:59-14:00"
EARLY = "0001-01-01T00:00:00+14:00"

DOCUMENTS = {
    "toolCalls": "query($at: DateTime!) { toolCalls(filter: {since: $at}) { totalCount } }",
    "unusedSkills": "query($at: DateTime!) { unusedSkills(since: $at) { totalCount } }",
    "Tool.stats": 'query($at: DateTime!) { tool(id: "bt_calculator") { stats(since: $at) { calls } } }',
    "Skill.usage": 'query($at: DateTime!) { skill(id: "sk_email_draft") { usage(since: $at) { __typename } } }',
    "healthReport": "query($at: DateTime!) { healthReport(spaceId: $space, until: $at) { calls } }",
    "createApiKey": """mutation($at: DateTime!) { createApiKey(input: {role: VIEWER, spaceId: $space, expiresAt: $at}) {
                        apiKey { id } userErrors { code } } }""",
}


@pytest.mark.parametrize("moment", [LATE, EARLY], ids=["year-10000", "year-0"])
@pytest.mark.parametrize("name", list(DOCUMENTS))
async def test_a_moment_outside_utc_years_is_a_client_error(
    gql: GraphQLClient, keys: Keys, name: str, moment: str
) -> None:
    space = await keys.space("moments")
    admin = gql.as_key(await keys.for_space(space.id, Role.SPACE_ADMIN))
    document = DOCUMENTS[name]
    variables = {"at": moment}
    if "$space" in document:
        document = document.replace("($at: DateTime!)", "($space: ID!, $at: DateTime!)")
        variables["space"] = space.id
    response = await admin.raw(document, variables)

    body = response.json()
    assert response.status_code == 200, response.text
    assert body["data"] is None
    [error] = body["errors"]
    assert error["message"] == (
        f"Variable '$at' has invalid value: Value cannot represent a DateTime: \"{moment}\". "
        "It lies outside the years 1 to 9999 in UTC."
    ), error
    assert error.get("extensions", {}).get("code") != "INTERNAL_ERROR"


async def test_the_last_and_first_utc_moments_are_taken(gql: GraphQLClient) -> None:
    for moment in ("9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59+01:00"):
        data = await gql.execute(DOCUMENTS["toolCalls"], {"at": moment})
        assert data == {"toolCalls": {"totalCount": 0}}
