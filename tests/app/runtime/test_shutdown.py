"""Shutdown of the runtime's background tasks: each cancelled task is waited for while it
cleans up; one that dropped its cancellation is cancelled again instead of waited for for ever."""

from __future__ import annotations

import asyncio

import pytest

from app.runtime import service

#: Only how long a test waits before calling the shutdown hung (no timing is asserted).
HANG_GUARD_S = 10.0


async def test_a_task_that_dropped_its_cancellation_is_cancelled_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "CLOSE_GRACE_S", 0.05)
    steps: list[str] = []

    async def stubborn() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            steps.append("dropped")  # as Python 3.11's wait_for does when its result comes at that moment
        try:
            await asyncio.sleep(3600)
        finally:
            steps.append("cleaned up")

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    task.cancel()
    await asyncio.wait_for(service._cancelled([task]), HANG_GUARD_S)

    assert task.cancelled()
    assert steps == ["dropped", "cleaned up"]


async def test_a_task_cleaning_up_within_the_grace_is_left_to_finish() -> None:
    steps: list[str] = []
    cleaning = asyncio.Event()

    async def releasing() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cleaning.set()
            await asyncio.sleep(0.05)  # giving its run up: not interrupted
            steps.append("released")
            raise

    async def failing() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            raise RuntimeError("failed on its way out") from None

    tasks = [asyncio.create_task(releasing()), asyncio.create_task(failing())]
    await asyncio.sleep(0)
    for task in tasks:
        task.cancel()
    await asyncio.wait_for(service._cancelled(tasks), HANG_GUARD_S)

    assert steps == ["released"]
    assert tasks[0].cancelled()
    assert isinstance(tasks[1].exception(), RuntimeError)
