// The listbox half of a combobox whose textarea keeps the focus (the composer's `/` and `@`
// menus): options are picked with the mouse without moving the caret, the arrows move the active
// option, Enter (without Shift) or Tab chooses it, Escape closes; the textarea's aria attributes
// say which list it controls and which option is active. One place for the keys both menus take.

import { h } from "./dom.js";

export class ComboList {
  /**
   * @param {HTMLTextAreaElement} input the combobox (it keeps the focus)
   * @param {{id: string, label: string, optionPrefix: string, choose(index: number): void}} opts
   */
  constructor(input, { id, label, optionPrefix, choose }) {
    this.input = input;
    this.id = id;
    this.optionPrefix = optionPrefix;
    this.items = [];
    this.active = 0;
    this.list = h("ul", { id, class: "slash-list", role: "listbox", "aria-label": label });
    this.list.addEventListener("mousedown", (e) => e.preventDefault()); // keep the caret in the textarea
    this.list.addEventListener("click", (e) => {
      const li = e.target.closest("[role=option]");
      if (li) choose(Number(li.dataset.index));
    });
  }

  /** The id an option's element carries (what aria-activedescendant names). */
  optionId(i) {
    return `${this.optionPrefix}${i}`;
  }

  /** The common attributes of option `i` (merge them into the `li`'s own). */
  optionAttrs(i) {
    return { id: this.optionId(i), role: "option", "aria-selected": String(i === this.active) };
  }

  /** The list is shown: the textarea controls it. */
  expand() {
    this.input.setAttribute("aria-controls", this.id);
    this.input.setAttribute("aria-expanded", "true");
  }

  /** The list is hidden; `controls` names the list the textarea controls from now on. */
  collapse(controls = this.id) {
    this.input.setAttribute("aria-controls", controls);
    this.input.setAttribute("aria-expanded", "false");
    this.input.removeAttribute("aria-activedescendant");
  }

  syncActive() {
    for (const li of this.list.querySelectorAll("[role=option]")) {
      const on = Number(li.dataset.index) === this.active;
      li.classList.toggle("is-active", on);
      li.setAttribute("aria-selected", String(on));
      if (on) li.scrollIntoView({ block: "nearest" });
    }
    if (this.items.length) this.input.setAttribute("aria-activedescendant", this.optionId(this.active));
    else this.input.removeAttribute("aria-activedescendant");
  }

  /** The keys of an open list; true when it used the key. `close()` on Escape, `choose(i)` on
   * Enter or Tab; with no options only Escape is taken. */
  onKeyDown(e, { close, choose }) {
    if (e.key === "Escape") {
      close();
      return true;
    }
    if (!this.items.length) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const step = e.key === "ArrowDown" ? 1 : -1;
      this.active = (this.active + step + this.items.length) % this.items.length;
      this.syncActive();
      return true;
    }
    if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") {
      choose(this.active);
      return true;
    }
    return false;
  }
}
