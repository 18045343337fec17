// The Files pane's viewer (docs/decisions.md, "Terminal and files"): a file of the session's
// folder, read-only, highlighted (the vendored highlight.js) with line numbers; a large file
// loads page by page as it scrolls; a binary file says so; an image is shown. From here: open it
// in the person's editor (host.openPath, the window or a browser on this machine), attach it to
// the message (the `@` chip), copy its path.

import { h, icon, clear, copyText, fmt } from "./dom.js";
import { codeHtml } from "./markdown.js";
import { languageOf } from "../state/file-tree.js";

// The viewer's words (the lead moves them into the message catalogues).
const TEXT = {
  back: "Back to the files",
  edit: "Open in editor",
  editTitle: "Open this file in your editor (or the system's default program)",
  attach: "Attach",
  attachTitle: "Attach this file to the message (as @ does)",
  copyPath: "Copy path",
  copied: "Path copied.",
  attached: (path) => `${path} is attached to the message.`,
  binary: (size) => `A binary file (${fmt.format(size)} bytes): not shown.`,
  lines: (shown, total) => (shown < total ? `${fmt.format(shown)} of ${fmt.format(total)} lines` : `${fmt.format(total)} lines`),
  more: "Loading more…",
  image: (path) => `The image ${path}`,
};

export class FileViewer {
  /** @param {{state, toast, attach(path, size), openPath(path), canOpen(), cwd(), back()}} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    this.state = ctx.state;
    this.el = h("section", { class: "file-viewer", testid: "file-viewer", hidden: true });
    this.path = h("span", { class: "file-viewer-path", testid: "file-viewer-path" });
    this.meta = h("span", { class: "file-viewer-meta", testid: "file-viewer-meta" });
    const back = h("button", { type: "button", class: "btn btn-icon", testid: "file-viewer-back", title: TEXT.back, "aria-label": TEXT.back }, icon("up"));
    back.addEventListener("click", () => ctx.back());
    this.editBtn = h("button", { type: "button", class: "btn btn-small", testid: "file-viewer-edit", title: TEXT.editTitle }, icon("reveal"), h("span", { class: "btn-label" }, TEXT.edit));
    this.editBtn.addEventListener("click", () => this.openInEditor());
    const attach = h("button", { type: "button", class: "btn btn-small", testid: "file-viewer-attach", title: TEXT.attachTitle }, h("span", { "aria-hidden": "true" }, "@"), h("span", { class: "btn-label" }, TEXT.attach));
    attach.addEventListener("click", () => this.attach());
    const copy = h("button", { type: "button", class: "btn btn-icon", testid: "file-viewer-copy-path", title: TEXT.copyPath, "aria-label": TEXT.copyPath }, icon("copy"));
    copy.addEventListener("click", () => this.copyPath());
    this.body = h("div", { class: "file-viewer-body", testid: "file-viewer-body", tabindex: "0" });
    this.body.addEventListener("scroll", () => {
      const b = this.body;
      if (b.scrollTop + b.clientHeight > b.scrollHeight - 400) this.state.more();
    });
    this.el.append(h("div", { class: "file-viewer-head" }, back, this.path, h("span", { class: "spacer" }), this.editBtn, attach, copy), this.meta, this.body);
    this.state.on("file", ({ again } = {}) => this.render(again));
    this.state.on("more", ({ text, startLine }) => this.appendChunk(text, startLine));
  }

  render(again = false) {
    const f = this.state.file;
    if (!f) return;
    const top = again ? this.body.scrollTop : 0;
    clear(this.body);
    this.path.textContent = f.path;
    this.editBtn.hidden = !this.ctx.canOpen();
    if (f.error) {
      this.meta.textContent = "";
      this.body.append(h("p", { class: "list-empty", role: "alert", testid: "file-viewer-error" }, f.error.message));
      return;
    }
    if (f.image) {
      this.meta.textContent = `${fmt.format(f.size)} bytes`;
      this.body.append(h("img", { class: "file-viewer-image", testid: "file-viewer-image", src: `data:${f.image.mime};base64,${f.image.data}`, alt: TEXT.image(f.path) }));
      return;
    }
    if (f.binary) {
      this.meta.textContent = "";
      this.body.append(h("p", { class: "list-empty", testid: "file-viewer-binary" }, TEXT.binary(f.size)));
      return;
    }
    this.appendChunk(f.text, f.startLine);
    this.body.scrollTop = top;
  }

  /** Lines `startLine`… as a block: a gutter of numbers beside the highlighted code. */
  appendChunk(text, startLine) {
    const f = this.state.file;
    const count = text === "" && startLine === 1 && f.totalLines === 0 ? 0 : text.split("\n").length;
    const numbers = Array.from({ length: count }, (_, i) => String(startLine + i)).join("\n");
    const code = h("code", { class: "hljs" });
    code.innerHTML = codeHtml(text, languageOf(f.path)); // escaped or sanitised (views/markdown.js)
    this.body.append(h("div", { class: "file-chunk", testid: "file-chunk" }, h("pre", { class: "file-gutter", "aria-hidden": "true" }, numbers), h("pre", { class: "file-code" }, code)));
    this.meta.textContent = TEXT.lines(f.lines, f.totalLines);
  }

  absolute() {
    const cwd = this.ctx.cwd();
    return cwd ? `${cwd.replace(/\/+$/, "")}/${this.state.file.path}` : null;
  }

  async openInEditor() {
    const path = this.absolute();
    if (path) await this.ctx.openPath(path);
  }

  attach() {
    const f = this.state.file;
    if (!f) return;
    this.ctx.attach(f.path, f.size ?? null);
    this.ctx.toast(TEXT.attached(f.path), "info");
  }

  async copyPath() {
    const f = this.state.file;
    if (f && (await copyText(f.path))) this.ctx.toast(TEXT.copied, "info");
  }
}
