// The header's git line: the branch of the session's folder and how many files are changed
// (files.gitStatus), fetched when the session changes and after each of its turns.

import { h, icon } from "./dom.js";
import { t } from "../i18n/i18n.js";

const WITHHELD = new Set(["untrusted-config", "no-sandbox", "failed"]);

export class GitStatus {
  /** @param {import("../state/turn-calls.js").TurnCalls} turns */
  constructor(turns) {
    this.turns = turns;
    this.sessionId = null;
    this.seq = 0;
    this.el = h("span", { class: "heading-git", testid: "git-status", hidden: true });
  }

  /** Show `sessionId`'s folder (null: nothing); fetched again only when the session changes. */
  set(sessionId) {
    if (sessionId === this.sessionId) return;
    this.sessionId = sessionId;
    this.el.hidden = true;
    this.refresh();
  }

  async refresh() {
    const sid = this.sessionId;
    const seq = ++this.seq;
    if (!sid) return;
    const r = await this.turns.gitStatus(sid);
    if (seq !== this.seq) return; // a newer answer is on its way
    if (!r.ok || !r.value.repo) {
      this.el.hidden = true;
      return;
    }
    const { branch, changed, withheld, findings } = r.value;
    const label = branch ?? t("git.detached");
    this.el.dataset.branch = branch ?? "";
    this.el.dataset.changed = changed == null ? "" : String(changed);
    this.el.dataset.withheld = withheld ?? "";
    const branchEl = h("span", { class: "git-branch", testid: "git-branch", translate: branch ? "no" : undefined }, label);
    if (changed == null) {
      // Not counted: git would run what the repository's configuration names (docs/decisions.md,
      // "The host's git"), or git did not answer.
      const why = t(`git.withheld.${WITHHELD.has(withheld) ? withheld : "failed"}`) + (findings?.length ? ` (${findings.join(", ")})` : "");
      this.el.title = t("git.titleWithheld", { branch: label, why });
      this.el.replaceChildren(icon("fork"), branchEl, h("span", { class: "git-changed is-withheld", testid: "git-changed" }, "?"));
      this.el.hidden = false;
      return;
    }
    const what = changed === 0 ? t("git.clean") : t("git.changed", { count: changed });
    this.el.title = t("git.title", { branch: label, what });
    this.el.replaceChildren(icon("fork"), branchEl, h("span", { class: ["git-changed", changed && "is-dirty"], testid: "git-changed" }, changed ? `±${changed}` : "✓"));
    this.el.hidden = false;
  }
}
