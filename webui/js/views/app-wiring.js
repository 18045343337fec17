// The application's event wiring, for App (views/app.js): the connection's and the manager's
// events to the views, the global shortcuts. Split from App so app.js stays readable.

import { lastSession } from "../state/last-session.js";
import { installShortcuts } from "./keyboard.js";
import { installDialogFocus } from "./dialog-focus.js";
import { installTooltips } from "./tooltip.js";
import { ShortcutsSheet } from "./shortcuts-sheet.js";
import { onLanguage, t } from "../i18n/i18n.js";
import { displayTitle } from "../state/session-list.js";
import { onScreen } from "./notify.js";

const $ = (id) => document.getElementById(id);

/** Route the connection's, the manager's and the workspaces' events of `app` to its views. */
export function wireApp(app) {
  const c = app.connection;
  const m = app.manager;
  c.on("status", (s) => {
    app.status.setConnection(s);
    app.composer.setEnabled(s.state === "connected" || !!s.describe);
    $("sidebar").querySelector(".new-session").disabled = s.state !== "connected";
  });
  c.on("lost", () => m.markPendingStale());
  c.on("mux", (msg) => routeMux(app, msg) || m.handleMux(msg));
  c.on("host", (msg) => app.remotes.handleHost(msg) || app.workspaces.handleHost(msg.payload) || m.handleHost(msg));
  // A remote host (docs/decisions.md, "Remote hosts"): its rows follow its state; back after a
  // drop, what it did meanwhile is read again (reconnect = rebuild, for that host's sessions).
  app.remotes.on("change", () => app.sidebar.render());
  app.remotes.on("connected", () => m.refreshList().catch(() => {}));
  app.remotes.on("reconnected", () => m.rebuild().catch(() => c.reconnect("a remote host came back")));
  c.on("connected", async (describe) => {
    const first = !m.listLoaded;
    try {
      await Promise.all([m.rebuild(describe), app.workspaces.load(), app.remotes.load()]);
    } catch (err) {
      // A call failed mid-rebuild (the host blipped): rebuild again rather than stay half-built.
      if (c.status.state === "connected") c.reconnect(`rebuild failed: ${err?.message ?? err}`);
      return;
    }
    if (first) {
      // the URL's session (a reload, `harnessdesk PATH`), else the one open when the app last
      // closed (docs/decisions.md, "Review and context, part 2")
      const hash = new URLSearchParams(location.hash.slice(1));
      const wanted = hash.get("session") ?? lastSession();
      if (hash.get("remote")) app.openRemote(hash.get("remote"), hash.get("path")); // harnessdesk --remote
      else if (wanted && m.summaries.has(wanted)) app.open(wanted);
    }
    app.checkProvider();
    if (first) app.providers.lookForServers().then(() => app.modelPicker.refresh());
    else app.terminalPane.reconnected(); // output sent while the stream was down is replayed
    app.checkUiSettings();
    app.renderAll();
  });
  app.workspaces.on("change", () => {
    app.sidebar.render();
    app.renderArchived();
    app.renderEmpty(app.manager.active);
  });
  m.on("list", () => {
    app.sidebar.render();
    app.renderAll(); // a summary's running flag can flip after the turn/end: update Stop and "Working…" too
  });
  m.on("active", (s) => app.bindSession(s));
  m.on("pending", ({ added }) => {
    const pinned = app.conversation.isPinned();
    app.cards.render();
    app.renderActivity();
    if (pinned || added?.sessionId === m.activeId) app.conversation.jumpToLatest();
    app.sidebar.render();
  });
  m.on("attention", ({ sessionId, attention, previous }) => {
    if (sessionId === m.activeId) app.renderActivity();
    const shown = sessionId === m.activeId && onScreen();
    if (attention.state === "done-unread" && shown) m.markSeen(sessionId); // read as it ends
    if (shown || attention.state === previous) return;
    const summary = m.summaries.get(sessionId);
    if (!summary || summary.origin === "subagent") return; // a child's requests show in its parent
    const body = attention.state === "needs-you" ? t("notify.needsYou", { count: attention.pending }) : attention.state === "done-unread" ? t("notify.finished") : attention.state === "failed" ? t("attention.failed") : null;
    if (body) app.notifier.show(sessionId, displayTitle(summary), body, () => app.open(sessionId));
  });
  m.on("queue", (sid) => {
    if (sid !== m.activeId) return;
    app.queue.set(sid, m.visibleQueue(sid), app.running());
    app.steerChips.set(sid, m.visibleQueue(sid));
    app.composer.setWaiting(m.visibleQueue(sid).length);
  });
  m.on("jobs", (sid) => sid === m.activeId && app.renderAll());
  m.on("mcp", (project) => app.mcpPanel.changed(project));
  m.on("agent-error", ({ sessionId, message }) => {
    app.status.toast(sessionId === m.activeId ? message : t("notify.otherSession", { message }));
  });
  m.on("config", (type) => {
    if (type === "host/config-file-changed") app.configNotice.check();
    if (type === "host/settings-changed") {
      app.checkUiSettings();
      app.presets.invalidate(); // the default agent preset may have changed
    }
    app.checkProvider();
    app.modelPicker.refresh();
    app.settings.changed();
  });
  m.on("model-status", (s) => app.status.setModelStatus(s));
  m.on("model-download", (f) => app.settings.library.onFrame(f));
  m.on("error", (msg) => app.status.toast(msg));
  m.on("catalogue", (sid) => {
    app.catalogues.invalidate(sid);
    if (sid === null) app.presets.invalidate();
    else if (sid === m.activeId) app.presets.show(sid, m.summaries.get(sid)?.agentPreset);
  });
  installTooltips(); // titles in the page's own tooltip, which a dialog or a collapse hides (tooltip.js)
  installShortcuts({
    newSession: () => app.newSession(),
    focusSearch: () => {
      app.toggleSidebar(true);
      app.sidebar.focusSearch();
    },
    cancelTurn: () => app.running() && app.stop({ escape: true }),
    closeSidebar: () => app.toggleSidebar(false),
    findInSession: () => {
      if (!app.manager.activeId) return false;
      app.findBar.show();
      return true;
    },
    toStart: () => !!app.manager.active && (app.conversation.toStart(), true),
    toEnd: () => !!app.manager.active && (app.conversation.jumpToLatest(), true),
    showShortcuts: () => sheet().open(),
  });
  let shortcuts = null; // built on first use
  const sheet = () => (shortcuts ??= new ShortcutsSheet());
  $("open-shortcuts").addEventListener("click", () => sheet().open());
  installDialogFocus(() => app.composer.focus());
  onLanguage(() => relabel(app));
  $("open-settings").addEventListener("click", () => app.settings.open());
  $("import-archive").addEventListener("click", () => app.importer.choose());
  $("scrim").addEventListener("click", () => app.toggleSidebar(false));
}

/** After a language switch (i18n/i18n.js has relabelled the text on screen that t() made):
 * re-render what the views build from state. The composer's text, the scroll position and open
 * dialogs stay as they are (docs/decisions.md, "Languages"). */
function relabel(app) {
  app.sidebar.render();
  app.renderAll();
  app.renderModelNotes();
  app.onboarding.relabel();
  app.status.renderConnection();
  app.status.renderProblems();
  app.composer.refresh();
}

/** The Terminal's and the Files pane's frames (docs/decisions.md, "Terminal and files"); true
 * when the frame was theirs. */
function routeMux(app, msg) {
  const f = msg.payload;
  if (app.terminals.handleFrame(f)) return true;
  if (f?.type === "files/changed") {
    if (f.sessionId === app.fileTree.sessionId) app.fileTree.changed(f.paths);
    return true;
  }
  return false;
}
