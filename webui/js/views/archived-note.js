// "This session is archived": a banner over an open archived session, with Unarchive, so the
// person knows why it is not in the list (docs/decisions.md, "Review and context").

import { h } from "./dom.js";
import { t } from "../i18n/i18n.js";

export class ArchivedNote {
  /** @param root the banners strip @param ctx {unarchive(sessionId)} */
  constructor(root, ctx) {
    this.sessionId = null;
    const undo = h("button", { type: "button", class: "btn btn-small", testid: "archived-note-unarchive" }, t("sessionItem.unarchive"));
    undo.addEventListener("click", () => this.sessionId && ctx.unarchive(this.sessionId));
    this.el = h(
      "div",
      { class: "banner banner-info", testid: "archived-note", role: "status", hidden: true },
      h("span", {}, h("strong", {}, t("archived.title")), t("archived.where")),
      undo,
    );
    root.append(this.el);
  }

  /** Show the note when `sessionId` (the open session, or null) is archived. */
  set(sessionId, archived) {
    this.sessionId = sessionId;
    this.el.hidden = !(sessionId && archived);
  }
}
