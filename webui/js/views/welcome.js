// The first-run welcome (and the "no session open" page): asks for the project folder to work
// in, lists recent ones, and lets a user simply type to start in the last one used (or, with
// none yet, be asked for a folder): never in the folder the app was launched from.

import { h, icon, setChildren, tNodes } from "./dom.js";
import { describeError } from "../state/problems.js";
import { shortenPath } from "../state/session-list.js";
import { recentWorkspaces } from "../state/workspaces.js";
import { t, tOr } from "../i18n/i18n.js";

/** A permission mode's name in the page's language (the host's words for an unknown one). */
export function modeName(mode) {
  return tOr(`mode.${mode?.value}.name`, mode?.name ?? "");
}

/** What the agent may do in the folder, in the mode new sessions start in (`host.describe`'s
 * `newSessionMode`, already Ask where Auto has no sandbox); null before the host said. */
export function modeWords(mode) {
  const what = {
    auto: "welcome.mode.auto",
    "workspace-write": "welcome.mode.ask",
    "read-only": "welcome.mode.readOnly",
    "danger-full-access": "welcome.mode.full",
  }[mode?.value];
  return what ? t(what, { mode: modeName(mode) }) : null;
}

/** ctx: {manager, workspaces, openFolder(), newSessionIn(wid), importArchive(), settingsLink(), startsOn, mode} */
export function welcome(ctx) {
  const m = ctx.manager;
  const home = m.hostInfo?.home;
  const hasSessions = [...m.summaries.values()].some((x) => !x.blank);
  const recent = recentWorkspaces(ctx.workspaces.items, m.summaries.values());
  const openBtn = h("button", { type: "button", class: "btn btn-primary btn-large", testid: "welcome-open-folder" }, icon("folder-open"), h("span", { class: "btn-label" }, t("sidebar.openFolder")));
  openBtn.addEventListener("click", () => ctx.openFolder());
  const list = recent.length
    ? h(
        "ul",
        { class: "recent-folders", testid: "recent-folders", role: "list", "aria-label": t("welcome.recentFolders") },
        recent.map((w) => {
          const b = h("button", { type: "button", class: "recent-folder", testid: "recent-folder", dataset: { workspaceId: w.workspaceId }, title: w.path }, icon("folder"), h("span", { class: "recent-title", translate: "no" }, w.title), h("span", { class: "recent-path", translate: "no" }, shortenPath(w.path, home)));
          b.addEventListener("click", () => ctx.newSessionIn(w.workspaceId));
          return h("li", {}, b);
        }),
      )
    : null;
  const typeHere = recent.length
    ? h("p", { class: "muted", testid: "welcome-type-here" }, tNodes("welcome.typeHereIn", { folder: h("code", { testid: "welcome-last-folder", title: recent[0].path, translate: "no" }, shortenPath(recent[0].path, home)) }))
    : h("p", { class: "muted", testid: "welcome-type-here" }, t("welcome.typeHere"));
  const importBtn = h("button", { type: "button", class: "link", testid: "welcome-import" }, t("welcome.importIt"));
  importBtn.addEventListener("click", () => ctx.importArchive());
  const importNote = h("p", { class: "muted", testid: "welcome-import-note" }, tNodes("welcome.importNote", { link: importBtn }));
  if (recent.length || hasSessions) {
    openBtn.classList.remove("btn-primary");
    return [
      h("h2", {}, t("welcome.pickSession")),
      recent.length ? h("h3", { class: "recent-head" }, t("welcome.recentFolders")) : null,
      list,
      h("div", { class: "welcome-actions" }, openBtn),
      importNote,
      typeHere,
      startsOnNote(ctx.startsOn, ctx.settingsLink),
    ];
  }
  return [
    h("div", { class: "empty-mark", "aria-hidden": "true" }, icon("terminal", "icon icon-xl")),
    h("h2", {}, t("welcome.title")),
    h("p", { testid: "welcome-mode" }, t("welcome.chooseFolder"), modeWords(ctx.mode) ?? ""),
    h("div", { class: "welcome-actions" }, openBtn),
    importNote,
    typeHere,
    startsOnNote(ctx.startsOn, ctx.settingsLink),
  ];
}

/** "New sessions start on <route> · <model>", and for a chat-only model what that means. */
export function startsOnNote(on, settingsLink) {
  if (!on) return null;
  const which = [h("strong", { translate: "no" }, on.name), on.model ? [" · ", h("code", { translate: "no" }, on.model)] : null];
  if (!on.tools) {
    const found = (on.servers ?? []).find((s) => !s.profileId);
    const how = on.acts
      ? t("welcome.model.pickTools")
      : found
        ? tNodes("welcome.model.useFound", { server: h("strong", { translate: "no" }, found.name), settings: settingsLink() })
        : tNodes("welcome.model.download", { settings: settingsLink() });
    return h("p", { class: "muted", testid: "welcome-model" }, tNodes("welcome.model.chatOnly", { model: which }), how);
  }
  return h("p", { class: "muted", testid: "welcome-model" }, tNodes("welcome.model.startsOn", { model: which, settings: settingsLink() }));
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
    content = [h("h2", {}, t("sidebar.newSession")), h("p", {}, t("welcome.newSessionHint")), app.presets.show(s.sessionId, preset)];
    el.dataset.testid = "session-empty";
  } else if (s?.error && s.fold.items.length === 0) {
    content = [h("h2", {}, t("welcome.loadFailed")), h("p", { role: "alert" }, describeError(s.error))];
    el.dataset.testid = "session-error";
  } else if (s?.loading && s.fold.items.length === 0) {
    content = [h("span", { class: "spinner", "aria-hidden": "true" }), h("p", {}, t("welcome.loading"))];
    el.dataset.testid = "session-loading";
  }
  if (key) el.dataset.key = key;
  else delete el.dataset.key;
  el.hidden = !content;
  conv.classList.toggle("is-empty", !!content);
  if (content) setChildren(el, content);
}

function settingsLink(app) {
  const b = h("button", { type: "button", class: "link", testid: "empty-open-settings" }, t("sidebar.settings"));
  b.addEventListener("click", () => app.settings.open());
  return b;
}
