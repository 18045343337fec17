// Steering that waits for the agent's next step, as chips under the composer (from the
// `session/queue` snapshots: placement "steering"). A chip goes when the host delivers it (the
// steering message then shows in the conversation); × takes it back (session.updateQueue remove).

import { h, icon, clear } from "./dom.js";
import { describeError } from "../state/problems.js";
import { t } from "../i18n/i18n.js";

export class SteerChips {
  /** @param {HTMLElement} root @param {{turns: TurnCalls, toast(msg)}} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.sessionId = null;
  }

  /** `items`: the session's visible queue; only the steering ones are shown here. */
  set(sessionId, items) {
    this.sessionId = sessionId;
    const steering = (items ?? []).filter((i) => i.placement === "steering");
    clear(this.root);
    this.root.hidden = steering.length === 0;
    for (const item of steering) this.root.append(this.chip(item));
  }

  chip(item) {
    const content = item.message?.content ?? [];
    const text = content.filter((b) => b.type === "text").map((b) => b.text).join(" ").replace(/\s+/g, " ").trim();
    const images = content.filter((b) => b.type === "image").length;
    const remove = h("button", { type: "button", class: "btn btn-icon btn-small", testid: "steer-chip-remove", title: t("steer.takeBack"), "aria-label": t("steer.takeBackLabel") }, icon("x"));
    remove.addEventListener("click", async () => {
      remove.disabled = true;
      const payload = { sessionId: this.sessionId, itemId: item.id, action: { kind: "remove" } };
      const r = await this.ctx.turns.updateQueue(payload);
      if (!r.ok) {
        remove.disabled = false;
        this.ctx.toast(describeError(r.error));
      }
    });
    return h(
      "div",
      { class: "steer-chip", testid: "steer-chip", role: "status", dataset: { itemId: item.id }, title: t("steer.title") },
      icon("steer"),
      h("span", { class: "steer-chip-label" }, t("steer.label")),
      h("span", { class: "steer-chip-text", testid: "steer-chip-text" }, text ? h("span", { translate: "no" }, text) : t("steer.image"), images && text ? t("steer.images", { count: images }) : ""),
      h("span", { class: "steer-chip-when" }, t("steer.when")),
      remove,
    );
  }
}
