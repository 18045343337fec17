// The input waiting for the agent's next turn (from session/queue snapshots; steering for the
// next step shows as chips under the composer, injected context not at all), each editable,
// removable or promotable to steer through session.updateQueue. While the agent works, "Stop all" ends the
// turn and clears this list (a plain Stop keeps it: the next item starts).

import { h, icon, clear } from "./dom.js";
import { contentToPromptInput } from "./attachments.js";
import { ContextChips, sentChips } from "./context-chips.js";
import { attachedOf } from "../state/finder.js";
import { describeError } from "../state/problems.js";
import { t } from "../i18n/i18n.js";
import { PressGuard } from "./press-guard.js";

export class QueueView {
  /** @param {HTMLElement} root @param {{turns: TurnCalls, toast(msg), stopAll(): void}} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.sessionId = null;
    this.items = [];
    this.running = false;
    this.editing = null; // id of the item being edited
    this.press = new PressGuard(root, () => this.render()); // a queue snapshot never eats a click on an item
  }

  set(sessionId, items, running = this.running) {
    if (sessionId !== this.sessionId) this.editing = null;
    this.sessionId = sessionId;
    this.items = (items ?? []).filter((i) => i.placement !== "steering"); // steering: chips under the composer
    this.running = running;
    if (this.editing && !this.items.some((i) => i.id === this.editing)) this.editing = null;
    this.render();
  }

  setRunning(running) {
    if (running === this.running) return;
    this.running = running;
    if (!this.editing) this.render();
  }

  async update(itemId, action) {
    const r = await this.ctx.turns.updateQueue({ sessionId: this.sessionId, itemId, action });
    if (!r.ok) this.ctx.toast(describeError(r.error));
    return r.ok;
  }

  render() {
    if (this.press.defer()) return;
    clear(this.root);
    this.root.hidden = this.items.length === 0;
    if (!this.items.length) return;
    const head = h("div", { class: "queue-head" }, h("h2", { class: "queue-title" }, t("queue.waiting", { count: this.items.length })));
    if (this.running) {
      const stopAll = h("button", { type: "button", class: "btn btn-small btn-danger-ghost", testid: "queue-stop-all", title: t("queue.stopAllTitle") }, icon("stop"), h("span", {}, t("queue.stopAll")));
      stopAll.addEventListener("click", () => this.ctx.stopAll());
      head.append(h("span", { class: "spacer" }), stopAll);
    }
    this.root.append(head);
    const list = h("ol", { class: "queue-list", role: "list" });
    for (const item of this.items) list.append(this.itemNode(item));
    this.root.append(list);
  }

  itemNode(item) {
    const content = item.message?.content ?? [];
    const text = content.filter((b) => b.type === "text" && !b.attached).map((b) => b.text).join("\n");
    const images = content.filter((b) => b.type === "image").length;
    const li = h("li", { class: "queue-item", testid: "queue-item", dataset: { itemId: item.id, placement: item.placement } });
    if (this.editing === item.id) {
      const inputId = `queue-edit-${item.id}`;
      const ta = h("textarea", { id: inputId, class: "queue-edit-input", testid: "queue-edit-input", "aria-label": t("queue.editLabel"), rows: 2 });
      ta.value = text;
      // attached files stay chips (removable), and are named again on Save: read as they are then
      const chips = new ContextChips(() => {}, () => undefined, inputId);
      chips.set(attachedOf(content).map((a) => ({ ...a })));
      const save = h("button", { type: "button", class: "btn btn-small btn-primary", testid: "queue-edit-save" }, t("common.save"));
      const cancel = h("button", { type: "button", class: "btn btn-small", testid: "queue-edit-cancel" }, t("common.cancel"));
      const doSave = async () => {
        const images = await contentToPromptInput(this.ctx.turns, this.sessionId, content.filter((b) => b.type === "image"));
        const edited = [...(ta.value.trim() ? [{ type: "text", text: ta.value }] : []), ...images];
        const attach = chips.chips.map((c) => ({ path: c.path }));
        if (!edited.length) return; // a message needs words or an image of its own
        save.disabled = true;
        if (await this.update(item.id, { kind: "edit", content: edited, ...(attach.length ? { attach } : {}) })) this.editing = null;
        this.render();
      };
      save.addEventListener("click", doSave);
      cancel.addEventListener("click", () => {
        this.editing = null;
        this.render();
      });
      ta.addEventListener("keydown", (e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          this.editing = null;
          this.render();
        } else if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
          e.preventDefault();
          doSave();
        }
      });
      li.append(h("div", { class: "queue-edit" }, ta, chips.el), h("div", { class: "queue-actions" }, cancel, save));
      queueMicrotask(() => ta.focus());
      return li;
    }
    const edit = h("button", { type: "button", class: "btn btn-icon btn-small", testid: "queue-edit", title: t("queue.edit"), "aria-label": t("queue.editLabel") }, icon("pencil"));
    const steer = h("button", { type: "button", class: "btn btn-small", testid: "queue-steer", title: t("queue.steerTitle") }, icon("steer"), h("span", {}, t("composer.steer")));
    const remove = h("button", { type: "button", class: "btn btn-icon btn-small", testid: "queue-remove", title: t("chips.remove"), "aria-label": t("queue.removeLabel") }, icon("trash"));
    edit.addEventListener("click", () => {
      this.editing = item.id;
      this.render();
    });
    steer.addEventListener("click", () => this.update(item.id, { kind: "steer" }));
    remove.addEventListener("click", () => this.update(item.id, { kind: "remove" }));
    li.append(
      h("div", { class: "queue-body" }, h("span", { class: "queue-text" }, text ? h("span", { translate: "no" }, text) : t("steer.image"), images ? h("span", { class: "queue-images" }, t("steer.images", { count: images })) : null), sentChips(attachedOf(content))),
      h("div", { class: "queue-actions" }, steer, edit, remove),
    );
    return li;
  }
}
