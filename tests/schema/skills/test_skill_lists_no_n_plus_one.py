"""N+1 guard: listing 1 or 12 skills with their versions, history, usage, tools and SKILL.md
costs the same number of SQL statements."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.skills.usage import record_injection
from tests.conftest import GraphQLClient, Keys, StatementCounter
from tests.schema.skills.operations import PUBLISH, created_skill, mutate

SPACE_SKILLS = """
query SpaceSkills($id: ID!, $first: Int!) {
  space(id: $id) {
    skills(first: $first, filter: {category: "bench"}) {
      edges { node {
        id version candidateVersion canaryPercent skillMd
        versions { version channel }
        channelHistory { action fromVersion toVersion actor at }
        usage { injectedCount byVersion { version injectedCount } }
        tools { id name }
      } }
    }
  }
}
"""


@dataclass(frozen=True)
class Injected:
    skill_id: str
    version: str


class TestSkillListStatements:
    async def test_one_and_twelve_skills_cost_the_same(
        self,
        gql: GraphQLClient,
        keys: Keys,
        count_queries: StatementCounter,
        session_factory: async_sessionmaker[AsyncSession],
    ) -> None:
        alpha = await keys.space("alpha")
        counts = []
        created: list[str] = []
        for size in (1, 12):
            while len(created) < size:
                skill = await created_skill(
                    gql, name=f"skill-{len(created)}", spaceId=alpha.id, category="bench", toolIds=["bt_calculator"]
                )
                await mutate(gql, PUBLISH, "publishSkillVersion", {"skillId": skill["id"], "prompt": "candidate"})
                async with session_factory() as session, session.begin():
                    await record_injection(session, [Injected(skill["id"], "1.0.0")])
                created.append(skill["id"])
            count_queries.statements.clear()
            data = await gql.execute(SPACE_SKILLS, {"id": alpha.id, "first": size})
            assert len(data["space"]["skills"]["edges"]) == size
            counts.append(count_queries.count)

        assert counts[0] == counts[1], counts
