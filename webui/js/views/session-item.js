// One session row of the sidebar: title, running dot, pending badge, folder and time; tools to
// rename, export, archive (or bring back) and delete; inline rename. Forks nest under parents.

import { h, icon } from "./dom.js";
import { displayTitle, shortenPath, relativeTime } from "../state/session-list.js";
import { t } from "../i18n/i18n.js";

/**
 * ctx: {manager, home, renaming, archived: bool, showCwd: bool, openSession, startRename, finishRename(s, title|null),
 *       exportSession, archive, unarchive, deleteSession, onKeyMove(sid, dir) → bool, note?: string
 *       (a remote host's rows while it is away: "reconnecting")}
 */
export function sessionItem(node, ctx) {
  const s = node.summary;
  const m = ctx.manager;
  const active = s.sessionId === m.activeId;
  const pending = m.pendingFor(s.sessionId).length;
  const subagent = s.origin === "subagent";
  const li = h("li", { class: ["session-item", active && "is-active", s.running && "is-running", subagent && "is-subagent"], testid: "session-item", dataset: { sessionId: s.sessionId, depth: String(node.depth), ...(subagent ? { origin: "subagent" } : {}) } });
  if (ctx.renaming === s.sessionId) {
    li.append(renameInput(s, ctx));
    return li;
  }
  const title = displayTitle(s);
  const open = h(
    "button",
    { type: "button", class: "session-open", testid: "session-open", "aria-current": active ? "page" : undefined, title: s.cwd ?? "" },
    h("span", { class: "session-line" },
      s.running ? h("span", { class: "running-dot", testid: "session-running", role: "img", "aria-label": t("sessionItem.running") }) : null,
      subagent ? h("span", { class: "subagent-mark", testid: "session-subagent", title: t("sessionItem.subagentTitle") }, icon("subagent")) : null,
      s.origin === "acp" ? h("span", { class: "editor-mark", testid: "session-editor", title: t("sessionItem.editorTitle") }, t("sessionItem.editor")) : null,
      h("span", { class: "session-title", testid: "session-title", translate: s.title?.trim() || s.provisionalTitle ? "no" : undefined }, title),
      pending ? h("span", { class: "pending-badge", testid: "session-pending-badge", "aria-label": t("sessionItem.pending", { count: pending }) }, String(pending)) : null),
    h("span", { class: "session-sub" }, ctx.showCwd && !subagent ? h("span", { class: "session-cwd", testid: "session-cwd", translate: "no" }, shortenPath(s.cwd, ctx.home)) : null, ctx.note ? h("span", { class: "session-note", testid: "session-note" }, ctx.note) : null, h("span", { class: "session-time" }, relativeTime(s.updatedAt))),
  );
  open.addEventListener("click", () => ctx.openSession(s.sessionId));
  if (!subagent) open.addEventListener("dblclick", () => ctx.startRename(s.sessionId));
  open.addEventListener("keydown", (e) => {
    if (e.key === "F2" && !subagent) {
      e.preventDefault();
      ctx.startRename(s.sessionId);
    } else if ((e.key === "ArrowDown" || e.key === "ArrowUp") && e.altKey) {
      if (ctx.onKeyMove?.(s.sessionId, e.key === "ArrowDown" ? 1 : -1)) e.preventDefault();
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const all = [...li.closest(".session-nav").querySelectorAll(".session-open")];
      const i = all.indexOf(open);
      all[Math.max(0, Math.min(all.length - 1, i + (e.key === "ArrowDown" ? 1 : -1)))]?.focus();
    }
  });
  const tool = (name, testid, label, onClick) => {
    const b = h("button", { type: "button", class: "btn btn-icon btn-small", testid, title: label, "aria-label": t("common.labelFor", { label, name: title }) }, icon(name));
    b.addEventListener("click", onClick);
    return b;
  };
  // A subagent goes with its parent (rename, archive and delete are the parent's).
  const tools = subagent
    ? [tool("download", "session-export", t("sessionItem.export"), () => ctx.exportSession(s.sessionId))]
    : ctx.archived
    ? [
        tool("unarchive", "session-unarchive", t("sessionItem.unarchive"), () => ctx.unarchive(s.sessionId)),
        tool("trash", "session-delete", t("sessionItem.delete"), () => ctx.deleteSession(s.sessionId)),
      ]
    : [
        tool("pencil", "session-rename", t("sessionItem.rename"), () => ctx.startRename(s.sessionId)),
        tool("download", "session-export", t("sessionItem.export"), () => ctx.exportSession(s.sessionId)),
        tool("archive", "session-archive", t("sessionItem.archive"), () => ctx.archive(s.sessionId)),
        tool("trash", "session-delete", t("sessionItem.delete"), () => ctx.deleteSession(s.sessionId)),
      ];
  li.append(h("div", { class: "session-row" }, open, h("div", { class: "session-tools" }, tools)));
  return li;
}

function renameInput(s, ctx) {
  const input = h("input", { type: "text", class: "rename-input", testid: "rename-input", "aria-label": t("sessionItem.titleLabel"), maxlength: 1000 });
  input.value = s.title ?? "";
  let done = false;
  const finish = (commit) => {
    if (done) return;
    done = true;
    const title = input.value;
    ctx.finishRename(s, commit && title.trim() && title !== (s.title ?? "") ? title : null);
  };
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      finish(true);
    } else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      finish(false);
    }
  });
  input.addEventListener("blur", () => finish(true));
  queueMicrotask(() => {
    input.focus();
    input.select();
  });
  return input;
}
