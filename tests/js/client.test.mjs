import { test } from "node:test";
import assert from "node:assert/strict";
import { AbstractApiClient } from "../../webui/js/client/abstract-client.js";
import { WebApiClient } from "../../webui/js/client/web-client.js";
import { BridgeApiClient, createClient, waitForBridge } from "../../webui/js/client/bridge-client.js";
import { TransportError, isTransportFailure, transportErrorOf } from "../../webui/js/client/errors.js";

const quiet = { warn() {}, error() {} };

/** AbstractApiClient over an in-test doFetch: `handler(url, init) → Response`. */
class FakeClient extends AbstractApiClient {
  constructor(handler, opts = {}) {
    super({ log: quiet, ...opts });
    this.handler = handler;
    this.requests = [];
  }
  async doFetch(url, init) {
    this.requests.push({ url, init });
    return this.handler(url, init);
  }
}

const json = (body, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const echo = (value) => (url, init) => {
  const req = JSON.parse(init.body);
  return json({ type: "server-response", rpcId: req.rpcId, result: { ok: true, value } });
};

test("call: envelope, POST /api/<method>, JSON content type, typed ok result", async () => {
  const c = new FakeClient(echo({ items: [] }));
  const r = await c.call("session.list", {});
  assert.deepEqual(r, { ok: true, value: { items: [] } });
  const { url, init } = c.requests[0];
  assert.equal(url, "/api/session.list");
  assert.equal(init.method, "POST");
  assert.equal(init.headers["content-type"], "application/json");
  const body = JSON.parse(init.body);
  assert.equal(body.type, "client-request");
  assert.equal(body.method, "session.list");
  assert.deepEqual(body.payload, {});
  assert.match(body.rpcId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.ok(init.signal instanceof AbortSignal);
});

test("call: a typed error result comes back, not thrown", async () => {
  const err = { code: "session-not-found", message: "no", details: { sessionId: "x" } };
  const c = new FakeClient((u, i) => json({ type: "server-response", rpcId: JSON.parse(i.body).rpcId, result: { ok: false, error: err } }));
  assert.deepEqual(await c.call("session.history", { sessionId: "x" }), { ok: false, error: err });
});

/** A failed `transport` result of carrier step `kind` (docs/architecture.md, "Clients"). */
const transport = (r, kind) => !r.ok && r.error.code === "transport" && r.error.details.kind === kind;

test("dev validation: a value that does not fit its method's schema is logged and fails the call", async () => {
  const errors = [];
  const log = { warn() {}, error: (m) => errors.push(m) };
  const wrong = new FakeClient(echo({ items: "not a list" }), { validate: true, log });
  const r = await wrong.call("session.list", {});
  assert.ok(transport(r, "protocol"), JSON.stringify(r));
  assert.match(r.error.message, /^session\.list: the value does not fit the contract \(value\.items: expected array, got string\)$/);
  assert.deepEqual(errors, [r.error.message], "loud: one console error naming the method and the field");
  // a value that fits passes; an error result is not a value
  assert.deepEqual(await new FakeClient(echo({ items: [] }), { validate: true, log }).call("session.list", {}), { ok: true, value: { items: [] } });
  // off (the product): the same wrong value reaches the caller unchecked
  assert.deepEqual(await new FakeClient(echo({ items: "not a list" }), { log }).call("session.list", {}), { ok: true, value: { items: "not a list" } });
  assert.equal(errors.length, 1);
});

test("dev validation is on when the test launcher set globalThis.HARNESSDESK_DEV_VALIDATE", () => {
  assert.equal(new FakeClient(echo({})).validate, false);
  globalThis.HARNESSDESK_DEV_VALIDATE = true;
  try {
    assert.equal(new FakeClient(echo({})).validate, true);
  } finally {
    delete globalThis.HARNESSDESK_DEV_VALIDATE;
  }
});

test("call: an rpcId that does not echo resolves to a protocol transport failure", async () => {
  const c = new FakeClient(() => json({ type: "server-response", rpcId: "other", result: { ok: true, value: {} } }));
  const r = await c.call("host.describe");
  assert.ok(transport(r, "protocol"), JSON.stringify(r));
  assert.match(r.error.message, /rpcId mismatch/);
});

test("a desktop host that could not start: calls fail with hostFailed and the reason, streams throw it", async () => {
  const failed = () => new Response("unknown provider 'nope'", { status: 503, headers: { "x-harnessdesk-host": "failed" } });
  const isHostFailed = (e) => e instanceof TransportError && e.hostFailed && e.status === 503 && e.detail === "unknown provider 'nope'";
  const r = await new FakeClient(failed).call("host.describe");
  assert.ok(transport(r, "http"), JSON.stringify(r));
  assert.deepEqual(r.error.details, { kind: "http", status: 503, hostFailed: true, detail: "unknown provider 'nope'" });
  assert.ok(isHostFailed(transportErrorOf(r.error)), "the connection rethrows it with hostFailed intact");
  await assert.rejects(new FakeClient(failed).stream("events.mux"), isHostFailed);
  const plain = () => new Response("busy", { status: 503 });
  const busy = await new FakeClient(plain).call("host.describe");
  assert.ok(transport(busy, "http") && busy.error.details.status === 503 && !busy.error.details.hostFailed);
  await assert.rejects(new FakeClient(plain).stream("events.mux"), (e) => e.status === 503 && !e.hostFailed && e.detail === "");
});

test("call: HTTP errors, non-JSON and network failures resolve to transport failures, never throw", async () => {
  const http = await new FakeClient(() => new Response("nope", { status: 415 })).call("x.y");
  assert.ok(transport(http, "http") && http.error.details.status === 415);
  assert.ok(transport(await new FakeClient(() => new Response("{{", { status: 200 })).call("x.y"), "protocol"));
  assert.ok(transport(await new FakeClient(() => json({ hello: 1 })).call("x.y"), "protocol"));
  const gone = new FakeClient(() => {
    throw new TypeError("Failed to fetch");
  });
  const r = await gone.call("x.y");
  assert.ok(transport(r, "network"));
  assert.match(r.error.message, /Failed to fetch/);
  assert.ok(isTransportFailure(r) && !isTransportFailure({ ok: false, error: { code: "bad-request", message: "", details: {} } }));
});

test("call: times out (AbortSignal.timeout) even when the carrier ignores the signal", async () => {
  const c = new FakeClient(() => new Promise(() => {}), { timeoutMs: 30 });
  const keepAlive = setTimeout(() => {}, 5_000); // AbortSignal.timeout's timer does not hold Node's loop
  assert.ok(transport(await c.call("host.describe"), "timeout"));
  clearTimeout(keepAlive);
});

test("call: a method the contract marks userPaced waits for the person (no timeout); others keep it", async () => {
  const methods = { "host.pickDirectory": { userPaced: true }, "host.describe": { userPaced: false } };
  const answers = [];
  const c = new FakeClient(
    (u, init) =>
      new Promise((resolve) => answers.push(() => resolve(json({ type: "server-response", rpcId: JSON.parse(init.body).rpcId, result: { ok: true, value: {} } })))),
    { timeoutMs: 20, methods },
  );
  const keepAlive = setTimeout(() => {}, 5_000); // AbortSignal.timeout's timer does not hold Node's loop
  const picked = c.call("host.pickDirectory", {});
  assert.ok(transport(await c.call("host.describe"), "timeout"));
  await new Promise((r) => setTimeout(r, 40)); // well past the unary timeout
  clearTimeout(keepAlive);
  answers[0]();
  assert.deepEqual(await picked, { ok: true, value: {} });
  assert.equal(c.requests[0].init.signal, undefined, "no timeout signal reached the carrier");
});

test("call: the contract marks host.pickDirectory userPaced: the folder dialog outlives the unary timeout", async () => {
  const later = (value) => (url, init) => new Promise((resolve) => setTimeout(() => resolve(echo(value)(url, init)), 120));
  const c = new FakeClient(later({ path: "/home/me/project" }), { timeoutMs: 30 });
  assert.deepEqual(await c.call("host.pickDirectory", {}), { ok: true, value: { path: "/home/me/project" } });
  const keepAlive = setTimeout(() => {}, 5_000);
  assert.ok(transport(await c.call("host.listDirectory", {}), "timeout")); // the others keep the bound
  clearTimeout(keepAlive);
  // only the caller (or the connection) ends it
  const hung = new FakeClient(() => new Promise(() => {}), { timeoutMs: 30 });
  const ac = new AbortController();
  const p = hung.call("host.pickDirectory", {}, { signal: ac.signal });
  setTimeout(() => ac.abort(), 80);
  assert.equal((await p).error.code, "cancelled");
});

test("call: the caller's signal merges with the timeout; abort → cancelled result", async () => {
  let seen;
  const c = new FakeClient((u, init) => {
    seen = init.signal;
    return new Promise(() => {});
  });
  const ac = new AbortController();
  const p = c.call("host.describe", {}, { signal: ac.signal });
  await new Promise((r) => setTimeout(r, 5));
  ac.abort();
  const r = await p;
  assert.equal(r.ok, false);
  assert.equal(r.error.code, "cancelled");
  assert.equal(seen.aborted, true, "the merged signal reached the carrier");
});

test("respond: client-response envelope to /api/respond, receipt returned", async () => {
  const c = new FakeClient(() => json({ accepted: false, reason: "not-pending" }));
  const receipt = await c.respond("rpc-1", { ok: true, value: { sessionId: "s", approvalId: "a", outcome: "rejected" } });
  assert.deepEqual(receipt, { accepted: false, reason: "not-pending" });
  const { url, init } = c.requests[0];
  assert.equal(url, "/api/respond");
  assert.deepEqual(JSON.parse(init.body), { type: "client-response", rpcId: "rpc-1", result: { ok: true, value: { sessionId: "s", approvalId: "a", outcome: "rejected" } } });
  await assert.rejects(new FakeClient(() => json({ accepted: "maybe" })).respond("r", { ok: true, value: {} }), (e) => e.kind === "protocol");
});

function sseResponse(chunks) {
  const enc = new TextEncoder();
  const body = new ReadableStream({
    start(ctl) {
      for (const c of chunks) ctl.enqueue(typeof c === "string" ? enc.encode(c) : c);
      ctl.close();
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

const frame = (payload, rpcId = "p1") => `id: 1\ndata: ${JSON.stringify({ type: "server-request", rpcId, method: payload.type, payload })}\n\n`;

test("stream: parses frames split anywhere, drops unknown/invalid frames, keeps unknown session events", async () => {
  const text =
    ": hb\n\n" +
    frame({ type: "session/subscribed", sessionId: "s", lastSeq: -1 }) +
    frame({ type: "nope/new", sessionId: "s" }) +
    frame({ type: "session/event", sessionId: "s", event: { type: "brand/new", seq: 0, time: 1, data: {} } }) +
    frame({ type: "session/event", sessionId: "s", event: { type: "user/message", seq: "x", time: 1, data: {} } }) +
    "data: not json\n\n" +
    frame({ type: "approval/requested", sessionId: "s", approvalId: "a", toolName: "bash" }, "stable-1");
  const bytes = new TextEncoder().encode(text);
  const chunks = [];
  for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.slice(i, i + 7));
  const warnings = [];
  const c = new FakeClient(() => sseResponse(chunks), { log: { warn: (m) => warnings.push(m), error() {} } });
  const activity = [];
  const s = await c.stream("events.mux", { onActivity: (k) => activity.push(k) });
  const got = [];
  for await (const m of s) got.push([m.rpcId, m.payload.type]);
  assert.deepEqual(got, [["p1", "session/subscribed"], ["p1", "session/event"], ["stable-1", "approval/requested"]]);
  assert.equal(warnings.length, 3);
  assert.ok(activity.includes("comment") && activity.includes("bytes"));
  assert.equal(c.requests[0].url, "/api/events.mux");
  assert.equal(c.requests[0].init.method, "GET");
});

test("stream: a host frame on the mux stream is dropped; non-200 throws", async () => {
  const c = new FakeClient(() => sseResponse([frame({ type: "host/session-status", sessionId: "s", running: true })]));
  const s = await c.stream("events.mux");
  const got = [];
  for await (const m of s) got.push(m);
  assert.equal(got.length, 0);
  await assert.rejects(new FakeClient(() => new Response("x", { status: 401 })).stream("events.host"), (e) => e.kind === "http" && e.status === 401);
});

test("stream: close() stops reading", async () => {
  let cancelled = false;
  const body = new ReadableStream({
    start(ctl) {
      ctl.enqueue(new TextEncoder().encode(frame({ type: "session/subscribed", sessionId: "s", lastSeq: 3 })));
    },
    cancel() {
      cancelled = true;
    },
  });
  const c = new FakeClient(() => new Response(body, { status: 200 }));
  const s = await c.stream("events.mux");
  const got = [];
  for await (const m of s) {
    got.push(m);
    s.close();
  }
  assert.equal(got.length, 1);
  assert.equal(cancelled, true);
});

test("envelope observers: all four kinds, batched per microtask, isolated from each other", async () => {
  const c = new FakeClient((u, init) => (u.endsWith("/respond") ? json({ accepted: true }) : echo({})(u, init)));
  const batches = [];
  const errors = [];
  c.log = { warn() {}, error: (m) => errors.push(m) };
  c.subscribeEnvelopes(() => {
    throw new Error("bad observer");
  });
  const unsub = c.subscribeEnvelopes((b) => batches.push(b.map((m) => m.type)));
  await Promise.all([c.call("a.b"), c.call("c.d")]);
  await c.respond("r", { ok: true, value: {} });
  const s = await new FakeClient(() => sseResponse([frame({ type: "session/subscribed", sessionId: "s", lastSeq: 1 })])).stream("events.mux");
  for await (const _ of s);
  await new Promise((r) => setTimeout(r, 0));
  const kinds = batches.flat();
  assert.deepEqual(kinds.filter((k) => k === "client-request").length, 2);
  assert.deepEqual(kinds.filter((k) => k === "server-response").length, 2);
  assert.deepEqual(kinds.filter((k) => k === "client-response").length, 1);
  assert.ok(batches[0].length >= 2, "the two concurrent requests arrive in one batch");
  assert.ok(errors.length >= 1, "the throwing observer was reported, the other still ran");
  unsub();
  await c.call("e.f");
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(batches.flat().length, kinds.length);
});

test("WebApiClient sends its token as a header, never cookies; BridgeApiClient uses the injected fetch", async () => {
  const seen = [];
  const web = new WebApiClient({ token: "t0k", fetch: (u, init) => (seen.push(init), echo(1)(u, init)) });
  assert.equal((await web.call("host.describe")).value, 1);
  assert.equal(seen[0].credentials, "omit");
  assert.equal(seen[0].headers.authorization, "Bearer t0k");
  assert.equal(seen[0].headers["content-type"], "application/json");
  await web.stream("events.mux").catch(() => {});
  assert.equal(seen[1].headers.authorization, "Bearer t0k"); // the SSE streams too
  const bridge = { fetch: (u, init) => echo(2)(u, init) };
  const b = new BridgeApiClient(bridge);
  assert.equal((await b.call("host.describe")).value, 2);
  assert.equal(b.kind, "bridge");
});

test("createClient: bridge when pywebview is present (waits for the bridge), web otherwise", async () => {
  const listeners = {};
  const win = {
    pywebview: {},
    location: { protocol: "http:" },
    addEventListener: (n, f) => (listeners[n] = f),
    removeEventListener: () => {},
  };
  const pending = createClient(win, { pollMs: 1000 });
  win.harnessdeskBridge = { fetch: () => Promise.reject(new Error("x")) };
  listeners.pywebviewready();
  assert.equal((await pending).kind, "bridge");
  assert.equal((await createClient({ location: { protocol: "http:" } })).kind, "web");
  await assert.rejects(waitForBridge({ addEventListener() {}, removeEventListener() {} }, { timeoutMs: 20, pollMs: 5 }));
});
