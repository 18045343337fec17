// The review pane's state (docs/decisions/review-pane.md): the open session's repository as
// git.status shows it in one of four scopes, the calls that stage, unstage, discard and undo a
// discard, and the tray of line comments that goes to the agent as one message. Every client call
// of the pane lives here; the view (views/review-pane.js) renders `value` and calls these methods.

import { Emitter } from "./emitter.js";

export const SCOPES = ["session", "uncommitted", "branch", "last-turn"];
export const UNDO_MS = 10_000;

export class ReviewState extends Emitter {
  /** @param {{client}} deps */
  constructor({ client }) {
    super();
    this.client = client;
    this.sessionId = null;
    this.scope = "session";
    this.value = null; // the last git.status value (null: not read yet)
    this.error = null;
    this.repo = null; // null: not known yet; false: the folder is not in a git repository
    this.seq = 0;
    this.comments = []; // {path, startLine, endLine, side, body, excerpt}
    this.undo = null; // {undoId, paths, until}: the last discard, while it can be undone here
    this.active = false; // the pane is open: a new session is read at once
  }

  set(sessionId) {
    if (sessionId === this.sessionId) return;
    this.sessionId = sessionId;
    this.value = null;
    this.error = null;
    this.repo = null;
    this.undo = null;
    this.comments = [];
    this.emit("change");
    if (this.active) this.refresh();
  }

  setScope(scope) {
    if (!SCOPES.includes(scope) || scope === this.scope) return;
    this.scope = scope;
    this.value = null;
    this.emit("change");
    this.refresh();
  }

  async refresh() {
    const sid = this.sessionId;
    const scope = this.scope;
    const seq = ++this.seq;
    if (!sid) return;
    const r = await this.client.call("git.status", { sessionId: sid, scope });
    if (seq !== this.seq || sid !== this.sessionId) return;
    if (r.ok) {
      this.repo = true;
      this.value = r.value;
      this.error = null;
    } else if (r.error?.code === "not-a-repository" || r.error?.code === "session-not-found") {
      this.repo = false;
      this.value = null;
      this.error = null;
    } else {
      this.error = r.error;
    }
    this.emit("change");
  }

  stage(target) {
    return this.#change("git.stage", target);
  }

  unstage(target) {
    return this.#change("git.unstage", target);
  }

  /** Discard, then keep its undo id for UNDO_MS. @returns the call's result */
  async discard(target) {
    const r = await this.#change("git.discard", target);
    if (r.ok) {
      this.undo = { undoId: r.value.undoId, paths: r.value.paths, until: Date.now() + UNDO_MS };
      this.emit("change");
    }
    return r;
  }

  async undoDiscard() {
    const undo = this.undo;
    if (!undo) return { ok: false, error: { code: "stale-diff", message: "", details: {} } };
    this.undo = null;
    const r = await this.client.call("git.undoDiscard", { sessionId: this.sessionId, undoId: undo.undoId });
    await this.refresh();
    if (r.ok) this.emit("changed");
    return r;
  }

  dropUndo() {
    if (!this.undo) return;
    this.undo = null;
    this.emit("change");
  }

  async #change(key, { paths, hunkIds }) {
    const sid = this.sessionId;
    if (!sid) return { ok: false, error: { code: "session-not-found", message: "", details: {} } };
    const payload = { sessionId: sid };
    if (paths?.length) payload.paths = paths;
    if (hunkIds?.length) payload.hunkIds = hunkIds;
    const r = await this.client.call(key, payload);
    await this.refresh(); // done or refused: the pane shows the repository as it is now
    if (r.ok) this.emit("changed");
    return r;
  }

  addComment(comment) {
    this.comments = [...this.comments, comment];
    this.emit("change");
  }

  removeComment(index) {
    this.comments = this.comments.filter((_, i) => i !== index);
    this.emit("change");
  }

  /** The tray as session.prompt's content: one review-comment part per comment. */
  commentParts() {
    return this.comments.map((c) => ({ type: "review-comment", path: c.path, startLine: c.startLine, endLine: c.endLine, side: c.side, body: c.body, excerpt: c.excerpt }));
  }

  clearComments() {
    this.comments = [];
    this.emit("change");
  }
}

/** The rows of one file's hunks for the pane: each hunk's lines with their numbers, and between
 * two hunks the unchanged lines they leave out (`gap`, collapsed). `side`: which numbers a gap
 * counts (the index's for staged hunks, the work tree's for unstaged ones: both are "new"). */
export function hunkRows(hunks, parse) {
  const out = [];
  let prevEnd = null;
  for (const hunk of hunks) {
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(hunk.header);
    const newStart = m ? Number(m[3]) : 0;
    const newCount = m ? (m[4] === undefined ? 1 : Number(m[4])) : 0;
    const first = newCount ? newStart : newStart + 1; // a pure removal sits after line `newStart`
    if (prevEnd !== null && first - prevEnd > 1) out.push({ kind: "gap", count: first - prevEnd - 1 });
    out.push({ kind: "hunk", hunk });
    for (const r of parse(hunk.diff)) if (r.kind !== "hunk") out.push({ kind: "line", hunk, row: r });
    prevEnd = newCount ? newStart + newCount - 1 : newStart;
  }
  return out;
}
