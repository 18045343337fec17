// ArrowUp in an empty composer recalls what the person sent before (newest first); ArrowDown
// goes back towards the newest and then to an empty box. PURE.

/** The texts of a fold's user rows that started turns (steering included), oldest first. */
export function sentTexts(items) {
  const out = [];
  for (const it of items) {
    if (it.kind !== "user") continue;
    const text = (it.content ?? []).filter((b) => b?.type === "text" && !b.attached).map((b) => b.text).join("\n");
    if (text.trim() && out[out.length - 1] !== text) out.push(text);
  }
  return out;
}

export class Recall {
  /** @param {() => string[]} texts sent texts, oldest first (read on every key) */
  constructor(texts) {
    this.texts = texts;
    this.index = -1; // -1: not recalling; else an index into texts()
    this.shown = null;
  }

  /** Whether `value` is still what the last recall put in the box (not edited since). */
  recalling(value) {
    return this.index >= 0 && value === this.shown;
  }

  /** ArrowUp: the previous text, or null when there is none (the key does what it would). */
  up(value) {
    const list = this.texts();
    if (value !== "" && !this.recalling(value)) return null;
    const next = this.recalling(value) ? this.index - 1 : list.length - 1;
    if (next < 0 || next >= list.length) return null;
    this.index = next;
    this.shown = list[next];
    return this.shown;
  }

  /** ArrowDown while recalling: the next newer text, then "" (null: not recalling). */
  down(value) {
    if (!this.recalling(value)) return null;
    const list = this.texts();
    this.index += 1;
    if (this.index >= list.length) {
      this.reset();
      return "";
    }
    this.shown = list[this.index];
    return this.shown;
  }

  reset() {
    this.index = -1;
    this.shown = null;
  }
}

/**
 * Where "Edit and resend" forks for the user message at `seq`: the seq of the last turn/end
 * before it in `events` (a contiguous run). `{at: seq}`, `{at: null}` when the message is in the
 * session's first turn (nothing before it: a new session instead), or `{more: true}` when older
 * events must be loaded first.
 */
export function forkPointBefore(events, seq, hasMore) {
  for (let i = events.length - 1; i >= 0; i--) {
    const ev = events[i];
    if (ev.seq < seq && ev.type === "turn/end") return { at: ev.seq };
  }
  return hasMore ? { more: true } : { at: null };
}
