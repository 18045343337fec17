// The composer's slash menu: typing `/` offers the session's commands (with their input hints),
// the client's own /model /new /help, and its skills (with descriptions). Arrow keys move,
// Enter or Tab chooses, Escape closes; the textarea stays focused (a combobox with a listbox,
// views/combobox.js).

import { h, clear } from "./dom.js";
import { ComboList } from "./combobox.js";
import { applyChoice, slashItems, slashToken } from "../state/slash.js";
import { t } from "../i18n/i18n.js";
import { commandDescription } from "../state/host-words.js";

/** Whether the page words this entry itself (a shipped command). */
const ownWords = (item) => commandDescription(item) !== item.description;

const KIND_LABEL = { command: "slash.kind.command", client: "slash.kind.app", skill: "slash.kind.skill" };
const SECTION = { command: "slash.commands", client: "slash.commands", skill: "slash.skills" };

export class SlashMenu {
  /**
   * @param {HTMLTextAreaElement} input
   * @param {{catalogue(): Promise<{commands, skills, warnings}>, refresh?(): Promise<void>, runClient(name): void, changed(): void}} ctx
   */
  constructor(input, ctx) {
    this.input = input;
    this.ctx = ctx;
    this.token = null;
    this.seq = 0;
    this.refreshing = false;
    this.combo = new ComboList(input, { id: "slash-menu-list", label: t("slash.label"), optionPrefix: "slash-opt-", choose: (i) => this.choose(i) });
    this.list = this.combo.list;
    this.el = h("div", { class: "slash-menu", testid: "slash-menu", hidden: true });
    this.foot = h("p", { class: "slash-foot", testid: "slash-warnings", hidden: true });
    this.el.append(this.list, this.foot);
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    this.combo.collapse();
  }

  get items() {
    return this.combo.items;
  }

  get open() {
    return !this.el.hidden;
  }

  /** Re-read the token at the caret (after input, a click or a caret move). */
  async update() {
    const token = slashToken(this.input.value, this.input.selectionStart ?? 0);
    if (!token || this.input.selectionStart !== this.input.selectionEnd) return this.close();
    const seq = ++this.seq;
    // Opening the menu reads the catalogue again in the background (the cached one shows at
    // once): a skill or command written since shows without switching sessions
    // (docs/decisions.md, "Review and context, part 2").
    if (this.token === null && !this.refreshing && this.ctx.refresh) {
      this.refreshing = true;
      this.ctx.refresh().finally(() => {
        this.refreshing = false;
        if (this.open) this.update();
      });
    }
    const catalogue = await this.ctx.catalogue();
    if (seq !== this.seq) return; // typed on meanwhile
    const sameQuery = this.token && this.token.query === token.query && this.token.atStart === token.atStart;
    this.token = token;
    this.combo.items = slashItems(catalogue, token);
    if (!sameQuery) this.combo.active = 0;
    this.render(catalogue.warnings ?? []);
  }

  render(warnings) {
    clear(this.list);
    let section = null;
    this.items.forEach((item, i) => {
      if (SECTION[item.kind] !== section) {
        section = SECTION[item.kind];
        this.list.append(h("li", { class: "slash-section", role: "presentation" }, t(section)));
      }
      const li = h(
        "li",
        {
          ...this.combo.optionAttrs(i),
          class: ["slash-item", i === this.combo.active && "is-active"],
          testid: "slash-item",
          dataset: { index: String(i), kind: item.kind, name: item.name },
        },
        h("span", { class: "slash-name", translate: "no" }, `/${item.name}`, item.hint ? h("span", { class: "slash-hint" }, ` ${item.hint}`) : null),
        h("span", { class: "slash-desc", translate: item.kind === "client" || ownWords(item) ? undefined : "no" }, commandDescription(item)),
        h("span", { class: "slash-kind" }, t(KIND_LABEL[item.kind])),
      );
      this.list.append(li);
    });
    if (!this.items.length) this.list.append(h("li", { class: "slash-empty", role: "presentation", testid: "slash-empty" }, t("slash.none")));
    this.foot.hidden = !warnings.length;
    if (warnings.length) {
      this.foot.textContent = t("slash.warnings", { count: warnings.length });
      this.foot.title = warnings.map((w) => `${w.source}: ${w.location} — ${w.message}`).join("\n");
    }
    this.el.hidden = false;
    this.combo.expand();
    this.combo.syncActive();
  }

  close() {
    this.seq++; // an answer still on its way is stale
    if (this.el.hidden && this.token === null) return; // every key of plain text lands here
    this.token = null;
    this.el.hidden = true;
    this.combo.collapse();
  }

  /** Keys while open; true when the menu used the key. */
  onKeyDown(e) {
    if (!this.open) return false;
    return this.combo.onKeyDown(e, { close: () => this.close(), choose: (i) => this.choose(i) });
  }

  choose(index) {
    const item = this.items[index];
    const token = this.token;
    if (!item || !token) return;
    this.close();
    if (item.kind === "client") {
      this.input.value = (this.input.value.slice(0, token.start) + this.input.value.slice(token.end)).trimStart();
      this.ctx.changed();
      this.ctx.runClient(item.name);
      return;
    }
    const next = applyChoice(this.input.value, token, item);
    this.input.value = next.text;
    this.input.setSelectionRange(next.caret, next.caret);
    this.input.focus();
    this.ctx.changed();
  }
}
