// Tools: a paged, filtered list; a tool's schemas, policies, bindings and stats; the CUSTOM tool editor.
import { useEffect, useMemo, useState } from "preact/hooks";

import {
  type AuthType,
  type CreateToolInput,
  CreateToolDocument,
  InvokeToolDocument,
  type InvokeToolMutation,
  type Role,
  SetSpaceBindingsDocument,
  SetStatusDocument,
  type SideEffect,
  SpaceOptionsDocument,
  type SpaceOptionsQuery,
  SpaceToolsDocument,
  type Status,
  ToolDetailDocument,
  type ToolDetailQuery,
  ToolsDocument,
  type ToolRowFragment,
  type ToolType,
  type UpdateToolInput,
  UpdateToolDocument,
} from "../generated/graphql";
import { href, Link, navigate, useSearchParam } from "../router";
import { useSession } from "../session";
import {
  Badge,
  EditForm,
  CheckboxGroup,
  Field,
  FormErrors,
  JsonBlock,
  LoadError,
  LoadErrors,
  type Loaded,
  messageOf,
  ms,
  Notice,
  PageHeader,
  Pager,
  parseJson,
  pretty,
  SelectField,
  statusTone,
  TextAreaField,
  TextField,
  useCursorPages,
  useLoad,
  useMutation,
  when,
} from "../ui";

// 50 rows a page: a page renders in a few milliseconds however many tools there are.
const PAGE_SIZE = 50;
const ROLES: Role[] = ["ADMIN", "SPACE_ADMIN", "MEMBER", "VIEWER"];

export function ToolsPage({ sub }: { sub: string }) {
  if (sub === "new") return <ToolForm tool={null} />;
  const [id, action] = sub.split("/");
  if (id && action === "edit") return <EditTool id={decodeURIComponent(id)} />;
  if (id) return <ToolDetail id={decodeURIComponent(id)} />;
  return <ToolList />;
}

/** Spaces as a SelectField's options: [id, label]. */
export function spaceChoices(spaces: readonly { id: string; label: string }[] | null): (readonly [string, string])[] {
  return (spaces ?? []).map((space) => [space.id, space.label] as const);
}

/** The most spaces a picker offers: read 100 a request (the API's largest page), so at most 10
 *  requests. Past it the picker says how many it leaves out (SpaceOptionsNote). */
export const SPACE_OPTIONS_MAX = 1000;

type SpaceOption = SpaceOptionsQuery["spaces"]["edges"][number]["node"];

/** Every space a picker offers (up to SPACE_OPTIONS_MAX), and how many there are in all. */
export type SpaceOptions = Loaded<SpaceOption[]> & { totalCount: number | null };

/** The spaces the key can read, for a Space dropdown or space checkboxes: every page of them, in
 *  the API's order, following the connection's cursor (a page holds at most 100). */
export function useSpaceOptions(): SpaceOptions {
  const { api } = useSession();
  const loaded = useLoad(async () => {
    const spaces: SpaceOption[] = [];
    let after: string | null = null;
    let totalCount = 0;
    for (;;) {
      const page: SpaceOptionsQuery["spaces"] = (await api.request(SpaceOptionsDocument, { after })).spaces;
      spaces.push(...page.edges.map(({ node }) => node));
      totalCount = page.totalCount;
      after = page.pageInfo.endCursor ?? null;
      if (!page.pageInfo.hasNextPage || after === null || page.edges.length === 0 || spaces.length >= SPACE_OPTIONS_MAX) break;
    }
    return { spaces: spaces.slice(0, SPACE_OPTIONS_MAX), totalCount };
  }, []);
  return { ...loaded, data: loaded.data?.spaces ?? null, totalCount: loaded.data?.totalCount ?? null };
}

/** Said under a picker that could not offer every space (more than SPACE_OPTIONS_MAX). */
export function SpaceOptionsNote({ spaces }: { spaces: SpaceOptions }) {
  const listed = spaces.data?.length ?? 0;
  if (spaces.totalCount === null || spaces.totalCount <= listed) return null;
  return (
    <p class="hint" role="status">
      Only the first {listed.toLocaleString()} of {spaces.totalCount.toLocaleString()} spaces are offered here.
    </p>
  );
}

/** Said next to a Space dropdown (or space checkboxes) whose spaces could not be loaded, with a Try
 *  again that loads them: an empty dropdown alone does not say why it is empty. Pages whose own load
 *  is shown beside the dropdown put the spaces in their LoadErrors instead (one message) and show
 *  SpaceOptionsNote beside it. */
export function SpaceOptionsError({ spaces }: { spaces: SpaceOptions }) {
  return (
    <>
      <LoadError error={spaces.error && `The spaces could not be loaded: ${spaces.error}`} retry={spaces.reload} />
      <SpaceOptionsNote spaces={spaces} />
    </>
  );
}

function useDebounced<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), delayMs);
    return () => window.clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

type Scope = "" | "global" | "bound";

/** The filters live in the address (?search=&type=&status=&binding=&space=): a filtered list can be bookmarked. */
function useFilterParam<T extends string>(name: string): [T, (value: T) => void] {
  const [value, setValue] = useState<T>((useSearchParam(name) ?? "") as T);
  const update = (next: T) => {
    setValue(next);
    const params = new URLSearchParams(window.location.search);
    if (next) params.set(name, next);
    else params.delete(name);
    const query = params.toString();
    window.history.replaceState(null, "", `${window.location.pathname}${query ? `?${query}` : ""}`);
  };
  return [value, update];
}

function ToolList() {
  const { api, can } = useSession();
  const spaces = useSpaceOptions();
  const [search, setSearch] = useFilterParam<string>("search");
  const [type, setType] = useFilterParam<ToolType | "">("type");
  const [status, setStatus] = useFilterParam<Status | "">("status");
  const [scope, setScope] = useFilterParam<Scope>("binding");
  const [spaceId, setSpaceId] = useFilterParam<string>("space");
  const query = useDebounced(search.trim(), 250);
  const filter = {
    search: query || null,
    type: type || null,
    status: status || null,
    isGlobal: scope === "" ? null : scope === "global",
  };
  const filterKey = JSON.stringify([filter, spaceId]);
  const pages = useCursorPages(filterKey);
  const tools = useLoad(async () => {
    if (spaceId) {
      const data = await api.request(SpaceToolsDocument, { spaceId, first: PAGE_SIZE, after: pages.after, filter });
      if (!data.space) throw new Error(`Space ${spaceId} is not visible to this key.`);
      return data.space.visibleTools;
    }
    return (await api.request(ToolsDocument, { first: PAGE_SIZE, after: pages.after, filter })).tools;
  }, [filterKey, pages.after]);
  const connection = tools.data;

  return (
    <>
      <PageHeader title="Tools">
        {can.manageSome && (
          <Link class="button primary" to="/tools/new">
            Create tool
          </Link>
        )}
      </PageHeader>
      <form class="filters" role="search" aria-label="Filter tools" onSubmit={(event) => event.preventDefault()}>
        <TextField label="Search" name="search" value={search} onInput={setSearch} placeholder="name, label or description" />
        <SelectField
          label="Type"
          name="type"
          value={type}
          onChange={setType}
          options={[["", "Any type"], ["BUILTIN", "Builtin"], ["CUSTOM", "Custom (HTTP)"], ["MCP", "MCP"]]}
        />
        <SelectField
          label="Status"
          name="status"
          value={status}
          onChange={setStatus}
          options={[["", "Any status"], ["ACTIVE", "Active"], ["DISABLED", "Disabled"], ["ARCHIVED", "Archived"]]}
        />
        <SelectField
          label="Space"
          name="space"
          value={spaceId}
          onChange={setSpaceId}
          options={[["", can.admin ? "Every space" : "My space"], ...spaceChoices(spaces.data)]}
          hint={spaceId ? "Tools visible in this space." : undefined}
        />
        <SelectField
          label="Binding"
          name="scope"
          value={scope}
          onChange={setScope}
          options={[["", "Global and bound"], ["global", "Global only"], ["bound", "Bound only"]]}
        />
      </form>
      <LoadErrors loads={[spaces, tools]} />
      <SpaceOptionsNote spaces={spaces} />
      {connection && (
        <div aria-busy={tools.loading}>
          <table class="tools">
            <caption class="sr-only">Tools</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Label</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Visible in</th>
              </tr>
            </thead>
            <tbody>
              {connection.edges.map(({ node }) => (
                <ToolRow key={node.id} tool={node} />
              ))}
            </tbody>
          </table>
          {connection.edges.length === 0 && <p class="empty">No tool matches.</p>}
          <Pager label="Tools" pages={pages} pageSize={PAGE_SIZE} connection={connection} />
        </div>
      )}
    </>
  );
}

function ToolRow({ tool }: { tool: ToolRowFragment }) {
  return (
    <tr>
      <td>
        <Link to={`/tools/${encodeURIComponent(tool.id)}`}>{tool.name}</Link>
        {tool.driftedAt && (
          <>
            {" "}
            <Badge tone="bad">drifted</Badge>
          </>
        )}
      </td>
      <td>{tool.label}</td>
      <td>
        <Badge>{tool.type}</Badge>
      </td>
      <td>
        <Badge tone={statusTone(tool.status)}>{tool.status}</Badge>
      </td>
      <td>{visibility(tool)}</td>
    </tr>
  );
}

function visibility(tool: Pick<ToolRowFragment, "isGlobal" | "boundSpaces" | "mcpServer">): string {
  if (tool.isGlobal) return tool.mcpServer ? "every space (server is global)" : "every space (global)";
  const names = tool.boundSpaces.map((space) => space.name).join(", ");
  return tool.mcpServer ? `spaces of server ${tool.mcpServer.name}` : names || "bound";
}

type ToolDetail = NonNullable<ToolDetailQuery["tool"]>;

function ToolDetail({ id }: { id: string }) {
  const { api } = useSession();
  const detail = useLoad(() => api.request(ToolDetailDocument, { id }), [id]);
  const tool = detail.data?.tool;
  const saved = new URLSearchParams(window.location.search).get("saved");
  if (detail.data && !tool) {
    return (
      <>
        <PageHeader title="Tool not found" />
        <p>
          No tool <code>{id}</code> is visible to this key. <Link to="/tools">Back to Tools</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <PageHeader title={tool ? `Tool ${tool.name}` : "Tool"}>
        <Link class="button" to="/tools">
          All tools
        </Link>
        {tool?.type === "CUSTOM" && tool.viewerCanManage && (
          <Link class="button" to={`/tools/${encodeURIComponent(tool.id)}/edit`}>
            Edit tool
          </Link>
        )}
      </PageHeader>
      <LoadError error={detail.error} retry={detail.reload} />
      {saved && <Notice>Tool {saved === "created" ? "created" : "saved"}.</Notice>}
      {tool && (
        <>
          <StatusControl tool={tool} onChanged={detail.reload} />
          <section aria-labelledby="tool-definition">
            <h2 id="tool-definition">Definition</h2>
            <dl class="facts">
              <dt>Label</dt>
              <dd>{tool.label}</dd>
              <dt>Id</dt>
              <dd>
                <code>{tool.id}</code>
              </dd>
              <dt>Type</dt>
              <dd>{tool.type}</dd>
              <dt>Description</dt>
              <dd class="prose">{tool.description}</dd>
              {tool.endpoint && (
                <>
                  <dt>Endpoint</dt>
                  <dd>
                    <code>{tool.endpoint}</code>
                  </dd>
                </>
              )}
              <dt>Credentials</dt>
              <dd>{tool.authType === "NONE" ? "none" : `${tool.authType} (secret stored, never shown)`}</dd>
              <dt>Side effect</dt>
              <dd>{tool.sideEffect}</dd>
              <dt>Version</dt>
              <dd>{tool.version}</dd>
              <dt>Owner</dt>
              <dd>{tool.owner ?? "—"}</dd>
              <dt>Tags</dt>
              <dd>{tool.tags.length ? tool.tags.join(", ") : "—"}</dd>
              <dt>Group</dt>
              <dd>{tool.group ?? "—"}</dd>
              {tool.driftedAt && (
                <>
                  <dt>Drift</dt>
                  <dd>
                    <Badge tone="bad">drifted</Badge> the MCP server changed its description or schema on {when(tool.driftedAt)}.
                    Re-activating the tool accepts the change.
                  </dd>
                </>
              )}
            </dl>
          </section>
          <section aria-labelledby="tool-policies">
            <h2 id="tool-policies">Policies</h2>
            <dl class="facts">
              <dt>Timeout</dt>
              <dd>{tool.timeoutMs.toLocaleString()} ms per attempt</dd>
              <dt>Retries</dt>
              <dd>
                {tool.maxRetries} {tool.sideEffect === "WRITE" ? "(only with an idempotency key)" : ""}
              </dd>
              <dt>Allowed roles</dt>
              <dd>{tool.allowedRoles.length ? tool.allowedRoles.join(", ") : "every role"}</dd>
            </dl>
          </section>
          <Bindings tool={tool} onChanged={detail.reload} />
          <section aria-labelledby="tool-stats">
            <h2 id="tool-stats">Calls</h2>
            <dl class="facts">
              <dt>Calls</dt>
              <dd>{tool.stats.calls.toLocaleString()}</dd>
              <dt>Failures</dt>
              <dd>{tool.stats.failures.toLocaleString()}</dd>
              <dt>p50 latency</dt>
              <dd>{ms(tool.stats.p50LatencyMs)}</dd>
              <dt>p95 latency</dt>
              <dd>{ms(tool.stats.p95LatencyMs)}</dd>
              <dt>Last call</dt>
              <dd>{when(tool.stats.lastCalledAt)}</dd>
            </dl>
            <FailuresByCode value={tool.stats.failuresByCode} />
          </section>
          <section aria-labelledby="tool-schemas">
            <h2 id="tool-schemas">Schemas</h2>
            <h3>Input schema</h3>
            <JsonBlock label="Input schema" value={tool.inputSchema} />
            <h3>Output schema</h3>
            <JsonBlock label="Output schema" value={tool.outputSchema} />
          </section>
          <TryTool tool={tool} />
        </>
      )}
    </>
  );
}

function FailuresByCode({ value }: { value: unknown }) {
  const entries = value && typeof value === "object" ? Object.entries(value as Record<string, number>) : [];
  if (!entries.length) return <p class="muted">No failures.</p>;
  return (
    <table class="compact">
      <caption>Failures by code</caption>
      <thead>
        <tr>
          <th scope="col">Code</th>
          <th scope="col">Failures</th>
        </tr>
      </thead>
      <tbody>
        {entries.map(([code, count]) => (
          <tr key={code}>
            <td>
              <code>{code}</code>
            </td>
            <td>{count}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function StatusControl({ tool, onChanged }: { tool: ToolDetail; onChanged: () => void }) {
  const { api } = useSession();
  const mutation = useMutation();
  const change = async (status: Status) => {
    const payload = await mutation.run(async () => (await api.request(SetStatusDocument, { input: { id: tool.id, status } })).setStatus);
    if (payload) onChanged();
  };
  return (
    <div class="status-line">
      <span>
        Status <Badge tone={statusTone(tool.status)}>{tool.status}</Badge>
      </span>
      {tool.viewerCanManage && tool.status !== "ACTIVE" && (
        <button type="button" onClick={() => change("ACTIVE")} disabled={mutation.busy}>
          {tool.driftedAt ? "Re-activate tool" : "Enable tool"}
        </button>
      )}
      {tool.viewerCanManage && tool.status === "ACTIVE" && (
        <button type="button" onClick={() => change("DISABLED")} disabled={mutation.busy}>
          Disable tool
        </button>
      )}
      <FormErrors errors={mutation.errors} fields={[]} />
    </div>
  );
}

function Bindings({ tool, onChanged }: { tool: ToolDetail; onChanged: () => void }) {
  const { api, can } = useSession();
  const spaces = useSpaceOptions();
  const server = tool.mcpServer;
  // MCP tools inherit their server's bindings: the editor changes the server's.
  const current = (server ? server.boundSpaces : tool.boundSpaces).map((space) => space.id);
  const [selected, setSelected] = useState<string[]>(current);
  useEffect(() => setSelected(current), [current.join(",")]);
  const mutation = useMutation();
  const [saved, setSaved] = useState(false);
  const isGlobal = server ? server.isGlobal : tool.isGlobal;
  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const payload = await mutation.run(
      async () =>
        (await api.request(SetSpaceBindingsDocument, { input: { id: server ? server.id : tool.id, spaceIds: selected } }))
          .setSpaceBindings,
    );
    if (payload) {
      setSaved(true);
      onChanged();
    }
  };
  const boundNames = (server ? server.boundSpaces : tool.boundSpaces).map((space) => space.label).join(", ");
  return (
    <section aria-labelledby="tool-bindings">
      <h2 id="tool-bindings">Bindings</h2>
      <p>
        {isGlobal ? (
          <>
            <Badge>global</Badge> no binding row: every space sees this tool
          </>
        ) : (
          <>
            <Badge tone="busy">bound</Badge> only these spaces see it: {boundNames}
          </>
        )}
        {server && (
          <>
            {" "}
            — inherited from MCP server <strong>{server.name}</strong>
          </>
        )}
        .
      </p>
      {can.admin && (
        <form class="card form" onSubmit={save} aria-label={server ? `Bindings of MCP server ${server.name}` : "Bindings"}>
          <CheckboxGroup
            legend={server ? `Spaces bound to MCP server ${server.name}` : "Bound spaces (none checked: global)"}
            name="spaceIds"
            options={(spaces.data ?? []).map((space) => ({ value: space.id, label: `${space.label} (${space.name})` }))}
            selected={selected}
            onChange={setSelected}
            errors={mutation.errors}
          />
          <SpaceOptionsError spaces={spaces} />
          <FormErrors errors={mutation.errors} fields={["spaceIds"]} />
          <div class="buttons">
            <button type="submit" disabled={mutation.busy}>
              Save bindings
            </button>
            {saved && <span role="status">Bindings saved.</span>}
          </div>
        </form>
      )}
    </section>
  );
}

function TryTool({ tool }: { tool: ToolDetail }) {
  const { api, can, viewer } = useSession();
  const spaces = useSpaceOptions();
  const [spaceId, setSpaceId] = useState(viewer.space?.id ?? "");
  const [argumentsText, setArgumentsText] = useState("{}");
  const [result, setResult] = useState<InvokeToolMutation["invokeTool"] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!can.invoke || tool.status !== "ACTIVE") return null;
  const choices = spaceChoices(spaces.data);
  const submit = async (event: Event) => {
    event.preventDefault();
    const parsed = parseJson(argumentsText);
    if (parsed.problem) {
      setProblem(parsed.problem);
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      const data = await api.request(InvokeToolDocument, {
        input: { spaceId: spaceId || choices[0]?.[0] || "", toolId: tool.id, arguments: parsed.value ?? {} },
      });
      setResult(data.invokeTool);
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="tool-try">
      <h2 id="tool-try">Try it</h2>
      <form class="card form" onSubmit={submit}>
        {can.admin && <SelectField label="Call in space" name="spaceId" value={spaceId} onChange={setSpaceId} options={choices} />}
        {can.admin && <SpaceOptionsError spaces={spaces} />}
        <Field label="Arguments (JSON)" name="arguments" errors={problem ? [{ field: ["arguments"], code: "JSON", message: problem }] : []}>
          {(props) => (
            <textarea {...props} class="mono" rows={4} value={argumentsText} onInput={(event) => setArgumentsText(event.currentTarget.value)} />
          )}
        </Field>
        <div class="buttons">
          <button type="submit" disabled={busy}>
            Call tool
          </button>
        </div>
      </form>
      {result && (
        <div class="result" role="status">
          <p>
            <Badge tone={statusTone(result.status)}>{result.status}</Badge> in {ms(result.latencyMs)} · trace <code>{result.traceId}</code>
          </p>
          {result.error ? (
            <p>
              <code>{result.error.code}</code> {result.error.message}
            </p>
          ) : (
            <JsonBlock label="Result" value={result.data} />
          )}
        </div>
      )}
    </section>
  );
}

function EditTool({ id }: { id: string }) {
  const { api } = useSession();
  const detail = useLoad(() => api.request(ToolDetailDocument, { id }), [id]);
  if (detail.error) return <LoadError error={detail.error} retry={detail.reload} />;
  if (!detail.data) return <p aria-busy="true">Loading…</p>;
  if (!detail.data.tool) return <p>No tool {id} is visible to this key.</p>;
  return <ToolForm tool={detail.data.tool} />;
}

const AUTH_TYPES: readonly (readonly [AuthType, string])[] = [
  ["NONE", "None"],
  ["BEARER", "Bearer token"],
  ["API_KEY", "API key header"],
  ["HEADER", "Custom header"],
  ["OAUTH_CLIENT_CREDENTIALS", "OAuth client credentials"],
];

const EXAMPLE_SCHEMA = pretty({
  type: "object",
  properties: { orderId: { type: "string", description: "The order number." } },
  required: ["orderId"],
});

/** Checks a JSON Schema text as the server will: JSON, an object, `type: object` for inputs. */
function schemaProblem(text: string, isInput: boolean): string | null {
  const parsed = parseJson(text);
  if (parsed.problem) return parsed.problem;
  if (parsed.value === null) return isInput ? "An input schema is required." : null;
  if (typeof parsed.value !== "object" || Array.isArray(parsed.value)) return "A JSON Schema is a JSON object.";
  if (isInput && (parsed.value as { type?: unknown }).type !== "object") return 'The input schema must have "type": "object".';
  return null;
}

function ToolForm({ tool }: { tool: ToolDetail | null }) {
  const { api, can, viewer } = useSession();
  const spaces = useSpaceOptions();
  const isNew = tool === null;
  const [name, setName] = useState(tool?.name ?? "");
  const [label, setLabel] = useState(tool?.label ?? "");
  const [description, setDescription] = useState(tool?.description ?? "");
  const [inputSchema, setInputSchema] = useState(tool ? pretty(tool.inputSchema) : EXAMPLE_SCHEMA);
  const [outputSchema, setOutputSchema] = useState(tool?.outputSchema ? pretty(tool.outputSchema) : "");
  const [endpoint, setEndpoint] = useState(tool?.endpoint ?? "");
  const [authType, setAuthType] = useState<AuthType>(tool?.authType ?? "NONE");
  const [headerName, setHeaderName] = useState("");
  const [secret, setSecret] = useState("");
  const [tokenUrl, setTokenUrl] = useState("");
  const [clientId, setClientId] = useState("");
  const [sideEffect, setSideEffect] = useState<SideEffect>(tool?.sideEffect ?? "READ");
  const [timeoutMs, setTimeoutMs] = useState(tool ? String(tool.timeoutMs) : "");
  const [maxRetries, setMaxRetries] = useState(tool ? String(tool.maxRetries) : "");
  const [tags, setTags] = useState(tool?.tags.join(", ") ?? "");
  const [group, setGroup] = useState(tool?.group ?? "");
  const [allowedRoles, setAllowedRoles] = useState<string[]>(tool?.allowedRoles ?? []);
  const [version, setVersion] = useState(tool?.version ?? "");
  const [owner, setOwner] = useState(tool?.owner ?? "");
  const [spaceIds, setSpaceIds] = useState<string[]>(!can.admin && viewer.space ? [viewer.space.id] : []);
  const mutation = useMutation();
  const inputProblem = useMemo(() => schemaProblem(inputSchema, true), [inputSchema]);
  const outputProblem = useMemo(() => schemaProblem(outputSchema, false), [outputSchema]);
  if (!can.manageSome) return <p>This key cannot create or change tools.</p>;

  const localErrors = [
    ...(inputProblem ? [{ field: ["input", "inputSchema"], code: "INVALID_JSON", message: inputProblem }] : []),
    ...(outputProblem ? [{ field: ["input", "outputSchema"], code: "INVALID_JSON", message: outputProblem }] : []),
  ];
  const errors = [...localErrors, ...mutation.errors.filter((error) => !localErrors.some((local) => local.field.join() === error.field?.join()))];
  const credentialsTouched = isNew || authType !== tool?.authType || secret !== "" || headerName !== "" || tokenUrl !== "" || clientId !== "";

  const submit = async (event: Event) => {
    event.preventDefault();
    if (localErrors.length) return;
    const auth = credentialsTouched
      ? {
          type: authType,
          headerName: headerName || null,
          secret: secret || null,
          tokenUrl: tokenUrl || null,
          clientId: clientId || null,
        }
      : null;
    const common = {
      label,
      description,
      inputSchema: parseJson(inputSchema).value,
      outputSchema: parseJson(outputSchema).value,
      endpoint,
      sideEffect,
      timeoutMs: timeoutMs ? Number(timeoutMs) : null,
      maxRetries: maxRetries ? Number(maxRetries) : null,
      tags: tags.split(",").map((tag) => tag.trim()).filter(Boolean),
      group: group || (isNew ? null : ""),
      allowedRoles: allowedRoles as Role[],
      version: version || null,
      owner: owner || (isNew ? null : ""),
    };
    if (isNew) {
      const input: CreateToolInput = { ...common, name, auth, spaceIds: spaceIds.length ? spaceIds : null };
      const payload = await mutation.run(async () => (await api.request(CreateToolDocument, { input })).createTool);
      if (payload?.tool) navigate(href(`/tools/${encodeURIComponent(payload.tool.id)}?saved=created`));
    } else {
      const input: UpdateToolInput = { ...common, id: tool.id, auth };
      const payload = await mutation.run(async () => (await api.request(UpdateToolDocument, { input })).updateTool);
      if (payload?.tool) navigate(href(`/tools/${encodeURIComponent(payload.tool.id)}?saved=updated`));
    }
    setSecret("");
  };

  const fieldNames = [
    "name", "label", "description", "inputSchema", "outputSchema", "endpoint", "auth", "auth.type", "auth.headerName", "auth.secret",
    "auth.tokenUrl", "auth.clientId", "sideEffect", "timeoutMs", "maxRetries", "tags", "group", "allowedRoles", "version", "owner", "spaceIds",
  ];
  return (
    <>
      <PageHeader title={isNew ? "Create tool" : `Edit tool ${tool.name}`} />
      <EditForm
        wide
        noValidate
        onSubmit={submit}
        mutation={mutation}
        fields={fieldNames}
        submitLabel={isNew ? "Create tool" : "Save tool"}
        cancel={isNew ? "/tools" : `/tools/${encodeURIComponent(tool.id)}`}
      >
        <p class="hint">A CUSTOM tool is an HTTP endpoint Quiver POSTs the arguments to, with the stored credentials.</p>
        {isNew ? (
          <TextField label="Name" name="name" value={name} onInput={setName} errors={errors} hint="For the model: ^[a-zA-Z0-9_-]{1,64}$, unique where it is visible." />
        ) : (
          <p>
            Name <code>{tool.name}</code> (fixed)
          </p>
        )}
        <TextField label="Label" name="label" value={label} onInput={setLabel} errors={errors} />
        <TextAreaField label="Description" name="description" value={description} onInput={setDescription} errors={errors} rows={3} hint="Written for the model: what it does, when to use it, when not to." />
        <TextField label="Endpoint" name="endpoint" value={endpoint} onInput={setEndpoint} errors={errors} type="url" placeholder="https://…" />
        <TextAreaField label="Input schema" name="inputSchema" value={inputSchema} onInput={setInputSchema} errors={errors} rows={10} mono hint='JSON Schema 2020-12 of the arguments, with "type": "object".' />
        <TextAreaField label="Output schema" name="outputSchema" value={outputSchema} onInput={setOutputSchema} errors={errors} rows={5} mono hint="Optional JSON Schema of the result." />
        <fieldset>
          <legend>Credentials</legend>
          {!isNew && tool.authType !== "NONE" && (
            <p class="hint">
              A {tool.authType} secret is stored and never shown. Leave these fields alone to keep it; credentials are replaced as a whole.
            </p>
          )}
          <SelectField label="Authentication" name="auth.type" value={authType} onChange={setAuthType} options={AUTH_TYPES} errors={errors} />
          {(authType === "API_KEY" || authType === "HEADER") && (
            <TextField label="Header name" name="auth.headerName" value={headerName} onInput={setHeaderName} errors={errors} />
          )}
          {authType === "OAUTH_CLIENT_CREDENTIALS" && (
            <>
              <TextField label="Token URL" name="auth.tokenUrl" value={tokenUrl} onInput={setTokenUrl} errors={errors} type="url" />
              <TextField label="Client id" name="auth.clientId" value={clientId} onInput={setClientId} errors={errors} />
            </>
          )}
          {authType !== "NONE" && (
            <TextField
              label="Secret"
              name="auth.secret"
              value={secret}
              onInput={setSecret}
              errors={errors}
              type="password"
              autoComplete="new-password"
              hint={isNew ? "Write-only: stored encrypted, never shown again." : "Write-only: type a new secret to replace the stored one."}
            />
          )}
        </fieldset>
        <fieldset>
          <legend>Policies</legend>
          <SelectField label="Side effect" name="sideEffect" value={sideEffect} onChange={setSideEffect} errors={errors} options={[["READ", "READ (safe to retry)"], ["WRITE", "WRITE (retried only with an idempotency key)"]]} />
          <TextField label="Timeout (ms)" name="timeoutMs" value={timeoutMs} onInput={setTimeoutMs} errors={errors} type="number" placeholder="10000" />
          <TextField label="Max retries" name="maxRetries" value={maxRetries} onInput={setMaxRetries} errors={errors} type="number" placeholder="1" />
          <CheckboxGroup legend="Allowed roles (none checked: every role)" name="allowedRoles" options={ROLES.map((role) => ({ value: role, label: role }))} selected={allowedRoles} onChange={setAllowedRoles} errors={errors} />
        </fieldset>
        <fieldset>
          <legend>Catalog</legend>
          <TextField label="Tags" name="tags" value={tags} onInput={setTags} errors={errors} hint="Comma-separated." />
          <TextField label="Group" name="group" value={group} onInput={setGroup} errors={errors} />
          <TextField label="Version" name="version" value={version} onInput={setVersion} errors={errors} placeholder="1.0.0" />
          <TextField label="Owner" name="owner" value={owner} onInput={setOwner} errors={errors} />
        </fieldset>
        {isNew && can.admin && (
          <CheckboxGroup
            legend="Bind to spaces (none checked: global)"
            name="spaceIds"
            options={(spaces.data ?? []).map((space) => ({ value: space.id, label: `${space.label} (${space.name})` }))}
            selected={spaceIds}
            onChange={setSpaceIds}
            errors={errors}
          />
        )}
        {isNew && can.admin && <SpaceOptionsError spaces={spaces} />}
      </EditForm>
    </>
  );
}
