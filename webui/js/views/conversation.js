// The conversation log with windowing: only a window [start, end) of the fold's rows is in the
// DOM. Scrolling near the top renders older rows (and asks the Session for an older page when
// the fold has none); near the bottom renders newer ones; the window is trimmed on the far side
// beyond MAX_DOM rows. Fold changes are batched per animation frame and patch only the rows that
// changed; live rows are appended only while the window follows the tail.

import { h, icon, clear } from "./dom.js";
import { renderRow, updateRow } from "./rows.js";

const PAGE = 40;
const MAX_DOM = 160;
const PIN_SLACK = 80;
const WAITING_LABEL = { approval: "Waiting for your approval", question: "Waiting for your answer" };
const COMPACTING_LABEL = "Summarizing the earlier conversation…";

export class ConversationView {
  /** @param {HTMLElement} scroller the role=log element @param ctx {client, onFork, onRetry} */
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
    this.olderBtn = h("button", { type: "button", class: "btn btn-ghost load-older", testid: "load-older", hidden: true }, "Load older messages");
    this.olderBtn.addEventListener("click", () => this.showOlder());
    this.top = h("div", { class: "sentinel", "aria-hidden": "true" });
    this.rows = h("div", { class: "rows" });
    this.bottom = h("div", { class: "sentinel", "aria-hidden": "true" });
    this.workingLabel = h("span", { class: "working-label" }, "Working…");
    this.working = h("div", { class: "working", testid: "working-indicator", hidden: true, role: "status", dataset: { state: "working" } }, h("span", { class: "dots", "aria-hidden": "true" }, h("i"), h("i"), h("i")), icon("down", "icon waiting-mark"), this.workingLabel);
    this.jump = h("button", { type: "button", class: "btn jump-latest", testid: "jump-latest", hidden: true }, icon("down"), h("span", {}, "Latest"));
    this.jump.addEventListener("click", () => this.jumpToLatest());
    // Approval/question cards stand inline after the last row, outside the windowed rows.
    this.tail = ctx.tailSlot ?? null;
    this.inner = h("div", { class: "log-inner" }, this.olderBtn, this.top, this.rows, this.working, this.tail, this.bottom);
    scroller.append(this.inner);
    scroller.parentElement.append(this.jump);
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), { root: scroller, rootMargin: "600px 0px" });
    this.observer.observe(this.top);
    this.observer.observe(this.bottom);
    scroller.addEventListener("scroll", () => this.updateJump(), { passive: true });
  }

  get items() {
    return this.session ? this.session.fold.items : [];
  }

  setSession(session) {
    for (const u of this.unsubs) u();
    this.unsubs = [];
    this.session = session;
    this.renderTail();
    if (!session) return;
    this.unsubs.push(session.on("ops", (ops) => this.onOps(ops)));
    this.unsubs.push(session.on("state", () => this.updateOlder()));
  }

  /** The line under the last row: "Working…", "Summarizing…", or what the agent waits on
   * ("approval" | "question"). */
  setActivity(running, waiting = null, compacting = false) {
    this.working.hidden = !running && !waiting && !compacting;
    this.working.dataset.state = waiting ? `waiting-${waiting}` : compacting ? "compacting" : "working";
    this.workingLabel.textContent = WAITING_LABEL[waiting] ?? (compacting ? COMPACTING_LABEL : "Working…");
  }

  isPinned() {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < PIN_SLACK;
  }

  get following() {
    return this.end >= this.items.length;
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
    const pinned = this.isPinned();
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
      if (wasFollowing) this.renderRange(this.end, this.items.length, "end");
    }
    this.lastLength = this.items.length;
    if (pinned && this.following) {
      this.trim("start");
      this.scroller.scrollTop = this.scroller.scrollHeight;
    }
    this.updateJump();
    this.updateOlder();
  }

  rowCtx() {
    return { ...this.ctx, sessionId: this.session?.sessionId };
  }

  // ---- window management ----------------------------------------------------------------------

  /** Render the last PAGE*2 rows, scrolled to the bottom. */
  renderTail() {
    clear(this.rows);
    this.nodes.clear();
    const n = this.items.length;
    this.start = this.end = Math.max(0, n - PAGE * 2);
    this.renderRange(this.start, n, "end");
    this.lastLength = n;
    this.scroller.scrollTop = this.scroller.scrollHeight;
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
    clear(this.rows);
    this.nodes.clear();
    this.start = this.end = Math.max(0, idx - PAGE);
    this.renderRange(this.start, Math.min(this.items.length, idx + PAGE * 2), "end");
    this.lastLength = this.items.length;
    const node = this.nodes.get(anchorId);
    if (node) this.scroller.scrollTop += node.getBoundingClientRect().top - this.scroller.getBoundingClientRect().top - offset;
    this.updateOlder();
    this.updateJump();
  }

  firstVisible() {
    const top = this.scroller.getBoundingClientRect().top;
    for (const node of this.rows.children) if (node.getBoundingClientRect().bottom > top) return node;
    return null;
  }

  renderRange(from, to, side) {
    if (from >= to) return;
    const frag = document.createDocumentFragment();
    const ctx = this.rowCtx();
    for (let i = from; i < to; i++) {
      const item = this.items[i];
      const node = renderRow(item, ctx);
      this.nodes.set(item.id, node);
      frag.append(node);
    }
    if (side === "end") {
      this.rows.append(frag);
      this.end = to;
    } else {
      this.rows.prepend(frag);
      this.start = from;
    }
  }

  /** Drop rows beyond MAX_DOM from one side. */
  trim(side) {
    while (this.end - this.start > MAX_DOM) {
      const node = side === "start" ? this.rows.firstElementChild : this.rows.lastElementChild;
      if (!node) break;
      this.nodes.delete(node.dataset.itemId);
      node.remove();
      if (side === "start") this.start++;
      else this.end--;
    }
  }

  onIntersect(entries) {
    for (const e of entries) {
      if (!e.isIntersecting || !this.session) continue;
      if (e.target === this.top) this.showOlder();
      else if (e.target === this.bottom && this.end < this.items.length) {
        this.renderRange(this.end, Math.min(this.items.length, this.end + PAGE), "end");
        this.trim("start");
        this.updateJump();
      }
    }
  }

  async showOlder() {
    if (!this.session) return;
    if (this.start > 0) {
      const before = this.scroller.scrollHeight;
      const keep = this.scroller.scrollTop;
      this.renderRange(Math.max(0, this.start - PAGE), this.start, "start");
      this.scroller.scrollTop = keep + (this.scroller.scrollHeight - before);
      this.trim("end");
      this.updateJump();
      this.updateOlder();
      return;
    }
    if (this.session.hasMore && !this.session.loadingOlder) await this.session.loadOlder();
  }

  jumpToLatest() {
    if (!this.following) this.renderTail();
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.updateJump();
  }

  updateJump() {
    this.jump.hidden = this.following && this.isPinned();
  }

  updateOlder() {
    const s = this.session;
    const more = !!s && (this.start > 0 || s.hasMore);
    this.olderBtn.hidden = !more;
    this.olderBtn.disabled = !!s?.loadingOlder;
    this.olderBtn.textContent = s?.loadingOlder ? "Loading older messages…" : "Load older messages";
  }
}
