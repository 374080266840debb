// Where the console and GraphiQL keep the API key: the same origin, the same entry.
export const KEY_STORAGE = "quiver.apiKey";
const REASON_STORAGE = "quiver.signedOutBecause";

export function storedKey(): string | null {
  return window.localStorage.getItem(KEY_STORAGE);
}

export function storeKey(key: string): void {
  window.localStorage.setItem(KEY_STORAGE, key);
  window.sessionStorage.removeItem(REASON_STORAGE);
}

export function forgetKey(reason: string | null): void {
  window.localStorage.removeItem(KEY_STORAGE);
  if (reason) window.sessionStorage.setItem(REASON_STORAGE, reason);
  else window.sessionStorage.removeItem(REASON_STORAGE);
}

export function signedOutReason(): string | null {
  return window.sessionStorage.getItem(REASON_STORAGE);
}
