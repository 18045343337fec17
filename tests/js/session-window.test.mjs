// A search hit far up: the Session holds a page around it (detached from the tail), pages forward
// until the log's end and then joins the tail; live frames wait while detached.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Session, messagesToReach } from "../../webui/js/state/session.js";
import { SessionFold } from "../../webui/js/state/fold.js";
import { ev, historyPage } from "./helpers.mjs";

/** `turns` turns of six events: turn/start, question, answer, tool call, result, turn/end. */
function longLog(turns) {
  const L = [];
  const push = (type, data) => L.push(ev(L.length, type, data));
  for (let t = 0; t < turns; t++) {
    push("turn/start", { turn: t, trigger: "user" });
    push("user/message", { id: `u${t}`, role: "user", content: [{ type: "text", text: `question ${t}` }], source: { kind: "user", rpcId: `r${t}` } });
    const call = { type: "tool-call", id: `c${t}`, name: "bash", arguments: "{}" };
    push("assistant/message", { turn: t, step: 0, message: { id: `a${t}`, role: "assistant", content: [{ type: "text", text: `answer ${t}` }, call], source: { kind: "model" } } });
    push("tool/call", { turn: t, step: 0, callId: `c${t}`, name: "bash", arguments: "{}" });
    push("tool/result", { turn: t, step: 0, message: { id: `r${t}`, role: "tool", content: [{ type: "tool-result", toolCallId: `c${t}`, content: "ok" }], source: { kind: "tool", callId: `c${t}` } } });
    push("turn/end", { turn: t, reason: { kind: "completed" } });
  }
  return L;
}

function host(log) {
  const h = {
    log,
    calls: [],
    call(method, payload) {
      assert.equal(method, "session.history");
      h.calls.push(payload);
      return Promise.resolve({ ok: true, value: historyPage(h.log, payload) });
    },
  };
  return h;
}

const snapshot = (events) => new SessionFold().applyAll(events).snapshot();

test("loadAround holds a page around an early hit, not everything down to the tail", async () => {
  const log = longLog(2_000);
  const h = host(log);
  const s = new Session({ sessionId: "s", client: h });
  await s.open();
  const hit = 6 * 10 + 1; // turn 10's question
  assert.ok(s.firstSeq > hit);
  assert.equal(await s.loadAround(hit), true);
  assert.ok(s.detached);
  assert.ok(s.firstSeq <= hit && s.lastSeq > hit && s.events.length < 400, `${s.firstSeq}..${s.lastSeq}`);
  assert.deepEqual(s.fold.snapshot(), snapshot(log.slice(s.firstSeq, s.lastSeq + 1)));
  assert.equal(h.calls.length, 2);
  // live frames are not held while detached (nor do they re-pull the tail)
  const live = ev(log.length, "turn/start", { turn: 2_000, trigger: "user" });
  h.log = log.concat([live]);
  s.acceptLive(live);
  s.onSubscribed(live.seq);
  assert.equal(h.calls.length, 2);
  assert.ok(s.lastSeq < log.length - 1);
});

test("loadNewer pages forward contiguously and joins the tail at the log's end", async () => {
  const log = longLog(300);
  const h = host(log);
  const s = new Session({ sessionId: "s", client: h });
  await s.open();
  await s.loadAround(6 * 200 + 1);
  const first = s.firstSeq;
  let pages = 0;
  while (s.detached && pages < 50) {
    assert.equal(await s.loadNewer(), true);
    pages++;
  }
  await s.pulling;
  assert.equal(s.detached, false);
  assert.ok(pages > 1, `${pages} forward pages`);
  assert.equal(s.firstSeq, first);
  assert.equal(s.lastSeq, log.length - 1);
  assert.deepEqual(s.fold.snapshot(), snapshot(log.slice(first)));
  // attached again: live frames append
  const live = ev(log.length, "turn/start", { turn: 300, trigger: "user" });
  s.acceptLive(live);
  assert.equal(s.lastSeq, live.seq);
});

test("pullTail (Latest, a reconnect) re-attaches a detached session to the tail", async () => {
  const log = longLog(500);
  const s = new Session({ sessionId: "s", client: host(log) });
  await s.open();
  await s.loadAround(7);
  assert.ok(s.detached && s.lastSeq < 400);
  await s.pullTail();
  assert.equal(s.detached, false);
  assert.equal(s.lastSeq, log.length - 1);
});

test("a hit in the last page's reach does not detach", async () => {
  const log = longLog(10);
  const s = new Session({ sessionId: "s", client: host(log) });
  await s.open();
  assert.equal(s.firstSeq, 0);
  assert.equal(s.hasMore, false);
  assert.equal(messagesToReach(s.events, 5, 50), 50);
});

test("messagesToReach sizes one page from the counted share of the held run", () => {
  const log = longLog(100); // 2 counted messages per 6 events
  const held = log.slice(300);
  const want = messagesToReach(held, 0, 50);
  assert.equal(want, Math.ceil(300 * (2 / 6) * 1.25) + 50);
  const page = historyPage(log, { beforeSeq: 300, maxMessages: want });
  assert.equal(page.events[0].event.seq, 0); // one page reaches the hit
  assert.equal(messagesToReach(held, 0, 50, 120), 120);
});

test("endSeq keeps the session's end while a detached run is held (the session rail's scale)", async () => {
  const log = longLog(500);
  const h = host(log);
  const s = new Session({ sessionId: "s", client: h });
  await s.open();
  assert.equal(s.endSeq, log.length - 1); // the tail held: its last event
  await s.loadAround(6 * 3 + 1);
  assert.ok(s.detached && s.lastSeq < log.length - 1);
  assert.equal(s.endSeq, log.length - 1); // still the session's end, not the run's
  const live = ev(log.length, "turn/start", { turn: 500, trigger: "user" });
  h.log = log.concat([live]);
  s.acceptLive(live); // not held while detached, but the end moved
  assert.equal(s.endSeq, log.length);
  assert.ok(s.lastSeq < log.length - 1);
});

test("a tail pull that fails leaves a detached window detached, and the next one joins", async () => {
  const log = longLog(2_000);
  const h = host(log);
  const s = new Session({ sessionId: "s", client: h });
  await s.open();
  await s.loadAround(6 * 10 + 1);
  const held = [s.firstSeq, s.lastSeq];
  const answer = h.call;
  h.call = () => Promise.resolve({ ok: false, error: { code: "storage-error", message: "the database did not answer" } });
  await s.pullTail(); // "Latest" on a busy machine: the host could not answer
  assert.equal(s.error?.code, "storage-error");
  assert.equal(s.detached, true, "what is held is still a run away from the log's end");
  assert.deepEqual([s.firstSeq, s.lastSeq], held);
  h.call = answer;
  await s.pullTail();
  assert.equal(s.error, null);
  assert.equal(s.detached, false);
  assert.equal(s.lastSeq, log.length - 1);
});
