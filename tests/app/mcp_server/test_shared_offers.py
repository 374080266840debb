"""The MCP endpoint's offers of different spaces share the tools they have in common
(app/mcp_server/catalog.py, ``_offered_tools``): one MCP model per tool and name, not one per
space, as long as the tool's columns are the same. Against the database, on both backends."""

from __future__ import annotations

import dataclasses

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.mcp_server.catalog import Catalog, Offer, OfferedTool, Target, _offered_tools
from app.tools import repository as tools_repository
from tests.conftest import Keys


def _dumped(offer: Offer) -> list[dict[str, object]]:
    return [item.tool.model_dump(mode="json", by_alias=True, exclude_none=True) for item in offer.tools]


async def test_two_spaces_offer_the_same_objects_for_the_tools_they_share(
    session_factory: async_sessionmaker[AsyncSession], keys: Keys
) -> None:
    alpha, beta = await keys.space("shared_alpha"), await keys.space("shared_beta")
    catalog = Catalog(session_factory)
    first = await catalog.offer(Target("space", alpha.id))
    second = await catalog.offer(Target("space", beta.id))
    assert first is not None and second is not None
    common = set(first.tools_by_name) & set(second.tools_by_name)
    assert common, "no tool visible in both spaces (the builtin catalog)"
    for name in common:
        assert first.tools_by_name[name] is second.tools_by_name[name]
    # What each offers is what an offer built on its own offers.
    async with session_factory() as session:
        listings = await tools_repository.visible_tool_listings(session, beta.id, limit=10_000)
    alone = _offered_tools(listings)
    assert _dumped(second) == [item.tool.model_dump(mode="json", by_alias=True, exclude_none=True) for item in alone]
    unshared = await Catalog(session_factory).offer(Target("space", beta.id))
    assert unshared is not None and second.tools_fingerprint == unshared.tools_fingerprint


async def test_a_tool_whose_columns_differ_gets_its_own_model(
    session_factory: async_sessionmaker[AsyncSession], keys: Keys
) -> None:
    space = await keys.space("shared_changed")
    async with session_factory() as session:
        listings = await tools_repository.visible_tool_listings(session, space.id, limit=10_000)
    assert len(listings) >= 2
    shared: dict[tuple[str, str], OfferedTool] = {}
    before = _offered_tools(listings, shared)
    changed = [dataclasses.replace(listings[0], description="Described anew."), *listings[1:]]
    after = _offered_tools(changed, shared)
    by_id_before = {item.tool_id: item for item in before}
    by_id_after = {item.tool_id: item for item in after}
    first_id = listings[0].tool_id
    assert by_id_after[first_id] is not by_id_before[first_id]
    assert by_id_after[first_id].tool.description == "Described anew."
    assert by_id_before[first_id].tool.description != "Described anew."
    for tool_id, item in by_id_after.items():
        if tool_id != first_id:
            assert item is by_id_before[tool_id]
    # The changed one is what is shared from now on.
    assert shared[(first_id, by_id_after[first_id].name)] is by_id_after[first_id]
