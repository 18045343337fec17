// The conversation log with windowing: only a window [start, end) of the fold's rows is in the
// DOM. Scrolling near the top renders older rows (and asks the Session for an older page when
// the fold has none); near the bottom renders newer ones, a few per frame (transcript-fill.js);
// the window is trimmed on the far side beyond MAX_DOM rows. Fold changes are batched per animation frame and patch only the rows that
// changed; live rows are appended only while the window follows the tail.
//
// Following the stream is the person's choice, not a measurement (docs/decisions.md, "UX
// pass"): the view follows until they scroll up, and follows again when they scroll back to the
// bottom, press "Latest" or send. While it follows, any change of size (a long message, a card,
// the composer growing) keeps the bottom in view.

import { h, icon, clear } from "./dom.js";
import { renderRow, updateRow } from "./rows.js";
import { appendLive } from "./transcript-stream.js";
import { WindowFill, shiftKept } from "./transcript-fill.js";
import { revealHit, revealStart } from "./transcript-hit.js";
import { t } from "../i18n/i18n.js";

const PAGE = 40;
const TAIL_ROWS = 30; // rows a session opens with; the window grows from there (transcript-fill.js)
const MAX_DOM = 160;
const PIN_SLACK = 80;
const SHOWN_MS = 1000;
const WAITING_LABEL = { approval: "conversation.waitingApproval", question: "conversation.waitingAnswer" };


export class ConversationView {
  /** @param {HTMLElement} scroller the role=log element @param ctx {turns, onFork, onRetry} */
  constructor(scroller, ctx) {
    this.scroller = scroller;
    this.ctx = ctx;
    this.session = null;
    this.nodes = new Map();
    this.start = 0;
    this.end = 0;
    this.dirty = new Set();
    this.needsAppend = false;
    this.frame = 0;
    this.unsubs = [];
    this.follow = true;
    this.lastTop = 0;
    this.shown = []; // [time, bottom] of the frames drawn lately (resized)
    this.fill = new WindowFill(this); // the window grows near an edge a little per frame
    this.olderBtn = h("button", { type: "button", class: "btn btn-ghost load-older", testid: "load-older", hidden: true }, t("conversation.loadOlder"));
    this.olderBtn.addEventListener("click", () => this.showOlder());
    this.top = h("div", { class: "sentinel", "aria-hidden": "true" });
    this.rows = h("div", { class: "rows" });
    this.bottom = h("div", { class: "sentinel", "aria-hidden": "true" });
    this.workingLabel = h("span", { class: "working-label" }, t("conversation.working"));
    this.working = h("div", { class: "working", testid: "working-indicator", hidden: true, role: "status", dataset: { state: "working" } }, h("span", { class: "dots", "aria-hidden": "true" }, h("i"), h("i"), h("i")), icon("down", "icon waiting-mark"), this.workingLabel);
    this.jump = h("button", { type: "button", class: "btn jump-latest", testid: "jump-latest", hidden: true }, icon("down"), h("span", {}, t("conversation.latest")));
    this.jump.addEventListener("click", () => this.jumpToLatest());
    // Approval/question cards stand inline after the last row, outside the windowed rows.
    this.tail = ctx.tailSlot ?? null;
    this.inner = h("div", { class: "log-inner" }, this.olderBtn, this.top, this.rows, this.working, this.tail, this.bottom);
    scroller.append(this.inner);
    scroller.parentElement.append(this.jump);
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), { root: scroller, rootMargin: "600px 0px" });
    this.observer.observe(this.top);
    this.observer.observe(this.bottom);
    scroller.addEventListener("scroll", () => this.onScroll(), { passive: true });
    this.resizer = new ResizeObserver(() => this.resized());
    this.resizer.observe(this.inner);
    this.resizer.observe(scroller);
  }

  get items() {
    return this.session ? this.session.fold.items : [];
  }

  /** `reveal`: a search hit is shown next (reveal()); the tail is not rendered meanwhile. */
  setSession(session, { reveal = false } = {}) {
    for (const u of this.unsubs) u();
    this.unsubs = [];
    this.session = session;
    this.revealing = reveal;
    this.fill.cancel();
    this.follow = !reveal;
    this.hit = null;
    if (reveal) {
      clear(this.rows);
      this.shown.length = 0;
      this.nodes.clear();
      this.start = this.end = this.lastLength = 0;
    } else this.renderTail();
    if (!session) return;
    this.unsubs.push(session.on("ops", (ops) => this.onOps(ops)));
    this.unsubs.push(session.on("state", () => this.updateOlder()));
  }

  /** The line under the last row: "Working…", "Summarizing…", or what the agent waits on
   * ("approval" | "question"). */
  /** `ahead`: the turn waits for a free slot behind that many others (null: it does not). */
  setActivity(running, waiting = null, compacting = false, ahead = null) {
    this.working.hidden = !running && !waiting && !compacting;
    const slot = ahead !== null && !waiting;
    this.working.dataset.state = waiting ? `waiting-${waiting}` : slot ? "waiting-slot" : compacting ? "compacting" : "working";
    this.workingLabel.textContent = WAITING_LABEL[waiting] ? t(WAITING_LABEL[waiting]) : slot ? t("attention.waiting", { ahead }) : compacting ? t("conversation.compacting") : t("conversation.working");
  }

  /** The view follows the stream (the person has not scrolled up). */
  isPinned() {
    return this.follow && this.following;
  }

  /** Pixels below the visible part of the log. */
  gap() {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight;
  }

  /**
   * A scroll, by the person or by the browser: going up stops following; coming down to the
   * bottom resumes it. Content that shrinks at the bottom also moves scrollTop up, but leaves
   * no gap, so it never counts as the person scrolling away.
   */
  onScroll() {
    const top = this.scroller.scrollTop;
    const gap = this.gap();
    const reached = top >= this.recentBottom() - 1;
    if (top < this.lastTop - 1 && gap > 2) this.follow = false;
    else if (top >= this.lastTop && (gap < PIN_SLACK || reached) && this.following && !this.follow) {
      this.follow = true;
      this.stick(); // what came in below meanwhile
    }
    this.lastTop = this.scroller.scrollTop;
    this.updateJump();
    this.loadNewerNear();
    // an edge may have come near without the sentinels' observer noticing: it samples the end
    // of a frame only, and a scroll set back within one frame (growing the window keeps what
    // is on screen in place) looks like no change to it; the fill checks for itself
    this.fill.soon();
  }

  /**
   * After the layout of a frame whose size changed: its bottom is kept for a moment. A wheel
   * is scrolled against a frame already drawn, and its scroll event comes frames later on a busy
   * machine, after a stream's deltas grew the log: the gap then is wider than PIN_SLACK though
   * the person went all the way down. Reaching a bottom drawn within the last SHOWN_MS counts
   * (rows added or dropped above forget them: those bottoms moved).
   */
  resized() {
    const now = performance.now();
    this.shown.push([now, this.scroller.scrollHeight - this.scroller.clientHeight]);
    // the frames of the last SHOWN_MS, and the one that was on screen when they began
    while (this.shown.length > 1 && this.shown[1][0] < now - SHOWN_MS) this.shown.shift();
    this.stick();
  }

  /** The lowest bottom drawn lately (Infinity before the first frame). */
  recentBottom() {
    let low = Infinity;
    for (const [, bottom] of this.shown) low = Math.min(low, bottom);
    return low;
  }

  /** Keep the bottom in view while following (after any change of size). */
  stick() {
    if (!this.follow || !this.following) return;
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.lastTop = this.scroller.scrollTop;
  }

  /** The window shows the newest rows the session has (a detached session's are not the
   * newest: there is more below). */
  get following() {
    return this.end >= this.items.length && !this.session?.detached;
  }

  /** Near the bottom of a detached run: page the next events in. */
  loadNewerNear() {
    const s = this.session;
    if (s?.detached && !s.loadingNewer && this.end >= this.items.length && this.gap() < 1200) s.loadNewer();
  }

  // ---- change handling ----------------------------------------------------------------------

  onOps(ops) {
    for (const op of ops) {
      if (op.op === "reset") {
        this.resetPending = true;
      } else if (op.op === "add") {
        this.needsAppend = true;
      } else if (op.op === "update") {
        this.dirty.add(op.id);
        const node = this.nodes.get(op.id); // a streamed delta is in the DOM now, not next frame
        if (node?._blocks) appendLive(node, this.session.fold.get(op.id));
      }
    }
    this.schedule();
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.flush();
    });
  }

  flush() {
    if (this.revealing) {
      // a search hit is on its way: its window replaces whatever would be rendered now
      this.resetPending = this.needsAppend = false;
      this.dirty.clear();
      return;
    }
    const pinned = this.follow;
    if (this.resetPending) {
      this.resetPending = false;
      this.dirty.clear();
      this.needsAppend = false;
      this.rerenderKeepingAnchor(pinned);
      return;
    }
    for (const id of this.dirty) {
      const node = this.nodes.get(id);
      const item = this.session?.fold.get(id);
      if (!node || !item) continue;
      const fresh = updateRow(node, item, this.rowCtx());
      if (fresh && fresh !== node) this.nodes.set(id, fresh);
    }
    this.dirty.clear();
    if (this.needsAppend) {
      this.needsAppend = false;
      const wasFollowing = this.end >= this.lastLength;
      if (wasFollowing && !pinned && this.session?.detached) this.fill.soon(); // a forward page: a few rows per frame
      else if (wasFollowing) {
        this.renderRange(this.end, this.items.length, "end");
        if (!pinned) this.trim("start");
      }
    }
    this.lastLength = this.items.length;
    if (pinned && this.following) {
      this.trim("start");
      this.stick();
    }
    this.updateJump();
    this.updateOlder();
  }

  rowCtx() {
    return { ...this.ctx, sessionId: this.session?.sessionId };
  }

  // ---- window management ----------------------------------------------------------------------

  /** Render the last TAIL_ROWS rows, scrolled to the bottom (older ones follow near the top). */
  renderTail() {
    clear(this.rows);
    this.shown.length = 0;
    this.nodes.clear();
    const n = this.items.length;
    this.start = this.end = Math.max(0, n - TAIL_ROWS);
    this.renderRange(this.start, n, "end");
    this.lastLength = n;
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.lastTop = this.scroller.scrollTop;
    this.updateOlder();
    this.updateJump();
  }

  /** After a reset (new tail, older page): rebuild around the first visible row. */
  rerenderKeepingAnchor(pinned) {
    if (pinned || this.nodes.size === 0) {
      this.renderTail();
      return;
    }
    const anchor = this.firstVisible();
    const offset = anchor ? anchor.getBoundingClientRect().top - this.scroller.getBoundingClientRect().top : 0;
    const anchorId = anchor?.dataset.itemId;
    const idx = anchorId ? this.items.findIndex((it) => it.id === anchorId) : -1;
    if (idx < 0) {
      this.renderTail();
      return;
    }
    // an older page only adds rows above: the rows already shown are kept, not rebuilt
    // (docs/decisions.md, "Long transcripts in the window")
    const kept = this.session?.resetCause === "older" ? this.nodes : null;
    if (kept && shiftKept(this)) {
      // the rows on screen stay in the DOM untouched; older ones join a few per frame
      this.updateOlder();
      this.updateJump();
      this.fill.soon();
      return;
    }
    clear(this.rows);
    this.shown.length = 0;
    this.nodes = new Map();
    this.start = this.end = Math.max(0, idx - PAGE);
    this.renderRange(this.start, Math.min(this.items.length, idx + PAGE * 2), "end", kept);
    this.lastLength = this.items.length;
    const node = this.nodes.get(anchorId);
    if (node) this.scroller.scrollTop += node.getBoundingClientRect().top - this.scroller.getBoundingClientRect().top - offset;
    this.updateOlder();
    this.updateJump();
    this.fill.soon(); // an edge may be near already: no intersection will say so
  }

  firstVisible() {
    const top = this.scroller.getBoundingClientRect().top;
    for (const node of this.rows.children) if (node.getBoundingClientRect().bottom > top) return node;
    return null;
  }

  /** Render rows [from, to) on one side; `reuse` (id → node) supplies rows already built. */
  renderRange(from, to, side, reuse = null) {
    if (from >= to) return;
    const frag = document.createDocumentFragment();
    const ctx = this.rowCtx();
    for (let i = from; i < to; i++) {
      const item = this.items[i];
      const node = reuse?.get(item.id) ?? renderRow(item, ctx);
      this.nodes.set(item.id, node);
      frag.append(node);
    }
    if (side === "end") {
      this.rows.append(frag);
      this.end = to;
    } else {
      this.rows.prepend(frag);
      this.start = from;
      this.shown.length = 0; // the bottoms drawn before are not where they were
    }
  }

  /** Drop rows beyond MAX_DOM from one side. */
  trim(side) {
    while (this.end - this.start > MAX_DOM) {
      const node = side === "start" ? this.rows.firstElementChild : this.rows.lastElementChild;
      if (!node) break;
      this.nodes.delete(node.dataset.itemId);
      node.remove();
      if (side === "start") {
        this.start++;
        this.shown.length = 0;
      } else this.end--;
    }
  }

  /** A sentinel came near: grow the window on that side, in the next frame (transcript-fill.js). */
  onIntersect(entries) {
    if (this.session && entries.some((e) => e.isIntersecting)) this.fill.soon();
  }

  async showOlder() {
    if (!this.session) return;
    if (this.start > 0) {
      if (this.fill.older()) this.fill.soon();
      return;
    }
    if (this.session.hasMore && !this.session.loadingOlder) await this.session.loadOlder();
  }

  // ---- search hits ----------------------------------------------------------------------------

  /** Scroll to the row showing event `seq` (a search hit) and mark it (transcript-hit.js). */
  reveal(seq) {
    return revealHit(this, seq);
  }

  /** The row of event `seq` at the top of the view, unmarked (the session rail). */
  showSeq(seq) {
    return revealHit(this, seq, { mark: false });
  }

  /** The session's first message (Ctrl+Home), paged in however far up it is. */
  toStart() {
    return revealStart(this);
  }

  markHit(node) {
    this.clearHit();
    this.hit = node;
    node.classList.add("is-search-hit");
    node.dataset.searchHit = "true";
  }

  clearHit() {
    if (!this.hit) return;
    this.hit.classList.remove("is-search-hit");
    delete this.hit.dataset.searchHit;
    this.hit = null;
  }

  /** Back to the newest row, following again ("Latest", sending, opening a session). */
  jumpToLatest() {
    this.follow = true;
    this.revealing = false; // a jump still on its way no longer holds the view's frames back
    this.clearHit();
    this.fill.cancel(); // a forward page still filling in is not wanted any more
    const s = this.session;
    if (s?.detached) {
      // its reset renders the tail; once it is in, the tail is drawn again for sure, whatever
      // frame the reset fell into (a scroll still on its way may have stopped following)
      s.pullTail().then(() => {
        if (s !== this.session || this.revealing) return;
        this.follow = true;
        this.renderTail();
        this.stick();
      });
    }
    if (!this.following) this.renderTail();
    this.stick();
    this.updateJump();
  }

  updateJump() {
    this.jump.hidden = this.follow && this.following;
  }

  updateOlder() {
    const s = this.session;
    const more = !!s && (this.start > 0 || s.hasMore);
    this.olderBtn.hidden = !more;
    this.olderBtn.disabled = !!s?.loadingOlder;
    const label = s?.loadingOlder ? t("conversation.loadingOlder") : t("conversation.loadOlder");
    if (this.olderBtn.textContent !== label) this.olderBtn.textContent = label; // no DOM write per frame
  }
}
