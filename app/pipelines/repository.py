"""Every SQL statement of pipelines."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app import leases
from app.pagination import Page, PageRequest, count, fetch_page
from app.pipelines.models import Pipeline, PipelineRun, PipelineVersion


async def get_pipeline(session: AsyncSession, pipeline_id: str) -> Pipeline | None:
    return await session.get(Pipeline, pipeline_id, populate_existing=True)


async def pipelines_by_ids(session: AsyncSession, pipeline_ids: Sequence[str]) -> list[Pipeline]:
    if not pipeline_ids:
        return []
    return list((await session.scalars(select(Pipeline).where(Pipeline.id.in_(pipeline_ids)))).all())


def _space_statement(space_id: str) -> Select[Pipeline]:
    return select(Pipeline).where(Pipeline.space_id == space_id)


async def list_pipelines(session: AsyncSession, space_id: str, page: PageRequest) -> Page[Pipeline]:
    return await fetch_page(session, _space_statement(space_id), Pipeline.id, page)


async def count_pipelines(session: AsyncSession, space_id: str) -> int:
    return await count(session, _space_statement(space_id))


async def name_taken(session: AsyncSession, space_id: str, name: str, exclude_id: str | None = None) -> bool:
    statement = select(Pipeline.id).where(Pipeline.space_id == space_id, Pipeline.name == name)
    if exclude_id is not None:
        statement = statement.where(Pipeline.id != exclude_id)
    return (await session.scalar(statement.limit(1))) is not None


async def get_version(session: AsyncSession, pipeline_id: str, version: int) -> PipelineVersion | None:
    return await session.get(PipelineVersion, (pipeline_id, version))


async def versions_by_pipeline_ids(
    session: AsyncSession, pipeline_ids: Sequence[str]
) -> dict[str, list[PipelineVersion]]:
    result: dict[str, list[PipelineVersion]] = {pipeline_id: [] for pipeline_id in pipeline_ids}
    if not pipeline_ids:
        return result
    statement = (
        select(PipelineVersion)
        .where(PipelineVersion.pipeline_id.in_(pipeline_ids))
        .order_by(PipelineVersion.pipeline_id, PipelineVersion.version)
    )
    for row in (await session.scalars(statement)).all():
        result[row.pipeline_id].append(row)
    return result


async def bump_version(session: AsyncSession, pipeline_id: str, expected: int) -> bool:
    """Move the pipeline to ``expected + 1``; False when another change won the race."""
    result = await session.execute(
        update(Pipeline).where(Pipeline.id == pipeline_id, Pipeline.version == expected).values(version=expected + 1)
    )
    return int(getattr(result, "rowcount", 0) or 0) == 1


async def get_run(session: AsyncSession, run_id: str) -> PipelineRun | None:
    return await session.get(PipelineRun, run_id, populate_existing=True)


async def run_by_idempotency_key(session: AsyncSession, pipeline_id: str, key: str) -> PipelineRun | None:
    return await session.scalar(
        select(PipelineRun).where(PipelineRun.pipeline_id == pipeline_id, PipelineRun.idempotency_key == key)
    )


def _runs_statement(pipeline_id: str) -> Select[PipelineRun]:
    return select(PipelineRun).where(PipelineRun.pipeline_id == pipeline_id)


async def list_runs(session: AsyncSession, pipeline_id: str, page: PageRequest) -> Page[PipelineRun]:
    return await fetch_page(session, _runs_statement(pipeline_id), PipelineRun.id, page)


async def count_runs(session: AsyncSession, pipeline_id: str) -> int:
    return await count(session, _runs_statement(pipeline_id))


# ---------------------------------------------------------------- leases (as agent runs')


async def renew_leases(session: AsyncSession, run_ids: Sequence[str], owner_id: str, until: datetime) -> int:
    """Extend this replica's leases on the pipeline runs it executes; how many it still holds."""
    return await leases.renew_leases(session, PipelineRun, run_ids, owner_id, until)


async def orphaned_run_ids(session: AsyncSession, now: datetime, limit: int) -> list[str]:
    """RUNNING pipeline runs whose lease ran out (or that never had one: started before leases)."""
    return await leases.orphaned_ids(session, PipelineRun, now, limit)


async def take_over(session: AsyncSession, run_id: str, owner_id: str, now: datetime, until: datetime) -> bool:
    """Become the owner of an orphaned pipeline run; False when another replica was quicker."""
    return await leases.take_over(session, PipelineRun, run_id, owner_id, now, until)


async def update_owned_run(session: AsyncSession, run_id: str, owner_id: str, **values: Any) -> bool:
    """Write a RUNNING run this replica owns; False when its lease was lost (or it finished)."""
    result = await session.execute(
        update(PipelineRun)
        .where(PipelineRun.id == run_id, PipelineRun.owner_id == owner_id, PipelineRun.status == leases.RUNNING)
        .values(**values)
    )
    return leases.rowcount(result) == 1
