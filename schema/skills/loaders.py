"""Per-request DataLoaders of the skills domain, kept beside the shared ``Loaders``.

They live in a registry keyed by the request's ``Loaders`` object, so they share its
lifetime (one request, or one event on a WebSocket after ``renew_loaders``) without
changing the shared context. One ``IN (...)`` query per batch, results in key order.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from datetime import date

from strawberry.dataloader import DataLoader

from app.skills import repository
from app.skills.models import SkillChannelEvent
from app.skills.repository import VersionUsage
from schema.context import Info
from schema.loaders import Loaders, SessionFactory


@dataclass
class SkillLoaders:
    channel_events_by_skill_id: DataLoader[str, list[SkillChannelEvent]]
    usage_by_skill_id: DataLoader[tuple[str, date | None], list[VersionUsage]]


def _build(session_factory: SessionFactory) -> SkillLoaders:
    async def events(keys: list[str]) -> list[list[SkillChannelEvent]]:
        async with session_factory() as session:
            found = await repository.events_by_skill_ids(session, keys)
        return [list(found.get(key, [])) for key in keys]

    async def usage(keys: list[tuple[str, date | None]]) -> list[list[VersionUsage]]:
        by_since: dict[date | None, list[str]] = {}
        for skill_id, since in keys:
            by_since.setdefault(since, []).append(skill_id)
        found: dict[tuple[str, date | None], list[VersionUsage]] = {}
        async with session_factory() as session:
            for since, skill_ids in by_since.items():
                rows = await repository.usage_by_skill_ids(session, skill_ids, since)
                for skill_id in skill_ids:
                    found[(skill_id, since)] = list(rows.get(skill_id, []))
        return [found[key] for key in keys]

    return SkillLoaders(
        channel_events_by_skill_id=DataLoader(load_fn=events),
        usage_by_skill_id=DataLoader(load_fn=usage),
    )


_REGISTRY: dict[int, SkillLoaders] = {}


def skill_loaders(info: Info) -> SkillLoaders:
    """The skills loaders of this request (created on first use)."""
    shared: Loaders = info.context.loaders
    key = id(shared)
    loaders = _REGISTRY.get(key)
    if loaders is None:
        loaders = _build(info.context.session_factory)
        _REGISTRY[key] = loaders
        weakref.finalize(shared, _REGISTRY.pop, key, None)
    return loaders
