// The sidebar: session list (newest first, running indicator, cwd, forks nested, blank hidden),
// search with highlighted snippets, inline rename, export, and the New session button.

import { h, icon, clear } from "./dom.js";
import { buildTree, displayTitle, shortenPath, highlightRuns, relativeTime } from "../state/session-list.js";
import { describeError } from "../state/problems.js";
import { transportFailure } from "../client/errors.js";

export class SidebarView {
  /** ctx: {manager, client, openSession(id), newSession(), exportSession(id), toast(msg)} */
  constructor(root, ctx) {
    this.ctx = ctx;
    this.renaming = null;
    this.searchSeq = 0;
    this.newBtn = h("button", { type: "button", class: "btn btn-primary new-session", testid: "new-session", title: "New session (Ctrl+N)" }, icon("plus"), h("span", { class: "btn-label" }, "New session"));
    this.newBtn.addEventListener("click", () => ctx.newSession());
    this.search = h("input", { type: "search", class: "search-input", testid: "search-input", id: "search-input", placeholder: "Search (Ctrl+K)", "aria-label": "Search sessions", autocomplete: "off" });
    this.results = h("div", { class: "search-results", testid: "search-results", hidden: true, "aria-live": "polite" });
    this.list = h("ul", { class: "session-list", testid: "session-list", role: "list", "aria-label": "Sessions" });
    this.empty = h("p", { class: "list-empty", testid: "session-list-empty", hidden: true }, "No sessions yet.");
    root.append(
      h("div", { class: "sidebar-head" }, h("span", { class: "brand" }, h("span", { class: "brand-mark", "aria-hidden": "true" }), "HarnessDesk"), this.newBtn),
      h("div", { class: "search" }, icon("search", "icon search-icon"), this.search),
      this.results,
      h("nav", { class: "session-nav", "aria-label": "Sessions" }, this.list, this.empty),
    );
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
        const first = this.results.querySelector("button") ?? this.list.querySelector(".session-open");
        if (first) {
          e.preventDefault();
          first.focus();
        }
      }
    });
  }

  focusSearch() {
    this.search.focus();
    this.search.select();
  }

  clearSearch() {
    this.search.value = "";
    this.searchSeq++;
    clear(this.results);
    this.results.hidden = true;
  }

  async runSearch() {
    const query = this.search.value.trim();
    const seq = ++this.searchSeq;
    if (!query) {
      this.clearSearch();
      return;
    }
    const r = await this.ctx.client.call("session.search", { query: query.slice(0, 500) }).catch(transportFailure);
    if (seq !== this.searchSeq) return;
    clear(this.results);
    this.results.hidden = false;
    if (!r.ok) {
      this.results.append(h("p", { class: "list-empty" }, describeError(r.error)));
      return;
    }
    if (!r.value.items.length) {
      this.results.append(h("p", { class: "list-empty", testid: "search-empty" }, `No results for “${query}”.`));
      return;
    }
    const ul = h("ul", { class: "result-list", role: "list", "aria-label": "Search results" });
    for (const hit of r.value.items) {
      const summary = this.ctx.manager.summaries.get(hit.sessionId);
      const btn = h(
        "button",
        { type: "button", class: "result", testid: "search-result", dataset: { sessionId: hit.sessionId } },
        h("span", { class: "result-title" }, displayTitle(summary ?? {})),
        h("span", { class: "snippet" }, highlightRuns(hit.snippet, query).map((run) => (run.match ? h("mark", {}, run.text) : run.text))),
      );
      btn.addEventListener("click", () => {
        this.ctx.openSession(hit.sessionId);
        this.clearSearch();
      });
      ul.append(h("li", {}, btn));
    }
    if (r.value.hasMore) ul.append(h("li", { class: "list-empty" }, "More results — refine the search."));
    this.results.append(ul);
  }

  render() {
    const m = this.ctx.manager;
    const roots = buildTree(m.summaries.values(), { keepId: null });
    const focusedId = document.activeElement?.closest?.(".session-item")?.dataset.sessionId;
    clear(this.list);
    const home = m.hostInfo?.home;
    const add = (nodes, parentUl) => {
      for (const n of nodes) {
        const li = this.item(n, home);
        parentUl.append(li);
        if (n.children.length) {
          const ul = h("ul", { class: "session-children", role: "list" });
          li.append(ul);
          add(n.children, ul);
        }
      }
    };
    add(roots, this.list);
    this.empty.hidden = roots.length > 0 || !m.listLoaded;
    if (focusedId) this.list.querySelector(`.session-item[data-session-id="${CSS.escape(focusedId)}"] .session-open`)?.focus();
  }

  item(node, home) {
    const s = node.summary;
    const m = this.ctx.manager;
    const active = s.sessionId === m.activeId;
    const pending = m.pendingFor(s.sessionId).length;
    const li = h("li", { class: ["session-item", active && "is-active", s.running && "is-running"], testid: "session-item", dataset: { sessionId: s.sessionId, depth: String(node.depth) } });
    if (this.renaming === s.sessionId) {
      li.append(this.renameInput(s));
      return li;
    }
    const open = h(
      "button",
      { type: "button", class: "session-open", testid: "session-open", "aria-current": active ? "page" : undefined, title: s.cwd ?? "" },
      h("span", { class: "session-line" },
        s.running ? h("span", { class: "running-dot", testid: "session-running", role: "img", "aria-label": "running" }) : null,
        h("span", { class: "session-title", testid: "session-title" }, displayTitle(s)),
        pending ? h("span", { class: "pending-badge", testid: "session-pending-badge", "aria-label": `${pending} waiting for you` }, String(pending)) : null),
      h("span", { class: "session-sub" }, h("span", { class: "session-cwd", testid: "session-cwd" }, shortenPath(s.cwd, home)), h("span", { class: "session-time" }, relativeTime(s.updatedAt))),
    );
    open.addEventListener("click", () => this.ctx.openSession(s.sessionId));
    open.addEventListener("dblclick", () => this.startRename(s.sessionId));
    open.addEventListener("keydown", (e) => {
      if (e.key === "F2") {
        e.preventDefault();
        this.startRename(s.sessionId);
      } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const all = [...this.list.querySelectorAll(".session-open")];
        const i = all.indexOf(open);
        all[Math.max(0, Math.min(all.length - 1, i + (e.key === "ArrowDown" ? 1 : -1)))]?.focus();
      }
    });
    const rename = h("button", { type: "button", class: "btn btn-icon btn-small", testid: "session-rename", title: "Rename (F2)", "aria-label": `Rename ${displayTitle(s)}` }, icon("pencil"));
    rename.addEventListener("click", () => this.startRename(s.sessionId));
    const exp = h("button", { type: "button", class: "btn btn-icon btn-small", testid: "session-export", title: "Export as ZIP", "aria-label": `Export ${displayTitle(s)}` }, icon("download"));
    exp.addEventListener("click", () => this.ctx.exportSession(s.sessionId));
    li.append(h("div", { class: "session-row" }, open, h("div", { class: "session-tools" }, rename, exp)));
    return li;
  }

  startRename(sessionId) {
    this.renaming = sessionId;
    this.render();
  }

  renameInput(s) {
    const input = h("input", { type: "text", class: "rename-input", testid: "rename-input", "aria-label": "Session title", maxlength: 1000 });
    input.value = s.title ?? "";
    let done = false;
    const finish = async (commit) => {
      if (done) return;
      done = true;
      const title = input.value;
      this.renaming = null;
      if (commit && title.trim() && title !== (s.title ?? "")) {
        const r = await this.ctx.manager.rename(s.sessionId, title).catch(transportFailure);
        if (!r.ok) this.ctx.toast(describeError(r.error));
      }
      this.render();
      this.list.querySelector(`.session-item[data-session-id="${CSS.escape(s.sessionId)}"] .session-open`)?.focus();
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
}
