// The composer's `@` menu (docs/architecture.md, "The @ finder"): typing `@` and some letters
// offers files and folders of the session's folder, best first. Arrow keys move, Enter or Tab
// attaches the active one as a chip, Escape closes; the textarea keeps the focus (a combobox
// with a listbox, like the slash menu), and no other key is taken from it.

import { h, icon, clear } from "./dom.js";
import { atToken, formatSize, highlightRuns } from "../state/finder.js";

export class FinderMenu {
  /**
   * @param {HTMLTextAreaElement} input
   * @param {{queries: import("../state/finder.js").FinderQueries, choose(match, token): void}} ctx
   */
  constructor(input, ctx) {
    this.input = input;
    this.ctx = ctx;
    this.items = [];
    this.active = 0;
    this.token = null;
    this.el = h("div", { class: "slash-menu finder-menu", testid: "finder-menu", hidden: true });
    this.list = h("ul", { id: "finder-menu-list", class: "slash-list", role: "listbox", "aria-label": "Files and folders" });
    this.foot = h("p", { class: "finder-foot", testid: "finder-foot" });
    this.el.append(this.list, this.foot);
    this.list.addEventListener("mousedown", (e) => e.preventDefault()); // keep the caret in the textarea
    this.list.addEventListener("click", (e) => {
      const li = e.target.closest("[role=option]");
      if (li) this.choose(Number(li.dataset.index));
    });
  }

  get open() {
    return !this.el.hidden;
  }

  /** Re-read the token at the caret (after input, a click or a caret move). */
  async update() {
    const token = atToken(this.input.value, this.input.selectionStart ?? 0);
    if (!token || this.input.selectionStart !== this.input.selectionEnd) return this.close();
    const sameQuery = this.token && this.token.query === token.query && this.token.start === token.start;
    this.token = token;
    if (sameQuery && this.open) return;
    if (!this.open) this.renderWaiting();
    this.waiting = true;
    const found = await this.ctx.queries.find(token.query);
    if (found === null || this.token !== token) return; // typed on meanwhile
    this.waiting = false;
    this.items = found.matches;
    this.active = 0;
    this.render(found);
  }

  renderWaiting() {
    clear(this.list);
    this.list.append(h("li", { class: "slash-empty", role: "presentation" }, "Looking through the folder…"));
    this.foot.textContent = "";
    this.show();
  }

  render({ error, partial }) {
    clear(this.list);
    this.list.append(h("li", { class: "slash-section", role: "presentation" }, "Files and folders"));
    this.items.forEach((item, i) => {
      const runs = highlightRuns(item.path, item.hits);
      const li = h(
        "li",
        {
          id: `finder-opt-${i}`,
          class: ["slash-item", "finder-item", i === this.active && "is-active"],
          role: "option",
          testid: "finder-item",
          "aria-selected": String(i === this.active),
          dataset: { index: String(i), path: item.path, kind: item.kind },
        },
        icon(item.kind === "folder" ? "folder" : "file"),
        h("span", { class: "finder-path", dir: "ltr" }, runs.map((r) => (r.hit ? h("mark", {}, r.text) : r.text)), item.kind === "folder" ? "/" : ""),
        h("span", { class: "slash-kind" }, item.kind === "folder" ? "folder" : formatSize(item.size)),
      );
      this.list.append(li);
    });
    if (!this.items.length) this.list.append(h("li", { class: "slash-empty", role: "presentation", testid: "finder-empty" }, error ?? "No file or folder matches."));
    this.foot.textContent = partial ? "A very large folder: only part of it is searched." : "Enter or Tab attaches · Esc closes";
    this.show();
    this.syncActive();
  }

  show() {
    this.el.hidden = false;
    this.input.setAttribute("aria-controls", "finder-menu-list");
    this.input.setAttribute("aria-expanded", "true");
  }

  syncActive() {
    for (const li of this.list.querySelectorAll("[role=option]")) {
      const on = Number(li.dataset.index) === this.active;
      li.classList.toggle("is-active", on);
      li.setAttribute("aria-selected", String(on));
      if (on) li.scrollIntoView({ block: "nearest" });
    }
    if (this.items.length) this.input.setAttribute("aria-activedescendant", `finder-opt-${this.active}`);
    else this.input.removeAttribute("aria-activedescendant");
  }

  close() {
    if (this.el.hidden && this.token === null) return;
    this.token = null;
    this.waiting = false;
    this.el.hidden = true;
    this.input.setAttribute("aria-controls", "slash-menu-list");
    this.input.setAttribute("aria-expanded", "false");
    this.input.removeAttribute("aria-activedescendant");
  }

  /** Keys while open; true when the menu used the key. */
  onKeyDown(e) {
    if (!this.open) return false;
    if (e.key === "Escape") {
      this.close();
      return true;
    }
    // Enter while the first answer is on its way attaches nothing and sends nothing
    if (this.waiting && !this.items.length && (e.key === "Enter" || e.key === "Tab")) return true;
    if (!this.items.length) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const step = e.key === "ArrowDown" ? 1 : -1;
      this.active = (this.active + step + this.items.length) % this.items.length;
      this.syncActive();
      return true;
    }
    if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") {
      this.choose(this.active);
      return true;
    }
    return false;
  }

  choose(index) {
    const item = this.items[index];
    const token = this.token;
    if (!item || !token) return;
    this.close();
    this.ctx.choose(item, token);
  }
}
