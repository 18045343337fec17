// The Changes view's state (docs/architecture.md, "The Changes view"): the open session's changed
// files (files.sessionChanges), re-read after each turn and each restore, and the two reverts. Every
// client call of the view lives here; the view renders `value` and calls these methods.

import { Emitter } from "./emitter.js";

export class ChangesState extends Emitter {
  /** @param {{client}} deps */
  constructor({ client }) {
    super();
    this.client = client;
    this.sessionId = null;
    this.files = null; // null: not read yet (or no session)
    this.error = null;
    this.seq = 0;
    this.loading = false; // a read is on its way (the view waits for it before it scrolls)
  }

  /** Follow `sessionId` (null: none); reads again only when it changes. */
  set(sessionId) {
    if (sessionId === this.sessionId) return;
    this.sessionId = sessionId;
    this.files = null;
    this.error = null;
    this.emit("change");
    this.refresh();
  }

  /** Read the list again (a turn ended, files were restored, the view opened). */
  async refresh() {
    const sid = this.sessionId;
    const seq = ++this.seq;
    if (!sid) return;
    this.loading = true;
    const r = await this.client.call("files.sessionChanges", { sessionId: sid });
    if (seq !== this.seq || sid !== this.sessionId) return; // a newer answer is on its way
    this.loading = false;
    const blank = !r.ok && r.error?.code === "session-not-found"; // nothing written yet: no changes
    this.files = r.ok ? r.value.files : blank ? [] : this.files;
    this.error = r.ok || blank ? null : r.error;
    this.emit("change");
  }

  get count() {
    return this.files?.length ?? 0;
  }

  /** Put the whole file back as the session found it. @returns the call's result */
  revertFile(file) {
    return this.#revert("files.revertFile", { path: file.path, current: file.after?.sha256 ?? null });
  }

  /** Undo one hunk of the file's combined diff. @returns the call's result */
  revertHunk(file, hunk) {
    return this.#revert("files.revertHunk", { path: file.path, hunkId: hunk.id, current: file.after?.sha256 ?? null });
  }

  async #revert(key, payload) {
    const sid = this.sessionId;
    if (!sid) return { ok: false, error: { code: "session-not-found", message: "", details: {} } };
    const r = await this.client.call(key, { sessionId: sid, ...payload });
    await this.refresh(); // reverted or refused: the view shows the file as it is now
    return r;
  }
}
