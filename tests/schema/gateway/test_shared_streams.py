"""Alike toolCalls subscriptions share one execution (schema/shared_streams.py): every member
gets each call once, members of different reach never share, leaving and falling behind
touch only the member concerned."""

from __future__ import annotations

import asyncio
import time
from contextlib import ExitStack
from typing import Any, cast

from starlette.testclient import TestClient, WebSocketTestSession

from app.config import Settings
from app.main import create_app
from app.principal import Role
from schema.shared_streams import MEMBER_BACKLOG, Frame, Member, SharedStreams
from tests.conftest import Keys
from tests.schema.gateway.test_call_log import (
    RECEIVE_TIMEOUT_S,
    SUBSCRIPTION,
    connect,
    invoke_over_http,
    next_call,
    receive_message,
)


def hub_of(client: TestClient) -> SharedStreams:
    hub: SharedStreams = client.app.state.shared_streams  # type: ignore[attr-defined]
    return hub


def wait_until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + RECEIVE_TIMEOUT_S
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def subscribe_all(client: TestClient, sockets: list[tuple[WebSocketTestSession, str]], query: str) -> None:
    """Each socket authenticated with its key and subscribed (operation id s0, s1, ...); live on the bus."""
    for index, (ws, key) in enumerate(sockets):
        connect(ws, key)
        ws.send_json({"id": f"s{index}", "type": "subscribe", "payload": {"query": query}})
    hub = hub_of(client)
    bus = client.app.state.services.bus  # type: ignore[attr-defined]
    wait_until(lambda: hub.member_count() == len(sockets), "not every subscription joined a stream")
    wait_until(
        lambda: bus.subscriber_count("tool_calls") == hub.stream_count(), "a shared stream never reached the bus"
    )


def received_ids(ws: WebSocketTestSession, operation_id: str, count: int) -> list[str]:
    return [next_call(receive_message(ws), operation_id)["id"] for _ in range(count)]


def alike_subscribers_share(settings: Settings, admin: str, alpha: str, beta: str) -> None:
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        sockets = [
            stack.enter_context(client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]))
            for _ in range(3)
        ]
        subscribe_all(client, [(ws, admin) for ws in sockets], SUBSCRIPTION)
        hub = hub_of(client)
        assert hub.stream_count() == 1

        first = invoke_over_http(client, admin, alpha, "1 + 1")["call"]["id"]
        second = invoke_over_http(client, admin, beta, "2 + 2")["call"]["id"]
        for index, ws in enumerate(sockets):
            assert received_ids(ws, f"s{index}", 2) == [first, second]

        # One member leaves: the others go on, and the next message each gets is the next call.
        sockets[1].send_json({"id": "s1", "type": "complete"})
        wait_until(lambda: hub.member_count() == 2, "the member that completed is still in the stream")
        third = invoke_over_http(client, admin, alpha, "3 + 3")["call"]["id"]
        assert received_ids(sockets[0], "s0", 1) == [third]
        assert received_ids(sockets[2], "s2", 1) == [third]

        # The last member out stops the stream and leaves the bus.
        sockets[0].send_json({"id": "s0", "type": "complete"})
        sockets[2].send_json({"id": "s2", "type": "complete"})
        bus = client.app.state.services.bus  # type: ignore[attr-defined]
        wait_until(lambda: hub.stream_count() == 0, "the stream outlived its members")
        wait_until(lambda: bus.subscriber_count("tool_calls") == 0, "the stream's bus subscription was not closed")


def reach_is_never_shared(
    settings: Settings, admin: str, alpha_viewers: tuple[str, str], beta_member: str, alpha: str, beta: str
) -> None:
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        keys = [alpha_viewers[0], alpha_viewers[1], beta_member, admin]
        sockets = [
            stack.enter_context(client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]))
            for _ in keys
        ]
        subscribe_all(client, list(zip(sockets, keys, strict=True)), SUBSCRIPTION)
        # Two keys of the same space and role share; the other space and the admin each have their own.
        assert hub_of(client).stream_count() == 3

        in_alpha = invoke_over_http(client, admin, alpha, "1 * 1")["call"]["id"]
        in_beta = invoke_over_http(client, admin, beta, "2 * 2")["call"]["id"]
        in_alpha_again = invoke_over_http(client, admin, alpha, "3 * 3")["call"]["id"]
        in_beta_again = invoke_over_http(client, admin, beta, "4 * 4")["call"]["id"]

        assert received_ids(sockets[0], "s0", 2) == [in_alpha, in_alpha_again]
        assert received_ids(sockets[1], "s1", 2) == [in_alpha, in_alpha_again]
        assert received_ids(sockets[2], "s2", 2) == [in_beta, in_beta_again]
        assert received_ids(sockets[3], "s3", 4) == [in_alpha, in_beta, in_alpha_again, in_beta_again]


def errors_reach_every_member(settings: Settings, admin: str) -> None:
    query = "subscription Broken { toolCalls { id noSuchField } }"
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        sockets = [
            stack.enter_context(client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]))
            for _ in range(2)
        ]
        for index, ws in enumerate(sockets):
            connect(ws, admin)
            ws.send_json({"id": f"b{index}", "type": "subscribe", "payload": {"query": query}})
        for index, ws in enumerate(sockets):
            message = receive_message(ws)
            assert message["id"] == f"b{index}" and message["type"] == "error", message
            assert "noSuchField" in message["payload"][0]["message"]
        wait_until(lambda: hub_of(client).stream_count() == 0, "a failed stream stayed registered")


class TestSharedStreams:
    async def test_alike_subscribers_share_one_stream_and_get_each_call_once(
        self, settings: Settings, keys: Keys
    ) -> None:
        alpha, beta = await keys.space("alpha"), await keys.space("beta")
        admin = await keys.admin()

        await asyncio.to_thread(alike_subscribers_share, settings, admin, alpha.id, beta.id)

    async def test_subscribers_of_different_reach_never_share(self, settings: Settings, keys: Keys) -> None:
        alpha, beta = await keys.space("alpha"), await keys.space("beta")
        admin = await keys.admin()
        viewers = (await keys.for_space(alpha.id, Role.VIEWER), await keys.for_space(alpha.id, Role.VIEWER))
        beta_member = await keys.for_space(beta.id, Role.MEMBER)

        await asyncio.to_thread(reach_is_never_shared, settings, admin, viewers, beta_member, alpha.id, beta.id)

    async def test_a_document_error_reaches_every_member(self, settings: Settings, keys: Keys) -> None:
        admin = await keys.admin()

        await asyncio.to_thread(errors_reach_every_member, settings, admin)


class TestMemberBacklog:
    """A member's sends, against a socket that takes frames at once or makes the sender wait."""

    @staticmethod
    def member(sent: list[str], writable: asyncio.Event) -> Member:
        async def send(frame: Frame) -> None:
            await writable.wait()
            sent.append(frame.text)

        # The stream and operation are not used by sending.
        return Member(stream=cast(Any, None), operation=cast(Any, None), prefix="", send=send)

    async def test_frames_reach_a_waiting_socket_in_order(self) -> None:
        sent: list[str] = []
        writable = asyncio.Event()
        writable.set()
        member = self.member(sent, writable)

        member.offer(Frame("next", "0"))
        assert sent == ["0"] and member.sending is None  # sent at once, no task

        writable.clear()
        for number in range(1, 5):
            member.offer(Frame("next", str(number)))
        assert sent == ["0"] and member.sending is not None
        writable.set()
        await member.sending

        assert sent == ["0", "1", "2", "3", "4"]
        assert member.sending is None and not member.overflowed

    async def test_a_member_that_falls_behind_is_ended_alone(self) -> None:
        slow_sent: list[str] = []
        blocked = asyncio.Event()
        slow = self.member(slow_sent, blocked)
        fast_sent: list[str] = []
        open_socket = asyncio.Event()
        open_socket.set()
        fast = self.member(fast_sent, open_socket)

        for number in range(MEMBER_BACKLOG + 1):  # one waiting send, then a full backlog
            slow.offer(Frame("next", str(number)))
            fast.offer(Frame("next", str(number)))
        assert not slow.overflowed and len(slow.backlog) == MEMBER_BACKLOG

        slow.offer(Frame("next", "one too many"))

        assert slow.overflowed and not slow.backlog and slow.ended.done()
        slow.offer(Frame("next", "later"))
        assert not slow.backlog
        assert not fast.overflowed and not fast.ended.done() and len(fast_sent) == MEMBER_BACKLOG + 1
        assert slow.sending is not None
        slow.sending.cancel()
