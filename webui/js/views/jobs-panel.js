// The background jobs of the open session (from session/jobs frames): label, status, elapsed
// time, Stop (job.stop) and the captured output (job.output, refreshed while the job runs).

import { h, icon, clear } from "./dom.js";
import { describeError } from "../state/problems.js";
import { t, tOr } from "../i18n/i18n.js";
import { PressGuard } from "./press-guard.js";

const LIVE = new Set(["running", "stopping"]);
const REFRESH_MS = 1500;

/** "4 s", "2 min 05 s", "1 h 03 min". */
export function elapsed(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return t("jobs.seconds", { s });
  if (s < 3600) return t("jobs.minutes", { m: Math.floor(s / 60), s: String(s % 60).padStart(2, "0") });
  return t("jobs.hours", { h: Math.floor(s / 3600), m: String(Math.floor((s % 3600) / 60)).padStart(2, "0") });
}

export class JobsPanel {
  /** @param {HTMLElement} root @param {{turns: TurnCalls, toast(msg)}} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.sessionId = null;
    this.jobs = [];
    this.open = false;
    this.outputs = new Map(); // jobId → {node, timer} for outputs being shown
    this.tick = 0;
    this.press = new PressGuard(root, () => this.render()); // a job frame never eats a click on Output or Stop
  }

  set(sessionId, jobs, open) {
    if (sessionId !== this.sessionId) this.closeOutputs();
    const was = new Map(this.jobs.map((j) => [j.id, j.status]));
    this.sessionId = sessionId;
    this.jobs = jobs ?? [];
    for (const job of this.jobs) {
      const ended = LIVE.has(was.get(job.id)) && !LIVE.has(job.status);
      if (ended && this.outputs.has(job.id)) this.refreshOutput(job.id); // its last words
    }
    this.open = open && this.jobs.length > 0;
    this.render();
  }

  closeOutputs() {
    for (const { timer } of this.outputs.values()) clearTimeout(timer);
    this.outputs.clear();
  }

  render() {
    if (this.press.defer()) return;
    this.root.hidden = !this.open;
    clearInterval(this.tick);
    this.tick = 0;
    if (!this.open) {
      this.closeOutputs();
      return;
    }
    const shown = new Map([...this.outputs].map(([id, o]) => [id, o.node]));
    clear(this.root);
    this.root.append(h("h2", { class: "panel-title" }, t("jobs.label")));
    const list = h("ul", { class: "job-list", role: "list" });
    for (const job of this.jobs) list.append(this.jobNode(job, shown.get(job.id)));
    this.root.append(list);
    if (this.jobs.some((j) => LIVE.has(j.status))) this.tick = setInterval(() => this.updateElapsed(), 1000);
  }

  updateElapsed() {
    for (const job of this.jobs) {
      const el = this.root.querySelector(`[data-job-id="${CSS.escape(job.id)}"] .job-elapsed`);
      if (el) el.textContent = elapsed((job.finishedAt ?? Date.now()) - job.startedAt);
    }
  }

  jobNode(job, outputNode) {
    const live = LIVE.has(job.status);
    const stop = h("button", { type: "button", class: "btn btn-small btn-danger-ghost", testid: "job-stop", disabled: job.status !== "running", title: t("jobs.stopTitle") }, icon("stop"), h("span", {}, job.status === "stopping" ? t("jobs.stopping") : t("composer.stop")));
    stop.addEventListener("click", () => this.stop(job, stop));
    const showing = this.outputs.has(job.id);
    const toggle = h("button", { type: "button", class: "btn btn-small", testid: "job-output-toggle", "aria-expanded": String(showing) }, icon("terminal"), h("span", {}, showing ? t("jobs.hideOutput") : t("jobs.output")));
    const output = outputNode ?? h("pre", { class: "job-output", testid: "job-output", tabindex: "0", translate: "no" });
    output.hidden = !showing;
    toggle.addEventListener("click", () => this.toggleOutput(job, output));
    return h(
      "li",
      { class: ["job", `job-${job.status}`], testid: "job-item", dataset: { jobId: job.id, status: job.status } },
      h(
        "div",
        { class: "job-head" },
        h("span", { class: ["badge", "job-status", live && "badge-running"], testid: "job-status" }, tOr(`jobs.status.${job.status}`, job.status)),
        h("span", { class: "job-elapsed", testid: "job-elapsed" }, elapsed((job.finishedAt ?? Date.now()) - job.startedAt)),
        h("span", { class: "job-id" }, job.id),
      ),
      h("code", { class: "job-label", testid: "job-label", title: job.label, translate: "no" }, job.label),
      job.detail ? h("div", { class: "job-detail", translate: "no" }, job.detail) : null,
      h("div", { class: "job-actions" }, toggle, live ? stop : null),
      output,
    );
  }

  async stop(job, button) {
    button.disabled = true;
    const r = await this.ctx.turns.stopJob(this.sessionId, job.id);
    if (!r.ok) {
      this.ctx.toast(describeError(r.error));
      button.disabled = false;
    }
  }

  toggleOutput(job, node) {
    const shown = this.outputs.get(job.id);
    if (shown) {
      clearTimeout(shown.timer);
      this.outputs.delete(job.id);
    } else {
      this.outputs.set(job.id, { node, timer: 0 });
      node.textContent = t("common.loading");
      this.refreshOutput(job.id);
    }
    this.render();
  }

  async refreshOutput(jobId) {
    const entry = this.outputs.get(jobId);
    if (!entry || !this.sessionId) return;
    const sid = this.sessionId;
    const r = await this.ctx.turns.jobOutput(sid, jobId);
    if (this.outputs.get(jobId) !== entry || this.sessionId !== sid) return;
    const node = entry.node;
    if (!r.ok) node.textContent = describeError(r.error);
    else {
      const cut = r.value.offset > 0 ? `${t("jobs.cut", { count: r.value.offset })}\n` : "";
      const pinned = node.scrollHeight - node.scrollTop - node.clientHeight < 24;
      node.textContent = cut + (r.value.text || t("jobs.noOutputYet"));
      if (pinned) node.scrollTop = node.scrollHeight;
    }
    const job = this.jobs.find((j) => j.id === jobId);
    if (r.ok && job && LIVE.has(job.status)) entry.timer = setTimeout(() => this.refreshOutput(jobId), REFRESH_MS);
  }
}
