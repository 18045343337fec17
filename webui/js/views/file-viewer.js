// The Files pane's viewer (docs/decisions.md, "Terminal and files"): a file of the session's
// folder, read-only, highlighted (the vendored highlight.js) with line numbers; a large file
// loads page by page as it scrolls; a binary file says so; an image is shown. From here: open it
// in the person's editor (host.openPath, the window or a browser on this machine), attach it to
// the message (the `@` chip), copy its path.

import { h, icon, clear, copyText } from "./dom.js";
import { t } from "../i18n/i18n.js";
import { describeError } from "../state/problems.js";
import { codeHtml } from "./markdown.js";
import { languageOf } from "../state/file-tree.js";

export class FileViewer {
  /** @param {{state, toast, attach(path, size), openPath(path), canOpen(), cwd(), back()}} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    this.state = ctx.state;
    this.el = h("section", { class: "file-viewer", testid: "file-viewer", hidden: true });
    this.path = h("span", { class: "file-viewer-path", testid: "file-viewer-path", translate: "no" });
    this.meta = h("span", { class: "file-viewer-meta", testid: "file-viewer-meta" });
    const back = h("button", { type: "button", class: "btn btn-icon", testid: "file-viewer-back", title: t("fileViewer.back"), "aria-label": t("fileViewer.back") }, icon("up"));
    back.addEventListener("click", () => ctx.back());
    this.editBtn = h("button", { type: "button", class: "btn btn-small", testid: "file-viewer-edit", title: t("fileViewer.editTitle") }, icon("reveal"), h("span", { class: "btn-label" }, t("fileViewer.edit")));
    this.editBtn.addEventListener("click", () => this.openInEditor());
    const attach = h("button", { type: "button", class: "btn btn-small", testid: "file-viewer-attach", title: t("fileViewer.attachTitle") }, h("span", { "aria-hidden": "true" }, "@"), h("span", { class: "btn-label" }, t("fileViewer.attach")));
    attach.addEventListener("click", () => this.attach());
    const copy = h("button", { type: "button", class: "btn btn-icon", testid: "file-viewer-copy-path", title: t("fileViewer.copyPath"), "aria-label": t("fileViewer.copyPath") }, icon("copy"));
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
      this.body.append(h("p", { class: "list-empty", role: "alert", testid: "file-viewer-error" }, describeError(f.error)));
      return;
    }
    if (f.image) {
      this.meta.textContent = t("fileViewer.size", { count: f.size });
      this.body.append(h("img", { class: "file-viewer-image", testid: "file-viewer-image", src: `data:${f.image.mime};base64,${f.image.data}`, alt: t("fileViewer.image", { path: f.path }) }));
      return;
    }
    if (f.binary) {
      this.meta.textContent = "";
      this.body.append(h("p", { class: "list-empty", testid: "file-viewer-binary" }, t("fileViewer.binary", { count: f.size })));
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
    this.body.append(h("div", { class: "file-chunk", testid: "file-chunk" }, h("pre", { class: "file-gutter", "aria-hidden": "true" }, numbers), h("pre", { class: "file-code", translate: "no" }, code)));
    this.meta.textContent = (f.lines < f.totalLines ? t("fileViewer.linesOf", { shown: f.lines, count: f.totalLines }) : t("fileViewer.lines", { count: f.totalLines }));
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
    this.ctx.toast(t("fileViewer.attached", { path: f.path }), "info");
  }

  async copyPath() {
    const f = this.state.file;
    if (f && (await copyText(f.path))) this.ctx.toast(t("fileViewer.copied"), "info");
  }
}
