// Settings, built from settings.describe: a card per model provider (the built-in model,
// DeepSeek, each OpenAI-compatible endpoint profile, which can be added, renamed and removed),
// the default permission preset for new sessions, and any other exposed namespace as a plain form.
// Keys are write-only: only "configured (environment / file)" ever comes back.

import { append, h, icon, clear } from "./dom.js";
import { describeError } from "../state/problems.js";
import { RemoteCard, localCard } from "./provider-cards.js";
import { choiceHint, choiceTitle, scalarFields } from "./schema-form.js";
import { choicesOf, fallbackOf, fieldOps, fieldsOf, issueLabel, issueLines, profileIdFor, refsOf } from "../state/settings-model.js";
import { confirmLoosening } from "./loosen-confirm.js";
import { languageOf, previewTheme, themeOf } from "./theme.js";
import { openUserFile } from "./mcp-panel.js";
import { spaceBlock } from "./undo-space.js";
import { ModelLibrary } from "./model-library.js";
import { RemoteHostsSection } from "./remote-hosts.js";
import { setLanguage, t } from "../i18n/i18n.js";

const PROVIDER_NS = new Set(["llm-local", "llm-deepseek", "llm-openai-compatible"]);
const LABELS = { permission: "settings.section.permission", "agent-presets": "settings.section.agentPresets", "ui-appearance": "settings.section.appearance", undo: "settings.section.undo", hooks: "settings.section.hooks" };
const HIDDEN = new Set(["ui-onboarding"]); // acknowledged from the welcome notice, not edited here

export class SettingsDialog {
  /** ctx: {config, onChanged(), servers(), lookForServers(), remotes? (state/remote-hosts.js)} */
  constructor(ctx) {
    this.ctx = ctx;
    this.library = new ModelLibrary({
      call: (m, payload) => this.call(m, payload),
      say: (text, tone) => this.say(text, tone),
      onChanged: () => ctx.onChanged(),
      servers: () => ctx.servers?.() ?? [],
      lookForServers: () => ctx.lookForServers?.(),
    });
    this.remoteHosts = ctx.remotes ? new RemoteHostsSection({ remotes: ctx.remotes, say: (text, tone) => this.say(text, tone) }) : null;
    this.open_ = new Set(); // provider cards the user expanded (kept across reloads)
    this.cards = [];
    this.draft = null; // a profile being added, not saved yet
    this.message = h("p", { class: "settings-message", testid: "settings-message", role: "status" });
    this.body = h("div", { class: "settings-body", testid: "settings-body" });
    const close = h("button", { type: "button", class: "btn btn-icon", testid: "settings-close", "aria-label": t("settings.close") }, icon("x"));
    this.docBtn = h("button", { type: "button", class: "btn btn-small", testid: "settings-open-document" }, t("settings.openDocumentButton"));
    this.docBtn.addEventListener("click", () => this.openDocument());
    this.mcpBtn = h("button", { type: "button", class: "btn btn-small", testid: "settings-open-mcp", title: t("settings.openMcpTitle") }, t("settings.openMcp"));
    this.mcpBtn.addEventListener("click", () => openUserFile({ config: this.ctx.config, toast: (m) => this.say(m) }, this.mcpBtn));
    this.el = h(
      "dialog",
      { class: "settings-dialog settings-page", testid: "settings-dialog", "aria-labelledby": "settings-title" },
      h("header", { class: "dialog-head" }, h("h2", { id: "settings-title" }, t("sidebar.settings")), close),
      this.message,
      this.body,
      h("footer", { class: "dialog-foot settings-foot" }, h("p", { class: "hint" }, t("settings.applyAtOnce")), this.mcpBtn, this.docBtn),
    );
    document.body.append(this.el);
    close.addEventListener("click", () => this.el.close());
    // A previewed theme or language that was not saved goes back to the saved one when Settings closes.
    this.el.addEventListener("close", () => {
      if (!this.previewing) return;
      this.previewing = false;
      const saved = themeOf(this.describe);
      if (saved) previewTheme(saved);
      const language = languageOf(this.describe);
      if (language) setLanguage(language);
    });
  }

  say(text, tone = "info") {
    this.message.textContent = text;
    this.message.dataset.tone = tone;
  }

  async open() {
    this.say("");
    this.draft = null;
    this.shown = false;
    if (!this.el.open) this.el.showModal();
    await this.load();
    this.el.querySelector("summary, input, select, button")?.focus();
  }

  /** A host change (another window, a hand edit): reload unless a card holds unsaved edits. */
  async changed() {
    if (!this.el.open) return;
    if (this.cards.some((c) => c.dirty) || this.draft) {
      this.say(t("settings.changedElsewhere"));
      return;
    }
    await this.load();
  }

  async call(method, payload) {
    return this.ctx.config.dialog(method, payload);
  }

  async load() {
    const [s, p, d] = await Promise.all([this.call("settings.describe", {}), this.call("llm.providers", {}), this.call("host.describe", {})]);
    if (!s.ok) {
      clear(this.body);
      this.say(t("settings.notAvailable", { reason: describeError(s.error) }), "error");
      this.docBtn.hidden = true;
      return;
    }
    const refs = refsOf(s.value.namespaces);
    const c = refs.length ? await this.call("credentials.describe", { refs }) : { ok: true, value: { credentials: {} } };
    this.describe = s.value;
    this.providers = p.ok ? p.value.providers : [];
    const current = d.ok ? this.providers.find((r) => r.provider === d.value.provider) : null;
    if (current && !current.active && !this.shown) this.open_.add(current.provider); // what needs attention
    this.shown = true;
    this.creds = c.ok ? c.value.credentials : {};
    this.docBtn.hidden = !s.value.hasDocument;
    const broken = [s.value.file, c.ok ? c.value.file : null].filter((f) => f?.problem);
    if (broken.length) this.say(t("settings.fileBroken", { problem: broken.map((f) => f.problem).join(" ") }), "error");
    this.render();
    await Promise.all([this.library.load(), this.remoteHosts?.load()]);
  }

  render() {
    const spaces = new Map(this.describe.namespaces.map((n) => [n.ns, n]));
    const route = (key) => this.providers.find((r) => r.provider === key) ?? null;
    const ctx = {
      call: (m, payload) => this.call(m, payload),
      say: (text, tone) => this.say(text, tone),
      reload: () => this.load(),
      problem: (e) => problemText(e),
      write: (m, payload, btn, announce = true) => this.write(m, payload, btn, announce),
      discardDraft: () => {
        this.draft = null;
        this.render();
      },
    };
    this.cards = [];
    const providerCards = [];
    if (spaces.has("llm-local")) providerCards.push(this.remember(localCard(spaces.get("llm-local"), route("local"), ctx, this.open_.has("local")), "local"));
    if (spaces.has("llm-deepseek")) {
      const card = new RemoteCard({ view: spaces.get("llm-deepseek"), route: route("deepseek"), creds: this.creds, ctx, open: this.open_.has("deepseek") });
      this.cards.push(card);
      providerCards.push(this.remember(card.el, "deepseek"));
    }
    const endpoints = spaces.get("llm-openai-compatible");
    if (endpoints) {
      const profiles = endpoints.value.profiles ?? [];
      profiles.forEach((profile, index) => {
        const card = new RemoteCard({ view: endpoints, route: route(profile.id), profile, index, creds: this.creds, ctx, open: this.open_.has(profile.id) });
        this.cards.push(card);
        providerCards.push(this.remember(card.el, profile.id));
      });
      if (this.draft) {
        const card = new RemoteCard({ view: endpoints, route: null, profile: this.draft, index: profiles.length, creds: this.creds, ctx, open: true });
        card.dirty = true;
        this.cards.push(card);
        providerCards.push(card.el);
      }
    }
    const add = h("button", { type: "button", class: "btn add-endpoint", testid: "settings-add-endpoint", hidden: !endpoints || !!this.draft }, icon("plus"), h("span", { class: "btn-label" }, t("settings.addEndpoint")));
    add.addEventListener("click", () => this.addEndpoint(endpoints));
    const sections = [
      h("section", { class: "settings-section", "aria-labelledby": "set-providers" }, h("h3", { id: "set-providers" }, t("settings.providers")), h("p", { class: "hint" }, t("settings.providersHint")), providerCards, add),
      this.library.el,
      this.remoteHosts?.el,
    ].filter(Boolean);
    for (const view of this.describe.namespaces) {
      if (PROVIDER_NS.has(view.ns) || HIDDEN.has(view.ns)) continue;
      const form = this.formSection(view);
      if (form) sections.push(form);
    }
    clear(this.body).append(...sections);
  }

  remember(el, key) {
    el.addEventListener("toggle", () => (el.open ? this.open_.add(key) : this.open_.delete(key)));
    return el;
  }

  addEndpoint(endpoints) {
    const taken = new Set((endpoints.value.profiles ?? []).map((p) => p.id));
    const name = t("settings.myEndpoint");
    this.draft = { id: profileIdFor(name, taken), name, baseURL: "" };
    this.render();
    this.cards.at(-1)?.el.querySelector("input")?.focus();
  }

  /** A namespace of plain fields (the default permission preset, …) with its own Save. */
  formSection(view) {
    const fields = scalarFields(view);
    if (!fields.length) return null;
    const id = `set-ns-${view.ns}`;
    const save = h("button", { type: "button", class: "btn btn-primary", testid: `settings-save-${view.ns}` }, t("common.save"));
    save.addEventListener("click", async () => {
      const values = Object.fromEntries(fields.map((f) => [f.name, f.read()]));
      if (view.ns === "permission" && !(await this.mayLoosen(view, values))) return;
      await this.write("settings.mutate", { ns: view.ns, ops: fieldOps(values, fallbackOf(view)), expectedRevision: view.revision }, save);
    });
    const section = h("section", { class: "settings-section", testid: `settings-ns-${view.ns}`, "aria-labelledby": id, dataset: { ns: view.ns } });
    for (const f of fields) f.el.dataset.settingField = f.name;
    if (view.ns === "ui-appearance") {
      // The choice shows at once; Save keeps it, closing without saving puts the saved one back.
      section.addEventListener("change", () => {
        this.previewing = true;
        previewTheme(fields.find((f) => f.name === "theme")?.read());
        const language = fields.find((f) => f.name === "language")?.read();
        if (language) setLanguage(language, { remember: false });
      });
    }
    const note =
      view.ns === "permission"
        ? h("p", { class: "hint" }, t("settings.permissionHint"))
        : view.ns === "undo"
          ? [h("p", { class: "hint" }, t("settings.undoHint")), spaceBlock({ call: (m, p) => this.call(m, p), say: (text, tone) => this.say(text, tone) })]
          : view.ns === "hooks"
            ? h("p", { class: "hint" }, t("settings.hooksHint"))
            : null;
    return append(section, [h("h3", { id }, LABELS[view.ns] ? t(LABELS[view.ns]) : view.ns), fields.map((f) => f.el), note, h("div", { class: "row-actions" }, save)]);
  }

  /** A looser default preset waits for the person's confirmation (the form keeps the choice). */
  mayLoosen(view, values) {
    const from = view.value?.defaultPreset ?? fallbackOf(view).defaultPreset;
    const field = fieldsOf(view.schema).find((f) => f.name === "defaultPreset");
    // Full access says its consequence in plain words before the person confirms it.
    const options = choicesOf(field?.schema).map((c) => ({ value: c.value, name: choiceTitle(view.ns, "defaultPreset", c), description: c.value === "danger-full-access" ? t("settings.fullAccessWarning") : choiceHint(view.ns, "defaultPreset", c) }));
    return confirmLoosening({ from, to: values.defaultPreset, options, where: t("settings.defaultForNew") });
  }

  /** One settings write; a conflict reloads, a refusal shows the host's reason. */
  async write(method, payload, button, announce = true) {
    if (button) button.disabled = true;
    const r = await this.call(method, payload);
    if (button) button.disabled = false;
    if (!r.ok) {
      const lines = r.error.code === "settings-rejected" ? issueLines(r.error) : null;
      this.say(lines ? lines.join(" ") : problemText(r.error), "error");
      if (lines) placeIssues(this.body, payload.ns, r.error.details.issues);
      if (r.error.code === "settings-conflict") await this.load();
      return false;
    }
    placeIssues(this.body, payload.ns, []);
    if (payload.ns === "ui-appearance") this.previewing = false; // what shows is what is saved now
    this.draft = null;
    this.ctx.onChanged();
    if (announce) {
      this.say(t("settings.saved"), "ok");
      await this.load();
    }
    return true;
  }

  async openDocument() {
    const r = await this.call("settings.openDocument", {});
    this.say(r.ok ? t("settings.documentOpen") : problemText(r.error), r.ok ? "ok" : "error");
  }
}

/** Each refused field's reason beside it, in words ("Endpoint 1 · Base URL: …"): cards and
 * sections carry `data-ns` and `data-setting-prefix`, their fields `data-setting-field`. */
function placeIssues(root, ns, issues) {
  for (const old of root.querySelectorAll(`[data-ns="${CSS.escape(ns)}"] .field-error`)) old.remove();
  for (const issue of issues) {
    const path = issue.loc.join(".");
    for (const scope of root.querySelectorAll(`[data-ns="${CSS.escape(ns)}"]`)) {
      const prefix = scope.dataset.settingPrefix ?? "";
      if (!path.startsWith(prefix)) continue;
      const name = path.slice(prefix.length).split(".")[0];
      const field = scope.querySelector(`[data-setting-field="${CSS.escape(name)}"]`);
      if (!field) continue;
      field.append(h("p", { class: "field-error", testid: "field-error", role: "alert" }, t("settings.issue", { label: issueLabel(issue.loc), message: issue.msg })));
      scope.open = true; // a closed card opens on its error
    }
  }
}

/** The host's own words for a refusal that carries them; the standard sentence otherwise. */
function problemText(error) {
  if (["settings-rejected", "credential-rejected", "model-discovery-failed", "internal"].includes(error?.code) && error.message) return error.message;
  return describeError(error);
}
