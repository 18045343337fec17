// The Terminal pane's state (docs/decisions.md, "Terminal and files"): every `terminal.*` call of
// the page, and the output frames routed to the terminal that draws them. Pure: the view gives
// each terminal a sink ({write(bytes, done), reset(), ended(code)}) and this module keeps the
// seq, replays the scrollback on (re)attach, drops what was already drawn and acknowledges what
// was drawn so the host's flow control can let more through.

import { Emitter } from "./emitter.js";

const ACK_EVERY = 128 * 1024; // bytes drawn between two acknowledgements (the host's high mark is 1 MB)
const ACK_DELAY = 100; // ms: the last bytes of a burst are acknowledged after this

/** Base64 → bytes. */
export function decodeBase64(text) {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** A page's name for itself in `terminal.attach` / `terminal.ack`. */
function viewerId() {
  const bytes = new Uint8Array(9);
  globalThis.crypto?.getRandomValues?.(bytes);
  return `v-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}${Date.now().toString(36)}`;
}

/** Text to send for a selection: each line as a Markdown quote (trailing blanks trimmed). */
export function quoteBlock(text) {
  const lines = String(text ?? "").replace(/\r/g, "").split("\n").map((l) => l.replace(/\s+$/, ""));
  while (lines.length && !lines[lines.length - 1]) lines.pop();
  while (lines.length && !lines[0]) lines.shift();
  return lines.length ? `${lines.map((l) => (l ? `> ${l}` : ">")).join("\n")}\n\n` : "";
}

/** The pieces a paste is sent in (each at most `size` characters: the host's input cap), never
 * splitting a surrogate pair. */
export function pieces(text, size = 32 * 1024) {
  const out = [];
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + size);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && end - i > 1 && last >= 0xd800 && last <= 0xdbff) end -= 1;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

class Attached {
  constructor(terminalId, sessionId, sink) {
    this.terminalId = terminalId;
    this.sessionId = sessionId;
    this.sink = sink;
    this.seq = 0; // drawn (or queued to draw) through here
    this.drawn = 0; // the sink said it drew through here
    this.acked = 0;
    this.attaching = null; // frames that came while the scrollback was on its way
    this.ackTimer = null;
    this.alive = true;
  }
}

export class TerminalsState extends Emitter {
  /** @param {{client}} deps */
  constructor({ client }) {
    super();
    this.client = client;
    this.viewer = viewerId();
    this.attached = new Map(); // terminalId → Attached
    this.outgoing = new Map(); // terminalId → {pending: text not yet sent, sending: its promise}
    this.lists = new Map(); // sessionId → [{terminalId, cwd, title, alive, exitCode}]
  }

  async list(sessionId) {
    const r = await this.client.call("terminal.list", { sessionId });
    if (r.ok) {
      this.lists.set(sessionId, r.value.items);
      this.emit("list", sessionId);
    }
    return r;
  }

  async open(sessionId, cols, rows) {
    const r = await this.client.call("terminal.open", { sessionId, cols, rows });
    if (r.ok) await this.list(sessionId);
    return r;
  }

  async close(terminalId) {
    const a = this.attached.get(terminalId);
    this.detach(terminalId);
    const r = await this.client.call("terminal.close", { terminalId });
    if (a) await this.list(a.sessionId);
    return r;
  }

  /** Send typed or pasted text in order: one `terminal.input` in flight per terminal, what is
   * typed meanwhile gathered into the next (calls on separate connections may reach the host in
   * any order: "after" arrived as "aeftr"). Resolves with the last call's result once `data`
   * has gone out. */
  input(terminalId, data) {
    let out = this.outgoing.get(terminalId);
    if (!out) this.outgoing.set(terminalId, (out = { pending: "", sending: null }));
    out.pending += data;
    out.sending ??= this.#send(terminalId, out);
    return out.sending;
  }

  async #send(terminalId, out) {
    let r = { ok: true };
    try {
      while (out.pending) {
        const [piece] = pieces(out.pending);
        out.pending = out.pending.slice(piece.length);
        r = await this.client.call("terminal.input", { terminalId, data: piece });
        if (!r.ok) out.pending = ""; // closed, or the host refused it: the rest cannot follow
      }
    } finally {
      out.sending = null;
      if (!out.pending) this.outgoing.delete(terminalId);
    }
    return r;
  }

  resize(terminalId, cols, rows) {
    return this.client.call("terminal.resize", { terminalId, cols, rows });
  }

  /** Draw terminal `terminalId` into `sink`: its scrollback first, then its live output. */
  async attach(terminalId, sessionId, sink) {
    let a = this.attached.get(terminalId);
    if (!a) {
      a = new Attached(terminalId, sessionId, sink);
      this.attached.set(terminalId, a);
    }
    a.sink = sink;
    a.attaching = [];
    const r = await this.client.call("terminal.attach", { terminalId, viewer: this.viewer });
    if (this.attached.get(terminalId) !== a) return r; // detached meanwhile
    const queued = a.attaching ?? [];
    a.attaching = null;
    if (!r.ok) {
      if (r.error?.code === "terminal-not-found") this.#ended(a, null, true);
      return r;
    }
    a.sink.reset();
    a.seq = a.drawn = a.acked = r.value.seq;
    a.alive = r.value.alive;
    const replay = decodeBase64(r.value.scrollback);
    if (replay.length) a.sink.write(replay, () => {});
    for (const f of queued) this.#frame(a, f);
    if (!r.value.alive) a.sink.ended(null);
    return r;
  }

  detach(terminalId) {
    const a = this.attached.get(terminalId);
    if (!a) return;
    clearTimeout(a.ackTimer);
    this.attached.delete(terminalId);
  }

  /** Every attached terminal again (the connection came back: frames may have been missed). */
  reattachAll() {
    for (const a of [...this.attached.values()]) this.attach(a.terminalId, a.sessionId, a.sink);
  }

  /** A mux frame; true when it was a terminal's. */
  handleFrame(f) {
    if (f?.type === "terminal/output") {
      const a = this.attached.get(f.terminalId);
      if (!a) {
        if (!this.lists.get(f.sessionId)?.some((t) => t.terminalId === f.terminalId)) this.emit("unknown", f.sessionId);
        return true;
      }
      if (a.attaching) a.attaching.push(f);
      else this.#frame(a, f);
      return true;
    }
    if (f?.type === "terminal/closed") {
      const a = this.attached.get(f.terminalId);
      if (a) this.#ended(a, f.exitCode ?? null, f.exitCode == null);
      this.list(f.sessionId);
      return true;
    }
    return false;
  }

  #frame(a, f) {
    if (f.seq <= a.seq) return; // drawn already (the scrollback held it)
    const bytes = decodeBase64(f.data);
    if (f.seq - bytes.length > a.seq) {
      this.attach(a.terminalId, a.sessionId, a.sink); // a gap: replay from the host's scrollback
      return;
    }
    const fresh = bytes.subarray(bytes.length - (f.seq - a.seq));
    a.seq = f.seq;
    const seq = f.seq;
    a.sink.write(fresh, () => this.#drawn(a, seq));
  }

  #drawn(a, seq) {
    a.drawn = Math.max(a.drawn, seq);
    if (a.drawn - a.acked >= ACK_EVERY) this.#ack(a);
    else if (!a.ackTimer) a.ackTimer = setTimeout(() => this.#ack(a), ACK_DELAY);
  }

  #ack(a) {
    clearTimeout(a.ackTimer);
    a.ackTimer = null;
    if (a.drawn <= a.acked || !this.attached.has(a.terminalId)) return;
    a.acked = a.drawn;
    this.client.call("terminal.ack", { terminalId: a.terminalId, viewer: this.viewer, seq: a.drawn });
  }

  #ended(a, code, gone) {
    a.alive = false;
    a.sink.ended(code, gone);
    if (gone) this.detach(a.terminalId);
  }
}
