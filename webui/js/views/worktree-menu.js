// The header's worktree button (docs/decisions.md, "Worktree sessions"): for a session in a
// worktree, its branch with ahead/behind/uncommitted, and the hand-off menu — Apply to local
// checkout, Merge into <base>, Keep branch and remove the worktree, Discard; for a session in the
// person's own checkout of a repository, Move to a worktree. Each asks one confirmation.

import { h, icon, setChildren } from "./dom.js";
import { confirm } from "./confirm.js";
import { describeError } from "../state/problems.js";
import { aheadBehind } from "../state/worktree-calls.js";

const TEXT = {
  button: "Worktree",
  buttonTitle: (w) => `Working on ${w.branch} in ${w.path}: ${w.ahead} ahead of ${w.base}, ${w.behind} behind${w.dirty ? ", with uncommitted changes" : ""}`,
  move: "Move to a worktree",
  apply: "Apply to local checkout",
  merge: (base) => `Merge into ${base}`,
  remove: "Keep branch, remove worktree",
  leave: "Back to my checkout",
  discard: "Discard",
  applyTitle: "Apply this worktree's changes to your checkout?",
  applyBody: (w) => `Everything ${w.branch} changed since ${w.base} — its commits and its uncommitted changes — arrives in your checkout as uncommitted changes. If your checkout changed the same files, nothing is applied and you are told which.`,
  applyIgnored: "Ignored files (.env, node_modules) do not move.",
  applyDone: (n) => (n ? `Applied: ${n === 1 ? "1 file" : `${n} files`} changed in your checkout.` : "Nothing to apply: your checkout already has these changes."),
  mergeTitle: (w) => `Merge ${w.branch} into ${w.base}?`,
  mergeBody: (w) => `The branch's commits join ${w.base} in your checkout (a fast-forward when it can). Your checkout must be on ${w.base} with nothing uncommitted, and so must the worktree.`,
  mergeDone: (r, w) => (r.upToDate ? `${w.base} already has every commit of ${w.branch}.` : `Merged ${w.branch} into ${w.base}.`),
  removeTitle: "Remove the worktree and keep its branch?",
  removeBody: (w) => `The folder ${w.path} is removed; the branch ${w.branch} stays. This session continues in your checkout.`,
  leaveTitle: "Go back to your checkout?",
  leaveBody: (w) => `This worktree is your own: it stays as it is. This session continues in your checkout.`,
  dirtyWarning: "Its uncommitted changes are lost.",
  removeDone: "The worktree is removed; the session continues in your checkout.",
  discardTitle: (w) => `Discard ${w.branch}?`,
  discardBody: (w) => `The worktree and the branch ${w.branch} are deleted, with every change on it that ${w.base} does not have. This session continues in your checkout.`,
  discardDone: "Discarded; the session continues in your checkout.",
  moveTitle: "Move this session to a new worktree?",
  moveBody: "It continues on a new branch in its own folder. Your checkout's uncommitted changes move with it: they leave your checkout.",
  moveDone: (w) => `Moved to ${w.branch}.`,
};

export class WorktreeMenu {
  /** ctx: {worktrees: WorktreeCalls, manager, toast} */
  constructor(ctx) {
    this.ctx = ctx;
    this.sessionId = null;
    this.worktree = null;
    this.button = h("button", { type: "button", class: "btn btn-small worktree-toggle", testid: "worktree-menu", hidden: true, "aria-haspopup": "menu", "aria-expanded": "false" });
    this.popup = h("div", { class: "worktree-popup", role: "menu", testid: "worktree-menu-items", hidden: true });
    this.el = h("span", { class: "worktree-slot" }, this.button, this.popup);
    this.button.addEventListener("click", () => this.toggle());
    document.addEventListener("click", (e) => !this.el.contains(e.target) && this.toggle(false));
    this.popup.addEventListener("keydown", (e) => e.key === "Escape" && (this.toggle(false), this.button.focus()));
  }

  /** `summary` of the open session; `inRepo`: its folder is in a git repository (the header's git line). */
  update(sessionId, summary, inRepo) {
    this.sessionId = sessionId;
    this.worktree = summary?.worktree ?? null;
    const w = this.worktree;
    const movable = !w && inRepo && summary && !summary.blank && summary.origin !== "subagent";
    this.button.hidden = !sessionId || !(w || movable);
    if (this.button.hidden) return this.toggle(false);
    this.button.dataset.branch = w?.branch ?? "";
    this.button.title = w ? TEXT.buttonTitle(w) : TEXT.move;
    const state = aheadBehind(w);
    setChildren(this.button, icon("fork"), h("span", { class: "btn-label", testid: "worktree-branch-label" }, w ? w.branch : TEXT.button), state ? h("span", { class: ["count", w.dirty && "is-attention"], testid: "worktree-state" }, state) : null);
  }

  toggle(open = this.popup.hidden) {
    this.popup.hidden = !open;
    this.button.setAttribute("aria-expanded", String(open));
    if (open) this.renderItems();
  }

  renderItems() {
    const w = this.worktree;
    const item = (label, testid, run, danger = false) => {
      const b = h("button", { type: "button", role: "menuitem", class: ["menu-item", danger && "is-danger"], testid }, label);
      b.addEventListener("click", () => {
        this.toggle(false);
        run();
      });
      return b;
    };
    const items = !w
      ? [item(TEXT.move, "worktree-move", () => this.move())]
      : w.owned === false
        ? [item(TEXT.apply, "worktree-apply", () => this.apply()), item(TEXT.merge(w.base), "worktree-merge", () => this.merge()), item(TEXT.leave, "worktree-remove", () => this.remove(true))]
        : [
            item(TEXT.apply, "worktree-apply", () => this.apply()),
            item(TEXT.merge(w.base), "worktree-merge", () => this.merge()),
            item(TEXT.remove, "worktree-remove", () => this.remove(true)),
            item(TEXT.discard, "worktree-discard", () => this.remove(false), true),
          ];
    setChildren(this.popup, items);
    items[0]?.focus();
  }

  async ask(spec) {
    return (await confirm(spec)) === "go";
  }

  async done(r, message) {
    if (!r.ok) return this.ctx.toast(describeError(r.error));
    this.ctx.toast(message(r.value), "info");
    await this.ctx.manager.refreshList(); // the session's folder, its worktree's state
  }

  async apply() {
    const w = this.worktree;
    const sid = this.sessionId;
    const go = await this.ask({ testid: "worktree-apply-dialog", title: TEXT.applyTitle, body: [TEXT.applyBody(w), h("p", { class: "hint" }, TEXT.applyIgnored)], actions: [{ label: TEXT.apply, value: "go", tone: "primary", testid: "worktree-apply-confirm" }] });
    if (go) await this.done(await this.ctx.worktrees.apply(sid), (v) => TEXT.applyDone(v.files.length + v.removed.length));
  }

  async merge() {
    const w = this.worktree;
    const sid = this.sessionId;
    const go = await this.ask({ testid: "worktree-merge-dialog", title: TEXT.mergeTitle(w), body: [TEXT.mergeBody(w)], actions: [{ label: TEXT.merge(w.base), value: "go", tone: "primary", testid: "worktree-merge-confirm" }] });
    if (go) await this.done(await this.ctx.worktrees.merge(sid), (v) => TEXT.mergeDone(v, w));
  }

  async remove(keepBranch) {
    const w = this.worktree;
    const sid = this.sessionId;
    const own = w.owned !== false;
    const lost = own && w.dirty ? [h("p", { class: "hint is-warning" }, TEXT.dirtyWarning)] : [];
    const spec = !keepBranch
      ? { testid: "worktree-discard-dialog", title: TEXT.discardTitle(w), body: [TEXT.discardBody(w), ...lost], actions: [{ label: TEXT.discard, value: "go", tone: "danger", testid: "worktree-discard-confirm" }] }
      : { testid: "worktree-remove-dialog", title: own ? TEXT.removeTitle : TEXT.leaveTitle, body: [own ? TEXT.removeBody(w) : TEXT.leaveBody(w), ...lost], actions: [{ label: own ? TEXT.remove : TEXT.leave, value: "go", tone: "primary", testid: "worktree-remove-confirm" }] };
    if (!(await this.ask(spec))) return;
    const r = await this.ctx.worktrees.remove(sid, keepBranch, !keepBranch || w.dirty);
    await this.done(r, () => (keepBranch ? TEXT.removeDone : TEXT.discardDone));
  }

  async move() {
    const sid = this.sessionId;
    const go = await this.ask({ testid: "worktree-move-dialog", title: TEXT.moveTitle, body: [TEXT.moveBody], actions: [{ label: TEXT.move, value: "go", tone: "primary", testid: "worktree-move-confirm" }] });
    if (go) await this.done(await this.ctx.worktrees.adopt(sid), (v) => TEXT.moveDone(v));
  }
}
