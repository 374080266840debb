"""Queries and mutations of the spaces domain."""

from __future__ import annotations

from typing import Annotated

import strawberry

from app.spaces import repository, service
from schema.context import Info
from schema.enums import Role
from schema.errors import UserError
from schema.mutations import in_transaction
from schema.pagination import AfterArgument, Connection, FirstArgument, paginate
from schema.spaces.types import Space, Viewer

IdArgument = Annotated[strawberry.ID, strawberry.argument(description="The space's id (sp_…).")]


@strawberry.type
class SpacesQuery:
    @strawberry.field(description="The caller behind this request's API key.")
    async def viewer(self, info: Info) -> Viewer:
        principal = info.context.principal
        space = None
        if principal.space_id is not None:
            row = await info.context.loaders.space_by_id.load(principal.space_id)
            space = Space.from_row(row) if row else None
        async with info.context.session() as session:
            key = await repository.get_api_key(session, principal.key_id)
        role = Role(principal.role.value)
        return Viewer(
            space=space,
            roles=[role],
            role=role,
            key_id=strawberry.ID(principal.key_id),
            key_label=key.label if key else None,
        )

    @strawberry.field(description="Spaces the caller can read: every space for admins, its own otherwise.")
    async def spaces(self, info: Info, first: FirstArgument = 50, after: AfterArgument = None) -> Connection[Space]:
        reach = info.context.principal.reach
        return await paginate(
            info,
            first,
            after,
            lambda session, request: repository.list_spaces(session, reach, request),
            lambda session: repository.count_spaces(session, reach),
            Space.from_row,
            lambda row: row.id,
        )

    @strawberry.field(description="One space by id; null when absent or outside the caller's reach.")
    async def space(self, info: Info, id: IdArgument) -> Space | None:
        async with info.context.session() as session:
            row = await service.get_readable_space(session, info.context.principal, str(id))
        return Space.from_row(row) if row else None


@strawberry.input(description="A new space.")
class CreateSpaceInput:
    name: str = strawberry.field(description="Unique machine name: 1-64 of a-z, 0-9, '_' and '-'.")
    label: str = strawberry.field(description="Display name for people.")


@strawberry.type(description="Result of a mutation on a space.")
class SpacePayload:
    space: Space | None = strawberry.field(description="The space; null when the mutation failed.")
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


@strawberry.type
class SpacesMutation:
    @strawberry.mutation(description="Create a space (ADMIN keys only).")
    async def create_space(
        self,
        info: Info,
        input: Annotated[CreateSpaceInput, strawberry.argument(description="The new space.")],
    ) -> SpacePayload:
        principal = info.context.principal
        row, errors = await in_transaction(
            info, lambda session: service.create_space(session, principal, input.name, input.label)
        )
        return SpacePayload(space=Space.from_row(row) if row else None, user_errors=errors)
