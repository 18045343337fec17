// A jump to a search hit (docs/decisions.md, "Scrolling a long transcript"): page the history
// holding the hit in, then build the window around it: a few rows at once, the rest frame by
// frame (transcript-fill.js). While the jump is underway the view renders nothing else (the
// session's tail, arriving first, would be thrown away a moment later).

import { clear } from "./dom.js";
import { rowIndexForSeq } from "../state/find-row.js";
import { messagesToReach } from "../state/session.js";

const HIT_ABOVE = 6; // rows rendered around a search hit at once
const HIT_BELOW = 10;
const MAX_PAGES = 500; // a search hit's page is at most this many older pages away

/** Resolves when `ok()` holds, checked on each of the session's "state" changes. */
function until(session, ok) {
  if (ok()) return Promise.resolve();
  return new Promise((resolve) => {
    const off = session.on("state", () => {
      if (!ok()) return;
      off();
      resolve();
    });
  });
}

/** Hold the history around `seq` in session `s` (far up: one page around it, not everything
 * down to the tail; paging older is the fallback: docs/decisions.md, "Long transcripts in the
 * window"). */
async function holdAround(view, s, seq) {
  await until(s, () => !s.loading);
  if (s.hasMore && (s.firstSeq ?? 0) > seq) await s.loadAround(seq);
  // a detached run (an earlier hit far up) that ends above this one: a page around it instead
  else if (s.detached && seq > s.lastSeq) await s.loadAround(seq);
  if (s.pulling) await s.pulling; // the page reached the log's end: the tail is joined again
  for (let i = 0; i < MAX_PAGES && s === view.session && s.hasMore && (s.firstSeq ?? 0) > seq; i++) {
    if (s.loadingOlder) await until(s, () => !s.loadingOlder);
    else if (!(await s.loadOlder(messagesToReach(s.events, seq, s.maxMessages))) && s.error) break;
  }
}

/**
 * Scroll `view` to the row showing event `seq` and mark it. Stops following, so the stream does
 * not pull the view away. False when the hit is not in the session (then the tail shows).
 */
export async function revealHit(view, seq, { mark = true } = {}) {
  const s = view.session;
  if (!s) return false;
  view.follow = false;
  view.revealing = true;
  try {
    await holdAround(view, s, seq);
  } catch (err) {
    // the view may hold no rows yet (a session opened at its hit): the tail shows instead
    if (s === view.session) {
      view.revealing = false;
      view.renderTail();
    }
    throw err;
  } finally {
    if (s === view.session) view.revealing = false;
  }
  if (s !== view.session) return false;
  const idx = rowIndexForSeq(view.items, seq);
  if (idx < 0) {
    view.renderTail();
    return false;
  }
  if (view.frame) cancelAnimationFrame(view.frame); // the window is rebuilt here
  view.frame = 0;
  view.fill.cancel();
  view.resetPending = view.needsAppend = false;
  view.dirty.clear();
  clear(view.rows);
  view.nodes.clear();
  view.start = view.end = Math.max(0, idx - HIT_ABOVE);
  view.renderRange(view.start, Math.min(view.items.length, idx + HIT_BELOW), "end");
  view.lastLength = view.items.length;
  const node = view.nodes.get(view.items[idx].id);
  view.follow = false;
  if (mark) view.markHit(node);
  else view.clearHit();
  node.scrollIntoView({ block: mark ? "center" : "start" });
  view.lastTop = view.scroller.scrollTop;
  view.updateOlder();
  view.updateJump();
  view.fill.soon();
  return true;
}

/** Ctrl+Home: the session's first message, however long it is: the page at the log's start is
 * held (detached from the tail, as a search hit far up is) and the window built from row 0. */
export async function revealStart(view) {
  const s = view.session;
  if (!s) return false;
  view.follow = false;
  view.revealing = true;
  try {
    await holdAround(view, s, 0);
  } finally {
    if (s === view.session) view.revealing = false;
  }
  if (s !== view.session || !view.items.length) return false;
  if (view.frame) cancelAnimationFrame(view.frame);
  view.frame = 0;
  view.fill.cancel();
  view.resetPending = view.needsAppend = false;
  view.dirty.clear();
  view.clearHit();
  clear(view.rows);
  view.nodes.clear();
  view.start = view.end = 0;
  view.renderRange(0, Math.min(view.items.length, HIT_ABOVE + HIT_BELOW), "end");
  view.lastLength = view.items.length;
  view.follow = false;
  view.scroller.scrollTop = 0;
  view.lastTop = 0;
  view.updateOlder();
  view.updateJump();
  view.fill.soon();
  return true;
}
