// The first-run welcome (and the "no session open" page): asks for the project folder to work
// in, lists recent ones, and still lets a user simply type to start in the host's folder.

import { h, icon } from "./dom.js";
import { shortenPath } from "../state/session-list.js";
import { recentWorkspaces } from "../state/workspaces.js";

/** ctx: {manager, workspaces, openFolder(), newSessionIn(wid), settingsLink()} */
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
  const typeHere = h("p", { class: "muted" }, "Or describe a task below and press Enter to start in ", h("code", { testid: "host-cwd" }, m.hostInfo?.cwd ?? "the host's folder"), ".");
  if (recent.length || hasSessions) {
    openBtn.classList.remove("btn-primary");
    return [
      h("h2", {}, "Pick a session, or start a new one"),
      recent.length ? h("h3", { class: "recent-head" }, "Recent folders") : null,
      list,
      h("div", { class: "welcome-actions" }, openBtn),
      typeHere,
    ];
  }
  return [
    h("div", { class: "empty-mark", "aria-hidden": "true" }, icon("terminal", "icon icon-xl")),
    h("h2", {}, "Welcome to HarnessDesk"),
    h("p", {}, "Choose the folder of a project: the agent works there, reading files and running commands only with your approval."),
    h("div", { class: "welcome-actions" }, openBtn),
    typeHere,
    h("p", { class: "muted" }, "It starts on the small bundled local model — no account or network needed. Connect DeepSeek or any OpenAI-compatible endpoint in ", ctx.settingsLink(), "."),
  ];
}
