// The transcript's window fill (webui/js/views/transcript-fill.js): one frame builds rows for at
// most one budget, both edges together, and at least one row on a near edge so the window keeps
// growing however slow a row is (docs/decisions/cheap-scroll-frames.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import { WindowFill } from "../../webui/js/views/transcript-fill.js";

const ROW_MS = 3; // what building one row costs on the fake clock

/** A view of `items` rows holding [start, end), both sentinels on screen (both edges near). */
function fakeView(items, start, end) {
  let now = 0;
  const built = [];
  const box = (top, bottom) => ({ getBoundingClientRect: () => ({ top, bottom }) });
  const view = {
    session: {},
    revealing: false,
    items: Array.from({ length: items }, (_, i) => ({ id: `r${i}` })),
    start,
    end,
    scroller: { scrollHeight: 1000, scrollTop: 500, getBoundingClientRect: () => ({ top: 0, bottom: 800 }) },
    top: box(100, 101),
    bottom: box(700, 701),
    renderRange(from, to, side) {
      now += ROW_MS;
      built.push([from, side]);
      if (side === "start") view.start = from;
      else view.end = to;
    },
    trim() {},
    updateJump() {},
    updateOlder() {},
    showOlder() {},
    loadNewerNear() {},
  };
  return { view, built, clock: () => now };
}

function withClock(clock, fn) {
  const real = globalThis.performance.now;
  const raf = globalThis.requestAnimationFrame;
  globalThis.performance.now = clock;
  globalThis.requestAnimationFrame = () => 1; // the next frame is asked for, not run here
  try {
    fn();
  } finally {
    globalThis.performance.now = real;
    globalThis.requestAnimationFrame = raf;
  }
}

test("a frame with both edges near builds rows for one budget, not one per edge", () => {
  const { view, built, clock } = fakeView(400, 200, 260);
  withClock(clock, () => new WindowFill(view).step());
  const older = built.filter(([, side]) => side === "start").length;
  const newer = built.filter(([, side]) => side === "end").length;
  // 4 ms at 3 ms a row: two older rows use the budget up; the bottom edge still gets its one row
  assert.equal(older, 2);
  assert.equal(newer, 1);
  assert.ok(clock() <= 3 * ROW_MS, `${clock()} ms of rows in one frame`);
});

test("a near edge gets at least one row even when one row costs more than the budget", () => {
  const { view, built, clock } = fakeView(400, 200, 400);
  view.renderRange = ((inner) =>
    function (...args) {
      inner(...args);
      inner.call(view, ...args); // 6 ms a row
      built.pop();
    })(view.renderRange);
  withClock(clock, () => new WindowFill(view).step());
  assert.deepEqual(built, [[199, "start"]]);
});

test("older() and newer() called on their own (the load-older button) still build within a budget", () => {
  const { view, built, clock } = fakeView(400, 200, 260);
  withClock(clock, () => {
    const fill = new WindowFill(view);
    assert.equal(fill.older(), true);
    assert.equal(built.length, 2);
  });
});
