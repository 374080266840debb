// Live calls: the toolCalls subscription as a table, filtered by space, tool and status, with pause.
// When the WebSocket drops, the calls that finish meanwhile are read from the call log (the
// toolCalls query) once it is back, and merged in among the rest; so are they when the server
// ends the subscription saying events were missed (its replica lost its event bus), after the
// page subscribed again by itself.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

import { AuthError, RequestError, type SocketState } from "../api";
import {
  type CallRowFragment,
  type CallStatus,
  LiveToolCallsDocument,
  RecentToolCallsDocument,
  type ToolCallFilter,
} from "../generated/graphql";
import { Link } from "../router";
import { useSession } from "../session";
import {
  Badge,
  JsonBlock,
  LoadError,
  messageOf,
  ms,
  Notice,
  PageHeader,
  SelectField,
  statusTone,
  TextField,
  when,
} from "../ui";
import { SpaceOptionsError, spaceChoices, useSpaceOptions } from "./tools";

// Kept in the table: enough to read a burst, bounded so a busy gateway cannot grow the page forever.
const MAX_ROWS = 500;
/** The calls read from the call log after an outage: one page of the toolCalls query (its most). */
const BACKFILL_PAGE = 100;
// The server ended the subscription and says to subscribe again: calls were missed (the event bus
// of its replica was cut off, or this page fell behind), or it cannot hear the other replicas yet.
const SUBSCRIBE_AGAIN = ["EVENTS_MISSED", "EVENT_BUS_UNAVAILABLE", "SUBSCRIBER_OVERFLOW"];
// Between such attempts: 1, 2, 4, 8 s, then every 15 s, for as long as it takes.
const AGAIN_CAP_MS = 15_000;

/** The newest moment the table has heard of: the latest startedAt among its calls (or, before the
 *  first, when it began listening), and the calls started at that very moment (the call log's
 *  `since` includes them). */
type Mark = { at: string; ids: string[] };

/** The calls read back after an outage: being read, or could not be, or more than one page. */
type Backfill = { kind: "idle" } | { kind: "running" } | { kind: "failed"; message: string } | { kind: "partial" };

/** An ISO 8601 moment in microseconds (Date.parse keeps milliseconds; the API gives microseconds). */
function micros(iso: string): number {
  const fraction = /\.(\d+)/.exec(iso)?.[1] ?? "";
  return Date.parse(iso) * 1000 + Number(fraction.slice(3, 6).padEnd(3, "0"));
}

function later(mark: Mark, call: CallRowFragment): Mark {
  const [known, at] = [micros(mark.at), micros(call.startedAt)];
  if (at > known) return { at: call.startedAt, ids: [call.id] };
  if (at === known && !mark.ids.includes(call.id)) return { ...mark, ids: [...mark.ids, call.id] };
  return mark;
}

/** `missed` (oldest first) merged into `rows` (newest first): each before the first row that
 *  started earlier, the rows' own order kept. */
function mergeMissed(rows: CallRowFragment[], missed: CallRowFragment[]): CallRowFragment[] {
  const pending = [...missed].reverse();
  const merged: CallRowFragment[] = [];
  for (const row of rows) {
    while (pending.length && micros(pending[0].startedAt) > micros(row.startedAt)) merged.push(pending.shift()!);
    merged.push(row);
  }
  return [...merged, ...pending].slice(0, MAX_ROWS);
}

export function LiveCallsPage() {
  const { api } = useSession();
  const spaces = useSpaceOptions();
  const [spaceId, setSpaceId] = useState("");
  const [toolId, setToolId] = useState("");
  const [status, setStatus] = useState<CallStatus | "">("");
  const [calls, setCalls] = useState<CallRowFragment[]>([]);
  const [held, setHeld] = useState<CallRowFragment[]>([]);
  const [paused, setPaused] = useState(false);
  const [open, setOpen] = useState<CallRowFragment | null>(null);
  // The button that opened the detail: the focus goes back to it when the detail closes.
  const opener = useRef<HTMLElement | null>(null);
  const [state, setState] = useState<SocketState>("connecting");
  const [problem, setProblem] = useState<string | null>(null);
  const [backfill, setBackfill] = useState<Backfill>({ kind: "idle" });
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const rows = useRef({ calls, held });
  rows.current = { calls, held };
  const tool = toolId.trim();
  const filterRef = useRef<ToolCallFilter>({});
  // Before the first call, the browser's clock: what the call log holds from then on is read back
  // after an outage (as long as the browser's and the server's clocks roughly agree).
  const mark = useRef<Mark>({ at: new Date().toISOString(), ids: [] });
  // The mark when the socket dropped, until the calls since then are read back.
  const gap = useRef<Mark | null>(null);
  const socketRef = useRef(state);
  socketRef.current = state;
  // Bumped to subscribe again after the server ended the subscription with one of SUBSCRIBE_AGAIN;
  // `retries` counts such attempts since a call last streamed, `waiting` says why the page waits.
  const [attempt, setAttempt] = useState(0);
  const retries = useRef(0);
  const [waiting, setWaiting] = useState<string | null>(null);
  const filterKey = useRef("");

  useEffect(() => api.onSocketState(setState), [api]);

  useEffect(() => {
    setProblem(null);
    setWaiting(null);
    const filter = { spaceId: spaceId || null, toolId: tool || null, status: status || null };
    const key = JSON.stringify(filter);
    if (key !== filterKey.current) {
      // A new filter starts afresh; subscribing again after an interruption keeps the gap to read back.
      filterKey.current = key;
      setBackfill({ kind: "idle" });
      filterRef.current = filter;
      mark.current = { at: new Date().toISOString(), ids: [] };
      gap.current = null;
      retries.current = 0;
    }
    let again: number | undefined;
    const stop = api.subscribe(
      LiveToolCallsDocument,
      { filter },
      {
        next: (data) => {
          const call = data.toolCalls;
          retries.current = 0;
          mark.current = later(mark.current, call);
          if (pausedRef.current) setHeld((previous) => [call, ...previous].slice(0, MAX_ROWS));
          else setCalls((previous) => [call, ...previous].slice(0, MAX_ROWS));
        },
        error: (error) => {
          if (!(error instanceof RequestError) || !error.code || !SUBSCRIBE_AGAIN.includes(error.code)) {
            setProblem(error.message);
            return;
          }
          // What finishes from the last call heard on is read back once subscribed again.
          if (gap.current === null) gap.current = mark.current;
          setWaiting(
            error.code === "EVENT_BUS_UNAVAILABLE"
              ? "The server cannot follow the calls of all its replicas right now; trying again…"
              : "The live feed was interrupted; subscribing again…",
          );
          const wait = Math.min(1000 * 2 ** retries.current, AGAIN_CAP_MS);
          retries.current += 1;
          again = window.setTimeout(() => setAttempt((count) => count + 1), wait);
        },
      },
    );
    // Subscribed again on a socket that stayed open: read the gap now (a socket opened again reads
    // it when it connects, below).
    if (gap.current !== null && socketRef.current === "connected") void fetchMissed();
    return () => {
      window.clearTimeout(again);
      stop();
    };
  }, [api, spaceId, tool, status, attempt]);

  /** Reads the calls that finished while the socket was down (one page of the call log since the
   *  mark it dropped at) and merges in those the table does not have. */
  const fetchMissed = useCallback(async () => {
    const since = gap.current;
    if (since === null) return;
    const filter = filterRef.current;
    setBackfill({ kind: "running" });
    let page;
    try {
      const variables = { filter: { ...filter, since: since.at }, first: BACKFILL_PAGE };
      page = (await api.request(RecentToolCallsDocument, variables)).toolCalls;
    } catch (error) {
      if (filterRef.current === filter && !(error instanceof AuthError)) {
        setBackfill({ kind: "failed", message: messageOf(error) });
      }
      return;
    }
    if (filterRef.current !== filter) return;
    // Calls waiting for approval have not run: the stream does not show them either.
    const missed = page.edges
      .map(({ node }) => node)
      .filter((call) => call.status !== "PENDING_APPROVAL" && !since.ids.includes(call.id));
    for (const call of missed) mark.current = later(mark.current, call);
    const shown = new Set([...rows.current.calls, ...rows.current.held].map((call) => call.id));
    const fresh = missed.filter((call) => !shown.has(call.id));
    const add = (previous: CallRowFragment[]) =>
      mergeMissed(previous, fresh.filter((call) => !previous.some((row) => row.id === call.id)));
    if (pausedRef.current) setHeld(add);
    else setCalls(add);
    // Dropped again meanwhile: the gap stays open, to be read again from the same mark.
    if (socketRef.current === "connected" && gap.current === since) gap.current = null;
    setBackfill(page.pageInfo.hasNextPage ? { kind: "partial" } : { kind: "idle" });
  }, [api]);

  // Back on the socket, graphql-ws subscribes again by itself; the calls finished before the server
  // has the new subscription are the ones the call log gives.
  useEffect(() => {
    if (state === "reconnecting" && gap.current === null) gap.current = mark.current;
    if (state === "connected" && gap.current !== null) void fetchMissed();
  }, [state, fetchMissed]);

  // Back and not yet read (said from the first render on the socket, before the read starts).
  const reading = state === "connected" && gap.current !== null && backfill.kind !== "failed";

  const resume = () => {
    setCalls((previous) => [...held, ...previous].slice(0, MAX_ROWS));
    setHeld([]);
    setPaused(false);
  };

  return (
    <>
      <PageHeader title="Live calls">
        {paused ? (
          <button type="button" onClick={resume}>
            Resume ({held.length} waiting)
          </button>
        ) : (
          <button type="button" onClick={() => setPaused(true)}>
            Pause
          </button>
        )}
        <button
          type="button"
          onClick={() => {
            setCalls([]);
            if (backfill.kind === "partial") setBackfill({ kind: "idle" });
          }}
        >
          Clear
        </button>
      </PageHeader>
      <p class="muted" role="status">
        {state === "reconnecting"
          ? "Reconnecting… the live connection dropped; the calls that finish meanwhile are read from the call log once it is back."
          : waiting
            ? waiting
            : state === "connected"
              ? reading
                ? "Listening. Reading the calls that finished while the connection was down…"
                : "Listening: every finished call appears here as it happens."
              : state === "connecting"
                ? "Connecting…"
                : "Disconnected."}
        {paused && " Paused: new calls wait until you resume."}
      </p>
      {problem && (
        <p class="form-errors" role="alert">
          {problem}
        </p>
      )}
      <LoadError
        error={
          backfill.kind === "failed"
            ? `The calls that finished while the connection was down could not be read: ${backfill.message}`
            : null
        }
        retry={() => void fetchMissed()}
      />
      {backfill.kind === "partial" && (
        <Notice>
          Not every call that finished while the connection was down is shown: the oldest {BACKFILL_PAGE} in the call
          log were read, the later ones are only there (the toolCalls query).
        </Notice>
      )}
      <form class="filters" aria-label="Filter live calls" onSubmit={(event) => event.preventDefault()}>
        <SelectField
          label="Space"
          name="spaceId"
          value={spaceId}
          onChange={setSpaceId}
          options={[["", "Every space"], ...spaceChoices(spaces.data)]}
        />
        <TextField label="Tool id" name="toolId" value={toolId} onInput={setToolId} placeholder="e.g. bt_calculator" />
        <SelectField
          label="Status"
          name="status"
          value={status}
          onChange={setStatus}
          options={[["", "Any status"], ["SUCCESS", "Success"], ["FAILED", "Failed"]]}
        />
      </form>
      <SpaceOptionsError spaces={spaces} />
      <table class="live">
        <caption class="sr-only">Live tool calls, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Tool</th>
            <th scope="col">Space</th>
            <th scope="col">Status</th>
            <th scope="col">Latency</th>
            <th scope="col">Caller</th>
            <th scope="col">Call</th>
          </tr>
        </thead>
        <tbody>
          {calls.map((call) => (
            <tr key={call.id} class={open?.id === call.id ? "selected" : undefined}>
              <td>{when(call.startedAt)}</td>
              <td>
                <code>{call.toolId}</code>
              </td>
              <td>{call.space.name}</td>
              <td>
                <Badge tone={statusTone(call.status)}>{call.status}</Badge> {call.error?.code}
              </td>
              <td>{ms(call.latencyMs)}</td>
              <td>{call.agent ? `agent ${call.agent.name}` : "direct"}</td>
              <td>
                <button
                  type="button"
                  onClick={(event) => {
                    opener.current = event.currentTarget;
                    setOpen(call);
                  }}
                  aria-label={`Open call ${call.id}`}
                >
                  Open
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {calls.length === 0 && <p class="empty">No call yet. Calls made anywhere — the API, agents, other consoles — show up here.</p>}
      {open && (
        <CallDetail
          call={open}
          onClose={() => {
            setOpen(null);
            if (opener.current?.isConnected) opener.current.focus();
          }}
        />
      )}
    </>
  );
}

function CallDetail({ call, onClose }: { call: CallRowFragment; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [call.id]);
  return (
    <section
      class="card call-detail"
      aria-labelledby="call-title"
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          onClose();
        }
      }}
    >
      <h2 id="call-title" tabIndex={-1} ref={heading}>
        Call {call.id}
      </h2>
      <dl class="facts">
        <dt>Tool</dt>
        <dd>
          <Link to={`/tools/${encodeURIComponent(call.toolId)}`}>{call.toolId}</Link>
        </dd>
        <dt>Status</dt>
        <dd>
          <Badge tone={statusTone(call.status)}>{call.status}</Badge>
        </dd>
        <dt>Space</dt>
        <dd>{call.space.name}</dd>
        <dt>Started</dt>
        <dd>{when(call.startedAt)}</dd>
        <dt>Latency</dt>
        <dd>
          {ms(call.latencyMs)}, {call.attempts} attempt{call.attempts === 1 ? "" : "s"}
        </dd>
        <dt>Trace id</dt>
        <dd>
          <code>{call.traceId}</code>
        </dd>
        <dt>Idempotency key</dt>
        <dd>{call.idempotencyKey ?? "—"}</dd>
        <dt>Caller</dt>
        <dd>
          {call.agent ? (
            <>
              agent <Link to={`/agents/${encodeURIComponent(call.agent.id)}`}>{call.agent.name}</Link>
              {call.run && (
                <>
                  , run <code>{call.run.id}</code>
                </>
              )}
            </>
          ) : (
            "a direct call"
          )}
        </dd>
      </dl>
      <h3>Arguments</h3>
      <JsonBlock label="Arguments" value={call.arguments} />
      {call.error ? (
        <>
          <h3>Error</h3>
          <p>
            <code>{call.error.code}</code> {call.error.message}
          </p>
          {call.error.detail && <pre class="json">{call.error.detail}</pre>}
        </>
      ) : (
        <>
          <h3>Result</h3>
          <JsonBlock label="Result" value={call.result} />
        </>
      )}
      <button type="button" onClick={onClose}>
        Close call
      </button>
    </section>
  );
}
