// The row at the top of the log, found by halving (webui/js/views/row-at.js): the same row a scan
// of every row's box finds, rows not rendered stepped over, with few boxes read.
import { test } from "node:test";
import assert from "node:assert/strict";
import { firstRowBelow } from "../../webui/js/views/row-at.js";

/** Rows of the given heights stacked from y = 0 (height 0: not rendered, box at 0,0; `hidden`:
 * display: none as well, whatever its height says). */
function rows(heights, hidden = new Set()) {
  let y = 0;
  let reads = 0;
  const children = heights.map((height, i) => {
    const top = y;
    if (height) y += height;
    const box = height && !hidden.has(i) ? { top, bottom: top + height, width: 100, height } : { top: 0, bottom: 0, width: 0, height: 0 };
    return { i, getBoundingClientRect: () => (reads++, box) };
  });
  return { parent: { children }, reads: () => reads };
}

/** What a scan of every row gives: the first shown row whose bottom is below y. */
function scan(children, y) {
  for (const node of children) {
    const box = node.getBoundingClientRect();
    if ((box.width || box.height) && box.bottom > y) return node;
  }
  return null;
}

test("the first row below a line is the one a scan of all rows finds", () => {
  const heights = Array.from({ length: 97 }, (_, i) => (i % 7 === 3 ? 0 : 20 + ((i * 37) % 90)));
  const hidden = new Set([10, 11, 50, 96]);
  const { parent } = rows(heights, hidden);
  for (let y = -5; y < 6000; y += 13) assert.equal(firstRowBelow(parent, y), scan(parent.children, y), `y ${y}`);
});

test("none below the last row, the first row above the first", () => {
  const { parent } = rows([10, 10, 10]);
  assert.equal(firstRowBelow(parent, 30), null);
  assert.equal(firstRowBelow(parent, -1).i, 0);
  assert.equal(firstRowBelow({ children: [] }, 0), null);
  const blank = rows([0, 0], new Set([0]));
  assert.equal(firstRowBelow(blank.parent, -1), null);
});

test("a long window reads a handful of boxes, not all of them", () => {
  const t = rows(Array.from({ length: 160 }, () => 50));
  assert.equal(firstRowBelow(t.parent, 4000).i, 80);
  assert.ok(t.reads() <= 10, `${t.reads()} boxes read`);
});
