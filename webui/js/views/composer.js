// The composer: Enter sends (mode "queue"), Shift+Enter is a newline, Steer while running
// (mode "steer"), Stop (session.cancel), image paste/drop/pick as base64 image content.
// `/` opens the slash menu; a message that starts with a known command runs it instead. `@`
// opens the finder (views/finder-menu.js): a chosen file or folder rides along as a chip.
// ArrowUp in an empty box recalls what was sent before (state/recall.js); setDraft() fills the
// box (and its images) for "Edit and resend".

import { h, icon, clear, tNodes } from "./dom.js";
import { fileToImageInput } from "./attachments.js";
import { isArchive } from "../state/importer.js";
import { SlashMenu } from "./slash-menu.js";
import { FinderMenu } from "./finder-menu.js";
import { ContextChips } from "./context-chips.js";
import { addChip, attachOf, chipFor, removeToken } from "../state/finder.js";
import { CLIENT_COMMANDS, commandLine } from "../state/slash.js";
import { Recall } from "../state/recall.js";
import { t } from "../i18n/i18n.js";

const CLIENT_NAMES = new Set(CLIENT_COMMANDS.map((c) => c.name));

/** `el[key] = value` only when it differs: an equal write still invalidates style or layout. */
function put(el, key, value) {
  if (el[key] !== value) el[key] = value;
}

export class ComposerView {
  /**
   * @param {HTMLElement} root
   * @param {{send(mode, content): Promise<boolean>, stop(): void, toast(msg): void,
   *   catalogue(): Promise<{commands, skills, warnings}>, refreshCatalogue?(): Promise<void>, runCommand(line): Promise<boolean>,
   *   runClient(name): void, sentTexts(): string[]}} actions
   */
  constructor(root, actions) {
    this.actions = actions;
    this.images = []; // {input, url}
    this.running = false;
    this.busy = false;
    this.recall = new Recall(() => actions.sentTexts?.() ?? []);
    this.input = h("textarea", {
      id: "composer-input",
      class: "composer-input",
      testid: "composer-input",
      rows: 1,
      placeholder: t("composer.placeholder"),
      "aria-label": t("composer.label"),
      "aria-describedby": "composer-hint",
    });
    this.chatOnly = h("span", { class: "chat-only", testid: "chat-only", hidden: true, role: "note" });
    this.thumbs = h("div", { class: "composer-attachments", testid: "composer-attachments", hidden: true });
    this.file = h("input", { type: "file", accept: "image/png,image/jpeg,image/webp,image/gif", multiple: true, class: "offscreen", tabindex: "-1", "aria-hidden": "true" });
    this.attachBtn = h("button", { type: "button", class: "btn btn-icon", testid: "composer-attach", title: t("composer.attach"), "aria-label": t("composer.attach") }, icon("image"));
    this.sendLabel = h("span", { class: "btn-label" }, t("composer.send"));
    this.sendBtn = h("button", { type: "button", class: "btn btn-primary", testid: "composer-send", title: t("composer.sendTitle") }, icon("send"), this.sendLabel);
    this.steerBtn = h("button", { type: "button", class: "btn", testid: "composer-steer", hidden: true, title: t("composer.steerTitle") }, icon("steer"), h("span", { class: "btn-label" }, t("composer.steer")));
    this.stopBtn = h("button", { type: "button", class: "btn btn-danger", testid: "composer-stop", hidden: true, title: t("composer.stopTitle") }, icon("stop"), h("span", { class: "btn-label" }, t("composer.stop")));
    const hint = h("p", { id: "composer-hint", class: "composer-hint" }, tNodes("composer.hint", { enter: h("kbd", {}, "Enter"), newline: [h("kbd", {}, "Shift"), "+", h("kbd", {}, "Enter")], slash: h("kbd", {}, "/"), at: h("kbd", {}, "@") }));
    this.picks = new ContextChips(() => this.refresh(), () => this.finderQueries?.cap);
    this.finderQueries = actions.finder ?? null;
    this.finder = new FinderMenu(this.input, { queries: actions.finder, choose: (match, token) => this.attachMatch(match, token) });
    this.menu = new SlashMenu(this.input, { catalogue: () => actions.catalogue(), refresh: () => actions.refreshCatalogue?.() ?? Promise.resolve(), runClient: (name) => actions.runClient(name), changed: () => this.refresh() });
    this.box = h(
      "div",
      { class: "composer-box" },
      this.thumbs,
      this.picks.el,
      this.input,
      h("div", { class: "composer-actions" }, this.attachBtn, this.file, this.chatOnly, h("span", { class: "spacer" }), this.stopBtn, this.steerBtn, this.sendBtn),
    );
    this.chips = h("div", { class: "steer-chips", testid: "steer-chips", hidden: true, "aria-live": "polite" }); // views/steer-chips.js
    root.append(this.menu.el, this.finder.el, this.box, this.chips, hint);
    this.wire();
    this.refresh();
  }

  wire() {
    this.input.addEventListener("keydown", (e) => {
      if (!e.isComposing && (this.menu.onKeyDown(e) || this.finder.onKeyDown(e))) {
        e.preventDefault();
        e.stopPropagation(); // Escape closes the menu, not the turn
        return;
      }
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
        e.preventDefault();
        this.submit(e.ctrlKey || e.metaKey ? "steer" : "queue");
      } else if ((e.key === "ArrowUp" || e.key === "ArrowDown") && !e.isComposing && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
        if (this.recallKey(e.key === "ArrowUp")) e.preventDefault();
      }
    });
    const menus = () => {
      this.menu.update();
      if (this.finderQueries) this.finder.update();
    };
    this.input.addEventListener("input", () => {
      this.refresh();
      menus();
    });
    this.input.addEventListener("click", menus);
    this.input.addEventListener("keyup", (e) => (e.key === "ArrowLeft" || e.key === "ArrowRight" || e.key === "Home" || e.key === "End") && menus());
    this.input.addEventListener("blur", () => {
      this.menu.close();
      this.finder.close();
    });
    this.input.addEventListener("paste", (e) => {
      const files = [...(e.clipboardData?.files ?? [])].filter((f) => f.type.startsWith("image/"));
      if (files.length) {
        e.preventDefault();
        this.addFiles(files);
      }
    });
    this.box.addEventListener("dragover", (e) => {
      if ([...(e.dataTransfer?.types ?? [])].includes("Files")) {
        e.preventDefault();
        this.box.classList.add("dragging");
      }
    });
    this.box.addEventListener("dragleave", () => this.box.classList.remove("dragging"));
    this.box.addEventListener("drop", (e) => {
      this.box.classList.remove("dragging");
      const files = [...(e.dataTransfer?.files ?? [])].filter((f) => !isArchive(f)); // archives import (views/import-archive.js)
      if (files.length) {
        e.preventDefault();
        this.addFiles(files);
      }
    });
    this.attachBtn.addEventListener("click", () => this.file.click());
    this.file.addEventListener("change", () => {
      this.addFiles([...this.file.files]);
      this.file.value = "";
    });
    this.sendBtn.addEventListener("click", () => this.submit("queue"));
    this.steerBtn.addEventListener("click", () => this.submit("steer"));
    this.stopBtn.addEventListener("click", () => this.actions.stop());
  }

  /** ArrowUp/Down over what was sent: only in an empty box, or one showing a recall whose
   * caret is at the edge the key moves past (inside a multi-line recall it moves the caret). */
  recallKey(up) {
    if (this.images.length || this.picks.chips.length) return false;
    const { value, selectionStart: a, selectionEnd: b } = this.input;
    const edge = !value.includes("\n") || (up ? a === 0 && b === 0 : a === value.length);
    if (!edge) return false;
    const text = up ? this.recall.up(value) : this.recall.down(value);
    if (text === null) return false;
    this.input.value = text;
    this.input.setSelectionRange(text.length, text.length);
    this.refresh();
    return true;
  }

  /** `name` of the chat-only model the box sends to (it gets no tools), or null. */
  setChatOnly(name) {
    this.chatOnly.hidden = !name;
    this.chatOnly.replaceChildren(...(name ? [icon("info"), h("span", {}, t("composer.chatOnly", { name }))] : []));
    this.chatOnly.title = name ? t("composer.chatOnlyTitle", { name }) : "";
    this.input.placeholder = name ? t("composer.placeholderChat") : t("composer.placeholder");
    this.chatOnlyName = name;
  }

  /** A match chosen in the `@` menu: its token leaves the text, a chip takes its place. */
  attachMatch(match, token) {
    const next = removeToken(this.input.value, token);
    this.input.value = next.text;
    this.input.setSelectionRange(next.caret, next.caret);
    this.picks.set(addChip(this.picks.chips, chipFor(match, this.finderQueries?.cap ?? Infinity)));
    this.input.focus();
    this.refresh();
  }

  /** Add `text` to the message box after what is there (the terminal's "Send to agent"). */
  insertText(text) {
    const before = this.input.value;
    this.input.value = before && !before.endsWith("\n") ? `${before}\n\n${text}` : `${before}${text}`;
    this.refresh();
    this.input.focus();
    this.input.setSelectionRange(this.input.value.length, this.input.value.length);
  }

  /** Attach a file of the session's folder as an `@` chip (the Files pane's viewer). */
  attachPath(path, size) {
    this.picks.set(addChip(this.picks.chips, chipFor({ path, kind: "file", size }, this.finderQueries?.cap ?? Infinity)));
    this.refresh();
  }

  /** Put `text` (and images: [{input, url}], attached files: chips) in the box, replacing what
   * was there, and focus it. */
  setDraft(text, images = [], chips = []) {
    for (const img of this.images) URL.revokeObjectURL(img.url);
    this.images = images;
    this.picks.set(chips);
    this.renderThumbs();
    this.input.value = text;
    this.recall.reset();
    this.refresh();
    this.input.focus();
    this.input.setSelectionRange(text.length, text.length);
  }

  async addFiles(files) {
    for (const f of files) {
      const r = await fileToImageInput(f);
      if (r.error) this.actions.toast(r.error);
      else this.images.push(r);
    }
    this.renderThumbs();
    this.refresh();
  }

  renderThumbs() {
    clear(this.thumbs);
    this.thumbs.hidden = this.images.length === 0;
    this.images.forEach((img, i) => {
      const remove = h("button", { type: "button", class: "btn btn-icon thumb-remove", testid: "attachment-remove", "aria-label": img.input.name ? t("composer.removeImage", { name: img.input.name }) : t("composer.removeAnImage") }, icon("x"));
      remove.addEventListener("click", () => {
        URL.revokeObjectURL(img.url);
        this.images.splice(i, 1);
        this.renderThumbs();
        this.refresh();
      });
      this.thumbs.append(h("figure", { class: "thumb", testid: "attachment-thumb" }, h("img", { src: img.url, alt: img.input.name ?? t("composer.pastedImage") }), remove));
    });
  }

  content() {
    const text = this.input.value;
    const out = [];
    if (text.trim() || (this.picks.chips.length && !this.images.length)) out.push({ type: "text", text });
    for (const img of this.images) out.push(img.input);
    return out;
  }

  /** The command a message runs instead of being sent: {name, client} or null. */
  async command() {
    const text = this.input.value;
    if (this.images.length || this.picks.chips.length || !/^\/[a-z]/.test(text)) return null;
    const catalogue = await this.actions.catalogue();
    const names = new Set([...catalogue.commands.map((c) => c.name), ...CLIENT_NAMES]);
    const line = commandLine(text, names);
    return line ? { name: line.name, client: CLIENT_NAMES.has(line.name) && !catalogue.commands.some((c) => c.name === line.name) } : null;
  }

  async submit(mode) {
    const content = this.content();
    if (content.length === 0 || this.busy) return;
    if (mode === "steer" && !this.running) mode = "queue";
    this.menu.close();
    this.finder.close();
    this.busy = true;
    this.input.dataset.sending = "true"; // what is being sent is no draft (views/approval-keys.js)
    this.refresh();
    const command = await this.command();
    let ok;
    if (command?.client) {
      this.actions.runClient(command.name);
      ok = true;
    } else if (command) {
      ok = await this.actions.runCommand(this.input.value);
    } else {
      ok = await this.actions.send(mode, content, this.picks.chips.map(attachOf));
    }
    this.busy = false;
    delete this.input.dataset.sending;
    if (ok) {
      this.input.value = "";
      this.recall.reset();
      for (const img of this.images) URL.revokeObjectURL(img.url);
      this.images = [];
      this.renderThumbs();
      this.picks.set([]);
    }
    this.refresh();
    // back to the box, unless an approval card took the focus meanwhile
    const at = document.activeElement;
    if (!at || at === document.body || this.box.parentElement.contains(at)) this.input.focus();
  }

  setRunning(running) {
    this.running = running;
    this.refresh();
  }

  /** How many messages wait behind the running turn (Stop keeps them; they run next). */
  setWaiting(count) {
    this.waiting = count;
    this.refresh();
  }

  setEnabled(enabled) {
    this.enabled = enabled;
    this.refresh();
  }

  /** Bring the buttons in line with the box. Called on every keystroke: it writes only what
   * changed, so a key that changes nothing here adds no style or layout work to its frame
   * (docs/decisions/window-keystrokes.md). */
  refresh() {
    const has = this.input.value.trim().length > 0 || this.images.length > 0 || this.picks.chips.length > 0;
    const enabled = this.enabled !== false;
    put(this.input, "disabled", !enabled);
    put(this.sendBtn, "disabled", !enabled || !has || this.busy);
    put(this.sendBtn, "title", this.running ? t("composer.queueTitle") : t("composer.sendTitle"));
    put(this.sendLabel, "textContent", this.running ? t("composer.queue") : t("composer.send"));
    put(this.input, "placeholder", this.chatOnlyName ? t("composer.placeholderChat") : t("composer.placeholder"));
    put(this.steerBtn, "hidden", !this.running);
    put(this.steerBtn, "disabled", !enabled || !has || this.busy);
    put(this.stopBtn, "hidden", !this.running);
    put(this.stopBtn, "disabled", !enabled);
    put(this.stopBtn, "title", this.waiting ? t("composer.stopWaiting", { count: this.waiting }) : t("composer.stopTitle"));
  }

  focus() {
    this.input.focus();
  }
}
