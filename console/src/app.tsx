// The shell: sign in, who the key is, the navigation, the page of the current path.
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";

import { Api, AuthError, checkKey } from "./api";
import { ViewerDocument } from "./generated/graphql";
import { AgentsPage } from "./pages/agents";
import { ApiKeysPage } from "./pages/apikeys";
import { ApprovalsPage, PendingApprovalsCount } from "./pages/approvals";
import { KnowledgePage } from "./pages/knowledge";
import { LiveCallsPage } from "./pages/live";
import { McpServersPage } from "./pages/mcp";
import { SkillsPage } from "./pages/skills";
import { SpacesPage } from "./pages/spaces";
import { ToolsPage } from "./pages/tools";
import { href, Link, navigate, usePath } from "./router";
import {
  capabilities,
  forgetKey,
  KEY_STORAGE,
  type Session,
  SessionContext,
  signedOutReason,
  storedKey,
  storeKey,
  VIEWER_POLL_MS,
  type Viewer,
} from "./session";
import { messageOf, PageHeader } from "./ui";

/** The navigation, named exactly as the pages are. */
export const PAGES = [
  { path: "/spaces", name: "Spaces" },
  { path: "/tools", name: "Tools" },
  { path: "/mcp-servers", name: "MCP servers" },
  { path: "/knowledge", name: "Knowledge" },
  { path: "/skills", name: "Skills" },
  { path: "/agents", name: "Agents" },
  { path: "/approvals", name: "Approvals" },
  { path: "/live-calls", name: "Live calls" },
  { path: "/api-keys", name: "API keys" },
] as const;

type State =
  | { kind: "checking" }
  | { kind: "signedOut"; reason: string | null }
  | { kind: "signedIn"; key: string; viewer: Viewer };

export function App() {
  const [state, setState] = useState<State>(() => {
    const key = storedKey();
    return key ? { kind: "checking" } : { kind: "signedOut", reason: signedOutReason() };
  });

  const signOut = useCallback((reason?: string) => {
    forgetKey(reason ?? null);
    setState({ kind: "signedOut", reason: reason ?? null });
  }, []);

  const signIn = useCallback(
    async (key: string) => {
      const api = new Api(key, (reason) => signOut(explain(reason)));
      const { viewer } = await api.request(ViewerDocument, {});
      api.close();
      storeKey(key);
      setState({ kind: "signedIn", key, viewer });
    },
    [signOut],
  );

  // A key remembered from an earlier visit: check it before showing anything.
  useEffect(() => {
    if (state.kind !== "checking") return;
    const key = storedKey();
    if (!key) {
      setState({ kind: "signedOut", reason: null });
      return;
    }
    signIn(key).catch((error: unknown) => {
      if (!(error instanceof AuthError)) setState({ kind: "signedOut", reason: messageOf(error) });
    });
  }, [state.kind, signIn]);

  // Signed out in another tab (or GraphiQL): follow it.
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key === KEY_STORAGE && event.newValue === null) signOut("You signed out in another window.");
    };
    window.addEventListener("storage", onStorage);
    return () => window.removeEventListener("storage", onStorage);
  }, [signOut]);

  if (state.kind === "checking") {
    return (
      <main class="signin" aria-busy="true">
        <p>Checking the saved API key…</p>
      </main>
    );
  }
  if (state.kind === "signedOut") return <SignIn reason={state.reason} onSignIn={signIn} />;
  return <Console key={state.key} apiKey={state.key} viewer={state.viewer} signOut={signOut} />;
}

function explain(serverReason: string): string {
  return `You were signed out because Quiver no longer accepts this API key (${serverReason.replace(/\.$/, "")}). It may have been revoked; sign in with another key.`;
}

function SignIn({ reason, onSignIn }: { reason: string | null; onSignIn: (key: string) => Promise<void> }) {
  const [key, setKey] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) {
      setProblem("Enter an API key.");
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      const verdict = await checkKey(trimmed);
      if (!verdict.ok) {
        setProblem(`This key was refused: ${verdict.reason}`);
        return;
      }
      await onSignIn(trimmed);
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin" id="main">
      <form class="card" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Quiver console</h1>
        <p class="hint">
          Sign in with an API key. <code>quiver serve</code> prints an ADMIN key on its first run;{" "}
          <code>quiver apikey create</code> makes more.
        </p>
        {reason && (
          <p class="signed-out" role="alert">
            {reason}
          </p>
        )}
        <div class={`field${problem ? " invalid" : ""}`}>
          <label for="api-key">API key</label>
          <input
            id="api-key"
            name="apiKey"
            type="password"
            autoComplete="current-password"
            value={key}
            aria-invalid={problem !== null}
            aria-describedby={problem ? "api-key-error" : undefined}
            onInput={(event) => setKey(event.currentTarget.value)}
            autoFocus
          />
          {problem && (
            <p class="field-error" id="api-key-error" role="alert">
              {problem}
            </p>
          )}
        </div>
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
        <p class="hint">
          <a href="/graphql">GraphiQL</a> uses the same key.
        </p>
      </form>
    </main>
  );
}

function Console({ apiKey, viewer: initial, signOut }: { apiKey: string; viewer: Viewer; signOut: (reason?: string) => void }) {
  const [viewer, setViewer] = useState(initial);
  const api = useMemo(() => new Api(apiKey, (reason) => signOut(explain(reason))), [apiKey, signOut]);
  useEffect(() => () => api.close(), [api]);

  // Poll `viewer`: a revoked key answers 401 and the Api signs the console out with the reason.
  useEffect(() => {
    const timer = window.setInterval(() => {
      api.request(ViewerDocument, {}).then(
        (data) => setViewer(data.viewer),
        () => undefined,
      );
    }, VIEWER_POLL_MS);
    return () => window.clearInterval(timer);
  }, [api]);

  const session: Session = useMemo(
    () => ({ api, viewer, can: capabilities(viewer), signOut }),
    [api, viewer, signOut],
  );
  const path = usePath();
  useEffect(() => {
    if (path === "") navigate(href("/spaces"), { replace: true });
  }, [path]);

  return (
    <SessionContext.Provider value={session}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <span class="brand">Quiver</span>
        <p class="who" aria-label="Signed in as">
          <span class="badge role">{viewer.role}</span>{" "}
          {viewer.space ? (
            <>
              space <strong>{viewer.space.label}</strong> <span class="muted">({viewer.space.name})</span>
            </>
          ) : (
            <>every space</>
          )}{" "}
          <span class="muted">
            · key {viewer.keyLabel ? `“${viewer.keyLabel}” ` : ""}
            <code>{viewer.keyId}</code>
          </span>
        </p>
        <a href="/graphql" class="graphiql-link">
          GraphiQL
        </a>
        <button type="button" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <div class="layout">
        <nav class="sidebar" aria-label="Pages">
          <ul>
            {PAGES.map((page) => (
              <li key={page.path}>
                <Link
                  to={page.path}
                  aria-current={path === page.path || path.startsWith(`${page.path}/`) ? "page" : undefined}
                >
                  {page.name}
                </Link>
                {page.path === "/approvals" && <PendingApprovalsCount />}
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" class="content">
          <Page path={path} />
        </main>
      </div>
    </SessionContext.Provider>
  );
}

function Page({ path }: { path: string }) {
  const [, section, ...rest] = path.split("/");
  const sub = rest.join("/");
  switch (section) {
    case "spaces":
      return <SpacesPage sub={sub} />;
    case "tools":
      return <ToolsPage sub={sub} />;
    case "mcp-servers":
      return <McpServersPage />;
    case "knowledge":
      return <KnowledgePage sub={sub} />;
    case "skills":
      return <SkillsPage sub={sub} />;
    case "agents":
      return <AgentsPage sub={sub} />;
    case "approvals":
      return <ApprovalsPage />;
    case "live-calls":
      return <LiveCallsPage />;
    case "api-keys":
      return <ApiKeysPage />;
    case undefined:
      return null;
    default:
      return (
        <>
          <PageHeader title="Not found" />
          <p>
            No page at <code>{href(path)}</code>. <Link to="/spaces">Go to Spaces</Link>.
          </p>
        </>
      );
  }
}
