// "Open folder…": the host's native folder dialog in the desktop window (host.pickDirectory), an
// in-page folder browser in a browser tab (host.listDirectory / host.createDirectory). A host
// serves exactly one of the two and names the one it serves in directory-picker-unavailable, so
// the picker starts with the likely one (native in the window) and switches once when told.

import { h, icon, clear, tNodes } from "./dom.js";
import { describeError } from "../state/problems.js";
import { shortenPath } from "../state/session-list.js";
import { t } from "../i18n/i18n.js";

export class FolderPicker {
  /** ctx: {host, toast(msg), title?, testid?} — `host` may be a remote host's folder calls
   * (always the in-page browser: views/remote-hosts.js). */
  constructor(ctx) {
    this.ctx = ctx;
    this.mode = ctx.host.carrier === "bridge" ? "native" : "browse";
    this.showHidden = false;
    this.listing = null;
    this.resolve = null;
    this.seq = 0;
    this.arriving = null;
    this.build();
  }

  /** Ask the user for a folder; resolves to its absolute path, or null when they cancel. */
  async choose() {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (this.mode === "native") {
        const r = await this.ctx.host.pickDirectory();
        if (r.ok) return r.value.path ?? null;
        if (!this.switchOn(r.error)) return this.fail(r.error);
      } else {
        const r = await this.ctx.host.listDirectory();
        if (r.ok) return this.browse(r.value);
        if (!this.switchOn(r.error)) return this.fail(r.error);
      }
    }
    return null;
  }

  /** directory-picker-unavailable names the capability the host does serve: use that one. */
  switchOn(error) {
    const served = error?.code === "directory-picker-unavailable" ? error.details?.capability : null;
    if (!served || served === this.mode) return false;
    this.mode = served;
    return true;
  }

  fail(error) {
    if (error?.code !== "cancelled") this.ctx.toast(t("folder.failed", { reason: describeError(error) }));
    return null;
  }

  // ---- the in-page browser ------------------------------------------------------------------

  build() {
    this.crumbs = h("nav", { class: "fp-crumbs", testid: "folder-crumbs", "aria-label": t("folder.path") });
    this.entries = h("ul", { class: "fp-entries", testid: "folder-entries", role: "list", "aria-label": t("folder.folders") });
    this.note = h("p", { class: "fp-note", testid: "folder-note", role: "status" });
    this.hiddenBox = h("input", { type: "checkbox", id: "fp-hidden", testid: "folder-show-hidden" });
    this.nameInput = h("input", { type: "text", class: "fp-name", testid: "folder-new-name", "aria-label": t("folder.newName"), placeholder: t("folder.newName"), autocomplete: "off", spellcheck: "false" });
    this.newForm = h("form", { class: "fp-new", testid: "folder-new-form", hidden: true }, this.nameInput, h("button", { type: "submit", class: "btn btn-small", testid: "folder-new-create" }, t("folder.create")));
    this.choosePath = h("code", { class: "fp-current", testid: "folder-current", translate: "no" });
    // a typed or pasted path goes straight there (`~` is the home folder): no clicking down a tree
    this.pathInput = h("input", { type: "text", class: "fp-path", testid: "folder-path-input", "aria-label": t("folder.path"), placeholder: t("folder.typePath"), autocomplete: "off", spellcheck: "false" });
    this.pathForm = h("form", { class: "fp-path-form", testid: "folder-path-form" }, this.pathInput, h("button", { type: "submit", class: "btn btn-small", testid: "folder-path-go" }, t("folder.go")));
    this.openBtn = h("button", { type: "button", class: "btn btn-primary", testid: "folder-open" }, t("folder.open"));
    const home = h("button", { type: "button", class: "btn btn-small", testid: "folder-home" }, t("folder.home"));
    const newFolder = h("button", { type: "button", class: "btn btn-small", testid: "folder-new" }, icon("plus"), h("span", { class: "btn-label" }, t("folder.new")));
    const cancel = h("button", { type: "button", class: "btn", testid: "folder-cancel" }, t("common.cancel"));
    const titleId = this.ctx.testid ? `${this.ctx.testid}-title` : "fp-title";
    const close = h("button", { type: "button", class: "btn btn-icon", "aria-label": t("common.close") }, icon("x"));
    this.el = h(
      "dialog",
      { class: "dialog folder-dialog", testid: this.ctx.testid ?? "folder-dialog", "aria-labelledby": titleId },
      h("header", { class: "dialog-head" }, h("h2", { id: titleId, testid: "folder-title" }, this.ctx.title ?? t("presets.openFolder")), close),
      h("div", { class: "fp-bar" }, this.crumbs),
      this.pathForm,
      h("div", { class: "fp-tools" }, home, newFolder, h("label", { class: "fp-toggle", for: "fp-hidden" }, this.hiddenBox, t("folder.showHidden"))),
      this.newForm,
      this.entries,
      this.note,
      h("footer", { class: "dialog-foot" }, h("span", { class: "fp-choice" }, tNodes("folder.choice", { path: this.choosePath })), h("div", { class: "row-actions" }, cancel, this.openBtn)),
    );
    document.body.append(this.el);
    close.addEventListener("click", () => this.finish(null));
    cancel.addEventListener("click", () => this.finish(null));
    this.el.addEventListener("cancel", (e) => {
      e.preventDefault();
      this.finish(null);
    });
    this.openBtn.addEventListener("click", () => this.finish(this.listing?.path ?? null));
    home.addEventListener("click", () => this.go(undefined));
    newFolder.addEventListener("click", () => {
      this.newForm.hidden = !this.newForm.hidden;
      if (!this.newForm.hidden) this.nameInput.focus();
    });
    this.pathForm.addEventListener("submit", (e) => {
      e.preventDefault();
      const typed = this.pathInput.value.trim();
      if (!typed) return;
      const home = this.listing?.home;
      this.go(home && (typed === "~" || typed.startsWith("~/")) ? home + typed.slice(1) : typed);
    });
    this.newForm.addEventListener("submit", (e) => {
      e.preventDefault();
      this.create();
    });
    this.hiddenBox.addEventListener("change", () => {
      this.showHidden = this.hiddenBox.checked;
      this.render();
    });
  }

  browse(listing) {
    if (this.resolve) this.finish(null);
    this.show(listing);
    this.note.textContent = "";
    this.newForm.hidden = true;
    this.el.showModal();
    this.entries.querySelector("button")?.focus();
    return new Promise((resolve) => {
      this.resolve = resolve;
    });
  }

  finish(path) {
    const resolve = this.resolve;
    this.resolve = null;
    if (this.el.open) this.el.close();
    resolve?.(path);
  }

  /** Step to `path`. The new-folder form closes when the step begins, not when its listing
   * lands: a "New folder" clicked meanwhile stays open, and creates in the folder stepped to. */
  go(path) {
    this.newForm.hidden = true;
    this.arriving = this.step(path);
    return this.arriving;
  }

  async step(path) {
    const seq = ++this.seq;
    const r = await this.ctx.host.listDirectory(path);
    if (seq !== this.seq) return;
    if (!r.ok) {
      this.note.textContent = r.error.message || describeError(r.error);
      return;
    }
    this.show(r.value);
    this.entries.querySelector("button")?.focus();
  }

  async create() {
    const name = this.nameInput.value.trim();
    await this.arriving; // the folder shown once a step under way lands
    if (!name || !this.listing) return;
    const r = await this.ctx.host.createDirectory(this.listing.path, name);
    if (!r.ok) {
      this.note.textContent = r.error.code === "directory-exists" ? t("folder.exists", { name }) : describeError(r.error);
      return;
    }
    this.nameInput.value = "";
    await this.go(r.value.path); // step into the new folder: it is usually the one wanted
  }

  show(listing) {
    this.listing = listing;
    this.note.textContent = "";
    this.choosePath.textContent = shortenPath(listing.path, listing.home);
    this.choosePath.title = listing.path;
    this.pathInput.value = listing.path;
    clear(this.crumbs);
    listing.crumbs.forEach((c, i) => {
      const after = listing.crumbs[i - 1]?.name ?? "";
      if (i > 0 && !/[\\/]$/.test(after)) this.crumbs.append(h("span", { class: "fp-sep", "aria-hidden": "true" }, "/"));
      const last = i === listing.crumbs.length - 1;
      const b = h("button", { type: "button", class: "fp-crumb", testid: "folder-crumb", "aria-current": last ? "location" : undefined, title: c.path, translate: "no" }, c.name);
      b.addEventListener("click", () => this.go(c.path));
      this.crumbs.append(b);
    });
    this.render();
    const bar = this.crumbs.parentElement;
    bar.scrollLeft = bar.scrollWidth; // the current folder, at the end of a long path, in view
  }

  render() {
    const listing = this.listing;
    clear(this.entries);
    if (!listing) return;
    const rows = listing.entries.filter((e) => this.showHidden || !e.hidden);
    for (const e of rows) {
      const b = h("button", { type: "button", class: ["fp-entry", e.hidden && "is-hidden"], testid: "folder-entry", dataset: { path: e.path }, title: e.path }, icon("folder"), h("span", { translate: "no" }, e.name));
      b.addEventListener("click", () => this.go(e.path));
      this.entries.append(h("li", {}, b));
    }
    const hiddenCount = listing.entries.length - rows.length;
    if (!rows.length) this.entries.append(h("li", { class: "fp-empty", testid: "folder-empty" }, hiddenCount ? t("folder.emptyHidden", { count: hiddenCount }) : t("folder.empty")));
    if (listing.truncated) this.entries.append(h("li", { class: "fp-empty", testid: "folder-truncated" }, t("folder.truncated")));
  }
}
