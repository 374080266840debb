"""The agent runtime: invokeAgent, the tool-calling loop and agent-to-agent messages."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.agents import repository as agents_repository
from app.agents.models import Agent
from app.agents.runs import AgentMessage, AgentRun, AgentSessionMessage
from app.agents.service import get_agent_for
from app.db import utcnow
from app.errors import DomainError, ForbiddenError, NotFoundError
from app.events.bus import EventBus
from app.gateway.envelope import PARAM_INVALID, PERMISSION_DENIED, ToolFailure, ToolResult
from app.gateway.executors.base import Invocation
from app.gateway.service import ToolGateway
from app.ids import new_id
from app.principal import Principal
from app.runtime import repository
from app.runtime.model import ModelClient, ModelError, ModelReply, ToolCallRequest
from app.runtime.prompt import AssembledPrompt, PromptBuilder
from app.skills.usage import record_injection

logger = logging.getLogger("quiver.runtime")

DELEGATION_DEPTH_EXCEEDED = "DELEGATION_DEPTH_EXCEEDED"
DELEGATE_FAILED = "DELEGATE_FAILED"
IDEMPOTENCY_HOURS = 24


def run_topic(run_id: str) -> str:
    return f"run:{run_id}"


def inbox_topic(agent_id: str) -> str:
    return f"inbox:{agent_id}"


@dataclass
class RuntimeSettings:
    history_turns: int = 5
    tool_parallelism: int = 4
    delegation_depth_limit: int = 3
    stream: bool = False


@dataclass
class InvokeRequest:
    agent_id: str
    message: str
    session_id: str | None = None
    idempotency_key: str | None = None
    run_async: bool = False
    user_profile: dict[str, Any] | None = None
    force_channel: str | None = None
    delegation_depth: int = 0
    parent_run_id: str | None = None

    def fingerprint(self) -> str:
        canonical = json.dumps(
            {
                "message": self.message,
                "sessionId": self.session_id,
                "profile": self.user_profile,
                "skillChannel": self.force_channel,
            },
            sort_keys=True,
        )
        return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass
class LoopState:
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)


class AgentRuntime:
    def __init__(
        self,
        *,
        session_factory: async_sessionmaker[AsyncSession],
        gateway: ToolGateway,
        bus: EventBus,
        prompt_builder: PromptBuilder,
        model_client: Callable[[], ModelClient | None],
        settings: RuntimeSettings,
    ) -> None:
        self.session_factory = session_factory
        self.gateway = gateway
        self.bus = bus
        self.prompt_builder = prompt_builder
        self.model_client = model_client
        self.settings = settings
        self._background: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------ invokeAgent

    async def invoke(self, principal: Principal, request: InvokeRequest) -> AgentRun:
        """Start (and, unless async, finish) a run. Raises DomainError for bad requests."""
        if not request.message.strip():
            raise DomainError("INVALID", "The message must not be empty.", ["input", "message"])
        async with self.session_factory() as session:
            agent = await get_agent_for(session, principal, request.agent_id)
        if agent is None:
            raise NotFoundError("Agent", request.agent_id, ["input", "agentId"])
        if not principal.can_invoke_in_space(agent.space_id):
            raise ForbiddenError("This key may not invoke agents.", ["input", "agentId"])
        if agent.status != "ACTIVE":
            raise DomainError(
                "AGENT_NOT_ACTIVE", f"Agent {agent.id!r} is {agent.status.lower()}.", ["input", "agentId"]
            )
        client = self.model_client()
        if client is None:
            raise DomainError(
                "MODEL_NOT_CONFIGURED",
                "No model endpoint is configured: set QUIVER_OPENAI_BASE_URL (and QUIVER_OPENAI_API_KEY).",
                ["input", "agentId"],
            )
        run, is_new = await self._create_run(principal, agent, request)
        if not is_new:
            return run
        if request.run_async:
            task = asyncio.create_task(self._run_to_end(run, agent, principal, request, client))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
            return run
        await self._run_to_end(run, agent, principal, request, client)
        async with self.session_factory() as session:
            finished = await repository.get_run(session, run.id)
        assert finished is not None
        return finished

    async def _create_run(self, principal: Principal, agent: Agent, request: InvokeRequest) -> tuple[AgentRun, bool]:
        fingerprint = request.fingerprint() if request.idempotency_key else None
        run = AgentRun(
            id=new_id("run_"),
            agent_id=agent.id,
            space_id=agent.space_id,
            session_id=request.session_id,
            parent_run_id=request.parent_run_id,
            delegation_depth=request.delegation_depth,
            principal_key_id=principal.key_id,
            status="RUNNING",
            input=request.message,
            steps=0,
            model=agent.model,
            skill_versions=[],
            prompt_warnings=[],
            idempotency_key=request.idempotency_key,
            request_hash=fingerprint,
            started_at=utcnow(),
        )
        for _ in range(3):
            if request.idempotency_key:
                existing = await self._existing_run(agent.id, request.idempotency_key, fingerprint)
                if existing is not None:
                    return existing, False
            async with self.session_factory() as session:
                session.add(run)
                try:
                    await session.commit()
                except IntegrityError:
                    # A concurrent duplicate won the key: go back and read its run.
                    await session.rollback()
                    continue
            return run, True
        raise DomainError(
            "CONFLICT", "The idempotency key is being used concurrently; retry.", ["input", "idempotencyKey"]
        )

    async def _existing_run(self, agent_id: str, key: str, fingerprint: str | None) -> AgentRun | None:
        async with self.session_factory() as session, session.begin():
            existing = await repository.run_by_idempotency_key(session, agent_id, key)
            if existing is None:
                return None
            age = utcnow() - existing.started_at
            if age.total_seconds() > IDEMPOTENCY_HOURS * 3600:
                await repository.forget_idempotency_key(session, existing.id)
                return None
            if existing.request_hash != fingerprint:
                raise DomainError(
                    "IDEMPOTENCY_CONFLICT",
                    "This idempotency key was already used with another input.",
                    ["input", "idempotencyKey"],
                )
            return existing

    # ------------------------------------------------------------ the loop

    async def _run_to_end(
        self, run: AgentRun, agent: Agent, principal: Principal, request: InvokeRequest, client: ModelClient
    ) -> None:
        await self._event(run.id, "STARTED")
        state = LoopState()
        try:
            prompt = await self.prompt_builder.build(
                agent,
                request.message,
                # A run without a conversation is its own canary bucket.
                session_id=request.session_id or run.id,
                user_profile=request.user_profile,
                force_channel=request.force_channel,
            )
            state.messages = await self._initial_messages(agent, request, prompt)
            async with self.session_factory() as session, session.begin():
                stored = await repository.get_run(session, run.id)
                assert stored is not None
                stored.skill_versions = prompt.skill_versions
                stored.prompt_warnings = prompt.warnings
                await record_injection(session, prompt.injected_skills)
            status, output, error = await self._loop(run, agent, principal, prompt, state, client)
        except ModelError as failure:
            status, output, error = "FAILED", None, (failure.code, failure.message, failure.detail)
        except asyncio.CancelledError:
            # Shutdown (or a caller gone): record the end instead of leaving the run RUNNING forever.
            cancelled = ("CANCELLED", "The run was stopped before it finished.", "cancelled")
            await asyncio.shield(self._finish(run, request, state, "FAILED", None, cancelled))
            raise
        except Exception:
            trace_id = secrets.token_hex(8)
            logger.exception("agent run crashed", extra={"run_id": run.id, "trace_id": trace_id})
            status, output, error = (
                "FAILED",
                None,
                ("INTERNAL_ERROR", "The run failed inside the platform.", f"trace {trace_id}"),
            )
        await self._finish(run, request, state, status, output, error)

    async def _initial_messages(
        self, agent: Agent, request: InvokeRequest, prompt: AssembledPrompt
    ) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = [{"role": "system", "content": prompt.system_prompt}]
        async with self.session_factory() as session, session.begin():
            if request.session_id:
                for turn in await repository.last_turns(
                    session, agent.id, request.session_id, self.settings.history_turns
                ):
                    messages.append({"role": turn.role, "content": turn.content})
            notifications = await repository.pending_notifications(session, agent.id)
            if notifications:
                lines = [f"- from {note.from_agent_id or 'a caller'}: {note.content}" for note in notifications]
                messages.append(
                    {
                        "role": "system",
                        "content": "Messages from other agents since your last run:\n" + "\n".join(lines),
                    }
                )
                await repository.mark_delivered(session, [note.id for note in notifications], utcnow())
        messages.append({"role": "user", "content": request.message})
        return messages

    async def _loop(
        self,
        run: AgentRun,
        agent: Agent,
        principal: Principal,
        prompt: AssembledPrompt,
        state: LoopState,
        client: ModelClient,
    ) -> tuple[str, str | None, tuple[str, str, str | None] | None]:
        on_delta = self._delta_publisher(run.id) if self.settings.stream else None
        while state.steps < agent.max_steps:
            state.steps += 1
            await self._event(run.id, "MODEL_CALL", step=state.steps)
            reply = await client.complete(
                model=agent.model, messages=state.messages, tools=prompt.functions.definitions, on_delta=on_delta
            )
            state.prompt_tokens += reply.prompt_tokens
            state.completion_tokens += reply.completion_tokens
            if not reply.tool_calls:
                return "SUCCEEDED", reply.content or "", None
            if state.steps >= agent.max_steps:
                # No model call is left to read the results: do not act on the world for nothing.
                break
            state.messages.append(_assistant_message(reply))
            results = await self._call_tools(run, agent, principal, prompt, reply.tool_calls)
            for call, result in zip(reply.tool_calls, results, strict=True):
                state.messages.append(
                    {"role": "tool", "tool_call_id": call.call_id, "content": json.dumps(result.as_dict(), default=str)}
                )
        return "MAX_STEPS", None, None

    async def _call_tools(
        self,
        run: AgentRun,
        agent: Agent,
        principal: Principal,
        prompt: AssembledPrompt,
        calls: list[ToolCallRequest],
    ) -> list[ToolResult]:
        limit = asyncio.Semaphore(self.settings.tool_parallelism)

        async def one(call: ToolCallRequest) -> ToolResult:
            tool_id = prompt.functions.tool_id(call.name)
            async with limit:
                await self._event(run.id, "TOOL_CALL_STARTED", tool_id=tool_id, tool_call_id=call.call_id)
                try:
                    arguments: Any = json.loads(call.arguments) if call.arguments.strip() else {}
                except ValueError:
                    # The gateway reports the malformed arguments as PARAM_INVALID, to the model and the log.
                    arguments = call.arguments
                if tool_id not in prompt.functions.tool_by_name.values():
                    # Not a function this agent was offered: the gateway refuses it and logs the attempt.
                    tool_id = f"unknown:{call.name}"
                result = await self.gateway.execute(
                    principal,
                    agent.space_id,
                    tool_id,
                    arguments,
                    agent_id=agent.id,
                    run_id=run.id,
                    delegation_depth=run.delegation_depth,
                )
                await self._event(
                    run.id, "TOOL_CALL_FINISHED", tool_id=tool_id, tool_call_id=call.call_id, call_id=result.call_id
                )
                return result

        return list(await asyncio.gather(*(one(call) for call in calls)))

    async def _finish(
        self,
        run: AgentRun,
        request: InvokeRequest,
        state: LoopState,
        status: str,
        output: str | None,
        error: tuple[str, str, str | None] | None,
    ) -> None:
        now = utcnow()
        async with self.session_factory() as session, session.begin():
            stored = await repository.get_run(session, run.id)
            assert stored is not None
            stored.status = status
            stored.output = output
            stored.steps = state.steps
            stored.prompt_tokens = state.prompt_tokens
            stored.completion_tokens = state.completion_tokens
            stored.finished_at = now
            if error is not None:
                stored.error_code, stored.error_message, stored.error_detail = error
            if request.session_id and output is not None:
                # One id for the pair, suffixed in order: history is read back sorted by id.
                turn = new_id("msg_")
                for suffix, role, content in (("a", "user", request.message), ("b", "assistant", output)):
                    session.add(
                        AgentSessionMessage(
                            id=f"{turn}{suffix}",
                            agent_id=run.agent_id,
                            session_id=request.session_id,
                            run_id=run.id,
                            role=role,
                            content=content,
                            created_at=now,
                        )
                    )
        await self._event(run.id, "FINISHED", status=status)

    # ------------------------------------------------------------ events

    async def _event(self, run_id: str, kind: str, **fields: Any) -> None:
        await self.bus.publish(
            run_topic(run_id), {"kind": kind, "run_id": run_id, "at": utcnow().isoformat(), **fields}
        )

    def _delta_publisher(self, run_id: str) -> Callable[[str], Any]:
        async def publish(delta: str) -> None:
            await self._event(run_id, "MESSAGE_DELTA", delta=delta)

        return publish

    # ------------------------------------------------------------ bt_send_message

    async def send_message(self, invocation: Invocation) -> dict[str, Any]:
        arguments = invocation.arguments
        target_id, kind, content = str(arguments["to"]), str(arguments["type"]), str(arguments["content"])
        async with self.session_factory() as session:
            target = await agents_repository.get_agent(session, target_id)
        if target is None or target.space_id != invocation.space_id:
            raise ToolFailure(
                PERMISSION_DENIED,
                "Messages can only be sent to agents of the same space.",
                f"{target_id} is not an agent of {invocation.space_id}",
            )
        if target_id == invocation.agent_id:
            raise ToolFailure(PARAM_INVALID, "An agent cannot send a message to itself.", "/to")
        if kind == "request" and invocation.delegation_depth + 1 > self.settings.delegation_depth_limit:
            raise ToolFailure(
                DELEGATION_DEPTH_EXCEEDED,
                f"Delegation is limited to {self.settings.delegation_depth_limit} levels; answer without delegating.",
                f"depth {invocation.delegation_depth + 1}",
            )
        message = AgentMessage(
            id=new_id("msg_"),
            space_id=invocation.space_id,
            from_agent_id=invocation.agent_id,
            to_agent_id=target_id,
            from_run_id=invocation.run_id,
            type=kind,
            content=content,
            status="PENDING",
            created_at=utcnow(),
        )
        async with self.session_factory() as session, session.begin():
            session.add(message)
        await self.bus.publish(
            inbox_topic(target_id),
            {"id": message.id, "from": message.from_agent_id, "type": kind, "content": content},
        )
        if kind == "notify":
            return {"messageId": message.id, "status": "DELIVERED_ON_NEXT_RUN"}
        return await self._delegate(invocation, message)

    async def _delegate(self, invocation: Invocation, message: AgentMessage) -> dict[str, Any]:
        try:
            run = await self.invoke(
                invocation.principal,
                InvokeRequest(
                    agent_id=message.to_agent_id,
                    message=message.content,
                    delegation_depth=invocation.delegation_depth + 1,
                    parent_run_id=invocation.run_id,
                ),
            )
        except DomainError as error:
            await self._answer(message.id, "FAILED", None, None)
            raise ToolFailure(DELEGATE_FAILED, f"The other agent could not run: {error.message}", error.code) from None
        answered = run.status == "SUCCEEDED"
        await self._answer(message.id, "ANSWERED" if answered else "FAILED", run.output, run.id)
        if not answered:
            raise ToolFailure(
                DELEGATE_FAILED,
                "The other agent did not produce an answer.",
                f"run {run.id} ended {run.status}: {run.error_code or ''}",
            )
        return {"messageId": message.id, "runId": run.id, "answer": run.output}

    async def _answer(self, message_id: str, status: str, reply: str | None, run_id: str | None) -> None:
        async with self.session_factory() as session, session.begin():
            stored = await repository.get_message(session, message_id)
            if stored is not None:
                stored.status = status
                stored.reply = reply
                stored.reply_run_id = run_id
                stored.delivered_at = utcnow()

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        for task in list(self._background):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _assistant_message(reply: ModelReply) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": reply.content,
        "tool_calls": [
            {"id": call.call_id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for call in reply.tool_calls
        ],
    }
