// /help: the commands and skills this session offers, and how to use them.

import { h, icon, clear, tNodes } from "./dom.js";
import { CLIENT_COMMANDS } from "../state/slash.js";
import { t } from "../i18n/i18n.js";
import { commandDescription } from "../state/host-words.js";

export class HelpDialog {
  constructor() {
    this.body = h("div", { class: "help-body" });
    const close = h("button", { type: "button", class: "btn btn-icon", testid: "help-close", "aria-label": t("common.close") }, icon("x"));
    close.addEventListener("click", () => this.el.close());
    this.el = h(
      "dialog",
      { class: "settings-dialog help-dialog", testid: "help-dialog", "aria-labelledby": "help-title" },
      h("header", { class: "dialog-head" }, h("h2", { id: "help-title" }, t("slash.label")), close),
      this.body,
    );
    document.body.append(this.el);
  }

  /** @param {{commands, skills}} catalogue */
  open({ commands, skills }) {
    const entry = (name, hint, text, own = false) => h("li", { testid: "help-entry" }, h("code", { translate: "no" }, `/${name}`, hint ? ` ${hint}` : ""), h("span", { translate: own ? undefined : "no" }, text));
    clear(this.body).append(
      h("p", { class: "hint" }, t("help.hint")),
      h("h3", {}, t("slash.commands")),
      h("ul", { class: "help-list" }, [...commands.map((c) => entry(c.name, c.input?.hint, commandDescription(c), commandDescription(c) !== c.description)), ...CLIENT_COMMANDS.map((c) => entry(c.name, null, c.description, true))]),
      h("h3", {}, t("slash.skills")),
      skills.length
        ? h("ul", { class: "help-list" }, skills.map((s) => entry(s.name, null, s.description)))
        : h("p", { class: "muted" }, tNodes("help.noSkills", { project: h("code", { translate: "no" }, ".agents/skills/<name>/"), data: h("code", { translate: "no" }, "skills/") })),
    );
    if (!this.el.open) this.el.showModal();
  }
}
