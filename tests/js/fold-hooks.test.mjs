import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionFold } from "../../webui/js/state/fold.js";
import { hookOutcome, hookTone } from "../../webui/js/state/fold-hooks.js";

let seq = 0;
const at = (type, data) => ({ type, seq: seq++, time: 1000 + seq, data });
const invoked = (turn, id, command) => at("hook/invoked", { turn, point: "PreToolUse", dialect: "claude", handlerId: id, matcher: "Bash", command });
const result = (turn, id, decision, exitCode, stderrSummary, durationMs) =>
  at("hook/result", { turn, point: "PreToolUse", handlerId: id, decision, ...(exitCode === null ? {} : { exitCode }), ...(stderrSummary ? { stderrSummary } : {}), durationMs });

test("hook/invoked adds a running row that hook/result fills in: decision, exit code, reason, duration", () => {
  seq = 0;
  const f = new SessionFold();
  f.apply(at("turn/start", { turn: 1, trigger: "user" }));
  f.apply(invoked(1, "claude:PreToolUse:1", "./deny-rm.sh"));
  const row = f.items[0];
  assert.equal(row.kind, "hook");
  assert.equal(row.status, "running");
  assert.equal(row.command, "./deny-rm.sh");
  assert.equal(hookTone(row), "running");
  f.takeOps();
  f.apply(result(1, "claude:PreToolUse:1", "block", 2, "no rm please", 41.6));
  assert.deepEqual(f.takeOps(), [{ op: "update", id: row.id }]);
  assert.equal(f.items.length, 1);
  assert.equal(row.status, "done");
  assert.equal(row.decision, "block");
  assert.equal(row.exitCode, 2);
  assert.equal(row.reason, "no rm please");
  assert.equal(hookTone(row), "refused");
  assert.equal(hookOutcome(row), "block · exit 2 · 42 ms");
});

test("the same handler fired twice in a turn pairs each result with its own invocation, in order", () => {
  seq = 0;
  const f = new SessionFold();
  f.apply(invoked(1, "claude:PreToolUse:1", "guard"));
  f.apply(invoked(1, "claude:PreToolUse:1", "guard"));
  f.apply(result(1, "claude:PreToolUse:1", "pass", 0, null, 5));
  f.apply(result(1, "claude:PreToolUse:1", "deny", 0, null, 2500));
  assert.deepEqual(f.items.map((i) => i.decision), ["pass", "deny"]);
  assert.equal(hookTone(f.items[0]), "ok");
  assert.equal(hookOutcome(f.items[1]), "deny · exit 0 · 2.5 s");
});

test("a result without its invocation (a history page cut between them) still gets a row; no exit code says so", () => {
  seq = 0;
  const f = new SessionFold();
  f.apply(result(2, "claude:PreToolUse:4", "error", null, "timed out after 1 s", 1003));
  assert.equal(f.items.length, 1);
  assert.equal(f.items[0].command, null);
  assert.equal(hookTone(f.items[0]), "error");
  assert.equal(hookOutcome(f.items[0]), "error · did not run to an exit · 1.0 s");
});

test("folding in one go or in pieces gives the same hook rows", () => {
  seq = 0;
  const evs = [invoked(1, "claude:PreToolUse:1", "a"), invoked(1, "claude:PreToolUse:2", "b"), result(1, "claude:PreToolUse:2", "ask", 0, null, 3), result(1, "claude:PreToolUse:1", "allow", 0, null, 4)];
  const one = new SessionFold();
  evs.forEach((e) => one.apply(e));
  const two = new SessionFold();
  evs.slice(0, 2).forEach((e) => two.apply(e));
  evs.slice(2).forEach((e) => two.apply(e));
  assert.deepEqual(two.items, one.items);
  assert.deepEqual(one.items.map((i) => [i.command, i.decision]), [["a", "allow"], ["b", "ask"]]);
});
