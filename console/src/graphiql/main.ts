// GraphiQL served by Quiver itself: every asset comes from the package, none from a CDN.
//
// It uses the key the console signed in with (same origin, same localStorage entry) and asks
// for one before anything else when there is none, so the schema is fetched only once a key is
// set, and again whenever the key changes. The key goes on every HTTP request and in the
// graphql-transport-ws connection_init payload; subscriptions run over that WebSocket.
import "graphiql/style.css";
import "./graphiql.css";

import { createGraphiQLFetcher, type Fetcher } from "@graphiql/toolkit";
import { GraphiQL } from "graphiql";
import { type DocumentNode, getOperationAST, parse } from "graphql";
import { createClient } from "graphql-ws";
import { createElement } from "react";
import { createRoot, type Root } from "react-dom/client";

import { authorization, checkKey, GRAPHQL_PATH, websocketUrl } from "../api";
import { forgetKey, KEY_STORAGE, storedKey, storeKey } from "../keystore";

const DEFAULT_QUERY = `# Quiver's GraphQL API. The key you signed in with is sent on every request
# and in the WebSocket's connection_init, so subscriptions work here too.

query WhoAmI {
  viewer { role keyId keyLabel space { id name } }
}

# subscription LiveCalls {
#   toolCalls { id toolId status latencyMs space { name } }
# }
`;

const container = document.getElementById("graphiql-root") as HTMLElement;
let root: Root | null = null;
let disposeSocket: (() => void) | null = null;

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, string | boolean> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

function unmount(): void {
  root?.unmount();
  root = null;
  disposeSocket?.();
  disposeSocket = null;
  container.replaceChildren();
}

/** The key form: shown when no key is stored or the stored one was refused. */
function askForKey(reason: string | null): void {
  unmount();
  const input = element("input", { id: "api-key", type: "password", name: "apiKey", autocomplete: "current-password", required: true });
  const problem = element("p", { className: "key-error", id: "api-key-error" });
  problem.setAttribute("role", "alert");
  if (reason) problem.textContent = reason;
  input.setAttribute("aria-describedby", "api-key-error");
  const form = element(
    "form",
    { className: "key-form" },
    element("h1", {}, "Quiver GraphiQL"),
    element("p", {}, "GraphiQL needs an API key before it can load the schema. The console at ", element("a", { href: "/console" }, "/console"), " shares it."),
    element("label", { htmlFor: "api-key" }, "API key"),
    input,
    problem,
    element("button", { type: "submit" }, "Sign in"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) {
      problem.textContent = "Enter an API key.";
      return;
    }
    const verdict = await checkKey(key).catch(() => ({ ok: false as const, reason: "Quiver cannot be reached." }));
    if (!verdict.ok) {
      problem.textContent = `This key was refused: ${verdict.reason}`;
      return;
    }
    storeKey(key);
    mount(key);
  });
  container.append(element("main", { className: "key-page" }, form));
  input.focus();
}

function parsed(query: string): DocumentNode | null {
  try {
    return parse(query);
  } catch {
    return null;
  }
}

/**
 * GraphiQL's fetcher, deciding HTTP or WebSocket from the text it is asked to run.
 *
 * The toolkit's fetcher sends an operation over the WebSocket only when the document GraphiQL
 * passes along says it is a subscription. That document (and the operation name) is what the
 * editor last parsed, 100 ms after the last keystroke: run before then (or on a busy machine,
 * when the timer is late) and a subscription just typed went over HTTP with the previous
 * text's operation name, refused with SUBSCRIPTION_OVER_HTTP. So the query is parsed here, the
 * operation name kept only if the text has that operation (else the text's only operation is
 * run), and the toolkit decides from this document. Text that does not parse goes over HTTP,
 * where the server says what is wrong with it.
 */
function textFetcher(inner: Fetcher): Fetcher {
  return (params, options) => {
    const document = parsed(params.query);
    if (document === null) return inner(params, { ...options, documentAST: undefined });
    const named = params.operationName ? getOperationAST(document, params.operationName) : null;
    const operation = named ?? getOperationAST(document);
    const operationName = operation ? (operation.name?.value ?? null) : params.operationName;
    return inner({ ...params, operationName }, { ...options, documentAST: document });
  };
}

function mount(key: string): void {
  unmount();
  const socket = createClient({ url: websocketUrl(), connectionParams: authorization(key), lazy: true });
  disposeSocket = () => void socket.dispose();
  const fetcher = textFetcher(createGraphiQLFetcher({ url: GRAPHQL_PATH, headers: authorization(key), wsClient: socket }));
  const bar = element(
    "header",
    { className: "key-bar" },
    element("strong", {}, "Quiver GraphiQL"),
    element("span", {}, "Signed in with the console's API key."),
    element("a", { href: "/console" }, "Console"),
  );
  const other = element("button", { type: "button" }, "Use another key");
  other.addEventListener("click", () => askForKey(null));
  const signOut = element("button", { type: "button" }, "Sign out");
  signOut.addEventListener("click", () => {
    forgetKey(null);
    askForKey(null);
  });
  bar.append(other, signOut);
  const editor = element("div", { className: "graphiql-host" });
  container.append(bar, editor);
  root = createRoot(editor);
  root.render(createElement(GraphiQL, { fetcher, defaultQuery: DEFAULT_QUERY }));
}

async function start(): Promise<void> {
  const key = storedKey();
  if (!key) {
    askForKey(null);
    return;
  }
  const verdict = await checkKey(key).catch(() => ({ ok: false as const, reason: "Quiver cannot be reached." }));
  if (verdict.ok) mount(key);
  else askForKey(`The saved key was refused: ${verdict.reason}`);
}

// Signed in or out in the console (another tab): follow it.
window.addEventListener("storage", (event) => {
  if (event.key === KEY_STORAGE) void start();
});

void start();
