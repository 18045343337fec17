// The preset viewer: a preset's preset.toml (agentPreset.read), with Copy (to a new preset of
// your own), and for your own presets Open folder and Remove. Shipped presets are read-only.

import { h, icon, clear, tNodes } from "./dom.js";
import { presetDescription, presetName } from "../state/host-words.js";
import { describeError } from "../state/problems.js";
import { t } from "../i18n/i18n.js";

const ID_PATTERN = "^[a-z0-9][a-z0-9\\-]*$";

export class PresetViewer {
  /** ctx: {config, toast(msg), changed(), entry(id): AgentPresetEntry | undefined} */
  constructor(ctx) {
    this.ctx = ctx;
    this.presetId = null;
    this.title = h("h2", { id: "preset-viewer-title" }, t("presets.preset"));
    this.body = h("div", { class: "preset-viewer-body" });
    this.message = h("p", { class: "settings-message", testid: "preset-message", role: "status" });
    const close = h("button", { type: "button", class: "btn btn-icon", testid: "preset-viewer-close", "aria-label": t("common.close") }, icon("x"));
    close.addEventListener("click", () => this.el.close());
    this.el = h(
      "dialog",
      { class: "settings-dialog preset-viewer", testid: "preset-viewer", "aria-labelledby": "preset-viewer-title" },
      h("header", { class: "dialog-head" }, this.title, close),
      this.message,
      this.body,
    );
    document.body.append(this.el);
  }

  say(text, tone = "info") {
    this.message.textContent = text;
    this.message.dataset.tone = tone;
  }

  async open(presetId) {
    this.presetId = presetId;
    this.title.textContent = presetId;
    this.say("");
    clear(this.body);
    this.body.append(h("p", { class: "muted" }, t("common.loading")));
    if (!this.el.open) this.el.showModal();
    const r = await this.ctx.config.readPreset(presetId);
    if (presetId !== this.presetId) return;
    clear(this.body);
    if (!r.ok) {
      this.say(describeError(r.error), "error");
      return;
    }
    const entry = await this.ctx.entry(presetId); // the roster's view: default? broken?
    if (presetId !== this.presetId) return;
    this.render(r.value, entry);
  }

  render(p, entry) {
    const own = p.trust === "user";
    this.title.textContent = presetName(p);
    this.title.translate = !own;
    const facts = h(
      "p",
      { class: "preset-facts" },
      h("code", { translate: "no" }, p.agentPreset),
      " · ",
      own ? t("presets.own") : t("presets.shipped"),
      p.description ? h("span", { class: "preset-desc", translate: own ? "no" : undefined }, presetDescription(p)) : null,
    );
    const content = p.content ? h("pre", { class: "preset-content", testid: "preset-content", translate: "no" }, p.content) : h("pre", { class: "preset-content", testid: "preset-content" }, t("presets.noToml"));
    const actions = h("div", { class: "row-actions" });
    if (own) {
      const open = h("button", { type: "button", class: "btn", testid: "preset-open-folder" }, t("presets.openFolder"));
      open.addEventListener("click", () => this.openFolder(p.agentPreset));
      const remove = h("button", { type: "button", class: "btn btn-danger", testid: "preset-remove" }, t("chips.remove"));
      remove.addEventListener("click", () => this.remove(p.agentPreset, remove));
      actions.append(open, remove);
    }
    if (entry && !entry.isDefault && !entry.broken) {
      const def = h("button", { type: "button", class: "btn", testid: "preset-make-default", title: t("presets.makeDefaultTitle") }, t("presets.makeDefault"));
      def.addEventListener("click", () => this.makeDefault(p.agentPreset));
      actions.append(def);
    } else if (entry?.isDefault) {
      facts.append(h("span", { class: "badge", testid: "preset-is-default" }, t("presets.default")));
    }
    const copy = h("button", { type: "button", class: "btn btn-primary", testid: "preset-copy" }, t("presets.copy"));
    copy.addEventListener("click", () => this.showCopy(p));
    actions.append(copy);
    this.body.append(facts, content, actions);
  }

  showCopy(p) {
    const existing = this.body.querySelector(".preset-copy-form");
    if (existing) return existing.querySelector("input").focus();
    const id = h("input", { id: "preset-copy-id", type: "text", required: true, pattern: ID_PATTERN, maxlength: "100", testid: "preset-copy-id", autocomplete: "off", spellcheck: "false", value: `my-${p.agentPreset}` });
    const name = h("input", { id: "preset-copy-name", type: "text", maxlength: "200", testid: "preset-copy-name", autocomplete: "off", placeholder: p.name ?? "" });
    const save = h("button", { type: "submit", class: "btn btn-primary", testid: "preset-copy-save" }, t("presets.makeCopy"));
    const form = h(
      "form",
      { class: "preset-copy-form settings-form", novalidate: true },
      h("div", { class: "field" }, h("label", { for: "preset-copy-id" }, t("presets.newId")), id, h("p", { class: "hint" }, t("presets.idHint"))),
      h("div", { class: "field" }, h("label", { for: "preset-copy-name" }, t("presets.nameOptional")), name),
      h("div", { class: "row-actions" }, save),
    );
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (!id.checkValidity()) return this.say(t("presets.idBad"), "error");
      save.disabled = true;
      const payload = { from: p.agentPreset, agentPreset: id.value, ...(name.value.trim() ? { name: name.value.trim() } : {}) };
      const r = await this.ctx.config.copyPreset(payload);
      save.disabled = false;
      if (!r.ok) return this.say(r.error.details?.reason && r.error.code !== "agent-preset-invalid" ? t("error.withDetail", { message: describeError(r.error), detail: r.error.details.reason }) : describeError(r.error), "error");
      this.ctx.changed();
      this.ctx.toast(t("presets.copied", { id: r.value.agentPreset }));
      this.open(r.value.agentPreset);
    });
    this.body.append(form);
    id.focus();
    id.select();
  }

  /** agent-presets.default (a setting: privileged, like every settings write). */
  async makeDefault(presetId) {
    const ops = [{ op: "set", path: ["default"], value: presetId }];
    const r = await this.ctx.config.mutateSettings({ ns: "agent-presets", ops });
    if (!r.ok) return this.say(describeError(r.error), "error");
    this.ctx.changed();
    this.ctx.toast(t("presets.nowDefault", { id: presetId }));
    this.el.close();
  }

  async openFolder(presetId) {
    const r = await this.ctx.config.openPreset(presetId);
    if (!r.ok) return this.say(describeError(r.error), "error");
    if (r.value.opened) return this.say(t("presets.opened"));
    this.say("");
    this.body.querySelector(".preset-path")?.remove();
    this.body.append(h("p", { class: "preset-path", testid: "preset-path" }, tNodes("presets.folder", { path: h("code", { translate: "no" }, r.value.path) })));
  }

  async remove(presetId, button) {
    if (button.dataset.confirm !== "yes") {
      button.dataset.confirm = "yes";
      button.textContent = t("presets.reallyRemove");
      return;
    }
    const r = await this.ctx.config.removePreset(presetId);
    if (!r.ok) return this.say(describeError(r.error), "error");
    this.ctx.changed();
    this.ctx.toast(t("presets.removed", { id: presetId }));
    this.el.close();
  }
}
