// The commit box (docs/decisions/commit-and-push.md): what is staged, a message the session's model
// drafts from the staged diff (editable; nothing is committed without the person's click), Commit
// and Amend, the branch's last commits with links to the turns each covers, Push, and Open pull
// request. A failure is one sentence; git's own output opens below it. The calls are
// state/commit-calls.js; the host view places the box's `root`.

import { h, clear } from "./dom.js";
import { describeError } from "../state/problems.js";
import { CommitCalls } from "../state/commit-calls.js";
import { t } from "../i18n/i18n.js";
import { PressGuard } from "./press-guard.js";

const LOG_ROWS = 8;

/** The box (`root`); it re-reads when the session changes or its `state` does. */
export class CommitBox {
  /** @param {{state: {client, sessionId, on(ev, fn)}, toast(msg, tone?), showSeq(seq), sessionTitle?(): string|null}} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    this.calls = new CommitCalls(ctx.state.client);
    this.root = h("section", { class: "commit-box", testid: "commit-box", "aria-label": t("commitBox.label") });
    this.sessionId = null;
    this.log = null; // git.log's value
    this.problem = null; // {error} of the last failed call
    this.note = null; // {text, output?} after a commit, a push or a pull request
    this.busy = null; // the action on its way
    this.message = "";
    this.pr = null; // {title, body} while the pull-request form is open
    this.press = new PressGuard(this.root, () => this.render()); // a re-read never eats a click on Commit
    ctx.state.on("change", () => this.follow());
    this.follow();
  }

  get sid() {
    return this.ctx.state.sessionId;
  }

  /** The session changed (read its log), or its files did (read again: what is staged). */
  follow() {
    if (this.sid !== this.sessionId) {
      this.sessionId = this.sid;
      this.log = this.problem = this.note = this.pr = null;
      this.message = "";
    } else if (this.ctx.state.loading || this.busy) return; // the list's answer comes next
    if (!this.root.isConnected || this.root.closest("[hidden]")) return this.render(); // read when shown
    this.reload();
  }

  async reload() {
    const sid = this.sid;
    if (!sid) return this.render();
    const r = await this.calls.log(sid, LOG_ROWS);
    if (sid !== this.sid) return;
    this.log = r.ok ? r.value : null;
    this.unavailable = r.ok ? null : r.error;
    this.render();
  }

  render() {
    if (this.press.defer()) return;
    const keep = this.root.contains(document.activeElement) ? document.activeElement?.dataset?.testid : null;
    clear(this.root);
    if (!this.sid) return;
    this.root.append(h("h3", { class: "commit-title" }, t("commitBox.label")));
    if (this.unavailable) {
      const code = this.unavailable.code;
      const words = code === "not-a-repository" ? t("commitBox.notRepo") : describeError(this.unavailable);
      this.root.append(h("p", { class: "list-empty", testid: "commit-unavailable" }, words));
      return;
    }
    if (!this.log) return this.root.append(h("p", { class: "list-empty" }, t("changesPanel.reading")));
    this.root.append(this.stagedNode(), this.formNode(), this.outcomeNode(), this.logNode(), this.pushNode());
    if (keep) this.root.querySelector(`[data-testid="${keep}"]`)?.focus({ preventScroll: true });
  }

  stagedNode() {
    const staged = this.log.staged ?? [];
    if (!staged.length) return h("p", { class: "commit-staged-none", testid: "commit-staged-none" }, t("commitBox.nothingStaged"));
    return h(
      "div",
      { class: "commit-staged" },
      h("span", { class: "commit-caption" }, t("commitBox.staged", { count: staged.length })),
      h("ul", { class: "commit-staged-list", testid: "commit-staged" }, staged.map((p) => h("li", { translate: "no", dataset: { path: p } }, p))),
    );
  }

  formNode() {
    const area = h("textarea", { class: "commit-message", rows: 4, testid: "commit-message", "aria-label": t("commitBox.message"), placeholder: t("commitBox.message"), value: this.message });
    area.addEventListener("input", () => (this.message = area.value));
    const staged = (this.log.staged ?? []).length > 0;
    const idle = !this.busy;
    const draft = button(t("commitBox.draft"), "commit-draft", idle && staged, () => this.draft());
    const commit = button(t("commitBox.commit"), "commit-commit", idle && staged, () => this.commit(false), "btn-primary");
    const amend = button(t("commitBox.amend"), "commit-amend", idle && this.log.items.length > 0, () => this.commit(true));
    return h("div", { class: "commit-form" }, area, h("div", { class: "commit-actions" }, draft, commit, amend, this.busy ? h("span", { class: "commit-busy", role: "status" }, t("commitBox.working")) : null));
  }

  outcomeNode() {
    const box = h("div", { class: "commit-outcome", "aria-live": "polite" });
    if (this.problem) {
      const output = this.problem.details?.output;
      box.append(h("p", { class: "commit-error", role: "alert", testid: "commit-error" }, sentence(this.problem)));
      if (output) box.append(disclosure(t("commitBox.gitOutput"), output, "commit-error-output"));
    } else if (this.note) {
      box.append(h("p", { class: "commit-note", testid: "commit-note" }, this.note.text));
      if (this.note.link) box.append(outLink(this.note.link));
      if (this.note.output) box.append(disclosure(t("commitBox.hookOutput"), this.note.output, "commit-hook-output"));
    }
    return box;
  }

  logNode() {
    const items = this.log.items;
    if (!items.length) return h("p", { class: "list-empty" }, t("commitBox.noCommits"));
    return h("ol", { class: "commit-log", testid: "commit-log", "aria-label": t("commitBox.log") }, items.map((c) => this.rowNode(c)));
  }

  rowNode(c) {
    const links = (c.turns ?? []).map((turn) => {
      const a = h("button", { type: "button", class: "btn btn-small btn-ghost commit-turn", testid: "commit-turn", dataset: { seq: String(turn.seq) } }, t("commitBox.turn", { n: turn.turn + 1 }));
      a.addEventListener("click", () => this.ctx.showSeq(turn.seq));
      return a;
    });
    return h(
      "li",
      { class: "commit-row", testid: "commit-row", dataset: { sha: c.sha } },
      h("code", { class: "commit-sha", translate: "no" }, c.sha.slice(0, 7)),
      h("span", { class: "commit-subject", translate: "no" }, c.subject),
      h("span", { class: "commit-author", translate: "no" }, c.author),
      links.length ? h("span", { class: "commit-turns" }, ...links) : null,
    );
  }

  pushNode() {
    const idle = !this.busy;
    const push = button(t("commitBox.push"), "commit-push", idle && this.log.items.length > 0 && !!this.log.branch, () => this.push());
    const open = button(t("commitBox.openPr"), "commit-pr-open", idle && this.log.items.length > 0 && !!this.log.branch, () => this.openPr());
    const row = h("div", { class: "commit-actions" }, push, open);
    if (!this.pr) return row;
    const title = h("input", { type: "text", class: "commit-pr-title", testid: "commit-pr-title", "aria-label": t("commitBox.prTitle"), value: this.pr.title });
    title.addEventListener("input", () => (this.pr.title = title.value));
    const body = h("textarea", { class: "commit-pr-body", rows: 4, testid: "commit-pr-body", "aria-label": t("commitBox.prBody"), value: this.pr.body });
    body.addEventListener("input", () => (this.pr.body = body.value));
    const send = button(t("commitBox.createPr"), "commit-pr-create", idle && !!this.pr.title.trim(), () => this.pullRequest(), "btn-primary");
    return h("div", { class: "commit-pr" }, row, title, body, h("div", { class: "commit-actions" }, send));
  }

  // ---- actions ----------------------------------------------------------------------------------

  async run(what, call, then) {
    const sid = this.sid;
    this.busy = what;
    this.problem = null;
    this.note = null;
    this.render();
    const r = await call(sid);
    if (sid !== this.sid) return;
    this.busy = null;
    if (!r.ok) this.problem = r.error;
    else then(r.value);
    await this.reload();
  }

  draft() {
    return this.run("draft", (sid) => this.calls.draft(sid), (v) => {
      this.message = v.message;
      this.root.querySelector("[data-testid=commit-message]")?.focus();
    });
  }

  commit(amend) {
    const message = this.message.trim();
    if (!message) {
      this.problem = { code: "", message: t("commitBox.needMessage") };
      return this.render();
    }
    return this.run("commit", (sid) => this.calls.commit(sid, message, amend), (v) => {
      this.message = "";
      const text = t(amend ? "commitBox.amended" : "commitBox.committed", { sha: v.sha.slice(0, 7) });
      this.note = { text: v.hooksSkipped ? `${text} ${t("commitBox.hooksSkipped")}` : text, output: v.hookOutput || null };
      this.ctx.state.refresh?.();
    });
  }

  push() {
    return this.run("push", (sid) => this.calls.push(sid), (v) => {
      this.note = { text: t(v.upstreamSet ? "commitBox.pushedUpstream" : "commitBox.pushed", { branch: v.branch, remote: v.remote }) };
    });
  }

  openPr() {
    const subjects = this.log.items.map((c) => c.subject);
    const title = this.ctx.sessionTitle?.() || subjects[0] || "";
    this.pr = { title, body: subjects.map((s) => `- ${s}`).join("\n") };
    this.render();
    this.root.querySelector("[data-testid=commit-pr-title]")?.focus();
  }

  pullRequest() {
    const { title, body } = this.pr;
    return this.run("pr", (sid) => this.calls.pullRequest(sid, title.trim(), body), (v) => {
      this.pr = null;
      this.note = { text: t(v.created ? "commitBox.prCreated" : "commitBox.prCompare"), link: v.url };
      if (!v.created) window.open(v.url, "_blank", "noopener,noreferrer"); // the browser submits it
    });
  }
}

/** One plain sentence; where the host's words name the cause (which remote, a hook), they follow. */
function sentence(err) {
  const named = (err.code === "git-failed" || err.code === "no-remote") && err.message;
  return named ? t("error.hostDetail", { message: describeError(err), detail: err.message }) : describeError(err);
}

/** A link the window hands to the person's browser (a new window: docs/threat-model.md). */
function outLink(url) {
  const a = h("a", { href: url, target: "_blank", testid: "commit-pr-link", translate: "no" }, url);
  a.setAttribute("rel", "noopener noreferrer");
  return a;
}

function button(label, testid, enabled, onClick, tone = "btn-ghost") {
  const b = h("button", { type: "button", class: ["btn", "btn-small", tone], testid, disabled: !enabled }, label);
  b.addEventListener("click", onClick);
  return b;
}

function disclosure(summary, text, testid) {
  return h("details", { class: "commit-output", testid }, h("summary", {}, summary), h("pre", { translate: "no" }, text));
}
