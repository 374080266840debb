// MCP servers: register one, sync it and read what changed, see drifted tools and re-activate them.
import { useState } from "preact/hooks";

import {
  type AuthType,
  type McpServersQuery,
  McpServersDocument,
  McpServerToolsDocument,
  type McpServerToolsQuery,
  type McpTransport,
  RegisterMcpServerDocument,
  SetStatusDocument,
  type Status,
  SyncMcpServerDocument,
  type SyncMcpServerMutation,
} from "../generated/graphql";
import { Link } from "../router";
import { useSession } from "../session";
import {
  Badge,
  EditForm,
  CheckboxGroup,
  FormErrors,
  LoadError,
  PageHeader,
  Pager,
  SelectField,
  statusTone,
  TextField,
  useCursorPages,
  useLoad,
  useMutation,
  when,
} from "../ui";
import { SpaceOptionsError, useSpaceOptions } from "./tools";

const PAGE_SIZE = 20;
/** The page size of mcp.graphql's McpServerTools. */
const TOOLS_PAGE_SIZE = 100;
type Server = McpServersQuery["mcpServers"]["edges"][number]["node"];
type ServerTools = Extract<NonNullable<McpServerToolsQuery["node"]>, { tools: unknown }>["tools"];
type Report = NonNullable<SyncMcpServerMutation["syncMcpServer"]["syncReport"]>;

export function McpServersPage() {
  const { api, can } = useSession();
  const pages = useCursorPages("mcp");
  const servers = useLoad(() => api.request(McpServersDocument, { first: PAGE_SIZE, after: pages.after }), [pages.after]);
  const [registering, setRegistering] = useState(false);
  const connection = servers.data?.mcpServers;
  return (
    <>
      <PageHeader title="MCP servers">
        {can.admin && !registering && (
          <button type="button" class="primary" onClick={() => setRegistering(true)}>
            Register MCP server
          </button>
        )}
      </PageHeader>
      {registering && (
        <RegisterServer
          onDone={(created) => {
            setRegistering(false);
            if (created) servers.reload();
          }}
        />
      )}
      <LoadError error={servers.error} retry={servers.reload} />
      {connection && connection.edges.length === 0 && <p class="empty">No MCP server is registered.</p>}
      {connection?.edges.map(({ node }) => (
        <ServerCard key={node.id} server={node} onChanged={servers.reload} />
      ))}
      {connection && connection.totalCount > PAGE_SIZE && (
        <Pager label="MCP servers" pages={pages} pageSize={PAGE_SIZE} connection={connection} />
      )}
    </>
  );
}

function ServerCard({ server, onChanged }: { server: Server; onChanged: () => void }) {
  const { api, can } = useSession();
  const sync = useMutation();
  const status = useMutation();
  const [report, setReport] = useState<Report | null>(null);
  // Each card loads its server's tools itself, a page at a time (see mcp.graphql).
  const toolPages = useCursorPages(`mcp-tools-${server.id}`);
  const toolsLoad = useLoad(() => api.request(McpServerToolsDocument, { id: server.id, after: toolPages.after }), [server.id, toolPages.after]);
  const tools: ServerTools | null = toolsLoad.data?.node && "tools" in toolsLoad.data.node ? toolsLoad.data.node.tools : null;
  const drifted = tools?.edges.filter(({ node }) => node.driftedAt) ?? [];
  const changed = () => {
    toolsLoad.reload();
    onChanged();
  };
  const runSync = async () => {
    setReport(null);
    const payload = await sync.run(async () => (await api.request(SyncMcpServerDocument, { id: server.id })).syncMcpServer);
    if (payload?.syncReport) setReport(payload.syncReport);
    changed();
  };
  const setStatus = async (id: string, value: Status) => {
    const payload = await status.run(async () => (await api.request(SetStatusDocument, { input: { id, status: value } })).setStatus);
    if (payload) changed();
  };
  const headingId = `server-${server.id}`;
  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {server.name} <Badge tone={statusTone(server.status)}>{server.status}</Badge> <Badge>{server.transport}</Badge>
        {drifted.length > 0 && <Badge tone="bad">{drifted.length} drifted</Badge>}
      </h2>
      <dl class="facts">
        <dt>Id</dt>
        <dd>
          <code>{server.id}</code>
        </dd>
        <dt>{server.url ? "URL" : "Command"}</dt>
        <dd>
          <code>{server.url ?? server.command?.join(" ")}</code>
        </dd>
        <dt>Visible in</dt>
        <dd>{server.isGlobal ? "every space (global)" : server.boundSpaces.map((space) => space.name).join(", ")}</dd>
        <dt>Last sync</dt>
        <dd>{when(server.lastSyncedAt)}</dd>
        {server.lastError && (
          <>
            <dt>Last error</dt>
            <dd class="error-text">{server.lastError}</dd>
          </>
        )}
      </dl>
      {can.admin && (
        <div class="buttons">
          <button type="button" onClick={runSync} disabled={sync.busy}>
            {sync.busy ? "Syncing…" : `Sync ${server.name}`}
          </button>
          {server.status === "ACTIVE" ? (
            <button type="button" onClick={() => setStatus(server.id, "DISABLED")} disabled={status.busy}>
              Disable server
            </button>
          ) : (
            <button type="button" onClick={() => setStatus(server.id, "ACTIVE")} disabled={status.busy}>
              Re-activate server
            </button>
          )}
        </div>
      )}
      <FormErrors errors={[...sync.errors, ...status.errors]} fields={[]} />
      {report && <SyncResult report={report} />}
      <h3>Tools{tools ? ` (${tools.totalCount})` : ""}</h3>
      <LoadError error={toolsLoad.error} retry={toolsLoad.reload} />
      <table class="compact">
        <caption class="sr-only">Tools of {server.name}</caption>
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Status</th>
            <th scope="col">Drift</th>
            {can.admin && <th scope="col">Action</th>}
          </tr>
        </thead>
        <tbody>
          {tools?.edges.map(({ node }) => (
            <tr key={node.id}>
              <td>
                <Link to={`/tools/${encodeURIComponent(node.id)}`}>{node.name}</Link>
              </td>
              <td>
                <Badge tone={statusTone(node.status)}>{node.status}</Badge>
              </td>
              <td>{node.driftedAt ? <Badge tone="bad">drifted {when(node.driftedAt)}</Badge> : "—"}</td>
              {can.admin && (
                <td>
                  {node.status !== "ACTIVE" && (
                    <button type="button" onClick={() => setStatus(node.id, "ACTIVE")} disabled={status.busy} aria-label={`Re-activate ${node.name}`}>
                      Re-activate
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {tools && tools.totalCount > TOOLS_PAGE_SIZE && (
        <Pager label={`Tools of ${server.name}`} pages={toolPages} pageSize={TOOLS_PAGE_SIZE} connection={tools} />
      )}
    </section>
  );
}

function SyncResult({ report }: { report: Report }) {
  const rows: [string, string[]][] = [
    ["Added", report.added],
    ["Changed", report.updated],
    ["Disabled", report.disabled],
    ["Drifted", report.drifted],
    ["Re-activated", report.reactivated],
    ["Vanished", report.vanished],
    ["Skipped", report.skipped],
  ];
  return (
    <div class="result" role="status" aria-label="Sync result">
      <p>
        Synced: {report.added.length} added, {report.updated.length} changed, {report.disabled.length} disabled,{" "}
        {report.unchanged.length} unchanged ({report.pages} page{report.pages === 1 ? "" : "s"}).
      </p>
      <dl class="facts">
        {rows
          .filter(([, ids]) => ids.length)
          .map(([name, ids]) => (
            <>
              <dt key={`${name}-t`}>{name}</dt>
              <dd key={`${name}-d`}>{ids.join(", ")}</dd>
            </>
          ))}
      </dl>
    </div>
  );
}

function RegisterServer({ onDone }: { onDone: (created: boolean) => void }) {
  const { api } = useSession();
  const spaces = useSpaceOptions();
  const [name, setName] = useState("");
  const [transport, setTransport] = useState<McpTransport>("STREAMABLE_HTTP");
  const [url, setUrl] = useState("");
  const [command, setCommand] = useState("");
  const [authType, setAuthType] = useState<AuthType>("NONE");
  const [headerName, setHeaderName] = useState("");
  const [secret, setSecret] = useState("");
  const [spaceIds, setSpaceIds] = useState<string[]>([]);
  const mutation = useMutation();
  const submit = async (event: Event) => {
    event.preventDefault();
    const payload = await mutation.run(
      async () =>
        (
          await api.request(RegisterMcpServerDocument, {
            input: {
              name,
              transport,
              url: transport === "STDIO" ? null : url,
              command: transport === "STDIO" ? command.split(/\s+/).filter(Boolean) : null,
              auth: authType === "NONE" ? null : { type: authType, headerName: headerName || null, secret: secret || null },
              spaceIds: spaceIds.length ? spaceIds : null,
            },
          })
        ).registerMcpServer,
    );
    if (payload) onDone(true);
  };
  return (
    <EditForm label="Register MCP server" onSubmit={submit} mutation={mutation} fields={["name", "transport", "url", "command", "auth", "auth.type", "auth.headerName", "auth.secret", "spaceIds"]} submitLabel="Register server" cancel={() => onDone(false)}>
      <TextField label="Name" name="name" value={name} onInput={setName} errors={mutation.errors} hint="^[a-zA-Z0-9_-]{1,64}$; tools are named {serverId}__{tool}." />
      <SelectField
        label="Transport"
        name="transport"
        value={transport}
        onChange={setTransport}
        errors={mutation.errors}
        options={[["STREAMABLE_HTTP", "Streamable HTTP"], ["SSE", "HTTP + SSE (older)"], ["STDIO", "Local process (stdio)"]]}
      />
      {transport === "STDIO" ? (
        <TextField label="Command" name="command" value={command} onInput={setCommand} errors={mutation.errors} hint="The program and its arguments, separated by spaces." />
      ) : (
        <TextField label="URL" name="url" value={url} onInput={setUrl} errors={mutation.errors} type="url" />
      )}
      <SelectField
        label="Authentication"
        name="auth.type"
        value={authType}
        onChange={setAuthType}
        errors={mutation.errors}
        options={[["NONE", "None"], ["BEARER", "Bearer token"], ["API_KEY", "API key header"], ["HEADER", "Custom header"]]}
      />
      {(authType === "API_KEY" || authType === "HEADER") && (
        <TextField label="Header name" name="auth.headerName" value={headerName} onInput={setHeaderName} errors={mutation.errors} />
      )}
      {authType !== "NONE" && (
        <TextField label="Secret" name="auth.secret" value={secret} onInput={setSecret} errors={mutation.errors} type="password" autoComplete="new-password" hint="Write-only: stored encrypted, never shown again." />
      )}
      <CheckboxGroup
        legend="Bind to spaces (none checked: global)"
        name="spaceIds"
        options={(spaces.data ?? []).map((space) => ({ value: space.id, label: `${space.label} (${space.name})` }))}
        selected={spaceIds}
        onChange={setSpaceIds}
        errors={mutation.errors}
      />
      <SpaceOptionsError spaces={spaces} />
    </EditForm>
  );
}
