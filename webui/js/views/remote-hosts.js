// Remote hosts in the window (docs/decisions.md, "Remote hosts"): Settings → Remote hosts (add
// user@host[:port] or a ~/.ssh/config entry, Test connection, Connect, Remove, the mode and whose
// model settings a remote session uses), the host-key confirmation, ssh's passphrase/password
// prompt, and each host's sessions in the sidebar (the folder picker lists the remote's folders).

import { h, icon, clear } from "./dom.js";
import { confirm } from "./confirm.js";
import { describeError } from "../state/problems.js";
import { FolderPicker } from "./folder-picker.js";
import { t, tOr } from "../i18n/i18n.js";
import { PressGuard } from "./press-guard.js";

/** A host's state in words (`remoteHosts.state.<state>`; an unknown one as the host says it). */
function stateWords(state) {
  return tOr(`remoteHosts.state.${state}`, state);
}

/** Connect, asking about an unknown host key first; resolves to the final RpcResult. */
export async function connectHost(remotes, hostId) {
  let r = await remotes.connect(hostId);
  if (!r.ok && r.error.code === "host-key-unknown") {
    const host = remotes.get(hostId);
    const { keyType, fingerprint: fp } = r.error.details;
    const before = t("remoteHosts.keyUnknown", { target: host?.target ?? hostId });
    const typeLine = t("remoteHosts.keyFingerprintIs", { type: keyType });
    const after = t("remoteHosts.keyCompare");
    const fingerprint = h("p", {}, h("code", { class: "host-key-fingerprint", testid: "host-key-fingerprint", translate: "no" }, fp));
    const trusted = await confirm({
      title: t("remoteHosts.keyTitle"),
      testid: "host-key-dialog",
      body: [before, typeLine, fingerprint, after],
      actions: [{ label: t("remoteHosts.keyTrust"), value: "trust", tone: "primary", testid: "host-key-trust" }],
    });
    if (trusted !== "trust") return r;
    const trust = await remotes.trustHostKey(hostId, fp);
    if (!trust.ok) return trust;
    r = await remotes.connect(hostId);
  }
  return r;
}

export class RemoteHostsSection {
  /** ctx: {remotes (RemoteHosts), say(text, tone)} */
  constructor(ctx) {
    this.ctx = ctx;
    this.busy = new Set();
    this.notes = new Map(); // hostId → what the last test said
    this.list = h("ul", { class: "remote-hosts", testid: "remote-hosts", role: "list" });
    this.target = h("input", { type: "text", class: "remote-target", testid: "remote-target", "aria-label": t("remoteHosts.targetLabel"), placeholder: t("remoteHosts.targetLabel"), list: "remote-ssh-config", autocomplete: "off", spellcheck: "false" });
    this.name = h("input", { type: "text", class: "remote-name", testid: "remote-name", "aria-label": t("remoteHosts.nameLabel"), placeholder: t("remoteHosts.nameLabel"), autocomplete: "off" });
    this.aliases = h("datalist", { id: "remote-ssh-config" });
    const add = h("button", { type: "submit", class: "btn", testid: "remote-add" }, icon("plus"), h("span", { class: "btn-label" }, t("remoteHosts.add")));
    const form = h("form", { class: "remote-add-form" }, this.target, this.name, add, this.aliases);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.add();
    });
    this.el = h("section", { class: "settings-section", testid: "settings-remote-hosts", "aria-labelledby": "set-remote" }, h("h3", { id: "set-remote" }, t("remoteHosts.section")), h("p", { class: "hint" }, t("remoteHosts.intro")), this.list, form);
    this.press = new PressGuard(this.el, () => this.render()); // a host's state changing never eats a click
    ctx.remotes.on("change", () => this.render());
  }

  async load() {
    const r = await this.ctx.remotes.load();
    if (!r.ok) {
      this.el.hidden = true; // a browser without the privilege: this host's own window manages them
      return;
    }
    this.el.hidden = false;
    this.render();
  }

  render() {
    if (this.press.defer()) return;
    const remotes = this.ctx.remotes;
    clear(this.aliases);
    for (const e of remotes.sshConfig) this.aliases.append(h("option", { value: e.alias }, [e.user, e.hostName].filter(Boolean).join("@") || e.alias));
    clear(this.list);
    if (!remotes.items.length) this.list.append(h("li", { class: "list-empty" }, t("remoteHosts.none")));
    for (const host of remotes.items) this.list.append(this.row(host));
  }

  row(host) {
    const busy = this.busy.has(host.hostId);
    const state = h("span", { class: ["remote-state", `is-${host.state}`], testid: "remote-state", dataset: { state: host.state } }, stateWords(host.state));
    const button = (label, testid, onClick, tone) => {
      const b = h("button", { type: "button", class: ["btn", "btn-small", tone === "primary" && "btn-primary"], testid, disabled: busy }, label);
      b.addEventListener("click", onClick);
      return b;
    };
    const connected = host.state === "connected" || host.state === "reconnecting";
    const mode = select("remote-mode", t("remoteHosts.modeLabel"), host.mode, [["detached", t("remoteHosts.mode.detached")], ["attached", t("remoteHosts.mode.attached")]], (v) => this.update(host, { mode: v }));
    const settingsFrom = select("remote-settings-from", t("remoteHosts.settingsLabel"), host.settingsFrom, [["here", t("remoteHosts.settingsFrom.here")], ["remote", t("remoteHosts.settingsFrom.remote")]], (v) => this.update(host, { settingsFrom: v }));
    const note = this.notes.get(host.hostId) ?? (host.state === "failed" ? host.detail : null);
    return h(
      "li",
      { class: "remote-host", testid: "remote-host", dataset: { hostId: host.hostId } },
      h("div", { class: "remote-head" }, icon("terminal"), h("strong", { class: "remote-title" }, host.name), host.name !== host.target ? h("code", { class: "remote-target-text" }, host.target) : null, state, host.sandbox === false ? h("span", { class: "remote-nosandbox", testid: "remote-no-sandbox" }, t("remoteHosts.noSandbox")) : null),
      h("div", { class: "remote-options" }, mode, settingsFrom),
      note ? h("p", { class: "remote-note", testid: "remote-note", role: "status" }, note) : null,
      h(
        "div",
        { class: "row-actions" },
        button(t("remoteHosts.test"), "remote-test", () => this.test(host)),
        connected ? button(t("remoteHosts.disconnect"), "remote-disconnect", () => this.run(host, () => this.ctx.remotes.disconnect(host.hostId))) : button(t("remoteHosts.connect"), "remote-connect", () => this.connect(host), "primary"),
        button(t("remoteHosts.remove"), "remote-remove", () => this.remove(host)),
      ),
    );
  }

  async add() {
    const target = this.target.value.trim();
    if (!target) return;
    const r = await this.ctx.remotes.add(target, { name: this.name.value.trim() || undefined });
    if (!r.ok) return this.ctx.say(describeError(r.error), "error");
    this.target.value = "";
    this.name.value = "";
  }

  async run(host, action) {
    this.busy.add(host.hostId);
    this.render();
    try {
      const r = await action();
      if (r && !r.ok) this.ctx.say(describeError(r.error), "error");
      return r;
    } finally {
      this.busy.delete(host.hostId);
      this.render();
    }
  }

  async connect(host) {
    this.notes.set(host.hostId, t("remoteHosts.connecting"));
    const r = await this.run(host, () => connectHost(this.ctx.remotes, host.hostId));
    this.notes.delete(host.hostId);
    this.render();
    if (r?.ok) this.ctx.say(t("remoteHosts.connectedSay", { name: host.name }), "ok");
  }

  async test(host) {
    this.notes.set(host.hostId, t("remoteHosts.testing"));
    this.render();
    const r = await this.run(host, () => this.ctx.remotes.test(host.hostId));
    if (r?.ok) {
      const v = r.value;
      this.notes.set(host.hostId, v.reachable && v.latencyMs != null ? t("remoteHosts.testResult", { detail: v.detail, ms: Math.round(v.latencyMs) }) : v.detail);
    } else this.notes.delete(host.hostId);
    this.render();
  }

  update(host, patch) {
    return this.run(host, () => this.ctx.remotes.update(host.hostId, patch));
  }

  async remove(host) {
    const sure = await confirm({ title: t("remoteHosts.removeTitle"), testid: "remote-remove-dialog", body: [t("remoteHosts.removeBody", { name: host.name })], actions: [{ label: t("remoteHosts.remove"), value: "remove", tone: "danger", testid: "remote-remove-confirm" }] });
    if (sure === "remove") await this.run(host, () => this.ctx.remotes.remove(host.hostId));
  }
}

function select(testid, label, value, options, onChange) {
  const el = h("select", { testid, "aria-label": label }, options.map(([v, text]) => h("option", { value: v, selected: v === value }, text)));
  el.addEventListener("change", () => onChange(el.value));
  return h("label", { class: "remote-option" }, h("span", {}, label), el);
}

/** ssh's prompt (a passphrase, a password, a yes/no), asked in a dialog; the answer goes back
 * once and is never kept. */
export class SecretPrompt {
  constructor({ remotes }) {
    this.remotes = remotes;
    this.current = null;
    this.queue = [];
    remotes.on("secret", (asked) => {
      this.queue.push(asked);
      this.next();
    });
    remotes.on("secret-resolved", (rpcId) => {
      this.queue = this.queue.filter((a) => a.rpcId !== rpcId);
      if (this.current?.rpcId === rpcId) this.close();
    });
  }

  next() {
    if (this.current || !this.queue.length) return;
    const asked = (this.current = this.queue.shift());
    const { frame } = asked;
    const host = this.remotes.get(frame.hostId);
    const input = h("input", { type: frame.echo ? "text" : "password", class: "secret-input", testid: "remote-secret-input", "aria-label": frame.prompt, autocomplete: "off", spellcheck: "false" });
    const ok = h("button", { type: "submit", class: "btn btn-primary", testid: "remote-secret-ok" }, t("remoteHosts.secretOk"));
    const cancel = h("button", { type: "button", class: "btn", testid: "remote-secret-cancel" }, t("common.cancel"));
    const form = h("form", { method: "dialog", class: "dialog-body" }, h("p", {}, frame.prompt), input, h("p", { class: "hint" }, t("remoteHosts.secretNote")), h("div", { class: "row-actions" }, cancel, ok));
    const el = (this.el = h("dialog", { class: "dialog secret-dialog", testid: "remote-secret-dialog", "aria-labelledby": "remote-secret-title" }, h("header", { class: "dialog-head" }, h("h2", { id: "remote-secret-title" }, t("remoteHosts.secretTitle", { name: host?.name ?? frame.hostId }))), form));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const secret = input.value;
      input.value = "";
      this.remotes.answerSecret(asked.rpcId, frame.hostId, secret).catch(() => {});
      this.close();
    });
    const dismiss = () => {
      this.remotes.dismissSecret(asked.rpcId);
      this.close();
    };
    cancel.addEventListener("click", dismiss);
    el.addEventListener("cancel", (e) => {
      e.preventDefault();
      dismiss();
    });
    document.body.append(el);
    el.showModal();
    input.focus();
  }

  close() {
    if (this.el) {
      if (this.el.open) this.el.close();
      this.el.remove();
    }
    this.el = null;
    this.current = null;
    this.next();
  }
}

/** The sidebar's group of one remote host: its state, "New session on this host", its sessions. */
export function hostGroup({ host, roots, itemsOf, newSession, connect }) {
  const state = host?.state ?? "disconnected";
  const away = state !== "connected";
  const head = h(
    "div",
    { class: "ws-head remote-group-head" },
    h("span", { class: "ws-toggle remote-toggle" }, icon("terminal"), h("span", { class: "ws-title", testid: "remote-group-title" }, host?.name ?? "?"), h("span", { class: ["remote-state", `is-${state}`], testid: "remote-group-state", dataset: { state } }, stateWords(state))),
    h("div", { class: "ws-tools" }, tool(away ? "retry" : "plus", away ? "remote-group-connect" : "remote-new-session", away ? t("remoteHosts.connect") : t("remoteHosts.newSessionHere"), away ? connect : newSession)),
  );
  const list = h("ul", { class: ["session-list", away && "is-away"], role: "list", "aria-label": t("remoteHosts.sessionsOn", { name: host?.name ?? "" }) });
  itemsOf(roots, list, away ? t("remoteHosts.rowReconnecting") : null);
  if (!roots.length) list.append(h("li", { class: "list-empty ws-empty" }, away ? t("remoteHosts.notConnected") : t("remoteHosts.noSessions")));
  return h("section", { class: "ws-group remote-group", testid: "remote-group", dataset: { hostId: host?.hostId ?? "", state } }, head, list);
}

function tool(name, testid, label, onClick) {
  const b = h("button", { type: "button", class: "btn btn-icon btn-small", testid, title: label, "aria-label": label }, icon(name));
  b.addEventListener("click", onClick);
  return b;
}

/** "New session on this host": the remote's folders in the in-page browser, then a session there. */
export async function newRemoteSession({ remotes, hostId, toast }) {
  const host = remotes.get(hostId);
  if (host?.state !== "connected") {
    toast(t("remoteHosts.notConnected"));
    return null;
  }
  const picker = new FolderPicker({
    toast,
    title: t("remoteHosts.pickTitle", { name: host.name }),
    testid: "remote-folder-dialog",
    host: {
      carrier: "remote", // always the in-page browser: the remote lists its own folders
      listDirectory: (path) => remotes.listDirectory(hostId, path),
      createDirectory: (path, name) => remotes.createDirectory(hostId, path, name),
      pickDirectory: () => Promise.resolve({ ok: false, error: { code: "directory-picker-unavailable", message: "", details: { capability: "browse" } } }),
    },
  });
  try {
    const cwd = await picker.choose();
    if (!cwd) return null;
    const r = await remotes.createSession(hostId, cwd);
    if (!r.ok) {
      toast(describeError(r.error));
      return null;
    }
    return { sessionId: r.value.sessionId, cwd };
  } finally {
    picker.el.remove();
  }
}
