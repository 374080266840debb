"""The health report query."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from app.db import utcnow
from app.errors import DomainError, NotFoundError
from app.reports import service
from schema.context import Info
from schema.errors import ClientError
from schema.reports.types import HealthReport


@strawberry.type
class ReportsQuery:
    @strawberry.field(
        description="A space's health report over a window (default: the last 30 days; at most 366): top and unused skills and tools, failure rates per tool and week with their codes, PARAM_INVALID rates, p95 latency per week, skill versions served and their runs' outcomes. ADMIN keys read any space (or every space, without spaceId); SPACE_ADMIN and VIEWER keys their own. Null for a space outside the caller's reach."
    )
    async def health_report(
        self,
        info: Info,
        space_id: Annotated[
            strawberry.ID | None, strawberry.argument(description="The space; omitted (ADMIN only): every space.")
        ] = None,
        since: Annotated[
            datetime | None, strawberry.argument(description="Start of the window; default 30 days before until.")
        ] = None,
        until: Annotated[datetime | None, strawberry.argument(description="End of the window; default now.")] = None,
    ) -> HealthReport | None:
        principal = info.context.principal
        space = str(space_id) if space_id is not None else None
        if space is not None and not principal.can_read_space(space):
            return None
        try:
            start, end = service.window(since, until, utcnow())
            async with info.context.session() as session:
                report = await service.health_report(session, principal, space, start, end)
        except NotFoundError:
            return None  # no such space: as one out of reach
        except DomainError as error:
            raise ClientError(error.message, error.code) from None
        return HealthReport.of(report)
