// The console's only way to Quiver: the public GraphQL API, over HTTP and graphql-transport-ws.
import { type Client, createClient } from "graphql-ws";

import type { TypedDocumentString } from "./generated/graphql";

export const GRAPHQL_PATH = "/graphql";
// Strawberry closes a socket whose connection_init it refuses with 4403 (Forbidden).
const WS_FORBIDDEN = 4403;

export type UserError = { field: string[] | null; code: string; message: string };

/** The key was refused (401, or 4403 on the socket): the session is over. */
export class AuthError extends Error {}

/** Top-level GraphQL errors (a bad request, or a server fault): shown, never fatal. */
export class RequestError extends Error {
  constructor(
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

type GraphQLBody<R> = {
  data?: R | null;
  errors?: { message: string; extensions?: { code?: string } }[];
};

export function websocketUrl(path: string = GRAPHQL_PATH): string {
  const { protocol, host } = window.location;
  return `${protocol === "https:" ? "wss:" : "ws:"}//${host}${path}`;
}

export function authorization(key: string): { Authorization: string } {
  return { Authorization: `Bearer ${key}` };
}

/** Asks with a key: who is it? Null when refused, with the server's reason. */
export async function checkKey(key: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  const response = await fetch(GRAPHQL_PATH, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...authorization(key) },
    body: JSON.stringify({ query: "query CheckKey { viewer { keyId } }" }),
  });
  if (response.ok) return { ok: true };
  const body = (await response.json().catch(() => null)) as GraphQLBody<unknown> | null;
  return { ok: false, reason: body?.errors?.[0]?.message ?? `The server answered ${response.status}.` };
}

export type Sink<R> = {
  next: (data: R) => void;
  error?: (error: Error) => void;
  complete?: () => void;
};

/** "reconnecting": the socket dropped (a restart, a proxy, a sleeping laptop) and is being opened
 *  again; live views say so, and their subscriptions start again by themselves once it is back. */
export type SocketState = "connecting" | "connected" | "reconnecting" | "closed";

// Between attempts to reopen a dropped socket: 1, 2, 4, 8 s, then every 15 s (plus up to 1 s, so
// consoles do not all come back at once), for as long as it takes: a console left open on a
// wall screen must come back after an outage of any length, not give up after five tries.
const RETRY_CAP_MS = 15_000;
const RETRY_JITTER_MS = 1_000;
// Close codes after which graphql-ws does not retry (its isFatalInternalCloseCode and the
// protocol's own refusals): the state is then "closed", not "reconnecting".
const RETRIED_1XXX = [1001, 1005, 1006, 1012, 1013, 1014];
const FATAL_4XXX = [4004, 4005, 4400, 4401, 4406, 4409, 4429, 4500, WS_FORBIDDEN];

export class Api {
  private socket: Client | null = null;
  private socketState: SocketState = "closed";
  private readonly socketListeners = new Set<(state: SocketState) => void>();

  constructor(
    private readonly key: string,
    private readonly onAuthLost: (reason: string) => void,
  ) {}

  async request<R, V>(document: TypedDocumentString<R, V>, variables: V): Promise<R> {
    let response: Response;
    try {
      response = await fetch(GRAPHQL_PATH, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...authorization(this.key) },
        body: JSON.stringify({ query: document.toString(), variables }),
      });
    } catch {
      throw new RequestError("Quiver cannot be reached. Check that the server is running.", "NETWORK");
    }
    const body = (await response.json().catch(() => null)) as GraphQLBody<R> | null;
    if (response.status === 401) {
      const reason = body?.errors?.[0]?.message ?? "The API key was refused.";
      this.onAuthLost(reason);
      throw new AuthError(reason);
    }
    if (body?.errors?.length) {
      throw new RequestError(body.errors.map((error) => error.message).join(" "), body.errors[0].extensions?.code);
    }
    if (!response.ok || body?.data == null) {
      throw new RequestError(`The server answered ${response.status}.`);
    }
    return body.data;
  }

  /** A subscription over the shared socket; returns the function that ends it. */
  subscribe<R, V>(document: TypedDocumentString<R, V>, variables: V, sink: Sink<R>): () => void {
    return this.socketClient().subscribe<R>(
      { query: document.toString(), variables: variables as Record<string, unknown> },
      {
        next: (result) => {
          if (result.errors?.length) {
            const code = result.errors[0].extensions?.code;
            sink.error?.(
              new RequestError(
                result.errors.map((error) => error.message).join(" "),
                typeof code === "string" ? code : null,
              ),
            );
          } else if (result.data) {
            sink.next(result.data);
          }
        },
        error: (error) => sink.error?.(toError(error)),
        complete: () => sink.complete?.(),
      },
    );
  }

  /** Follows the shared WebSocket: called at once with its state, then on every change. */
  onSocketState(listener: (state: SocketState) => void): () => void {
    this.socketListeners.add(listener);
    listener(this.socketState);
    return () => this.socketListeners.delete(listener);
  }

  private setSocketState(state: SocketState): void {
    this.socketState = state;
    for (const listener of this.socketListeners) listener(state);
  }

  close(): void {
    void this.socket?.dispose();
    this.socket = null;
  }

  private socketClient(): Client {
    if (this.socket === null) {
      this.socket = createClient({
        url: websocketUrl(),
        connectionParams: authorization(this.key),
        lazy: true,
        retryAttempts: Number.POSITIVE_INFINITY,
        retryWait: (retries) =>
          new Promise((resolve) =>
            window.setTimeout(resolve, Math.min(1000 * 2 ** retries, RETRY_CAP_MS) + Math.random() * RETRY_JITTER_MS),
          ),
        shouldRetry: (event) => !isForbidden(event),
        on: {
          connecting: (isRetry) => this.setSocketState(isRetry ? "reconnecting" : "connecting"),
          connected: () => this.setSocketState("connected"),
          closed: (event) => {
            this.setSocketState(willRetry(event) ? "reconnecting" : "closed");
            if (isForbidden(event)) this.onAuthLost("The server refused the API key on the live connection.");
          },
        },
      });
    }
    return this.socket;
  }
}

function isForbidden(event: unknown): boolean {
  return typeof event === "object" && event !== null && (event as { code?: number }).code === WS_FORBIDDEN;
}

/** Whether graphql-ws opens the socket again after this close (a normal closure, 1000, is the
 *  client's own: the last subscription ended or the session closed). */
function willRetry(event: unknown): boolean {
  const code = typeof event === "object" && event !== null ? (event as { code?: unknown }).code : undefined;
  if (typeof code !== "number") return true;
  if (code >= 1000 && code <= 1999) return RETRIED_1XXX.includes(code);
  return !FATAL_4XXX.includes(code);
}

function toError(error: unknown): Error {
  if (error instanceof Error) return error;
  if (Array.isArray(error)) {
    return new RequestError(error.map((item: { message?: string }) => item.message ?? String(item)).join(" "));
  }
  if (typeof error === "object" && error !== null && "code" in error) {
    const event = error as { code: number; reason?: string };
    return new RequestError(`The live connection closed (${event.code}${event.reason ? `: ${event.reason}` : ""}).`);
  }
  return new RequestError(String(error));
}
