// The sidebar: sessions grouped by workspace (collapsible, manual order, drag or Alt+↑/↓ to
// reorder), "Ungrouped" last, an "Archived" view; Open folder… and New session; search with
// highlighted snippets; inline rename.

import { h, icon, clear } from "./dom.js";
import { buildTree, displayTitle, shortenPath, highlightRuns } from "../state/session-list.js";
import { groupSessions, dropTarget } from "../state/workspaces.js";
import { describeError } from "../state/problems.js";
import { sessionItem } from "./session-item.js";
import { byHost } from "../state/remote-hosts.js";
import { hostGroup } from "./remote-hosts.js";
import { t } from "../i18n/i18n.js";
import { PressGuard } from "./press-guard.js";

const COLLAPSED_KEY = "harnessdesk.collapsedWorkspaces";

export class SidebarView {
  /** ctx: {manager, workspaces, turns, toast, openSession, newSession, newSessionIn, openFolder,
   *        exportSession, archive, unarchive, deleteSession, revealFolder, canOpenPath,
   *        removeWorkspace, moveSession, focusComposer, remotes?, newRemoteSession(hostId),
   *        connectHost(hostId)} */
  constructor(root, ctx) {
    this.ctx = ctx;
    this.renaming = null;
    this.searchSeq = 0;
    this.searchAbort = new AbortController(); // a newer search stops the older one on the host
    this.showArchived = false;
    this.collapsed = new Set(readCollapsed());
    this.dragging = null;
    this.press = new PressGuard(root, () => this.render()); // a click on a row is never lost to a redraw
    this.newBtn = h("button", { type: "button", class: "btn btn-primary new-session", testid: "new-session", title: t("sidebar.newSessionTitle") }, icon("plus"), h("span", { class: "btn-label" }, t("sidebar.newSession")));
    this.newBtn.addEventListener("click", () => ctx.newSession());
    this.folderBtn = h("button", { type: "button", class: "btn open-folder", testid: "open-folder", title: t("sidebar.openFolderTitle") }, icon("folder-open"), h("span", { class: "btn-label" }, t("sidebar.openFolder")));
    this.folderBtn.addEventListener("click", () => ctx.openFolder());
    this.search = h("input", { type: "search", class: "search-input", testid: "search-input", id: "search-input", placeholder: t("sidebar.searchPlaceholder"), title: t("sidebar.searchTitle"), "aria-label": t("sidebar.searchLabel"), "aria-keyshortcuts": "Control+K", autocomplete: "off" });
    this.needsMe = false;
    this.needsMeBtn = h("button", { type: "button", class: "btn btn-small needs-me-toggle", testid: "needs-me-filter", "aria-pressed": "false", title: t("sidebar.needsMeTitle") }, t("sidebar.needsMe"));
    this.needsMeBtn.addEventListener("click", () => {
      this.needsMe = !this.needsMe;
      this.render();
    });
    this.results = h("div", { class: "search-results", testid: "search-results", hidden: true, "aria-live": "polite" });
    this.groupsEl = h("div", { class: "ws-groups", testid: "session-list" });
    this.empty = h("p", { class: "list-empty", testid: "session-list-empty", hidden: true }, t("sidebar.noSessions"));
    this.archivedBtn = h("button", { type: "button", class: "archived-toggle", testid: "archived-toggle", "aria-expanded": "false", hidden: true });
    this.archivedBtn.addEventListener("click", () => {
      this.showArchived = !this.showArchived;
      this.render();
    });
    this.archivedList = h("ul", { class: "session-list archived-list", testid: "archived-list", role: "list", "aria-label": t("sidebar.archivedLabel"), hidden: true });
    root.append(
      h("div", { class: "sidebar-head" }, h("span", { class: "brand" }, h("span", { class: "brand-mark", "aria-hidden": "true" }), "HarnessDesk"), h("div", { class: "head-actions" }, this.newBtn, this.folderBtn)),
      h("div", { class: "search" }, icon("search", "icon search-icon"), this.search, this.needsMeBtn),
      this.results,
      h("nav", { class: "session-nav", "aria-label": t("sidebar.sessions") }, this.groupsEl, this.empty, h("div", { class: "archived" }, this.archivedBtn, this.archivedList)),
    );
    this.results.addEventListener("keydown", (e) => this.moveInResults(e));
    let timer = 0;
    this.search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.runSearch(), 200);
    });
    this.search.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        this.clearSearch();
        ctx.focusComposer?.();
      }
      if (e.key === "ArrowDown") {
        const first = this.results.querySelector("button") ?? this.groupsEl.querySelector(".session-open");
        if (first) {
          e.preventDefault();
          first.focus();
        }
      }
    });
  }

  /** ↑/↓ between the results (each message, then "More results"), ↑ from the first back to the box. */
  moveInResults(e) {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    const all = [...this.results.querySelectorAll("button:not([disabled])")];
    const i = all.indexOf(document.activeElement);
    if (i < 0) return;
    e.preventDefault();
    if (e.key === "ArrowUp" && i === 0) this.search.focus();
    else all[Math.min(all.length - 1, Math.max(0, i + (e.key === "ArrowDown" ? 1 : -1)))].focus();
  }

  focusSearch() {
    this.search.focus();
    this.search.select();
  }

  clearSearch() {
    this.search.value = "";
    this.supersedeSearch();
    clear(this.results);
    this.results.hidden = true;
  }

  /** Drop the search asked last, and stop it on the host (docs/decisions/search-lane.md). */
  supersedeSearch() {
    this.searchAbort.abort();
    this.searchAbort = new AbortController();
    return ++this.searchSeq;
  }

  async runSearch() {
    const query = this.search.value.trim();
    const seq = this.supersedeSearch();
    if (!query) {
      this.clearSearch();
      return;
    }
    const r = await this.ctx.turns.search(query, null, this.searchAbort.signal);
    if (seq !== this.searchSeq) return;
    clear(this.results);
    this.results.hidden = false;
    if (!r.ok) {
      this.results.append(h("p", { class: "list-empty" }, describeError(r.error)));
      return;
    }
    if (!r.value.items.length) {
      this.results.append(h("p", { class: "list-empty", testid: "search-empty" }, t("sidebar.noResults", { query })));
      return;
    }
    this.resultList = h("ul", { class: "result-list", role: "list", "aria-label": t("sidebar.searchResults") });
    this.resultGroups = new Map();
    this.results.append(this.resultList);
    this.appendHits(r.value, query, seq);
  }

  /** Each matching message, under its session's title (a session's hits stay together, in the
   * order the pages bring them); "More results" asks for the next page (`cursor`). */
  appendHits(value, query, seq) {
    this.results.querySelector("[data-testid=search-more]")?.closest("li")?.remove();
    for (const hit of value.items) {
      let group = this.resultGroups.get(hit.sessionId);
      if (!group) {
        const summary = this.ctx.manager.summaries.get(hit.sessionId);
        group = h("ul", { class: "result-hits", role: "list" });
        const title = h("span", { class: "result-title", translate: summary?.title || summary?.provisionalTitle ? "no" : undefined }, displayTitle(summary ?? {}));
        this.resultList.append(h("li", { class: "result-group", testid: "search-group", dataset: { sessionId: hit.sessionId } }, title, group));
        this.resultGroups.set(hit.sessionId, group);
      }
      const btn = h(
        "button",
        { type: "button", class: "result", testid: "search-result", dataset: { sessionId: hit.sessionId, seq: String(hit.seq) } },
        h("span", { class: "snippet", translate: "no" }, highlightRuns(hit.snippet, query).map((run) => (run.match ? h("mark", {}, run.text) : run.text))),
      );
      btn.addEventListener("click", () => {
        this.ctx.openSession(hit.sessionId, hit.seq, query); // scrolls to the matching message
        this.clearSearch();
      });
      group.append(h("li", {}, btn));
    }
    if (value.hasMore && value.cursor) {
      const more = h("button", { type: "button", class: "btn btn-ghost btn-small search-more", testid: "search-more" }, t("sidebar.moreResults"));
      more.addEventListener("click", async () => {
        more.disabled = true;
        const r = await this.ctx.turns.search(query, value.cursor, this.searchAbort.signal);
        if (seq !== this.searchSeq) return;
        if (!r.ok) {
          more.disabled = false;
          this.ctx.toast?.(describeError(r.error));
          return;
        }
        const focusNext = document.activeElement === more;
        const before = this.resultList.querySelectorAll("[data-testid=search-result]").length;
        this.appendHits(r.value, query, seq);
        if (focusNext) this.resultList.querySelectorAll("[data-testid=search-result]")[before]?.focus(); // the keyboard goes on where it was
      });
      this.resultList.append(h("li", { class: "result-more" }, more));
    }
  }

  // ---- the grouped list ---------------------------------------------------------------------

  render() {
    if (this.press.defer()) return;
    const m = this.ctx.manager;
    const ws = this.ctx.workspaces;
    // "Needs me": only the sessions where an approval or a question waits for the person
    const needs = (s) => s.attention?.state === "needs-you";
    const local = [...m.summaries.values()].filter((s) => !s.hostId && (!this.needsMe || needs(s))); // a remote host's are under it
    const { groups, archived } = groupSessions(local, ws.items, ws.archived, { keepId: this.needsMe ? null : m.activeId });
    this.needsMeBtn.setAttribute("aria-pressed", String(this.needsMe));
    // the focused control of a session (its Open, Rename, Delete…) is focused again once redrawn
    const focused = document.activeElement;
    const focusedId = focused?.closest?.(".session-item")?.dataset.sessionId;
    const focusedTestid = focused?.dataset?.testid;
    clear(this.groupsEl);
    const listed = this.needsMe ? groups.filter((g) => g.roots.length) : groups;
    const remote = this.remoteGroups(this.needsMe ? needs : null);
    for (const group of listed) this.groupsEl.append(this.group(group, listed.length + remote.length));
    this.groupsEl.append(...remote);
    const anything = listed.some((g) => g.workspace || g.roots.length) || remote.length > 0;
    this.empty.hidden = anything || !m.listLoaded;
    this.empty.textContent = this.needsMe ? t("sidebar.needsMeEmpty") : t("sidebar.noSessions");
    this.archivedBtn.hidden = archived.length === 0;
    if (!archived.length) this.showArchived = false;
    this.archivedBtn.setAttribute("aria-expanded", String(this.showArchived));
    this.archivedBtn.replaceChildren(icon("chevron", "icon chevron"), icon("archive"), h("span", {}, t("sidebar.archived", { count: archived.length })));
    clear(this.archivedList);
    this.archivedList.hidden = !this.showArchived;
    if (this.showArchived) {
      const itemCtx = this.itemCtx(null, [], true);
      for (const s of archived) this.archivedList.append(sessionItem({ summary: s, children: [], depth: 0 }, itemCtx));
    }
    if (focusedId) {
      const item = this.groupsEl.parentElement.querySelector(`.session-item[data-session-id="${CSS.escape(focusedId)}"]`);
      const again = (focusedTestid && item?.querySelector(`[data-testid="${CSS.escape(focusedTestid)}"]`)) || item?.querySelector(".session-open");
      if (again) again.focus();
      else if (document.activeElement === document.body) this.ctx.focusComposer?.(); // its session is gone: never the body
    }
  }

  group({ workspace, roots }, count) {
    const id = workspace?.workspaceId ?? "ungrouped";
    const collapsed = this.collapsed.has(id);
    const list = h("ul", { class: "session-list", role: "list", hidden: collapsed, "aria-label": workspace ? t("sidebar.sessionsIn", { title: workspace.title }) : t("sidebar.ungroupedSessions") });
    const rootIds = roots.map((n) => n.summary.sessionId);
    const itemCtx = this.itemCtx(workspace, rootIds, false);
    const add = (nodes, ul) => {
      for (const n of nodes) {
        const li = sessionItem(n, itemCtx);
        if (workspace && n.depth === 0) this.draggable(li, workspace, rootIds);
        ul.append(li);
        if (n.children.length) {
          const sub = h("ul", { class: "session-children", role: "list" });
          li.append(sub);
          add(n.children, sub);
        }
      }
    };
    add(roots, list);
    if (workspace && !roots.length) list.append(h("li", { class: "list-empty ws-empty" }, t("sidebar.noSessionsHere")));
    const home = this.ctx.manager.hostInfo?.home;
    if (!workspace && count === 1) return h("section", { class: "ws-group ws-ungrouped is-only", testid: "ungrouped-group" }, list);
    const toggle = h(
      "button",
      { type: "button", class: "ws-toggle", testid: "workspace-toggle", "aria-expanded": String(!collapsed), title: workspace?.path ?? t("sidebar.outsideWorkspaces") },
      icon("chevron", "icon chevron"),
      icon(workspace ? "folder" : "list"),
      workspace ? h("span", { class: "ws-title", testid: "workspace-title", translate: "no" }, workspace.title) : h("span", { class: "ws-title", testid: "workspace-title" }, t("sidebar.ungrouped")),
      workspace ? h("span", { class: "ws-path", translate: "no" }, h("bdi", { dir: "ltr" }, shortenPath(workspace.path, home))) : null, // long paths: cut at the start
    );
    toggle.addEventListener("click", () => {
      if (this.collapsed.has(id)) this.collapsed.delete(id);
      else this.collapsed.add(id);
      writeCollapsed(this.collapsed);
      this.render();
    });
    const tools = workspace ? this.workspaceTools(workspace) : null;
    const attrs = workspace ? { testid: "workspace-group", dataset: { workspaceId: workspace.workspaceId } } : { testid: "ungrouped-group" };
    return h("section", { class: ["ws-group", !workspace && "ws-ungrouped", collapsed && "is-collapsed"], ...attrs }, h("div", { class: "ws-head" }, toggle, tools), list);
  }

  /** One group per remote host that is connected or has sessions here (docs/decisions.md,
   * "Remote hosts"); its rows say "reconnecting" while it is away. `only`: a filter ("Needs me"). */
  remoteGroups(only = null) {
    const remotes = this.ctx.remotes;
    if (!remotes) return [];
    const sessions = byHost(this.ctx.manager.summaries.values());
    const out = [];
    for (const host of remotes.items) {
      const mine = (sessions.get(host.hostId) ?? []).filter((s) => !only || only(s));
      if (!mine.length && (only || host.state === "disconnected")) continue;
      const roots = buildTree(mine, { keepId: this.ctx.manager.activeId });
      out.push(
        hostGroup({
          host,
          roots,
          itemsOf: (nodes, ul, note) => this.remoteItems(nodes, ul, note),
          newSession: () => this.ctx.newRemoteSession(host.hostId),
          connect: () => this.ctx.connectHost(host.hostId),
        }),
      );
    }
    return out;
  }

  remoteItems(nodes, ul, note) {
    const itemCtx = { ...this.itemCtx(null, [], false), note, showCwd: true, home: null };
    for (const n of nodes) {
      const li = sessionItem(n, itemCtx);
      ul.append(li);
      if (n.children.length) {
        const sub = h("ul", { class: "session-children", role: "list" });
        li.append(sub);
        this.remoteItems(n.children, sub, note);
      }
    }
  }

  workspaceTools(workspace) {
    const tool = (name, testid, label, onClick) => {
      const b = h("button", { type: "button", class: "btn btn-icon btn-small", testid, title: label, "aria-label": t("common.labelFor", { label, name: workspace.title }) }, icon(name));
      b.addEventListener("click", onClick);
      return b;
    };
    return h(
      "div",
      { class: "ws-tools" },
      tool("plus", "workspace-new-session", t("sidebar.newSessionHere"), () => this.ctx.newSessionIn(workspace.workspaceId)),
      this.ctx.canOpenPath() ? tool("reveal", "workspace-reveal", t("sidebar.reveal"), () => this.ctx.revealFolder(workspace.path)) : null,
      tool("x", "workspace-remove", t("sidebar.removeWorkspace"), () => this.ctx.removeWorkspace(workspace)),
    );
  }

  itemCtx(workspace, rootIds, archived) {
    const ctx = this.ctx;
    return {
      manager: ctx.manager,
      home: ctx.manager.hostInfo?.home,
      renaming: this.renaming,
      archived,
      showCwd: !workspace, // a workspace's header already names its folder
      openSession: ctx.openSession,
      startRename: (sid) => this.startRename(sid),
      finishRename: (s, title) => this.finishRename(s, title),
      exportSession: ctx.exportSession,
      archive: ctx.archive,
      unarchive: ctx.unarchive,
      deleteSession: ctx.deleteSession,
      onKeyMove: workspace ? (sid, dir) => this.keyMove(workspace, rootIds, sid, dir) : null,
    };
  }

  /** Alt+↑/↓ on a session of a workspace: one place up or down (the keyboard's drag). */
  keyMove(workspace, rootIds, sid, dir) {
    const i = rootIds.indexOf(sid);
    if (i < 0 || i + dir < 0 || i + dir >= rootIds.length) return false;
    const before = dir < 0 ? rootIds[i - 1] : (rootIds[i + 2] ?? null);
    this.ctx.moveSession(workspace.workspaceId, sid, before);
    return true;
  }

  draggable(li, workspace, rootIds) {
    const sid = li.dataset.sessionId;
    li.draggable = true;
    li.addEventListener("dragstart", (e) => {
      this.dragging = { workspaceId: workspace.workspaceId, sessionId: sid };
      e.dataTransfer.effectAllowed = "move";
      e.dataTransfer.setData("text/plain", sid);
      li.classList.add("is-dragging");
    });
    li.addEventListener("dragend", () => {
      this.dragging = null;
      li.classList.remove("is-dragging");
      for (const el of this.groupsEl.querySelectorAll(".drop-before, .drop-after")) el.classList.remove("drop-before", "drop-after");
    });
    li.addEventListener("dragover", (e) => {
      const d = this.dragging;
      if (!d || d.workspaceId !== workspace.workspaceId || d.sessionId === sid) return;
      e.preventDefault();
      e.stopPropagation();
      const lower = e.clientY > li.getBoundingClientRect().top + li.offsetHeight / 2;
      li.classList.toggle("drop-after", lower);
      li.classList.toggle("drop-before", !lower);
    });
    li.addEventListener("dragleave", () => li.classList.remove("drop-before", "drop-after"));
    li.addEventListener("drop", (e) => {
      const d = this.dragging;
      li.classList.remove("drop-before", "drop-after");
      if (!d || d.workspaceId !== workspace.workspaceId) return;
      e.preventDefault();
      e.stopPropagation();
      const lower = e.clientY > li.getBoundingClientRect().top + li.offsetHeight / 2;
      const before = dropTarget(rootIds, d.sessionId, sid, lower);
      if (before !== undefined) this.ctx.moveSession(workspace.workspaceId, d.sessionId, before);
    });
  }

  startRename(sessionId) {
    this.renaming = sessionId;
    this.render();
  }

  async finishRename(s, title) {
    this.renaming = null;
    if (title !== null) {
      const r = await this.ctx.manager.rename(s.sessionId, title);
      if (!r.ok) this.ctx.toast(describeError(r.error));
    }
    this.render();
    this.groupsEl.querySelector(`.session-item[data-session-id="${CSS.escape(s.sessionId)}"] .session-open`)?.focus();
  }
}

function readCollapsed() {
  try {
    const v = JSON.parse(localStorage.getItem(COLLAPSED_KEY) ?? "[]");
    return Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];
  } catch {
    return [];
  }
}

function writeCollapsed(set) {
  try {
    localStorage.setItem(COLLAPSED_KEY, JSON.stringify([...set]));
  } catch {
    /* private mode: collapse state lasts for this page only */
  }
}
