// The notice for a configuration file the host cannot use (settings.json, credentials.json: not
// UTF-8, not JSON, the wrong shape, a folder in its place). It names the file and what is wrong;
// the host runs without the file and writes nothing to it until it is fixed by hand ("Open file",
// the host notices the edit) or reset ("Reset" keeps the old file as <name>.broken-<time>).
// Nothing shows when settings are not offered to this page (a non-privileged caller).

import { h } from "./dom.js";
import { confirm } from "./confirm.js";
import { t } from "../i18n/i18n.js";

export class ConfigFileNotice {
  /** ctx: {config, toast(text, tone)} — `root` receives the notice. */
  constructor(root, ctx) {
    this.ctx = ctx;
    this.list = h("div", { class: "config-notice-files" });
    this.el = h("section", { class: "banner banner-error config-notice", testid: "config-file-notice", hidden: true, role: "alert", "aria-label": t("config.label") }, this.list);
    root.prepend(this.el);
    this.seq = 0;
  }

  /** Ask the host how it read both files and show the ones it cannot use. */
  async check() {
    const seq = ++this.seq;
    const [s, c] = await Promise.all([this.ctx.config.describeSettings(), this.ctx.config.describeCredentials([])]);
    if (seq !== this.seq) return; // a newer check is on its way
    const canOpen = s.ok && s.value.hasDocument;
    const broken = [s.ok ? s.value.file : null, c.ok ? c.value.file : null].filter((f) => f?.problem);
    this.list.replaceChildren(...broken.map((f) => this.row(f, canOpen)));
    this.el.hidden = broken.length === 0;
  }

  row(file, canOpen) {
    const open = h("button", { type: "button", class: "btn btn-small", testid: "config-file-open" }, t("config.open"));
    open.addEventListener("click", () => this.open(file));
    const reset = h("button", { type: "button", class: "btn btn-small", testid: "config-file-reset" }, t("config.resetButton"));
    reset.addEventListener("click", () => this.reset(file));

    return h(
      "div",
      { class: "config-notice-file", testid: "config-file-problem", "data-file": file.file },
      h("p", { class: "config-notice-text" }, h("strong", { translate: "no" }, file.problem), canOpen ? t("config.runsWithout") : t("config.runsWithoutAt", { path: file.path })),
      h("div", { class: "config-notice-actions" }, canOpen ? open : null, reset),
    );
  }

  async open(file) {
    const r = await this.ctx.config.openDocument({ file: file.file });
    if (!r.ok) this.ctx.toast(r.error.message || t("config.cannotOpen", { file: file.file }), "error");
  }

  async reset(file) {
    const choice = await confirm({
      title: t("config.resetTitle", { file: file.file }),
      testid: "config-file-reset-confirm",
      body: [t("config.resetBody", { file: file.file })],
      actions: [{ label: t("config.reset"), value: "reset", tone: "primary", testid: "config-file-reset-confirm-ok" }],
    });
    if (choice !== "reset") return;
    const r = await this.ctx.config.resetDocument({ file: file.file });
    if (!r.ok) this.ctx.toast(r.error.message || t("config.cannotReset", { file: file.file }), "error");
    else if (r.value.keptAs) this.ctx.toast(t("config.wasReset", { file: file.file, kept: r.value.keptAs }), "info");
    await this.check();
  }
}
