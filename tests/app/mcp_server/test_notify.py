"""The change notifier on its own: only endpoints whose offer changed are told, what a client
was served is its baseline, and an endpoint nobody listens to is forgotten."""

from __future__ import annotations

from collections.abc import Callable

from mcp.shared.subscriptions import PromptsListChanged, ServerEvent, ToolsListChanged

from app.mcp_server.catalog import Catalog, Target
from app.mcp_server.notify import LISTEN_TARGET, ChangeNotifier
from tests.conftest import GraphQLClient, Keys
from tests.schema.agents.test_agents import create_agent, update_agent
from tests.schema.gateway import SessionFactory, fresh
from tests.schema.skills.operations import created_skill
from tests.schema.tools.operations import create_tool


def listen(notifier: ChangeNotifier, target: Target) -> tuple[list[ServerEvent], Callable[[], None]]:
    """A listen stream on ``target``, as the SDK's ListenHandler opens one."""
    received: list[ServerEvent] = []
    token = LISTEN_TARGET.set((target, "key_test"))
    try:
        unsubscribe = notifier.subscribe(received.append)
    finally:
        LISTEN_TARGET.reset(token)
    return received, unsubscribe


async def bound_tool(gql: GraphQLClient, space_id: str) -> None:
    await create_tool(gql, fresh("notify"), endpoint="http://127.0.0.1:9/never", spaceIds=[space_id])


class TestWhoIsTold:
    async def test_only_the_endpoints_whose_tools_changed(
        self, gql: GraphQLClient, keys: Keys, session_factory: SessionFactory
    ) -> None:
        notifier = ChangeNotifier(Catalog(session_factory, ttl_s=60), session_idle_s=60)
        alpha, beta = await keys.space("alpha"), await keys.space("beta")
        to_alpha, _ = listen(notifier, Target("space", alpha.id))
        to_beta, _ = listen(notifier, Target("space", beta.id))
        await notifier.check()  # the baselines: nothing was served to these endpoints before
        assert to_alpha == to_beta == []

        await bound_tool(gql, alpha.id)
        await notifier.check()
        assert to_alpha == [ToolsListChanged()] and to_beta == []

        await notifier.check()  # nothing changed since
        assert to_alpha == [ToolsListChanged()] and to_beta == []

    async def test_an_agent_endpoint_hears_of_its_manifest_and_skills(
        self, gql: GraphQLClient, keys: Keys, session_factory: SessionFactory
    ) -> None:
        notifier = ChangeNotifier(Catalog(session_factory, ttl_s=60), session_idle_s=60)
        space = await keys.space("agents")
        agent = (await create_agent(gql, space.id))["agent"]
        received, _ = listen(notifier, Target("agent", agent["id"]))
        await notifier.check()

        assert (await update_agent(gql, agent["id"], activatedToolIds=["bt_calculator"]))["userErrors"] == []
        await notifier.check()
        assert received == [ToolsListChanged()]

        skill = await created_skill(gql, spaceId=space.id, name=fresh("skill").replace("_", "-"))
        assert (await update_agent(gql, agent["id"], boundSkillIds=[skill["id"]]))["userErrors"] == []
        await notifier.check()
        assert received == [ToolsListChanged(), PromptsListChanged()]

        # A tool bound elsewhere in the space is none of this agent's business.
        await bound_tool(gql, space.id)
        await notifier.check()
        assert received == [ToolsListChanged(), PromptsListChanged()]


class TestBaselines:
    async def test_a_change_between_listing_and_listening_is_not_missed(
        self, gql: GraphQLClient, keys: Keys, session_factory: SessionFactory
    ) -> None:
        catalog = Catalog(session_factory, ttl_s=60)
        notifier = ChangeNotifier(catalog, session_idle_s=60)
        space = await keys.space("between")
        target = Target("space", space.id)
        notifier.served(target, await catalog.offer(target))  # the client's tools/list
        await bound_tool(gql, space.id)  # lands before the client listens
        received, _ = listen(notifier, target)
        await notifier.check()
        assert received == [ToolsListChanged()]

    async def test_an_endpoint_nobody_listens_to_is_forgotten(
        self, gql: GraphQLClient, keys: Keys, session_factory: SessionFactory
    ) -> None:
        notifier = ChangeNotifier(Catalog(session_factory, ttl_s=60), session_idle_s=60)
        space = await keys.space("forgotten")
        target = Target("space", space.id)
        received, unsubscribe = listen(notifier, target)
        notifier.session_opened("session-1", target, "key_test")
        await notifier.check()
        unsubscribe()
        notifier.session_closed("session-1")
        await bound_tool(gql, space.id)
        await notifier.check()
        assert received == []
        assert notifier.streams_of("key_test") == 0 and notifier.sessions_of("key_test") == 0
