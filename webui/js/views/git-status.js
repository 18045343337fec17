// The header's git line: the branch of the session's folder and how many files are changed
// (files.gitStatus), fetched when the session changes and after each of its turns.

import { h, icon } from "./dom.js";

const WITHHELD = {
  "untrusted-config": "Changed files are not counted: this repository's git configuration names programs git would run, and the folder is not trusted (trust it in the MCP panel).",
  "no-sandbox": "Changed files are not counted: this repository's git configuration names programs, and this machine has no sandbox to run git in.",
  failed: "Changed files could not be counted: git did not answer.",
};

export class GitStatus {
  /** @param {import("../state/turn-calls.js").TurnCalls} turns */
  constructor(turns, changed = () => {}) {
    this.turns = turns;
    this.changed = changed; // the header's worktree button follows `repo`
    this.sessionId = null;
    this.seq = 0;
    this.repo = false;
    this.el = h("span", { class: "heading-git", testid: "git-status", hidden: true });
  }

  /** Show `sessionId`'s folder (null: nothing); fetched again only when the session changes. */
  set(sessionId) {
    if (sessionId === this.sessionId) return;
    this.sessionId = sessionId;
    this.el.hidden = true;
    this.repo = false;
    this.refresh();
  }

  async refresh() {
    const sid = this.sessionId;
    const seq = ++this.seq;
    if (!sid) return;
    const r = await this.turns.gitStatus(sid);
    if (seq !== this.seq) return; // a newer answer is on its way
    this.repo = !!(r.ok && r.value.repo);
    this.changed();
    if (!r.ok || !r.value.repo) {
      this.el.hidden = true;
      return;
    }
    const { branch, changed, withheld, findings } = r.value;
    const label = branch ?? "detached HEAD";
    this.el.dataset.branch = branch ?? "";
    this.el.dataset.changed = changed == null ? "" : String(changed);
    this.el.dataset.withheld = withheld ?? "";
    if (changed == null) {
      // Not counted: git would run what the repository's configuration names (docs/decisions.md,
      // "The host's git"), or git did not answer.
      this.el.title = `Git: on ${label}. ${WITHHELD[withheld] ?? WITHHELD.failed}${findings?.length ? ` (${findings.join(", ")})` : ""}`;
      this.el.replaceChildren(icon("fork"), h("span", { class: "git-branch", testid: "git-branch" }, label), h("span", { class: "git-changed is-withheld", testid: "git-changed" }, "?"));
      this.el.hidden = false;
      return;
    }
    const what = changed === 0 ? "no changes" : changed === 1 ? "1 changed file" : `${changed} changed files`;
    this.el.title = `Git: on ${label}, ${what}`;
    this.el.replaceChildren(icon("fork"), h("span", { class: "git-branch", testid: "git-branch" }, label), h("span", { class: ["git-changed", changed && "is-dirty"], testid: "git-changed" }, changed ? `±${changed}` : "✓"));
    this.el.hidden = false;
  }
}
