import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionFold } from "../../webui/js/state/fold.js";

let seq = 0;
const at = (type, data) => ({ type, seq: seq++, time: 1000 + seq, data });
const text = (t) => [{ type: "text", text: t }];
const user = (id, t) => at("user/message", { id, role: "user", content: text(t), source: { kind: "user", rpcId: id } });
const failed = { kind: "error", error: { code: "provider-unavailable", message: "connection failed", details: {} } };

function turn(f, n, t, reason) {
  f.apply(at("turn/start", { turn: n, trigger: "user" }));
  f.apply(user(`m${n}`, t));
  f.apply(at("turn/end", { turn: n, reason }));
}

test("the same message right after a failed turn is its retry: the failed attempt folds away", () => {
  seq = 0;
  const f = new SessionFold();
  turn(f, 0, "Plan the beds", failed);
  turn(f, 1, "Plan the beds", { kind: "completed" });
  const users = f.items.filter((i) => i.kind === "user");
  assert.deepEqual(users.map((u) => !!u.retried), [true, false]);
  const ends = f.items.filter((i) => i.kind === "turn-end");
  assert.deepEqual(ends.map((e) => !!e.retried), [true, false]);
});

test("not a retry: another text, a completed turn before, or a message in between", () => {
  seq = 0;
  const f = new SessionFold();
  turn(f, 0, "one", failed);
  turn(f, 1, "two", { kind: "completed" }); // a different message
  turn(f, 2, "two", { kind: "completed" }); // repeats a turn that did not fail
  turn(f, 3, "three", failed);
  f.apply(at("turn/start", { turn: 4, trigger: "user" }));
  f.apply(user("m4", "other"));
  f.apply(user("m5", "three")); // a message came between the failure and the repeat
  f.apply(at("turn/end", { turn: 4, reason: { kind: "completed" } }));
  assert.equal(f.items.filter((i) => i.retried).length, 0);
});
