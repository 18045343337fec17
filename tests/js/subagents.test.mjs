// Subagents in the client's pure state: nesting in the sidebar's groups, the fold of a parent's
// `task` call and of a child's first message, and the approvals a child asks in its parent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { groupSessions } from "../../webui/js/state/workspaces.js";
import { flattenTree } from "../../webui/js/state/session-list.js";
import { SessionFold } from "../../webui/js/state/fold.js";
import { SessionManager } from "../../webui/js/state/session-manager.js";
import { describeTool } from "../../webui/js/state/diff.js";
import { ev } from "./helpers.mjs";

const S = (id, updatedAt, extra = {}) => ({ sessionId: id, updatedAt, running: false, blank: false, ...extra });
const W = (id, sessionIds) => ({ workspaceId: id, path: `/p/${id}`, title: id, sessionIds, createdAt: "t", updatedAt: "t" });
const ids = (roots) => flattenTree(roots).map((n) => `${n.summary.sessionId}${n.depth}`);
const child = (id, parent, updatedAt = 10, extra = {}) => S(id, updatedAt, { origin: "subagent", parentSessionId: parent, ...extra });

test("subagents stand under their parent, in its workspace, and are archived with it", () => {
  const summaries = [S("p", 1), child("c1", "p", 5), child("c2", "p", 9), child("g", "c1"), S("q", 2), child("k", "q"), S("u", 3), child("uc", "u")];
  const { groups, archived } = groupSessions(summaries, [W("w", ["p", "q"])], ["q"]);
  assert.deepEqual(ids(groups[0].roots), ["p0", "c21", "c11", "g2"]); // not in the account, still nested
  assert.deepEqual(ids(groups[1].roots), ["u0", "uc1"]); // Ungrouped keeps its children too
  assert.deepEqual(archived.map((s) => s.sessionId), ["q"]); // k went with q, not listed on its own
  const orphan = groupSessions([child("o", "gone")], [W("w", [])], []);
  assert.deepEqual(ids(orphan.groups[1].roots), ["o0"]); // a parent not listed: it stands alone
});

test("a parent's task call learns its child; a child's first message is the parent's", () => {
  const fold = new SessionFold();
  fold.applyAll([
    ev(0, "turn/start", { turn: 0, trigger: "user" }),
    ev(1, "tool/call", { turn: 0, step: 0, callId: "c1", name: "task", arguments: '{"description":"Look","prompt":"go"}' }),
    ev(2, "subagent/spawned", { callId: "c1", sessionId: "s-child", label: "Look", agentPreset: "standard" }),
  ]);
  const tool = fold.items.find((it) => it.kind === "tool");
  assert.deepEqual(tool.subagent, { sessionId: "s-child", label: "Look", agentPreset: "standard" });
  assert.equal(tool.status, "running");
  assert.deepEqual(describeTool("task", tool.arguments).summary, "Look");

  const childFold = new SessionFold();
  childFold.applyAll([
    ev(0, "turn/start", { turn: 0, trigger: "user" }),
    ev(1, "subagent/descriptor", { version: 2, mode: "continuable", provider: "inprocess", label: "Look" }),
    ev(2, "user/message", { id: "m1", role: "user", content: [{ type: "text", text: "go" }], source: { kind: "plugin", plugin: "task", meta: { callId: "c1" } } }),
    ev(3, "user/message", { id: "m2", role: "user", content: [{ type: "text", text: "done" }], source: { kind: "plugin", plugin: "subagent" } }),
  ]);
  assert.deepEqual(childFold.items.map((it) => [it.kind, it.fromParent ?? null]), [["user", true], ["context", null]]); // no raw row for the descriptor
});

test("a child's approval shows in its parent and in its own view; replays clear both", () => {
  const client = { async call() { return { ok: true, value: { items: [] } }; }, async respond() { return { accepted: true }; } };
  const m = new SessionManager({ client });
  const asked = { type: "approval/requested", sessionId: "p", approvalId: "a1", toolName: "bash", subagent: { sessionId: "c", label: "Look" } };
  m.handleMux({ type: "server-request", rpcId: "R1", method: asked.type, payload: asked });
  assert.deepEqual(m.pendingFor("p").map((e) => e.rpcId), ["R1"]); // badges the parent
  assert.deepEqual(m.pendingFor("c").map((e) => e.rpcId), ["R1"]);
  assert.equal(m.waitingFor("p"), "approval");
  assert.deepEqual(m.pendingFor("x"), []);
  m.handleMux({ type: "server-request", rpcId: "s", method: "session/subscribed", payload: { type: "session/subscribed", sessionId: "c", lastSeq: 3 } });
  assert.equal(m.pending.size, 0); // the host replays it with the child's requests too
});
