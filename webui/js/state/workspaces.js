// Workspaces on the client: the registry baseline (workspace.list) kept current by the host
// frames host/workspace-changed, host/workspace-removed and host/archived-sessions-changed, and
// the pure grouping of the session list into workspace groups, "Ungrouped" and "Archived".
// No DOM. Events: "change" (anything the sidebar shows changed).

import { Emitter } from "./emitter.js";
import { buildTree } from "./session-list.js";
import { t } from "../i18n/i18n.js";

export class WorkspaceState extends Emitter {
  constructor({ client }) {
    super();
    this.client = client;
    this.items = []; // WorkspaceView, registry order (a new one is prepended)
    this.archived = []; // session ids, archive order
    this.loaded = false;
  }

  /** Rebuild from the baseline (on every (re)connect: host frames are changes only). */
  async load() {
    const r = await this.client.call("workspace.list", {});
    if (!r.ok) throw new Error(t("workspaces.listFailed", { reason: r.error.message }));
    this.items = r.value.items;
    this.archived = r.value.archivedSessionIds;
    this.loaded = true;
    this.emit("change");
  }

  /** Apply one host frame; returns true when it was a workspace frame. */
  handleHost(frame) {
    switch (frame.type) {
      case "host/workspace-changed":
        this.upsert(frame.workspace);
        return true;
      case "host/workspace-removed":
        this.items = this.items.filter((w) => w.workspaceId !== frame.workspaceId);
        this.emit("change");
        return true;
      case "host/archived-sessions-changed":
        this.setArchived(frame.archivedSessionIds);
        return true;
      default:
        return false;
    }
  }

  /** A snapshot from a frame or a method's answer: replace in place, or prepend a new one. */
  upsert(view) {
    const at = this.items.findIndex((w) => w.workspaceId === view.workspaceId);
    this.items = at >= 0 ? this.items.map((w, i) => (i === at ? view : w)) : [view, ...this.items];
    this.emit("change");
  }

  setArchived(ids) {
    this.archived = [...ids];
    this.emit("change");
  }

  get(workspaceId) {
    return this.items.find((w) => w.workspaceId === workspaceId) ?? null;
  }

  /** The workspace whose account holds `sessionId`, or null (Ungrouped). */
  of(sessionId) {
    return this.items.find((w) => w.sessionIds.includes(sessionId)) ?? null;
  }

  isArchived(sessionId) {
    return this.archived.includes(sessionId);
  }
}

/**
 * The sidebar's groups: one per workspace (registry order; its sessions in manual order, forks
 * nested under their parents), then "Ungrouped" (newest activity first). Archived and blank
 * sessions are left out, except `keepId` (the open one). `archived` lists the archived sessions
 * that still exist, in archive order.
 * @returns {{groups: {workspace: object|null, roots: object[]}[], archived: object[]}}
 */
export function groupSessions(summaries, workspaces, archivedIds, { keepId = null } = {}) {
  const byId = new Map([...summaries].map((s) => [s.sessionId, s]));
  const hidden = new Set(archivedIds);
  // A subagent stands with its parent (in its group, archived with it): the top of its line.
  const top = (s) => {
    const seen = new Set();
    while (s.origin === "subagent" && byId.has(s.parentSessionId) && !seen.has(s.sessionId)) {
      seen.add(s.sessionId);
      s = byId.get(s.parentSessionId);
    }
    return s.sessionId;
  };
  const line = new Map();
  for (const s of byId.values()) if (s.origin === "subagent") line.set(s.sessionId, top(s));
  for (const [child, parent] of line) if (hidden.has(parent)) hidden.add(child);
  const placed = new Set();
  const groups = [];
  for (const workspace of workspaces) {
    const ids = new Set(workspace.sessionIds);
    const children = [...line].filter(([child, parent]) => ids.has(parent) && !ids.has(child)).map(([child]) => child);
    const members = [...workspace.sessionIds, ...children].map((id) => byId.get(id)).filter((s) => s && !hidden.has(s.sessionId));
    for (const s of members) placed.add(s.sessionId);
    const rank = new Map(workspace.sessionIds.map((id, i) => [id, i]));
    const order = (a, b) => {
      const ra = rank.get(a.sessionId);
      const rb = rank.get(b.sessionId);
      if (ra !== undefined && rb !== undefined) return ra - rb;
      return (ra === undefined) - (rb === undefined) || (b.updatedAt ?? 0) - (a.updatedAt ?? 0);
    };
    const roots = buildTree(members, { keepId, order });
    groups.push({ workspace, roots });
  }
  const loose = [...byId.values()].filter((s) => !placed.has(s.sessionId) && !hidden.has(s.sessionId));
  const roots = buildTree(loose, { keepId });
  if (roots.length) groups.push({ workspace: null, roots });
  const archived = archivedIds.map((id) => byId.get(id)).filter(Boolean);
  return { groups, archived };
}

/**
 * Where a dragged session lands: the id to insert it before (null = the end), given the
 * group's root ids in display order, the id under the pointer and whether the pointer is in
 * that row's lower half. Returns undefined when nothing would move.
 */
export function dropTarget(rootIds, draggedId, overId, lowerHalf) {
  if (!rootIds.includes(draggedId) || !rootIds.includes(overId) || draggedId === overId) return undefined;
  const rest = rootIds.filter((id) => id !== draggedId);
  const at = rest.indexOf(overId) + (lowerHalf ? 1 : 0);
  const before = rest[at] ?? null;
  const now = rootIds[rootIds.indexOf(draggedId) + 1] ?? null;
  return before === now ? undefined : before;
}

/** The blank session "New session" reuses in a workspace (not running, not archived), or null. */
export function blankMember(workspace, summaries, archivedIds) {
  if (!workspace) return null;
  const byId = new Map([...summaries].map((s) => [s.sessionId, s]));
  for (const id of workspace.sessionIds) {
    const s = byId.get(id);
    if (s && s.blank && !s.running && !s.parentSessionId && !archivedIds.includes(id)) return s;
  }
  return null;
}

/** Workspaces by their latest session activity (the welcome's "recent folders"). */
export function recentWorkspaces(workspaces, summaries, limit = 6) {
  const byId = new Map([...summaries].map((s) => [s.sessionId, s]));
  const latest = (w) => Math.max(0, ...w.sessionIds.map((id) => byId.get(id)?.updatedAt ?? 0));
  return workspaces
    .map((w, i) => ({ w, i, t: latest(w) }))
    .sort((a, b) => b.t - a.t || a.i - b.i)
    .slice(0, limit)
    .map((x) => x.w);
}
