// The row shown where a model that has no tools was asked to act (docs/decisions.md, "Offline
// agent"): the host told the model it cannot (a `no-tools` context message); the person reads
// plainly that nothing was done, whatever the model says, and what would work.

import { h, icon } from "./dom.js";
import { t } from "../i18n/i18n.js";

export function noToolsRow() {
  return h(
    "div",
    { class: "row notice-row no-tools-row", testid: "no-tools-row", role: "note" },
    icon("info"),
    h("div", {}, h("strong", {}, t("noTools.title")), " ", h("span", {}, t("noTools.body"))),
  );
}
