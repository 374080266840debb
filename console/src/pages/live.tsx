// Live calls: the toolCalls subscription as a table, filtered by space, tool and status, with pause.
import { useEffect, useRef, useState } from "preact/hooks";

import type { SocketState } from "../api";
import { type CallRowFragment, type CallStatus, LiveToolCallsDocument } from "../generated/graphql";
import { Link } from "../router";
import { useSession } from "../session";
import { Badge, JsonBlock, ms, PageHeader, SelectField, statusTone, TextField, when } from "../ui";
import { spaceChoices, useSpaceOptions } from "./tools";

// Kept in the table: enough to read a burst, bounded so a busy gateway cannot grow the page forever.
const MAX_ROWS = 500;


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
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const tool = toolId.trim();

  useEffect(() => api.onSocketState(setState), [api]);

  useEffect(() => {
    setProblem(null);
    const filter = { spaceId: spaceId || null, toolId: tool || null, status: status || null };
    const stop = api.subscribe(
      LiveToolCallsDocument,
      { filter },
      {
        next: (data) => {
          const call = data.toolCalls;
          if (pausedRef.current) setHeld((previous) => [call, ...previous].slice(0, MAX_ROWS));
          else setCalls((previous) => [call, ...previous].slice(0, MAX_ROWS));
        },
        error: (error) => setProblem(error.message),
      },
    );
    return stop;
  }, [api, spaceId, tool, status]);

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
        <button type="button" onClick={() => setCalls([])}>
          Clear
        </button>
      </PageHeader>
      <p class="muted" role="status">
        {state === "connected"
          ? "Listening: every finished call appears here as it happens."
          : state === "connecting"
            ? "Connecting…"
            : state === "reconnecting"
              ? "Reconnecting… the live connection dropped; calls finished meanwhile are not shown here."
              : "Disconnected."}
        {paused && " Paused: new calls wait until you resume."}
      </p>
      {problem && (
        <p class="form-errors" role="alert">
          {problem}
        </p>
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
