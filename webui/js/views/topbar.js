// The header above the conversation: sidebar toggle (narrow screens), title (double-click to
// rename), cwd, running badge, model picker, todo toggle, export.

import { h, icon, setChildren } from "./dom.js";
import { displayTitle, shortenPath } from "../state/session-list.js";
import { PermissionsView } from "./permissions-view.js";

export class TopBar {
  /** ctx: {client, toast(msg), toggleSidebar(), toggleTodos(), exportSession(id), renameSession(id), modelPicker} */
  constructor(root, ctx) {
    this.ctx = ctx;
    this.sessionId = null;
    const menu = h("button", { type: "button", class: "btn btn-icon sidebar-toggle", testid: "sidebar-toggle", "aria-label": "Show sessions", "aria-controls": "sidebar" }, icon("menu"));
    menu.addEventListener("click", () => ctx.toggleSidebar());
    this.title = h("h1", { class: "session-heading", testid: "session-heading", tabindex: "-1" }, "HarnessDesk");
    this.title.addEventListener("dblclick", () => this.sessionId && ctx.renameSession(this.sessionId));
    this.cwd = h("span", { class: "heading-cwd", testid: "session-cwd-heading" });
    this.running = h("span", { class: "badge badge-running", testid: "session-running-badge", hidden: true }, h("span", { class: "running-dot", "aria-hidden": "true" }), "running");
    this.preset = h("span", { class: "badge badge-preset", testid: "session-preset", hidden: true, title: "The agent preset this session runs" });
    this.plan = h("span", { class: "badge badge-plan", testid: "plan-badge", hidden: true, title: "Plan mode: the agent plans and changes nothing until /plan off" }, "plan mode");
    this.instructions = h("span", { class: "heading-instructions", testid: "instructions-file", hidden: true });
    this.todoBtn = h("button", { type: "button", class: "btn btn-small todo-toggle", testid: "todo-toggle", hidden: true, "aria-controls": "todo-panel", "aria-expanded": "false" }, icon("list"), h("span", { class: "btn-label" }, "Todos"));
    this.todoBtn.addEventListener("click", () => ctx.toggleTodos());
    this.exportBtn = h("button", { type: "button", class: "btn btn-icon", testid: "export-session", title: "Export as ZIP", "aria-label": "Export session", hidden: true }, icon("download"));
    this.exportBtn.addEventListener("click", () => this.sessionId && ctx.exportSession(this.sessionId));
    this.permissions = new PermissionsView({ client: ctx.client, toast: ctx.toast });
    root.append(
      menu,
      h("div", { class: "heading" }, h("div", { class: "heading-line" }, this.title, this.running, this.preset, this.plan), h("div", { class: "heading-sub" }, this.cwd, this.instructions)),
      h("div", { class: "top-actions" }, ctx.modelPicker.el, this.permissions.button, this.todoBtn, this.exportBtn),
    );
  }

  update({ sessionId, summary, title, running, home, todos, todosOpen, preset, instructions, plan, permissions }) {
    this.sessionId = sessionId;
    this.permissions.update(sessionId, permissions);
    this.preset.hidden = !sessionId || !preset;
    this.preset.textContent = preset ?? "";
    this.plan.hidden = !sessionId || !plan;
    this.instructions.hidden = !sessionId || !instructions;
    if (instructions) {
      this.instructions.textContent = `· ${instructions.name}${instructions.truncated ? " (first 100 KiB)" : ""}`;
      this.instructions.title = `Project instructions in use: ${instructions.path}`;
    }
    this.title.textContent = sessionId ? title || displayTitle(summary ?? {}) : "HarnessDesk";
    this.cwd.textContent = sessionId ? shortenPath(summary?.cwd, home) : "";
    this.running.hidden = !running;
    this.exportBtn.hidden = !sessionId || !!summary?.blank;
    const count = todos?.length ?? 0;
    this.todoBtn.hidden = count === 0;
    if (count) {
      const done = todos.filter((t) => t.status === "completed").length;
      setChildren(this.todoBtn, icon("list"), h("span", { class: "btn-label" }, `Todos ${done}/${count}`));
    }
    this.todoBtn.setAttribute("aria-expanded", String(!!todosOpen));
  }
}

/** The todo list panel (last todo/write wins). */
export function renderTodos(root, todos) {
  const items = todos ?? [];
  const mark = { completed: "✓", in_progress: "▸", pending: "○" };
  setChildren(
    root,
    h("h2", { class: "panel-title" }, "Todo list"),
    items.length
      ? h(
          "ul",
          { class: "todo-list", role: "list" },
          items.map((t) =>
            h("li", { class: `todo todo-${t.status}`, testid: "todo-item", dataset: { status: t.status } }, h("span", { class: "todo-mark", "aria-hidden": "true" }, mark[t.status] ?? "○"), h("span", { class: "todo-text" }, t.content), h("span", { class: "sr-only" }, ` (${t.status.replace("_", " ")})`)),
          ),
        )
      : h("p", { class: "list-empty" }, "No todos."),
  );
}
