// New session's "In a new worktree" (docs/decisions.md, "Worktree sessions"): for a folder inside
// a git repository, a checkbox remembered per workspace; the branch named from the first prompt
// (editable), the base (the current branch or one picked), or an existing branch or worktree to
// start in; the folder's worktree settings (where worktrees go, ignored files copied in, a setup
// command). The session is made when the first prompt is sent (`start`): the worktree is named
// after it, and when the checkout holds uncommitted changes the person says whether they come.

import { h, setChildren } from "./dom.js";
import { confirm } from "./confirm.js";
import { describeError } from "../state/problems.js";
import { branchFrom } from "../state/worktree-calls.js";
import { t } from "../i18n/i18n.js";

const TEXT = {
  get option() { return t("worktreePanel.option"); },
  get optionHint() { return t("worktreePanel.optionHint"); },
  get branch() { return t("worktreePanel.branch"); },
  get branchHint() { return t("worktreePanel.branchHint"); },
  get base() { return t("worktreePanel.base"); },
  get start() { return t("worktreePanel.start"); },
  get newBranch() { return t("worktreePanel.newBranch"); },
  existingBranch: (b) => t("worktreePanel.existingBranch", { branch: b }),
  existingWorktree: (p, b) => (b ? t("worktreePanel.existingWorktreeOn", { path: p, branch: b }) : t("worktreePanel.existingWorktree", { path: p })),
  get settings() { return t("worktreePanel.settings"); },
  get location() { return t("worktreePanel.location"); },
  get locationHint() { return t("worktreePanel.locationHint"); },
  get copy() { return t("worktreePanel.copy"); },
  get setup() { return t("worktreePanel.setup"); },
  get save() { return t("worktreePanel.save"); },
  get saved() { return t("worktreePanel.saved"); },
  get untrusted() { return t("worktreePanel.untrusted"); },
  get noSandbox() { return t("worktreePanel.noSandbox"); },
  get carryTitle() { return t("worktreePanel.carryTitle"); },
  carryBody: (n) => t("worktreePanel.carryBody", { count: n }),
  get carry() { return t("worktreePanel.carry"); },
  get leave() { return t("worktreePanel.leave"); },
  failed: (why) => t("worktreePanel.failed", { why }),
  get ignored() { return t("worktreePanel.ignored"); },
};

const PREFILL_MS = 150;

export class WorktreePanel {
  /** ctx: {worktrees: WorktreeCalls, workspaces, manager, draft(): string, onDraft(listener), toast} */
  constructor(ctx) {
    this.ctx = ctx;
    this.el = h("div", { class: "worktree-panel", testid: "worktree-panel", hidden: true });
    this.sessionId = null;
    this.workspaceId = null;
    this.options = null;
    this.edited = false;
    // the branch name follows the draft once typing pauses, not inside each keystroke's frame
    // (docs/decisions/window-keystrokes.md)
    let queued = false;
    ctx.onDraft(() => {
      if (queued || !this.branchInput || this.edited) return;
      queued = true;
      setTimeout(() => {
        queued = false;
        this.prefill();
      }, PREFILL_MS);
    });
  }

  /** The panel for blank session `sessionId` (hidden until its folder proves to be a repository). */
  show(sessionId) {
    const workspace = this.ctx.workspaces.of(sessionId);
    if (sessionId !== this.sessionId) this.edited = false;
    this.sessionId = sessionId;
    this.workspaceId = workspace?.workspaceId ?? null;
    this.el.hidden = true;
    if (this.workspaceId) this.load(sessionId);
    return this.el;
  }

  async load(sessionId) {
    const r = await this.ctx.worktrees.options(this.workspaceId);
    if (sessionId !== this.sessionId) return;
    this.options = r.ok && r.value.repository ? r.value : null;
    this.render();
  }

  /** The worktree a first prompt to `sessionId` asks for, or null (a plain session). */
  wants(sessionId) {
    if (sessionId !== this.sessionId || !this.options || !this.box?.checked || this.el.hidden) return null;
    const start = this.startSelect?.value ?? "new";
    if (start.startsWith("path:")) return { path: start.slice(5) };
    if (start.startsWith("branch:")) return { branch: start.slice(7) };
    const spec = {};
    // not edited: the draft names it (the field may still show an earlier draft's name)
    const branch = (this.edited ? this.branchInput.value.trim() : "") || branchFrom(this.ctx.draft());
    if (branch) spec.branch = branch;
    if (this.baseSelect.value) spec.base = this.baseSelect.value;
    return spec;
  }

  /** Make the worktree session for the first prompt `text`: its id, or null (cancelled, failed). */
  async start(sessionId, text) {
    const spec = this.wants(sessionId);
    if (!spec) return null;
    if (!spec.branch && !spec.path) spec.branch = branchFrom(text) || undefined;
    const changes = this.options.localChanges ?? 0;
    if (changes > 0 && !spec.path) {
      const choice = await confirm({
        testid: "worktree-carry-dialog",
        title: TEXT.carryTitle,
        body: [TEXT.carryBody(changes), h("p", { class: "hint" }, TEXT.ignored)],
        actions: [
          { label: TEXT.leave, value: "leave", testid: "worktree-leave" },
          { label: TEXT.carry, value: "carry", tone: "primary", testid: "worktree-carry" },
        ],
      });
      if (choice === null) return null;
      spec.carryChanges = choice === "carry";
    }
    const r = await this.ctx.worktrees.createSession(this.workspaceId, spec);
    if (!r.ok) {
      this.ctx.toast(TEXT.failed(describeError(r.error)));
      return null;
    }
    const m = this.ctx.manager;
    const id = r.value.sessionId;
    if (!m.summaries.has(id)) m.addSummary({ sessionId: id, updatedAt: m.now(), running: false, blank: true });
    await m.refreshList(); // its folder and its worktree
    return id;
  }

  prefill() {
    if (!this.branchInput || this.edited) return;
    this.branchInput.value = branchFrom(this.ctx.draft());
  }

  render() {
    const o = this.options;
    this.el.hidden = !o;
    if (!o) return;
    const withheld = o.withheld ? (o.withheld === "no-sandbox" ? TEXT.noSandbox : TEXT.untrusted) : null;
    this.box = h("input", { type: "checkbox", id: "worktree-option", testid: "worktree-option", disabled: !!withheld });
    this.box.checked = !!o.settings.enabled && !withheld;
    this.box.addEventListener("change", () => {
      this.ctx.worktrees.configure(this.workspaceId, { enabled: this.box.checked }); // remembered per workspace
      o.settings.enabled = this.box.checked;
      details.hidden = !this.box.checked;
    });
    this.branchInput = h("input", { type: "text", class: "input", testid: "worktree-branch", "aria-label": TEXT.branch, placeholder: TEXT.branchHint, maxlength: 200 });
    this.branchInput.addEventListener("input", () => (this.edited = !!this.branchInput.value));
    this.prefill();
    this.baseSelect = h("select", { class: "input", testid: "worktree-base", "aria-label": TEXT.base }, (o.branches ?? []).map((b) => h("option", { value: b }, b)));
    this.baseSelect.value = o.currentBranch ?? "";
    const starts = [h("option", { value: "new" }, TEXT.newBranch)];
    for (const w of o.worktrees ?? []) starts.push(h("option", { value: `path:${w.path}` }, TEXT.existingWorktree(w.path, w.branch)));
    const busy = new Set((o.worktrees ?? []).map((w) => w.branch).concat(o.currentBranch));
    for (const b of o.branches ?? []) if (!busy.has(b)) starts.push(h("option", { value: `branch:${b}` }, TEXT.existingBranch(b)));
    this.startSelect = h("select", { class: "input", testid: "worktree-start", "aria-label": TEXT.start }, starts);
    const newOnly = h("span", { class: "worktree-new" }, h("label", {}, TEXT.branch, " ", this.branchInput), h("label", {}, TEXT.base, " ", this.baseSelect));
    this.startSelect.addEventListener("change", () => (newOnly.hidden = this.startSelect.value !== "new"));
    const details = h(
      "div",
      { class: "worktree-details", hidden: !this.box.checked },
      h("div", { class: "worktree-row" }, h("label", {}, TEXT.start, " ", this.startSelect), newOnly),
      this.settingsBlock(o.settings),
    );
    setChildren(
      this.el,
      h("div", { class: "worktree-head" }, this.box, h("label", { for: "worktree-option", title: TEXT.optionHint }, TEXT.option), withheld ? h("span", { class: "hint", testid: "worktree-withheld" }, withheld) : null),
      details,
    );
  }

  settingsBlock(s) {
    const location = h("input", { type: "text", class: "input", testid: "worktree-location", placeholder: TEXT.locationHint, value: s.location ?? "" });
    const copy = h("textarea", { class: "input", testid: "worktree-copy", rows: 2 });
    copy.value = (s.copyFiles ?? []).join("\n");
    const setup = h("input", { type: "text", class: "input", testid: "worktree-setup", value: s.setup ?? "", placeholder: "npm ci", translate: "no" }); // a command: not translated
    const save = h("button", { type: "button", class: "btn btn-small", testid: "worktree-save" }, TEXT.save);
    save.addEventListener("click", async () => {
      const where = location.value.trim();
      const changes = { copyFiles: copy.value.split("\n").map((l) => l.trim()).filter(Boolean), setup: setup.value.trim() };
      if (where) changes.location = where;
      else changes.clearLocation = true;
      save.disabled = true;
      const r = await this.ctx.worktrees.configure(this.workspaceId, changes);
      save.disabled = false;
      if (!r.ok) return this.ctx.toast(describeError(r.error));
      this.options.settings = r.value;
      this.ctx.toast(TEXT.saved, "info");
    });
    return h(
      "details",
      { class: "worktree-settings", testid: "worktree-settings" },
      h("summary", {}, TEXT.settings),
      h("label", {}, TEXT.location, location),
      h("label", {}, TEXT.copy, copy),
      h("label", {}, TEXT.setup, setup),
      h("div", { class: "row-actions" }, save),
    );
  }
}
