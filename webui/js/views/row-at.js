// The first row of the log whose bottom is below a line on screen, found by halving rather than
// by measuring every row: rows stand in DOM order from top to bottom, so their boxes are sorted.
// A row not rendered (display: none: an assistant message with nothing shown yet, a folded row)
// has an empty box at 0,0 and is stepped over. Called once per frame while scrolling (the
// session rail), so it reads a handful of boxes, not all of the window's
// (docs/decisions/scroll-frames.md).

/** A shown row at or after index `i` of `rows` (an HTMLCollection), with its box; null if none. */
function shownFrom(rows, i, end) {
  for (; i < end; i++) {
    const node = rows[i];
    const box = node.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue; // not rendered (display: none by a class)
    return { i, node, box };
  }
  return null;
}

/** The first shown row in `parent` whose bottom is more than `y` (client px), or null. */
export function firstRowBelow(parent, y) {
  const rows = parent.children;
  let lo = 0;
  let hi = rows.length; // the answer's index is in [lo, hi); hi = none found yet
  let found = null;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = shownFrom(rows, mid, hi);
    if (!at) {
      hi = mid; // nothing shown in [mid, hi): the answer is before mid
      continue;
    }
    if (at.box.bottom > y) {
      found = at.node;
      hi = mid;
    } else lo = at.i + 1;
  }
  return found;
}
