// The session rail (docs/decisions.md, "A day's work without friction"): a scrollbar beside the
// transcript that spans the whole session, not only the rows held. The transcript is windowed
// and pages history in ("Long transcripts in the window"), so its own scrollbar spans the page
// held; the rail maps the session's events, first to newest, onto its height. Its thumb follows
// the row at the top of the view; a click or a drag on it, or its keys (↑/↓, PageUp/PageDown,
// Home/End), go there, paging in what is needed (transcript-hit.js). It shows only while the
// session is longer than what is held.

import { h } from "./dom.js";
import { t } from "../i18n/i18n.js";
import { firstRowBelow } from "./row-at.js";

const KEY_STEP = 0.02; // ↑/↓: 2 % of the session
const PAGE_STEP = 0.1; // PageUp/PageDown: 10 %

export class SessionRail {
  /** @param {HTMLElement} parent the log's wrapper @param {ConversationView} view */
  constructor(parent, view) {
    this.view = view;
    this.frame = 0;
    this.unsubs = [];
    this.thumb = h("div", { class: "rail-thumb", testid: "session-rail-thumb" });
    this.el = h("div", { class: "session-rail", testid: "session-rail", role: "scrollbar", tabindex: "0", "aria-orientation": "vertical", "aria-controls": "conversation", "aria-label": t("rail.label"), "aria-valuemin": "0", "aria-valuemax": "100", hidden: true }, this.thumb);
    parent.append(this.el);
    view.scroller.addEventListener("scroll", () => this.soon(), { passive: true });
    this.el.addEventListener("pointerdown", (e) => this.press(e));
    this.el.addEventListener("keydown", (e) => this.key(e));
  }

  setSession(session) {
    for (const u of this.unsubs) u();
    this.unsubs = [];
    this.session = session;
    if (session) this.unsubs.push(session.on("state", () => this.soon()), session.on("ops", () => this.soon()));
    this.soon();
  }

  /** The session's newest event seq as far as this page knows it. */
  get end() {
    const s = this.session;
    return s ? Math.max(s.endSeq ?? -1, s.subscribedLastSeq ?? -1, s.lastSeq) : -1;
  }

  soon() {
    if (!this.frame) this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.update();
    });
  }

  update() {
    const s = this.session;
    const end = this.end;
    const long = !!s && end > 0 && (s.hasMore || s.detached);
    this.el.hidden = !long;
    if (!long || this.dragging) return;
    this.place(Math.min(1, Math.max(0, this.topSeq() / end)));
  }

  place(fraction) {
    const room = Math.max(0, this.el.clientHeight - this.thumb.offsetHeight);
    this.thumb.style.transform = `translateY(${Math.round(fraction * room)}px)`;
    const pct = Math.round(fraction * 100);
    this.el.setAttribute("aria-valuenow", String(pct));
    this.el.setAttribute("aria-valuetext", t("rail.at", { percent: pct }));
    this.fraction = fraction;
  }

  /** The seq of the first row whose bottom is below the view's top edge. */
  topSeq() {
    const top = this.view.scroller.getBoundingClientRect().top;
    const node = firstRowBelow(this.view.rows, top + 1);
    if (node?.dataset.seq) return Number(node.dataset.seq);
    return this.session?.firstSeq ?? 0;
  }

  fractionAt(clientY) {
    const r = this.el.getBoundingClientRect();
    const half = this.thumb.offsetHeight / 2;
    return Math.min(1, Math.max(0, (clientY - r.top - half) / Math.max(1, r.height - 2 * half)));
  }

  press(e) {
    if (e.button !== 0) return;
    e.preventDefault();
    this.el.focus();
    this.dragging = true;
    this.el.setPointerCapture?.(e.pointerId);
    this.place(this.fractionAt(e.clientY));
    const move = (ev) => this.place(this.fractionAt(ev.clientY));
    const up = () => {
      this.el.removeEventListener("pointermove", move);
      this.el.removeEventListener("pointerup", up);
      this.el.removeEventListener("pointercancel", up);
      this.dragging = false;
      this.go(this.fraction);
    };
    this.el.addEventListener("pointermove", move);
    this.el.addEventListener("pointerup", up);
    this.el.addEventListener("pointercancel", up);
  }

  key(e) {
    const at = this.fraction ?? 1;
    const to = { ArrowUp: at - KEY_STEP, ArrowDown: at + KEY_STEP, PageUp: at - PAGE_STEP, PageDown: at + PAGE_STEP, Home: 0, End: 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.go(Math.min(1, Math.max(0, to)));
  }

  /** Show the session at `fraction` of its events: the newest is Latest, the first Ctrl+Home. */
  async go(fraction) {
    this.place(fraction);
    if (fraction >= 1) return this.view.jumpToLatest();
    if (fraction <= 0) return this.view.toStart();
    await this.view.showSeq(Math.round(fraction * this.end));
    this.soon();
  }
}
