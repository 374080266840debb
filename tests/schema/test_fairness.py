"""Sharing the event loop: long lists are completed in slices that let other tasks run, and
costly queries of one tenant wait in that tenant's line only."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Awaitable

import pytest
import strawberry

from app.config import Settings
from app.main import create_app
from schema import fairness
from schema.fairness import CostlyOperationGate, TimeSlicedExecutor

ITEMS = 1_000


@strawberry.type
class Row:
    number: int


@strawberry.type
class Table:
    rows: list[Row]  # a plain field: completed in place by the executor (schema/execution.py)


@strawberry.type
class Numbers:
    @strawberry.field
    def table(self) -> Table:
        return Table(rows=[Row(number=number) for number in range(ITEMS)])

    @strawberry.field
    def numbers(self) -> list[int]:
        return list(range(ITEMS))

    @strawberry.field
    def holes(self) -> list[int]:
        return [None if number == 700 else number for number in range(ITEMS)]  # type: ignore[misc]


async def _ticks_while(work: Awaitable[object]) -> tuple[object, int]:
    """How often another task ran while ``work`` was being done."""
    ticks = 0
    done = False

    async def ticker() -> None:
        nonlocal ticks
        while not done:
            await asyncio.sleep(0)
            ticks += 1

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    ticks = 0
    result = await work
    done = True
    await task
    return result, ticks


class TestTimeSlices:
    async def test_a_long_list_lets_other_tasks_run_while_it_is_completed(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(fairness, "SLICE_S", 0.0)
        sliced = strawberry.Schema(query=Numbers, execution_context_class=TimeSlicedExecutor)

        result, ticks = await _ticks_while(sliced.execute("{ numbers }"))

        assert result.errors is None  # type: ignore[attr-defined]
        assert result.data == {"numbers": list(range(ITEMS))}  # type: ignore[attr-defined]
        assert ticks >= ITEMS - 1

    async def test_a_long_list_of_objects_read_in_place_is_sliced_too(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(fairness, "SLICE_S", 0.0)
        sliced = strawberry.Schema(query=Numbers, execution_context_class=TimeSlicedExecutor)

        result, ticks = await _ticks_while(sliced.execute("{ table { rows { number } } }"))

        assert result.errors is None  # type: ignore[attr-defined]
        assert result.data == {"table": {"rows": [{"number": number} for number in range(ITEMS)]}}  # type: ignore[attr-defined]
        assert ticks >= ITEMS - 1

    async def test_without_slices_the_same_list_holds_the_loop(self) -> None:
        """The companion: graphql-core alone completes the list in one go."""
        plain = strawberry.Schema(query=Numbers)

        result, ticks = await _ticks_while(plain.execute("{ numbers }"))

        assert result.data == {"numbers": list(range(ITEMS))}  # type: ignore[attr-defined]
        assert ticks <= 1

    async def test_an_error_in_a_sliced_list_keeps_its_path(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(fairness, "SLICE_S", 0.0)
        sliced = strawberry.Schema(query=Numbers, execution_context_class=TimeSlicedExecutor)

        result = await sliced.execute("{ holes }")

        assert result.data is None
        assert [error.path for error in result.errors or []] == [["holes", 700]]


class TestCostlyOperationGate:
    async def test_a_tenant_waits_behind_itself_not_behind_another(self) -> None:
        gate = CostlyOperationGate(per_tenant=1)
        release = asyncio.Event()
        order: list[str] = []

        async def query(tenant: str, name: str, hold: bool) -> None:
            async with gate.turn(tenant):
                order.append(f"{name} runs")
                if hold:
                    await release.wait()
            order.append(f"{name} done")

        first = asyncio.create_task(query("sp_noisy", "noisy-1", hold=True))
        await asyncio.sleep(0)
        second = asyncio.create_task(query("sp_noisy", "noisy-2", hold=False))
        other = asyncio.create_task(query("sp_quiet", "quiet", hold=False))
        await other
        assert order == ["noisy-1 runs", "quiet runs", "quiet done"]
        assert gate.in_line("sp_noisy") == 2
        release.set()
        await asyncio.gather(first, second)
        assert order[3:] == ["noisy-1 done", "noisy-2 runs", "noisy-2 done"]
        assert gate.in_line("sp_noisy") == 0


class TestStartUp:
    async def test_what_start_up_made_is_kept_out_of_the_collectors_sight(self, settings: Settings) -> None:
        """A full collection over everything start-up made held the loop up to a second."""
        app = create_app(settings)
        gc.unfreeze()
        try:
            async with app.router.lifespan_context(app):
                assert gc.get_freeze_count() > 0
        finally:
            gc.unfreeze()
