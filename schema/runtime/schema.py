"""Operations of the agent runtime: previewPrompt, invokeAgent, runs and their events."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Annotated

import strawberry

from schema.agents.types import AgentRun
from schema.context import Info
from schema.errors import ClientError, UserError
from schema.runtime.types import AgentRunEvent, PromptPreview

RUNTIME_PENDING = "Agent runs arrive with the agent runtime (issue #5)."


@strawberry.input(description="One invocation of an agent.")
class InvokeAgentInput:
    agent_id: strawberry.ID = strawberry.field(description="The agent to run.")
    message: str = strawberry.field(description="The user message.")
    session_id: str | None = strawberry.field(default=None, description="Continue an earlier conversation.")
    idempotency_key: str | None = strawberry.field(
        default=None,
        description="Same key and same input within 24 h returns the first run instead of running again; same key with other input is IDEMPOTENCY_CONFLICT.",
    )
    run_async: bool | None = strawberry.field(
        default=False, name="async", description="Return at once with a RUNNING run; follow it with agentRunEvents."
    )


@strawberry.type(description="Result of invokeAgent.")
class InvokeAgentPayload:
    run: AgentRun | None = strawberry.field(description="The run: finished, or RUNNING when `async` was set.")
    user_errors: list[UserError] = strawberry.field(description="Why the run could not start; empty on success.")


@strawberry.type
class RuntimeQuery:
    @strawberry.field(description="One agent run by id; null when absent or outside the caller's reach.")
    async def agent_run(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="The run's id.")],
    ) -> AgentRun | None:
        # Runs are recorded by the agent runtime (issue #5); until then none exist.
        return None

    @strawberry.field(description="Exactly what a run of the agent would send to the model for this message.")
    async def preview_prompt(
        self,
        info: Info,
        agent_id: Annotated[strawberry.ID, strawberry.argument(description="The agent.")],
        message: Annotated[str, strawberry.argument(description="The user message to assemble for.")],
    ) -> PromptPreview:
        raise ClientError(RUNTIME_PENDING, "NOT_AVAILABLE")


@strawberry.type
class RuntimeMutation:
    @strawberry.mutation(description="Run an agent on a message: synchronously by default, or at once with `async`.")
    async def invoke_agent(
        self,
        info: Info,
        input: Annotated[InvokeAgentInput, strawberry.argument(description="The invocation.")],
    ) -> InvokeAgentPayload:
        return InvokeAgentPayload(
            run=None,
            user_errors=[UserError(field=["input"], code="NOT_AVAILABLE", message=RUNTIME_PENDING)],
        )


@strawberry.type
class RuntimeSubscription:
    @strawberry.subscription(description="Live events of one agent run.")
    async def agent_run_events(
        self,
        info: Info,
        run_id: Annotated[strawberry.ID, strawberry.argument(description="The run to follow.")],
    ) -> AsyncGenerator[AgentRunEvent, None]:
        raise ClientError(RUNTIME_PENDING, "NOT_AVAILABLE")
        yield  # pragma: no cover - makes this an async generator
