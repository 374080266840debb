// Agents: the manifest editor, the prompt preview with its sections and budget, an invocation whose
// events stream in live over the WebSocket, and the run history with each tool call.
import { useEffect, useRef, useState } from "preact/hooks";

import {
  AgentChoicesDocument,
  AgentDetailDocument,
  type AgentDetailQuery,
  AgentRunDocument,
  AgentRunEventsDocument,
  type AgentRunEventsSubscription,
  AgentsDocument,
  CreateAgentDocument,
  InvokeAgentDocument,
  PreviewPromptDocument,
  type PreviewPromptQuery,
  type RunRowFragment,
  UpdateAgentDocument,
} from "../generated/graphql";
import type { SocketState } from "../api";
import { href, Link, navigate, useSearchParam } from "../router";
import { useSession } from "../session";
import {
  Badge,
  EditForm,
  CheckboxGroup,
  FormErrors,
  JsonBlock,
  LoadError,
  messageOf,
  ms,
  Notice,
  PageHeader,
  Pager,
  SelectField,
  statusTone,
  TextAreaField,
  TextField,
  useCursorPages,
  useLoad,
  useMutation,
  when,
} from "../ui";
import { SpaceOptionsError, spaceChoices, useSpaceOptions } from "./tools";

const PAGE_SIZE = 50;

export function AgentsPage({ sub }: { sub: string }) {
  if (sub === "new") return <AgentForm agent={null} />;
  if (sub) return <AgentDetail id={decodeURIComponent(sub)} />;
  return <AgentList />;
}

function AgentList() {
  const { api, can } = useSession();
  const pages = useCursorPages("agents");
  const agents = useLoad(() => api.request(AgentsDocument, { first: PAGE_SIZE, after: pages.after }), [pages.after]);
  const connection = agents.data?.agents;
  return (
    <>
      <PageHeader title="Agents">
        {can.manageSome && (
          <Link class="button primary" to="/agents/new">
            Create agent
          </Link>
        )}
      </PageHeader>
      <LoadError error={agents.error} retry={agents.reload} />
      {connection && (
        <>
          <table>
            <caption class="sr-only">Agents</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Space</th>
                <th scope="col">Model</th>
                <th scope="col">Status</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {connection.edges.map(({ node }) => (
                <tr key={node.id}>
                  <td>
                    <Link to={`/agents/${encodeURIComponent(node.id)}`}>{node.name}</Link>
                  </td>
                  <td>{node.space.name}</td>
                  <td>
                    <code>{node.model}</code>
                  </td>
                  <td>
                    <Badge tone={statusTone(node.status)}>{node.status}</Badge>
                  </td>
                  <td>{when(node.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {connection.edges.length === 0 && <p class="empty">No agent yet.</p>}
          <Pager label="Agents" pages={pages} pageSize={PAGE_SIZE} connection={connection} />
        </>
      )}
    </>
  );
}

type Agent = NonNullable<AgentDetailQuery["agent"]>;

function AgentDetail({ id }: { id: string }) {
  const { api, can } = useSession();
  const detail = useLoad(() => api.request(AgentDetailDocument, { id }), [id]);
  const agent = detail.data?.agent;
  const [editing, setEditing] = useState(false);
  if (detail.data && !agent) {
    return (
      <>
        <PageHeader title="Agent not found" />
        <p>
          No agent <code>{id}</code> is visible to this key. <Link to="/agents">Back to Agents</Link>
        </p>
      </>
    );
  }
  const manage = agent ? can.manage(agent.space.id) : false;
  return (
    <>
      <PageHeader title={agent ? `Agent ${agent.name}` : "Agent"}>
        <Link class="button" to="/agents">
          All agents
        </Link>
        {manage && !editing && (
          <button type="button" onClick={() => setEditing(true)}>
            Edit manifest
          </button>
        )}
      </PageHeader>
      <LoadError error={detail.error} retry={detail.reload} />
      {agent && editing && (
        <AgentForm
          agent={agent}
          onSaved={() => {
            setEditing(false);
            detail.reload();
          }}
          onCancel={() => setEditing(false)}
        />
      )}
      {agent && !editing && (
        <>
          <dl class="facts">
            <dt>Space</dt>
            <dd>{agent.space.name}</dd>
            <dt>Model</dt>
            <dd>
              <code>{agent.model}</code>
            </dd>
            <dt>Status</dt>
            <dd>
              <Badge tone={statusTone(agent.status)}>{agent.status}</Badge>
            </dd>
            <dt>Max steps</dt>
            <dd>{agent.maxSteps}</dd>
            <dt>Knowledge bases</dt>
            <dd>{agent.mountedKnowledgeBases.map((kb) => kb.name).join(", ") || "—"}</dd>
            <dt>Tools</dt>
            <dd>{agent.activatedTools.map((tool) => tool.name).join(", ") || "—"}</dd>
            <dt>Skills</dt>
            <dd>{agent.boundSkillReferences.join(", ") || "—"}</dd>
            <dt>System prompt</dt>
            <dd class="prose">{agent.systemPrompt}</dd>
            <dt>Output format</dt>
            <dd class="prose">{agent.outputFormat ?? "—"}</dd>
          </dl>
          <PromptPreview agentId={agent.id} />
          {can.invoke && agent.status === "ACTIVE" && <Invoke agentId={agent.id} onFinished={detail.reload} />}
          <RunHistory agent={agent} />
        </>
      )}
    </>
  );
}

function lines(text: string): string[] {
  return text.split(/[\n,]/).map((item) => item.trim()).filter(Boolean);
}

function AgentForm({ agent, onSaved, onCancel }: { agent: Agent | null; onSaved?: () => void; onCancel?: () => void }) {
  const { api, can, viewer } = useSession();
  const spaces = useSpaceOptions();
  const [spaceId, setSpaceId] = useState(agent?.space.id ?? viewer.space?.id ?? "");
  const [name, setName] = useState(agent?.name ?? "");
  const [model, setModel] = useState(agent?.model ?? "");
  const [systemPrompt, setSystemPrompt] = useState(agent?.systemPrompt ?? "");
  const [maxSteps, setMaxSteps] = useState(String(agent?.maxSteps ?? 5));
  const [outputFormat, setOutputFormat] = useState(agent?.outputFormat ?? "");
  const [kbIds, setKbIds] = useState<string[]>(agent?.mountedKnowledgeBases.map((kb) => kb.id) ?? []);
  const [toolIds, setToolIds] = useState<string[]>(agent?.activatedTools.map((tool) => tool.id) ?? []);
  const [skillRefs, setSkillRefs] = useState(agent?.boundSkillReferences.join("\n") ?? "");
  const [notices, setNotices] = useState<string[]>([]);
  const effectiveSpace = spaceId || spaces.data?.find((space) => !space.isSystem)?.id || "";
  const choices = useLoad(
    async () => (effectiveSpace ? (await api.request(AgentChoicesDocument, { spaceId: effectiveSpace })).space : null),
    [effectiveSpace],
  );
  const mutation = useMutation();
  if (!can.manageSome) return <p>This key cannot create or change agents.</p>;
  const options = choices.data;
  const submit = async (event: Event) => {
    event.preventDefault();
    const common = {
      name,
      model,
      systemPrompt,
      maxSteps: Number(maxSteps) || null,
      outputFormat: outputFormat || (agent ? "" : null),
      mountedKnowledgeBaseIds: kbIds,
      activatedToolIds: toolIds,
      boundSkillIds: lines(skillRefs),
    };
    if (agent) {
      const payload = await mutation.run(async () => (await api.request(UpdateAgentDocument, { input: { id: agent.id, ...common } })).updateAgent);
      if (payload) {
        setNotices(payload.notices);
        onSaved?.();
      }
    } else {
      const payload = await mutation.run(
        async () =>
          (await api.request(CreateAgentDocument, { input: { ...common, spaceId: effectiveSpace, maxSteps: Number(maxSteps) || 5 } })).createAgent,
      );
      if (payload?.agent) navigate(href(`/agents/${encodeURIComponent(payload.agent.id)}`));
    }
  };
  const form = (
    <EditForm
      label="Agent manifest"
      wide
      onSubmit={submit}
      mutation={mutation}
      fields={["spaceId", "name", "model", "systemPrompt", "maxSteps", "outputFormat", "mountedKnowledgeBaseIds", "activatedToolIds", "boundSkillIds"]}
      submitLabel={agent ? "Save manifest" : "Create agent"}
      cancel={agent && onCancel ? onCancel : "/agents"}
      notice={
        notices.length > 0 && (
          <Notice>
            <ul class="plain">
              {notices.map((notice) => (
                <li key={notice}>{notice}</li>
              ))}
            </ul>
          </Notice>
        )
      }
    >
      {!agent && can.admin && (
        <SelectField
          label="Space"
          name="spaceId"
          value={effectiveSpace}
          onChange={setSpaceId}
          errors={mutation.errors}
          options={spaceChoices(spaces.data)}
        />
      )}
      {!agent && can.admin && <SpaceOptionsError spaces={spaces} />}
      <TextField label="Name" name="name" value={name} onInput={setName} errors={mutation.errors} />
      <TextField label="Model" name="model" value={model} onInput={setModel} errors={mutation.errors} hint="The model name sent to the OpenAI-compatible endpoint." />
      <TextAreaField label="System prompt" name="systemPrompt" value={systemPrompt} onInput={setSystemPrompt} errors={mutation.errors} rows={6} />
      <TextField label="Max steps" name="maxSteps" value={maxSteps} onInput={setMaxSteps} errors={mutation.errors} type="number" />
      <TextAreaField label="Output format" name="outputFormat" value={outputFormat} onInput={setOutputFormat} errors={mutation.errors} rows={2} />
      {options && (
        <>
          <CheckboxGroup
            legend="Knowledge bases"
            name="mountedKnowledgeBaseIds"
            options={options.knowledgeBases.edges.map(({ node }) => ({ value: node.id, label: node.label }))}
            selected={kbIds}
            onChange={setKbIds}
            errors={mutation.errors}
          />
          <CheckboxGroup
            legend="Tools"
            name="activatedToolIds"
            options={options.visibleTools.edges.map(({ node }) => ({ value: node.id, label: `${node.name} — ${node.label}` }))}
            selected={toolIds}
            onChange={setToolIds}
            errors={mutation.errors}
          />
          <TextAreaField
            label="Skills"
            name="boundSkillIds"
            value={skillRefs}
            onInput={setSkillRefs}
            errors={mutation.errors}
            rows={3}
            mono
            hint={`One skill id a line; pin a version with @, e.g. sk_email_draft@1.2.0. Visible here: ${options.skills.edges.map(({ node }) => node.id).join(", ") || "none"}.`}
          />
        </>
      )}
    </EditForm>
  );
  if (agent) return form;
  return (
    <>
      <PageHeader title="Create agent" />
      {form}
    </>
  );
}

function PromptPreview({ agentId }: { agentId: string }) {
  const { api } = useSession();
  const [message, setMessage] = useState("");
  const [preview, setPreview] = useState<PreviewPromptQuery["previewPrompt"] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(null);
    try {
      setPreview((await api.request(PreviewPromptDocument, { agentId, message: message || "(preview)" })).previewPrompt);
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  const used = preview ? Math.min(100, Math.round((preview.charCount / Math.max(1, preview.budgetChars)) * 100)) : 0;
  return (
    <section aria-labelledby="preview-title">
      <h2 id="preview-title">Prompt preview</h2>
      <form class="filters" onSubmit={submit} aria-label="Preview the prompt">
        <TextField label="Message to assemble for" name="previewMessage" value={message} onInput={setMessage} />
        <button type="submit">Preview prompt</button>
      </form>
      {problem && <p role="alert">{problem}</p>}
      {preview && (
        <div>
          <p>
            {preview.charCount.toLocaleString()} of {preview.budgetChars.toLocaleString()} characters ({used}% of the budget), about{" "}
            {preview.tokenEstimate.toLocaleString()} tokens.
          </p>
          <meter min={0} max={preview.budgetChars} value={preview.charCount} aria-label="Prompt budget used" />
          {preview.warnings.map((warning) => (
            <p key={warning} class="error-text">
              {warning}
            </p>
          ))}
          <ol class="sections">
            {preview.sections.map((section, index) => (
              <li key={index} class="card">
                <p>
                  <Badge>{section.kind}</Badge> {section.source && <code>{section.source}</code>} {section.truncated && <Badge tone="bad">cut to fit</Badge>}
                </p>
                {section.reason && <p class="muted">{section.reason}</p>}
                <pre class="json">{section.text}</pre>
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}

type RunEvent = AgentRunEventsSubscription["agentRunEvents"];

function Invoke({ agentId, onFinished }: { agentId: string; onFinished: () => void }) {
  const { api } = useSession();
  const [message, setMessage] = useState("");
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [run, setRun] = useState<RunRowFragment | null>(null);
  const [output, setOutput] = useState("");
  const mutation = useMutation();
  const stop = useRef<(() => void) | null>(null);
  useEffect(() => () => stop.current?.(), []);
  const [socket, setSocket] = useState<SocketState>("connecting");
  useEffect(() => api.onSocketState(setSocket), [api]);
  const dropped = useRef(false);
  const runId = run?.id ?? null;
  const running = run?.status === "RUNNING";
  // Events sent while the socket was down are not sent again: once it is back, the run is read
  // as stored (it may have finished meanwhile); the subscription itself restarts by itself.
  useEffect(() => {
    if (socket === "reconnecting") dropped.current = true;
    if (socket !== "connected" || !dropped.current || runId === null) return;
    dropped.current = false;
    api.request(AgentRunDocument, { id: runId }).then(
      (data) => {
        const stored = data.agentRun;
        if (!stored || stored.id !== runId) return;
        setRun(stored);
        if (stored.status !== "RUNNING") {
          stop.current?.();
          stop.current = null;
          onFinished();
        }
      },
      () => undefined,
    );
  }, [api, socket, runId, onFinished]);

  const submit = async (event: Event) => {
    event.preventDefault();
    stop.current?.();
    setEvents([]);
    setOutput("");
    setRun(null);
    const payload = await mutation.run(async () => (await api.request(InvokeAgentDocument, { input: { agentId, message, async: true } })).invokeAgent);
    const started = payload?.run;
    if (!started) return;
    setRun(started);
    stop.current = api.subscribe(
      AgentRunEventsDocument,
      { runId: started.id },
      {
        next: (data) => {
          const item = data.agentRunEvents;
          setEvents((previous) => [...previous, item]);
          if (item.delta) setOutput((previous) => previous + item.delta);
          if (item.kind === "FINISHED") {
            // The whole run as stored, with every tool call, once it is over.
            api.request(AgentRunDocument, { id: started.id }).then((data) => data.agentRun && setRun(data.agentRun), () => undefined);
            onFinished();
          }
        },
        error: (error) => mutation.setErrors([{ field: null, code: "STREAM", message: error.message }]),
      },
    );
  };
  return (
    <section aria-labelledby="invoke-title">
      <h2 id="invoke-title">Run the agent</h2>
      <form class="card form" onSubmit={submit}>
        <TextAreaField label="Message" name="message" value={message} onInput={setMessage} errors={mutation.errors} rows={3} />
        <FormErrors errors={mutation.errors} fields={["message"]} />
        <button type="submit" class="primary" disabled={mutation.busy}>
          Run agent
        </button>
      </form>
      {run && (
        <div class="card">
          <p>
            Run <code>{run.id}</code> <Badge tone={statusTone(run.status)}>{run.status}</Badge>
          </p>
          {running && socket !== "connected" && (
            <p class="muted" role="status">
              {socket === "reconnecting"
                ? "Reconnecting… the run goes on on the server; it is read again when the connection is back."
                : "Connecting…"}
            </p>
          )}
          <ol class="events" aria-label="Run events" aria-live="polite">
            {events.map((item, index) => (
              <li key={index}>
                <Badge>{item.kind}</Badge> <span class="muted">{when(item.at)}</span>
                {item.step !== null && item.step !== undefined && <> step {item.step}</>}
                {item.toolId && (
                  <>
                    {" "}
                    tool <code>{item.toolId}</code>
                  </>
                )}
                {item.toolCall && (
                  <>
                    {" "}
                    <Badge tone={statusTone(item.toolCall.status)}>{item.toolCall.status}</Badge> {ms(item.toolCall.latencyMs)}
                  </>
                )}
                {item.kind === "FINISHED" && item.run.error && <> {item.run.error.message}</>}
              </li>
            ))}
          </ol>
          {(run.output || output) && (
            <>
              <h3>Answer</h3>
              <p class="prose answer">{run.output ?? output}</p>
            </>
          )}
          {run.error && <p class="error-text">{run.error.message}</p>}
        </div>
      )}
    </section>
  );
}

function RunHistory({ agent }: { agent: Agent }) {
  const runs = agent.runs.edges.map(({ node }) => node);
  // ?run=run_… (e.g. from the Approvals page) opens that run.
  const wanted = useSearchParam("run");
  return (
    <section aria-labelledby="runs-title">
      <h2 id="runs-title">Run history ({agent.runs.totalCount})</h2>
      {runs.length === 0 && <p class="empty">No run yet.</p>}
      {runs.map((run) => (
        <details key={run.id} id={run.id} class="card run" open={run.id === wanted}>
          <summary>
            <Badge tone={statusTone(run.status)}>{run.status}</Badge> {when(run.startedAt)} — {run.input.slice(0, 80)}
          </summary>
          <dl class="facts">
            <dt>Run</dt>
            <dd>
              <code>{run.id}</code>
            </dd>
            <dt>Steps</dt>
            <dd>{run.steps}</dd>
            <dt>Tokens</dt>
            <dd>
              {run.promptTokens ?? "—"} in, {run.completionTokens ?? "—"} out
            </dd>
            <dt>Answer</dt>
            <dd class="prose">{run.output ?? run.error?.message ?? "—"}</dd>
          </dl>
          <table class="compact">
            <caption>Tool calls</caption>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Status</th>
                <th scope="col">Latency</th>
                <th scope="col">Arguments</th>
              </tr>
            </thead>
            <tbody>
              {run.toolCalls.map((call) => (
                <tr key={call.id}>
                  <td>
                    <code>{call.toolId}</code>
                  </td>
                  <td>
                    <Badge tone={statusTone(call.status)}>{call.status}</Badge> {call.error?.code}
                  </td>
                  <td>{ms(call.latencyMs)}</td>
                  <td>
                    <JsonBlock label={`Arguments of ${call.id}`} value={call.arguments} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      ))}
    </section>
  );
}
