import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionManager } from "../../webui/js/state/session-manager.js";
import { ev, flush } from "./helpers.mjs";

function fakeClient() {
  const c = {
    calls: [],
    responses: [],
    receipt: { accepted: true },
    list: [{ sessionId: "s1", updatedAt: 5, running: false, blank: false, title: "One" }],
    async call(method, payload) {
      c.calls.push([method, payload]);
      switch (method) {
        case "session.list":
          return { ok: true, value: { items: c.list } };
        case "session.history":
          return { ok: true, value: { events: [], hasMore: false } };
        case "session.create":
          return { ok: true, value: { sessionId: "new1" } };
        default:
          return { ok: true, value: {} };
      }
    },
    async respond(rpcId, result) {
      c.responses.push([rpcId, result]);
      return c.receipt;
    },
  };
  return c;
}

const mux = (payload, rpcId = "p") => ({ type: "server-request", rpcId, method: payload.type, payload });

test("pending approvals/questions are keyed by rpcId and removed on */resolved", async () => {
  const m = new SessionManager({ client: fakeClient() });
  m.handleMux(mux({ type: "approval/requested", sessionId: "s1", approvalId: "a1", toolName: "bash" }, "R1"));
  m.handleMux(mux({ type: "question/requested", sessionId: "s1", questions: [{ id: "q", question: "?" }] }, "R2"));
  m.handleMux(mux({ type: "approval/requested", sessionId: "s1", approvalId: "a1", toolName: "bash" }, "R1")); // replay
  assert.deepEqual([...m.pending.keys()], ["R1", "R2"]);
  m.handleMux(mux({ type: "approval/resolved", sessionId: "s1", approvalId: "a1", outcome: "allowed-once" }));
  assert.deepEqual([...m.pending.keys()], ["R2"]);
  m.handleMux(mux({ type: "question/resolved", sessionId: "s1", questionRpcId: "R2", outcome: "answered" }));
  assert.equal(m.pending.size, 0);
});

test("subscribed drops a session's pending requests (the host replays the live ones next)", () => {
  const m = new SessionManager({ client: fakeClient() });
  m.handleMux(mux({ type: "approval/requested", sessionId: "s1", approvalId: "a1", toolName: "bash" }, "R1"));
  m.handleMux(mux({ type: "approval/requested", sessionId: "s2", approvalId: "a2", toolName: "bash" }, "R9"));
  m.handleMux(mux({ type: "session/subscribed", sessionId: "s1", lastSeq: 4 }));
  assert.deepEqual([...m.pending.keys()], ["R9"]);
});

test("answering an approval sends the value; not-pending removes the card", async () => {
  const client = fakeClient();
  const m = new SessionManager({ client });
  m.handleMux(mux({ type: "approval/requested", sessionId: "s1", approvalId: "a1", toolName: "bash" }, "R1"));
  await m.answerApproval("R1", "allowed-always");
  assert.deepEqual(client.responses[0], ["R1", { ok: true, value: { sessionId: "s1", approvalId: "a1", outcome: "allowed-always" } }]);
  assert.equal(m.pending.get("R1").state, "sent");
  client.receipt = { accepted: false, reason: "not-pending" };
  await m.answerApproval("R1", "rejected");
  assert.equal(m.pending.size, 0);
});

test("queue snapshots and title projections (highest seq wins)", async () => {
  const m = new SessionManager({ client: fakeClient() });
  await m.refreshList();
  m.open("s1");
  const message = (id, kind) => ({ id, role: "user", content: [{ type: "text", text: id }], source: { kind } });
  const items = [
    { id: "q", placement: "queued", message: message("q", "user") },
    { id: "s", placement: "steering", message: message("s", "user") },
    { id: "c", placement: "context", message: message("c", "plugin") },
  ];
  m.handleMux(mux({ type: "session/queue", sessionId: "s1", items }));
  assert.equal(m.queues.get("s1").length, 3);
  assert.deepEqual(m.visibleQueue("s1").map((i) => i.id), ["q", "s"], "context is not shown until claimed");
  const job = { id: "bash-1", kind: "bash", label: "sleep 9", status: "running", startedAt: 1 };
  const seen = [];
  m.on("jobs", (sid) => seen.push(sid));
  m.handleMux(mux({ type: "session/jobs", sessionId: "s1", jobs: [job] }));
  assert.deepEqual(m.jobs.get("s1"), [job]);
  m.handleMux(mux({ type: "session/jobs", sessionId: "s1", jobs: [] }));
  assert.equal(m.jobs.has("s1"), false);
  m.handleMux(mux({ type: "session/jobs", sessionId: "s1", jobs: [job] }));
  m.markPendingStale(); // the connection dropped: the baselines come again
  assert.equal(m.jobs.has("s1"), false);
  assert.equal(m.queues.has("s1"), false);
  assert.deepEqual(seen, ["s1", "s1", "s1", "s1"]);
  m.handleMux(mux({ type: "session/projection", sessionId: "s1", key: "title", value: "New", seq: 9 }));
  m.handleMux(mux({ type: "session/projection", sessionId: "s1", key: "title", value: "Old", seq: 3 }));
  assert.equal(m.summaries.get("s1").title, "New");
});

test("live events reach the open session; host frames update the list", async () => {
  const client = fakeClient();
  const m = new SessionManager({ client });
  await m.refreshList();
  const s = m.open("s1");
  await flush();
  m.handleMux(mux({ type: "session/event", sessionId: "s1", event: ev(0, "turn/start", { turn: 0, trigger: "user" }) }));
  assert.equal(s.lastSeq, 0);
  m.handleHost(mux({ type: "host/session-status", sessionId: "s1", running: true }));
  assert.equal(m.summaries.get("s1").running, true);
  m.handleHost(mux({ type: "host/session-added", sessionId: "s9", blank: true }));
  assert.equal(m.summaries.get("s9").blank, true);
  m.handleHost(mux({ type: "host/session-removed", sessionId: "s1" }));
  assert.equal(m.activeId, null);
});

test("the built-in model's load state reaches listeners", () => {
  const m = new SessionManager({ client: fakeClient() });
  const seen = [];
  m.on("model-status", (s) => seen.push(s));
  m.handleHost(mux({ type: "host/model-status", model: "smollm2-135m-instruct", state: "loading" }));
  m.handleHost(mux({ type: "host/model-status", model: "smollm2-135m-instruct", state: "ready" }));
  assert.deepEqual(seen, [
    { model: "smollm2-135m-instruct", state: "loading" },
    { model: "smollm2-135m-instruct", state: "ready" },
  ]);
});

test("new session reuses a blank one, else creates", async () => {
  const client = fakeClient();
  client.list = [{ sessionId: "b1", updatedAt: 1, running: false, blank: true }];
  const m = new SessionManager({ client });
  await m.refreshList();
  assert.equal((await m.newSession()).sessionId, "b1");
  assert.equal(client.calls.filter(([x]) => x === "session.create").length, 0);
  client.list = [];
  await m.refreshList();
  assert.equal((await m.newSession()).sessionId, "new1");
});

test("rebuild re-lists and reopens open sessions", async () => {
  const client = fakeClient();
  const m = new SessionManager({ client });
  await m.refreshList();
  m.open("s1");
  await flush();
  client.calls.length = 0;
  await m.rebuild({ cwd: "/w" });
  assert.deepEqual(client.calls.map(([x]) => x), ["session.list", "session.history"]);
});

test("rebuild fails on a transport failure of session.list (the app reconnects), not on a business error", async () => {
  const client = fakeClient();
  const m = new SessionManager({ client });
  const errors = [];
  m.on("error", (e) => errors.push(e));
  const plain = client.call;
  client.call = async (method, payload) =>
    method === "session.list" ? { ok: false, error: { code: "transport", message: "session.list: HTTP 502", details: { kind: "http", status: 502 } } } : plain(method, payload);
  await assert.rejects(m.rebuild({ cwd: "/w" }), (e) => e.name === "TransportError" && e.status === 502);
  assert.deepEqual(errors, [], "no toast: the reconnect says it");
  client.call = async (method, payload) =>
    method === "session.list" ? { ok: false, error: { code: "internal", message: "boom", details: {} } } : plain(method, payload);
  await m.rebuild({ cwd: "/w" });
  assert.deepEqual(errors, ["Could not list sessions: boom"]);
});

test("after a reconnect, pending requests that were not replayed are dropped", async () => {
  const m = new SessionManager({ client: fakeClient() });
  m.handleMux(mux({ type: "approval/requested", sessionId: "s1", approvalId: "a1", toolName: "bash" }, "R1"));
  m.handleMux(mux({ type: "approval/requested", sessionId: "s2", approvalId: "a2", toolName: "bash" }, "R2"));
  m.markPendingStale();
  // the new mux replays only R2
  m.handleMux(mux({ type: "session/subscribed", sessionId: "s2", lastSeq: 3 }));
  m.handleMux(mux({ type: "approval/requested", sessionId: "s2", approvalId: "a2", toolName: "bash" }, "R2"));
  await m.rebuild({ cwd: "/" });
  assert.deepEqual([...m.pending.keys()], ["R2"]);
});

test("waitingFor: an open approval or question means the agent waits on the user; answers in flight do not", async () => {
  const client = fakeClient();
  const m = new SessionManager({ client });
  assert.equal(m.waitingFor("s1"), null);
  m.handleMux(mux({ type: "question/requested", sessionId: "s1", questions: [{ id: "q", question: "?" }] }, "R2"));
  assert.equal(m.waitingFor("s1"), "question");
  m.handleMux(mux({ type: "approval/requested", sessionId: "s1", approvalId: "a1", toolName: "bash" }, "R1"));
  assert.equal(m.waitingFor("s1"), "approval");
  assert.equal(m.waitingFor("s2"), null);
  const sent = m.answerApproval("R1", "allowed-once");
  assert.equal(m.waitingFor("s1"), "question"); // "sending": no longer waiting on that one
  await sent;
  assert.equal(m.pending.get("R1").state, "sent");
  await m.answer("R2", { sessionId: "s1", answer: {} });
  assert.equal(m.waitingFor("s1"), null);
});

test("provisional title from the first user message until the host's title projection arrives", async () => {
  const client = fakeClient();
  client.list = [{ sessionId: "s2", updatedAt: 5, running: true, blank: false }];
  const m = new SessionManager({ client });
  await m.refreshList();
  const s = m.open("s2");
  await flush();
  const live = (seq, type, data) => m.handleMux(mux({ type: "session/event", sessionId: "s2", event: ev(seq, type, data) }));
  live(0, "turn/start", { turn: 0 });
  live(1, "user/message", { id: "m1", content: [{ type: "text", text: "  Rename   the\nparser module  " }] });
  assert.equal(m.summaries.get("s2").provisionalTitle, "Rename the parser module");
  live(2, "steering/message", { id: "m2", content: [{ type: "text", text: "and the tests" }] });
  assert.equal(m.summaries.get("s2").provisionalTitle, "Rename the parser module");
  await m.refreshList(); // a re-list keeps it while the host has no title
  assert.equal(m.summaries.get("s2").provisionalTitle, "Rename the parser module");
  m.handleMux(mux({ type: "session/projection", sessionId: "s2", key: "title", value: "Parser rename", seq: 3 }));
  assert.equal(m.summaries.get("s2").title, "Parser rename");
  client.list = [{ sessionId: "s2", updatedAt: 6, running: false, blank: false, title: "Parser rename" }];
  await m.refreshList();
  assert.equal(m.summaries.get("s2").provisionalTitle, undefined);
  assert.equal(s.title, "Parser rename");
});

test("the shown session is the mux stream's focus; a session not shown sleeps and catches up when shown", async () => {
  const client = fakeClient();
  client.list = [
    { sessionId: "s1", updatedAt: 5, running: true, blank: false, title: "One" },
    { sessionId: "s2", updatedAt: 4, running: true, blank: false, title: "Two" },
  ];
  const m = new SessionManager({ client });
  await m.refreshList();
  const one = m.open("s1");
  await flush();
  assert.equal(client.calls.filter(([method]) => method === "host.focus").length, 0, "no stream named yet");
  m.handleMux(mux({ type: "stream/opened", streamId: "mux-a" }));
  const focus = () => client.calls.filter(([method]) => method === "host.focus").map(([, p]) => p);
  assert.deepEqual(focus(), [{ streamId: "mux-a", sessionIds: ["s1"] }]);

  const two = m.open("s2");
  await flush();
  assert.deepEqual(focus().at(-1), { streamId: "mux-a", sessionIds: ["s2"] });
  assert.equal(one.dormant, true);
  assert.equal(two.dormant, false);

  // s1 goes on in the background: it holds nothing of it, and asks for nothing yet
  const pulls = () => client.calls.filter(([method, p]) => method === "session.history" && p.sessionId === "s1").length;
  const before = pulls();
  m.handleMux(mux({ type: "session/event", sessionId: "s1", event: ev(7, "assistant/message", { turn: 0 }) }));
  await flush();
  assert.equal(one.events.length, 0);
  assert.equal(pulls(), before, "a sleeping session does not re-pull on a gap");

  // shown again: the focus follows, and it re-pulls its tail once
  m.open("s1");
  await flush();
  assert.deepEqual(focus().at(-1), { streamId: "mux-a", sessionIds: ["s1"] });
  assert.equal(one.dormant, false);
  assert.equal(two.dormant, true);
  assert.equal(pulls(), before + 1);

  // a new stream (a reconnect) is focused anew
  m.handleMux(mux({ type: "stream/opened", streamId: "mux-b" }));
  assert.deepEqual(focus().at(-1), { streamId: "mux-b", sessionIds: ["s1"] });
});

test("switching through 30 sessions keeps six open; the others are closed, let go and take no frames", async () => {
  const client = fakeClient();
  const m = new SessionManager({ client });
  const opened = [];
  for (let i = 0; i < 30; i++) {
    const s = m.open(`s${i}`);
    opened.push(s);
    await flush();
    m.handleMux(mux({ type: "session/event", sessionId: `s${i}`, event: ev(0, "turn/start", { turn: 0, trigger: "user" }) }));
    assert.equal(s.events.length, 1, "the shown session takes its live frames");
  }
  // the bound: the six most recently shown, the shown one last
  assert.deepEqual([...m.sessions.keys()], ["s24", "s25", "s26", "s27", "s28", "s29"]);
  assert.equal(m.active, opened[29]);
  for (const s of opened.slice(0, 24)) {
    assert.equal(s.closed, true, `${s.sessionId} was closed when it left the open set`);
    m.handleMux(mux({ type: "session/event", sessionId: s.sessionId, event: ev(1, "turn/end", { turn: 0, reason: { kind: "completed" } }) }));
    assert.equal(s.events.length, 1, "a closed session holds nothing more");
  }
  // opening an evicted one again builds it anew from the host, and the bound holds
  const again = m.open("s3");
  assert.notEqual(again, opened[3]);
  assert.equal(m.sessions.size, 6);
  assert.equal(m.sessions.has("s24"), false, "the least recently shown one left");
});
