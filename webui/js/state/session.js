// Session (docs/architecture.md, "The path of one prompt"): one open conversation, stitched
// from history pages and live frames by seq.
//
// open() pulls the tail page (session.history, maxMessages 50) while live `session/event`
// frames are buffered; the buffer is then drained in seq order. A buffered or live event that
// skips ahead, or a `session/subscribed.lastSeq` beyond what we hold, re-pulls the tail.
// loadOlder() pages backwards by beforeSeq and must join contiguously. The events kept are
// always one contiguous run; the fold is fed from it. No DOM.
//
// A search hit far up is shown *detached* (docs/decisions.md, "Long transcripts in the window"):
// loadAround() holds a page around the hit instead of everything down to the tail; loadNewer()
// pages forward until the run meets the log's end, then it joins the tail again (pullTail).
// While detached, live frames are not held (the tail is re-pulled on re-attaching).
//
// An open session that is not shown *sleeps* (docs/decisions/performance-under-load.md): the
// host streams it no chunks, so it takes no live frames at all and re-pulls its tail on waking
// if any came meanwhile.
//
// Events: "ops" (fold change list), "state" (loading / hasMore / error changed).

import { Emitter } from "./emitter.js";
import { SessionFold } from "./fold.js";
import { rpcError } from "../client/errors.js";

export class Session extends Emitter {
  constructor({ sessionId, client, maxMessages = 50, maxRepulls = 3 }) {
    super();
    this.sessionId = sessionId;
    this.client = client;
    this.maxMessages = maxMessages;
    this.maxRepulls = maxRepulls;
    this.events = [];
    this.fold = new SessionFold();
    this.hasMore = false;
    this.loaded = false;
    this.loadingOlder = false;
    this.buffering = false;
    this.buffer = [];
    this.subscribedLastSeq = -1;
    this.pulling = null;
    this.repullWanted = false;
    this.error = null;
    this.projections = new Map();
    this.closed = false;
    this.detached = false;
    this.loadingNewer = false;
    this.endSeq = -1; // the newest seq seen: live, or held while attached to the tail
    this.dormant = false; // not shown: live frames are skipped (sleep/wake)
    this.missed = false; // a live frame was skipped while dormant
  }

  get firstSeq() {
    return this.events.length ? this.events[0].seq : null;
  }

  get lastSeq() {
    return this.events.length ? this.events[this.events.length - 1].seq : -1;
  }

  get loading() {
    return this.pulling !== null;
  }

  open() {
    return this.pullTail();
  }

  /** Reconnect = rebuild: pull the tail again (kept older pages stay when it joins). */
  reopen() {
    return this.pullTail();
  }

  close() {
    this.closed = true;
  }

  /** Not shown any more: skip live frames until `wake()`. */
  sleep() {
    this.dormant = true;
  }

  /** Shown again: catch up with what was skipped (one tail pull). */
  wake() {
    if (!this.dormant) return;
    this.dormant = false;
    const missed = this.missed;
    this.missed = false;
    if (missed && this.loaded && !this.detached && !this.closed) this.pullTail();
  }

  emitOps() {
    const ops = this.fold.takeOps();
    if (ops.length) this.emit("ops", ops);
  }

  emitState() {
    this.emit("state", this);
  }

  // ---- live input -------------------------------------------------------------------------

  /** A `session/event` frame for this session. */
  acceptLive(ev) {
    if (ev.seq > this.endSeq) this.endSeq = ev.seq; // the session's end, held or not (views/session-rail.js)
    if (this.dormant) {
      this.missed = true;
      return;
    }
    if (this.closed || this.detached) return;
    if (this.buffering) {
      this.buffer.push(ev);
      return;
    }
    if (ev.seq <= this.lastSeq) return; // already have it
    if (ev.seq === this.lastSeq + 1) {
      this.append(ev);
      this.emitOps();
      return;
    }
    this.buffer.push(ev); // skipped ahead: a gap → re-pull the tail
    this.pullTail();
  }

  /** `session/subscribed` for this session. */
  onSubscribed(lastSeq) {
    if (lastSeq > this.subscribedLastSeq) this.subscribedLastSeq = lastSeq;
    if (this.dormant) {
      this.missed = true;
      return;
    }
    if (this.closed || !this.loaded || this.detached) return;
    if (this.buffering) {
      this.repullWanted = this.repullWanted || lastSeq > this.lastSeq;
      return;
    }
    if (lastSeq > this.lastSeq) this.pullTail();
  }

  /** `session/projection`: keep the value with the highest seq. */
  onProjection(key, value, seq) {
    const cur = this.projections.get(key);
    if (cur && cur.seq > seq) return false;
    this.projections.set(key, { value, seq });
    this.emitState();
    return true;
  }

  get title() {
    return this.projections.get("title")?.value ?? this.fold.title ?? null;
  }

  append(ev) {
    if (ev.seq > this.endSeq) this.endSeq = ev.seq;
    this.events.push(ev);
    this.fold.apply(ev);
  }

  /** Fold the held run again; `cause` "older" = only an older page was prepended (the view may
   * keep the rows it shows). */
  refold(cause = "other") {
    this.endSeq = Math.max(this.endSeq, this.lastSeq);
    this.resetCause = cause;
    this.fold.reset();
    this.fold.applyAll(this.events);
    this.fold.ops = [];
    this.fold.resetPending = true; // the next change list is a single {op: "reset"}
  }

  // ---- the tail -----------------------------------------------------------------------------

  pullTail() {
    const detached = this.detached;
    this.detached = false;
    if (this.pulling) {
      this.repullWanted = true;
      return this.pulling;
    }
    this.buffering = true;
    this.pulling = this.pullLoop(detached).finally(() => {
      this.pulling = null;
      this.emitState();
    });
    this.emitState();
    return this.pulling;
  }

  /** `detached`: the window held was a run away from the tail; it stays one until a tail joins. */
  async pullLoop(detached) {
    let tries = 0;
    let joined = false;
    for (;;) {
      this.repullWanted = false;
      const r = await this.client.call("session.history", { sessionId: this.sessionId, maxMessages: this.maxMessages });
      if (this.closed) return;
      if (!r.ok) {
        this.error = r.error;
        // no tail came: what is held is still not the log's end ("Latest" stays, and asks again)
        if (detached && !joined) this.detached = true;
        this.buffering = false;
        this.buffer = [];
        this.emitState();
        return;
      }
      this.error = null;
      this.installTail(r.value);
      joined = true;
      const gap = this.drainBuffer();
      if (this.subscribedLastSeq > this.lastSeq) this.repullWanted = true;
      tries += 1;
      if (!(gap || this.repullWanted) || tries >= this.maxRepulls) {
        this.buffering = false;
        this.buffer = [];
        this.emitOps();
        return;
      }
      this.emitOps();
    }
  }

  /** Apply buffered live events in order; true when one skipped ahead (the rest wait). */
  drainBuffer() {
    const buffered = this.buffer.sort((a, b) => a.seq - b.seq);
    this.buffer = [];
    for (let i = 0; i < buffered.length; i++) {
      const ev = buffered[i];
      if (ev.seq <= this.lastSeq) continue;
      if (ev.seq === this.lastSeq + 1) {
        this.append(ev);
        continue;
      }
      this.buffer = buffered.slice(i);
      return true;
    }
    return false;
  }

  installTail(value) {
    const tail = entryEvents(value.events);
    if (value.projections) {
      for (const [k, v] of Object.entries(value.projections.values ?? {})) this.onProjection(k, v, value.projections.asOfSeq);
    }
    const first = this.firstSeq;
    const last = this.lastSeq;
    if (!this.loaded || this.events.length === 0 || tail.length === 0 || tail[0].seq < first || tail[0].seq > last + 1) {
      if (tail.length === 0 && this.events.length > 0) {
        // The host says the log is empty (a removed or reset session): start over.
        this.events = [];
      } else {
        this.events = tail.slice();
      }
      this.hasMore = !!value.hasMore;
      this.refold();
    } else {
      // The tail joins what we hold: older pages we loaded stay; append what is new.
      for (const ev of tail) if (ev.seq > this.lastSeq) this.append(ev);
    }
    this.loaded = true;
  }

  // ---- older pages --------------------------------------------------------------------------

  /** Load the page before the first event we hold (`maxMessages` of them, the usual page size
   * by default). Resolves true when it joined. */
  async loadOlder(maxMessages = this.maxMessages) {
    if (!this.hasMore || this.loadingOlder || this.firstSeq === null) return false;
    const before = this.firstSeq;
    this.loadingOlder = true;
    this.emitState();
    try {
      const r = await this.client.call("session.history", { sessionId: this.sessionId, beforeSeq: before, maxMessages });
      if (this.closed || this.firstSeq !== before) return false; // the tail was replaced meanwhile
      if (!r.ok) {
        this.error = r.error;
        return false;
      }
      const page = entryEvents(r.value.events);
      if (page.length === 0) {
        this.hasMore = false;
        return false;
      }
      if (!isContiguous(page) || page[page.length - 1].seq !== before - 1) {
        this.error = { code: "history-gap", message: `older page does not join at seq ${before}`, details: {} };
        return false;
      }
      this.events = page.concat(this.events);
      this.hasMore = !!r.value.hasMore && page[0].seq > 0;
      this.refold("older");
      this.emitOps();
      return true;
    } catch (err) {
      this.error = rpcError("transport", err?.message ?? String(err));
      return false;
    } finally {
      this.loadingOlder = false;
      this.emitState();
    }
  }

  // ---- a detached window (a search hit far up) ------------------------------------------

  /** Hold only a page around `seq` (a search hit before the events held), detached from the
   * tail: one `session.history` page ending AROUND_AFTER events after it. True when it holds
   * `seq`. */
  async loadAround(seq) {
    if (this.closed) return false;
    const before = seq + 1 + AROUND_AFTER;
    const r = await this.client.call("session.history", { sessionId: this.sessionId, beforeSeq: before, maxMessages: this.maxMessages });
    if (this.closed) return false;
    if (!r.ok) {
      this.error = r.error;
      this.emitState();
      return false;
    }
    const page = entryEvents(r.value.events);
    if (!page.length || !isContiguous(page) || page[0].seq > seq) return false;
    this.events = page;
    this.hasMore = !!r.value.hasMore && page[0].seq > 0;
    // the page ended before `before`: the log ends there, nothing newer to page in
    const ended = page[page.length - 1].seq < before - 1;
    this.refold();
    this.emitOps();
    if (ended) this.pullTail();
    else {
      this.detached = true;
      this.emitState();
    }
    return true;
  }

  /** Detached: the next events after the run (a forward page sized like messagesToReach's),
   * applied in order like live ones; at the log's end the tail is joined again. */
  async loadNewer() {
    if (!this.detached || this.loadingNewer || this.closed) return false;
    this.loadingNewer = true;
    try {
      const from = this.lastSeq + 1;
      let want = Math.ceil(NEWER_EVENTS * countedShare(this.events) * 1.25) + 1;
      for (let tries = 0; tries < 4 && this.detached; tries++, want *= 2) {
        const before = from + NEWER_EVENTS;
        const r = await this.client.call("session.history", { sessionId: this.sessionId, beforeSeq: before, maxMessages: Math.min(10_000, want) });
        if (this.closed || !this.detached || this.lastSeq + 1 !== from) return false;
        if (!r.ok) {
          this.error = r.error;
          return false;
        }
        const page = entryEvents(r.value.events);
        if (page.length && page[0].seq > from) continue; // not back far enough: a larger page
        for (const ev of page) if (ev.seq === this.lastSeq + 1) this.append(ev);
        this.emitOps();
        if (!page.length || page[page.length - 1].seq < before - 1) this.pullTail(); // the log's end
        return true;
      }
      this.pullTail(); // could not page forward: show the tail again
      return false;
    } finally {
      this.loadingNewer = false;
      this.emitState();
    }
  }
}

/** Events held after a search hit (the rows below it) and asked for per forward page. */
const AROUND_AFTER = 120;
const NEWER_EVENTS = 300;


/** How many messages the page that reaches back to `seq` should ask for: the held run's share of
 * counted messages (docs/architecture.md, "History paging") scaled to the events in between, with
 * a margin, so a search hit far up costs one or two large pages and one refold each instead of
 * a refold of the growing run per 50-message page (docs/decisions.md, "Long transcripts in the
 * window"). PURE. */
export function messagesToReach(events, seq, min, max = 10_000) {
  if (!events.length || seq >= events[0].seq) return min;
  const want = Math.ceil((events[0].seq - seq) * countedShare(events) * 1.25) + min;
  return Math.max(min, Math.min(max, want));
}

/** The share of `events` that history pages count as messages (0.5 when none are held). PURE. */
export function countedShare(events) {
  let counted = 0;
  for (const ev of events) if (ev.type === "user/message" || ev.type === "assistant/message") counted++;
  return counted / events.length || 0.5;
}

/** History entries `{event, view?}` as events; a tool view rides on its event as `view` (the
 *  fold decorates the tool card with it; the event stays the source of truth). */
export function entryEvents(entries) {
  return (entries ?? []).map((entry) => withView(entry.event, entry.view));
}

/** An event with the view the host sent beside it (history entry or `session/event` frame). */
export function withView(event, view) {
  return view && typeof view === "object" ? { ...event, view } : event;
}

export function isContiguous(events) {
  for (let i = 1; i < events.length; i++) if (events[i].seq !== events[i - 1].seq + 1) return false;
  return true;
}
