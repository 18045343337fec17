// Settings → "Models on this computer" (docs/decisions.md, "Offline agent"): model servers
// found on this machine (one click makes one an endpoint profile), the catalogue of tool-capable
// GGUF models with Download, downloads with a progress bar, Pause/Resume and Cancel (live from
// `host/model-download` frames), the installed models with Remove, and "Add a GGUF" by URL or path.

import { append, h, icon, clear, tNodes } from "./dom.js";
import { describeError } from "../state/problems.js";
import { downloadLine, formatBytes, mergeDownload, profileFor, sourceFor } from "../state/local-models.js";
import { catalogueWords } from "../state/host-words.js";
import { t } from "../i18n/i18n.js";

export class ModelLibrary {
  /** ctx: {call(method, payload), say(text, tone), onChanged(), servers() , lookForServers()} */
  constructor(ctx) {
    this.ctx = ctx;
    this.value = null;
    this.downloads = [];
    this.el = h("section", { class: "settings-section model-library", testid: "model-library", "aria-labelledby": "set-library" });
  }

  async load() {
    const r = await this.ctx.call("llm.localModels", {});
    if (!r.ok) {
      clear(this.el).append(h("h3", { id: "set-library" }, t("library.title")), h("p", { class: "hint" }, describeError(r.error)));
      return this.el;
    }
    this.value = r.value;
    this.downloads = r.value.downloads;
    this.render();
    return this.el;
  }

  /** A `host/model-download` frame: update the row in place; an install reloads the lists. */
  onFrame(frame) {
    this.downloads = mergeDownload(this.downloads, frame);
    if (!this.value) return;
    const row = this.el.querySelector(`[data-download-id="${CSS.escape(frame.downloadId)}"]`);
    const d = this.downloads.find((x) => x.downloadId === frame.downloadId);
    if (frame.state === "done") {
      this.ctx.say(t("library.installed", { name: d?.name ?? t("library.theModel") }), "ok");
      return this.load().then(() => this.ctx.onChanged());
    }
    if (frame.state === "failed") this.ctx.say(t("library.failed", { name: d?.name ?? t("library.aDownload"), reason: frame.error ?? t("download.unknownError") }), "error");
    if (row && d && row.dataset.state === d.state) return fillProgress(row, d);
    this.render();
  }

  render() {
    const v = this.value;
    const installed = v.installed.map((m) => this.installedRow(m));
    const catalogue = v.catalogue.map((e) => this.catalogueRow(e));
    const downloads = this.downloads.map((d) => this.downloadRow(d));
    append(clear(this.el), [
      h("h3", { id: "set-library" }, t("library.title")),
      h("p", { class: "hint" }, t("library.hint")),
      this.serversBlock(),
      downloads.length ? h("ul", { class: "library-list", testid: "library-downloads", "aria-label": t("library.downloads") }, downloads) : null,
      installed.length ? h("div", {}, h("h4", {}, t("library.installedHead")), h("ul", { class: "library-list", testid: "library-installed" }, installed)) : null,
      h("h4", {}, t("library.download")),
      h("p", { class: "hint", testid: "library-free" }, v.freeBytes != null ? t("library.free", { size: formatBytes(v.freeBytes) }) : ""),
      h("ul", { class: "library-list", testid: "library-catalogue" }, catalogue),
      this.addForm(),
    ]);
  }

  serversBlock() {
    const servers = this.ctx.servers();
    const look = h("button", { type: "button", class: "btn btn-small", testid: "library-look" }, icon("search"), h("span", { class: "btn-label" }, t("library.look")));
    look.addEventListener("click", async () => {
      look.disabled = true; // the probes take up to 2 s on silent ports: the rest of the dialog stays usable
      look.setAttribute("aria-busy", "true");
      look.querySelector(".btn-label").textContent = t("library.looking");
      await this.ctx.lookForServers();
      this.render();
    });
    const rows = servers.map((s) => {
      const use = s.profileId
        ? h("span", { class: "muted", testid: "server-added" }, t("library.addedAs", { id: s.profileId }))
        : h("button", { type: "button", class: "btn btn-small btn-primary", testid: "server-use" }, t("library.use"));
      if (!s.profileId) use.addEventListener("click", () => this.useServer(s, use));
      const models = s.models.length ? h("span", { class: "muted", translate: "no" }, s.models.map((m) => m.id).join(", ")) : h("span", { class: "muted" }, t("library.noModels"));
      return h("li", { class: "library-row", testid: "local-server", dataset: { port: String(s.port) } }, h("div", { class: "library-main" }, h("strong", { translate: "no" }, s.name), h("code", { translate: "no" }, s.baseURL), models), use);
    });
    return h(
      "div",
      { class: "library-servers", testid: "library-servers" },
      h("div", { class: "row-actions" }, h("h4", {}, t("library.found")), look),
      rows.length ? h("ul", { class: "library-list", testid: "local-servers" }, rows) : h("p", { class: "hint", testid: "no-servers" }, t("library.noServers")),
    );
  }

  async useServer(server, button) {
    button.disabled = true;
    const ok = await addServerProfile(this.ctx.call, server);
    if (!ok.ok) {
      button.disabled = false;
      return this.ctx.say(describeError(ok.error), "error");
    }
    this.ctx.say(t("library.nowProvider", { name: server.name }), "ok");
    await this.ctx.lookForServers();
    if (this.value) this.render();
    this.ctx.onChanged();
  }

  catalogueRow(e) {
    const facts = [formatBytes(e.sizeBytes), e.license ? h("span", { translate: "no" }, e.license) : null, t("library.context", { k: Math.round(e.contextLength / 1024) }), t("library.memory", { size: formatBytes(e.memoryBytes) })].filter(Boolean).flatMap((f, i) => (i ? [" · ", f] : [f]));
    const words = catalogueWords(e); // a shipped entry in the page's language
    const note = words.note ? h("span", { translate: words.own ? "no" : undefined }, words.note) : t("library.unknown");
    const check = e.sha256 ? h("span", { class: "muted" }, t("library.verified")) : h("span", { class: "muted library-warn", testid: "catalogue-unverified" }, tNodes("library.unverified", { note }));
    const busy = this.downloads.some((d) => d.catalogId === e.id && ["running", "paused", "verifying"].includes(d.state));
    let action;
    if (e.installedModelId) action = h("span", { class: "muted" }, t("library.installedHead"));
    else {
      action = h("button", { type: "button", class: "btn btn-small", testid: "catalogue-download", disabled: busy }, t("library.downloadButton"));
      action.addEventListener("click", () => this.start({ catalogId: e.id }, action));
    }
    return h("li", { class: "library-row", testid: "catalogue-entry", dataset: { catalogId: e.id } }, h("div", { class: "library-main" }, h("strong", { translate: "no" }, e.name), h("span", { translate: words.own ? "no" : undefined }, words.description), h("span", { class: "muted" }, ...facts), check), action);
  }

  downloadRow(d) {
    const row = h("li", { class: "library-row", testid: "download", dataset: { downloadId: d.downloadId, state: d.state } });
    const bar = h("progress", { class: "library-progress", testid: "download-progress", max: "100", value: "0", "aria-label": t("library.downloadOf", { name: d.name }) });
    const line = h("span", { class: "muted", testid: "download-line" });
    const actions = h("div", { class: "row-actions" });
    if (d.state === "running") actions.append(this.action(t("library.pause"), "download-pause", "llm.pauseDownload", d));
    if (d.state === "paused") actions.append(this.action(t("library.resume"), "download-resume", "llm.resumeDownload", d));
    actions.append(this.action(["done", "failed"].includes(d.state) ? t("common.dismiss") : t("common.cancel"), "download-cancel", "llm.cancelDownload", d));
    row.append(h("div", { class: "library-main" }, h("strong", { translate: "no" }, d.name), bar, line), actions);
    return fillProgress(row, d);
  }

  action(label, testid, method, d) {
    const b = h("button", { type: "button", class: "btn btn-small", testid }, label);
    b.addEventListener("click", async () => {
      b.disabled = true;
      const r = await this.ctx.call(method, { downloadId: d.downloadId });
      if (!r.ok) this.ctx.say(describeError(r.error), "error");
      if (method === "llm.cancelDownload") this.downloads = this.downloads.filter((x) => x.downloadId !== d.downloadId);
      else if (r.ok) this.downloads = mergeDownload(this.downloads, r.value.download);
      this.render();
    });
    return b;
  }

  installedRow(m) {
    const can = m.supportsTools ? h("span", { class: "badge badge-ok", testid: "installed-tools" }, t("library.canUseTools")) : h("span", { class: "badge", testid: "installed-chat-only" }, t("library.chatOnly"));
    const remove = h("button", { type: "button", class: "btn btn-small btn-danger", testid: "installed-remove" }, t("chips.remove"));
    remove.addEventListener("click", async () => {
      remove.disabled = true;
      const r = await this.ctx.call("llm.removeModel", { modelId: m.id });
      if (!r.ok) this.ctx.say(describeError(r.error), "error");
      await this.load();
      this.ctx.onChanged();
    });
    return h("li", { class: "library-row", testid: "installed-model", dataset: { modelId: m.id } }, h("div", { class: "library-main" }, h("strong", { translate: "no" }, m.name), h("span", { class: "muted" }, formatBytes(m.sizeBytes), m.license ? [" · ", h("span", { translate: "no" }, m.license)] : null), can), remove);
  }

  addForm() {
    const input = h("input", { type: "text", class: "input", testid: "library-add-url", placeholder: t("library.addPlaceholder"), "aria-label": t("library.addLabel") });
    const sha = h("input", { type: "text", class: "input", testid: "library-add-sha", placeholder: t("library.shaPlaceholder"), "aria-label": t("library.shaLabel"), spellcheck: "false" });
    const add = h("button", { type: "button", class: "btn btn-small", testid: "library-add" }, t("library.add"));
    add.addEventListener("click", () => {
      const url = sourceFor(input.value);
      if (!url) return this.ctx.say(t("library.addBad"), "error");
      const payload = { url };
      if (sha.value.trim()) payload.sha256 = sha.value.trim();
      this.start(payload, add);
    });
    return h("div", { class: "library-add", testid: "library-add-form" }, h("h4", {}, t("library.addHead")), h("div", { class: "row-actions" }, input, sha, add));
  }

  async start(payload, button) {
    button.disabled = true;
    const r = await this.ctx.call("llm.downloadModel", payload);
    button.disabled = false;
    if (!r.ok) return this.ctx.say(r.error.message ? t("error.hostDetail", { message: describeError(r.error), detail: r.error.message }) : describeError(r.error), "error");
    this.ctx.say(t("library.started"), "ok");
    await this.load();
  }
}

/** Write an endpoint profile for a server found on this machine (appended to the profiles). */
export async function addServerProfile(call, server) {
  const s = await call("settings.describe", {});
  if (!s.ok) return s;
  const view = s.value.namespaces.find((n) => n.ns === "llm-openai-compatible");
  const profiles = view?.value?.profiles ?? [];
  const profile = profileFor(server, profiles);
  const r = await call("settings.mutate", { ns: "llm-openai-compatible", ops: [{ op: "set", path: ["profiles"], value: [...profiles, profile] }], expectedRevision: view?.revision });
  return r.ok ? { ok: true, value: profile } : r;
}

function fillProgress(row, d) {
  const bar = row.querySelector("progress");
  const pct = d.totalBytes ? Math.min(100, (100 * d.receivedBytes) / d.totalBytes) : 0;
  if (d.state === "verifying" || d.state === "done") bar.value = 100;
  else if (d.totalBytes) bar.value = pct;
  else bar.removeAttribute("value"); // no size known: an indeterminate bar
  row.querySelector("[data-testid=download-line]").textContent = downloadLine(d);
  return row;
}
