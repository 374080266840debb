"""The fair loop (app/scheduling.py): a tenant past its share of the loop waits while another
tenant is served; alone, it never waits; steps outside any tenant are never held back."""

from __future__ import annotations

import asyncio
import time

from app.scheduling import TENANT, FairLoop, TenantLedger, new_event_loop


class TestLedger:
    def test_within_its_share_a_tenant_does_not_wait(self) -> None:
        ledger = TenantLedger(share=0.5, window_s=1.0)
        ledger.charge("noisy", 0.4, now=10.0)
        ledger.charge("quiet", 0.001, now=10.0)

        assert ledger.delay("noisy", now=10.0) == 0.0

    def test_past_its_share_it_waits_while_another_is_served_until_its_use_has_decayed(self) -> None:
        ledger = TenantLedger(share=0.5, window_s=1.0, max_delay_s=5.0)
        ledger.charge("noisy", 1.0, now=10.0)
        ledger.charge("quiet", 0.001, now=10.0)

        wait = ledger.delay("noisy", now=10.0)

        assert wait > 0.5  # ln(1.0 / 0.5) of a window
        assert ledger.delay("noisy", now=10.0 + wait + 0.01) == 0.0
        assert ledger.delay("quiet", now=10.0) == 0.0

    def test_alone_it_never_waits(self) -> None:
        ledger = TenantLedger(share=0.5, window_s=1.0)
        ledger.charge("noisy", 5.0, now=10.0)

        assert ledger.delay("noisy", now=10.0) == 0.0

    def test_a_wait_is_bounded(self) -> None:
        ledger = TenantLedger(share=0.5, window_s=1.0, max_delay_s=0.25)
        ledger.charge("noisy", 1000.0, now=10.0)
        ledger.charge("quiet", 0.001, now=10.0)

        assert ledger.delay("noisy", now=10.0) == 0.25


def _busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


async def _tenant_loop(tenant: str, steps: int, step_s: float, log: list[str]) -> None:
    TENANT.set(tenant)
    for _ in range(steps):
        _busy(step_s)
        log.append(tenant)
        await asyncio.sleep(0)
    log.append(f"{tenant} done")


def _noisy_steps_before_quiet_is_done(loop: asyncio.AbstractEventLoop) -> int:
    """Both start together: the noisy tenant with 40 steps of 5 ms, the quiet one with 10 of 1 ms."""
    log: list[str] = []

    async def both() -> None:
        await asyncio.gather(_tenant_loop("noisy", 40, 0.005, log), _tenant_loop("quiet", 10, 0.001, log))

    try:
        loop.run_until_complete(both())
    finally:
        loop.close()
    return log[: log.index("quiet done")].count("noisy")


class TestFairLoop:
    def test_a_tenant_past_its_share_lets_the_other_finish_first(self) -> None:
        """On a plain loop the two alternate step by step: the quiet tenant's ten steps wait
        for ten noisy ones. On the fair loop (a fifth of the loop, over 50 ms) the noisy
        tenant is held back once past its share, and the quiet one is done after fewer."""
        plain = _noisy_steps_before_quiet_is_done(asyncio.new_event_loop())
        fair_loop = new_event_loop()
        fair_loop.ledger = TenantLedger(share=0.2, window_s=0.05, max_delay_s=0.05)
        fair = _noisy_steps_before_quiet_is_done(fair_loop)

        assert plain >= 9
        assert fair <= plain - 3

    def test_steps_outside_a_tenant_and_a_lone_tenant_run_as_on_any_loop(self) -> None:
        loop = new_event_loop()
        loop.ledger = TenantLedger(share=0.2, window_s=0.05, max_delay_s=0.05)
        log: list[str] = []

        async def alone() -> None:
            await _tenant_loop("noisy", 30, 0.005, log)
            log.append("no tenant")

        try:
            assert isinstance(loop, FairLoop)
            loop.run_until_complete(alone())
        finally:
            loop.close()

        assert log == ["noisy"] * 30 + ["noisy done", "no tenant"]
        assert loop.ledger.delay("noisy", time.perf_counter()) == 0.0  # alone: never held back
