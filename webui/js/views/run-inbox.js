// The sidebar's Inbox: automations' runs, unread first, each with its outcome (changed N files,
// answered, needs you, failed) and the one-line summary it wrote (docs/decisions/automations.md).
// Opening a run opens its session with the Changes view; Archive takes it out of the inbox;
// Discard run removes its session and worktree. A section of its own, beside the session list.

import { h, icon, clear, setChildren } from "./dom.js";
import { confirm } from "./confirm.js";
import { describeError } from "../state/problems.js";
import { outcomeKey } from "../state/automation-calls.js";
import { t } from "../i18n/i18n.js";
import { PressGuard } from "./press-guard.js";

const REFRESH_MS = 15_000;

export class RunInbox {
  /** ctx: {calls: AutomationCalls, toast, openRun(run), openAutomations()} */
  constructor(ctx) {
    this.ctx = ctx;
    this.runs = [];
    this.open = true;
    this.seq = 0;
    this.toggle = h("button", { type: "button", class: "inbox-toggle", testid: "inbox-toggle", "aria-expanded": "true" });
    this.toggle.addEventListener("click", () => {
      this.open = !this.open;
      this.render();
    });
    this.manage = h("button", { type: "button", class: "btn btn-ghost btn-small", testid: "open-automations", title: t("automations.title") }, t("automations.manage"));
    this.manage.addEventListener("click", () => ctx.openAutomations());
    this.list = h("ul", { class: "session-list inbox-list", testid: "inbox-list", role: "list", "aria-label": t("inbox.label") });
    this.el = h("section", { class: "run-inbox", testid: "inbox", "aria-label": t("inbox.label") }, h("div", { class: "inbox-head" }, this.toggle, this.manage), this.list);
    this.timer = null;
    this.debounce = null;
    this.press = new PressGuard(this.el, () => this.render()); // a re-read never eats a click on a run
  }

  /** Read the inbox now, and every REFRESH_MS while the page is connected. */
  start() {
    clearInterval(this.timer);
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
    return this.refresh();
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  /** Soon (a session's attention changed: a run may have ended). */
  soon() {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => this.refresh(), 300);
  }

  async refresh() {
    const seq = ++this.seq;
    const r = await this.ctx.calls.runs();
    if (seq !== this.seq || !r.ok) return;
    this.runs = r.value.items;
    this.render();
  }

  render() {
    if (this.press.defer()) return;
    const unread = this.runs.filter((r) => !r.read).length;
    setChildren(this.toggle, icon("chevron", `icon inbox-chevron${this.open ? " is-open" : ""}`), h("span", {}, t("inbox.label")), unread ? h("span", { class: "badge inbox-unread", testid: "inbox-unread" }, String(unread)) : null);
    this.toggle.setAttribute("aria-expanded", String(this.open));
    clear(this.list);
    this.list.hidden = !this.open;
    if (!this.runs.length) {
      this.list.append(h("li", { class: "list-empty", testid: "inbox-empty" }, t("inbox.empty")));
      return;
    }
    for (const run of this.runs) this.list.append(this.item(run));
  }

  item(run) {
    const open = h(
      "button",
      { type: "button", class: "inbox-open", testid: "inbox-run", dataset: { runId: run.runId, outcome: run.outcome, read: String(run.read) }, disabled: !run.sessionId },
      h("span", { class: "inbox-title", translate: "no" }, run.automationName || run.automationId),
      h("span", { class: `inbox-outcome outcome-${run.outcome}`, testid: "inbox-outcome" }, t(outcomeKey(run), { count: run.changedFiles })),
      run.summary ? h("span", { class: "inbox-summary muted", translate: "no", testid: "inbox-summary" }, run.summary) : null,
    );
    open.addEventListener("click", async () => {
      this.ctx.openRun(run);
      if (!run.read) {
        await this.ctx.calls.markRead(run.runId);
        await this.refresh();
      }
    });
    const archive = h("button", { type: "button", class: "btn btn-ghost btn-icon", testid: "inbox-archive", title: t("inbox.archive"), "aria-label": t("inbox.archive") }, icon("archive"));
    archive.addEventListener("click", async () => {
      const r = await this.ctx.calls.archiveRun(run.runId);
      if (!r.ok) this.ctx.toast(describeError(r.error));
      await this.refresh();
    });
    const discard = h("button", { type: "button", class: "btn btn-ghost btn-icon", testid: "inbox-discard", title: t("inbox.discard"), "aria-label": t("inbox.discard") }, icon("trash"));
    discard.addEventListener("click", async () => {
      const sure = await confirm({
        title: t("inbox.discard"),
        body: [t("inbox.discardConfirm")],
        testid: "inbox-discard-confirm",
        actions: [{ label: t("inbox.discard"), value: "discard", tone: "danger", testid: "inbox-discard-yes" }],
      });
      if (sure !== "discard") return;
      const r = await this.ctx.calls.discardRun(run.runId);
      if (!r.ok) this.ctx.toast(describeError(r.error));
      await this.refresh();
    });
    return h("li", { class: ["inbox-item", !run.read && "unread"], testid: "inbox-item" }, open, h("span", { class: "inbox-actions" }, archive, discard));
  }
}
