"""Two requests creating the same name at the same time: one object, the other a DUPLICATE.

Each check-then-insert ran unguarded: on PostgreSQL (READ COMMITTED) two transactions each
found the name free and both inserted (thirty simultaneous createTool calls made twelve tools
of one name, createPipeline nine pipelines), and where a unique constraint caught the second
insert (space names, a skill's version numbers on SQLite) the caller got INTERNAL_ERROR.

Made deterministic: the first creation runs through the service in a transaction the test
holds open; the second is a real GraphQL request, let go as soon as it issues its first write
(the name's lock, or, without one, its INSERT); then the first commits.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

import httpx
from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.agents.models import Agent
from app.pipelines import service as pipelines_service
from app.pipelines.models import Pipeline
from app.principal import SYSTEM_PRINCIPAL, Role
from app.skills import service as skills_service
from app.skills.inputs import SkillInput
from app.skills.models import SkillVersion
from app.spaces import service as spaces_service
from app.spaces.models import Space
from app.tools import service as tools_service
from app.tools.models import ToolDefinition
from tests.conftest import GraphQLClient, Keys

# A statement the second request makes once it has checked the name (or is about to): a lock or
# its INSERT (which, without a lock, waits on SQLite's write lock or a unique index until the
# first commits).
SECOND_WRITE = re.compile(
    r"pg_advisory_xact_lock|UPDATE space SET name = name|^\s*INSERT INTO|FOR UPDATE", re.IGNORECASE
)
DUPLICATE_NAME = [{"field": ["input", "name"], "code": "DUPLICATE"}]


@asynccontextmanager
async def writes_seen(engine: AsyncEngine) -> AsyncIterator[asyncio.Event]:
    """An event set at the first lock or INSERT statement sent after entering."""
    seen = asyncio.Event()

    def before_cursor_execute(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if SECOND_WRITE.search(statement):
            seen.set()

    event.listen(engine.sync_engine, "before_cursor_execute", before_cursor_execute)
    try:
        yield seen
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", before_cursor_execute)


async def race(
    engine: AsyncEngine,
    session_factory: async_sessionmaker[AsyncSession],
    first: Callable[[AsyncSession], Awaitable[Any]],
    second: Callable[[], Coroutine[Any, Any, httpx.Response]],
) -> dict[str, Any]:
    """``first`` in a transaction held open until ``second`` (a request) writes; second's JSON."""
    async with session_factory() as session:
        transaction = await session.begin()
        await first(session)
        async with writes_seen(engine) as seen:
            request = asyncio.create_task(second())
            waiting = asyncio.create_task(seen.wait())
            await asyncio.wait({request, waiting}, return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
            await transaction.commit()
        response = await request
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def count_rows(session_factory: async_sessionmaker[AsyncSession], statement: Any) -> int:
    async with session_factory() as session:
        return int(await session.scalar(statement) or 0)


async def test_simultaneous_create_space(
    gql: GraphQLClient, engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    body = await race(
        engine,
        session_factory,
        lambda session: spaces_service.create_space(session, SYSTEM_PRINCIPAL, "twice", "Twice"),
        lambda: gql.raw(
            'mutation { createSpace(input: {name: "twice", label: "Twice"}) {'
            " space { id } userErrors { field code } } }"
        ),
    )
    assert "errors" not in body, body
    assert body["data"]["createSpace"] == {"space": None, "userErrors": DUPLICATE_NAME}
    assert await count_rows(session_factory, select(func.count()).where(Space.name == "twice")) == 1


async def test_simultaneous_create_tool(
    gql: GraphQLClient,
    keys: Keys,
    engine: AsyncEngine,
    session_factory: async_sessionmaker[AsyncSession],
    app_and_services: Any,
) -> None:
    space = await keys.space("racing")
    key = await keys.for_space(space.id, Role.SPACE_ADMIN)
    services = app_and_services.state.services

    async def first(session: AsyncSession) -> None:
        data = tools_service.ToolInput(
            name="lookup_order",
            label="Look up",
            description="Looks an order up.",
            input_schema={"type": "object"},
            endpoint="https://orders.example.com/lookup",
            space_ids=[space.id],
        )
        await tools_service.create_tool(session, SYSTEM_PRINCIPAL, data, services.secret_box, services.egress)

    body = await race(
        engine,
        session_factory,
        first,
        lambda: gql.as_key(key).raw(
            """mutation { createTool(input: {name: "lookup_order", label: "Look up", description: "Looks an order up.",
                 inputSchema: {type: "object"}, endpoint: "https://orders.example.com/lookup"}) {
                 tool { id } userErrors { field code } } }"""
        ),
    )
    assert "errors" not in body, body
    assert body["data"]["createTool"] == {"tool": None, "userErrors": DUPLICATE_NAME}
    statement = select(func.count()).where(ToolDefinition.name == "lookup_order")
    assert await count_rows(session_factory, statement) == 1


async def test_simultaneous_create_pipeline(
    gql: GraphQLClient, keys: Keys, engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    space = await keys.space("piping")
    created = await gql.execute(
        """mutation($space: ID!) { createAgent(input: {spaceId: $space, name: "Step", model: "m", systemPrompt: "p"}) {
             agent { id } userErrors { code } } }""",
        {"space": space.id},
    )
    agent_id = created["createAgent"]["agent"]["id"]
    steps = [pipelines_service.StepSpec(name="only", agent_id=agent_id, final=True)]
    body = await race(
        engine,
        session_factory,
        lambda session: pipelines_service.create_pipeline(session, SYSTEM_PRINCIPAL, space.id, "triage", steps),
        lambda: gql.raw(
            """mutation($space: ID!, $agent: ID!) { createPipeline(input: {spaceId: $space, name: "triage",
                 steps: [{name: "only", agentId: $agent, final: true}]}) {
                 pipeline { id } userErrors { field code } } }""",
            {"space": space.id, "agent": agent_id},
        ),
    )
    assert "errors" not in body, body
    assert body["data"]["createPipeline"] == {"pipeline": None, "userErrors": DUPLICATE_NAME}
    statement = select(func.count()).where(Pipeline.space_id == space.id, Pipeline.name == "triage")
    assert await count_rows(session_factory, statement) == 1
    assert await count_rows(session_factory, select(func.count()).where(Agent.id == agent_id)) == 1


async def test_simultaneous_update_skill(
    gql: GraphQLClient, keys: Keys, engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    space = await keys.space("skilled")
    async with session_factory() as session, session.begin():
        skill = await skills_service.create_skill(
            session,
            SYSTEM_PRINCIPAL,
            SkillInput(space_id=space.id, name="refunds", label="Refunds", description="Refund requests.", prompt="v1"),
            2000,
        )
    body = await race(
        engine,
        session_factory,
        lambda session: skills_service.update_skill(
            session, SYSTEM_PRINCIPAL, skill.skill_id, SkillInput(prompt="from the service"), 2000
        ),
        lambda: gql.raw(
            """mutation($id: ID!) { updateSkill(input: {id: $id, prompt: "from the request"}) {
                 skill { version } userErrors { code } } }""",
            {"id": skill.skill_id},
        ),
    )
    assert "errors" not in body, body
    assert body["data"]["updateSkill"] == {"skill": {"version": "1.0.2"}, "userErrors": []}
    statement = select(func.count()).where(SkillVersion.skill_id == skill.skill_id)
    assert await count_rows(session_factory, statement) == 3
