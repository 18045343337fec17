// The Changes view (docs/architecture.md, "The Changes view"): every file the open session changed,
// by any tool, with its combined diff from the session's start to now; Revert a whole file (asked
// first) or one hunk. A turn's "Changed N files" line opens it at a file (`reveal`). The data and
// the calls are state/changes.js; the diff rows are the tool cards' (views/diff.js).
// In a git repository the panel is the review pane instead (views/review-pane.js,
// docs/decisions/review-pane.md): scopes, staging, discard with Undo, line comments.

import { h, icon, clear } from "./dom.js";
import { confirm } from "./confirm.js";
import { ReviewPane } from "./review-pane.js";
import { diffTable, statNodes } from "./diff.js";
import { describeError } from "../state/problems.js";
import { hostNote } from "../state/host-words.js";
import { t } from "../i18n/i18n.js";
import { CommitBox } from "./commit-box.js";
import { PressGuard } from "./press-guard.js";

const STATUS = new Set(["added", "modified", "deleted"]);

export class ChangesPanel {
  /** @param {HTMLElement} root @param {{state, review, toast(msg, tone?), close(), send(content), showSeq(seq), sessionTitle()}} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.commit = new CommitBox(ctx);
    this.commitBox = this.commit.root; // kept below the list: in a git repository, the review pane's .commit-box-slot
    this.open = false;
    this.pending = null; // a path to scroll to once the list is read
    this.target = null; // the path a turn's link opened, highlighted until the view closes
    this.aim = null; // review pane: {path, start?, end?, side?} to show once the repository is read
    this.pane = ctx.review ? new ReviewPane({ state: ctx.review, toast: ctx.toast, send: ctx.send }) : null;
    this.press = new PressGuard(root, () => this.render()); // a re-read while the agent edits never eats a click
    this.quiet = false; // the next re-read of the list follows the pane's own change: no second git.status
    ctx.state.on("change", () => {
      // the list was read again (a turn ended, a commit was made): so is the repository
      if (this.open && this.reviewing && !this.quiet && ctx.state.files !== null) ctx.review.refresh();
      this.quiet = false;
      if (this.open) this.render();
    });
    ctx.review?.on("change", () => this.open && this.render());
    ctx.review?.on("changed", () => {
      this.quiet = true; // staged, unstaged or discarded: the commit box and the count read again
      ctx.state.refresh();
    });
  }

  set(open) {
    const was = this.open;
    this.open = open;
    this.root.hidden = !open;
    if (this.ctx.review) this.ctx.review.active = open;
    if (!open) this.target = this.pending = this.aim = null;
    if (open && !was) {
      this.quiet = true; // both are read now: the list's answer needs no second git.status
      this.ctx.state.refresh();
      this.ctx.review?.refresh();
    }
    if (open) this.render();
  }

  /** Open at `path` (from a turn's file list), or at lines of it (a review comment's chip). */
  reveal(path, at = null) {
    this.pending = this.target = path;
    this.aim = { path, ...(at ?? {}) };
    this.render();
  }

  get reviewing() {
    return !!this.pane && this.ctx.review.repo !== false;
  }

  render() {
    if (!this.open || this.press.defer()) return;
    const typing = this.commitBox.contains(document.activeElement) ? document.activeElement : null;
    if (this.reviewing) {
      this.renderReview(); // the commit box sits in the review pane's slot, under the Staged list
      if (this.commitBox.parentNode !== this.pane.slot) this.pane.slot.append(this.commitBox);
    } else {
      this.root.classList.remove("is-review");
      this.head = null;
      this.draw();
      this.root.append(this.commitBox);
    }
    typing?.focus({ preventScroll: true }); // a re-read of the list does not take the focus from the box
  }

  draw() {
    const { files, error, loading } = this.ctx.state;
    const top = this.root.scrollTop; // a re-read keeps the place the person was reading
    const had = focusKey(this.root); // a re-read keeps the focus where it was, too
    clear(this.root);
    const close = h("button", { type: "button", class: "btn btn-icon", testid: "changes-close", "aria-label": t("changesPanel.close") }, icon("x"));
    close.addEventListener("click", () => this.ctx.close());
    const count = files ? h("span", { class: "changes-count", testid: "changes-summary" }, files.length ? t("changesPanel.summary", { count: files.length }) : "") : null;
    this.root.append(h("div", { class: "changes-head" }, h("h2", { class: "panel-title" }, t("changes.label")), count, close));
    if (error) this.root.append(h("p", { class: "list-empty", role: "alert" }, describeError(error)));
    if (!files) return this.root.append(h("p", { class: "list-empty" }, t("changesPanel.reading")));
    if (!files.length) {
      this.root.append(h("p", { class: "list-empty", testid: "changes-empty" }, t("changesPanel.empty")));
      if (had) close.focus(); // nothing left to review: the way out
      return;
    }
    this.root.append(h("ul", { class: "changes-list", role: "list" }, files.map((f) => this.fileNode(f))));
    this.root.scrollTop = top;
    if (had) this.root.querySelector(had)?.focus({ preventScroll: true });
    const target = [...this.root.querySelectorAll("[data-testid=changes-file]")].find((el) => el.dataset.path === this.target);
    target?.classList.add("is-target");
    if (this.pending && !loading) {
      this.pending = null;
      target?.scrollIntoView({ block: "start" });
      target?.querySelector("[data-testid=changes-file-name]")?.focus();
    }
  }

  /** The review pane under the panel's head (its element is kept: the scroll place and what is
   * being typed survive a re-read). */
  renderReview() {
    const close = h("button", { type: "button", class: "btn btn-icon", testid: "changes-close", "aria-label": t("changesPanel.close") }, icon("x"));
    close.addEventListener("click", () => this.ctx.close());
    if (!this.head) this.head = h("div", { class: "changes-head" });
    clear(this.head);
    this.head.append(h("h2", { class: "panel-title" }, t("changes.label")), h("span", { class: "changes-spacer" }), close);
    if (this.head.parentNode !== this.root || this.pane.el.parentNode !== this.root) {
      clear(this.root);
      this.root.append(this.head, this.pane.el);
    }
    this.root.classList.add("is-review");
    this.pane.render();
    if (this.aim && this.ctx.review.value && this.pane.reveal(this.aim)) this.aim = null;
  }

  fileNode(file) {
    const revert = h("button", { type: "button", class: "btn btn-small btn-danger-ghost", testid: "changes-revert-file", disabled: !file.revertable, title: file.revertable ? t("changesPanel.revertFileTitle") : hostNote(file.note) }, icon("retry"), h("span", {}, t("changesPanel.revertFile")));
    revert.addEventListener("click", () => this.revertFile(file, revert));
    const turns = file.turns.length ? h("span", { class: "changes-turns" }, t("changesPanel.turns", { count: file.turns.length, list: file.turns.map((n) => n + 1).join(", ") })) : null;
    const head = h(
      "div",
      { class: "diff-path changes-file-head" },
      icon("file"),
      h("span", { class: "diff-file", testid: "changes-file-name", tabindex: "-1", translate: "no" }, file.path),
      h("span", { class: ["badge", "diff-badge", `is-${file.status}`], testid: "changes-status" }, STATUS.has(file.status) ? t(`changesPanel.status.${file.status}`) : file.status),
      file.added || file.removed ? h("span", { class: "diff-stat", "aria-label": t("diff.stat", { added: file.added, removed: file.removed }) }, statNodes(file)) : null,
      turns,
      h("span", { class: "changes-spacer" }),
      revert,
    );
    const hunks = file.hunks.map((hunk) => this.hunkNode(file, hunk));
    const note = file.note ? h("p", { class: "diff-note", testid: "changes-note" }, t("diff.noteNone", { note: hostNote(file.note) })) : null;
    return h("li", { class: "diff-wrap file-change changes-file", testid: "changes-file", dataset: { path: file.path, status: file.status } }, head, ...hunks, note);
  }

  hunkNode(file, hunk) {
    const btn = h("button", { type: "button", class: "btn btn-small btn-ghost", testid: "changes-revert-hunk", disabled: !file.revertable, title: t("changesPanel.hunkTitle") }, icon("retry"), h("span", {}, t("changesPanel.revertHunk")));
    btn.addEventListener("click", () => this.revertHunk(file, hunk, btn));
    return h("div", { class: "changes-hunk", testid: "changes-hunk", dataset: { hunkId: hunk.id } }, h("div", { class: "changes-hunk-bar" }, btn), diffTable(hunk.diff, t("changesPanel.hunkLabel", { path: file.path })));
  }

  /** After a revert: the next hunk's Revert button in the same file (the last one when it was
   * the last), else that file's name, else the next file's (the one now at its place), else the
   * previous file's. Never <body>: a keyboard user goes on from where the change was. */
  placeFocus({ path, hunk, index }) {
    if (!this.open) return;
    const files = this.ctx.state.files ?? [];
    const nodes = [...this.root.querySelectorAll("[data-testid=changes-file]")];
    const same = nodes.find((el) => el.dataset.path === path);
    const buttons = same ? [...same.querySelectorAll("[data-testid=changes-revert-hunk]:not(:disabled)")] : [];
    let target = hunk != null && buttons.length ? buttons[Math.min(hunk, buttons.length - 1)] : null;
    target ??= same?.querySelector("[data-testid=changes-file-name]");
    target ??= nodes[Math.min(index, files.length - 1)]?.querySelector("[data-testid=changes-file-name]");
    target ??= this.root.querySelector("[data-testid=changes-close]"); // nothing left to review
    target?.focus();
    target?.scrollIntoView({ block: "nearest" });
  }

  /** Where the focus goes once `file` (its `hunk`-th hunk, or all of it) is reverted. */
  #place(file, hunk) {
    const index = (this.ctx.state.files ?? []).findIndex((f) => f.path === file.path);
    return { path: file.path, hunk, index: Math.max(0, index) };
  }

  async revertHunk(file, hunk, btn) {
    const choice = await confirm({
      title: t("changesPanel.revertHunkTitle", { path: file.path }),
      body: [t("changesPanel.revertHunkBody")],
      testid: "changes-revert-hunk-dialog",
      actions: [{ label: t("changesPanel.revertHunk"), value: "revert", tone: "danger", testid: "changes-revert-hunk-confirm" }],
    });
    if (choice !== "revert") return btn.focus();
    btn.disabled = true;
    const place = this.#place(file, file.hunks.indexOf(hunk));
    const r = await this.ctx.state.revertHunk(file, hunk); // the list is re-read (and drawn) by then
    this.placeFocus(place);
    if (!r.ok) this.ctx.toast(describeError(r.error));
    else this.ctx.toast(t("changesPanel.undid", { path: file.path }), "info");
  }

  async revertFile(file, btn) {
    const what = file.status === "added" ? t("changesPanel.willDelete") : t("changesPanel.willRestore");
    const choice = await confirm({
      title: t("changesPanel.revertTitle", { path: file.path }),
      body: [what],
      testid: "changes-revert-dialog",
      actions: [{ label: t("changesPanel.revertFile"), value: "revert", tone: "danger", testid: "changes-revert-confirm" }],
    });
    if (choice !== "revert") return;
    btn.disabled = true;
    const place = this.#place(file, null);
    const r = await this.ctx.state.revertFile(file);
    this.placeFocus(place);
    if (!r.ok) this.ctx.toast(describeError(r.error));
    else this.ctx.toast(t("changesPanel.reverted", { path: file.path }), "info");
  }
}

/** A selector for the focused control inside `root` that finds it again after a re-render
 * (its test id, its file's path, its hunk's place), or null. */
function focusKey(root) {
  const el = document.activeElement;
  if (!el || !root.contains(el) || !el.dataset.testid) return null;
  const file = el.closest("[data-testid=changes-file]");
  if (!file) return `[data-testid="${el.dataset.testid}"]`;
  const inFile = `[data-testid=changes-file][data-path="${CSS.escape(file.dataset.path)}"]`;
  const hunk = el.closest("[data-testid=changes-hunk]");
  if (!hunk) return `${inFile} [data-testid="${el.dataset.testid}"]`;
  return `${inFile} [data-testid=changes-hunk][data-hunk-id="${CSS.escape(hunk.dataset.hunkId)}"] [data-testid="${el.dataset.testid}"]`;
}
