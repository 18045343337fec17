import { test } from "node:test";
import assert from "node:assert/strict";
import { Backoff } from "../../webui/js/state/backoff.js";
import { ConnectionController } from "../../webui/js/state/connection.js";
import { TransportError, transportResult } from "../../webui/js/client/errors.js";
import { fakeTimers, flush, controlledStream } from "./helpers.mjs";

test("backoff: ceilings 0.5 s ×2 capped at 10 s", () => {
  const b = new Backoff();
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 10].map((n) => b.ceiling(n)), [500, 1000, 2000, 4000, 8000, 10000, 10000, 10000]);
});

test("backoff: jitter stays within [ceiling/2, ceiling], both ends reachable", () => {
  for (const r of [0, 0.25, 0.5, 0.999, 1]) {
    const b = new Backoff({ random: () => r });
    for (let n = 0; n < 12; n++) {
      const c = b.ceiling(n);
      const d = b.next();
      assert.ok(d >= c / 2 && d <= c, `attempt ${n}: ${d} not in [${c / 2}, ${c}]`);
    }
  }
  assert.equal(new Backoff({ random: () => 0 }).next(), 250);
  assert.equal(new Backoff({ random: () => 1 }).next(), 500);
});

test("backoff: never exceeds the cap; reset starts again at the base", () => {
  const b = new Backoff({ random: () => 1 });
  const seq = Array.from({ length: 8 }, () => b.next());
  assert.deepEqual(seq, [500, 1000, 2000, 4000, 8000, 10000, 10000, 10000]);
  b.reset();
  assert.equal(b.next(), 500);
});

/** A fake client whose streams and describe are controlled by the test. */
function fakeClient() {
  const c = {
    opened: [],
    describeOk: true,
    failStreams: false,
    hostFailed: null, // a reason: every call fails as the desktop carrier answers a host that could not start
    attempts: 0,
    async stream(key, { signal, onActivity }) {
      c.attempts++;
      if (c.hostFailed) throw new TransportError("http", `${key}: HTTP 503 ${c.hostFailed}`, { status: 503, hostFailed: true, detail: c.hostFailed });
      if (c.failStreams) throw new Error("connection refused");
      const s = controlledStream();
      s.key = key;
      s.onActivity = onActivity;
      signal.addEventListener("abort", () => s.close(), { once: true });
      c.opened.push(s);
      return s;
    },
    async call(method) {
      assert.equal(method, "host.describe");
      if (c.failStreams) throw new Error("connection refused");
      return c.describeOk ? { ok: true, value: { version: "1", hostInstanceId: "h" } } : { ok: false, error: { code: "internal", message: "x", details: {} } };
    },
    live(key) {
      return c.opened.filter((s) => s.key === key && !s.closedByClient).at(-1);
    },
  };
  return c;
}

function setup(random = () => 0.5) {
  const timers = fakeTimers(1000);
  const client = fakeClient();
  const conn = new ConnectionController({ client, timers, random });
  const states = [];
  conn.on("status", (s) => states.push(s.state));
  let connects = 0;
  conn.on("connected", () => connects++);
  return { timers, client, conn, states, connects: () => connects };
}

test("connected only after both streams opened and describe succeeded", async () => {
  const { client, conn, states, connects } = setup();
  conn.start();
  assert.equal(conn.status.state, "connecting");
  await flush();
  assert.equal(conn.status.state, "connected");
  assert.equal(connects(), 1);
  assert.equal(client.opened.length, 2);
  assert.deepEqual(states, ["connecting", "connected"]);
});

test("a stream end → reconnecting with a jittered delay, then rebuild on success", async () => {
  const { client, conn, timers, connects } = setup(() => 0.5);
  conn.start();
  await flush();
  client.live("events.mux").end();
  await flush();
  assert.equal(conn.status.state, "reconnecting");
  assert.equal(conn.status.retryAt - timers.now(), 375); // ceiling 500, jitter 0.5 → 375
  assert.ok(client.opened.every((s) => s.closedByClient || s.key === "events.mux"), "the other stream was closed");
  timers.advance(374);
  await flush();
  assert.equal(client.opened.length, 2, "not yet");
  timers.advance(1);
  await flush();
  assert.equal(conn.status.state, "connected");
  assert.equal(connects(), 2);
});

test("stream/error and a thrown stream both reconnect", async () => {
  const { client, conn, timers } = setup();
  conn.start();
  await flush();
  client.live("events.host").push({ type: "server-request", rpcId: "x", method: "stream/error", payload: { type: "stream/error", error: { code: "internal", message: "slow", details: {} } } });
  await flush();
  assert.equal(conn.status.state, "reconnecting");
  assert.match(conn.status.error, /slow/);
  timers.advance(1000);
  await flush();
  assert.equal(conn.status.state, "connected");
  client.live("events.mux").fail(new Error("reset"));
  await flush();
  assert.equal(conn.status.state, "reconnecting");
});

test("backoff grows while failing, marks unreachable, and resets after a success", async () => {
  const { client, conn, timers } = setup(() => 1);
  client.failStreams = true;
  conn.start();
  await flush();
  const delays = [];
  for (let i = 0; i < 7; i++) {
    assert.equal(conn.status.state, "reconnecting");
    const d = conn.status.retryAt - timers.now();
    delays.push(d);
    timers.advance(d);
    await flush();
  }
  assert.deepEqual(delays, [500, 1000, 2000, 4000, 8000, 10000, 10000]);
  assert.equal(conn.status.unreachable, true);
  client.failStreams = false;
  timers.advance(conn.status.retryAt - timers.now());
  await flush();
  assert.equal(conn.status.state, "connected");
  assert.equal(conn.status.unreachable, false);
  client.live("events.mux").end();
  await flush();
  assert.equal(conn.status.retryAt - timers.now(), 500, "backoff was reset by the success");
});

test("retryNow skips the countdown", async () => {
  const { client, conn, timers } = setup(() => 1);
  client.failStreams = true;
  conn.start();
  await flush();
  timers.advance(500);
  await flush();
  assert.equal(conn.status.retryAt - timers.now(), 1000);
  client.failStreams = false;
  conn.retryNow();
  await flush();
  assert.equal(conn.status.state, "connected");
});

test("heartbeat watchdog: no bytes for 45 s → reconnect; heartbeats keep it alive", async () => {
  const { client, conn, timers } = setup();
  conn.start();
  await flush();
  for (let i = 0; i < 6; i++) {
    timers.advance(15_000);
    for (const s of client.opened) if (!s.closedByClient) s.onActivity("comment");
  }
  assert.equal(conn.status.state, "connected", "90 s with heartbeats every 15 s");
  timers.advance(30_000);
  client.live("events.mux").onActivity("comment"); // only the mux stays alive
  timers.advance(14_000);
  assert.equal(conn.status.state, "connected");
  timers.advance(6_000);
  assert.equal(conn.status.state, "reconnecting");
  assert.match(conn.status.error, /events\.host: no bytes/);
});

test("stream-open timeout: describe ok but streams not yet open → connected after 3 s", async () => {
  const timers = fakeTimers(0);
  let release;
  const gate = new Promise((r) => (release = r));
  const client = {
    async stream(key, { signal }) {
      await gate;
      const s = controlledStream();
      signal.addEventListener("abort", () => s.close(), { once: true });
      return s;
    },
    async call() {
      return { ok: true, value: { version: "1" } };
    },
  };
  const conn = new ConnectionController({ client, timers });
  conn.start();
  await flush();
  assert.equal(conn.status.state, "connecting");
  timers.advance(2_999);
  assert.equal(conn.status.state, "connecting");
  timers.advance(1);
  assert.equal(conn.status.state, "connected");
  release();
  await flush();
  assert.equal(conn.status.state, "connected");
});

test("describe failing keeps it from connecting", async () => {
  const { client, conn } = setup();
  client.describeOk = false;
  conn.start();
  await flush();
  assert.equal(conn.status.state, "reconnecting");
  assert.match(conn.status.error, /host\.describe/);
});

test("a host that could not start is final: one failed state with the reason, no retry", async () => {
  const { client, conn, timers, states } = setup();
  client.hostFailed = "unknown provider 'nope'";
  conn.start();
  await flush();
  assert.equal(conn.status.state, "failed");
  assert.equal(conn.status.error, "unknown provider 'nope'");
  assert.equal(conn.status.retryAt, null);
  assert.deepEqual(timers.pendingDelays(), [], "no retry scheduled");
  const attempts = client.attempts;
  timers.advance(60_000);
  conn.retryNow();
  await flush();
  assert.equal(client.attempts, attempts, "nothing tried again");
  assert.deepEqual(states, ["connecting", "failed"]);
});

test("host.describe's transport result keeps what the carrier said: hostFailed is final, 401 needs the link", async () => {
  const failed = setup();
  failed.client.call = async () => transportResult(new TransportError("http", "host.describe: HTTP 503", { status: 503, hostFailed: true, detail: "bad settings" }));
  failed.conn.start();
  await flush();
  assert.equal(failed.conn.status.state, "failed");
  assert.equal(failed.conn.status.error, "bad settings");
  const denied = setup();
  denied.client.call = async () => transportResult(new TransportError("http", "host.describe: HTTP 401", { status: 401 }));
  denied.conn.start();
  await flush();
  assert.equal(denied.conn.status.state, "reconnecting");
  assert.equal(denied.conn.status.needsLink, true);
});

test("any other HTTP 503 still retries", async () => {
  const { client, conn } = setup();
  client.stream = async () => {
    throw new TransportError("http", "events.mux: HTTP 503", { status: 503 });
  };
  conn.start();
  await flush();
  assert.equal(conn.status.state, "reconnecting");
});

test("frames are forwarded by stream", async () => {
  const { client, conn } = setup();
  const mux = [];
  const host = [];
  conn.on("mux", (m) => mux.push(m.payload.type));
  conn.on("host", (m) => host.push(m.payload.type));
  conn.start();
  await flush();
  client.live("events.mux").push({ payload: { type: "session/subscribed", sessionId: "a", lastSeq: -1 } });
  client.live("events.host").push({ payload: { type: "host/session-status", sessionId: "a", running: true } });
  await flush();
  assert.deepEqual(mux, ["session/subscribed"]);
  assert.deepEqual(host, ["host/session-status"]);
});
