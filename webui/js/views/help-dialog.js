// /help: the commands and skills this session offers, and how to use them.

import { h, icon, clear } from "./dom.js";
import { CLIENT_COMMANDS } from "../state/slash.js";

export class HelpDialog {
  constructor() {
    this.body = h("div", { class: "help-body" });
    const close = h("button", { type: "button", class: "btn btn-icon", testid: "help-close", "aria-label": "Close" }, icon("x"));
    close.addEventListener("click", () => this.el.close());
    this.el = h(
      "dialog",
      { class: "settings-dialog help-dialog", testid: "help-dialog", "aria-labelledby": "help-title" },
      h("header", { class: "dialog-head" }, h("h2", { id: "help-title" }, "Commands and skills"), close),
      this.body,
    );
    document.body.append(this.el);
  }

  /** @param {{commands, skills}} catalogue */
  open({ commands, skills }) {
    const entry = (name, hint, text) => h("li", { testid: "help-entry" }, h("code", {}, `/${name}`, hint ? ` ${hint}` : ""), h("span", {}, text));
    clear(this.body).append(
      h("p", { class: "hint" }, "Type / in the message box to pick one. A command runs when it starts the message; a skill can sit anywhere in it and gives the agent its instructions."),
      h("h3", {}, "Commands"),
      h("ul", { class: "help-list" }, [...commands.map((c) => entry(c.name, c.input?.hint, c.description)), ...CLIENT_COMMANDS.map((c) => entry(c.name, null, c.description))]),
      h("h3", {}, "Skills"),
      skills.length
        ? h("ul", { class: "help-list" }, skills.map((s) => entry(s.name, null, s.description)))
        : h("p", { class: "muted" }, "No skills here. Put SKILL.md files under .agents/skills/<name>/ in the project, or in your data folder's skills/."),
    );
    if (!this.el.open) this.el.showModal();
  }
}
