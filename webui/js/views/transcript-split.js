// Where a streaming markdown text can be cut so that the part before the cut renders the same
// alone as within the whole (transcript-stream.js renders that part once and keeps it): after a
// blank line outside a code fence. Pure, so tests/js/ runs it without a DOM.

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})\s*$/;

/** The closed part's end (see closedUpTo) and the fence still open at the end of `text`, if any. */
function scan(text, from) {
  let fence = null;
  let safe = from;
  for (let at = from; ; ) {
    const nl = text.indexOf("\n", at);
    if (nl < 0) return { safe, fence };
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

/**
 * The end of the closed part of `text`: just after the last blank line outside a code fence,
 * scanning from `from` (itself such a boundary, or 0). The last line is never closed (it grows).
 */
export function closedUpTo(text, from) {
  return scan(text, from).safe;
}

/** Whether `text` (from `from`, a boundary) ends inside a code fence: a code block still streaming. */
export function endsInOpenFence(text, from = 0) {
  return scan(text, from).fence !== null;
}

