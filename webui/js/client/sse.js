// Incremental Server-Sent Events parser (WHATWG "event stream interpretation").
//
// Bytes go in through push(Uint8Array) in chunks split anywhere — inside a UTF-8 sequence,
// inside "\r\n", inside a field name. A streaming TextDecoder reassembles characters; lines end
// at "\r\n", "\n" or "\r"; a blank line dispatches the event. Comment lines (":" heartbeat) are
// reported separately so a watchdog can see a quiet but live stream. No DOM, no timers.

/**
 * @typedef {{data: string, event: string, id: string}} SseEvent
 * @typedef {{onEvent?: (e: SseEvent) => void, onComment?: (text: string) => void}} SseHandlers
 */

export class SseParser {
  /** @param {SseHandlers} handlers */
  constructor(handlers = {}) {
    this.onEvent = handlers.onEvent ?? (() => {});
    this.onComment = handlers.onComment ?? (() => {});
    this.decoder = new TextDecoder("utf-8");
    this.buf = "";
    this.data = [];
    this.hasData = false;
    this.eventType = "";
    this.lastEventId = "";
    this.pendingCR = false;
  }

  /** Feed raw bytes (any split). */
  push(bytes) {
    this.feedText(this.decoder.decode(bytes, { stream: true }));
  }

  /** Feed already-decoded text (used by push, and handy in tests). */
  feedText(text) {
    if (!text) return;
    let s = text;
    if (this.pendingCR) {
      // A "\r" ended the previous chunk: a leading "\n" here belongs to the same line end.
      this.pendingCR = false;
      if (s.charCodeAt(0) === 10) s = s.slice(1);
    }
    this.buf += s;
    this.drain();
  }

  /** End of stream: flush the decoder; an unterminated final event is discarded (per spec). */
  end() {
    const rest = this.decoder.decode();
    if (rest) this.feedText(rest);
    this.buf = "";
    this.data = [];
    this.hasData = false;
    this.eventType = "";
  }

  drain() {
    const buf = this.buf;
    let start = 0;
    const n = buf.length;
    for (let i = 0; i < n; i++) {
      const c = buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(buf.slice(start, i));
      if (c === 13) {
        if (i + 1 < n) {
          if (buf.charCodeAt(i + 1) === 10) i++;
        } else {
          this.pendingCR = true;
        }
      }
      start = i + 1;
    }
    this.buf = start === 0 ? buf : buf.slice(start);
  }

  line(line) {
    if (line === "") {
      this.dispatch();
      return;
    }
    if (line.charCodeAt(0) === 58 /* ":" */) {
      this.onComment(line.slice(1).replace(/^ /, ""));
      return;
    }
    const colon = line.indexOf(":");
    let field = line;
    let value = "";
    if (colon >= 0) {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
      if (value.charCodeAt(0) === 32) value = value.slice(1);
    }
    switch (field) {
      case "data":
        this.data.push(value);
        this.hasData = true;
        break;
      case "event":
        this.eventType = value;
        break;
      case "id":
        if (!value.includes("\0")) this.lastEventId = value;
        break;
      default:
        break; // "retry" and unknown fields are ignored
    }
  }

  dispatch() {
    if (!this.hasData) {
      this.eventType = "";
      return;
    }
    const e = { data: this.data.join("\n"), event: this.eventType || "message", id: this.lastEventId };
    this.data = [];
    this.hasData = false;
    this.eventType = "";
    this.onEvent(e);
  }
}
