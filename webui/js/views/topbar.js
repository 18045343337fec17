// The header above the conversation: sidebar toggle (narrow screens), title (double-click to
// rename), cwd, running badge, context meter, model picker, jobs and todo toggles, export.

import { h, icon, setChildren } from "./dom.js";
import { number, t, t as tr } from "../i18n/i18n.js";
import { displayTitle, shortenPath } from "../state/session-list.js";
import { PermissionsView } from "./permissions-view.js";
import { GitStatus } from "./git-status.js";

export class TopBar {
  /** ctx: {turns, toast(msg), toggleSidebar(), toggleTodos(), toggleJobs(), toggleChanges(), exportSession(id), renameSession(id), modelPicker} */
  constructor(root, ctx) {
    this.ctx = ctx;
    this.sessionId = null;
    const menu = h("button", { type: "button", class: "btn btn-icon sidebar-toggle", testid: "sidebar-toggle", "aria-label": t("topbar.showSessions"), "aria-controls": "sidebar" }, icon("menu"));
    menu.addEventListener("click", () => ctx.toggleSidebar());
    this.title = h("h1", { class: "session-heading", testid: "session-heading", tabindex: "-1" }, "HarnessDesk");
    this.title.addEventListener("dblclick", () => this.sessionId && ctx.renameSession(this.sessionId));
    this.cwd = h("span", { class: "heading-cwd", testid: "session-cwd-heading" });
    this.git = new GitStatus(ctx.turns, () => this.updateWorktree()); // branch and changed files of a git folder
    this.worktree = ctx.worktreeMenu; // the hand-off menu of a worktree session (worktree-menu.js)
    this.summary = null;
    this.running = h("span", { class: "badge badge-running", testid: "session-running-badge", hidden: true }, h("span", { class: "running-dot", "aria-hidden": "true" }), t("sessionItem.running"));
    this.preset = h("span", { class: "badge badge-preset", testid: "session-preset", hidden: true, title: t("topbar.presetTitle") });
    this.plan = h("span", { class: "badge badge-plan", testid: "plan-badge", hidden: true, title: t("topbar.planTitle") }, t("topbar.plan"));
    this.instructions = h("span", { class: "heading-instructions", testid: "instructions-file", hidden: true });
    this.subagent = h("span", { class: "heading-subagent-slot", hidden: true });
    this.todoBtn = h("button", { type: "button", class: "btn btn-small todo-toggle", testid: "todo-toggle", hidden: true, "aria-controls": "todo-panel", "aria-expanded": "false" }, icon("list"), h("span", { class: "btn-label" }, t("topbar.todos")));
    this.todoBtn.addEventListener("click", () => ctx.toggleTodos());
    this.jobsBtn = h("button", { type: "button", class: "btn btn-small jobs-toggle", testid: "jobs-toggle", hidden: true, "aria-controls": "jobs-panel", "aria-expanded": "false" });
    this.jobsBtn.addEventListener("click", () => ctx.toggleJobs());
    this.changesBtn = h("button", { type: "button", class: "btn btn-small jobs-toggle changes-toggle", testid: "changes-toggle", hidden: true, "aria-controls": "changes-panel", "aria-expanded": "false", title: t("topbar.changesTitle") });
    this.changesBtn.addEventListener("click", () => ctx.toggleChanges());
    this.mcpBtn = h("button", { type: "button", class: "btn btn-small jobs-toggle mcp-toggle", testid: "mcp-toggle", hidden: true, "aria-controls": "mcp-panel", "aria-expanded": "false", title: t("topbar.mcpTitle") });
    this.mcpBtn.addEventListener("click", () => ctx.toggleMcp());
    this.meterFill = h("span", { class: "ctx-fill" });
    this.meterText = h("span", { class: "ctx-text", testid: "context-meter-text" });
    this.meter = h("div", { class: "ctx-meter", testid: "context-meter", role: "meter", "aria-label": t("topbar.contextUsed"), "aria-valuemin": "0", hidden: true }, h("span", { class: "ctx-bar", "aria-hidden": "true" }, this.meterFill), this.meterText);
    this.exportBtn = h("button", { type: "button", class: "btn btn-icon", testid: "export-session", title: t("sessionItem.export"), "aria-label": t("topbar.exportSession"), hidden: true }, icon("download"));
    this.exportBtn.addEventListener("click", () => this.sessionId && ctx.exportSession(this.sessionId));
    this.permissions = new PermissionsView({ turns: ctx.turns, toast: ctx.toast });
    root.append(
      menu,
      h("div", { class: "heading" }, h("div", { class: "heading-line" }, this.title, this.running, this.preset, this.plan), h("div", { class: "heading-sub" }, this.subagent, this.cwd, this.git.el, this.worktree.el, this.instructions)),
      h("div", { class: "top-actions" }, this.meter, ctx.modelPicker.el, this.permissions.button, this.changesBtn, this.mcpBtn, this.jobsBtn, this.todoBtn, this.exportBtn),
    );
  }

  update({ sessionId, summary, title, running, home, todos, todosOpen, preset, instructions, plan, permissions, chatOnly = false, context, jobs, jobsOpen, subagentLine = null }) {
    this.sessionId = sessionId;
    this.subagent.hidden = !subagentLine;
    setChildren(this.subagent, subagentLine);
    this.permissions.update(sessionId, permissions, chatOnly);
    this.preset.hidden = !sessionId || !preset;
    this.preset.textContent = preset ?? "";
    this.plan.hidden = !sessionId || !plan;
    this.instructions.hidden = !sessionId || !instructions;
    if (instructions) {
      this.instructions.textContent = instructions.truncated ? t("topbar.instructionsCut", { name: instructions.name }) : `· ${instructions.name}`;
      this.instructions.title = t("topbar.instructionsTitle", { path: instructions.path });
    }
    this.title.textContent = sessionId ? title || displayTitle(summary ?? {}) : "HarnessDesk";
    this.title.translate = !(sessionId && (title || summary?.title || summary?.provisionalTitle)); // a title is the person's or the model's words
    this.cwd.textContent = sessionId ? shortenPath(summary?.cwd, home) : "";
    this.git.set(sessionId);
    this.summary = summary;
    this.updateWorktree();
    this.running.hidden = !running;
    this.exportBtn.hidden = !sessionId || !!summary?.blank;
    const count = todos?.length ?? 0;
    this.todoBtn.hidden = count === 0;
    if (count) {
      const done = todos.filter((t) => t.status === "completed").length;
      setChildren(this.todoBtn, icon("list"), h("span", { class: "btn-label" }, t("topbar.todosDone", { done, count })));
    }
    this.todoBtn.setAttribute("aria-expanded", String(!!todosOpen));
    this.updateJobs(sessionId ? jobs ?? [] : [], jobsOpen);
    this.updateMeter(sessionId ? context : null);
  }

  updateWorktree() {
    this.worktree.update(this.sessionId, this.summary, this.git.repo);
    if (this.lastChanges) this.updateChanges(...this.lastChanges);
  }

  /** The MCP button: how many servers are ready, and whether one waits on the person or failed. */
  updateMcp(value, open) {
    const servers = value?.servers ?? [];
    const hookFiles = value?.hookFiles ?? []; // a project hook file waiting for approval (hook-files.js)
    this.mcpBtn.hidden = !value || (servers.length === 0 && hookFiles.length === 0 && !open);
    const ready = servers.filter((s) => s.state === "ready").length;
    const attention = servers.some((s) => ["needs-trust", "needs-approval", "failed"].includes(s.state)) || hookFiles.some((f) => !f.approved);
    setChildren(this.mcpBtn, icon("terminal"), h("span", { class: "btn-label" }, "MCP"), h("span", { class: ["count", attention && "is-attention"], testid: "mcp-count" }, `${ready}/${servers.length}`));
    this.mcpBtn.setAttribute("aria-expanded", String(!!open));
  }

  /** The Changes button: how many files differ from the session's start. Hidden at none unless open,
   * except in a git repository, where the review pane also shows the person's own uncommitted edits. */
  updateChanges(count, open) {
    this.lastChanges = [count, open];
    this.changesBtn.hidden = !this.sessionId || (count === 0 && !open && !this.git.repo);
    setChildren(this.changesBtn, icon("file"), h("span", { class: "btn-label" }, t("changes.label")), h("span", { class: "count", testid: "changes-count" }, String(count)));
    this.changesBtn.setAttribute("aria-label", t("topbar.changesCount", { count }));
    this.changesBtn.setAttribute("aria-expanded", String(!!open));
  }

  updateJobs(jobs, open) {
    this.jobsBtn.hidden = jobs.length === 0;
    const live = jobs.filter((j) => j.status === "running" || j.status === "stopping").length;
    setChildren(this.jobsBtn, icon("jobs"), h("span", { class: "btn-label" }, t("topbar.jobs")), h("span", { class: ["count", live && "is-live"], testid: "jobs-count" }, live ? t("topbar.jobsRunning", { count: live }) : String(jobs.length)));
    this.jobsBtn.setAttribute("aria-expanded", String(!!open));
  }

  /** Tokens the next request would carry, against the model's window (compaction starts at 80 %). */
  updateMeter(context) {
    const ok = context && context.window > 0;
    this.meter.hidden = !ok;
    if (!ok) return;
    const share = Math.min(1, context.tokens / context.window);
    this.meterFill.style.width = `${(share * 100).toFixed(1)}%`;
    this.meter.dataset.level = share >= 0.8 ? "full" : share >= 0.6 ? "high" : "ok";
    this.meter.setAttribute("aria-valuemax", String(context.window));
    this.meter.setAttribute("aria-valuenow", String(context.tokens));
    this.meterText.textContent = `${compact(context.tokens)} / ${compact(context.window)}`;
    this.meter.title = t("topbar.contextTitle", { tokens: context.tokens, window: context.window, percent: Math.round(share * 100) });
  }
}

const compact = (n) => number(n, { notation: "compact", maximumFractionDigits: 1 });

/** The todo list panel (last todo/write wins). */
export function renderTodos(root, todos) {
  const items = todos ?? [];
  const mark = { completed: "✓", in_progress: "▸", pending: "○" };
  setChildren(
    root,
    h("h2", { class: "panel-title" }, t("todos.label")),
    items.length
      ? h(
          "ul",
          { class: "todo-list", role: "list" },
          items.map((t) =>
            h("li", { class: `todo todo-${t.status}`, testid: "todo-item", dataset: { status: t.status } }, h("span", { class: "todo-mark", "aria-hidden": "true" }, mark[t.status] ?? "○"), h("span", { class: "todo-text", translate: "no" }, t.content), h("span", { class: "sr-only" }, tr(`todos.status.${t.status}`))),
          ),
        )
      : h("p", { class: "list-empty" }, tr("todos.none")),
  );
}
