// The MCP servers of the open session's project (mcp.list, re-fetched on host/mcp-changed):
// state, tools, the stderr tail of a failed server, Restart, enable/disable, and the trust
// prompt that shows each project server's exact command line before anything of it runs
// (docs/decisions.md, "MCP servers").

import { h, icon, clear, tNodes } from "./dom.js";
import { describeError } from "../state/problems.js";
import { hookCommandList, hookFileNode } from "./hook-files.js";
import { t, tOr } from "../i18n/i18n.js";
import { PressGuard } from "./press-guard.js";

const STATES = new Set(["disabled", "needs-trust", "needs-approval", "starting", "ready", "failed", "stopped"]);

export class McpPanel {
  /** @param {HTMLElement} root @param {{turns: TurnCalls, config: ConfigCalls, toast(msg), changed(value)}} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.sessionId = null;
    this.value = null;
    this.open = false;
    this.loading = 0;
    this.press = new PressGuard(root, () => this.render()); // a server's state changing never eats a click
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
    if (this.press.defer()) return;
    this.root.hidden = !this.open;
    if (!this.open) return;
    clear(this.root);
    this.root.append(h("h2", { class: "panel-title" }, t("mcp.label")));
    const v = this.value;
    if (!v) {
      this.root.append(h("p", { class: "mcp-empty" }, t("common.loading")));
      return;
    }
    const project = v.servers.filter((s) => s.scope === "project");
    const hookFiles = v.hookFiles ?? [];
    if ((project.length || hookFiles.length) && !v.trusted) this.root.append(this.trustPrompt(v, project, hookFiles));
    if (!v.servers.length) {
      this.root.append(h("p", { class: "mcp-empty", testid: "mcp-empty" }, t("mcp.none")));
    }
    const list = h("ul", { class: "job-list mcp-list", role: "list" });
    for (const server of v.servers) list.append(this.serverNode(v, server));
    for (const file of hookFiles) list.append(hookFileNode(v, file, { approve: (f, b) => this.act(() => this.ctx.config.approveHooks({ workspaceId: v.workspaceId, digest: f.digest }), b) }));
    this.root.append(list);
    for (const p of v.problems ?? []) this.root.append(h("p", { class: "mcp-problem", testid: "mcp-problem", translate: "no" }, p));
    const edit = h("button", { type: "button", class: "btn btn-small", testid: "mcp-open-user-file", title: t("mcp.editTitle") }, h("span", {}, t("mcp.edit")));
    edit.addEventListener("click", () => openUserFile(this.ctx, edit));
    this.root.append(h("div", { class: "job-actions" }, edit));
  }

  trustPrompt(v, servers, hookFiles) {
    const trust = h("button", { type: "button", class: "btn btn-small btn-primary", testid: "mcp-trust", disabled: !v.workspaceId }, icon("check"), h("span", {}, t("mcp.trust")));
    trust.addEventListener("click", () => this.trust(v, trust));
    return h(
      "section",
      { class: "mcp-trust", testid: "mcp-trust-prompt", role: "group", "aria-label": t("mcp.trustLabel") },
      h("p", { class: "mcp-trust-text" }, tNodes(servers.length && hookFiles.length ? "mcp.trustBoth" : servers.length ? "mcp.trustServers" : "mcp.trustHooks", { project: h("code", { translate: "no" }, v.project) })),
      servers.length ? h("ul", { class: "mcp-trust-commands" }, ...servers.map((s) => h("li", { translate: "no" }, h("strong", {}, s.name), " ", h("code", { testid: "mcp-trust-command" }, s.commandLine)))) : null,
      ...hookFiles.map(hookCommandList),
      v.workspaceId ? trust : h("p", { class: "mcp-problem" }, t("mcp.openToTrust")),
    );
  }

  serverNode(v, s) {
    const actions = [];
    if (s.state === "needs-approval") {
      const approve = h("button", { type: "button", class: "btn btn-small btn-primary", testid: "mcp-approve", title: t("mcp.approveTitle") }, icon("check"), h("span", {}, t("hooks.approveButton")));
      approve.addEventListener("click", () => this.approve(v, s, approve));
      actions.push(approve);
    }
    if (["ready", "failed", "stopped"].includes(s.state)) {
      const restart = h("button", { type: "button", class: "btn btn-small", testid: "mcp-restart" }, h("span", {}, t("mcp.restartButton")));
      restart.addEventListener("click", () => this.act(() => this.ctx.turns.restartMcp({ sessionId: this.sessionId, name: s.name }), restart));
      actions.push(restart);
    }
    const toggle = h("button", { type: "button", class: "btn btn-small", testid: "mcp-enable" }, h("span", {}, s.enabled ? t("mcp.disable") : t("mcp.enable")));
    toggle.addEventListener("click", () => this.act(() => this.ctx.turns.setMcpEnabled({ sessionId: this.sessionId, name: s.name, enabled: !s.enabled }), toggle));
    actions.push(toggle);
    const failed = s.state === "failed";
    return h(
      "li",
      { class: ["job", "mcp-server", `mcp-${s.state}`], testid: "mcp-server", dataset: { name: s.name, state: s.state } },
      h(
        "div",
        { class: "job-head" },
        h("strong", { class: "mcp-name", translate: "no" }, s.name),
        h("span", { class: ["badge", "mcp-state", s.state === "ready" && "badge-running"], testid: "mcp-state" }, STATES.has(s.state) ? t(`mcp.state.${s.state}`) : s.state),
        h("span", { class: "job-id" }, [tOr(`mcp.scope.${s.scope}`, s.scope), s.transport, s.transport === "stdio" ? (s.network ? t("mcp.network") : t("mcp.noNetwork")) : null, s.transport === "stdio" && s.state === "ready" && !s.sandboxed ? t("mcp.notSandboxed") : null].filter(Boolean).join(" · ")),
      ),
      h("code", { class: "job-label mcp-command", testid: "mcp-command", title: s.commandLine, translate: "no" }, s.commandLine),
      s.error ? h("div", { class: "mcp-error", testid: "mcp-error", translate: "no" }, s.error) : null,
      failed && s.stderrTail ? h("pre", { class: "job-output", testid: "mcp-stderr", tabindex: "0", translate: "no" }, s.stderrTail) : null,
      s.tools.length ? h("div", { class: "mcp-tools", testid: "mcp-tools" }, ...s.tools.map((tool) => h("span", { class: "mcp-tool", title: tool.description }, h("span", { translate: "no" }, tool.rawName), tool.readOnlyHint ? h("span", { class: "mcp-ro" }, t("mcp.readOnly")) : null))) : null,
      ...(s.warnings ?? []).map((w) => h("div", { class: "job-detail", translate: "no" }, w)),
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
    if (!v.workspaceId) return this.ctx.toast(t("mcp.openToApprove"));
    return this.act(() => this.ctx.config.approveMcp({ workspaceId: v.workspaceId, name: s.name, digest: s.digest }), button);
  }
}

/** Open `<data dir>/mcp.json` (the person's own servers) in their editor; shared with Settings. */
export async function openUserFile(ctx, button) {
  if (button) button.disabled = true;
  const r = await ctx.config.openMcpUserFile();
  if (button) button.disabled = false;
  ctx.toast(r.ok ? t("mcp.fileOpen", { path: r.value.path }) : describeError(r.error));
  return r;
}
