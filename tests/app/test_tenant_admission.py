"""Fair admission (QUIVER_TENANT_CONCURRENCY, schema.fairness.TenantAdmission, in app.main.AuthMiddleware):
while another tenant is served, a tenant's many requests in flight execute a few at a time and the
rest wait in its own queue, so the other tenant's request goes in at once; alone, a tenant is never
held; the wait is bounded (429 BUSY, never a 500)."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, cast

import pytest
from starlette.types import Receive, Scope, Send

from app.config import Settings
from app.main import PRINCIPAL_SCOPE_KEY, AuthMiddleware, KeyCache, create_app
from app.principal import Principal, Role
from app.scheduling import LOOP_SHARE, waiting_outside
from schema.fairness import TenantAdmission, TenantBusyError
from tests.support.asgi import StubKeys, post, settle

KEYS = {
    "key-a": Principal(key_id="k_a", role=Role.MEMBER, space_id="sp_a"),
    "key-b": Principal(key_id="k_b", role=Role.VIEWER, space_id="sp_b"),
    "admin": Principal(key_id="k_admin", role=Role.ADMIN, space_id=None),
}


class HeldApp:
    """Each request stays inside until its own name is released; records who went in, in order.
    ``upstream``: it waits for the release as on a slow upstream (inside ``waiting_outside``)."""

    def __init__(self, *, upstream: bool = False) -> None:
        self.inside: Counter[str] = Counter()
        self.entered: list[str] = []
        self.gates: dict[str, asyncio.Event] = {}
        self.upstream = upstream

    def gate(self, name: str) -> asyncio.Event:
        return self.gates.setdefault(name, asyncio.Event())

    def release(self, *names: str) -> None:
        for name in names:
            self.gate(name).set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        principal: Principal = scope[PRINCIPAL_SCOPE_KEY]
        tenant = str(principal.space_id or principal.key_id)
        name = dict(scope["headers"])[b"x-name"].decode()
        self.inside[tenant] += 1
        self.entered.append(name)
        try:
            if self.upstream:
                with waiting_outside():
                    await self.gate(name).wait()
            else:
                await self.gate(name).wait()
        finally:
            self.inside[tenant] -= 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


def named(name: str) -> list[tuple[bytes, bytes]]:
    return [(b"x-name", name.encode())]


def middleware(inner: HeldApp, admission: TenantAdmission | None) -> AuthMiddleware:
    return AuthMiddleware(inner, cast(KeyCache, StubKeys(KEYS)), admission=admission)


def start(app: AuthMiddleware, token: str, *names: str) -> list[asyncio.Future[Any]]:
    return [asyncio.ensure_future(post(app, token, named(name))) for name in names]


class TestSharedAdmission:
    async def test_another_tenants_request_goes_ahead_of_a_busy_tenants_queue(self) -> None:
        inner = HeldApp()
        admission = TenantAdmission(2)
        app = middleware(inner, admission)
        b1 = start(app, "key-b", "b1")
        await settle()
        a = start(app, "key-a", *(f"a{index}" for index in range(6)))
        await settle()
        # B is being served: A runs two, the other four wait in A's queue.
        assert inner.inside["sp_a"] == 2
        assert admission.waiting("sp_a") == 4
        # B's next request is not behind A's four.
        b2 = start(app, "key-b", "b2")
        await settle()
        assert inner.inside["sp_b"] == 2
        assert inner.entered == ["b1", "a0", "a1", "b2"]
        # One of A's ends: the next of A's, in the order they came.
        inner.release("a0")
        await settle()
        assert inner.entered[-1] == "a2"
        assert inner.inside["sp_a"] == 2
        inner.release(*(f"a{index}" for index in range(6)), "b1", "b2")
        results = await asyncio.gather(*a, *b1, *b2)
        assert [status for status, _, _ in results] == [200] * 8
        assert inner.entered == ["b1", "a0", "a1", "b2", "a2", "a3", "a4", "a5"]
        assert admission.running("sp_a") == admission.running("sp_b") == 0

    async def test_a_tenant_alone_is_not_capped(self) -> None:
        inner = HeldApp()
        admission = TenantAdmission(2)
        app = middleware(inner, admission)
        a = start(app, "key-a", *(f"a{index}" for index in range(50)))
        await settle()
        assert inner.inside["sp_a"] == 50
        assert admission.waiting("sp_a") == 0
        inner.release(*(f"a{index}" for index in range(50)))
        assert [status for status, _, _ in await asyncio.gather(*a)] == [200] * 50

    async def test_an_admin_key_is_a_tenant_of_its_own(self) -> None:
        inner = HeldApp()
        app = middleware(inner, TenantAdmission(1))
        a = start(app, "key-a", "a0", "a1", "a2")
        await settle()
        assert inner.inside["sp_a"] == 3  # alone
        admin = start(app, "admin", "x0", "x1", "x2")
        await settle()
        # A's three were let in while it was alone; the admin key, another tenant, gets its share.
        assert inner.inside["k_admin"] == 1
        inner.release("a0", "a1", "a2", "x0", "x1", "x2")
        assert [status for status, _, _ in await asyncio.gather(*a, *admin)] == [200] * 6

    async def test_the_queue_is_let_in_once_the_others_have_gone_quiet(self) -> None:
        inner = HeldApp()
        admission = TenantAdmission(1, recent_s=0.05, recheck_s=0.01)
        app = middleware(inner, admission)
        b = start(app, "key-b", "b1")
        await settle()
        a = start(app, "key-a", "a0", "a1", "a2")
        await settle()
        assert inner.inside["sp_a"] == 1
        inner.release("b1")
        await asyncio.gather(*b)
        await settle()
        assert inner.inside["sp_a"] == 1  # B ended a moment ago: still counted as being served
        await asyncio.sleep(0.15)
        assert inner.inside["sp_a"] == 3
        inner.release("a0", "a1", "a2")
        assert [status for status, _, _ in await asyncio.gather(*a)] == [200] * 3

    async def test_a_request_open_past_the_hold_no_longer_counts(self) -> None:
        # A long call (an agent run, a slow upstream) is waiting, not keeping the loop busy.
        inner = HeldApp()
        admission = TenantAdmission(1, hold_s=0.05, recheck_s=0.01)
        app = middleware(inner, admission)
        b = start(app, "key-b", "b1")
        await settle()
        a = start(app, "key-a", "a-long", "a-next")
        await settle()
        assert inner.entered == ["b1", "a-long"]
        await asyncio.sleep(0.15)
        assert inner.entered == ["b1", "a-long", "a-next"]
        assert admission.running("sp_a") == 0
        inner.release("a-long", "a-next", "b1")
        assert [status for status, _, _ in await asyncio.gather(*a, *b)] == [200] * 3


class TestBoundedWait:
    async def test_a_full_queue_is_answered_429_busy(self) -> None:
        inner = HeldApp()
        admission = TenantAdmission(1, max_waiting=2)
        app = middleware(inner, admission)
        b = start(app, "key-b", "b1")
        await settle()
        a = start(app, "key-a", "a0", "a1", "a2")
        await settle()
        status, body, headers = await post(app, "key-a", named("a3"))
        assert status == 429
        assert body is not None and body["data"] is None
        assert body["errors"][0]["extensions"] == {"code": "BUSY"}
        assert "2 requests of this tenant are already waiting" in body["errors"][0]["message"]
        assert headers[b"retry-after"] == b"1"
        assert "a3" not in inner.entered
        # The other tenant is not refused: its next request goes straight in.
        inner.release("b1")
        await asyncio.gather(*b)
        b2 = start(app, "key-b", "b2")
        await settle()
        assert inner.entered == ["b1", "a0", "b2"]
        inner.release("a0", "a1", "a2", "b2")
        assert [status for status, _, _ in await asyncio.gather(*a, *b2)] == [200] * 4

    async def test_a_wait_past_the_timeout_is_answered_429_busy(self) -> None:
        inner = HeldApp()
        admission = TenantAdmission(1, max_wait_s=0.05, hold_s=60)
        app = middleware(inner, admission)
        b = start(app, "key-b", "b1")
        a0 = start(app, "key-a", "a0")
        await settle()
        status, body, _ = await post(app, "key-a", named("a1"))
        assert status == 429
        assert body is not None and body["errors"][0]["extensions"]["code"] == "BUSY"
        assert "Not let in within 0.05 s" in body["errors"][0]["message"]
        assert admission.waiting("sp_a") == 0
        inner.release("a0", "b1")
        assert [status for status, _, _ in await asyncio.gather(*a0, *b)] == [200, 200]

    async def test_a_client_gone_while_waiting_leaves_nothing_behind(self) -> None:
        inner = HeldApp()
        admission = TenantAdmission(1)
        app = middleware(inner, admission)
        b = start(app, "key-b", "b1")
        a0 = start(app, "key-a", "a0")
        await settle()
        gone = start(app, "key-a", "gone")[0]
        await settle()
        assert admission.waiting("sp_a") == 1
        gone.cancel()
        await settle()
        assert admission.waiting("sp_a") == 0
        inner.release("a0")
        await asyncio.gather(*a0)
        # A's share is free again: its next request goes straight in, B still being served.
        a1 = start(app, "key-a", "a1")
        await settle()
        assert inner.entered == ["b1", "a0", "a1"]
        inner.release("a1", "b1")
        await asyncio.gather(*a1, *b)
        assert admission.running("sp_a") == 0


class TestUnit:
    async def test_a_ticket_let_in_as_its_wait_is_cancelled_is_given_back(self) -> None:
        admission = TenantAdmission(1)
        other = await admission.enter("b")
        first = await admission.enter("a")
        waiting = asyncio.ensure_future(admission.enter("a"))
        await settle()
        first.release()  # lets the waiting one in ...
        waiting.cancel()  # ... which is cancelled before it runs
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert admission.running("a") == 0
        third = await asyncio.wait_for(admission.enter("a"), 1)
        third.release()
        third.release()  # twice: the second does nothing
        other.release()
        assert admission.running("a") == admission.running("b") == 0

    def test_the_share_is_at_least_one(self) -> None:
        with pytest.raises(ValueError):
            TenantAdmission(0)

    async def test_busy_is_the_error_raised(self) -> None:
        admission = TenantAdmission(1, max_waiting=0)
        held = [await admission.enter("b"), await admission.enter("a")]
        with pytest.raises(TenantBusyError):
            await admission.enter("a")
        for ticket in held:
            ticket.release()


class TestSetting:
    def test_the_default_shares_and_zero_turns_it_off(self, tmp_path: Any) -> None:
        url = f"sqlite+aiosqlite:///{tmp_path}/a.db"
        on = create_app(Settings(database_url=url))
        admission = cast(Any, on).graphql_post.admission
        assert isinstance(admission, TenantAdmission)
        assert (admission.per_tenant, admission.max_waiting, admission.max_wait_s) == (1, 256, 10.0)
        off = create_app(Settings(database_url=url, tenant_concurrency=0))
        assert cast(Any, off).graphql_post.admission is None


class TestWaitingOnUpstreams:
    async def test_a_request_waiting_on_an_upstream_gives_its_place_to_the_next(self) -> None:
        # A tenant whose calls mostly wait on a slow endpoint is not held to one at a time.
        inner = HeldApp(upstream=True)
        admission = TenantAdmission(1)
        app = middleware(inner, admission)
        b = start(app, "key-b", "b1")
        await settle()
        a = start(app, "key-a", "a0", "a1", "a2")
        await settle()
        assert inner.inside["sp_a"] == 3  # each went in as the one before it began waiting outside
        assert admission.waiting("sp_a") == 0
        assert admission.running("sp_a") == 0
        inner.release("a0", "a1", "a2", "b1")
        assert [status for status, _, _ in await asyncio.gather(*a, *b)] == [200] * 4
        assert admission.running("sp_a") == 0

    async def test_back_from_the_upstream_it_counts_again(self) -> None:
        admission = TenantAdmission(1)
        other = await admission.enter("b")
        ticket = await admission.enter("a")
        LOOP_SHARE.set(ticket)
        with waiting_outside():
            assert admission.running("a") == 0
            # Its place is free meanwhile: another of the tenant's requests goes in at once.
            second = await asyncio.wait_for(admission.enter("a"), 1)
        assert admission.running("a") == 2  # back, counted again without waiting (past the share for now)
        second.release()
        ticket.release()
        ticket.pause()  # after release: nothing
        assert admission.running("a") == 0
        # Now the share is one again: a new request of the tenant goes in, the next waits.
        third = await admission.enter("a")
        fourth = asyncio.ensure_future(admission.enter("a"))
        await settle()
        assert not fourth.done()
        third.release()
        (await asyncio.wait_for(fourth, 1)).release()
        other.release()

    def test_without_a_request_it_does_nothing(self) -> None:
        assert LOOP_SHARE.get() is None
        with waiting_outside():
            pass
