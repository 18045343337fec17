// The per-launch access token of the loopback server, held by this tab only.
//
// `harnessdesk serve` prints a link `/?token=…`. The page takes the token from that link once,
// keeps it in sessionStorage (scoped to this origin, port included, and to this tab) and drops
// it from the address bar. It is never put in a cookie: cookies are not port-scoped, so a
// cookie for 127.0.0.1 would reach every other server on the machine's loopback
// (docs/threat-model.md). A reload keeps the token; a new tab needs the link again.

const KEY = "harnessdesk.token";

function storage(win) {
  try {
    return win.sessionStorage ?? null;
  } catch {
    return null; // storage disabled: the token lives as long as the page
  }
}

/** The token of the one-time link (then stored and removed from the URL), else the stored one. */
export function takeLinkToken(win = globalThis) {
  const store = storage(win);
  const href = win.location?.href;
  if (href) {
    const url = new URL(href);
    const fromLink = url.searchParams.get("token");
    if (fromLink) {
      store?.setItem(KEY, fromLink);
      url.searchParams.delete("token");
      win.history?.replaceState(win.history.state, "", `${url.pathname}${url.search}${url.hash}`);
      return fromLink;
    }
  }
  return store?.getItem(KEY) ?? null;
}
