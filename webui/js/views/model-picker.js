// Model picker from session.models: the models of every ready route, grouped per provider; the
// current selection is shown even when the catalog does not list it; a model that takes a
// reasoning effort offers its efforts as a second choice; choosing calls session.selectModel.

import { h, clear } from "./dom.js";
import { describeError, classifyProblem } from "../state/problems.js";
import { addServerProfile } from "./model-library.js";
import { modelName, routeName } from "../state/host-words.js";
import { t } from "../i18n/i18n.js";

const SEP = "\u0001";

export class ModelPicker {
  /** ctx: {turns, config, toast(msg), onProblem(kind|null, detail), changed?()} (after each render) */
  constructor(ctx) {
    this.ctx = ctx;
    this.sessionId = null;
    this.value = null;
    this.select = h("select", { class: "model-select", testid: "model-picker", "aria-label": t("picker.model") });
    this.effort = h("select", { class: "effort-select", testid: "model-effort", "aria-label": t("picker.effort"), hidden: true });
    this.el = h("div", { class: "model-picker", hidden: true }, this.select, this.effort);
    this.select.addEventListener("change", () => this.choose());
    this.effort.addEventListener("change", () => this.choose());
    this.select.addEventListener("focus", () => this.refresh());
  }

  setSession(sessionId) {
    this.sessionId = sessionId;
    this.el.hidden = !sessionId;
    clear(this.select);
    this.value = null;
    this.ctx.changed?.();
    if (sessionId) this.refresh();
  }

  async refresh() {
    const sid = this.sessionId;
    if (!sid) return;
    if (this.loading) {
      this.stale = true; // asked while a listing was on its way: list again once it is back
      return;
    }
    this.loading = true;
    const r = await this.ctx.turns.models(sid);
    this.loading = false;
    if (this.stale) {
      this.stale = false;
      return this.refresh();
    }
    if (sid !== this.sessionId) return;
    if (!r.ok) {
      if (!this.select.options.length) this.select.append(h("option", { value: "" }, t("picker.unavailable")));
      return;
    }
    this.render(r.value);
  }

  render(v) {
    this.value = v;
    const cur = v.current;
    const curKey = `${cur.provider}${SEP}${cur.model}`;
    clear(this.select);
    let listed = false;
    this.entries = new Map();
    for (const g of v.groups) {
      const og = h("optgroup", { label: routeName({ provider: g.id, displayName: g.name }) });
      for (const m of g.models) {
        const key = `${g.id}${SEP}${m.id}`;
        const efforts = (m.reasoning?.efforts ?? []).map((e) => e.id);
        this.entries.set(key, { provider: g.id, model: m.id, reasoningEfforts: efforts, defaultEffort: m.reasoning?.defaultEffort ?? null });
        if (key === curKey) listed = true;
        og.append(h("option", { value: key, translate: "no" }, modelName(g.id, m)));
      }
      if (g.models.length) this.select.append(og);
    }
    const found = (this.ctx.servers?.() ?? []).filter((s) => !s.profileId && s.models.length);
    for (const s of found) {
      // a server on this machine not yet a provider: choosing one of its models adds it
      const og = h("optgroup", { label: t("picker.found", { name: s.name }), testid: "model-found-server" });
      for (const m of s.models) {
        const key = `found:${s.port}${SEP}${m.id}`;
        this.entries.set(key, { addServer: s, model: m.id });
        og.append(h("option", { value: key, translate: "no" }, m.id));
      }
      this.select.append(og);
    }
    if (!listed) {
      this.entries.set(curKey, { provider: cur.provider, model: cur.model });
      this.select.prepend(h("option", { value: curKey, testid: "model-current-unlisted", translate: "no" }, `${cur.model} (${cur.provider})`));
    }
    this.select.value = curKey;
    this.renderEffort(this.entries.get(curKey), cur.reasoningEffort);
    this.select.title = v.routable ? `${cur.provider} · ${cur.model}` : t("picker.notAvailable", { provider: cur.provider });
    this.ctx.onProblem(v.routable ? null : "model-unavailable", `${cur.provider}/${cur.model}`);
    this.ctx.changed?.();
  }

  renderEffort(entry, current) {
    clear(this.effort);
    const efforts = entry?.reasoningEfforts ?? [];
    this.effort.hidden = efforts.length === 0;
    if (!efforts.length) return;
    const fallback = entry?.defaultEffort ? t("picker.defaultEffort", { effort: entry.defaultEffort }) : t("picker.defaultEffortPlain");
    this.effort.append(h("option", { value: "" }, fallback));
    for (const e of efforts) this.effort.append(h("option", { value: e, translate: "no" }, e));
    this.effort.value = current && efforts.includes(current) ? current : "";
  }

  async choose() {
    let entry = this.entries?.get(this.select.value);
    if (!entry || !this.sessionId) return;
    if (entry.addServer) {
      const added = await addServerProfile((m, p) => this.ctx.config.dialog(m, p), entry.addServer);
      if (!added.ok) return this.ctx.toast(describeError(added.error));
      entry = { provider: added.value.id, model: entry.model };
      this.ctx.serverAdded?.();
    }
    if (!(entry.reasoningEfforts ?? []).includes(this.effort.value)) this.renderEffort(entry, null);
    const payload = { sessionId: this.sessionId, provider: entry.provider, model: entry.model };
    if (this.effort.value) payload.reasoningEffort = this.effort.value;
    const r = await this.ctx.turns.selectModel(payload);
    if (!r.ok) {
      this.ctx.toast(describeError(r.error));
      if (classifyProblem(r.error) === "model-unavailable") this.ctx.onProblem("model-unavailable", `${entry.provider}/${entry.model}`);
    }
    this.refresh();
  }
}
