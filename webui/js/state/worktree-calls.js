// WorktreeCalls: sessions in git worktrees and the hand-off of their work (docs/decisions.md,
// "Worktree sessions"). Views call this, never the client (docs/architecture.md, "Clients").
// Every call resolves to an RpcResult (never throws). No DOM.

/** What git may take for a worktree operation on a large repository: the host bounds each write
 * at 300 s (host/engine/workspaces/worktrees/gitops.py), so the page waits longer than its 30 s for any
 * call rather than report a failure while the host finishes (docs/decisions.md, "Worktree
 * sessions"). */
export const GIT_WRITE_MS = 330_000;
const SLOW = { timeoutMs: GIT_WRITE_MS };

export class WorktreeCalls {
  constructor(client) {
    this.client = client;
  }

  /** What New session offers for a workspace's folder: repository?, branches, worktrees, local changes, settings. */
  options(workspaceId) {
    return this.client.call("worktree.options", { workspaceId });
  }

  /** Change a workspace's worktree settings ({enabled?, location?, clearLocation?, copyFiles?, setup?}). */
  configure(workspaceId, changes) {
    return this.client.call("worktree.configure", { workspaceId, ...changes });
  }

  /** A new session in a worktree: `worktree` is {branch?, base?, path?, carryChanges?}. */
  createSession(workspaceId, worktree) {
    return this.client.call("session.create", { workspaceId, worktree }, SLOW);
  }

  list(workspaceId) {
    return this.client.call("worktree.list", workspaceId ? { workspaceId } : {});
  }

  apply(sessionId) {
    return this.client.call("worktree.apply", { sessionId }, SLOW);
  }

  merge(sessionId) {
    return this.client.call("worktree.merge", { sessionId }, SLOW);
  }

  remove(sessionId, keepBranch, force = false) {
    return this.client.call("worktree.remove", { sessionId, keepBranch, force }, SLOW);
  }

  adopt(sessionId, branch) {
    return this.client.call("worktree.adopt", branch ? { sessionId, branch } : { sessionId }, SLOW);
  }

  spaceUsed() {
    return this.client.call("worktree.spaceUsed", {});
  }
}

/** A branch name from the first words of a prompt (the host's rule: host/engine/workspaces/worktrees/layout.py). */
export function branchFrom(text) {
  const words = (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).slice(0, 6);
  return words.join("-").slice(0, 48).replace(/-+$/, "");
}

/** "↑2 ↓1 •" for a worktree state: ahead of, behind its base, uncommitted changes. */
export function aheadBehind(w) {
  if (!w) return "";
  const parts = [];
  if (w.ahead) parts.push(`↑${w.ahead}`);
  if (w.behind) parts.push(`↓${w.behind}`);
  if (w.dirty) parts.push("•");
  return parts.join(" ");
}
