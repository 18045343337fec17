// The session's permissions, from its projection `permissions`: a shield in the header names the
// preset the session was created with and counts its "Allow always" rules; it opens a list of
// those rules, each revocable (permission.revoke). A revoked rule asks again on its next use.

import { h, icon, clear } from "./dom.js";
import { describeError } from "../state/problems.js";
import { transportFailure } from "../client/errors.js";

const SHORT = { "workspace-write": "Asks first", "read-only": "Read-only", "danger-full-access": "Full access" };

export class PermissionsView {
  /** ctx: {client, toast(message, tone)} */
  constructor(ctx) {
    this.ctx = ctx;
    this.sessionId = null;
    this.value = null;
    this.label = h("span", { class: "btn-label" }, "");
    this.button = h("button", { type: "button", class: "btn btn-small perm-toggle", testid: "permissions-toggle", hidden: true, "aria-haspopup": "dialog" }, icon("shield"), this.label);
    this.button.addEventListener("click", () => this.open());
    this.list = h("div", { class: "perm-list", testid: "permission-rules" });
    this.summary = h("p", { class: "perm-summary", testid: "permission-preset" });
    const close = h("button", { type: "button", class: "btn btn-icon", testid: "permissions-close", "aria-label": "Close" }, icon("x"));
    close.addEventListener("click", () => this.dialog.close());
    this.dialog = h(
      "dialog",
      { class: "dialog perm-dialog", testid: "permissions-dialog", "aria-labelledby": "perm-title" },
      h("header", { class: "dialog-head" }, h("h2", { id: "perm-title" }, "Permissions in this session"), close),
      h("div", { class: "dialog-body" }, this.summary, h("h3", { class: "perm-head" }, "“Allow always” rules"), this.list),
    );
    document.body.append(this.dialog);
  }

  /** The active session and its `permissions` projection value (null: none known yet). */
  update(sessionId, value) {
    this.sessionId = sessionId;
    this.value = value ?? null;
    this.button.hidden = !sessionId || !this.value;
    if (!this.value) return;
    const rules = this.value.rules ?? [];
    this.label.textContent = `${SHORT[this.value.currentValue] ?? this.value.currentValue}${rules.length ? ` · ${rules.length} rule${rules.length === 1 ? "" : "s"}` : ""}`;
    const option = (this.value.options ?? []).find((o) => o.value === this.value.currentValue);
    this.button.title = option ? `${option.name}: ${option.description ?? ""}` : "Permissions";
    if (this.dialog.open) this.render();
  }

  open() {
    this.render();
    if (!this.dialog.open) this.dialog.showModal();
  }

  render() {
    const v = this.value ?? { rules: [], options: [] };
    const option = (v.options ?? []).find((o) => o.value === v.currentValue);
    clear(this.summary).append(h("strong", {}, option?.name ?? v.currentValue ?? ""), option?.description ? ` — ${option.description}` : "");
    clear(this.list);
    const rules = v.rules ?? [];
    if (!rules.length) {
      this.list.append(h("p", { class: "hint", testid: "permission-rules-empty" }, "None. “Allow always” on an approval adds a rule for that command or this folder, never for every call of a tool."));
      return;
    }
    const ul = h("ul", { class: "perm-rules", role: "list" });
    for (const rule of rules) {
      const revoke = h("button", { type: "button", class: "btn btn-small btn-danger", testid: "permission-revoke" }, "Revoke");
      revoke.addEventListener("click", () => this.revoke(rule, revoke));
      ul.append(h("li", { class: "perm-rule", testid: "permission-rule", dataset: { tool: rule.tool, scope: rule.scope } }, h("code", { class: "perm-label" }, rule.label), revoke));
    }
    this.list.append(ul);
  }

  async revoke(rule, button) {
    button.disabled = true;
    const r = await this.ctx.client.call("permission.revoke", { sessionId: this.sessionId, tool: rule.tool, scope: rule.scope }).catch(transportFailure);
    button.disabled = false;
    if (!r.ok) this.ctx.toast(describeError(r.error));
    // the new rule list arrives as a `permissions` projection and re-renders this list
  }
}
