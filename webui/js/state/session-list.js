// Pure helpers for the sidebar: ordering, nesting of forked children, blank hiding, labels.

import { dateTime, t as tr } from "../i18n/i18n.js";

/**
 * Build the visible tree: newest activity first (or by `order(a, b)` over summaries), children
 * under their parents (a child whose parent is not listed stands at the top level), blank
 * sessions hidden except `keepId`.
 * @returns {{summary: object, children: any[], depth: number}[]}
 */
export function buildTree(summaries, { keepId = null, order: byOrder = null } = {}) {
  const visible = [...summaries].filter((s) => !s.blank || s.sessionId === keepId);
  const byId = new Map(visible.map((s) => [s.sessionId, { summary: s, children: [], depth: 0 }]));
  const roots = [];
  for (const node of byId.values()) {
    const parent = node.summary.parentSessionId && byId.get(node.summary.parentSessionId);
    if (parent && parent !== node && !isAncestor(byId, node, parent)) parent.children.push(node);
    else roots.push(node);
  }
  const newest = (a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0) || cmp(a.sessionId, b.sessionId);
  const order = (a, b) => (byOrder ?? newest)(a.summary, b.summary);
  const walk = (nodes, depth) => {
    nodes.sort(order);
    for (const n of nodes) {
      n.depth = depth;
      walk(n.children, depth + 1);
    }
  };
  walk(roots, 0);
  return roots;
}

function cmp(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isAncestor(byId, node, candidate) {
  // true when `node` is an ancestor of `candidate` (guards against parent cycles)
  let cur = candidate;
  const seen = new Set();
  while (cur && !seen.has(cur)) {
    seen.add(cur);
    const pid = cur.summary.parentSessionId;
    if (!pid) return false;
    if (pid === node.summary.sessionId) return true;
    cur = byId.get(pid);
  }
  return false;
}

/** Depth-first flattening of buildTree(), for keyboard order. */
export function flattenTree(roots) {
  const out = [];
  const walk = (nodes) => {
    for (const n of nodes) {
      out.push(n);
      walk(n.children);
    }
  };
  walk(roots);
  return out;
}

/** A blank session to reuse for "New session" (the newest), or null; `skip`: ids not to reuse. */
export function reusableBlank(summaries, cwd = null, skip = new Set()) {
  // `commandsRun`: the person ran a command there (still blank: no turn), e.g. /plan: not "new".
  const blanks = [...summaries].filter((s) => s.blank && !s.running && !s.parentSessionId && !s.commandsRun && !skip.has(s.sessionId) && (cwd === null || !s.cwd || s.cwd === cwd));
  blanks.sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
  return blanks[0] ?? null;
}

/** "~/projects/x" when cwd is under home. */
export function shortenPath(path, home) {
  if (!path) return "";
  if (home && (path === home || path.startsWith(`${home}/`) || path.startsWith(`${home}\\`))) return `~${path.slice(home.length)}`;
  return path;
}

/** The host's title, else the provisional one from the first message, else "Untitled session". */
export function displayTitle(summary) {
  const t = summary?.title?.trim();
  // a fork's auto title is its parent's with the host's English " (fork)": in the page's words
  if (t && summary.parentSessionId && t.endsWith(FORK_SUFFIX)) return tr("sessionItem.forkTitle", { title: t.slice(0, -FORK_SUFFIX.length) });
  return t || summary?.provisionalTitle || tr("sessionItem.untitled");
}

/** What the host appends to a fork's auto title (host/engine/sessions/fork.py). */
export const FORK_SUFFIX = " (fork)";

export const PROVISIONAL_TITLE_MAX = 60;

/**
 * A title from the first user message, shown until the host's title arrives (the host derives
 * its auto title the same way when the first turn completes: host/engine/sessions/titles.py auto_title).
 * Whitespace collapsed, control characters dropped, cut at a word boundary near `limit`.
 * Returns null when nothing visible is left.
 */
export function provisionalTitle(text, limit = PROVISIONAL_TITLE_MAX) {
  const flat = String(text ?? "")
    .replace(/\s/gu, " ")
    .replace(/\p{C}/gu, "")
    .replace(/ +/g, " ")
    .trim();
  if (!/[\p{L}\p{N}\p{P}\p{S}]/u.test(flat)) return null;
  const chars = Array.from(flat);
  if (chars.length <= limit) return flat;
  let cut = chars.slice(0, limit - 1).join("");
  const space = cut.lastIndexOf(" ");
  if (space >= Math.floor(limit / 2)) cut = cut.slice(0, space);
  return `${cut.replace(/[ ,.;:-]+$/, "")}…`;
}

/** The text of a message's content blocks (images and other blocks skipped). */
export function contentText(content) {
  if (!Array.isArray(content)) return "";
  return content
    .filter((b) => b && b.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join(" ");
}

/**
 * Split `text` into [{text, match}] runs where the query's words occur (case-insensitive), for
 * highlighting search snippets without building HTML.
 */
export function highlightRuns(text, query) {
  const words = [...new Set(String(query).toLowerCase().split(/\s+/).filter((w) => w.length > 0))];
  if (!text || words.length === 0) return [{ text: text ?? "", match: false }];
  const lower = text.toLowerCase();
  const marks = new Array(text.length).fill(false);
  for (const w of words) {
    let i = lower.indexOf(w);
    while (i >= 0) {
      for (let k = i; k < i + w.length; k++) marks[k] = true;
      i = lower.indexOf(w, i + w.length);
    }
  }
  const runs = [];
  for (let i = 0; i < text.length; i++) {
    const last = runs[runs.length - 1];
    if (last && last.match === marks[i]) last.text += text[i];
    else runs.push({ text: text[i], match: marks[i] });
  }
  return runs;
}

/** "5 min ago"-style label; `now` injected for tests. */
export function relativeTime(ms, now = Date.now()) {
  if (!ms) return "";
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 45) return tr("time.justNow");
  const m = Math.round(s / 60);
  if (m < 60) return tr("time.minutesAgo", { count: m });
  const h = Math.round(m / 60);
  if (h < 24) return tr("time.hoursAgo", { count: h });
  const d = Math.round(h / 24);
  if (d < 30) return tr("time.daysAgo", { count: d });
  return dateTime(ms, { dateStyle: "medium" });
}

/**
 * Orders `session.list` answers against the adds and removes that frames report meanwhile
 * (docs/decisions.md, "A list answer never undoes a later add"). A refresh gets a ticket when it
 * starts; an answer older than one already applied is dropped, and a session added (or removed)
 * after a refresh started outlives that refresh's answer, which could not know of it; so does a
 * patch a frame made meanwhile (a child's "running, not blank" over the answer that still saw it
 * blank, which would hide it until its turn ends).
 */
export class ListSequence {
  constructor() {
    this.started = 0; // tickets handed out
    this.applied = 0; // the newest ticket whose answer is shown
    this.changes = new Map(); // sessionId → {after: ticket current when it changed, summary | null (removed)}
    this.patches = []; // {after, sessionId, patch} in the order the frames made them
    this.pending = new Set(); // tickets whose answer has not come back
  }

  begin() {
    this.pending.add(++this.started);
    return this.started;
  }

  /** The answer to `ticket` came back (applied, dropped or failed). */
  end(ticket) {
    this.pending.delete(ticket);
    if (this.pending.size === 0) this.patches = []; // no answer left that could predate them
  }

  /** Whether the answer to `ticket` is older than one already applied (drop it). */
  stale(ticket) {
    return ticket < this.applied;
  }

  /** A frame added (`summary`) or removed (null) a session outside a list answer. */
  note(sessionId, summary) {
    this.changes.set(sessionId, { after: this.started, summary });
  }

  /** A frame changed some fields of a listed session outside a list answer. */
  notePatch(sessionId, patch) {
    if (this.pending.size > 0) this.patches.push({ after: this.started, sessionId, patch });
  }

  /** Apply the answer to `ticket` (`next`, a Map by id) over `current`; returns `next`. */
  merge(ticket, next, current) {
    this.patches = this.patches.filter((p) => p.after >= ticket); // older ones: the answer knew them
    for (const { sessionId, patch } of this.patches) {
      const row = next.get(sessionId);
      if (row) next.set(sessionId, { ...row, ...patch });
    }
    for (const [id, change] of this.changes) {
      if (change.after < ticket) this.changes.delete(id); // it was known before this refresh began
      else if (change.summary === null) next.delete(id);
      else if (!next.has(id)) next.set(id, current.get(id) ?? change.summary);
    }
    this.applied = ticket;
    return next;
  }
}
