// History-API routing under /console/: the server answers every /console/* path with the app.
import type { ComponentChildren, JSX } from "preact";
import { useEffect, useState } from "preact/hooks";

export const BASE = "/console";

// How many times the person went to another page (a link, a form that opens what it created,
// Back or Forward). Redirects (replace) are not counted, so this stays 0 on the page the
// console opened on.
let navigations = 0;

export function navigationCount(): number {
  return navigations;
}

export function navigate(to: string, { replace = false } = {}): void {
  if (replace) window.history.replaceState(null, "", to);
  else {
    navigations += 1;
    window.history.pushState(null, "", to);
  }
  window.dispatchEvent(new PopStateEvent("popstate"));
}

// Back and Forward: the browser's own popstate (the one navigate() dispatches is not trusted).
window.addEventListener("popstate", (event) => {
  if (event.isTrusted) navigations += 1;
});

/** The path below /console, without a trailing slash: "" for the home page. */
export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const onChange = () => setPath(currentPath());
    window.addEventListener("popstate", onChange);
    return () => window.removeEventListener("popstate", onChange);
  }, []);
  return path;
}

function currentPath(): string {
  const path = window.location.pathname;
  const below = path.startsWith(BASE) ? path.slice(BASE.length) : path;
  return below.replace(/\/+$/, "");
}

export function useSearchParam(name: string): string | null {
  usePath();
  return new URLSearchParams(window.location.search).get(name);
}

export function href(path: string): string {
  return `${BASE}${path}`;
}

type LinkProps = Omit<JSX.HTMLAttributes<HTMLAnchorElement>, "href"> & { to: string; children: ComponentChildren };

export function Link({ to, children, ...rest }: LinkProps) {
  return (
    <a
      {...rest}
      href={href(to)}
      onClick={(event) => {
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
        event.preventDefault();
        navigate(href(to));
      }}
    >
      {children}
    </a>
  );
}
