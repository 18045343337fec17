import { test } from "node:test";
import assert from "node:assert/strict";
import { Session } from "../../webui/js/state/session.js";
import { SessionFold } from "../../webui/js/state/fold.js";
import { ev, sampleLog, historyPage, flush } from "./helpers.mjs";

/** A fake client whose session.history serves `host.log` and can be held/released. */
function fakeHost(log) {
  const host = {
    log,
    calls: [],
    hold: false,
    waiting: [],
    call(method, payload) {
      assert.equal(method, "session.history");
      host.calls.push(payload);
      const answer = () => ({ ok: true, value: historyPage(host.log, payload) });
      if (!host.hold) return Promise.resolve(answer());
      return new Promise((resolve) => host.waiting.push(() => resolve(answer())));
    },
    release() {
      const w = host.waiting.splice(0);
      for (const f of w) f();
    },
  };
  return host;
}

const seqs = (s) => s.events.map((e) => e.seq);
const fullSnapshot = (events) => new SessionFold().applyAll(events).snapshot();

test("open = tail page while live frames are buffered, stitched by seq", async () => {
  const log = sampleLog();
  const host = fakeHost(log.slice(0, 20));
  host.hold = true;
  const s = new Session({ sessionId: "s1", client: host, maxMessages: 50 });
  const opening = s.open();
  // live events arrive while history is in flight: 18,19 overlap the tail, 20.. are new
  for (const e of log.slice(18, 25)) s.acceptLive(e);
  assert.equal(s.buffering, true);
  host.release();
  await opening;
  assert.equal(s.buffering, false);
  assert.deepEqual(seqs(s), log.slice(0, 25).map((e) => e.seq));
  assert.deepEqual(s.fold.snapshot(), fullSnapshot(log.slice(0, 25)));
  assert.equal(host.calls.length, 1);
});

test("subscribed.lastSeq beyond the tail's last seq → the tail is pulled again", async () => {
  const log = sampleLog();
  const host = fakeHost(log.slice(0, 10));
  host.hold = true;
  const s = new Session({ sessionId: "s1", client: host });
  const opening = s.open();
  s.onSubscribed(14); // the host already has up to 14, our in-flight tail will stop at 9
  host.release();
  host.log = log.slice(0, 15); // by the second pull the tail reaches 14
  host.hold = false;
  await opening;
  assert.equal(host.calls.length, 2);
  assert.equal(s.lastSeq, 14);
  assert.deepEqual(s.fold.snapshot(), fullSnapshot(log.slice(0, 15)));
});

test("a live seq that skips ahead → re-pull; the result is contiguous", async () => {
  const log = sampleLog();
  const host = fakeHost(log.slice(0, 10));
  const s = new Session({ sessionId: "s1", client: host });
  await s.open();
  s.acceptLive(log[10]);
  assert.equal(s.lastSeq, 10);
  host.log = log.slice(0, 16);
  s.acceptLive(log[15]); // 11..14 were missed
  await flush();
  assert.equal(host.calls.length, 2);
  assert.deepEqual(seqs(s), log.slice(0, 16).map((e) => e.seq));
  assert.deepEqual(s.fold.snapshot(), fullSnapshot(log.slice(0, 16)));
  // duplicates and stale frames are ignored
  s.acceptLive(log[12]);
  assert.equal(s.lastSeq, 15);
});

test("load older pages by beforeSeq and joins contiguously, until hasMore is false", async () => {
  const log = sampleLog();
  const host = fakeHost(log);
  const s = new Session({ sessionId: "s1", client: host, maxMessages: 1 });
  await s.open();
  assert.equal(s.hasMore, true);
  let guard = 0;
  while (s.hasMore && guard++ < 50) {
    const before = s.firstSeq;
    assert.equal(await s.loadOlder(), true);
    assert.equal(host.calls.at(-1).beforeSeq, before);
    assert.equal(s.events.at(-1).seq, log.at(-1).seq);
    for (let i = 1; i < s.events.length; i++) assert.equal(s.events[i].seq, s.events[i - 1].seq + 1);
  }
  assert.equal(s.hasMore, false);
  assert.equal(s.firstSeq, 0);
  assert.deepEqual(s.fold.snapshot(), fullSnapshot(log));
});

test("an older page that does not join is refused", async () => {
  const log = sampleLog();
  const s = new Session({
    sessionId: "s1",
    client: {
      call(_m, p) {
        if (p.beforeSeq === undefined) return Promise.resolve({ ok: true, value: { events: log.slice(20).map((event) => ({ event })), hasMore: true } });
        return Promise.resolve({ ok: true, value: { events: log.slice(5, 18).map((event) => ({ event })), hasMore: true } }); // 18,19 missing
      },
    },
  });
  await s.open();
  assert.equal(await s.loadOlder(), false);
  assert.equal(s.firstSeq, 20);
  assert.equal(s.error.code, "history-gap");
});

test("reopen after a reconnect keeps loaded older pages when the new tail joins", async () => {
  const log = sampleLog();
  const host = fakeHost(log.slice(0, log.length - 3));
  const s = new Session({ sessionId: "s1", client: host, maxMessages: 1 });
  await s.open();
  await s.loadOlder();
  const first = s.firstSeq;
  host.log = log;
  await s.reopen();
  assert.equal(s.firstSeq, first);
  assert.equal(s.lastSeq, log.length - 1);
  assert.deepEqual(s.fold.snapshot(), fullSnapshot(log.slice(first)));
});

test("ops: a reset after the tail, then single-row updates for live chunks", async () => {
  const host = fakeHost([ev(0, "turn/start", { turn: 0, trigger: "user" })]);
  const s = new Session({ sessionId: "s1", client: host });
  const seen = [];
  s.on("ops", (ops) => seen.push(ops));
  await s.open();
  assert.deepEqual(seen.shift(), [{ op: "reset" }]);
  s.acceptLive(ev(1, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "text-delta", index: 0, text: "a" } }));
  s.acceptLive(ev(2, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "text-delta", index: 0, text: "b" } }));
  assert.deepEqual(seen, [[{ op: "add", id: "a:0:0" }], [{ op: "update", id: "a:0:0" }]]);
});

test("projections keep the highest seq", () => {
  const s = new Session({ sessionId: "s1", client: null });
  assert.equal(s.onProjection("title", "B", 5), true);
  assert.equal(s.onProjection("title", "A", 3), false);
  assert.equal(s.title, "B");
  assert.equal(s.onProjection("title", "C", 9), true);
  assert.equal(s.title, "C");
});
