// The MCP servers of the open session's project (mcp.list, re-fetched on host/mcp-changed):
// state, tools, the stderr tail of a failed server, Restart, enable/disable, and the trust
// prompt that shows each project server's exact command line before anything of it runs
// (docs/decisions.md, "MCP servers").

import { h, icon, clear } from "./dom.js";
import { describeError } from "../state/problems.js";
import { hookCommandList, hookFileNode } from "./hook-files.js";

const STATE_TEXT = {
  disabled: "disabled",
  "needs-trust": "needs trust",
  "needs-approval": "needs approval",
  starting: "starting…",
  ready: "ready",
  failed: "failed",
  stopped: "stopped",
};

export class McpPanel {
  /** @param {HTMLElement} root @param {{turns: TurnCalls, config: ConfigCalls, toast(msg), changed(value)}} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.sessionId = null;
    this.value = null;
    this.open = false;
    this.loading = 0;
  }

  set(sessionId, open) {
    const moved = sessionId !== this.sessionId;
    const opened = open && !this.open; // opening re-reads: a project file may have changed since
    this.sessionId = sessionId;
    this.open = open && !!sessionId;
    if (moved) this.value = null;
    if (moved || (this.open && (!this.value || opened))) this.refresh();
    else this.render();
  }

  /** host/mcp-changed: re-fetch when it is about this session's project (or we do not know). */
  changed(project) {
    if (!this.sessionId) return;
    if (!this.value || this.value.project === project) this.refresh();
  }

  async refresh() {
    const sid = this.sessionId;
    if (!sid) return this.render();
    const ticket = ++this.loading;
    const r = await this.ctx.turns.mcpList(sid);
    if (ticket !== this.loading || sid !== this.sessionId) return;
    if (r.ok) this.value = r.value;
    else if (r.error?.code !== "session-not-found") this.ctx.toast(describeError(r.error));
    this.ctx.changed?.(this.value);
    this.render();
  }

  render() {
    this.root.hidden = !this.open;
    if (!this.open) return;
    clear(this.root);
    this.root.append(h("h2", { class: "panel-title" }, "MCP servers"));
    const v = this.value;
    if (!v) {
      this.root.append(h("p", { class: "mcp-empty" }, "Loading…"));
      return;
    }
    const project = v.servers.filter((s) => s.scope === "project");
    const hookFiles = v.hookFiles ?? [];
    if ((project.length || hookFiles.length) && !v.trusted) this.root.append(this.trustPrompt(v, project, hookFiles));
    if (!v.servers.length) {
      this.root.append(h("p", { class: "mcp-empty", testid: "mcp-empty" }, "No MCP servers. Add them to mcp.json in the data folder, or to the project's .mcp.json."));
    }
    const list = h("ul", { class: "job-list mcp-list", role: "list" });
    for (const server of v.servers) list.append(this.serverNode(v, server));
    for (const file of hookFiles) list.append(hookFileNode(v, file, { approve: (f, b) => this.act(() => this.ctx.config.approveHooks({ workspaceId: v.workspaceId, digest: f.digest }), b) }));
    this.root.append(list);
    for (const p of v.problems ?? []) this.root.append(h("p", { class: "mcp-problem", testid: "mcp-problem" }, p));
    const edit = h("button", { type: "button", class: "btn btn-small", testid: "mcp-open-user-file", title: "Your own servers, used in every folder" }, h("span", {}, "Edit your servers (mcp.json)"));
    edit.addEventListener("click", () => openUserFile(this.ctx, edit));
    this.root.append(h("div", { class: "job-actions" }, edit));
  }

  trustPrompt(v, servers, hookFiles) {
    const trust = h("button", { type: "button", class: "btn btn-small btn-primary", testid: "mcp-trust", disabled: !v.workspaceId }, icon("check"), h("span", {}, "Trust this folder"));
    trust.addEventListener("click", () => this.trust(v, trust));
    return h(
      "section",
      { class: "mcp-trust", testid: "mcp-trust-prompt", role: "group", "aria-label": "Trust this folder?" },
      h("p", { class: "mcp-trust-text" }, `This folder brings its own ${servers.length ? "MCP servers" : ""}${servers.length && hookFiles.length ? " and " : ""}${hookFiles.length ? "hooks" : ""}. Nothing of it runs until you trust `, h("code", {}, v.project), " and approve each server and hook file after reading its commands:"),
      servers.length ? h("ul", { class: "mcp-trust-commands" }, ...servers.map((s) => h("li", {}, h("strong", {}, s.name), " ", h("code", { testid: "mcp-trust-command" }, s.commandLine)))) : null,
      ...hookFiles.map(hookCommandList),
      v.workspaceId ? trust : h("p", { class: "mcp-problem" }, "Open this folder as a workspace to trust it."),
    );
  }

  serverNode(v, s) {
    const actions = [];
    if (s.state === "needs-approval") {
      const approve = h("button", { type: "button", class: "btn btn-small btn-primary", testid: "mcp-approve", title: "Run exactly this command" }, icon("check"), h("span", {}, "Approve"));
      approve.addEventListener("click", () => this.approve(v, s, approve));
      actions.push(approve);
    }
    if (["ready", "failed", "stopped"].includes(s.state)) {
      const restart = h("button", { type: "button", class: "btn btn-small", testid: "mcp-restart" }, h("span", {}, "Restart"));
      restart.addEventListener("click", () => this.act(() => this.ctx.turns.restartMcp({ sessionId: this.sessionId, name: s.name }), restart));
      actions.push(restart);
    }
    const toggle = h("button", { type: "button", class: "btn btn-small", testid: "mcp-enable" }, h("span", {}, s.enabled ? "Disable" : "Enable"));
    toggle.addEventListener("click", () => this.act(() => this.ctx.turns.setMcpEnabled({ sessionId: this.sessionId, name: s.name, enabled: !s.enabled }), toggle));
    actions.push(toggle);
    const failed = s.state === "failed";
    return h(
      "li",
      { class: ["job", "mcp-server", `mcp-${s.state}`], testid: "mcp-server", dataset: { name: s.name, state: s.state } },
      h(
        "div",
        { class: "job-head" },
        h("strong", { class: "mcp-name" }, s.name),
        h("span", { class: ["badge", "mcp-state", s.state === "ready" && "badge-running"], testid: "mcp-state" }, STATE_TEXT[s.state] ?? s.state),
        h("span", { class: "job-id" }, `${s.scope} · ${s.transport}${s.transport === "stdio" ? (s.network ? " · network" : " · no network") : ""}${s.transport === "stdio" && s.state === "ready" && !s.sandboxed ? " · not sandboxed" : ""}`),
      ),
      h("code", { class: "job-label mcp-command", testid: "mcp-command", title: s.commandLine }, s.commandLine),
      s.error ? h("div", { class: "mcp-error", testid: "mcp-error" }, s.error) : null,
      failed && s.stderrTail ? h("pre", { class: "job-output", testid: "mcp-stderr", tabindex: "0" }, s.stderrTail) : null,
      s.tools.length ? h("div", { class: "mcp-tools", testid: "mcp-tools" }, ...s.tools.map((t) => h("span", { class: "mcp-tool", title: t.description }, t.rawName, t.readOnlyHint ? h("span", { class: "mcp-ro" }, " (read-only)") : null))) : null,
      ...(s.warnings ?? []).map((w) => h("div", { class: "job-detail" }, w)),
      h("div", { class: "job-actions" }, ...actions),
    );
  }

  /** Run one action (`run()` → an RpcResult) with its button disabled, then list again. */
  async act(run, button) {
    button.disabled = true;
    const r = await run();
    button.disabled = false;
    if (!r.ok) this.ctx.toast(describeError(r.error));
    this.refresh();
  }

  trust(v, button) {
    return this.act(() => this.ctx.config.trustWorkspace(v.workspaceId), button);
  }

  approve(v, s, button) {
    if (!v.workspaceId) return this.ctx.toast("Open this folder as a workspace to approve its servers.");
    return this.act(() => this.ctx.config.approveMcp({ workspaceId: v.workspaceId, name: s.name, digest: s.digest }), button);
  }
}

/** Open `<data dir>/mcp.json` (the person's own servers) in their editor; shared with Settings. */
export async function openUserFile(ctx, button) {
  if (button) button.disabled = true;
  const r = await ctx.config.openMcpUserFile();
  if (button) button.disabled = false;
  ctx.toast(r.ok ? `${r.value.path} is open in your editor; saved edits apply at the next request.` : describeError(r.error));
  return r;
}
