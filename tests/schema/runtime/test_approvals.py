"""Approval before side effects: a tool call that needs a person waits as a PENDING_APPROVAL
ToolCall, the run WAITING_APPROVAL holds nothing, and approveToolCall / rejectToolCall (or
the timeout) let it go on — against the scripted model server and a real HTTP tool."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from app.config import Settings
from app.principal import Role
from tests.conftest import GraphQLClient, Keys
from tests.schema.gateway import fresh, http_tool
from tests.schema.gateway import invoke as invoke_tool
from tests.schema.runtime import (
    RuntimeApp,
    create_agent,
    get_run,
    invoke,
    runtime_app,
    tool_messages,
    wait_for_run,
)
from tests.support.http_tool_server import ToolServer, running_tool_server
from tests.support.openai_server import OpenAIServer, ScriptedModel, call, final, tool_calls
from tests.support.openai_server import openai_server as openai_server

REFUND_SCHEMA = {
    "type": "object",
    "properties": {"order": {"type": "string"}, "amount": {"type": "number", "maximum": 500}},
    "required": ["order", "amount"],
    "additionalProperties": False,
}

PENDING_APPROVALS = """
query Pending($space: ID!) {
  pendingApprovals(spaceId: $space, first: 20) {
    totalCount
    edges { node { id toolId status arguments approval { decision expiresAt requestedAt }
                   run { id status } agent { id } } }
  }
}
"""

APPROVE = """
mutation Approve($input: ApproveToolCallInput!) {
  approveToolCall(input: $input) {
    toolCall { id status approval { decision decidedBy comment argumentsEdited } }
    run { id status }
    userErrors { field code message }
  }
}
"""

REJECT = """
mutation Reject($input: RejectToolCallInput!) {
  rejectToolCall(input: $input) {
    toolCall { id status error { code } approval { decision comment } }
    run { id status }
    userErrors { field code message }
  }
}
"""

TRACE = "query Trace($id: ID!) { agentRun(id: $id) { trace { kind step durationMs detail } } }"

RUN_CALLS = """
query RunCalls($id: ID!) {
  agentRun(id: $id) {
    id status output steps
    toolCalls { id toolId status arguments result error { code message detail }
                approval { decision decidedBy decidedAt comment argumentsEdited } }
  }
}
"""


@pytest.fixture(scope="module")
def tool_server() -> Iterator[ToolServer]:
    with running_tool_server() as server:
        yield server


@pytest.fixture(scope="module")
async def quiver(settings: Settings, openai_server: OpenAIServer) -> AsyncIterator[RuntimeApp]:
    async with runtime_app(settings, openai_server) as app:
        yield app


@dataclass
class World:
    space_id: str
    gql: GraphQLClient
    admin_key: str
    model: ScriptedModel
    refund: dict[str, Any]
    refund_key: str
    agent: dict[str, Any]
    tool_server: ToolServer

    async def refunds(self) -> list[dict[str, Any]]:
        return await self.tool_server.requests("count-write", self.refund_key)


@pytest.fixture
async def world(
    quiver: RuntimeApp, keys: Keys, admin_key: str, openai_server: OpenAIServer, tool_server: ToolServer
) -> World:
    """A space, a WRITE refund tool needing approval (WRITE_ONLY), and an agent with it and the calculator."""
    space = await keys.space("approvals")
    gql = quiver.client(admin_key)
    refund_key = fresh("refund")
    refund = await http_tool(
        gql,
        tool_server,
        f"/count-write/{refund_key}",
        name="refund",
        inputSchema=REFUND_SCHEMA,
        sideEffect="WRITE",
        approval="WRITE_ONLY",
        spaceIds=[space.id],
    )
    model = openai_server.model("approvals")
    agent = await create_agent(gql, space.id, model.name, activatedToolIds=[refund["id"], "bt_calculator"])
    return World(space.id, gql, admin_key, model, refund, refund_key, agent, tool_server)


async def waiting_run(world: World, message: str = "Refund order 7") -> dict[str, Any]:
    run = await invoke(world.gql, world.agent["id"], message, **{"async": True})
    await wait_for_status(world.gql, run["id"], "WAITING_APPROVAL")
    return run


async def wait_for_status(gql: GraphQLClient, run_id: str, status: str, timeout_s: float = 20.0) -> dict[str, Any]:
    """Polls agentRun until the run has ``status``."""
    deadline = time.monotonic() + timeout_s
    while True:
        run = await get_run(gql, run_id)
        if run is not None and run["status"] == status:
            return run
        assert time.monotonic() < deadline, f"run {run_id} never became {status}: {run}"
        await asyncio.sleep(0.05)


async def run_calls(gql: GraphQLClient, run_id: str) -> dict[str, Any]:
    run: dict[str, Any] = (await gql.execute(RUN_CALLS, {"id": run_id}))["agentRun"]
    return run


async def pending(gql: GraphQLClient, space_id: str) -> dict[str, Any]:
    connection: dict[str, Any] = (await gql.execute(PENDING_APPROVALS, {"space": space_id}))["pendingApprovals"]
    return connection


async def approve(gql: GraphQLClient, tool_call_id: str, **fields: Any) -> dict[str, Any]:
    payload: dict[str, Any] = (await gql.execute(APPROVE, {"input": {"toolCallId": tool_call_id, **fields}}))[
        "approveToolCall"
    ]
    return payload


async def reject(gql: GraphQLClient, tool_call_id: str, **fields: Any) -> dict[str, Any]:
    payload: dict[str, Any] = (await gql.execute(REJECT, {"input": {"toolCallId": tool_call_id, **fields}}))[
        "rejectToolCall"
    ]
    return payload


class TestWaiting:
    async def test_a_write_call_waits_as_a_pending_tool_call_and_nothing_runs(
        self, world: World, quiver: RuntimeApp
    ) -> None:
        world.model.push(tool_calls(call("refund", {"order": "7", "amount": 20}, call_id="call_refund")))

        run = await waiting_run(world)

        recorded = await run_calls(world.gql, run["id"])
        assert recorded["steps"] == 1
        [waiting] = recorded["toolCalls"]
        assert waiting["id"].startswith("tc_")
        assert waiting["status"] == "PENDING_APPROVAL"
        assert waiting["arguments"] == {"order": "7", "amount": 20}
        assert waiting["approval"]["decision"] == "PENDING"
        assert waiting["approval"]["decidedBy"] is None
        assert await world.refunds() == []
        listed = await pending(world.gql, world.space_id)
        assert listed["totalCount"] == 1
        node = listed["edges"][0]["node"]
        assert node["id"] == waiting["id"]
        assert node["run"] == {"id": run["id"], "status": "WAITING_APPROVAL"}
        assert node["agent"] == {"id": world.agent["id"]}
        # The waiting run holds no task, no lease, nothing in this replica's memory.
        runtime = quiver.app.state.services.runtime
        assert run["id"] not in runtime._active
        assert not [task for task in runtime._background if task.get_name() == f"run-{run['id']}"]
        # Decide, then let the run finish.
        world.model.push(final("Refunded 20 for order 7."))
        decided = await approve(world.gql, waiting["id"], comment="ok, customer is known")
        assert decided["userErrors"] == []
        assert decided["toolCall"]["approval"]["decision"] == "APPROVED"

        finished = await wait_for_run(world.gql, run["id"])

        assert finished["status"] == "SUCCEEDED"
        assert finished["output"] == "Refunded 20 for order 7."
        refunds = await world.refunds()
        assert [item["body"] for item in refunds] == [{"order": "7", "amount": 20}]
        after = await run_calls(world.gql, run["id"])
        [done] = after["toolCalls"]
        assert done["id"] == waiting["id"]
        assert done["status"] == "SUCCESS"
        assert done["result"]["execution"] == 1
        assert done["approval"]["decision"] == "APPROVED"
        assert done["approval"]["comment"] == "ok, customer is known"
        assert done["approval"]["decidedBy"]
        assert done["approval"]["decidedAt"]
        second = world.model.requests[1]
        assert tool_messages(second)["call_refund"]["status"] == "SUCCESS"
        assert (await pending(world.gql, world.space_id))["totalCount"] == 0
        stages = (await world.gql.execute(TRACE, {"id": run["id"]}))["agentRun"]["trace"]
        kinds = [stage["kind"] for stage in stages]
        assert kinds[-4:] == ["MODEL_CALL", "APPROVAL", "TOOL_CALL", "MODEL_CALL"], kinds
        approval = stages[kinds.index("APPROVAL")]
        assert approval["step"] == 1
        assert approval["detail"]["decision"] == "APPROVED"
        assert approval["detail"]["toolCallId"] == waiting["id"]
        assert approval["detail"]["comment"] == "ok, customer is known"
        assert approval["detail"]["decidedBy"] == done["approval"]["decidedBy"]
        # The stage lasts from the request to the decision.
        assert approval["durationMs"] > 0

    async def test_rejected_the_model_is_told_why_and_the_run_goes_on(self, world: World) -> None:
        world.model.push(tool_calls(call("refund", {"order": "8", "amount": 400}, call_id="call_refund")))
        run = await waiting_run(world)
        [waiting] = (await run_calls(world.gql, run["id"]))["toolCalls"]
        world.model.push(final("I could not refund it: a person declined."))

        decided = await reject(world.gql, waiting["id"], reason="amount too high without a receipt")

        assert decided["userErrors"] == []
        assert decided["toolCall"]["approval"] == {
            "decision": "REJECTED",
            "comment": "amount too high without a receipt",
        }
        # The answer shows the call as stored: refused, not still waiting.
        assert decided["toolCall"]["status"] == "FAILED"
        assert decided["toolCall"]["error"] == {"code": "APPROVAL_REJECTED"}
        assert decided["toolCall"]["id"] == waiting["id"]
        finished = await wait_for_run(world.gql, run["id"])
        assert finished["status"] == "SUCCEEDED"
        assert await world.refunds() == []
        told = tool_messages(world.model.requests[1])["call_refund"]
        assert told["status"] == "FAILED"
        assert told["error"]["code"] == "APPROVAL_REJECTED"
        assert "amount too high without a receipt" in told["error"]["message"]
        [refused] = (await run_calls(world.gql, run["id"]))["toolCalls"]
        assert refused["id"] == waiting["id"]
        assert refused["status"] == "FAILED"
        assert refused["error"]["code"] == "APPROVAL_REJECTED"
        stages = (await world.gql.execute(TRACE, {"id": run["id"]}))["agentRun"]["trace"]
        kinds = [stage["kind"] for stage in stages]
        assert kinds[-4:] == ["MODEL_CALL", "APPROVAL", "TOOL_CALL", "MODEL_CALL"], kinds
        assert stages[kinds.index("APPROVAL")]["detail"]["decision"] == "REJECTED"

    async def test_edited_arguments_are_validated_again_and_run(self, world: World) -> None:
        world.model.push(tool_calls(call("refund", {"order": "9", "amount": 300})))
        run = await waiting_run(world)
        [waiting] = (await run_calls(world.gql, run["id"]))["toolCalls"]

        refused = await approve(world.gql, waiting["id"], arguments={"order": "9", "amount": 9000})
        assert refused["toolCall"] is None
        assert refused["userErrors"][0]["code"] == "PARAM_INVALID"
        assert refused["userErrors"][0]["field"] == ["input", "arguments"]
        assert "/amount" in refused["userErrors"][0]["message"]
        not_object = await approve(world.gql, waiting["id"], arguments=[1, 2])
        assert not_object["userErrors"][0]["code"] == "PARAM_INVALID"
        # Still waiting after refused decisions.
        assert (await get_run(world.gql, run["id"]))["status"] == "WAITING_APPROVAL"  # type: ignore[index]

        world.model.push(final("Refunded 250."))
        accepted = await approve(world.gql, waiting["id"], arguments={"order": "9", "amount": 250})
        assert accepted["userErrors"] == []
        assert accepted["toolCall"]["approval"]["argumentsEdited"] is True

        await wait_for_run(world.gql, run["id"])
        assert [item["body"] for item in await world.refunds()] == [{"order": "9", "amount": 250}]
        [done] = (await run_calls(world.gql, run["id"]))["toolCalls"]
        assert done["arguments"] == {"order": "9", "amount": 250}
        again = await approve(world.gql, waiting["id"])
        assert again["userErrors"][0]["code"] == "ALREADY_DECIDED"

    async def test_parallel_calls_of_a_step_wait_together_while_the_others_run(self, world: World) -> None:
        world.model.push(
            tool_calls(
                call("calculator", {"expression": "20 * 2"}, call_id="call_calc"),
                call("refund", {"order": "10", "amount": 40}, call_id="call_refund"),
            )
        )
        run = await waiting_run(world)

        calls = {item["toolId"]: item for item in (await run_calls(world.gql, run["id"]))["toolCalls"]}
        assert calls["bt_calculator"]["status"] == "SUCCESS"
        assert calls[world.refund["id"]]["status"] == "PENDING_APPROVAL"
        assert len(world.model.requests) == 1  # the step waits: no model call before the decision

        world.model.push(final("Refunded 40."))
        await approve(world.gql, calls[world.refund["id"]]["id"])
        await wait_for_run(world.gql, run["id"])

        second = world.model.requests[1]
        told = tool_messages(second)
        assert told["call_calc"]["data"]["result"] == 40
        assert told["call_refund"]["status"] == "SUCCESS"
        # The tool messages follow the order of the model's calls.
        assert [message.get("tool_call_id") for message in second["messages"] if message["role"] == "tool"] == [
            "call_calc",
            "call_refund",
        ]


class TestPolicies:
    async def test_write_only_lets_read_tools_through_and_agents_override_per_tool(
        self, world: World, keys: Keys
    ) -> None:
        world.model.push(tool_calls(call("calculator", {"expression": "1 + 1"})), final("2"))
        plain = await invoke(world.gql, world.agent["id"], "1 + 1?")
        assert plain["status"] == "SUCCEEDED"

        model = world.model.server.model("override")
        strict = await create_agent(
            world.gql,
            world.space_id,
            model.name,
            activatedToolIds=[world.refund["id"], "bt_calculator"],
            toolApprovals=[
                {"toolId": "bt_calculator", "approval": "ALWAYS"},
                {"toolId": world.refund["id"], "approval": "NEVER"},
            ],
        )
        model.push(tool_calls(call("refund", {"order": "11", "amount": 1})), final("done"))
        direct = await invoke(world.gql, strict["id"], "refund 1")
        assert direct["status"] == "SUCCEEDED"
        assert len(await world.refunds()) == 1

        model.push(tool_calls(call("calculator", {"expression": "3 * 3"})))
        held = await invoke(world.gql, strict["id"], "3 * 3?", **{"async": True})
        await wait_for_status(world.gql, held["id"], "WAITING_APPROVAL")

    async def test_an_override_must_name_an_activated_tool(self, world: World) -> None:
        payload = (
            await world.gql.execute(
                """mutation U($input: UpdateAgentInput!) { updateAgent(input: $input) {
                     agent { toolApprovals { toolId approval } } userErrors { field code } } }""",
                {
                    "input": {
                        "id": world.agent["id"],
                        "toolApprovals": [{"toolId": "bt_current_time", "approval": "ALWAYS"}],
                    }
                },
            )
        )["updateAgent"]
        assert payload["userErrors"] == [{"field": ["input", "toolApprovals", "0", "toolId"], "code": "NOT_ACTIVATED"}]

    async def test_invoke_tool_by_a_caller_is_not_held(self, world: World) -> None:
        envelope = await invoke_tool(world.gql, world.space_id, world.refund["id"], {"order": "12", "amount": 5})
        assert envelope["status"] == "SUCCESS"
        assert len(await world.refunds()) == 1


class TestWhoDecides:
    async def test_only_space_admins_and_admins_decide_and_other_spaces_see_nothing(
        self, world: World, keys: Keys
    ) -> None:
        world.model.push(tool_calls(call("refund", {"order": "13", "amount": 5})))
        run = await waiting_run(world)
        [waiting] = (await run_calls(world.gql, run["id"]))["toolCalls"]
        member = world.gql.as_key(await keys.for_space(world.space_id, Role.MEMBER))
        viewer = world.gql.as_key(await keys.for_space(world.space_id, Role.VIEWER))
        other_space = await keys.space("elsewhere")
        foreign_admin = world.gql.as_key(await keys.for_space(other_space.id, Role.SPACE_ADMIN))

        assert (await pending(viewer, world.space_id))["totalCount"] == 1
        assert (await pending(foreign_admin, world.space_id))["totalCount"] == 0
        assert (await approve(member, waiting["id"]))["userErrors"][0]["code"] == "FORBIDDEN"
        assert (await reject(viewer, waiting["id"]))["userErrors"][0]["code"] == "FORBIDDEN"
        assert (await approve(foreign_admin, waiting["id"]))["userErrors"][0]["code"] == "NOT_FOUND"
        assert (await approve(world.gql, "tc_does_not_exist"))["userErrors"][0]["code"] == "NOT_FOUND"
        assert (await get_run(world.gql, run["id"]))["status"] == "WAITING_APPROVAL"  # type: ignore[index]

        space_admin = world.gql.as_key(await keys.for_space(world.space_id, Role.SPACE_ADMIN))
        world.model.push(final("done"))
        assert (await approve(space_admin, waiting["id"]))["userErrors"] == []
        assert (await wait_for_run(world.gql, run["id"]))["status"] == "SUCCEEDED"


class TestDurability:
    async def test_a_decision_after_every_replica_restarted_continues_the_run(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        world.model.push(tool_calls(call("refund", {"order": "14", "amount": 14}, call_id="call_refund")))
        async with runtime_app(settings, openai_server) as first:
            gql = first.client(world.admin_key)
            run = await invoke(gql, world.agent["id"], "Refund 14", **{"async": True})
            await wait_for_status(gql, run["id"], "WAITING_APPROVAL")
        # That replica is gone; a new one (a new process in production) takes the decision.
        world.model.push(final("Refunded 14."))
        async with runtime_app(settings, openai_server) as second:
            gql = second.client(world.admin_key)
            [waiting] = (await run_calls(gql, run["id"]))["toolCalls"]
            assert (await approve(gql, waiting["id"]))["userErrors"] == []
            finished = await wait_for_run(gql, run["id"])
        assert finished["status"] == "SUCCEEDED"
        assert len(await world.refunds()) == 1
        assert world.model.requests[0]["messages"] == world.model.requests[1]["messages"][:2]

    async def test_unanswered_calls_are_refused_after_the_timeout(
        self, world: World, settings: Settings, openai_server: OpenAIServer
    ) -> None:
        async with runtime_app(settings, openai_server, approval_timeout_s=0.3, run_lease_s=0.5) as short:
            gql = short.client(world.admin_key)
            world.model.push(tool_calls(call("refund", {"order": "15", "amount": 15}, call_id="call_refund")))
            world.model.push(final("Nobody approved the refund."))
            # The sweep (every half lease) refuses the call once its time is up and continues the run.
            await short.app.state.services.runtime.start()
            run = await invoke(gql, world.agent["id"], "Refund 15", **{"async": True})
            finished = await wait_for_run(gql, run["id"])
        assert finished["status"] == "SUCCEEDED"
        assert await world.refunds() == []
        told = tool_messages(world.model.requests[1])["call_refund"]
        assert told["error"]["code"] == "APPROVAL_EXPIRED"
        [expired] = (await run_calls(world.gql, run["id"]))["toolCalls"]
        assert expired["approval"]["decision"] == "EXPIRED"
        assert expired["status"] == "FAILED"
        assert json.dumps(expired["error"]).count("APPROVAL_EXPIRED") == 1
