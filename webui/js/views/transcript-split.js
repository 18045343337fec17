// Where a streaming markdown text can be cut so that the part before the cut renders the same
// alone as within the whole (transcript-stream.js renders that part once and keeps it): after a
// blank line outside a code fence. Pure, so tests/js/ runs it without a DOM.

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})\s*$/;

/**
 * One pass over `text` from `from` (itself a cut, or 0): `closed`, the end of its closed part,
 * just after the last blank line outside a code fence (the last line is never closed: it grows);
 * and `open`, whether it ends inside a code fence (a code block still streaming). `open` is the
 * same from any cut, so the tail after `closed` has it too.
 */
export function cutOf(text, from) {
  let fence = null;
  let safe = from;
  for (let at = from; ; ) {
    const nl = text.indexOf("\n", at);
    if (nl < 0) return { closed: safe, open: fence !== null };
    const line = text.slice(at, nl);
    if (fence) {
      const m = FENCE_CLOSE.exec(line);
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length) fence = null;
    } else {
      const m = FENCE_OPEN.exec(line);
      if (m) fence = m[1];
      else if (line.trim() === "") safe = nl + 1;
    }
    at = nl + 1;
  }
}

/** Whether `text` (from `from`, a boundary) ends inside a code fence: a code block still streaming. */
export function endsInOpenFence(text, from = 0) {
  return cutOf(text, from).open;
}

