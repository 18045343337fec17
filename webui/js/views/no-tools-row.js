// The row shown where a model that has no tools was asked to act (docs/decisions.md, "Offline
// agent"): the host told the model it cannot (a `no-tools` context message); the person reads
// plainly that nothing was done, whatever the model says, and what would work.

import { h, icon } from "./dom.js";

export const NO_TOOLS_TEXT = {
  title: "This model cannot act: it only chats.",
  body: "It did not read, create, change or run anything on this computer, whatever its answer says. For an agent that works on your files, pick a model that can use tools in the model menu, or add one in Settings (a local server, a downloaded model, or an API key).",
};

export function noToolsRow() {
  return h(
    "div",
    { class: "row notice-row no-tools-row", testid: "no-tools-row", role: "note" },
    icon("info"),
    h("div", {}, h("strong", {}, NO_TOOLS_TEXT.title), " ", h("span", {}, NO_TOOLS_TEXT.body)),
  );
}
