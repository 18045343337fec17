// Settings: provider, base URL, model, reasoning effort (settings.describe / settings.update)
// and the provider's API key (credentials.describe / set / unset). The key field is write-only:
// it is never filled from the host, only its "configured" state is shown.

import { h, icon, clear } from "./dom.js";
import { describeError } from "../state/problems.js";
import { transportFailure } from "../client/errors.js";

export class SettingsDialog {
  /** ctx: {client, onChanged()} */
  constructor(ctx) {
    this.ctx = ctx;
    this.settings = null;
    this.creds = null;
    this.provider = h("select", { id: "set-provider", testid: "settings-provider" });
    this.baseUrl = h("input", { id: "set-base-url", type: "url", testid: "settings-base-url", autocomplete: "off", spellcheck: "false" });
    this.model = h("input", { id: "set-model", type: "text", testid: "settings-model", autocomplete: "off", spellcheck: "false" });
    this.effort = h("input", { id: "set-effort", type: "text", testid: "settings-effort", autocomplete: "off", placeholder: "provider default" });
    this.key = h("input", { id: "set-key", type: "password", testid: "settings-api-key", autocomplete: "new-password", spellcheck: "false", placeholder: "Paste a new key" });
    // Chrome wants a (hidden) username beside a password: the provider the key belongs to.
    this.keyUser = h("input", { type: "text", name: "username", autocomplete: "username", hidden: true, tabindex: "-1", "aria-hidden": "true" });
    this.keyStatus = h("span", { class: "key-status", testid: "credential-status" });
    this.message = h("p", { class: "settings-message", testid: "settings-message", role: "status" });
    this.saveBtn = h("button", { type: "submit", class: "btn btn-primary", testid: "settings-save" }, "Save settings");
    this.saveKeyBtn = h("button", { type: "submit", class: "btn", testid: "settings-save-key" }, "Save key");
    this.removeKeyBtn = h("button", { type: "button", class: "btn btn-danger", testid: "settings-remove-key" }, "Remove key");
    // A form of its own (a password field outside a form makes Chrome warn): submit = save key.
    this.keySection = h(
      "form",
      { class: "key-form", autocomplete: "off", novalidate: true },
      h(
        "fieldset",
        { class: "key-section" },
        h("legend", {}, "API key"),
        h("p", {}, this.keyStatus),
        h("label", { for: "set-key" }, "New key"),
        this.keyUser,
        this.key,
        h("p", { class: "hint" }, "Stored by the host; it is never shown again."),
        h("div", { class: "row-actions" }, this.removeKeyBtn, this.saveKeyBtn),
      ),
    );
    const close = h("button", { type: "button", class: "btn btn-icon", testid: "settings-close", "aria-label": "Close settings" }, icon("x"));
    const field = (id, label, input, hint) => h("div", { class: "field" }, h("label", { for: id }, label), input, hint ? h("p", { class: "hint" }, hint) : null);
    this.form = h(
      "form",
      { class: "settings-form", method: "dialog" },
      field("set-provider", "Provider", this.provider),
      field("set-base-url", "Base URL", this.baseUrl, "Leave empty for the provider's default."),
      field("set-model", "Default model", this.model, "Used by new sessions and after a model change."),
      field("set-effort", "Reasoning effort", this.effort),
      h("div", { class: "row-actions" }, this.saveBtn),
    );
    this.el = h(
      "dialog",
      { class: "settings-dialog", testid: "settings-dialog", "aria-labelledby": "settings-title" },
      h("header", { class: "dialog-head" }, h("h2", { id: "settings-title" }, "Settings"), close),
      this.message,
      this.form,
      this.keySection,
    );
    document.body.append(this.el);
    close.addEventListener("click", () => this.el.close());
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.save();
    });
    this.provider.addEventListener("change", () => this.renderProvider());
    this.keySection.addEventListener("submit", (e) => {
      e.preventDefault(); // no navigation: the key goes to the host by credentials.set
      if (!this.saveKeyBtn.disabled) this.setKey();
    });
    this.removeKeyBtn.addEventListener("click", () => this.unsetKey());
  }

  say(text, tone = "info") {
    this.message.textContent = text;
    this.message.dataset.tone = tone;
  }

  async open() {
    this.say("");
    if (!this.el.open) this.el.showModal();
    await this.load();
    this.provider.focus();
  }

  async call(method, payload) {
    return this.ctx.client.call(method, payload).catch(transportFailure);
  }

  async load() {
    const [s, c] = await Promise.all([this.call("settings.describe", {}), this.call("credentials.describe", {})]);
    if (!s.ok) {
      this.say(`Settings are not available here: ${describeError(s.error)}`, "error");
      this.form.hidden = true;
      this.keySection.hidden = true;
      return;
    }
    this.form.hidden = false;
    this.settings = s.value;
    this.creds = c.ok ? c.value : { items: [] };
    clear(this.provider);
    for (const p of s.value.providers) this.provider.append(h("option", { value: p.provider }, p.label));
    const v = s.value.values;
    this.provider.value = v.provider;
    this.baseUrl.value = v.baseUrl ?? "";
    this.model.value = v.model ?? "";
    this.effort.value = v.reasoningEffort ?? "";
    this.key.value = "";
    this.renderProvider();
  }

  info() {
    return this.settings?.providers.find((p) => p.provider === this.provider.value);
  }

  renderProvider() {
    const info = this.info();
    this.baseUrl.placeholder = info?.defaultBaseUrl ?? "";
    this.model.placeholder = info?.defaultModel ?? "";
    this.baseUrl.disabled = this.provider.value === "local";
    this.keyUser.value = this.provider.value;
    const cred = this.creds?.items.find((c) => c.ref === this.provider.value);
    this.keySection.hidden = !info?.needsKey && !cred?.configured;
    const configured = !!cred?.configured;
    this.keyStatus.textContent = configured ? `Configured${cred.source === "env" ? " (from an environment variable)" : ""}` : "Not configured";
    this.keyStatus.dataset.configured = String(configured);
    this.removeKeyBtn.hidden = !configured || cred?.source !== "file";
    const writable = cred ? cred.writable : true;
    this.key.disabled = !writable;
    this.saveKeyBtn.disabled = !writable;
  }

  async save() {
    const values = { provider: this.provider.value };
    const unset = [];
    for (const [field, input] of [["baseUrl", this.baseUrl], ["model", this.model], ["reasoningEffort", this.effort]]) {
      const v = input.value.trim();
      if (v && !input.disabled) values[field] = v;
      else if (this.settings?.user.includes(field)) unset.push(field);
    }
    this.saveBtn.disabled = true;
    const r = await this.call("settings.update", { values, unset, expectedRevision: this.settings?.revision });
    this.saveBtn.disabled = false;
    if (!r.ok) {
      if (r.error.code === "settings-conflict") await this.load();
      this.say(describeError(r.error) + (r.error.details?.field ? ` (${r.error.details.field})` : ""), "error");
      return;
    }
    this.settings = r.value;
    this.say("Settings saved.", "ok");
    this.ctx.onChanged();
  }

  async setKey() {
    const value = this.key.value;
    if (!value.trim()) {
      this.say("Paste a key first.", "error");
      return;
    }
    this.saveKeyBtn.disabled = true;
    const r = await this.call("credentials.set", { ref: this.provider.value, value });
    this.saveKeyBtn.disabled = false;
    this.key.value = ""; // never keep the secret in the page
    if (!r.ok) {
      this.say(describeError(r.error), "error");
      return;
    }
    this.say("Key saved.", "ok");
    await this.reloadCreds();
  }

  async unsetKey() {
    const r = await this.call("credentials.unset", { ref: this.provider.value });
    if (!r.ok) {
      this.say(describeError(r.error), "error");
      return;
    }
    this.say("Key removed.", "ok");
    await this.reloadCreds();
  }

  async reloadCreds() {
    const c = await this.call("credentials.describe", {});
    if (c.ok) this.creds = c.value;
    this.renderProvider();
    this.ctx.onChanged();
  }
}
