// The transcript's window fill (webui/js/views/transcript-fill.js): one frame builds rows for at
// most one budget, both edges together, and at least one row on a near edge so the window keeps
// growing however slow a row is (docs/decisions/cheap-scroll-frames.md); between frames, idle time
// builds the rows an edge will need next (docs/decisions/rows-built-between-frames.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import { WindowFill } from "../../webui/js/views/transcript-fill.js";

const ROW_MS = 3; // what building one row costs on the fake clock

/** A view of `items` rows holding [start, end), both sentinels on screen (both edges near), or
 * each `away` px beyond the visible part (0..800) of the log. */
function fakeView(items, start, end, away = null) {
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
    top: away === null ? box(100, 101) : box(-away - 1, -away),
    bottom: away === null ? box(700, 701) : box(800 + away, 801 + away),
    rows: {
      get offsetHeight() {
        view.laidOut = built.length; // what was built when layout was asked for
        return 0;
      },
    },
    older: 0,
    showOlder() {
      view.older++;
    },
    renderRange(from, to, side) {
      now += ROW_MS;
      built.push([from, side]);
      if (side === "start") view.start = from;
      else view.end = to;
    },
    trim() {},
    updateJump() {},
    updateOlder() {},
    loadNewerNear() {},
    pinned: false,
    isPinned: () => view.pinned,
  };
  return { view, built, clock: () => now };
}

/** Run `fn` on the fake clock; frames and idle periods asked for are counted, not run. */
function withClock(clock, fn) {
  const real = globalThis.performance.now;
  const raf = globalThis.requestAnimationFrame;
  const asked = { frames: 0, idle: 0 };
  globalThis.performance.now = clock;
  globalThis.requestAnimationFrame = () => ++asked.frames;
  globalThis.requestIdleCallback = () => ++asked.idle;
  try {
    fn();
  } finally {
    globalThis.performance.now = real;
    globalThis.requestAnimationFrame = raf;
    delete globalThis.requestIdleCallback;
  }
  return asked;
}

/** An idle period with `ms` left. */
const idleFor = (ms) => ({ timeRemaining: () => ms, didTimeout: false });

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

test("a frame asks for idle time to build ahead, and builds nothing while the edges are far", () => {
  const { view, built, clock } = fakeView(400, 200, 260, 1500);
  const asked = withClock(clock, () => new WindowFill(view).step());
  assert.equal(built.length, 0, "no row built in the frame: both edges are beyond NEAR_PX");
  assert.equal(asked.idle, 1);
});

test("idle time builds the rows of an edge within reach, for one slice, and lays them out there", () => {
  const { view, built, clock } = fakeView(400, 200, 260, 1500);
  view.start = 0; // only the bottom edge has rows left to build
  const asked = withClock(clock, () => new WindowFill(view).ahead(idleFor(50)));
  // 4 ms a slice at 3 ms a row, however much idle time the browser offers
  assert.deepEqual(built, [[260, "end"], [261, "end"]]);
  assert.equal(view.laidOut, 2, "the new rows are laid out in the idle slice, not the next frame");
  assert.equal(asked.idle, 1, "the next slice goes on while the edge is within reach");
});

test("an idle slice prefers the older edge and stays within what the browser offers", () => {
  const { view, built, clock } = fakeView(400, 200, 260, 1500);
  withClock(clock, () => new WindowFill(view).ahead(idleFor(2)));
  assert.deepEqual(built, [[199, "start"]]);
});

test("no idle time left, a jump on its way, fold changes not yet drawn, or both edges out of reach: nothing is built", () => {
  const cases = [[1500, false, 0, 0], [1500, true, 50, 0], [1500, false, 50, 7], [5000, false, 50, 0]];
  for (const [away, revealing, left, frame] of cases) {
    const { view, built, clock } = fakeView(400, 200, 260, away);
    view.revealing = revealing;
    view.frame = frame; // the view's flush of fold changes, asked for and not yet run
    const asked = withClock(clock, () => new WindowFill(view).ahead(idleFor(left)));
    assert.equal(built.length, 0, `away ${away}, revealing ${revealing}, ${left} ms left, frame ${frame}`);
    assert.equal(asked.idle, 0);
  }
});

test("at the fold's first row idle time builds nothing and asks the host for nothing", () => {
  const { view, built, clock } = fakeView(400, 0, 400, 1500);
  const asked = withClock(clock, () => new WindowFill(view).ahead(idleFor(50)));
  assert.equal(built.length, 0);
  assert.equal(view.older, 0, "an older page is the frame's fill's to ask for (step)");
  assert.equal(asked.idle, 0);
});

test("without requestIdleCallback (WebKitGTK) the slice is the first task after the frame", async () => {
  const { view, built } = fakeView(400, 0, 260, 1500);
  const fill = new WindowFill(view);
  fill.later();
  fill.later(); // asked twice, run once
  await new Promise((r) => setTimeout(r, 5));
  assert.ok(built.length >= 1 && built.every(([, side]) => side === "end"), JSON.stringify(built));
  fill.cancel();
});

test("while the view follows the stream, idle time builds no older rows (they could trim the newest)", () => {
  const { view, built, clock } = fakeView(400, 200, 400, 1500);
  view.pinned = true;
  const asked = withClock(clock, () => new WindowFill(view).ahead(idleFor(50)));
  assert.equal(built.length, 0);
  assert.equal(asked.idle, 0);
});
