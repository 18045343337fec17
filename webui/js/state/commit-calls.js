// CommitCalls: the commit box's calls (docs/decisions/commit-and-push.md). Views call this, never
// the client (docs/architecture.md, "Clients"). Every call resolves to an RpcResult (never throws).
// No DOM.

import { GIT_WRITE_MS } from "./worktree-calls.js";

const SLOW = { timeoutMs: GIT_WRITE_MS }; // a hook, a push over a slow link: the host bounds them

export class CommitCalls {
  constructor(client) {
    this.client = client;
  }

  /** A message drafted by the session's model from the staged diff (never committed by itself). */
  draft(sessionId) {
    return this.client.call("git.draftMessage", { sessionId }, SLOW);
  }

  commit(sessionId, message, amend) {
    return this.client.call("git.commit", { sessionId, message, amend }, SLOW);
  }

  log(sessionId, limit = 10) {
    return this.client.call("git.log", { sessionId, limit });
  }

  push(sessionId) {
    return this.client.call("git.push", { sessionId }, SLOW);
  }

  pullRequest(sessionId, title, body) {
    return this.client.call("git.pullRequest", { sessionId, title, body }, SLOW);
  }
}
