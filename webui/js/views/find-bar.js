// Find in this session (docs/decisions.md, "A day's work without friction"): "n of N" matching
// messages of the open session, stepped through with Enter / Shift+Enter, ↑/↓ buttons, F3, and
// Ctrl+F to open it. The hits come from `session.search {query, sessionId}` — reading order, a
// page at a time, `total` for the N — and each step reveals its message (transcript-hit.js).

import { h, icon } from "./dom.js";
import { describeError } from "../state/problems.js";
import { t } from "../i18n/i18n.js";

const MAX_PAGES = 100; // 2,000 hits: a bound on how far the pages are followed

export class FindBar {
  /** ctx: {turns, conversation, sessionId() → the open session, focusAway()} */
  constructor(parent, ctx) {
    this.ctx = ctx;
    this.seq = 0;
    this.abort = new AbortController();
    this.reset();
    this.input = h("input", { type: "search", class: "find-input", testid: "find-input", "aria-label": t("find.label"), placeholder: t("find.placeholder"), autocomplete: "off" });
    this.count = h("span", { class: "find-count", testid: "find-count", role: "status" });
    this.prevBtn = h("button", { type: "button", class: "btn btn-icon btn-small", testid: "find-prev", title: t("find.prev"), "aria-label": t("find.prev") }, icon("up"));
    this.nextBtn = h("button", { type: "button", class: "btn btn-icon btn-small", testid: "find-next", title: t("find.next"), "aria-label": t("find.next") }, icon("down"));
    const close = h("button", { type: "button", class: "btn btn-icon btn-small", testid: "find-close", title: t("find.close"), "aria-label": t("find.close") }, icon("x"));
    this.el = h("div", { class: "find-bar", testid: "find-bar", role: "search", "aria-label": t("find.label"), hidden: true }, icon("search", "icon"), this.input, this.count, this.prevBtn, this.nextBtn, close);
    parent.prepend(this.el);
    this.prevBtn.addEventListener("click", () => this.step(-1));
    this.nextBtn.addEventListener("click", () => this.step(1));
    close.addEventListener("click", () => this.close(true));
    let timer = 0;
    this.input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.load(this.input.value.trim(), null), 200);
    });
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        clearTimeout(timer);
        if (this.query !== this.input.value.trim()) this.load(this.input.value.trim(), null);
        else this.step(e.shiftKey ? -1 : 1);
      } else if (e.key === "Escape") {
        e.preventDefault();
        e.stopPropagation();
        this.close(true);
      }
    });
    this.el.addEventListener("keydown", (e) => {
      if (e.key === "F3") {
        e.preventDefault();
        this.step(e.shiftKey ? -1 : 1);
      }
    });
  }

  reset() {
    this.query = "";
    this.sessionId = null;
    this.hits = []; // seqs in reading order, as far as paged
    this.total = 0;
    this.cursor = null;
    this.hasMore = false;
    this.index = -1;
  }

  get open() {
    return !this.el.hidden;
  }

  /** Open on the session shown, with `query` (else the last one) and on hit `atSeq` when given
   * (a sidebar result); without one, on the first hit. */
  show(query, atSeq) {
    this.el.hidden = false;
    if (query !== undefined) this.input.value = query;
    this.input.focus();
    this.input.select();
    const q = this.input.value.trim();
    if (q && (q !== this.query || this.sessionId !== this.ctx.sessionId() || atSeq !== undefined)) this.load(q, atSeq ?? null);
  }

  /** A newer search (or none) replaces the one asked last: its answer is dropped and the host
   * stops it rather than finish work nobody waits for (docs/decisions/search-lane.md). */
  supersede() {
    this.abort.abort();
    this.abort = new AbortController();
    return ++this.seq;
  }

  close(returnFocus = false) {
    if (this.el.hidden) return;
    this.supersede();
    this.el.hidden = true;
    this.reset();
    this.ctx.conversation.clearHit();
    if (returnFocus) this.ctx.focusAway();
  }

  /** The session changed: a bar left open follows it (its hits are that session's). */
  sessionChanged(sessionId) {
    if (this.open && this.sessionId !== sessionId) {
      this.supersede();
      const q = this.query;
      this.reset();
      this.render();
      if (q && sessionId) this.load(q, null, false);
    }
  }

  async load(query, atSeq, reveal = true) {
    const seq = this.supersede();
    const sessionId = this.ctx.sessionId();
    this.reset();
    this.query = query;
    this.sessionId = sessionId;
    if (!query || !sessionId) return this.render();
    this.count.textContent = t("find.searching");
    if (!(await this.page(seq))) return;
    let index = 0;
    if (atSeq !== null) {
      while ((index = this.hits.indexOf(atSeq)) < 0 && this.hasMore) if (!(await this.page(seq))) return;
      if (index < 0) index = 0;
      else reveal = false; // the sidebar's jump reveals it already
    }
    this.index = this.hits.length ? index : -1;
    this.render();
    if (reveal && this.index >= 0) this.ctx.conversation.reveal(this.hits[this.index]);
  }

  /** The next page of hits; false when this search was replaced or failed. */
  async page(seq) {
    if (this.hits.length >= MAX_PAGES * 20) {
      this.hasMore = false;
      return true;
    }
    const r = await this.ctx.turns.searchSession(this.sessionId, this.query, this.cursor, this.abort.signal);
    if (seq !== this.seq) return false;
    if (!r.ok) {
      this.count.textContent = describeError(r.error);
      return false;
    }
    this.hits.push(...r.value.items.map((hit) => hit.seq));
    this.total = r.value.total ?? this.hits.length;
    this.cursor = r.value.cursor ?? null;
    this.hasMore = !!r.value.hasMore && !!this.cursor;
    return true;
  }

  /** One hit on (+1) or back (-1), round the ends. */
  async step(by) {
    if (!this.query || this.total === 0) return;
    const seq = this.seq;
    let next = this.index + by;
    if (next >= this.hits.length && this.hasMore) {
      if (!(await this.page(seq))) return;
    }
    if (next < 0) {
      while (this.hasMore) if (!(await this.page(seq))) return; // round to the last one
      next = this.hits.length - 1;
    }
    if (next >= this.hits.length) next = 0;
    this.index = next;
    this.render();
    await this.ctx.conversation.reveal(this.hits[next]);
  }

  render() {
    const none = !this.query || this.total === 0;
    this.count.textContent = !this.query ? "" : none ? t("find.none") : t("find.count", { n: this.index + 1, total: this.total });
    this.el.dataset.index = String(this.index + 1);
    this.el.dataset.total = String(this.total);
    this.prevBtn.disabled = this.nextBtn.disabled = none;
  }
}
