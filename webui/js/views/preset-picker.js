// The agent preset picker, shown while a session is still blank: one radio per preset (name,
// trust, description); a broken preset is greyed out with its reason. Picking calls
// agentPreset.select (only a blank session may switch); "Details" opens the preset viewer.

import { h, icon, setChildren } from "./dom.js";
import { describeError } from "../state/problems.js";
import { presetDescription, presetName } from "../state/host-words.js";
import { t } from "../i18n/i18n.js";

export class PresetPicker {
  /** ctx: {config, toast(msg), view(id), selected(sessionId, presetId), loaded()} */
  constructor(ctx) {
    this.ctx = ctx;
    this.value = null; // agentPreset.list value
    this.known = null; // the last value read: names while the roster is read again
    this.loading = null;
    this.sessionId = null;
    this.current = null;
    this.busy = false;
    this.el = h("fieldset", { class: "preset-picker", testid: "preset-picker" });
  }

  /** The roster (cached until invalidated; a list asked for before an invalidation is dropped,
   * so a preset just copied is never missing from it). */
  load() {
    if (this.value) return Promise.resolve(this.value);
    if (!this.loading) {
      const gen = (this.gen = (this.gen ?? 0) + 1);
      this.loading = this.ctx.config
        .listPresets()
        .then((r) => {
          if (gen !== this.gen) return this.load(); // invalidated meanwhile: ask again
          this.loading = null;
          if (r.ok) {
            this.value = this.known = r.value;
            this.ctx.loaded?.();
          }
          return this.value;
        });
    }
    return this.loading;
  }

  invalidate() {
    this.value = null;
    this.loading = null;
    this.gen = (this.gen ?? 0) + 1;
    if (this.sessionId) this.show(this.sessionId, this.current);
  }

  /** A preset's name in the page's language; while the roster is read again (a setting was
   * saved) the last one read still names it, so the header never shows a bare id meanwhile. */
  name(id) {
    const p = (this.value ?? this.known)?.presets.find((x) => x.id === id);
    return p ? presetName(p) : id;
  }

  /** Render for a blank session running `current`; returns the picker's element. */
  show(sessionId, current) {
    this.sessionId = sessionId;
    this.current = current;
    this.load().then(() => this.sessionId === sessionId && this.render());
    return this.el;
  }

  render() {
    const presets = this.value?.presets ?? [];
    const current = this.current ?? presets.find((p) => p.isDefault)?.id;
    const focused = this.el.contains(document.activeElement) ? document.activeElement.value : null;
    const rows = presets.map((p) => {
      const id = `preset-${p.id}`;
      const radio = h("input", { type: "radio", name: "agent-preset", id, value: p.id, testid: "preset-radio", disabled: !!p.broken || this.busy });
      radio.checked = p.id === current;
      radio.addEventListener("change", () => radio.checked && this.pick(p.id));
      const details = h("button", { type: "button", class: "btn btn-ghost btn-small", testid: "preset-details", "aria-label": t("presets.detailsOf", { name: presetName(p) }) }, t("presets.details"));
      details.addEventListener("click", () => this.ctx.view(p.id));
      return h(
        "div",
        { class: ["preset-option", p.broken && "is-broken", p.id === current && "is-current"], testid: "preset-option", dataset: { presetId: p.id } },
        radio,
        h(
          "label",
          { for: id },
          h("span", { class: "preset-name" }, h("span", { translate: p.trust === "user" ? "no" : undefined }, presetName(p)), p.trust === "user" ? h("span", { class: "badge badge-user", title: t("presets.yoursTitle") }, t("presets.yours")) : null),
          p.broken
            ? h("span", { class: "preset-broken", testid: "preset-broken" }, icon("x"), t("presets.broken", { reason: p.broken }))
            : h("span", { class: "preset-desc", translate: p.trust === "user" ? "no" : undefined }, presetDescription(p)),
        ),
        details,
      );
    });
    setChildren(this.el, h("legend", {}, t("presets.agent")), presets.length ? rows : h("p", { class: "muted" }, t("presets.loading")));
    if (focused) this.el.querySelector(`input[value="${CSS.escape(focused)}"]`)?.focus();
  }

  async pick(presetId) {
    const sessionId = this.sessionId;
    if (!sessionId || presetId === this.current) return;
    this.busy = true;
    const r = await this.ctx.config.selectPreset(sessionId, presetId);
    this.busy = false;
    if (r.ok) {
      this.current = r.value.agentPreset;
      this.ctx.selected(sessionId, r.value.agentPreset);
    } else {
      this.ctx.toast(describeError(r.error));
    }
    if (this.sessionId === sessionId) this.render();
  }
}
