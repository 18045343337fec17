// The session open when the window last closed: opened again on the next start when the URL names
// none (docs/decisions.md, "Review and context, part 2"). The desktop window keeps page storage
// under the data dir, so this survives a restart there as in a browser tab.
const LAST_SESSION_KEY = "harnessdesk.lastSession";

/** The session open when the window last closed (kept in the page's storage, which the desktop
 * window keeps under the data dir). */
export function lastSession() {
  try {
    return localStorage.getItem(LAST_SESSION_KEY);
  } catch {
    return null;
  }
}

export function rememberSession(sid) {
  try {
    localStorage.setItem(LAST_SESSION_KEY, sid);
  } catch {
    /* storage off (a private window): nothing to remember */
  }
}
