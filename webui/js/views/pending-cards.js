// Approval and question cards for the active session. Cards are keyed by rpcId and vanish when
// the manager drops the entry (on */resolved, from any window). Question form state survives
// re-renders of other cards.

import { h, icon, clear, tNodes } from "./dom.js";
import { alwaysButton, alwaysText, approvalReason } from "../state/host-words.js";
import { emptyForm, chooseOption, setCustom, buildAnswerSet, answerProblems } from "../state/answers.js";
import { renderApprovalArgs } from "./approval-args.js";
import { guardCard } from "./bidi.js";
import { rejectNote } from "./reject-note.js";
import { askedByLine } from "./subagents.js";
import { hasDraft, installApprovalKeys, keyHint, mayTakeFocus } from "./approval-keys.js";
import { t } from "../i18n/i18n.js";

/** What "Allow always" would remember, named before the click: `code` spans stay code. */
function scopeLine(tool, always) {
  const parts = alwaysText(tool, always).split("`").map((piece, i) => (i % 2 ? h("code", { translate: "no" }, piece) : piece));
  return h("p", { class: ["card-scope", always.exact && "is-exact"], testid: "approval-scope", dataset: { exact: String(!!always.exact) } }, ...parts);
}

export class PendingCardsView {
  /** @param {HTMLElement} root @param {import("../state/session-manager.js").SessionManager} manager */
  constructor(root, manager, { focusComposer = () => {} } = {}) {
    this.root = root;
    this.manager = manager;
    this.focusComposer = focusComposer;
    this.sessionId = null;
    this.cards = new Map(); // rpcId → {el, entry, update()}
    this.forms = new Map(); // rpcId → question form state
    this.openSession = null; // (sessionId) → void: "Open" on a card a subagent asked
  }

  setSession(sessionId) {
    this.sessionId = sessionId;
    this.render();
  }

  render() {
    const entries = this.sessionId ? this.manager.pendingFor(this.sessionId) : [];
    const live = new Set(entries.map((e) => e.rpcId));
    let refocus = false;
    let fresh = null;
    for (const [id, card] of this.cards) {
      if (!live.has(id)) {
        refocus ||= card.el.contains(document.activeElement);
        card.el.remove();
        this.cards.delete(id);
        this.forms.delete(id);
      }
    }
    for (const entry of entries) {
      let card = this.cards.get(entry.rpcId);
      if (!card) {
        card = entry.kind === "approval" ? this.approvalCard(entry) : this.questionCard(entry);
        this.cards.set(entry.rpcId, card);
        this.root.append(card.el);
        if (entry.kind === "approval" && entry.state === "open") fresh ??= card;
      }
      card.update(entry);
    }
    this.root.hidden = entries.length === 0;
    this.moveFocus(fresh, refocus);
  }

  /** A new approval takes the focus (its hotkeys then work), also from a card just answered;
   * when the answered card goes, the focus goes to the next open approval or the composer.
   * While the composer holds a draft, answering a card always gives the focus back to it. */
  moveFocus(fresh, removedFocus) {
    const holder = [...this.cards.values()].find((c) => c.el.contains(document.activeElement));
    const answered = removedFocus || (holder && !holder.open);
    if (hasDraft()) {
      if (answered) this.focusComposer();
    } else if (fresh && (answered || mayTakeFocus())) fresh.el.focus();
    else if (removedFocus) {
      const open = [...this.cards.values()].find((c) => c.open && c.el.classList.contains("approval-card"));
      if (open) open.el.focus();
      else this.focusComposer();
    }
  }

  status(entry) {
    if (entry.error) return h("p", { class: "card-error", role: "alert" }, entry.error);
    if (entry.state === "sending") return h("p", { class: "card-note" }, t("cards.sending"));
    if (entry.state === "sent") return h("p", { class: "card-note" }, t("cards.sent"));
    return null;
  }

  approvalCard(entry) {
    const f = entry.frame;
    const always = f.always ?? null; // the host's words for what "Allow always" remembers
    const buttons = [
      ["allowed-once", t("cards.allowOnce"), "approval-allow-once", "btn-primary"],
      ["allowed-always", alwaysButton(always), "approval-allow-always", ""],
      ["rejected", t("cards.reject"), "approval-reject", "btn-danger"],
    ].map(([outcome, label, testid, cls]) => {
      const b = h("button", { type: "button", class: `btn ${cls}`, testid, dataset: { outcome } }, label, keyHint(outcome));
      b.addEventListener("click", () => answer(outcome));
      return b;
    });
    const answer = (outcome) => this.manager.answerApproval(entry.rpcId, outcome, outcome === "rejected" ? reject.value() : null);
    const reject = rejectNote(buttons[2], () => answer("rejected"));
    const note = h("div", { class: "card-status" });
    const actions = h("div", { class: "card-actions" }, buttons);
    const el = h(
      "section",
      { class: "card approval-card", testid: "approval-card", role: "group", "aria-label": t("cards.approvalLabel", { tool: f.toolName }), dataset: { rpcId: entry.rpcId, toolName: f.toolName } },
      h("header", { class: "card-head" }, icon("tool"), h("h3", {}, tNodes("cards.allowTool", { tool: h("code", { testid: "approval-tool", translate: "no" }, f.toolName) }))),
      askedByLine(f, this.openSession),
      f.reason || f.why ? h("p", { class: "card-reason", testid: "approval-reason", translate: f.why ? undefined : "no" }, approvalReason(f)) : null,
      renderApprovalArgs(f.toolName, f.arguments, f.preview),
      always ? scopeLine(f.toolName, always) : null,
      actions,
      reject.el,
      note,
    );
    guardCard(el, el.querySelector(".card-reason, .card-args") ?? actions); // Trojan Source
    installApprovalKeys(el, buttons);
    const card = {
      el,
      open: entry.state === "open",
      update: (e) => {
        card.open = e.state === "open";
        el.classList.toggle("is-waiting", e.state === "open");
        for (const b of buttons) b.disabled = e.state !== "open";
        reject.setDisabled(e.state !== "open");
        clear(note).append(...[this.status(e)].filter(Boolean));
      },
    };
    return card;
  }

  questionCard(entry) {
    const qs = entry.frame.questions;
    if (!this.forms.has(entry.rpcId)) this.forms.set(entry.rpcId, emptyForm(qs));
    const submit = h("button", { type: "button", class: "btn btn-primary", testid: "question-submit" }, t("cards.sendAnswer"));
    const dismiss = h("button", { type: "button", class: "btn", testid: "question-dismiss", title: t("cards.declineTitle") }, t("common.dismiss"));
    const note = h("div", { class: "card-status" });
    const fields = qs.map((q, qi) => this.questionField(entry, q, qi, () => sync()));
    const sync = () => {
      const problems = answerProblems(qs, buildAnswerSet(qs, this.forms.get(entry.rpcId)));
      submit.disabled = problems.length > 0 || entry.state !== "open";
      submit.title = problems.length ? t("cards.answerAll") : t("cards.sendAnswer");
      for (const fld of fields) fld.sync(this.forms.get(entry.rpcId));
    };
    submit.addEventListener("click", () => {
      const value = { sessionId: entry.sessionId, answer: buildAnswerSet(qs, this.forms.get(entry.rpcId)) };
      this.manager.answer(entry.rpcId, value);
    });
    dismiss.addEventListener("click", () => {
      this.manager.dismiss(entry.rpcId);
    });
    const el = h(
      "section",
      { class: "card question-card", testid: "question-card", role: "group", "aria-label": t("cards.agentAsks"), dataset: { rpcId: entry.rpcId } },
      h("header", { class: "card-head" }, h("h3", {}, t("cards.agentAsks"))),
      askedByLine(entry.frame, this.openSession),
      fields.map((f) => f.el),
      h("div", { class: "card-actions" }, dismiss, submit),
      note,
    );
    return {
      el,
      update: (e) => {
        entry = e;
        el.classList.toggle("is-waiting", e.state === "open");
        sync();
        clear(note).append(...[this.status(e)].filter(Boolean));
      },
    };
  }

  questionField(entry, q, qi, onChange) {
    const name = `q-${entry.rpcId}-${qi}`;
    const form = () => this.forms.get(entry.rpcId);
    const setForm = (next) => {
      this.forms.set(entry.rpcId, next);
      onChange();
    };
    const inputs = (q.options ?? []).map((o) => {
      const input = h("input", { type: q.multiSelect ? "checkbox" : "radio", name, value: o.label, testid: "question-option-input" });
      input.addEventListener("change", () => setForm(chooseOption(form(), q, o.label)));
      const label = h(
        "label",
        { class: "option", testid: "question-option", dataset: { label: o.label } },
        input,
        h("span", { class: "option-label", translate: "no" }, o.label),
        o.description ? h("span", { class: "option-desc", translate: "no" }, o.description) : null,
      );
      return { input, label, value: o.label };
    });
    const custom = h("input", {
      type: "text",
      class: "question-custom",
      testid: "question-custom",
      placeholder: q.options?.length ? t("cards.ownAnswer") : t("cards.yourAnswer"),
      "aria-label": t("cards.answerTo", { question: q.question }),
    });
    custom.addEventListener("input", () => setForm(setCustom(form(), q, custom.value)));
    const el = h(
      "fieldset",
      { class: "question", testid: "question", dataset: { questionId: q.id } },
      h("legend", {}, q.header ? h("span", { class: "q-header", translate: "no" }, q.header) : null, h("span", { class: "q-text", translate: "no" }, q.question)),
      q.multiSelect ? h("p", { class: "q-hint" }, t("cards.chooseAny")) : null,
      inputs.length ? h("div", { class: "options", role: q.multiSelect ? "group" : "radiogroup" }, inputs.map((i) => i.label)) : null,
      custom,
    );
    return {
      el,
      sync: (f) => {
        const st = f[q.id];
        for (const i of inputs) i.input.checked = st.selected.includes(i.value);
        if (custom.value !== st.custom) custom.value = st.custom;
      },
    };
  }
}
