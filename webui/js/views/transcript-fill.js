// Growing the conversation's window of rows a little per frame (docs/decisions.md, "Scrolling
// a long transcript"): near an edge, rows are rendered one at a time until a few milliseconds
// are spent, then the next frame goes on while the edge is still near. A frame never builds a
// whole page of rows (markdown, code, diffs) at once, so scrolling keeps its frames short. One
// budget per frame for both edges, and rows are built only in the frame's animation callback
// (docs/decisions/cheap-scroll-frames.md): a sentinel's intersection asks for the next frame
// rather than building rows in its own task, which rendered in the same frame as the rAF's.

const BUDGET_MS = 4; // script time per frame (layout of what was added comes on top)
const NEAR_PX = 600; // the sentinels' rootMargin in conversation.js
// Rows are built ahead of need, between frames (docs/decisions/rows-built-between-frames.md):
// while an edge is within AHEAD_PX, idle time after a frame builds the next rows and lays them
// out, so a scroll frame that reaches them only moves them. The frame's own fill (NEAR_PX)
// stays for when idle time falls behind.
const AHEAD_PX = 2400;
const IDLE_MS = 4; // at most this much per idle slice, less when the browser says so

/** `fn(deadline)` in the next idle period; where there is no requestIdleCallback (WebKitGTK),
 * in the first task after the frame, with no deadline. Returns what `cancelIdle` takes. */
function whenIdle(fn) {
  if (globalThis.requestIdleCallback) return { idle: requestIdleCallback(fn, { timeout: 200 }) };
  return { timer: setTimeout(() => fn(null), 0) };
}

function cancelIdle(handle) {
  if (handle.idle !== undefined) cancelIdleCallback(handle.idle);
  else clearTimeout(handle.timer);
}

export class WindowFill {
  /** @param view the ConversationView (rows, start/end, renderRange, trim, scroller, sentinels) */
  constructor(view) {
    this.view = view;
    this.frame = 0;
    this.idler = null;
  }

  /** Build ahead in the next idle slice (once, however often asked). */
  later() {
    if (this.idler) return;
    this.idler = whenIdle((deadline) => {
      this.idler = null;
      this.ahead(deadline);
    });
  }

  /** Go on in the next frame (once, however often asked). */
  soon() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.step();
    });
  }

  cancel() {
    if (this.frame) cancelAnimationFrame(this.frame);
    if (this.idler) cancelIdle(this.idler);
    this.frame = 0;
    this.idler = null;
  }

  /** Which edges of the log are within `px` of the visible part. */
  near(px = NEAR_PX) {
    const v = this.view;
    const box = v.scroller.getBoundingClientRect();
    return {
      top: v.top.getBoundingClientRect().bottom > box.top - px,
      bottom: v.bottom.getBoundingClientRect().top < box.bottom + px,
    };
  }

  /** One idle slice: rows near an edge (within AHEAD_PX) built and laid out now, not in a
   * frame; the next slice goes on while the edge is still that near. A slice with no time left
   * builds nothing: the next scroll frame asks again (step). */
  ahead(deadline) {
    const v = this.view;
    // fold changes not yet drawn (a reset, a page, the tail pulled back): the window's indices
    // are the old fold's until the view's next frame, so nothing is built from them before then
    if (!v.session || v.revealing || v.frame) return;
    const left = deadline ? Math.min(IDLE_MS, deadline.timeRemaining()) : IDLE_MS;
    if (left <= 0) return;
    const near = this.near(AHEAD_PX);
    const until = performance.now() + left;
    // while the view follows the stream the older side is left to the frame's fill: an older
    // row built here could trim the newest ones off a full window and stop the following
    if (near.top && v.start > 0 && !v.isPinned()) this.older(until); // reads the new height: laid out here
    else if (near.bottom && v.end < v.items.length) {
      this.newer(until);
      void v.rows.offsetHeight; // laid out here, in idle time, rather than in the next frame
    } else return; // the host's pages are asked for by the frame's fill, at the fold's ends
    this.later();
  }

  /** One frame's share: older rows near the top, newer near the bottom; more next frame. */
  step() {
    const v = this.view;
    // a jump on its way builds the window itself (transcript-hit.js): an empty log is not a
    // log scrolled to its top, and paging older now would only compete with the jump's page
    if (!v.session || v.revealing) return;
    const near = this.near();
    const until = performance.now() + BUDGET_MS;
    let more = false;
    if (near.top && v.start > 0) more = this.older(until) || more;
    if (near.bottom && v.end < v.items.length) more = this.newer(until) || more;
    // the window reached an end of the fold with that edge still near: page in from the host
    // now; no later intersection may come (the log can sit at its very top), so waiting for
    // one would leave the older messages out for good
    if (v.start === 0 || v.end === v.items.length) {
      const still = this.near();
      if (still.top && v.start === 0) v.showOlder();
      if (still.bottom && v.end === v.items.length) v.loadNewerNear();
    }
    if (more) this.soon();
    this.later();
  }

  /** Prepend older rows until `until` (at least one), keeping what is on screen where it is. */
  older(until = performance.now() + BUDGET_MS) {
    const v = this.view;
    const s = v.scroller;
    const before = s.scrollHeight;
    const keep = s.scrollTop;
    do v.renderRange(v.start - 1, v.start, "start");
    while (v.start > 0 && performance.now() < until);
    s.scrollTop = keep + (s.scrollHeight - before);
    v.lastTop = s.scrollTop;
    v.trim("end");
    v.updateJump();
    v.updateOlder();
    return v.start > 0;
  }

  /** Append newer rows until `until` (at least one; the window below the screen grows). */
  newer(until = performance.now() + BUDGET_MS) {
    const v = this.view;
    do v.renderRange(v.end, v.end + 1, "end");
    while (v.end < v.items.length && performance.now() < until);
    v.trim("start");
    v.updateJump();
    return v.end < v.items.length;
  }
}

/**
 * After an older page joined the fold: if the rows in the DOM are still a run of the new items
 * (they are: an older page only adds rows above), move the window's indices instead of
 * rebuilding it. Returns false when they are not (then the caller rebuilds).
 */
export function shiftKept(view) {
  const rows = view.rows.children;
  const first = rows[0]?.dataset.itemId;
  if (!first) return false;
  const items = view.items;
  const at = items.findIndex((it) => it.id === first);
  if (at < 0 || at + rows.length > items.length) return false;
  for (let i = 0; i < rows.length; i++) if (items[at + i].id !== rows[i].dataset.itemId) return false;
  view.start = at;
  view.end = at + rows.length;
  view.lastLength = items.length;
  return true;
}
