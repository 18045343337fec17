// Global shortcuts: Ctrl/Cmd+N new session, Ctrl/Cmd+K search, Esc cancel. Esc first belongs to
// whatever is open (rename, search, queue edit, dialog — those stop it themselves); otherwise it
// stops a running turn when focus is in the composer or nowhere in particular.

export function installShortcuts({ newSession, focusSearch, cancelTurn, closeSidebar }) {
  document.addEventListener("keydown", (e) => {
    const mod = e.ctrlKey || e.metaKey;
    const key = e.key.toLowerCase();
    if (mod && !e.shiftKey && !e.altKey && key === "n") {
      e.preventDefault();
      newSession();
      return;
    }
    if (mod && !e.shiftKey && !e.altKey && key === "k") {
      e.preventDefault();
      focusSearch();
      return;
    }
    if (e.key === "Escape" && !e.defaultPrevented) {
      if (document.querySelector("dialog[open]")) return; // the dialog closes itself
      if (closeSidebar()) return;
      const t = document.activeElement;
      const neutral = !t || t === document.body || t.id === "composer-input" || t.id === "conversation" || t.classList.contains("approval-card");
      if (neutral) cancelTurn();
    }
  });
}

/** The file name a Content-Disposition suggests: the exact UTF-8 `filename*` (the session's title
 * and date), else the ASCII `filename`, else `fallback`; never a path. */
export function downloadName(disposition, fallback) {
  const text = disposition ?? "";
  const exact = /filename\*=UTF-8''([^;]+)/i.exec(text);
  let name = "";
  try {
    name = exact ? decodeURIComponent(exact[1].trim()) : (/filename="?([^";]+)"?/i.exec(text)?.[1] ?? "");
  } catch {
    name = "";
  }
  name = name.split(/[\\/]/).pop() ?? "";
  return name && name !== "." && name !== ".." ? name : fallback;
}

/** Download a session export: the bridge's save dialog, else a fetched blob (a plain link would
 * carry no token: the web client sends it as a header, never as a cookie). What was saved:
 * `{path}` (the window: where the file is), `{name}` (a tab: the browser's downloads), or
 * `{cancelled: true}`. */
export async function downloadExport(host, sessionId) {
  const r = await host.exportSession(sessionId);
  if (r.cancelled) return { cancelled: true };
  if (r.saved) return { path: r.path }; // the desktop's native save dialog took it
  const res = r.response;
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = downloadName(res.headers.get("content-disposition"), `session-${sessionId}.zip`);
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { name: a.download };
}
