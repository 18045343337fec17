// The session's permissions, from its projection `permissions`: one badge in the header says
// what will happen ("Auto — runs inside this folder, asks before anything else"); it opens the
// one mode picker (Read-only / Auto / Ask / Full access, permission.set), the session's "Allow
// network" switch, what sandbox this machine offers, and the "Allow always" rules, each
// revocable (permission.revoke). Full access shows its consequence and asks to confirm first.

import { h, icon, clear, tNodes } from "./dom.js";
import { describeError } from "../state/problems.js";
import { badgeText, modeHint, modeName, scopeText } from "../state/host-words.js";
import { t } from "../i18n/i18n.js";

const FULL = "danger-full-access";

export class PermissionsView {
  /** ctx: {turns, toast(message, tone)} */
  constructor(ctx) {
    this.ctx = ctx;
    this.sessionId = null;
    this.value = null;
    this.confirming = false;
    this.busy = false;
    // The mode's name always shows in full; the rest of the line may shorten, and is only for
    // assistive tech at narrow widths (docs/decisions.md, "Review and context, part 2").
    this.modeName = h("strong", { class: "perm-mode-name", testid: "permission-mode-name" });
    this.rest = h("span", { class: "btn-label perm-badge-rest" });
    this.label = h("span", { class: "perm-badge", testid: "permission-badge" }, this.modeName, this.rest);
    this.button = h("button", { type: "button", class: "btn btn-small perm-toggle", testid: "permissions-toggle", hidden: true, "aria-haspopup": "dialog" }, icon("shield"), this.label);
    this.button.addEventListener("click", () => this.open());
    this.modes = h("div", { class: "perm-modes", role: "radiogroup", "aria-labelledby": "perm-modes-head", testid: "permission-modes" });
    this.confirmBox = h("div", { class: "perm-confirm", testid: "full-access-confirm", hidden: true });
    this.network = h("input", { type: "checkbox", testid: "permission-network" });
    this.network.addEventListener("change", () => this.set({ network: this.network.checked }));
    this.networkRow = h("label", { class: "perm-network" }, this.network, h("span", {}, h("strong", {}, t("perm.network")), t("perm.networkHint")));
    this.sandboxLine = h("p", { class: "hint perm-sandbox", testid: "permission-sandbox" });
    this.list = h("div", { class: "perm-list", testid: "permission-rules" });
    this.summary = h("p", { class: "perm-summary", testid: "permission-preset" });
    const close = h("button", { type: "button", class: "btn btn-icon", testid: "permissions-close", "aria-label": t("common.close") }, icon("x"));
    close.addEventListener("click", () => this.dialog.close());
    this.dialog = h(
      "dialog",
      { class: "dialog perm-dialog", testid: "permissions-dialog", "aria-labelledby": "perm-title" },
      h("header", { class: "dialog-head" }, h("h2", { id: "perm-title" }, t("perm.title")), close),
      h(
        "div",
        { class: "dialog-body" },
        this.summary,
        h("h3", { class: "perm-head", id: "perm-modes-head" }, t("perm.modesHead")),
        this.modes,
        this.confirmBox,
        this.networkRow,
        this.sandboxLine,
        h("h3", { class: "perm-head" }, t("perm.rulesHead")),
        this.list,
      ),
    );
    this.dialog.addEventListener("close", () => { this.confirming = false; });
    document.body.append(this.dialog);
  }

  /** The active session and its `permissions` projection value (null: none known yet). */
  update(sessionId, value) {
    if (sessionId !== this.sessionId) this.confirming = false;
    this.sessionId = sessionId;
    this.value = value ?? null;
    this.button.hidden = !sessionId || !this.value;
    if (!this.value) return;
    const rules = this.value.rules ?? [];
    const badge = badgeText(this.value) || this.title(this.value.currentValue);
    const name = this.title(this.value.currentValue);
    const cut = badge.startsWith(name) ? name.length : badge.indexOf(" — ");
    this.modeName.textContent = cut > 0 ? badge.slice(0, cut) : badge;
    this.rest.textContent = `${cut > 0 ? badge.slice(cut) : ""}${rules.length ? t("perm.rulesCount", { count: rules.length }) : ""}`;
    this.button.title = t("perm.buttonTitle", { badge });
    this.button.dataset.mode = this.value.currentValue;
    if (this.dialog.open) this.render();
  }

  title(mode) {
    return modeName(mode, (this.value?.options ?? []).find((o) => o.value === mode)?.name);
  }

  open() {
    this.render();
    if (!this.dialog.open) this.dialog.showModal();
  }

  render() {
    const v = this.value ?? { rules: [], options: [] };
    clear(this.summary).append(h("strong", {}, badgeText(v) || this.title(v.currentValue)));
    this.renderModes(v);
    this.renderConfirm(v);
    const sandboxed = v.currentValue !== FULL && v.sandbox?.kind && v.sandbox.kind !== "none";
    this.network.checked = !!v.network;
    this.network.disabled = this.busy || !sandboxed;
    this.networkRow.classList.toggle("is-off", !sandboxed);
    const reason = h("span", { translate: "no" }, v.sandbox?.reason ?? ""); // the host's words for what it found
    this.sandboxLine.replaceChildren(v.sandbox?.kind === "none" ? tNodes("perm.noSandbox", { reason }) : v.sandbox ? tNodes("perm.sandbox", { reason }) : "");
    this.renderRules(v.rules ?? []);
  }

  renderModes(v) {
    clear(this.modes);
    for (const option of v.options ?? []) {
      const input = h("input", { type: "radio", name: "perm-mode", value: option.value, checked: option.value === v.currentValue, disabled: this.busy });
      input.addEventListener("change", () => this.choose(option.value));
      this.modes.append(
        h("label", { class: ["perm-mode", option.value === FULL && "is-danger"], testid: "permission-mode", dataset: { mode: option.value } }, input, h("span", { class: "perm-mode-text" }, h("strong", {}, modeName(option.value, option.name)), h("span", { class: "hint" }, modeHint(option.value, option.description ?? "")))),
      );
    }
  }

  renderConfirm(v) {
    this.confirmBox.hidden = !this.confirming;
    clear(this.confirmBox);
    if (!this.confirming) return;
    const yes = h("button", { type: "button", class: "btn btn-small btn-danger", testid: "full-access-yes" }, t("perm.fullYes"));
    const no = h("button", { type: "button", class: "btn btn-small", testid: "full-access-no" }, t("perm.fullNo"));
    yes.addEventListener("click", () => { this.confirming = false; this.set({ preset: FULL, confirmFullAccess: true }); });
    no.addEventListener("click", () => { this.confirming = false; this.render(); });
    this.confirmBox.append(h("p", { role: "alert" }, t("perm.fullWarning")), h("div", { class: "perm-confirm-actions" }, no, yes));
  }

  choose(mode) {
    if (mode === this.value?.currentValue) return;
    if (mode === FULL) {
      this.confirming = true;
      this.render();
      return;
    }
    this.confirming = false;
    this.set({ preset: mode });
  }

  async set(change) {
    this.busy = true;  // the controls wait for the answer (they keep what the person just chose)
    for (const input of this.dialog.querySelectorAll("input")) input.disabled = true;
    const r = await this.ctx.turns.setPermission({ sessionId: this.sessionId, ...change });
    this.busy = false;
    if (r.ok) this.value = r.value.permissions;  // the projection frame brings the same value
    else this.ctx.toast(describeError(r.error));
    this.update(this.sessionId, this.value);
    this.render();
  }

  renderRules(rules) {
    clear(this.list);
    if (!rules.length) {
      this.list.append(h("p", { class: "hint", testid: "permission-rules-empty" }, t("perm.noRules")));
      return;
    }
    const ul = h("ul", { class: "perm-rules", role: "list" });
    for (const rule of rules) {
      const revoke = h("button", { type: "button", class: "btn btn-small btn-danger", testid: "permission-revoke" }, t("perm.revoke"));
      revoke.addEventListener("click", () => this.revoke(rule, revoke));
      ul.append(h("li", { class: "perm-rule", testid: "permission-rule", dataset: { tool: rule.tool, scope: rule.scope } }, h("code", { class: "perm-label" }, scopeText(rule.tool, rule.words, rule.label)), revoke));
    }
    this.list.append(ul);
  }

  async revoke(rule, button) {
    button.disabled = true;
    const r = await this.ctx.turns.revokePermission({ sessionId: this.sessionId, tool: rule.tool, scope: rule.scope });
    button.disabled = false;
    if (!r.ok) this.ctx.toast(describeError(r.error));
    // the new rule list arrives as a `permissions` projection and re-renders this list
  }
}
