// A project's hook file in the MCP panel (docs/decisions.md, "Hook approval"): its commands, and
// Approve — the file runs only once its exact content was approved; a changed file asks again.

import { h, icon } from "./dom.js";

/** The commands a hook file would run, one line each: "PreToolUse (Bash): ./guard.sh". */
export function hookCommandList(file) {
  return h(
    "ul",
    { class: "mcp-trust-commands hook-commands" },
    ...file.commands.map((c) => h("li", {}, h("strong", {}, c.event), c.matcher ? ` (${c.matcher})` : "", " ", h("code", { testid: "hook-file-command" }, c.command))),
  );
}

/** @param {{approve(file, button)}} on */
export function hookFileNode(v, file, on) {
  const state = !v.trusted ? "needs trust" : file.approved ? "approved" : "needs approval";
  const approve = h("button", { type: "button", class: "btn btn-small btn-primary", testid: "hook-file-approve", title: "Run exactly these commands" }, icon("check"), h("span", {}, "Approve"));
  approve.addEventListener("click", () => on.approve(file, approve));
  return h(
    "li",
    { class: ["job", "mcp-server", "hook-file"], testid: "hook-file", dataset: { approved: String(file.approved) } },
    h("div", { class: "job-head" }, h("strong", { class: "mcp-name" }, "Project hooks"), h("span", { class: "badge mcp-state", testid: "hook-file-state" }, state)),
    h("code", { class: "job-label mcp-command", title: file.path }, file.path),
    file.approved ? null : h("div", { class: "job-detail" }, "Nothing in this file runs until you approve it as it is now; a changed file asks again."),
    hookCommandList(file),
    ...(file.problems ?? []).map((p) => h("div", { class: "mcp-error" }, p)),
    !file.approved && v.trusted && v.workspaceId ? h("div", { class: "job-actions" }, approve) : null,
  );
}
