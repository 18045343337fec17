// The streaming tail of an assistant's text block (docs/decisions.md, "Token to pixel"):
// - a delta's text is in the DOM as soon as it arrives (appendLive: a text node appended where
//   the text continues, no wait for the next frame);
// - markdown is parsed incrementally (renderStreaming, once per frame): the paragraphs a blank
//   line closed (outside a code fence) are rendered once and kept; only the open part (the tail)
//   is rendered again, and less often when rendering it is slow; a code block still open is
//   shown without highlighting, which waits for its fence to close;
// - when the block settles, rows.js renders the whole text once (settle), so the final DOM is
//   exactly what one parse of the whole text gives.

import { h } from "./dom.js";
import { renderMarkdownInto } from "./markdown.js";
import { cutOf, endsInOpenFence } from "./transcript-split.js";

const INTO = new Set(["P", "DIV", "PRE", "CODE", "UL", "OL", "LI", "BLOCKQUOTE", "H1", "H2", "H3", "H4", "H5", "H6"]);
const TAIL_SHARE = 8; // a tail that took t ms to render waits ≥ TAIL_SHARE·t before the next

/** Where appended text continues: the deepest last block element of the tail. */
function continuation(tail) {
  let el = tail;
  while (el.lastChild && el.lastChild.nodeType === 1 && INTO.has(el.lastChild.tagName)) el = el.lastChild;
  return el;
}

function start(node) {
  node.textContent = "";
  const tail = h("div", { class: "md-tail" });
  node.append(tail);
  return { done: 0, tail, shown: 0, text: "", cost: 0, nextAt: 0, timer: 0 };
}

/** `open`: the text ends inside a code fence (the caller may know it already, from cutOf). */
function renderTail(s, text, open = endsInOpenFence(text, s.done)) {
  clearTimeout(s.timer);
  s.timer = 0;
  const t0 = performance.now();
  // a code block still streaming is shown plain, and highlighted once its fence closes
  // (docs/decisions/markdown-in-the-window.md)
  renderMarkdownInto(s.tail, text.slice(s.done), { highlight: !open });
  s.shown = text.length;
  s.text = text;
  s.cost = performance.now() - t0;
  s.nextAt = t0 + s.cost * (TAIL_SHARE + 1);
}

/**
 * One frame of a partial text block: render what newly closed, and the tail (unless the last
 * tail render was slow and recent: then later, on a timer, while the raw text shows meanwhile).
 * `entry` is rows.js's block entry ({node, stream}); `text` the block's text so far.
 */
export function renderStreaming(entry, text) {
  const s = entry.stream ?? (entry.stream = start(entry.node));
  // An older state of the same stream (a delta already appended more, live): the DOM is ahead;
  // rendering this would take text away for a frame.
  if (text.length < s.shown && s.text.startsWith(text)) return;
  if (text.length < s.shown || text.length < s.done) {
    settle(entry, text); // not an append (replaced): render it whole
    return;
  }
  // where the text can be cut, and whether it ends in an open fence (the same from any cut)
  const { closed, open } = cutOf(text, s.done);
  if (closed > s.done) {
    const chunk = renderMarkdownInto(document.createElement("div"), text.slice(s.done, closed));
    s.tail.before(...chunk.childNodes);
    s.done = closed;
    renderTail(s, text, open);
    return;
  }
  const now = performance.now();
  if (now >= s.nextAt) renderTail(s, text, open);
  else if (!s.timer) {
    s.timer = setTimeout(() => {
      s.timer = 0;
      if (entry.stream === s) renderTail(s, entry.latest ?? text);
    }, s.nextAt - now);
  }
}

/** The settled block: one parse of the whole text, the streaming state dropped. */
export function settle(entry, text) {
  if (entry.stream) clearTimeout(entry.stream.timer);
  entry.stream = null;
  renderMarkdownInto(entry.node, text, { cache: true });
}

/**
 * A delta arrived: put the text not yet shown into the DOM now, where it continues (the frame's
 * renderStreaming then gives it its markdown). Only for a block already streaming in `el`.
 */
export function appendLive(el, item) {
  if (!el._blocks || !item.partial) return;
  for (const b of item.blocks) {
    if (!b.partial) continue;
    const entry = el._blocks.get(String(b.index));
    if (!entry || entry.type !== b.type) continue;
    entry.latest = b.text;
    if (b.type === "reasoning") {
      const body = entry.node._body;
      const shown = entry.text?.length ?? 0;
      if (entry.text !== null && b.text.length > shown && body.firstChild?.nodeType === 3 && body.childNodes.length === 1) {
        body.firstChild.appendData(b.text.slice(shown));
        entry.text = b.text;
      }
      continue;
    }
    const s = entry.stream;
    if (!s || b.text.length <= s.shown) continue;
    continuation(s.tail).append(b.text.slice(s.shown));
    s.shown = b.text.length;
    s.text = b.text;
  }
}
