// Approvals: the tool calls of agent runs that wait for a person, oldest first, in one space.
// A SPACE_ADMIN of the space or an ADMIN approves or rejects each with a comment; every other key
// reads the list. The approvalRequests subscription tells the page when a request arrives or is
// decided (it reads pendingApprovals again); without it (refused, the socket down) the page asks
// every few seconds while visible. Either way a new request or a decision taken elsewhere shows
// without a reload.
import { useEffect, useState } from "preact/hooks";

import type { SocketState } from "../api";
import {
  ApprovalRequestsDocument,
  ApproveToolCallDocument,
  PendingApprovalCountDocument,
  type PendingApprovalFragment,
  PendingApprovalsDocument,
  RejectToolCallDocument,
} from "../generated/graphql";
import { Link, useSearchParam } from "../router";
import { useSession } from "../session";
import {
  Badge,
  errorsFor,
  FormErrors,
  JsonBlock,
  LoadErrors,
  Notice,
  PageHeader,
  Pager,
  SelectField,
  statusTone,
  TextAreaField,
  useCursorPages,
  useLoad,
  useMutation,
  when,
} from "../ui";
import { SpaceOptionsNote, spaceChoices, useSpaceOptions } from "./tools";

/** How often the page asks for the pending approvals while it is visible and not live. */
export const APPROVALS_POLL_MS = 3000;
/** While the subscription is live: only a safety net for events a bus outage lost. */
export const APPROVALS_LIVE_POLL_MS = 30_000;
/** How often the navigation's count is refreshed while the console is visible. */
export const BADGE_POLL_MS = 10_000;
/** The API's bound on a decision's comment (approveToolCall's comment, rejectToolCall's reason). */
export const MAX_COMMENT_CHARS = 2000;
const PAGE_SIZE = 50;
// The space last shown on the page: the navigation's count follows it for keys of every space.
const SPACE_STORAGE = "quiver.approvals.space";
const SPACE_EVENT = "quiver:approvals-space";
const COUNT_EVENT = "quiver:approvals-count";

type CountDetail = { spaceId: string; count: number };

function rememberedSpace(): string {
  return window.localStorage.getItem(SPACE_STORAGE) ?? "";
}

function rememberSpace(spaceId: string): void {
  if (rememberedSpace() === spaceId) return;
  window.localStorage.setItem(SPACE_STORAGE, spaceId);
  window.dispatchEvent(new Event(SPACE_EVENT));
}

function announceCount(detail: CountDetail): void {
  window.dispatchEvent(new CustomEvent<CountDetail>(COUNT_EVENT, { detail }));
}

/** Whether the document is visible: nothing is polled for a tab in the background. */
export function useVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState === "visible");
  useEffect(() => {
    const onChange = () => setVisible(document.visibilityState === "visible");
    document.addEventListener("visibilitychange", onChange);
    return () => document.removeEventListener("visibilitychange", onChange);
  }, []);
  return visible;
}

/** Calls `action` every `intervalMs` while the page is visible, and at once when it becomes visible again. */
function usePolling(action: () => void, intervalMs: number): void {
  const visible = useVisible();
  const [wasHidden, setWasHidden] = useState(false);
  useEffect(() => {
    if (!visible) {
      setWasHidden(true);
      return undefined;
    }
    if (wasHidden) {
      setWasHidden(false);
      action();
    }
    const timer = window.setInterval(action, intervalMs);
    return () => window.clearInterval(timer);
  }, [visible, action, intervalMs, wasHidden]);
}

/** Follows approvalRequests for the space, calling `changed` on each event and whenever the
 *  subscription (re)starts (what happened before it is read again); true while it is live. */
function useApprovalEvents(spaceId: string, changed: () => void): boolean {
  const { api } = useSession();
  const [socket, setSocket] = useState<SocketState>("connecting");
  const [failed, setFailed] = useState(false);
  useEffect(() => api.onSocketState(setSocket), [api]);
  const connected = socket === "connected";
  useEffect(() => {
    if (!spaceId) return undefined;
    setFailed(false);
    return api.subscribe(
      ApprovalRequestsDocument,
      { spaceId },
      { next: () => changed(), error: () => setFailed(true), complete: () => setFailed(true) },
    );
  }, [api, spaceId, changed]);
  useEffect(() => {
    if (connected) changed();
  }, [connected, changed]);
  return Boolean(spaceId) && connected && !failed;
}

/** The time now, refreshed every `intervalMs`: for "waiting 3 min" and "expires in 2 h". */
function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** A duration for people: "45 s", "3 min", "2 h 5 min", "1 d 3 h". */
export function span(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

export function ApprovalsPage() {
  const { api, viewer, can } = useSession();
  const spaces = useSpaceOptions();
  const param = useSearchParam("space");
  const [chosen, setChosen] = useState(param ?? viewer.space?.id ?? rememberedSpace());
  const options = spaceChoices(spaces.data);
  // A space this key cannot see (a stale address or memory) falls back to the first it can.
  const spaceId = spaces.data === null || options.some(([id]) => id === chosen) ? chosen : (options[0]?.[0] ?? "");
  const pages = useCursorPages(spaceId);
  const [decided, setDecided] = useState<string | null>(null);

  useEffect(() => {
    if (spaceId) rememberSpace(spaceId);
  }, [spaceId]);

  const choose = (next: string) => {
    setChosen(next);
    setDecided(null);
    const params = new URLSearchParams(window.location.search);
    params.set("space", next);
    window.history.replaceState(null, "", `${window.location.pathname}?${params.toString()}`);
  };

  const list = useLoad(async () => {
    if (!spaceId) return null;
    const data = await api.request(PendingApprovalsDocument, { spaceId, first: PAGE_SIZE, after: pages.after });
    return { spaceId, connection: data.pendingApprovals };
  }, [spaceId, pages.after]);
  const live = useApprovalEvents(spaceId, list.reload);
  usePolling(list.reload, live ? APPROVALS_LIVE_POLL_MS : APPROVALS_POLL_MS);
  const now = useNow(1000);

  const loaded = list.data && list.data.spaceId === spaceId ? list.data.connection : null;
  // A request whose time ran out is refused by its run: it leaves the list at once.
  const open = loaded?.edges.filter(({ node }) => !node.approval || Date.parse(node.approval.expiresAt) > now);
  const shown = loaded && open && { ...loaded, edges: open, totalCount: loaded.totalCount - (loaded.edges.length - open.length) };
  useEffect(() => {
    if (list.data) announceCount({ spaceId: list.data.spaceId, count: list.data.connection.totalCount });
  }, [list.data]);

  const mayDecide = can.manage(spaceId);
  return (
    <>
      <PageHeader title="Approvals" />
      <form class="filters" aria-label="Filter approvals" onSubmit={(event) => event.preventDefault()}>
        <SelectField label="Space" name="space" value={spaceId} onChange={choose} options={options} />
      </form>
      <p class="hint">
        Tool calls of agent runs that wait for a person, oldest first; the list follows new requests and decisions
        by itself.{" "}
        {mayDecide
          ? "Approved, a call runs and its run continues; rejected, it does not run and the model is told why."
          : "Read only: a SPACE_ADMIN of this space or an ADMIN decides."}
      </p>
      <LoadErrors loads={[spaces, list]} />
      <SpaceOptionsNote spaces={spaces} />
      {decided && <Notice>{decided}</Notice>}
      <p class="muted">
        {live
          ? "Live: requests and decisions appear as they happen."
          : `Not live: checking every ${APPROVALS_POLL_MS / 1000} s while this page is visible.`}
      </p>
      {shown && (
        <>
          <p class="muted" aria-live="polite">
            {shown.totalCount === 0
              ? "Nothing waits for a decision in this space."
              : `${shown.totalCount.toLocaleString()} call${shown.totalCount === 1 ? "" : "s"} waiting.`}
          </p>
          {shown.edges.map(({ node }) => (
            <ApprovalCard
              key={node.id}
              call={node}
              now={now}
              mayDecide={mayDecide}
              onDecided={(message) => {
                setDecided(message);
                list.reload();
              }}
            />
          ))}
          {shown.totalCount > PAGE_SIZE && (
            <Pager label="Approvals" pages={pages} pageSize={PAGE_SIZE} connection={shown} />
          )}
        </>
      )}
    </>
  );
}

function ApprovalCard({
  call,
  now,
  mayDecide,
  onDecided,
}: {
  call: PendingApprovalFragment;
  now: number;
  mayDecide: boolean;
  onDecided: (message: string) => void;
}) {
  const { api } = useSession();
  const [comment, setComment] = useState("");
  const mutation = useMutation();
  const name = call.tool?.name ?? call.toolId;
  const requested = call.approval ? Date.parse(call.approval.requestedAt) : Number.NaN;
  const expires = call.approval ? Date.parse(call.approval.expiresAt) : Number.NaN;
  // approveToolCall names the comment `comment`, rejectToolCall `reason`: both belong to the one field.
  const errors = mutation.errors.map((error) =>
    errorsFor([error], "reason").length ? { ...error, field: [...(error.field ?? []).slice(0, -1), "comment"] } : error,
  );

  const decide = async (approve: boolean) => {
    const text = comment.trim() ? comment : null;
    const payload = approve
      ? await mutation.run(
          async () =>
            (await api.request(ApproveToolCallDocument, { input: { toolCallId: call.id, comment: text } }))
              .approveToolCall,
        )
      : await mutation.run(
          async () =>
            (await api.request(RejectToolCallDocument, { input: { toolCallId: call.id, reason: text } })).rejectToolCall,
        );
    if (payload) {
      const run = payload.run ? ` Run ${payload.run.id} is ${payload.run.status}.` : "";
      onDecided(`${approve ? "Approved" : "Rejected"} ${name} (${call.id}).${run}`);
    }
  };

  return (
    <section class="card approval" aria-label={`Approval ${call.id}`}>
      <h2>
        <code>{name}</code> {call.agent && <span class="muted">for agent {call.agent.name}</span>}
      </h2>
      <dl class="facts">
        <dt>Tool</dt>
        <dd>
          <Link to={`/tools/${encodeURIComponent(call.toolId)}`}>{call.tool?.label ?? call.toolId}</Link>{" "}
          <code class="muted">{call.toolId}</code>
        </dd>
        <dt>Agent</dt>
        <dd>
          {call.agent ? <Link to={`/agents/${encodeURIComponent(call.agent.id)}`}>{call.agent.name}</Link> : "—"}
        </dd>
        <dt>Run</dt>
        <dd>
          {call.run && call.agent ? (
            <>
              <Link
                to={`/agents/${encodeURIComponent(call.agent.id)}?run=${encodeURIComponent(call.run.id)}`}
                aria-label={`Run ${call.run.id}`}
              >
                <code>{call.run.id}</code>
              </Link>{" "}
              <Badge tone={statusTone(call.run.status)}>{call.run.status}</Badge>
            </>
          ) : (
            (call.run?.id ?? "—")
          )}
        </dd>
        <dt>Call</dt>
        <dd>
          <code>{call.id}</code>
        </dd>
        <dt>Requested</dt>
        <dd>
          {when(call.approval?.requestedAt)}
          {Number.isFinite(requested) && <> · waiting {span(now - requested)}</>}
        </dd>
        <dt>Expires</dt>
        <dd>
          {when(call.approval?.expiresAt)}
          {Number.isFinite(expires) && (expires > now ? <> · in {span(expires - now)}</> : <> · expired</>)}
        </dd>
      </dl>
      <h3>Proposed arguments</h3>
      <JsonBlock label={`Proposed arguments of ${call.id}`} value={call.arguments} />
      {mayDecide && (
        <form class="decision" aria-label={`Decide on ${call.id}`} onSubmit={(event) => event.preventDefault()}>
          <TextAreaField
            label="Comment"
            name="comment"
            value={comment}
            onInput={setComment}
            errors={errors}
            rows={2}
            hint={`Optional: kept on the call, and told to the model when rejected. ${comment.length.toLocaleString()} of ${MAX_COMMENT_CHARS.toLocaleString()} characters.`}
          />
          <FormErrors errors={errors} fields={["comment"]} />
          <div class="buttons">
            <button type="button" class="primary" disabled={mutation.busy} onClick={() => void decide(true)}>
              Approve
            </button>
            <button type="button" class="danger" disabled={mutation.busy} onClick={() => void decide(false)}>
              Reject
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** The navigation's count of calls waiting in the approver's space (the key's own, or the one
 *  last shown on the page); nothing for keys that may not decide there. */
export function PendingApprovalsCount() {
  const { api, viewer, can } = useSession();
  const [remembered, setRemembered] = useState(rememberedSpace);
  const spaceId = viewer.space?.id ?? remembered;
  const approver = spaceId !== "" && can.manage(spaceId);
  const visible = useVisible();
  const [count, setCount] = useState<CountDetail | null>(null);

  useEffect(() => {
    const onSpace = () => setRemembered(rememberedSpace());
    window.addEventListener(SPACE_EVENT, onSpace);
    return () => window.removeEventListener(SPACE_EVENT, onSpace);
  }, []);

  useEffect(() => {
    if (!approver || !visible) return undefined;
    let current = true;
    const load = () =>
      api.request(PendingApprovalCountDocument, { spaceId }).then(
        (data) => current && setCount({ spaceId, count: data.pendingApprovals.totalCount }),
        () => undefined,
      );
    void load();
    const timer = window.setInterval(() => void load(), BADGE_POLL_MS);
    const onCount = (event: Event) => {
      const detail = (event as CustomEvent<CountDetail>).detail;
      if (detail.spaceId === spaceId) setCount(detail);
    };
    window.addEventListener(COUNT_EVENT, onCount);
    return () => {
      current = false;
      window.clearInterval(timer);
      window.removeEventListener(COUNT_EVENT, onCount);
    };
  }, [api, spaceId, approver, visible]);

  if (!approver || count === null || count.spaceId !== spaceId || count.count === 0) return null;
  const text = `${count.count} pending approval${count.count === 1 ? "" : "s"}`;
  return (
    <span class="badge busy nav-count" title={text}>
      <span aria-hidden="true">{count.count}</span>
      <span class="sr-only">{text}</span>
    </span>
  );
}
