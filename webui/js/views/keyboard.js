// Global shortcuts (the sheet `?` shows them: views/shortcuts-sheet.js): Ctrl/Cmd+N new session,
// Ctrl/Cmd+K search, Ctrl/Cmd+F find in this session, Ctrl+Home / Ctrl+End the session's first
// and newest message, `?` the sheet, Esc cancel. Esc first belongs to whatever is open (rename,
// search, queue edit, dialog — those stop it themselves); otherwise it stops a running turn when
// focus is in the composer or nowhere in particular.

/** Whether the focus is in a field holding text (its own keys: Home, End, `?`, … are its). */
export function typing(el) {
  if (!el || el === document.body) return false;
  if (el.isContentEditable) return true;
  if (el.tagName === "TEXTAREA") return true;
  if (el.tagName !== "INPUT") return false;
  return !["button", "checkbox", "radio", "range", "submit", "reset", "file", "color"].includes(el.type);
}

export function installShortcuts({ newSession, focusSearch, cancelTurn, closeSidebar, findInSession, toStart, toEnd, showShortcuts }) {
  document.addEventListener("keydown", (e) => {
    const mod = e.ctrlKey || e.metaKey;
    const key = e.key.toLowerCase();
    const dialog = document.querySelector("dialog[open]");
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
    if (mod && !e.shiftKey && !e.altKey && key === "f" && !dialog && findInSession?.()) {
      e.preventDefault(); // a session is open: its own find, not the page's
      return;
    }
    // Ctrl+Home / Ctrl+End: the whole session, not the page held; a field with text keeps them
    const el = document.activeElement;
    const textHeld = typing(el) && !!el.value;
    if (e.ctrlKey && !e.shiftKey && !e.altKey && (e.key === "Home" || e.key === "End") && !dialog && !textHeld) {
      if ((e.key === "Home" ? toStart : toEnd)?.()) e.preventDefault();
      return;
    }
    if (e.key === "?" && !mod && !e.altKey && !dialog && !typing(el)) {
      e.preventDefault();
      showShortcuts?.();
      return;
    }
    if (e.key === "Escape" && !e.defaultPrevented) {
      if (dialog) return; // the dialog closes itself
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
