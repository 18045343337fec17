// The review pane (docs/decisions/review-pane.md): the session's repository in four scopes (This
// session, Uncommitted, Branch, Last turn) as Unstaged and Staged lists; per file and per hunk
// Stage, Unstage and Discard (Undo for 10 s); every hunk the smallest run of changed lines, with
// line numbers and the unchanged lines between runs collapsed. The rows are virtualized — only
// those in view are in the DOM, all of one height — so a 5,000-line diff scrolls as a short one.
// Click a line number (Shift-click for a range) to comment; comments collect in the tray and go to
// the agent as one message of review-comment parts. The commit box mounts in `.commit-box-slot`
// under the lists. Data and calls: state/review.js.

import { h, icon, clear } from "./dom.js";
import { describeError } from "../state/problems.js";
import { parseUnifiedDiff } from "../state/unified-diff.js";
import { SCOPES, UNDO_MS, hunkRows } from "../state/review.js";
import { t } from "../i18n/i18n.js";

export const ROW = 24; // px: every row of the list (CSS: .review-row)
const OVERSCAN = 12;
const STATUS = new Set(["added", "modified", "deleted", "renamed", "copied", "typechange", "unmerged", "untracked"]);
const OP = { add: "+", del: "−", ctx: " " };

export class ReviewPane {
  /** @param {{state, toast(msg, tone?), send(content): Promise<boolean>}} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    this.state = ctx.state;
    this.rows = [];
    this.selection = null; // {path, side, start, end, anchor, section}
    this.target = null; // {path, line, side}: a chip's link, highlighted
    this.drawn = { first: -1, last: -1, rows: null };
    this.el = h("div", { class: "review-pane", testid: "review-pane" });
    this.tabs = h("div", { class: "review-scopes", role: "tablist", "aria-label": t("review.scopes") });
    this.notice = h("div", { class: "review-notice" });
    this.spacer = h("div", { class: "review-spacer" });
    this.window = h("div", { class: "review-window", role: "list" });
    this.scroller = h("div", { class: "review-scroll", testid: "review-scroll", tabindex: "-1" }, this.spacer, this.window);
    this.slot = h("div", { id: "commit-box-slot", class: "commit-box-slot", testid: "commit-box-slot" }); // the commit box mounts here
    this.undoBar = h("div", { class: "review-undo", testid: "review-undo", role: "status", hidden: true });
    this.form = h("div", { class: "review-comment-form", testid: "review-comment-form", hidden: true });
    this.tray = h("div", { class: "review-tray", testid: "review-tray", hidden: true });
    this.el.append(this.tabs, this.notice, this.scroller, this.undoBar, this.form, this.tray, this.slot);
    this.scroller.addEventListener("scroll", () => this.#schedule());
    this.undoTimer = null;
  }

  render() {
    this.#tabs();
    const { value, error } = this.state;
    clear(this.notice);
    if (error) this.notice.append(h("p", { class: "list-empty", role: "alert" }, describeError(error)));
    if (!value) {
      this.notice.append(h("p", { class: "list-empty" }, t("review.reading")));
      this.#setRows([]);
    } else if (value.withheld === "untrusted-config") {
      this.notice.append(h("p", { class: "list-empty", testid: "review-untrusted", role: "alert" }, t("review.untrusted", { findings: value.findings.join(", ") })));
      this.#setRows([]);
    } else if (value.withheld === "no-base") {
      this.notice.append(h("p", { class: "list-empty", testid: "review-no-base" }, t("review.noBase")));
      this.#setRows([]);
    } else {
      if (!value.files.length) this.notice.append(h("p", { class: "list-empty", testid: "review-empty" }, t("review.empty")));
      else this.notice.append(h("p", { class: "review-hint" }, t("review.selectHint")));
      this.#setRows(this.#build(value));
    }
    this.#undo();
    this.#form();
    this.#tray();
  }

  #tabs() {
    clear(this.tabs);
    for (const scope of SCOPES) {
      const on = scope === this.state.scope;
      const b = h("button", { type: "button", role: "tab", class: ["btn", "btn-small", "review-scope", on && "is-on"], testid: `review-scope-${scope}`, "aria-selected": String(on) }, t(`review.scope.${scope}`));
      b.addEventListener("click", () => this.state.setScope(scope));
      this.tabs.append(b);
    }
  }

  /** Every row of the list: section heads, file heads, hunk bars, lines and collapsed gaps. */
  #build(value) {
    const rows = [];
    const branch = value.scope === "branch";
    for (const section of ["unstaged", "staged"]) {
      const files = value.files.filter((f) => (section === "staged" ? f.hasStaged : f.hasUnstaged));
      const title = section === "staged" && branch ? t("review.stagedBranch", { base: value.base ?? "", count: files.length }) : t(`review.${section}`, { count: files.length });
      rows.push({ kind: "section", section, title });
      for (const file of files) {
        rows.push({ kind: "file", section, file });
        for (const r of hunkRows(file[section], parseUnifiedDiff)) rows.push({ ...r, section, file });
      }
    }
    return rows;
  }

  #setRows(rows) {
    this.rows = rows;
    this.spacer.style.height = `${rows.length * ROW}px`;
    this.drawn = { first: -1, last: -1, rows: null };
    this.#draw();
  }

  #schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.#draw();
    });
  }

  /** Only the rows in view (and a few around them) are in the DOM. */
  #draw() {
    const height = this.scroller.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.scroller.scrollTop / ROW) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((this.scroller.scrollTop + height) / ROW) + OVERSCAN);
    if (this.drawn.rows === this.rows && this.drawn.first === first && this.drawn.last === last) return;
    const had = document.activeElement && this.window.contains(document.activeElement) ? document.activeElement.dataset.key : null;
    this.drawn = { first, last, rows: this.rows };
    clear(this.window);
    this.window.style.transform = `translateY(${first * ROW}px)`;
    for (let i = first; i < last; i++) this.window.append(this.#row(this.rows[i], i));
    if (had) this.window.querySelector(`[data-key="${CSS.escape(had)}"]`)?.focus({ preventScroll: true });
  }

  #row(r, i) {
    if (r.kind === "section") return h("div", { class: "review-row review-section", role: "listitem", testid: `review-section-${r.section}` }, h("h3", {}, r.title));
    if (r.kind === "file") return this.#fileRow(r);
    if (r.kind === "gap") return h("div", { class: "review-row review-gap", role: "listitem", testid: "review-gap" }, t("review.gap", { count: r.count }));
    if (r.kind === "hunk") return this.#hunkRow(r);
    return this.#lineRow(r, i);
  }

  #fileRow({ file, section }) {
    const status = STATUS.has(file.status) ? t(`review.status.${file.status}`) : file.status;
    return h(
      "div",
      { class: "review-row review-file", role: "listitem", testid: "review-file", dataset: { path: file.path, section } },
      icon("file"),
      h("span", { class: "diff-file", testid: "review-file-name", translate: "no" }, file.path),
      file.oldPath ? h("span", { class: "review-from", testid: "review-renamed-from", translate: "no" }, t("review.renamedFrom", { path: file.oldPath })) : null,
      h("span", { class: ["badge", "diff-badge", `is-${file.status}`], testid: "review-status" }, status),
      file.binary ? h("span", { class: "badge diff-badge", testid: "review-binary" }, t("review.binary")) : null,
      file.mine ? h("span", { class: "badge diff-badge is-mine", testid: "review-mine", title: t("review.mineTitle") }, t("review.mine")) : null,
      h("span", { class: "changes-spacer" }),
      ...this.#actions(section, { paths: [file.path] }, file.path, `f:${section}:${file.path}`),
    );
  }

  #hunkRow({ hunk, file, section }) {
    return h(
      "div",
      { class: "review-row review-hunk", role: "listitem", testid: "review-hunk", dataset: { hunkId: hunk.id, path: file.path, section } },
      h("span", { class: "diff-text", translate: "no" }, hunk.header),
      h("span", { class: "diff-stat" }, hunk.added ? h("span", { class: "stat-add" }, `+${hunk.added}`) : null, hunk.removed ? h("span", { class: "stat-del" }, `−${hunk.removed}`) : null),
      h("span", { class: "changes-spacer" }),
      ...this.#actions(section, { hunkIds: [hunk.id] }, file.path, `h:${section}:${hunk.id}`),
    );
  }

  /** Stage and Discard for unstaged changes, Unstage for staged ones (none for a branch's
   * committed changes: they are not in the index's diff). */
  #actions(section, target, path, key) {
    const out = [];
    const make = (verb, tone, run) => {
      const b = h("button", { type: "button", class: ["btn", "btn-small", tone], testid: `review-${verb}`, dataset: { key: `${key}:${verb}` }, "aria-label": t("review.action", { action: t(`review.${verb}`), path }) }, t(`review.${verb}`));
      b.addEventListener("click", async () => {
        b.disabled = true;
        const r = await run();
        if (!r.ok) this.ctx.toast(describeError(r.error));
        this.#refocus(verb, section, target.hunkIds ? "review-hunk" : "review-file");
      });
      out.push(b);
    };
    if (section === "unstaged") {
      make("stage", "btn-ghost", () => this.state.stage(target));
      make("discard", "btn-danger-ghost", () => this.#discard(target));
    } else if (this.state.scope !== "branch") {
      make("unstage", "btn-ghost", () => this.state.unstage(target));
    }
    return out;
  }

  /** After an action the clicked row is gone: the focus goes to the same action of the row now in
   * its place (or the next one of that list), else to the list itself — never to <body>. */
  #refocus(verb, section, kind) {
    const here = document.activeElement;
    if (here && here !== document.body && this.el.contains(here) && !here.disabled) return;
    const pick = (testid) => this.window.querySelector(`[data-testid="${testid}"][data-section="${section}"] [data-testid="review-${verb}"]:not(:disabled)`);
    (pick(kind) ?? pick(kind === "review-hunk" ? "review-file" : "review-hunk") ?? this.scroller).focus({ preventScroll: true });
  }

  async #discard(target) {
    const r = await this.state.discard(target);
    if (r.ok) {
      clearTimeout(this.undoTimer);
      this.undoTimer = setTimeout(() => this.state.dropUndo(), UNDO_MS);
      this.undoBar.querySelector("button")?.focus();
    }
    return r;
  }

  #lineRow(r, i) {
    const { row, file, section } = r;
    const side = row.kind === "del" ? "old" : "new";
    const no = side === "old" ? row.oldNo : row.newNo;
    const sel = this.selection;
    const picked = sel && sel.path === file.path && sel.section === section && sel.side === side && no >= sel.start && no <= sel.end;
    const aimed = this.target && this.target.path === file.path && this.target.side === side && no >= this.target.start && no <= this.target.end;
    const num = h("button", { type: "button", class: "review-no", testid: "review-line-no", dataset: { key: `l:${section}:${file.path}:${side}:${no}` }, "aria-label": t("review.commentOn", { path: file.path, lines: t("review.line", { n: no }) }) }, String(no));
    num.addEventListener("click", (e) => this.#select(file.path, section, side, no, e.shiftKey));
    return h(
      "div",
      { class: ["review-row", "review-line", `diff-${row.kind === "add" ? "add" : row.kind === "del" ? "del" : "ctx"}`, picked && "is-selected", aimed && "is-target"], role: "listitem", testid: "review-line", dataset: { path: file.path, side, line: String(no), index: String(i) } },
      num,
      h("span", { class: "diff-op", "aria-hidden": "true" }, OP[row.kind] ?? " "),
      h("span", { class: "diff-text", translate: "no" }, row.text || " "),
    );
  }

  #select(path, section, side, no, extend) {
    const sel = this.selection;
    if (extend && sel && sel.path === path && sel.section === section && sel.side === side) {
      this.selection = { ...sel, start: Math.min(sel.anchor, no), end: Math.max(sel.anchor, no) };
    } else {
      this.selection = { path, section, side, start: no, end: no, anchor: no };
    }
    this.drawn.rows = null;
    this.#draw();
    this.#form(true);
  }

  #excerpt(sel) {
    const lines = [];
    for (const r of this.rows) {
      if (r.kind !== "line" || r.file.path !== sel.path || r.section !== sel.section) continue;
      const side = r.row.kind === "del" ? "old" : "new";
      const no = side === "old" ? r.row.oldNo : r.row.newNo;
      if (side === sel.side && no >= sel.start && no <= sel.end) lines.push(`${r.row.kind === "del" ? "-" : "+"}${r.row.text}`);
    }
    return lines.join("\n");
  }

  #form(focus = false) {
    const sel = this.selection;
    this.form.hidden = !sel;
    if (!sel) return clear(this.form);
    if (!focus && this.form.childElementCount) return; // keep what is being typed
    clear(this.form);
    const lines = sel.start === sel.end ? t("review.line", { n: sel.start }) : t("review.lines", { from: sel.start, to: sel.end });
    const box = h("textarea", { class: "review-comment-text", testid: "review-comment-text", rows: "3", placeholder: t("review.commentPlaceholder"), "aria-label": t("review.commentOn", { path: sel.path, lines }) });
    const add = h("button", { type: "button", class: "btn btn-small btn-primary", testid: "review-comment-add" }, t("review.addComment"));
    const cancel = h("button", { type: "button", class: "btn btn-small", testid: "review-comment-cancel" }, t("common.cancel"));
    add.addEventListener("click", () => {
      const body = box.value.trim();
      if (!body) return box.focus();
      this.state.addComment({ path: sel.path, startLine: sel.start, endLine: sel.end, side: sel.side, body, excerpt: this.#excerpt(sel) });
      this.#clearSelection();
    });
    cancel.addEventListener("click", () => this.#clearSelection());
    this.form.append(h("label", { class: "review-comment-label", translate: "no" }, t("review.commentOn", { path: sel.path, lines })), box, h("div", { class: "review-comment-actions" }, cancel, add));
    if (focus) box.focus();
  }

  #clearSelection() {
    this.selection = null;
    this.drawn.rows = null;
    this.#draw();
    this.#form();
    this.#tray();
  }

  #tray() {
    const comments = this.state.comments;
    this.tray.hidden = !comments.length;
    clear(this.tray);
    if (!comments.length) return;
    const list = h(
      "ul",
      { class: "review-tray-list", role: "list" },
      comments.map((c, i) => {
        const remove = h("button", { type: "button", class: "btn btn-icon btn-small", testid: "review-tray-remove", "aria-label": t("review.remove") }, icon("x"));
        remove.addEventListener("click", () => this.state.removeComment(i));
        const lines = c.startLine === c.endLine ? t("review.line", { n: c.startLine }) : t("review.lines", { from: c.startLine, to: c.endLine });
        return h("li", { class: "review-tray-item", testid: "review-tray-item" }, h("span", { class: "review-tray-where", translate: "no" }, t("review.chip", { path: c.path, lines })), h("span", { class: "review-tray-body", translate: "no" }, c.body), remove);
      }),
    );
    const send = h("button", { type: "button", class: "btn btn-small btn-primary", testid: "review-send" }, t("review.send"));
    send.addEventListener("click", async () => {
      send.disabled = true;
      const sent = await this.ctx.send(this.state.commentParts());
      if (sent) {
        this.state.clearComments();
        this.ctx.toast(t("review.sent"), "info");
      } else send.disabled = false;
    });
    this.tray.append(h("h3", {}, t("review.tray", { count: comments.length })), list, send);
  }

  #undo() {
    const undo = this.state.undo;
    this.undoBar.hidden = !undo;
    if (undo && this.undoBar.dataset.undoId === undo.undoId) return; // the same discard: keep the focus
    this.undoBar.dataset.undoId = undo?.undoId ?? "";
    clear(this.undoBar);
    if (!undo) return;
    const btn = h("button", { type: "button", class: "btn btn-small", testid: "review-undo-button" }, t("review.undo"));
    btn.addEventListener("click", async () => {
      clearTimeout(this.undoTimer);
      btn.disabled = true;
      const r = await this.state.undoDiscard();
      if (!r.ok) this.ctx.toast(describeError(r.error));
      else this.ctx.toast(t("review.undone", { paths: r.value.paths.join(", ") }), "info");
    });
    this.undoBar.append(h("span", { translate: "no" }, t("review.discarded", { paths: undo.paths.join(", ") })), btn);
  }

  /** Scroll to `path` (its lines `start`..`end` on `side`, when given) and mark them. */
  reveal({ path, start, end, side }) {
    this.target = start ? { path, start, end: end ?? start, side: side ?? "new" } : null;
    let index = this.rows.findIndex((r) => r.kind === "line" && this.target && r.file.path === path && (r.row.kind === "del" ? "old" : "new") === this.target.side && (this.target.side === "old" ? r.row.oldNo : r.row.newNo) === start);
    if (index < 0) index = this.rows.findIndex((r) => r.kind === "file" && r.file.path === path);
    if (index >= 0) this.scroller.scrollTop = Math.max(0, index * ROW - ROW * 2);
    this.drawn.rows = null;
    this.#draw();
    return index >= 0;
  }
}
