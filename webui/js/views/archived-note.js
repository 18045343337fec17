// "This session is archived": a banner over an open archived session, with Unarchive, so the
// person knows why it is not in the list (docs/decisions.md, "Review and context").

import { h } from "./dom.js";

export class ArchivedNote {
  /** @param root the banners strip @param ctx {unarchive(sessionId)} */
  constructor(root, ctx) {
    this.sessionId = null;
    const undo = h("button", { type: "button", class: "btn btn-small", testid: "archived-note-unarchive" }, "Unarchive");
    undo.addEventListener("click", () => this.sessionId && ctx.unarchive(this.sessionId));
    this.el = h(
      "div",
      { class: "banner banner-info", testid: "archived-note", role: "status", hidden: true },
      h("span", {}, h("strong", {}, "This session is archived."), " It stays under Archived at the bottom of the list."),
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
