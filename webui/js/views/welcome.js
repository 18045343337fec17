// The first-run welcome (and the "no session open" page): asks for the project folder to work
// in, lists recent ones, and lets a user simply type to start in the last one used (or, with
// none yet, be asked for a folder): never in the folder the app was launched from.

import { h, icon, setChildren } from "./dom.js";
import { describeError } from "../state/problems.js";
import { shortenPath } from "../state/session-list.js";
import { recentWorkspaces } from "../state/workspaces.js";

/** What the agent may do in the folder, in the mode new sessions start in (`host.describe`'s
 * `newSessionMode`, already Ask where Auto has no sandbox); null before the host said. */
export function modeWords(mode) {
  const what = {
    auto: "it edits files and runs commands inside that folder on its own, in a sandbox, and asks before anything else",
    "workspace-write": "it reads files freely and asks before every write and every command",
    "read-only": "it reads and searches, and changes nothing",
    "danger-full-access": "it runs every command with all your rights on this computer, without asking",
  }[mode?.value];
  return what ? `New sessions start in ${mode.name}: ${what}.` : null;
}

/** ctx: {manager, workspaces, openFolder(), newSessionIn(wid), importArchive(), settingsLink(), startsOn, mode} */
export function welcome(ctx) {
  const m = ctx.manager;
  const home = m.hostInfo?.home;
  const hasSessions = [...m.summaries.values()].some((x) => !x.blank);
  const recent = recentWorkspaces(ctx.workspaces.items, m.summaries.values());
  const openBtn = h("button", { type: "button", class: "btn btn-primary btn-large", testid: "welcome-open-folder" }, icon("folder-open"), h("span", { class: "btn-label" }, "Open folder…"));
  openBtn.addEventListener("click", () => ctx.openFolder());
  const list = recent.length
    ? h(
        "ul",
        { class: "recent-folders", testid: "recent-folders", role: "list", "aria-label": "Recent folders" },
        recent.map((w) => {
          const b = h("button", { type: "button", class: "recent-folder", testid: "recent-folder", dataset: { workspaceId: w.workspaceId }, title: w.path }, icon("folder"), h("span", { class: "recent-title" }, w.title), h("span", { class: "recent-path" }, shortenPath(w.path, home)));
          b.addEventListener("click", () => ctx.newSessionIn(w.workspaceId));
          return h("li", {}, b);
        }),
      )
    : null;
  const typeHere = recent.length
    ? h("p", { class: "muted", testid: "welcome-type-here" }, "Or describe a task below and press Enter to start in ", h("code", { testid: "welcome-last-folder", title: recent[0].path }, shortenPath(recent[0].path, home)), ".")
    : h("p", { class: "muted", testid: "welcome-type-here" }, "Or describe a task below and press Enter: you choose its folder first.");
  const importBtn = h("button", { type: "button", class: "link", testid: "welcome-import" }, "import it");
  importBtn.addEventListener("click", () => ctx.importArchive());
  const importNote = h("p", { class: "muted", testid: "welcome-import-note" }, "Have a session exported as an archive (.zip)? Drop it on the window or ", importBtn, ".");
  if (recent.length || hasSessions) {
    openBtn.classList.remove("btn-primary");
    return [
      h("h2", {}, "Pick a session, or start a new one"),
      recent.length ? h("h3", { class: "recent-head" }, "Recent folders") : null,
      list,
      h("div", { class: "welcome-actions" }, openBtn),
      importNote,
      typeHere,
      startsOnNote(ctx.startsOn, ctx.settingsLink),
    ];
  }
  return [
    h("div", { class: "empty-mark", "aria-hidden": "true" }, icon("terminal", "icon icon-xl")),
    h("h2", {}, "Welcome to HarnessDesk"),
    h("p", { testid: "welcome-mode" }, "Choose the folder of a project: the agent works there. ", modeWords(ctx.mode) ?? ""),
    h("div", { class: "welcome-actions" }, openBtn),
    importNote,
    typeHere,
    startsOnNote(ctx.startsOn, ctx.settingsLink),
  ];
}

/** "New sessions start on <route> · <model>", and for a chat-only model what that means. */
export function startsOnNote(on, settingsLink) {
  if (!on) return null;
  const which = [h("strong", {}, on.name), on.model ? [" · ", h("code", {}, on.model)] : null];
  if (!on.tools) {
    const found = (on.servers ?? []).find((s) => !s.profileId);
    const how = on.acts
      ? ["Pick a model that can use tools above the conversation to let the agent work on files."]
      : found
        ? ["For an agent that reads and edits files, use ", h("strong", {}, found.name), " found on this machine, or download a model, in ", settingsLink(), "."]
        : ["For an agent that reads and edits files, download a model (or connect a server) in ", settingsLink(), "."];
    return h("p", { class: "muted", testid: "welcome-model" }, "New sessions start on the ", ...which, ": chat only — it cannot read files or run commands. ", ...how);
  }
  return h("p", { class: "muted", testid: "welcome-model" }, "New sessions start on ", ...which, ". Pick another model above a conversation, or add endpoints in ", settingsLink(), ".");
}

/** The page under the header when there is no conversation to show (welcome, a new session's
 * preset picker, loading, a session that could not be loaded). */
export function renderEmpty(app, s) {
  const el = app.emptyState;
  const conv = document.getElementById("conversation");
  const m = app.manager;
  let content = null;
  let key = null;
  if (!s && m.listLoaded) {
    content = welcome({
      manager: m,
      workspaces: app.workspaces,
      openFolder: () => app.actions.openFolder(),
      newSessionIn: (wid) => app.newSession(wid),
      importArchive: () => app.importer.choose(),
      mode: app.providers.newSessionMode,
      settingsLink: () => settingsLink(app),
      startsOn: app.providers.startsOn(),
    });
    el.dataset.testid = "empty-state";
  } else if (s && !s.loading && s.fold.items.length === 0 && !s.error) {
    key = `session-empty:${s.sessionId}`;
    if (el.dataset.key === key && !el.hidden) return; // the picker updates itself (and keeps focus)
    const preset = m.summaries.get(s.sessionId)?.agentPreset ?? s.fold.preset;
    content = [h("h2", {}, "New session"), h("p", {}, "What should the agent do? Type below and press Enter, or / for commands and skills."), app.worktreePanel.show(s.sessionId), app.presets.show(s.sessionId, preset)];
    el.dataset.testid = "session-empty";
  } else if (s?.error && s.fold.items.length === 0) {
    content = [h("h2", {}, "This session could not be loaded"), h("p", { role: "alert" }, describeError(s.error))];
    el.dataset.testid = "session-error";
  } else if (s?.loading && s.fold.items.length === 0) {
    content = [h("span", { class: "spinner", "aria-hidden": "true" }), h("p", {}, "Loading the conversation…")];
    el.dataset.testid = "session-loading";
  }
  if (key) el.dataset.key = key;
  else delete el.dataset.key;
  el.hidden = !content;
  conv.classList.toggle("is-empty", !!content);
  if (content) setChildren(el, content);
}

function settingsLink(app) {
  const b = h("button", { type: "button", class: "link", testid: "empty-open-settings" }, "Settings");
  b.addEventListener("click", () => app.settings.open());
  return b;
}
