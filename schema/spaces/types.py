"""GraphQL types of the spaces domain: Space and Viewer."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated

import strawberry

from app.spaces.repository import SpaceRecord
from schema import visibility
from schema.context import Info
from schema.enums import Role
from schema.node import Node
from schema.pagination import AfterArgument, Connection, FirstArgument
from schema.refs import AgentRef, KnowledgeBaseRef, SkillFilterRef, SkillRef, ToolFilterRef, ToolRef


@strawberry.type(description="A tenant. Tools, skills, knowledge bases and agents are seen through spaces.")
class Space(Node):
    id: strawberry.ID = strawberry.field(description="Space id, sp_….")
    name: str = strawberry.field(description="Unique machine name of the space.")
    label: str = strawberry.field(description="Display name for people.")
    is_system: bool = strawberry.field(
        description="The system space holds restricted builtins until an admin assigns them."
    )
    created_at: datetime = strawberry.field(description="When the space was created.")
    row: strawberry.Private[SpaceRecord]

    @classmethod
    def from_row(cls, row: SpaceRecord) -> Space:
        return cls(
            id=strawberry.ID(row.id),
            name=row.name,
            label=row.label,
            is_system=row.is_system,
            created_at=row.created_at,
            row=row,
        )

    @strawberry.field(
        description="Tools visible in this space under the 'no binding row means global' rule, MCP tools inheriting their server's bindings. Only ACTIVE tools unless `includeInactive`."
    )
    async def visible_tools(
        self,
        info: Info,
        first: FirstArgument = 50,
        after: AfterArgument = None,
        filter: Annotated[ToolFilterRef | None, strawberry.argument(description="Narrow the list.")] = None,
        include_inactive: Annotated[
            bool | None,
            strawberry.argument(description="Also list DISABLED and ARCHIVED tools (and tools of inactive servers)."),
        ] = False,
    ) -> Connection[ToolRef]:
        from schema.tools.types import tool_connection

        return await tool_connection(
            info,
            self.row.id,
            first,
            after,
            filter.to_app() if filter else None,
            include_inactive=bool(include_inactive),
        )

    @strawberry.field(description="Global skills plus the skills owned by this space (archived ones are left out).")
    async def skills(
        self,
        info: Info,
        first: FirstArgument = 50,
        after: AfterArgument = None,
        filter: Annotated[SkillFilterRef | None, strawberry.argument(description="Narrow the list.")] = None,
    ) -> Connection[SkillRef]:
        from schema.skills.types import skill_connection

        return await skill_connection(info, self.row.id, first, after, filter)

    @strawberry.field(description="Knowledge bases of this space.")
    async def knowledge_bases(
        self, info: Info, first: FirstArgument = 50, after: AfterArgument = None
    ) -> Connection[KnowledgeBaseRef]:
        from schema.knowledge.types import knowledge_base_connection

        return await knowledge_base_connection(info, self.row.id, first, after)

    @strawberry.field(description="Agents of this space (archived ones are left out).")
    async def agents(self, info: Info, first: FirstArgument = 50, after: AfterArgument = None) -> Connection[AgentRef]:
        from schema.agents.types import agent_connection

        return await agent_connection(info, self.row.id, first, after)


async def spaces_for(info: Info, space_ids: Sequence[str]) -> list[Space]:
    """Spaces by id through the loader, leaving out those the viewer may not see."""
    principal = info.context.principal
    rows = await info.context.loaders.space_by_id.load_many(
        [space_id for space_id in space_ids if principal.can_read_space(space_id)]
    )
    return [Space.from_row(row) for row in rows if row is not None]


async def space_of(info: Info, space_id: str) -> Space:
    """The ``space`` link of an object the reader already reaches (its ``space_id`` is a foreign key).

    Non-null: should the space not be readable, the field fails with NOT_VISIBLE.
    """
    if not visibility.space_visible(info, space_id):
        raise visibility.refuse("space")
    row = await info.context.loaders.space_by_id.load(space_id)
    assert row is not None  # space_id is a foreign key
    return Space.from_row(row)


@strawberry.type(description="The caller behind the API key of this request.")
class Viewer:
    space: Space | None = strawberry.field(description="Null for an admin key, which reaches every space.")
    roles: list[Role] = strawberry.field(description="What the key may do.")
    role: Role = strawberry.field(description="What the key may do (the one role of `roles`).")
    key_id: strawberry.ID = strawberry.field(description="Id of the API key this request carries (key_…).")
    key_label: str | None = strawberry.field(description="The label given to the key when it was created, if any.")
