// The sidebar's list against the frames that arrive while a `session.list` is on its way: an
// answer older than a later add (or remove) must not undo it, and an older answer that arrives
// after a newer one is dropped (docs/decisions.md, "A list answer never undoes a later add").
import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionManager } from "../../webui/js/state/session-manager.js";
import { flush } from "./helpers.mjs";

/** A client whose `session.list` answers wait until the test releases them, in any order. */
function heldListClient() {
  const c = {
    lists: [], // {resolve} per session.list call, in call order
    async call(method) {
      if (method !== "session.list") return { ok: true, value: {} };
      return new Promise((resolve) => c.lists.push({ answer: (items) => resolve({ ok: true, value: { items } }) }));
    },
    async respond() {
      return { accepted: true };
    },
  };
  return c;
}

const host = (payload) => ({ type: "server-request", rpcId: "h", method: payload.type, payload });
const parent = { sessionId: "p", updatedAt: 5, running: true, blank: false, title: "Parent" };
const child = { sessionId: "c", updatedAt: 6, running: true, blank: false, parentSessionId: "p", origin: "subagent", title: "Survey the tests" };
const added = { type: "host/session-added", sessionId: "c", blank: false, parentSessionId: "p", origin: "subagent" };

function rowOf(m, id) {
  return m.summaries.get(id) ?? null;
}

test("a list begun before a child existed, answering after the child's add (and after the newer list), keeps the child nested", async () => {
  const client = heldListClient();
  const m = new SessionManager({ client });
  // an unknown session's status starts a refresh before the child exists on the host
  m.handleHost(host({ type: "host/session-status", sessionId: "x", running: true }));
  await flush();
  assert.equal(client.lists.length, 1);
  m.handleHost(host(added)); // the child appears (and starts its own refresh, for its title)
  await flush();
  assert.equal(client.lists.length, 2);
  assert.equal(rowOf(m, "c").parentSessionId, "p");
  client.lists[1].answer([parent, child]); // the newer list answers first
  await flush();
  assert.equal(rowOf(m, "c").title, "Survey the tests");
  client.lists[0].answer([parent]); // the older one, from before the child, answers last
  await flush();
  const row = rowOf(m, "c");
  assert.ok(row, "the child's row was dropped by an older list answer");
  assert.equal(row.parentSessionId, "p");
  assert.equal(row.title, "Survey the tests", "the older answer overwrote the newer one");
  assert.deepEqual([...m.summaries.keys()].sort(), ["c", "p"]);
});

test("a list begun before a child's add that answers first without it keeps the added child", async () => {
  const client = heldListClient();
  const m = new SessionManager({ client });
  const first = m.refreshList();
  await flush();
  m.handleHost(host({ ...added, origin: undefined })); // no origin: no refresh of its own
  await flush();
  assert.equal(client.lists.length, 1);
  client.lists[0].answer([parent]);
  assert.equal(await first, true);
  assert.equal(rowOf(m, "c")?.parentSessionId, "p", "the added child did not survive the older answer");
  // a refresh begun after the add is the host's word: the child is gone if it does not list it
  const second = m.refreshList();
  await flush();
  client.lists[1].answer([parent]);
  await second;
  assert.equal(rowOf(m, "c"), null);
});

test("a session removed while a list is on its way is not brought back by that list", async () => {
  const client = heldListClient();
  const m = new SessionManager({ client });
  const first = m.refreshList();
  await flush();
  client.lists[0].answer([parent, child]);
  await first;
  const second = m.refreshList();
  await flush();
  m.handleHost(host({ type: "host/session-removed", sessionId: "c" }));
  client.lists[1].answer([parent, child]); // the host answered before the removal
  await second;
  assert.equal(rowOf(m, "c"), null);
  assert.ok(rowOf(m, "p"));
});

test("a child's status frame that lands while the list begun at its add is on its way is not undone by that list", async () => {
  const client = heldListClient();
  const m = new SessionManager({ client });
  m.handleHost(host({ ...added, blank: true })); // a subagent starts blank; its add refreshes the list
  await flush();
  assert.equal(client.lists.length, 1);
  m.handleHost(host({ type: "host/session-status", sessionId: "c", running: true })); // its turn began
  await flush();
  client.lists[0].answer([parent, { ...child, blank: true, running: false }]); // the host answered before the turn
  await flush();
  const row = rowOf(m, "c");
  assert.equal(row.blank, false, "the older answer hid the running child again");
  assert.equal(row.running, true);
  assert.equal(row.title, "Survey the tests", "the answer's own fields are still taken");
  // once no list is on its way, a later answer is the host's word again
  const again = m.refreshList();
  await flush();
  client.lists[1].answer([parent, { ...child, running: false }]);
  await again;
  assert.equal(rowOf(m, "c").running, false);
  assert.equal(m.listOrder.patches.length, 0, "patches outlived every answer that could predate them");
});
