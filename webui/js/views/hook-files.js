// A project's hook file in the MCP panel (docs/decisions.md, "Hook approval"): its commands, and
// Approve — the file runs only once its exact content was approved; a changed file asks again.

import { h, icon } from "./dom.js";
import { t } from "../i18n/i18n.js";

/** The commands a hook file would run, one line each: "PreToolUse (Bash): ./guard.sh". */
export function hookCommandList(file) {
  return h(
    "ul",
    { class: "mcp-trust-commands hook-commands" },
    ...file.commands.map((c) => h("li", { translate: "no" }, h("strong", {}, c.event), c.matcher ? ` (${c.matcher})` : "", " ", h("code", { testid: "hook-file-command" }, c.command))),
  );
}

/** @param {{approve(file, button)}} on */
export function hookFileNode(v, file, on) {
  const state = !v.trusted ? t("mcp.state.needs-trust") : file.approved ? t("hooks.approved") : t("mcp.state.needs-approval");
  const approve = h("button", { type: "button", class: "btn btn-small btn-primary", testid: "hook-file-approve", title: t("hooks.approveTitle") }, icon("check"), h("span", {}, t("hooks.approveButton")));
  approve.addEventListener("click", () => on.approve(file, approve));
  return h(
    "li",
    { class: ["job", "mcp-server", "hook-file"], testid: "hook-file", dataset: { approved: String(file.approved) } },
    h("div", { class: "job-head" }, h("strong", { class: "mcp-name" }, t("hooks.project")), h("span", { class: "badge mcp-state", testid: "hook-file-state" }, state)),
    h("code", { class: "job-label mcp-command", title: file.path, translate: "no" }, file.path),
    file.approved ? null : h("div", { class: "job-detail" }, t("hooks.untilApproved")),
    hookCommandList(file),
    ...(file.problems ?? []).map((p) => h("div", { class: "mcp-error", translate: "no" }, p)),
    !file.approved && v.trusted && v.workspaceId ? h("div", { class: "job-actions" }, approve) : null,
  );
}
