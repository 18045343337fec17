// The composer's `@` menu (docs/architecture.md, "The @ finder"): typing `@` and some letters
// offers files and folders of the session's folder and the resources of its MCP servers, best
// first. Arrow keys move, Enter or Tab attaches the active one as a chip, Escape closes; the
// textarea keeps the focus (a combobox with a listbox, views/combobox.js, like the slash menu),
// and no other key is taken from it.

import { h, icon, clear } from "./dom.js";
import { ComboList } from "./combobox.js";
import { atToken, formatSize, highlightRuns, problemsNote } from "../state/finder.js";
import { t } from "../i18n/i18n.js";

const RETRIES = 10;
const RETRY_MS = 1500;

export class FinderMenu {
  /**
   * @param {HTMLTextAreaElement} input
   * @param {{queries: import("../state/finder.js").FinderQueries, choose(match, token): void}} ctx
   */
  constructor(input, ctx) {
    this.input = input;
    this.ctx = ctx;
    this.token = null;
    this.combo = new ComboList(input, { id: "finder-menu-list", label: t("finder.label"), optionPrefix: "finder-opt-", choose: (i) => this.choose(i) });
    this.list = this.combo.list;
    this.el = h("div", { class: "slash-menu finder-menu", testid: "finder-menu", hidden: true });
    this.foot = h("p", { class: "finder-foot", testid: "finder-foot" });
    this.el.append(this.list, this.foot);
  }

  get items() {
    return this.combo.items;
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
    this.asked = 0;
    await this.ask(token);
  }

  async ask(token) {
    const found = await this.ctx.queries.find(token.query);
    if (found === null || this.token !== token) return; // typed on meanwhile
    this.waiting = false;
    const keep = this.items[this.combo.active];
    this.combo.items = found.matches;
    const again = keep ? found.matches.findIndex((m) => m.path === keep.path && m.kind === keep.kind) : -1;
    this.combo.active = this.asked > 0 && again >= 0 ? again : 0;
    this.render(found);
    // an MCP server still starting or listing: ask again a few times while the query stands
    if (found.problems?.length && this.asked < RETRIES) {
      this.asked++;
      setTimeout(() => {
        if (this.open && this.token === token) this.ask(token);
      }, RETRY_MS);
    }
  }

  renderWaiting() {
    clear(this.list);
    this.list.append(h("li", { class: "slash-empty", role: "presentation" }, t("finder.looking")));
    this.foot.textContent = "";
    this.show();
  }

  render({ error, partial, problems }) {
    clear(this.list);
    const anyResource = this.items.some((m) => m.kind === "resource");
    this.list.append(h("li", { class: "slash-section", role: "presentation" }, anyResource ? t("finder.withResources") : t("finder.filesFolders")));
    this.items.forEach((item, i) => this.list.append(this.row(item, i)));
    if (!this.items.length) this.list.append(h("li", { class: "slash-empty", role: "presentation", testid: "finder-empty" }, error ?? t("finder.none")));
    const trouble = problemsNote(problems);
    this.foot.textContent = [partial ? t("finder.partial") : t("finder.keys"), trouble].filter(Boolean).join(" · ");
    this.foot.title = (problems ?? []).join("\n");
    this.show();
    this.combo.syncActive();
  }

  row(item, i) {
    const runs = highlightRuns(item.path, item.hits);
    const marked = runs.map((r) => (r.hit ? h("mark", {}, r.text) : r.text));
    const attrs = { ...this.combo.optionAttrs(i), class: ["slash-item", "finder-item", i === this.combo.active && "is-active"], testid: "finder-item" };
    if (item.kind === "resource") {
      const r = item.resource;
      return h(
        "li",
        { ...attrs, class: [...attrs.class, "finder-resource"], title: [r.title, r.uri, r.description].filter(Boolean).join("\n"), dataset: { index: String(i), path: item.path, kind: "resource", server: r.server, uri: r.uri } },
        icon("resource"),
        h("span", { class: "finder-path", dir: "ltr", translate: "no" }, marked, r.title && r.title !== r.name ? h("span", { class: "finder-title" }, ` ${r.title}`) : null),
        h("span", { class: "slash-kind finder-server", testid: "finder-server" }, `MCP · ${r.server}`),
      );
    }
    return h(
      "li",
      { ...attrs, dataset: { index: String(i), path: item.path, kind: item.kind } },
      icon(item.kind === "folder" ? "folder" : "file"),
      h("span", { class: "finder-path", dir: "ltr", translate: "no" }, marked, item.kind === "folder" ? "/" : ""),
      h("span", { class: "slash-kind" }, item.kind === "folder" ? t("finder.folder") : formatSize(item.size)),
    );
  }

  show() {
    this.el.hidden = false;
    this.combo.expand();
  }

  close() {
    if (this.el.hidden && this.token === null) return;
    this.token = null;
    this.waiting = false;
    this.el.hidden = true;
    this.combo.collapse("slash-menu-list"); // the textarea's other list
  }

  /** Keys while open; true when the menu used the key. */
  onKeyDown(e) {
    if (!this.open) return false;
    // Enter while the first answer is on its way attaches nothing and sends nothing
    if (e.key !== "Escape" && this.waiting && !this.items.length && (e.key === "Enter" || e.key === "Tab")) return true;
    return this.combo.onKeyDown(e, { close: () => this.close(), choose: (i) => this.choose(i) });
  }

  choose(index) {
    const item = this.items[index];
    const token = this.token;
    if (!item || !token) return;
    this.close();
    this.ctx.choose(item, token);
  }
}
