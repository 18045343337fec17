// ConfigCalls: settings, credentials, providers and models, agent presets, MCP trust. Views call
// this, never the client (docs/architecture.md, "Clients"). Every method resolves to an RpcResult
// (never throws). No DOM.

/** Domains the settings dialog's panels (providers, model library, undo space) may call. */
const DIALOG_DOMAINS = new Set(["settings", "credentials", "llm", "host", "files", "lsp"]);

export class ConfigCalls {
  constructor(client) {
    this.client = client;
  }

  /** The settings dialog's panels: a call in one of DIALOG_DOMAINS (they pass the method along). */
  dialog(method, payload) {
    if (!DIALOG_DOMAINS.has(method.split(".", 1)[0])) throw new Error(`not a settings-dialog method: ${method}`);
    return this.client.call(method, payload);
  }

  describeSettings() {
    return this.client.call("settings.describe", {});
  }

  describeCredentials(refs = []) {
    return this.client.call("credentials.describe", { refs });
  }

  mutateSettings(payload) {
    return this.client.call("settings.mutate", payload);
  }

  /** Add a rule to `permission.rules` (docs/decisions.md, "Rules by pattern"): the list as stored
   * now plus `rule` (one the same already there is not added twice). */
  async addRule(rule) {
    const d = await this.describeSettings();
    if (!d.ok) return d;
    const view = d.value.namespaces.find((n) => n.ns === "permission");
    const rules = view?.value?.rules ?? [];
    const same = (r) => r.tool === rule.tool && r.pattern === rule.pattern && (r.folder ?? null) === (rule.folder ?? null) && (r.decision ?? "allow") === rule.decision;
    const next = rules.some(same) ? rules : [...rules, rule];
    return this.client.call("settings.mutate", { ns: "permission", ops: [{ op: "set", path: ["rules"], value: next }], expectedRevision: view?.revision });
  }

  openDocument(payload = {}) {
    return this.client.call("settings.openDocument", payload);
  }

  resetDocument(payload) {
    return this.client.call("settings.resetDocument", payload);
  }

  providers() {
    return this.client.call("llm.providers", {});
  }

  describeHost() {
    return this.client.call("host.describe", {});
  }

  discoverLocal() {
    return this.client.call("llm.discoverLocal", {});
  }

  listPresets() {
    return this.client.call("agentPreset.list", {});
  }

  selectPreset(sessionId, agentPreset) {
    return this.client.call("agentPreset.select", { sessionId, agentPreset });
  }

  readPreset(agentPreset) {
    return this.client.call("agentPreset.read", { agentPreset });
  }

  copyPreset(payload) {
    return this.client.call("agentPreset.copy", payload);
  }

  openPreset(agentPreset) {
    return this.client.call("agentPreset.openDocument", { agentPreset });
  }

  removePreset(agentPreset) {
    return this.client.call("agentPreset.remove", { agentPreset });
  }

  openMcpUserFile() {
    return this.client.call("mcp.openUserFile", {});
  }

  approveMcp(payload) {
    return this.client.call("mcp.approve", payload);
  }

  approveHooks(payload) {
    return this.client.call("hooks.approve", payload);
  }

  trustWorkspace(workspaceId) {
    return this.client.call("workspace.setTrust", { workspaceId, trusted: true });
  }
}
