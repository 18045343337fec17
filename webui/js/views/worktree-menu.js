// The header's worktree button (docs/decisions.md, "Worktree sessions"): for a session in a
// worktree, its branch with ahead/behind/uncommitted, and the hand-off menu — Apply to local
// checkout, Merge into <base>, Keep branch and remove the worktree, Discard; for a session in the
// person's own checkout of a repository, Move to a worktree. Each asks one confirmation.

import { h, icon, setChildren } from "./dom.js";
import { confirm } from "./confirm.js";
import { menuItem, menuKeys } from "./menu-keys.js";
import { describeError } from "../state/problems.js";
import { aheadBehind } from "../state/worktree-calls.js";
import { t } from "../i18n/i18n.js";

const TEXT = {
  get button() { return t("worktreeMenu.button"); },
  buttonTitle: (w) => t(w.dirty ? "worktreeMenu.buttonTitleDirty" : "worktreeMenu.buttonTitle", { branch: w.branch, path: w.path, ahead: w.ahead, base: w.base, behind: w.behind }),
  get move() { return t("worktreeMenu.move"); },
  get apply() { return t("worktreeMenu.apply"); },
  merge: (base) => t("worktreeMenu.merge", { base }),
  get remove() { return t("worktreeMenu.remove"); },
  get leave() { return t("worktreeMenu.leave"); },
  get discard() { return t("worktreeMenu.discard"); },
  get applyTitle() { return t("worktreeMenu.applyTitle"); },
  applyBody: (w) => t("worktreeMenu.applyBody", { branch: w.branch, base: w.base }),
  get applyIgnored() { return t("worktreeMenu.applyIgnored"); },
  applyDone: (n) => (n ? t("worktreeMenu.applied", { count: n }) : t("worktreeMenu.applyNothing")),
  mergeTitle: (w) => t("worktreeMenu.mergeTitle", { branch: w.branch, base: w.base }),
  mergeBody: (w) => t("worktreeMenu.mergeBody", { base: w.base }),
  mergeDone: (r, w) => t(r.upToDate ? "worktreeMenu.mergeUpToDate" : "worktreeMenu.merged", { branch: w.branch, base: w.base }),
  get removeTitle() { return t("worktreeMenu.removeTitle"); },
  removeBody: (w) => t("worktreeMenu.removeBody", { path: w.path, branch: w.branch }),
  get leaveTitle() { return t("worktreeMenu.leaveTitle"); },
  leaveBody: () => t("worktreeMenu.leaveBody"),
  get dirtyWarning() { return t("worktreeMenu.dirtyWarning"); },
  get removeDone() { return t("worktreeMenu.removeDone"); },
  discardTitle: (w) => t("worktreeMenu.discardTitle", { branch: w.branch }),
  discardBody: (w) => t("worktreeMenu.discardBody", { branch: w.branch, base: w.base }),
  get discardDone() { return t("worktreeMenu.discardDone"); },
  get moveTitle() { return t("worktreeMenu.moveTitle"); },
  get moveBody() { return t("worktreeMenu.moveBody"); },
  moveDone: (w) => t("worktreeMenu.moveDone", { branch: w.branch }),
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
    menuKeys(this.button, this.popup, (open) => this.toggle(open)); // ↓/↑, Home/End, Escape, Tab (menu-keys.js)
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
    const was = !this.popup.hidden;
    this.popup.hidden = !open;
    this.button.setAttribute("aria-expanded", String(open));
    if (open && !was) this.renderItems();
  }

  renderItems() {
    const w = this.worktree;
    const item = (label, testid, run, danger = false) => {
      const b = h("button", { type: "button", ...menuItem, class: ["menu-item", danger && "is-danger"], testid }, label);
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
