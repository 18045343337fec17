// The goal bar above the composer (docs/architecture.md, "Goals"): the session's goal from its
// `goal` projection — phase, objective, rounds used of the cap, the blocker as a tooltip — and
// Pause / Resume / Complete / Clear / Edit. Each action sends goal.* with the ref read from the
// projection at click time, one at a time; a rejection shows inline. There is no create button:
// goals are set with /goal <objective> (the slash menu) or by asking the agent.

import { h, clear, append } from "./dom.js";
import { describeError } from "../state/problems.js";
import { goalBarModel, RESUME_AFTER_IDLE_MS } from "../state/fold-goals.js";
import { t } from "../i18n/i18n.js";

const PHASE = new Set(["active", "paused", "blocked"]);

export class GoalBar {
  /** el: the bar's element; ctx: {turns} */
  constructor(el, ctx) {
    this.el = el;
    this.ctx = ctx;
    this.sessionId = null;
    this.model = null;
    this.busy = false;
    this.editing = false;
    this.error = null;
    this.hiddenId = null; // a cleared goal, hidden until its `null` arrives
    this.args = [null, null, null, false];
    this.idleSince = null;
    this.idleTimer = null;
    this.shape = null; // what the bar's elements show, but the rounds: unchanged → no rebuild
    this.roundsEl = null;
  }

  /** The active session, its `goal` projection value, the newest round seen live, and whether
   * the session is running. */
  set(sessionId, value, round, running = false) {
    if (sessionId !== this.sessionId) {
      this.editing = false;
      this.error = null;
      this.hiddenId = null;
      this.idleSince = null;
    }
    if (value === null) this.hiddenId = null;
    this.sessionId = sessionId;
    this.args = [sessionId, value, round, running];
    if (running) this.idleSince = null;
    else this.idleSince ??= performance.now();
    const idleMs = running || this.idleSince === null ? null : performance.now() - this.idleSince;
    const next = sessionId ? goalBarModel(value, round, this.hiddenId, idleMs) : null;
    clearTimeout(this.idleTimer);
    if (next?.phase === "active" && !next.canResume && idleMs !== null) {
      this.idleTimer = setTimeout(() => this.set(...this.args), RESUME_AFTER_IDLE_MS - idleMs + 50);
    }
    if (this.editing && next && this.model && next.ref.revision === this.model.ref.revision) {
      this.model = next;
      return; // keep the half-typed edit
    }
    this.model = next;
    this.render();
  }

  render() {
    // Only the rounds changed (a round started): update that text in place. Rebuilding the
    // buttons at every round lost clicks — a Pause pressed while its button was replaced.
    const m = this.model;
    const shape = m && JSON.stringify([m.ref, m.objective, m.phase, m.reason, m.canPause, m.canResume, this.editing, this.busy, this.error]);
    if (m && shape === this.shape && this.roundsEl?.isConnected) {
      this.roundsEl.textContent = m.rounds;
      return;
    }
    this.shape = shape;
    this.build();
  }

  build() {
    const m = this.model;
    this.el.hidden = !m;
    clear(this.el);
    if (!m) return;
    this.el.dataset.phase = m.phase;
    const phase = h("span", { class: `goal-phase phase-${m.phase}`, testid: "goal-phase", title: m.reason ?? "" }, PHASE.has(m.phase) ? t(`goalBar.phase.${m.phase}`) : m.phase);
    const main = this.editing ? this.editor(m) : h("span", { class: "goal-objective", testid: "goal-objective", title: m.objective, translate: "no" }, m.objective);
    const rounds = h("span", { class: "goal-rounds", testid: "goal-rounds" }, m.rounds);
    this.roundsEl = rounds;
    const actions = h("span", { class: "goal-actions" });
    const button = (label, testid, run) => {
      const b = h("button", { type: "button", class: "btn btn-small", testid, disabled: this.busy }, label);
      b.addEventListener("click", run);
      actions.append(b);
    };
    if (!this.editing) {
      if (m.canPause) button(t("library.pause"), "goal-pause", () => this.act("goal.pause"));
      if (m.canResume) button(t("library.resume"), "goal-resume", () => this.act("goal.resume"));
      button(t("goalBar.complete"), "goal-complete", () => this.act("goal.complete"));
      button(t("queue.edit"), "goal-edit", () => this.startEdit());
      button(t("goalBar.clear"), "goal-clear", () => this.act("goal.clear"));
    }
    append(this.el, [
      h("div", { class: "goal-line" }, h("span", { class: "goal-label" }, t("goal.label")), phase, main, rounds, actions),
      m.phase === "blocked" && m.reason ? h("p", { class: "goal-reason", testid: "goal-reason", translate: "no" }, m.reason) : null,
      this.error ? h("p", { class: "goal-error", role: "alert", testid: "goal-error" }, this.error) : null,
    ]);
  }

  editor(m) {
    const input = h("input", { type: "text", class: "goal-input", testid: "goal-edit-input", value: m.objective, "aria-label": t("goalBar.objective") });
    const save = h("button", { type: "submit", class: "btn btn-small btn-primary", testid: "goal-edit-save", disabled: this.busy }, t("common.save"));
    const cancel = h("button", { type: "button", class: "btn btn-small", testid: "goal-edit-cancel" }, t("common.cancel"));
    cancel.addEventListener("click", () => {
      this.editing = false;
      this.render();
    });
    const form = h("form", { class: "goal-edit" }, input, save, cancel);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const objective = input.value.trim();
      if (objective) this.act("goal.edit", { objective });
    });
    queueMicrotask(() => input.focus());
    return form;
  }

  startEdit() {
    this.editing = true;
    this.error = null;
    this.render();
  }

  async act(key, extra = {}) {
    const m = this.model;
    if (!m || this.busy) return; // single-flight
    this.busy = true;
    this.error = null;
    this.render();
    const sessionId = this.sessionId;
    const r = await this.ctx.turns.goal(key, { sessionId, ref: m.ref, ...extra });
    this.busy = false;
    if (sessionId !== this.sessionId) return;
    if (r.ok) {
      this.editing = false;
      if (key === "goal.clear") this.hiddenId = m.ref.id;
      if (key === "goal.clear") this.model = null;
    } else {
      this.error = describeError(r.error);
    }
    this.render();
  }
}
