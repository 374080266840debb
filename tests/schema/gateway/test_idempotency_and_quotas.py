"""Idempotency keys (replay, conflict, exactly one execution under concurrency) and the
quotas per space and tool (rate limit, concurrency cap)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import SessionFactory, call_log, fresh, http_tool, invoke, set_tool_columns
from tests.support.http_tool_server import ToolServer, running_tool_server


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


class TestIdempotency:
    async def test_same_key_and_arguments_replay_the_stored_result(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("write")
        idempotency_key = fresh("idem")
        tool = await http_tool(gql, tool_server, f"/count-write/{key}", sideEffect="WRITE")

        first = await invoke(gql, space.id, tool["id"], {"amount": 10}, idempotency_key=idempotency_key)
        second = await invoke(gql, space.id, tool["id"], {"amount": 10}, idempotency_key=idempotency_key)

        assert first["status"] == second["status"] == "SUCCESS", (first["error"], second["error"])
        assert first["data"] == {"execution": 1, "received": {"amount": 10}}
        assert second["data"] == first["data"]
        assert len(await tool_server.requests("count-write", key)) == 1
        assert first["call"]["attempts"] == 1
        assert second["call"]["attempts"] == 0
        assert second["traceId"] != first["traceId"]
        log = await call_log(gql, toolId=tool["id"])
        assert [(node["attempts"], node["idempotencyKey"]) for node in log["nodes"]] == [
            (1, idempotency_key),
            (0, idempotency_key),
        ]

    async def test_argument_order_does_not_matter(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("write")
        idempotency_key = fresh("idem")
        tool = await http_tool(gql, tool_server, f"/count-write/{key}", sideEffect="WRITE")

        await invoke(gql, space.id, tool["id"], {"a": 1, "b": {"x": 1, "y": 2}}, idempotency_key=idempotency_key)
        replay = await invoke(
            gql, space.id, tool["id"], {"b": {"y": 2, "x": 1}, "a": 1}, idempotency_key=idempotency_key
        )

        assert replay["status"] == "SUCCESS"
        assert replay["call"]["attempts"] == 0
        assert len(await tool_server.requests("count-write", key)) == 1

    async def test_same_key_with_other_arguments_is_a_conflict(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("write")
        idempotency_key = fresh("idem")
        tool = await http_tool(gql, tool_server, f"/count-write/{key}", sideEffect="WRITE")

        await invoke(gql, space.id, tool["id"], {"amount": 10}, idempotency_key=idempotency_key)
        conflict = await invoke(gql, space.id, tool["id"], {"amount": 99}, idempotency_key=idempotency_key)

        assert conflict["status"] == "FAILED"
        assert conflict["error"]["code"] == "IDEMPOTENCY_CONFLICT"
        assert conflict["data"] is None
        assert conflict["call"]["attempts"] == 0
        assert len(await tool_server.requests("count-write", key)) == 1

    async def test_same_key_for_another_tool_is_a_conflict(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("write")
        idempotency_key = fresh("idem")
        first_tool = await http_tool(gql, tool_server, f"/count-write/{key}", sideEffect="WRITE")
        other_tool = await http_tool(gql, tool_server, f"/count-write/{key}", sideEffect="WRITE")

        await invoke(gql, space.id, first_tool["id"], {"amount": 10}, idempotency_key=idempotency_key)
        conflict = await invoke(gql, space.id, other_tool["id"], {"amount": 10}, idempotency_key=idempotency_key)

        assert conflict["error"]["code"] == "IDEMPOTENCY_CONFLICT"
        assert len(await tool_server.requests("count-write", key)) == 1

    async def test_keys_are_kept_per_space(self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer) -> None:
        alpha, beta = await keys.space("alpha"), await keys.space("beta")
        key = fresh("write")
        idempotency_key = fresh("idem")
        tool = await http_tool(gql, tool_server, f"/count-write/{key}", sideEffect="WRITE")

        in_alpha = await invoke(gql, alpha.id, tool["id"], {"amount": 10}, idempotency_key=idempotency_key)
        in_beta = await invoke(gql, beta.id, tool["id"], {"amount": 10}, idempotency_key=idempotency_key)

        # Another space never receives a result stored for this one.
        assert in_alpha["data"]["execution"] == 1
        assert in_beta["data"]["execution"] == 2
        assert in_beta["call"]["attempts"] == 1

    async def test_definitive_failure_is_replayed(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("write")
        idempotency_key = fresh("idem")
        tool = await http_tool(gql, tool_server, f"/auth-check/bearer/{key}", sideEffect="WRITE")

        first = await invoke(gql, space.id, tool["id"], {}, idempotency_key=idempotency_key)
        second = await invoke(gql, space.id, tool["id"], {}, idempotency_key=idempotency_key)

        assert first["error"]["code"] == second["error"]["code"] == "EXTERNAL_API_ERROR"
        assert second["error"] == first["error"]
        assert second["call"]["attempts"] == 0
        assert len(await tool_server.requests("auth-check/bearer", key)) == 1

    async def test_transient_failure_frees_the_key_for_a_retry(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("write")
        idempotency_key = fresh("idem")
        tool = await http_tool(gql, tool_server, f"/fails-once/{key}", sideEffect="WRITE", maxRetries=0)

        first = await invoke(gql, space.id, tool["id"], {"n": 1}, idempotency_key=idempotency_key)
        second = await invoke(gql, space.id, tool["id"], {"n": 1}, idempotency_key=idempotency_key)

        assert first["error"]["code"] == "EXTERNAL_API_ERROR"
        assert second["status"] == "SUCCESS", second["error"]
        assert second["call"]["attempts"] == 1
        assert len(await tool_server.requests("fails-once", key)) == 2

    async def test_concurrent_duplicates_execute_exactly_once(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("write")
        idempotency_key = fresh("idem")
        tool = await http_tool(gql, tool_server, f"/count-write/{key}?seconds=0.3", sideEffect="WRITE")

        envelopes = await asyncio.gather(
            *(invoke(gql, space.id, tool["id"], {"amount": 10}, idempotency_key=idempotency_key) for _ in range(8))
        )

        assert [envelope["status"] for envelope in envelopes] == ["SUCCESS"] * 8, [
            envelope["error"] for envelope in envelopes
        ]
        assert all(envelope["data"] == {"execution": 1, "received": {"amount": 10}} for envelope in envelopes)
        assert len(await tool_server.requests("count-write", key)) == 1
        assert sorted(envelope["call"]["attempts"] for envelope in envelopes) == [0] * 7 + [1]
        assert (await call_log(gql, toolId=tool["id"]))["totalCount"] == 8


class TestRateLimit:
    async def test_fourth_call_in_a_minute_is_rate_limited_per_space(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, session_factory: SessionFactory
    ) -> None:
        alpha, beta = await keys.space("alpha"), await keys.space("beta")
        key = fresh("rate")
        tool = await http_tool(gql, tool_server, f"/ok/{key}")
        await set_tool_columns(session_factory, tool["id"], rate_limit="3/minute")

        in_alpha = [await invoke(gql, alpha.id, tool["id"], {"n": number}) for number in range(4)]
        in_beta = [await invoke(gql, beta.id, tool["id"], {"n": number}) for number in range(3)]

        assert [envelope["status"] for envelope in in_alpha] == ["SUCCESS"] * 3 + ["FAILED"]
        assert in_alpha[3]["error"]["code"] == "RATE_LIMITED"
        assert in_alpha[3]["call"]["attempts"] == 0
        assert [envelope["status"] for envelope in in_beta] == ["SUCCESS"] * 3
        assert len(await tool_server.requests("ok", key)) == 6
        limited = await call_log(gql, toolId=tool["id"], status="FAILED")
        assert [(node["space"]["id"], node["error"]["code"]) for node in limited["nodes"]] == [
            (alpha.id, "RATE_LIMITED")
        ]

    async def test_rate_limit_applies_to_idempotent_calls_too(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, session_factory: SessionFactory
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("rate")
        tool = await http_tool(gql, tool_server, f"/count-write/{key}", sideEffect="WRITE")
        await set_tool_columns(session_factory, tool["id"], rate_limit="2/minute")

        envelopes = [
            await invoke(gql, space.id, tool["id"], {"n": number}, idempotency_key=fresh("idem")) for number in range(3)
        ]

        assert [envelope["status"] for envelope in envelopes] == ["SUCCESS", "SUCCESS", "FAILED"]
        assert envelopes[2]["error"]["code"] == "RATE_LIMITED"
        assert len(await tool_server.requests("count-write", key)) == 2


class TestConcurrencyCap:
    async def test_call_over_the_cap_is_rate_limited_in_that_space_only(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, session_factory: SessionFactory
    ) -> None:
        alpha, beta = await keys.space("alpha"), await keys.space("beta")
        key = fresh("cap")
        tool = await http_tool(gql, tool_server, f"/count-write/{key}?seconds=0.5", timeoutMs=3000)
        await set_tool_columns(session_factory, tool["id"], max_concurrency=1)

        first, second, other_space = await asyncio.gather(
            invoke(gql, alpha.id, tool["id"], {"n": 1}),
            invoke(gql, alpha.id, tool["id"], {"n": 2}),
            invoke(gql, beta.id, tool["id"], {"n": 3}),
        )

        outcomes = sorted([first["status"], second["status"]])
        assert outcomes == ["FAILED", "SUCCESS"]
        refused = first if first["status"] == "FAILED" else second
        assert refused["error"]["code"] == "RATE_LIMITED"
        assert "concurrency" in refused["error"]["detail"]
        assert other_space["status"] == "SUCCESS"
        assert len(await tool_server.requests("count-write", key)) == 2
        # The slot is given back when a call ends.
        assert (await invoke(gql, alpha.id, tool["id"], {"n": 4}))["status"] == "SUCCESS"


class TestDuplicatesHoldNoQuota:
    async def test_fifty_duplicates_of_one_key_run_once_and_none_is_rate_limited(
        self, gql: GraphQLClient, keys: Keys, tool_server: ToolServer, session_factory: SessionFactory
    ) -> None:
        space = await keys.space("alpha")
        key = fresh("dupes")
        idempotency_key = fresh("idem")
        # No retry and a time-out far above the tool's half second: one execution, however loaded the machine.
        tool = await http_tool(
            gql, tool_server, f"/count-write/{key}?seconds=0.5", sideEffect="WRITE", timeoutMs=15000, maxRetries=0
        )
        # Far fewer slots and calls per minute than duplicates: a waiting duplicate must take neither.
        await set_tool_columns(session_factory, tool["id"], max_concurrency=2, rate_limit="5/minute")

        envelopes = await asyncio.gather(
            *(invoke(gql, space.id, tool["id"], {"amount": 1}, idempotency_key=idempotency_key) for _ in range(50))
        )

        assert [envelope["error"] for envelope in envelopes if envelope["status"] != "SUCCESS"] == []
        assert sorted(envelope["call"]["attempts"] for envelope in envelopes) == [0] * 49 + [1]
        assert all(envelope["data"] == {"execution": 1, "received": {"amount": 1}} for envelope in envelopes)
        assert len(await tool_server.requests("count-write", key)) == 1
        # The slot and the one hit were the owner's: other calls still fit.
        others = [await invoke(gql, space.id, tool["id"], {"amount": n}) for n in range(4)]
        assert [envelope["status"] for envelope in others] == ["SUCCESS"] * 4
