"""Operations of the agent runtime: previewPrompt, invokeAgent, runs and their events."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Hashable
from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from app.agents.service import get_agent_for
from app.db import utcnow
from app.errors import DomainError
from app.events.bus import EventBusUnavailableError, EventsMissedError, SubscriberOverflowError
from app.runtime import repository as runs_repository
from app.runtime.service import InvokeRequest, approvals_topic, run_topic
from schema import visibility
from schema.context import Info
from schema.enums import ApprovalEventKind
from schema.errors import ClientError, UserError, subscription_cut
from schema.following import follow_run
from schema.gateway.types import ToolCall
from schema.pagination import AfterArgument, Connection, FirstArgument, empty_connection, paginate
from schema.runtime.types import AgentRun, AgentRunEvent, PromptPreview, PromptSection
from schema.skills.types import SkillChannel

APPROVAL_REQUESTED = "APPROVAL_REQUESTED"

# A subscriber looks at the run itself this often when no event came: a finish whose event was
# lost (the bus down, the replica gone) still ends the subscription.
RECONCILE_S = 5.0


@strawberry.input(description="One invocation of an agent.")
class InvokeAgentInput:
    agent_id: strawberry.ID = strawberry.field(description="The agent to run.")
    message: str = strawberry.field(description="The user message.")
    session_id: str | None = strawberry.field(default=None, description="Continue an earlier conversation.")
    idempotency_key: str | None = strawberry.field(
        default=None,
        description="Same key and same input within 24 h returns the first run instead of running again (also after its replica died: that run, continued by a live replica; a synchronous retry answers once it is no longer RUNNING); same key with other input is IDEMPOTENCY_CONFLICT.",
    )
    run_async: bool | None = strawberry.field(
        default=False, name="async", description="Return at once with a RUNNING run; follow it with agentRunEvents."
    )
    user_profile: JSON | None = strawberry.field(
        default=None, description="Facts about the user for this run: the PROFILE section of the prompt."
    )
    force_channel: SkillChannel | None = strawberry.field(
        default=None,
        description="Serve every unpinned skill at PRODUCTION or CANDIDATE for this run (test sessions); RETIRED is refused.",
    )
    skill_channel: str | None = strawberry.field(
        default=None,
        description="Force PRODUCTION or CANDIDATE skill versions for this run (test sessions). The string form of forceChannel.",
        deprecation_reason="Use forceChannel, the SkillChannel enum.",
    )


FORCEABLE_CHANNELS = (SkillChannel.PRODUCTION, SkillChannel.CANDIDATE)


def _forced_channel(input: InvokeAgentInput) -> tuple[str | None, UserError | None]:
    """The channel a run forces: ``forceChannel``, or the deprecated string ``skillChannel`` (same values)."""
    names = [channel.name for channel in FORCEABLE_CHANNELS]
    if input.skill_channel is not None and input.skill_channel not in names:
        return None, UserError(field=["input", "skillChannel"], code="INVALID", message="Use PRODUCTION or CANDIDATE.")
    forced = input.force_channel.name if input.force_channel is not None else None
    if forced is not None and forced not in names:
        return None, UserError(field=["input", "forceChannel"], code="INVALID", message="Use PRODUCTION or CANDIDATE.")
    if forced is not None and input.skill_channel is not None and forced != input.skill_channel:
        return None, UserError(
            field=["input", "forceChannel"], code="INVALID", message="forceChannel and skillChannel disagree."
        )
    return forced or input.skill_channel, None


@strawberry.type(description="Result of invokeAgent.")
class InvokeAgentPayload:
    run: AgentRun | None = strawberry.field(description="The run: finished, or RUNNING when `async` was set.")
    user_errors: list[UserError] = strawberry.field(description="Why the run could not start; empty on success.")


@strawberry.input(description="Approve a tool call that waits for a decision: it runs, and its run continues.")
class ApproveToolCallInput:
    tool_call_id: strawberry.ID = strawberry.field(description="The waiting call, tc_….")
    comment: str | None = strawberry.field(
        default=None, description="Kept on the call's approval (2,000 characters at most)."
    )
    arguments: JSON | None = strawberry.field(
        default=None,
        description="Edited arguments replacing the proposed ones entirely; validated against the tool's schema again.",
    )


@strawberry.input(description="Reject a tool call that waits for a decision: it does not run; the model is told why.")
class RejectToolCallInput:
    tool_call_id: strawberry.ID = strawberry.field(description="The waiting call, tc_….")
    reason: str | None = strawberry.field(
        default=None, description="Why: kept on the call and told to the model (2,000 characters at most)."
    )


@strawberry.type(description="Result of approveToolCall.")
class ApproveToolCallPayload:
    tool_call: ToolCall | None = strawberry.field(description="The call with its decision; null when refused.")
    run: AgentRun | None = strawberry.field(description="The call's run, as it stands right after the decision.")
    user_errors: list[UserError] = strawberry.field(description="Why the decision was refused; empty on success.")


@strawberry.type(description="Result of rejectToolCall.")
class RejectToolCallPayload:
    tool_call: ToolCall | None = strawberry.field(description="The call with its decision; null when refused.")
    run: AgentRun | None = strawberry.field(description="The call's run, as it stands right after the decision.")
    user_errors: list[UserError] = strawberry.field(description="Why the decision was refused; empty on success.")


@strawberry.type(
    description="An approval request of a space was made, decided or expired: refetch pendingApprovals, or read the call."
)
class ApprovalEvent:
    kind: ApprovalEventKind = strawberry.field(description="REQUESTED, DECIDED or EXPIRED.")
    at: datetime = strawberry.field(description="When it happened.")
    tool_call_id: strawberry.ID = strawberry.field(description="The call put to the approvers, tc_….")
    tool_call: ToolCall | None = strawberry.field(
        description="The call as it stands when the event is delivered (with its approval); null if it can no longer be read."
    )


@strawberry.type
class RuntimeQuery:
    @strawberry.field(
        description="Tool calls of agent runs in the space that wait for a person's approval, oldest first, each with its run and agent. Readable by the space's keys; SPACE_ADMIN or ADMIN decide."
    )
    async def pending_approvals(
        self,
        info: Info,
        space_id: Annotated[strawberry.ID, strawberry.argument(description="The space.")],
        first: FirstArgument = 20,
        after: AfterArgument = None,
    ) -> Connection[ToolCall]:
        space = str(space_id)
        if not info.context.principal.can_read_space(space):
            return empty_connection(after)
        now = utcnow()
        return await paginate(
            info,
            first,
            after,
            lambda session, request: runs_repository.list_pending_approvals(session, space, now, request),
            lambda session: runs_repository.count_pending_approvals(session, space, now),
            ToolCall.from_row,
            lambda row: row.id,
        )

    @strawberry.field(description="One agent run by id; null when absent or outside the caller's reach.")
    async def agent_run(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="The run's id.")],
    ) -> AgentRun | None:
        async with info.context.session() as session:
            row = await runs_repository.get_run(session, str(id))
        if row is None or not info.context.principal.can_read_space(row.space_id):
            return None
        return AgentRun.from_row(row)

    @strawberry.field(description="Exactly what a run of the agent would send to the model for this message.")
    async def preview_prompt(
        self,
        info: Info,
        agent_id: Annotated[strawberry.ID, strawberry.argument(description="The agent.")],
        message: Annotated[str, strawberry.argument(description="The user message to assemble for.")],
    ) -> PromptPreview:
        runtime = info.context.runtime
        async with info.context.session() as session:
            agent = await get_agent_for(session, info.context.principal, str(agent_id))
        if agent is None:
            raise ClientError(f"Agent {str(agent_id)!r} not found.", "NOT_FOUND")
        prompt = await runtime.prompt_builder.build(agent, message)
        return PromptPreview(
            system_prompt=prompt.system_prompt,
            sections=[
                PromptSection(
                    kind=section.kind,
                    source=section.source,
                    text=section.text,
                    truncated=section.truncated,
                    reason=section.reason,
                )
                for section in prompt.sections
            ],
            token_estimate=prompt.token_estimate,
            budget_chars=info.context.settings.prompt_budget_chars,
            char_count=len(prompt.system_prompt),
            warnings=prompt.warnings,
            tools=JSON(prompt.functions.definitions),
        )


@strawberry.type
class RuntimeMutation:
    @strawberry.mutation(description="Run an agent on a message: synchronously by default, or at once with `async`.")
    async def invoke_agent(
        self,
        info: Info,
        input: Annotated[InvokeAgentInput, strawberry.argument(description="The invocation.")],
    ) -> InvokeAgentPayload:
        runtime = info.context.runtime
        channel, channel_error = _forced_channel(input)
        if channel_error is not None:
            return InvokeAgentPayload(run=None, user_errors=[channel_error])
        if input.user_profile is not None and not isinstance(input.user_profile, dict):
            return InvokeAgentPayload(
                run=None,
                user_errors=[
                    UserError(field=["input", "userProfile"], code="INVALID", message="The profile is a JSON object.")
                ],
            )
        request = InvokeRequest(
            agent_id=str(input.agent_id),
            message=input.message,
            session_id=input.session_id,
            idempotency_key=input.idempotency_key,
            run_async=bool(input.run_async),
            user_profile=input.user_profile,
            force_channel=channel,
        )
        try:
            row = await runtime.invoke(info.context.principal, request)
        except DomainError as error:
            return InvokeAgentPayload(run=None, user_errors=[UserError.from_domain(error)])
        return InvokeAgentPayload(run=AgentRun.from_row(row), user_errors=[])

    @strawberry.mutation(
        description="Approve a tool call waiting for a decision (SPACE_ADMIN of its space, or ADMIN): it runs through the gateway, with the edited arguments when given, and the run continues on a live replica."
    )
    async def approve_tool_call(
        self,
        info: Info,
        input: Annotated[ApproveToolCallInput, strawberry.argument(description="The decision.")],
    ) -> ApproveToolCallPayload:
        runtime = info.context.runtime
        try:
            call, run = await runtime.decide(
                info.context.principal,
                str(input.tool_call_id),
                approve=True,
                comment=input.comment,
                arguments=input.arguments,
                arguments_given=input.arguments is not None,
            )
        except DomainError as error:
            return ApproveToolCallPayload(tool_call=None, run=None, user_errors=[UserError.from_domain(error)])
        return ApproveToolCallPayload(tool_call=ToolCall.from_row(call), run=AgentRun.from_row(run), user_errors=[])

    @strawberry.mutation(
        description="Reject a tool call waiting for a decision (SPACE_ADMIN of its space, or ADMIN): it does not run; the model is told it was refused and why, and the run continues."
    )
    async def reject_tool_call(
        self,
        info: Info,
        input: Annotated[RejectToolCallInput, strawberry.argument(description="The decision.")],
    ) -> RejectToolCallPayload:
        runtime = info.context.runtime
        try:
            call, run = await runtime.decide(
                info.context.principal, str(input.tool_call_id), approve=False, comment=input.reason
            )
        except DomainError as error:
            return RejectToolCallPayload(tool_call=None, run=None, user_errors=[UserError.from_domain(error)])
        return RejectToolCallPayload(tool_call=ToolCall.from_row(call), run=AgentRun.from_row(run), user_errors=[])


@strawberry.type
class RuntimeSubscription:
    @strawberry.subscription(
        description="The approval requests of a space as they happen: REQUESTED when an agent's call starts waiting for a person, DECIDED when someone approves or rejects it, EXPIRED when its run takes up the timeout. Readable by the space's keys (SPACE_ADMIN or ADMIN decide); across replicas through the event bus. Nothing is replayed: read pendingApprovals after subscribing, and again after SUBSCRIBER_OVERFLOW or EVENTS_MISSED (the replica lost its event bus, Redis: events of other replicas were missed); EVENT_BUS_UNAVAILABLE refuses it while the replica cannot hear the others."
    )
    async def approval_requests(
        self,
        info: Info,
        space_id: Annotated[strawberry.ID, strawberry.argument(description="The space whose approvals to follow.")],
    ) -> AsyncGenerator[ApprovalEvent, None]:
        space = str(space_id)
        if not info.context.principal.can_read_space(space):
            raise ClientError(f"Space {space!r} not found.", "NOT_FOUND")
        try:
            async with info.context.bus.subscribe(approvals_topic(space), strict=True) as subscription:
                async for event in subscription:
                    if event.get("space_id") != space or event.get("kind") not in ApprovalEventKind.__members__:
                        continue
                    info.context.renew_loaders()
                    row = await info.context.loaders.tool_call_by_id.load(str(event["call_id"]))
                    yield ApprovalEvent(
                        kind=ApprovalEventKind[event["kind"]],
                        at=datetime.fromisoformat(event["at"]),
                        tool_call_id=strawberry.ID(str(event["call_id"])),
                        tool_call=ToolCall.from_row(row) if row is not None and row.space_id == space else None,
                    )
        except (SubscriberOverflowError, EventsMissedError, EventBusUnavailableError) as error:
            raise subscription_cut(error, "the pendingApprovals query") from None

    @strawberry.subscription(
        description="Live events of one agent run, ending after FINISHED: STARTED first (replayed for a run under way), then, for a run already waiting on people, APPROVAL_REQUESTED of each request still open; a run that already finished yields FINISHED at once."
    )
    async def agent_run_events(
        self,
        info: Info,
        run_id: Annotated[strawberry.ID, strawberry.argument(description="The run to follow.")],
    ) -> AsyncGenerator[AgentRunEvent, None]:
        def marker(kind: str, run: AgentRun, at: datetime) -> AgentRunEvent:
            return AgentRunEvent(kind=kind, run=run, tool_call=None, delta=None, at=at)

        async def convert(event: dict[str, Any], run: AgentRun) -> AgentRunEvent:
            tool_call = None
            if event.get("call_id"):
                row = await info.context.loaders.tool_call_by_id.load(event["call_id"])
                tool_call = ToolCall.from_row(row) if row and visibility.in_readable_space(info, row) else None
            return AgentRunEvent(
                kind=event["kind"],
                run=run,
                tool_call=tool_call,
                delta=event.get("delta"),
                at=datetime.fromisoformat(event["at"]),
                tool_id=event.get("tool_id"),
                step=event.get("step"),
            )

        async def waiting_approvals(run: AgentRun) -> list[tuple[Hashable, AgentRunEvent]]:
            # A run waiting on people when the subscription starts (its id is known only once it
            # runs, and asking may come first): the requests still open, as they were published.
            async with info.context.session() as session:
                approvals = await runs_repository.open_approvals_of_run(session, str(run_id))
            return [
                (
                    (APPROVAL_REQUESTED, approval.tool_call_id),
                    await convert(
                        {
                            "kind": APPROVAL_REQUESTED,
                            "call_id": approval.tool_call_id,
                            "tool_id": approval.tool_id,
                            "at": approval.requested_at.isoformat(),
                        },
                        run,
                    ),
                )
                for approval in approvals
            ]

        async for item in follow_run(
            info,
            topic=run_topic(str(run_id)),
            read=lambda session: runs_repository.get_run(session, str(run_id)),
            present=AgentRun.from_row,
            marker=marker,
            convert=convert,
            not_found=f"Run {str(run_id)!r} not found.",
            read_with="agentRun",
            reconcile_s=RECONCILE_S,
            replay=waiting_approvals,
            replayed_key=lambda event: (event["kind"], event.get("call_id")),
        ):
            yield item
