// The signed-in session. The key is kept in localStorage (keystore.ts; GraphiQL reads the same entry),
// re-checked every few seconds so a revoked key signs the console out by itself.
import { createContext } from "preact";
import { useContext } from "preact/hooks";

import type { Api } from "./api";
import type { Role, ViewerQuery } from "./generated/graphql";

export { forgetKey, KEY_STORAGE, signedOutReason, storedKey, storeKey } from "./keystore";

/** How often the key is checked again; with the server's key cache (5 s) a revoked key is
 *  noticed within about 10 s, inside the 15 s the console promises. */
export const VIEWER_POLL_MS = 4000;

export type Viewer = ViewerQuery["viewer"];

export type Capabilities = {
  /** ADMIN: every space, spaces, MCP servers, bindings, global skills. */
  admin: boolean;
  /** May create and change the custom tools, skills, KBs and agents of some space. */
  manageSome: boolean;
  /** Calls tools and runs agents (every role but VIEWER). */
  invoke: boolean;
  /** May create and change things of this space. */
  manage: (spaceId: string | null | undefined) => boolean;
};

export function capabilities(viewer: Viewer): Capabilities {
  const role: Role = viewer.role;
  const own = viewer.space?.id ?? null;
  return {
    admin: role === "ADMIN",
    manageSome: role === "ADMIN" || role === "SPACE_ADMIN",
    invoke: role !== "VIEWER",
    manage: (spaceId) => role === "ADMIN" || (role === "SPACE_ADMIN" && spaceId != null && spaceId === own),
  };
}

export type Session = {
  api: Api;
  viewer: Viewer;
  can: Capabilities;
  signOut: (reason?: string) => void;
};

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error("useSession outside a signed-in console");
  return session;
}
