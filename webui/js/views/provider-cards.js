// One card per model provider on the Settings page: the built-in model, DeepSeek, and each
// OpenAI-compatible endpoint profile. A card edits only its own route's section (so switching
// between providers never carries one provider's URL or model to another), tests a draft with
// llm.discoverModels, and stores a typed key with credentials.set (write-only: never shown).

import { append, h, icon, clear } from "./dom.js";
import { scalarFields } from "./schema-form.js";
import {
  addModel,
  credentialText,
  draftProfile,
  effortsOf,
  fallbackOf,
  fieldOps,
  keyRefFor,
  keySlotAfter,
  removeModel,
  removeProfileOps,
  saveProfileOps,
} from "../state/settings-model.js";
import { routeName } from "../state/host-words.js";
import { t } from "../i18n/i18n.js";

let seq = 0;

/** ctx: {call(method, payload) → result, say(text, tone), reload(), problem(err) → text} */
function card(title, status, testid, open, body, onSubmit = null, own = true) {
  const badge = h("span", { class: `route-status ${status.active ? "is-ok" : "is-off"}`, testid: "provider-status" }, status.active ? t("provider.ready") : status.text);
  // A form (Chrome wants a password field inside one): Enter in any field saves the card.
  const form = h("form", { class: "provider-body", autocomplete: "off", novalidate: true }, body);
  form.addEventListener("submit", (e) => {
    e.preventDefault(); // never navigate: the card saves through the API
    onSubmit?.();
  });
  return h("details", { class: "provider-card", testid, open: !!open }, h("summary", {}, h("span", { class: "provider-name", translate: own ? undefined : "no" }, title), badge), form);
}

function statusOf(route) {
  if (!route) return { active: false, text: t("provider.notSaved") };
  return { active: route.active, text: route.problem ? shortProblem(route.problem) : t("provider.notAvailable") };
}

function shortProblem(text) {
  if (/needs an API key/.test(text)) return t("provider.needsKey");
  if (/not an http/.test(text)) return t("provider.checkUrl");
  if (/model file is missing/.test(text)) return t("provider.modelMissing");
  return t("provider.notAvailable");
}

/** The built-in model: threads and context size (the model reloads with them on its next turn). */
export function localCard(view, route, ctx, open) {
  const fields = scalarFields(view, ["threads", "contextSize"]);
  const save = h("button", { type: "submit", class: "btn btn-primary", testid: "provider-save" }, t("common.save"));
  const submit = async () => {
    const values = Object.fromEntries(fields.map((f) => [f.name, f.read()]));
    await ctx.write("settings.mutate", { ns: view.ns, ops: fieldOps(values, fallbackOf(view)), expectedRevision: view.revision }, save);
  };
  const body = [
    h("p", { class: "hint" }, t("provider.localHint")),
    fields.map((f) => f.el),
    h("p", { class: "hint" }, t("provider.localReload")),
    h("div", { class: "row-actions" }, save),
  ];
  return card(route ? routeName(route) : t("provider.route.local"), statusOf(route), "provider-card-local", open, body, submit);
}

/** DeepSeek (ns llm-deepseek, the whole section) or one endpoint profile (index into profiles). */
export class RemoteCard {
  constructor({ view, route, profile = null, index = null, creds, ctx, open = false }) {
    this.view = view;
    this.route = route;
    this.profile = profile;
    this.index = index;
    this.ctx = ctx;
    this.isProfile = profile !== null;
    const value = this.isProfile ? profile : view.value;
    this.models = (value.models ?? []).map(cleanModel);
    this.apiKeyEnv = value.apiKeyEnv ?? null;
    const id = `pc-${++seq}`;
    this.name = this.isProfile ? input(`${id}-name`, "text", value.name ?? "", "provider-name-input") : null;
    this.baseURL = input(`${id}-url`, "url", value.baseURL ?? "", "provider-base-url");
    this.baseURL.placeholder = "http://127.0.0.1:11434/v1";
    this.key = input(`${id}-key`, "password", "", "provider-api-key");
    this.key.autocomplete = "new-password";
    this.key.placeholder = t("provider.pasteKey");
    const cred = this.apiKeyEnv ? creds[this.apiKeyEnv] : null;
    this.cred = cred;
    this.keyStatus = h("span", { class: "key-status", testid: "credential-status", dataset: { configured: String(!!cred?.configured) } }, credentialText(cred));
    this.keyWritable = cred ? cred.writable : true;
    this.key.disabled = !this.keyWritable;
    this.removeKey = h("button", { type: "button", class: "btn btn-small", testid: "provider-remove-key", hidden: !(cred?.configured && cred.source === "file") }, t("provider.removeKey"));
    this.removeKey.addEventListener("click", () => this.unsetKey());
    this.chips = h("ul", { class: "model-chips", testid: "provider-models", role: "list" });
    this.found = h("select", { id: `${id}-found`, testid: "provider-discovered", "aria-label": t("provider.offered"), hidden: true });
    this.addBtn = h("button", { type: "button", class: "btn btn-small", testid: "provider-add-model", hidden: true }, icon("plus"), h("span", { class: "btn-label" }, t("library.add")));
    this.addBtn.addEventListener("click", () => this.addFound());
    this.testBtn = h("button", { type: "button", class: "btn btn-small", testid: "provider-test" }, t("provider.test"));
    this.testBtn.addEventListener("click", () => this.test());
    this.testNote = h("p", { class: "hint test-note", testid: "provider-test-result", role: "status" });
    this.effort = h("select", { id: `${id}-effort`, testid: "provider-effort" });
    this.effortValue = value.reasoningEffort ?? "";
    this.effortField = h("div", { class: "field" }, h("label", { for: this.effort.id }, t("picker.effort")), this.effort, h("p", { class: "hint" }, t("provider.effortHint")));
    this.timeout = input(`${id}-idle`, "number", String(Math.round((value.streamIdleTimeoutMs ?? 60000) / 1000)), "provider-idle-timeout");
    this.timeout.min = "1";
    this.saveBtn = h("button", { type: "submit", class: "btn btn-primary", testid: "provider-save" }, t("common.save"));
    // Chrome wants a (hidden) username beside a password: the reference the key is stored under.
    this.keyUser = h("input", { type: "text", name: "username", autocomplete: "username", hidden: true, tabindex: "-1", "aria-hidden": "true" });
    const actions = [this.saveBtn];
    if (this.isProfile) {
      const remove = h("button", { type: "button", class: "btn btn-danger", testid: "provider-remove" }, t("chips.remove"));
      remove.addEventListener("click", () => this.remove());
      actions.unshift(remove);
    }
    const title = this.isProfile ? value.name || t("provider.newEndpoint") : route ? routeName(route) : "DeepSeek";
    const ref = this.apiKeyEnv ?? (this.isProfile ? keyRefFor(value.name || value.id) : null);
    this.el = card(title, statusOf(route), this.isProfile ? `provider-card-${value.id}` : "provider-card-deepseek", open, [
      this.name ? field(this.name, t("provider.name")) : null,
      field(this.baseURL, t("provider.baseUrl"), this.isProfile ? t("provider.baseUrlHint") : null),
      h(
        "div",
        { class: "field" },
        h("label", { for: this.key.id }, t("settings.issue.apiKey")),
        h("div", { class: "key-row" }, this.keyUser, this.key, this.removeKey),
        h("p", { class: "hint" }, this.keyStatus, (this.slotNote = h("span", { testid: "provider-key-slot" }, ref ? t("provider.storedAs", { ref }) : "")), this.keyWritable ? "" : t("provider.envWins")),
      ),
      h("div", { class: "field" }, h("span", { class: "field-label" }, t("provider.models")), this.chips, h("div", { class: "discover-row" }, this.testBtn, this.found, this.addBtn), this.testNote),
      this.effortField,
      field(this.timeout, t("provider.timeout"), t("provider.timeoutHint")),
      h("div", { class: "row-actions" }, actions),
    ], () => this.save(), !this.isProfile);
    this.keyUser.value = ref ?? "";
    // where a refused field's reason goes (views/settings-dialog.js placeIssues)
    this.el.dataset.ns = view.ns;
    this.el.dataset.settingPrefix = this.isProfile ? `profiles.${index}.` : "";
    const places = [[this.name, "name"], [this.baseURL, "baseURL"], [this.key, "apiKeyEnv"], [this.chips, "models"], [this.effort, "reasoningEffort"], [this.timeout, "streamIdleTimeoutMs"]];
    for (const [control, name] of places) if (control) control.closest(".field").dataset.settingField = name;
    if (this.isProfile) {
      // the slot named as it will be after Save (it follows the name unless the person chose it)
      this.name.addEventListener("input", () => {
        const others = new Set((view.value.profiles ?? []).filter((_, i) => i !== index).map((p) => p.apiKeyEnv).filter(Boolean));
        const slot = keySlotAfter(profile, this.name.value, others, cred);
        const shown = slot.ref ?? slot.wanted;
        this.slotNote.textContent = shown ? t("provider.storedAs", { ref: shown }) : "";
      });
    }
    this.el.addEventListener("input", () => (this.dirty = true));
    this.el.addEventListener("change", () => (this.dirty = true));
    this.renderModels();
  }

  renderModels() {
    clear(this.chips);
    if (!this.models.length) this.chips.append(h("li", { class: "hint" }, this.isProfile ? t("provider.noneChosen") : t("provider.none")));
    for (const m of this.models) {
      const drop = h("button", { type: "button", class: "btn btn-icon btn-small", "aria-label": t("composer.removeImage", { name: m.id }), testid: "provider-model-remove" }, icon("x"));
      drop.addEventListener("click", () => {
        this.models = removeModel(this.models, m.id);
        this.dirty = true;
        this.renderModels();
      });
      this.chips.append(h("li", { class: "model-chip", testid: "provider-model", dataset: { model: m.id } }, h("span", { translate: "no" }, m.name ?? m.id), drop));
    }
    const efforts = effortsOf(this.models);
    clear(this.effort);
    append(this.effort, [h("option", { value: "" }, t("provider.defaultEffort")), efforts.map((e) => h("option", { value: e }, e))]);
    this.effort.value = efforts.includes(this.effortValue) ? this.effortValue : "";
    this.effortField.hidden = efforts.length === 0;
  }

  addFound() {
    const opt = this.found.selectedOptions[0];
    if (!opt?.value) return;
    this.models = addModel(this.models, opt.value, opt.dataset.name || null);
    this.dirty = true;
    this.renderModels();
  }

  async test() {
    const payload = { settingsNs: this.view.ns };
    if (this.route) payload.provider = this.route.provider;
    const url = this.baseURL.value.trim();
    if (url) payload.baseURL = url;
    if (this.key.value.trim()) payload.apiKey = this.key.value.trim();
    this.testBtn.disabled = true;
    this.testNote.textContent = t("provider.asking");
    const r = await this.ctx.call("llm.discoverModels", payload);
    this.testBtn.disabled = false;
    if (!r.ok) {
      this.testNote.textContent = t("provider.listFailed", { reason: this.ctx.problem(r.error) });
      this.testNote.dataset.tone = "error";
      return;
    }
    const models = r.value.models;
    this.testNote.dataset.tone = "ok";
    this.testNote.textContent = models.length ? t("provider.connected", { count: models.length }) : t("provider.connectedNone");
    clear(this.found);
    append(this.found, [h("option", { value: "" }, t("provider.chooseModel")), models.map((m) => h("option", { value: m.id, dataset: { name: m.name ?? "" } }, m.name ? `${m.name} (${m.id})` : m.id))]);
    this.found.hidden = this.addBtn.hidden = models.length === 0;
  }

  async save() {
    this.ctx.say(t("provider.saving"));
    if (this.found.value) this.addFound(); // a model picked in the list but not added yet
    const idle = Math.max(1, Number(this.timeout.value) || 60) * 1000;
    const keyTyped = !!this.key.value.trim();
    let ok;
    if (this.isProfile) {
      // the key's slot follows the endpoint's name (docs/decisions.md, "Settings in the person's words")
      const others = new Set((this.view.value.profiles ?? []).filter((_, i) => i !== this.index).map((p) => p.apiKeyEnv).filter(Boolean));
      const slot = keySlotAfter(this.profile, this.name.value, others, this.cred);
      if (slot.move && !(await this.moveKey(slot.move, slot.ref))) return;
      const profile = draftProfile(
        { ...this.profile, extra: withoutEdited(this.profile), name: this.name.value, baseURL: this.baseURL.value, apiKeyEnv: slot.ref ?? (keyTyped ? slot.wanted : null), models: this.models, reasoningEffort: this.effort.value },
        { keyTyped },
      );
      profile.streamIdleTimeoutMs = idle;
      this.apiKeyEnv = profile.apiKeyEnv ?? null;
      ok = await this.ctx.write("settings.mutate", { ns: this.view.ns, ops: saveProfileOps(this.index, profile), expectedRevision: this.view.revision }, this.saveBtn, false);
      if (!ok && slot.move) await this.moveKey(slot.ref, slot.move); // the profile still names the old slot
    } else {
      const values = { baseURL: this.baseURL.value.trim(), models: this.models, reasoningEffort: this.effort.value || null, streamIdleTimeoutMs: idle };
      ok = await this.ctx.write("settings.mutate", { ns: this.view.ns, ops: fieldOps(values, fallbackOf(this.view)), expectedRevision: this.view.revision }, this.saveBtn, false);
    }
    if (ok && keyTyped && this.apiKeyEnv) ok = await this.setKey();
    if (ok) {
      this.dirty = false;
      await this.ctx.reload();
      this.ctx.say(t("settings.saved"), "ok"); // once the page shows what was saved
    } // refused: the form keeps what the person typed, each reason beside its field
  }

  /** Move the stored key to the slot of the endpoint's new name; false (and said) when refused. */
  async moveKey(ref, to) {
    const r = await this.ctx.call("credentials.move", { ref, to });
    if (!r.ok) this.ctx.say(this.ctx.problem(r.error), "error");
    return r.ok;
  }

  async setKey() {
    const r = await this.ctx.call("credentials.set", { ref: this.apiKeyEnv, value: this.key.value.trim() });
    this.key.value = ""; // never keep the secret in the page
    if (!r.ok) this.ctx.say(this.ctx.problem(r.error), "error");
    return r.ok;
  }

  async unsetKey() {
    const r = await this.ctx.call("credentials.unset", { ref: this.apiKeyEnv });
    if (!r.ok) this.ctx.say(this.ctx.problem(r.error), "error");
    else this.ctx.say(t("provider.keyRemoved"), "ok");
    await this.ctx.reload();
  }

  async remove() {
    if (this.index === null) return;
    if (this.index >= (this.view.value.profiles ?? []).length) {
      this.ctx.discardDraft(); // never saved: just drop the draft
      return;
    }
    const ok = await this.ctx.write("settings.mutate", { ns: this.view.ns, ops: removeProfileOps(this.index), expectedRevision: this.view.revision }, null);
    if (ok) this.ctx.say(t("provider.removed", { name: this.profile.name }), "ok");
  }
}

/** A model entry as stored: no empty lists or nulls (so an unchanged list equals the base). */
function cleanModel(m) {
  const out = {};
  for (const [k, v] of Object.entries(m)) if (v !== null && !(Array.isArray(v) && v.length === 0)) out[k] = v;
  return out;
}

function withoutEdited(profile) {
  const { name: _n, baseURL: _u, apiKeyEnv: _k, models: _m, reasoningEffort: _e, streamIdleTimeoutMs: _t, ...rest } = profile;
  return rest;
}

function input(id, type, value, testid) {
  const el = h("input", { id, type, testid, autocomplete: "off", spellcheck: "false" });
  el.value = value;
  return el;
}

function field(control, label, hint = null) {
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control, hint ? h("p", { class: "hint" }, hint) : null);
}
