"""API keys as the API shows them: listed, created (the secret shown once) and revoked.

Only the SHA-256 of a key is stored and nothing here returns it. ADMIN keys manage every
key; SPACE_ADMIN keys the keys of their own space; MEMBER and VIEWER keys none.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import Enum
from typing import Annotated

import strawberry

from app.db import utcnow
from app.principal import Role as PrincipalRole
from app.spaces import repository, service
from app.spaces.models import ApiKey as ApiKeyRow
from schema import visibility
from schema.context import Info
from schema.enums import Role
from schema.errors import UserError
from schema.mutations import in_transaction
from schema.node import Node
from schema.pagination import AfterArgument, Connection, FirstArgument, empty_connection, make_connection, page_request
from schema.refs import SpaceRef


@strawberry.enum(description="Whether an API key is accepted now.")
class ApiKeyState(Enum):
    ACTIVE = strawberry.enum_value("ACTIVE", description="Accepted.")
    EXPIRED = strawberry.enum_value("EXPIRED", description="Past its expiry: refused like a revoked key.")
    REVOKED = strawberry.enum_value("REVOKED", description="Revoked: refused on every replica.")


@strawberry.type(description="An API key. Its secret is shown once, by createApiKey; only a hash of it is kept.")
class ApiKey(Node):
    id: strawberry.ID = strawberry.field(description="Key id, key_… (not the secret).")
    label: str | None = strawberry.field(description="A note to recognise the key by.")
    role: Role = strawberry.field(description="What the key may do.")
    created_at: datetime = strawberry.field(description="When the key was created.")
    expires_at: datetime | None = strawberry.field(description="When the key stops being accepted; null: never.")
    revoked_at: datetime | None = strawberry.field(description="When the key was revoked; null while it is not.")
    last_used_at: datetime | None = strawberry.field(
        description="When the key last authenticated a request, to the minute; null: never used."
    )
    row: strawberry.Private[ApiKeyRow]

    @classmethod
    def from_row(cls, row: ApiKeyRow) -> ApiKey:
        return cls(
            id=strawberry.ID(row.id),
            label=row.label,
            role=Role(row.role),
            created_at=row.created_at,
            expires_at=row.expires_at,
            revoked_at=row.revoked_at,
            last_used_at=row.last_used_at,
            row=row,
        )

    @strawberry.field(description="ACTIVE, EXPIRED or REVOKED, as of this request.")
    def state(self) -> ApiKeyState:
        return ApiKeyState(service.key_state(self.row, utcnow()))

    @strawberry.field(description="The space the key belongs to; null for ADMIN keys, which reach every space.")
    async def space(self, info: Info) -> SpaceRef | None:
        from schema.spaces.types import Space

        if self.row.space_id is None or not visibility.space_visible(info, self.row.space_id):
            return None
        row = await info.context.loaders.space_by_id.load(self.row.space_id)
        return Space.from_row(row) if row else None


@strawberry.type
class ApiKeysQuery:
    @strawberry.field(
        description="API keys the caller manages, oldest first: every key for ADMIN keys, their space's for SPACE_ADMIN keys, none otherwise."
    )
    async def api_keys(
        self,
        info: Info,
        space_id: Annotated[strawberry.ID | None, strawberry.argument(description="Only this space's keys.")] = None,
        state: Annotated[ApiKeyState | None, strawberry.argument(description="Only keys in this state.")] = None,
        first: FirstArgument = 50,
        after: AfterArgument = None,
    ) -> Connection[ApiKey]:
        principal = info.context.principal
        request = page_request(first, after)
        wanted = state.name if state else None
        async with info.context.session() as session:
            found = await service.list_api_keys(
                session, principal, str(space_id) if space_id else None, wanted, request
            )
        if found is None:
            return empty_connection(after)
        page, key_filter = found

        async def total() -> int:
            async with info.context.session() as session:
                return await repository.count_api_keys(session, key_filter)

        return make_connection(
            page, [ApiKey.from_row(row) for row in page.items], [row.id for row in page.items], total
        )


@strawberry.input(description="A new API key.")
class CreateApiKeyInput:
    role: Role = strawberry.field(
        description="What the key may do. SPACE_ADMIN keys create SPACE_ADMIN, MEMBER and VIEWER keys of their space."
    )
    space_id: strawberry.ID | None = strawberry.field(
        default=None, description="The key's space; none for ADMIN keys (SPACE_ADMIN keys: their own by default)."
    )
    label: str | None = strawberry.field(default=None, description="A note to recognise the key by (200 characters).")
    expires_at: datetime | None = strawberry.field(
        default=None, description="When the key stops being accepted (UTC when no offset is given); omit: never."
    )


@strawberry.type(description="Result of createApiKey.")
class CreateApiKeyPayload:
    api_key: ApiKey | None = strawberry.field(description="The new key; null when the input was refused.")
    secret: str | None = strawberry.field(
        description="The key itself, to send as `Authorization: Bearer <secret>`. Shown only in this answer: it is not stored."
    )
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


@strawberry.input(description="The key to revoke.")
class RevokeApiKeyInput:
    id: strawberry.ID = strawberry.field(description="The key's id (key_…).")


@strawberry.type(description="Result of revokeApiKey.")
class RevokeApiKeyPayload:
    api_key: ApiKey | None = strawberry.field(description="The revoked key; null when the input was refused.")
    user_errors: list[UserError] = strawberry.field(description="Why the input was refused; empty on success.")


def _aware(moment: datetime | None) -> datetime | None:
    """A moment given without an offset is UTC, as everywhere in the API."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


@strawberry.type
class ApiKeysMutation:
    @strawberry.mutation(description="Create an API key (ADMIN keys: any; SPACE_ADMIN keys: their space's).")
    async def create_api_key(
        self,
        info: Info,
        input: Annotated[CreateApiKeyInput, strawberry.argument(description="The new key.")],
    ) -> CreateApiKeyPayload:
        principal = info.context.principal
        result, errors = await in_transaction(
            info,
            lambda session: service.create_api_key_for(
                session,
                principal,
                role=PrincipalRole(input.role.name),
                space_id=str(input.space_id) if input.space_id else None,
                label=input.label,
                expires_at=_aware(input.expires_at),
            ),
        )
        if result is None:
            return CreateApiKeyPayload(api_key=None, secret=None, user_errors=errors)
        row, secret = result
        return CreateApiKeyPayload(api_key=ApiKey.from_row(row), secret=secret, user_errors=[])

    @strawberry.mutation(
        description="Revoke an API key: refused at once on every replica. Revoking a revoked key changes nothing."
    )
    async def revoke_api_key(
        self,
        info: Info,
        input: Annotated[RevokeApiKeyInput, strawberry.argument(description="The key.")],
    ) -> RevokeApiKeyPayload:
        principal, environment_key = info.context.principal, info.context.settings.admin_token
        row, errors = await in_transaction(
            info, lambda session: service.revoke_api_key(session, principal, str(input.id), environment_key)
        )
        return RevokeApiKeyPayload(api_key=ApiKey.from_row(row) if row else None, user_errors=errors)
