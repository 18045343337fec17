// A hook record in the conversation (docs/decisions.md, "Hook rows"): one compact line — the
// event, the hook's command, the outcome — that opens to the reason (the hook's stderr).

import { h, icon, tNodes } from "./dom.js";
import { hookOutcome, hookTone } from "../state/fold-hooks.js";
import { t } from "../i18n/i18n.js";

export function hookRow(item) {
  const tone = hookTone(item);
  return h(
    "details",
    { class: ["row", "hook-row", `hook-${tone}`], testid: "hook-row", dataset: { point: item.point, decision: item.decision ?? "" } },
    h(
      "summary",
      { title: item.handlerId },
      icon("terminal"),
      h("span", { class: "hook-point", testid: "hook-point" }, t("hooks.point", { point: item.point })),
      h("code", { class: "hook-command", testid: "hook-command", translate: "no" }, item.command ?? item.handlerId),
      h("span", { class: "hook-outcome", testid: "hook-outcome" }, hookOutcome(item)),
      item.reason ? h("span", { class: "hook-reason-first", testid: "hook-reason", translate: "no" }, item.reason.split("\n", 1)[0]) : null,
    ),
    h(
      "div",
      { class: "hook-body" },
      item.matcher ? h("p", {}, tNodes("hooks.matcher", { matcher: h("code", { translate: "no" }, item.matcher) })) : null,
      item.command ? h("pre", { class: "hook-command-full", translate: "no" }, item.command) : null,
      item.reason ? h("pre", { class: "hook-reason", translate: "no" }, item.reason) : h("p", {}, t("hooks.noStderr")),
    ),
  );
}
