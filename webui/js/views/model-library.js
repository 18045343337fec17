// Settings → "Models on this computer" (docs/decisions.md, "Offline agent"): model servers
// found on this machine (one click makes one an endpoint profile), the catalogue of tool-capable
// GGUF models with Download, downloads with a progress bar, Pause/Resume and Cancel (live from
// `host/model-download` frames), the installed models with Remove, and "Add a GGUF" by URL or path.

import { append, h, icon, clear } from "./dom.js";
import { describeError } from "../state/problems.js";
import { downloadLine, formatBytes, mergeDownload, profileFor, sourceFor } from "../state/local-models.js";

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
      clear(this.el).append(h("h3", { id: "set-library" }, "Models on this computer"), h("p", { class: "hint" }, describeError(r.error)));
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
      this.ctx.say(`${d?.name ?? "The model"} is installed: pick it from the model menu above a conversation.`, "ok");
      return this.load().then(() => this.ctx.onChanged());
    }
    if (frame.state === "failed") this.ctx.say(`${d?.name ?? "A download"} failed: ${frame.error ?? "unknown error"}`, "error");
    if (row && d && row.dataset.state === d.state) return fillProgress(row, d);
    this.render();
  }

  render() {
    const v = this.value;
    const installed = v.installed.map((m) => this.installedRow(m));
    const catalogue = v.catalogue.map((e) => this.catalogueRow(e));
    const downloads = this.downloads.map((d) => this.downloadRow(d));
    append(clear(this.el), [
      h("h3", { id: "set-library" }, "Models on this computer"),
      h("p", { class: "hint" }, "These run offline, in the app. A model that can use tools lets the agent read and edit files; the built-in model only chats."),
      this.serversBlock(),
      downloads.length ? h("ul", { class: "library-list", testid: "library-downloads", "aria-label": "Downloads" }, downloads) : null,
      installed.length ? h("div", {}, h("h4", {}, "Installed"), h("ul", { class: "library-list", testid: "library-installed" }, installed)) : null,
      h("h4", {}, "Download a model"),
      h("p", { class: "hint", testid: "library-free" }, v.freeBytes != null ? `${formatBytes(v.freeBytes)} free where models are kept.` : ""),
      h("ul", { class: "library-list", testid: "library-catalogue" }, catalogue),
      this.addForm(),
    ]);
  }

  serversBlock() {
    const servers = this.ctx.servers();
    const look = h("button", { type: "button", class: "btn btn-small", testid: "library-look" }, icon("search"), h("span", { class: "btn-label" }, "Look for local servers"));
    look.addEventListener("click", async () => {
      look.disabled = true; // the probes take up to 2 s on silent ports: the rest of the dialog stays usable
      look.setAttribute("aria-busy", "true");
      look.querySelector(".btn-label").textContent = "Looking…";
      await this.ctx.lookForServers();
      this.render();
    });
    const rows = servers.map((s) => {
      const use = s.profileId
        ? h("span", { class: "muted", testid: "server-added" }, `added as “${s.profileId}”`)
        : h("button", { type: "button", class: "btn btn-small btn-primary", testid: "server-use" }, "Use it");
      if (!s.profileId) use.addEventListener("click", () => this.useServer(s, use));
      const models = s.models.length ? s.models.map((m) => m.id).join(", ") : "no models yet";
      return h("li", { class: "library-row", testid: "local-server", dataset: { port: String(s.port) } }, h("div", { class: "library-main" }, h("strong", {}, s.name), h("code", {}, s.baseURL), h("span", { class: "muted" }, models)), use);
    });
    return h(
      "div",
      { class: "library-servers", testid: "library-servers" },
      h("div", { class: "row-actions" }, h("h4", {}, "Found on this machine"), look),
      rows.length ? h("ul", { class: "library-list", testid: "local-servers" }, rows) : h("p", { class: "hint", testid: "no-servers" }, "No model server answered on the usual ports (Ollama, LM Studio, llama.cpp, vLLM, Jan)."),
    );
  }

  async useServer(server, button) {
    button.disabled = true;
    const ok = await addServerProfile(this.ctx.call, server);
    if (!ok.ok) {
      button.disabled = false;
      return this.ctx.say(describeError(ok.error), "error");
    }
    this.ctx.say(`${server.name} is now a provider: pick its models from the model menu.`, "ok");
    await this.ctx.lookForServers();
    if (this.value) this.render();
    this.ctx.onChanged();
  }

  catalogueRow(e) {
    const facts = [formatBytes(e.sizeBytes), e.license, `${Math.round(e.contextLength / 1024)}K context`, `about ${formatBytes(e.memoryBytes)} of memory (estimate)`].join(" · ");
    const check = e.sha256 ? h("span", { class: "muted" }, "checksum verified after download") : h("span", { class: "muted library-warn", testid: "catalogue-unverified" }, `Checksum ${e.sha256Note ?? "unknown"}; the file is checked for being a GGUF model only.`);
    const busy = this.downloads.some((d) => d.catalogId === e.id && ["running", "paused", "verifying"].includes(d.state));
    let action;
    if (e.installedModelId) action = h("span", { class: "muted" }, "Installed");
    else {
      action = h("button", { type: "button", class: "btn btn-small", testid: "catalogue-download", disabled: busy }, "Download");
      action.addEventListener("click", () => this.start({ catalogId: e.id }, action));
    }
    return h("li", { class: "library-row", testid: "catalogue-entry", dataset: { catalogId: e.id } }, h("div", { class: "library-main" }, h("strong", {}, e.name), h("span", {}, e.description), h("span", { class: "muted" }, facts), check), action);
  }

  downloadRow(d) {
    const row = h("li", { class: "library-row", testid: "download", dataset: { downloadId: d.downloadId, state: d.state } });
    const bar = h("progress", { class: "library-progress", testid: "download-progress", max: "100", value: "0", "aria-label": `Download of ${d.name}` });
    const line = h("span", { class: "muted", testid: "download-line" });
    const actions = h("div", { class: "row-actions" });
    if (d.state === "running") actions.append(this.action("Pause", "download-pause", "llm.pauseDownload", d));
    if (d.state === "paused") actions.append(this.action("Resume", "download-resume", "llm.resumeDownload", d));
    actions.append(this.action(["done", "failed"].includes(d.state) ? "Dismiss" : "Cancel", "download-cancel", "llm.cancelDownload", d));
    row.append(h("div", { class: "library-main" }, h("strong", {}, d.name), bar, line), actions);
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
    const can = m.supportsTools ? h("span", { class: "badge badge-ok", testid: "installed-tools" }, "can use tools") : h("span", { class: "badge", testid: "installed-chat-only" }, "chat only");
    const remove = h("button", { type: "button", class: "btn btn-small btn-danger", testid: "installed-remove" }, "Remove");
    remove.addEventListener("click", async () => {
      remove.disabled = true;
      const r = await this.ctx.call("llm.removeModel", { modelId: m.id });
      if (!r.ok) this.ctx.say(describeError(r.error), "error");
      await this.load();
      this.ctx.onChanged();
    });
    return h("li", { class: "library-row", testid: "installed-model", dataset: { modelId: m.id } }, h("div", { class: "library-main" }, h("strong", {}, m.name), h("span", { class: "muted" }, `${formatBytes(m.sizeBytes)}${m.license ? ` · ${m.license}` : ""}`), can), remove);
  }

  addForm() {
    const input = h("input", { type: "text", class: "input", testid: "library-add-url", placeholder: "https://…/model.gguf or /path/to/model.gguf", "aria-label": "GGUF address or file" });
    const sha = h("input", { type: "text", class: "input", testid: "library-add-sha", placeholder: "SHA-256 (optional)", "aria-label": "SHA-256 checksum", spellcheck: "false" });
    const add = h("button", { type: "button", class: "btn btn-small", testid: "library-add" }, "Add");
    add.addEventListener("click", () => {
      const url = sourceFor(input.value);
      if (!url) return this.ctx.say("Give an http(s):// address or an absolute path to a .gguf file.", "error");
      const payload = { url };
      if (sha.value.trim()) payload.sha256 = sha.value.trim();
      this.start(payload, add);
    });
    return h("div", { class: "library-add", testid: "library-add-form" }, h("h4", {}, "Add any GGUF model"), h("div", { class: "row-actions" }, input, sha, add));
  }

  async start(payload, button) {
    button.disabled = true;
    const r = await this.ctx.call("llm.downloadModel", payload);
    button.disabled = false;
    if (!r.ok) return this.ctx.say(r.error.message || describeError(r.error), "error");
    this.ctx.say("Download started; it goes on while the app runs and resumes after a restart.", "ok");
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
