// The keyboard shortcuts sheet: `?` when not typing, or the sidebar's keyboard button
// (docs/decisions.md, "A day's work without friction"). What the app's keys do, in one place.

import { h, icon } from "./dom.js";
import { t } from "../i18n/i18n.js";

/** [keys, what they do]: "|" between alternatives, "+" in a chord, "," in a sequence; key caps
 * are written as keyboards print them (not translated), capitalised by `cap`. Every key a handler
 * in webui/js/views/ takes is here (tests/test_shortcuts_sheet.py holds them to it). */
export const ROWS = [
  ["ctrl+n", "keys.newSession"],
  ["ctrl+k", "keys.search"],
  ["↓|↑", "keys.results"],
  ["ctrl+f", "keys.find"],
  ["enter|shift+enter|f3|shift+f3", "keys.findStep"],
  ["ctrl+home|ctrl+end", "keys.ends"],
  ["enter", "keys.send"],
  ["shift+enter", "keys.newline"],
  ["ctrl+enter", "keys.steer"],
  ["↑|↓", "keys.recall"],
  ["/", "keys.slash"],
  ["@", "keys.mention"],
  ["y|a|n", "keys.approve"],
  ["alt+y|alt+a|alt+n", "keys.approveAnywhere"],
  ["f2", "keys.rename"],
  ["alt+↑|alt+↓", "keys.reorder"],
  ["↓|↑|←|→|home|end", "keys.menus"],
  ["ctrl+`", "keys.terminal"],
  ["ctrl+shift+e", "keys.files"],
  ["ctrl+shift+g", "keys.review"],
  ["ctrl+shift+c|ctrl+shift+v", "keys.termCopy"],
  ["ctrl+shift+f", "keys.termFind"],
  ["esc,tab", "keys.termLeave"],
  ["esc", "keys.escape"],
  ["?", "keys.sheet"],
];

const cap = (k) => k.charAt(0).toUpperCase() + k.slice(1);

export class ShortcutsSheet {
  constructor() {
    const close = h("button", { type: "button", class: "btn btn-icon", testid: "shortcuts-close", "aria-label": t("common.close") }, icon("x"));
    close.addEventListener("click", () => this.el.close());
    this.list = h("dl", { class: "shortcuts-list", testid: "shortcuts-list" });
    this.el = h(
      "dialog",
      { class: "settings-dialog shortcuts-dialog", testid: "shortcuts-dialog", "aria-labelledby": "shortcuts-title" },
      h("header", { class: "dialog-head" }, h("h2", { id: "shortcuts-title" }, t("keys.title")), close),
      this.list,
    );
    document.body.append(this.el);
  }

  open() {
    this.list.replaceChildren(
      ...ROWS.flatMap(([keys, what]) => [
        h("dt", { translate: "no" }, keys.split("|").flatMap((alt, i) => [i ? " / " : null, ...alt.split(",").flatMap((step, n) => [n ? ", " : null, ...step.split("+").flatMap((k, j) => [j ? "+" : null, h("kbd", {}, cap(k))])])])),
        h("dd", {}, t(what)),
      ]),
    );
    if (!this.el.open) this.el.showModal();
  }
}
